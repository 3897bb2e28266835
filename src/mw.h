/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mw.h -- what a memory window offers grants and window sets: a type-2
 * window over a range of a region, bound on one QP.
 */

#ifndef RPMA_MW_H
#define RPMA_MW_H

#include "rpma.h"

struct mw;
struct rpma_cq;

/* where a window goes: [addr, +length) of region mr (registered with mr_access) */
struct mw_range {
	struct ibv_mr *mr;
	int mr_access;
	uint64_t addr;
	uint64_t length;
	unsigned *windows;	/* the region's count of the windows that hold it (atomic) */
};

/*
 * A window of peer for range, not bound yet. It holds the region (its
 * count goes up) until it is revoked.
 */
int mw_new(const struct rpma_peer *peer, const struct mw_range *range, struct mw **mw_ptr);

/*
 * Bind the window over range with access on qp, and wait on cq, qp's send
 * CQ, until the bind has completed: RPMA_E_PROVIDER when it failed. Where
 * no completion came (the bind stayed queued behind the QP's requests, and
 * moving the QP to the error state did not flush it either), the bind may
 * still happen: mw_in_flight() says so, and the window must stay allocated
 * until the QP is gone.
 */
int mw_bind(struct mw *mw, struct ibv_qp *qp, struct rpma_cq *cq, const struct mw_range *range,
		int access);

/* whether a bind of the window was posted and its completion never came */
bool mw_in_flight(const struct mw *mw);

/* the key a peer uses the window with */
uint32_t mw_rkey(const struct mw *mw);

/*
 * Revoke the window: the device drops its key before this returns, and the
 * region is no longer held. Again on a revoked window: 0. On failure the
 * window stays as it was.
 */
int mw_revoke(struct mw *mw);

/* Free a revoked window. */
void mw_free(struct mw *mw);

#endif /* RPMA_MW_H */
