/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mw.h -- what memory windows offer grants and connections: a type-2
 * window bound on one QP, and the set of a QP's windows, revoked together
 * before the QP goes.
 */

#ifndef RPMA_MW_H
#define RPMA_MW_H

#include "rpma.h"

struct mw;
struct mw_set;

/* Create an empty set of windows. */
int mw_set_new(struct mw_set **set_ptr);

/*
 * Revoke every window left in the set and free it; NULL-safe. Each window
 * stays its owner's to free (mw_delete()). Returns the first failure.
 */
int mw_set_delete(struct mw_set **set_ptr);

/* where a window goes: [addr, +length) of region mr (registered with mr_access) */
struct mw_range {
	struct ibv_mr *mr;
	int mr_access;
	uint64_t addr;
	uint64_t length;
};

/*
 * Bind a new type-2 window over range with access on qp, a QP of peer, and
 * add it to set. The bind is posted unsignaled: it takes a slot of the
 * send queue until a later signaled request completes.
 */
int mw_bind(struct mw_set *set, const struct rpma_peer *peer, struct ibv_qp *qp,
		const struct mw_range *range, int access, struct mw **mw_ptr);

/* the key a peer uses the window with */
uint32_t mw_rkey(const struct mw *mw);

/*
 * Revoke the window unless its set did, and free it. On failure the window
 * stays as it was.
 */
int mw_delete(struct mw **mw_ptr);

#endif /* RPMA_MW_H */
