/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cq_stash.h -- what a CQ's stash offers the CQ: the library waits there
 * for a completion of its own, and keeps the program's completions it
 * meets on the way, to be polled in their order before the CQ's next.
 */

#ifndef RPMA_CQ_STASH_H
#define RPMA_CQ_STASH_H

#include "rpma.h"

struct cq_stash;

/*
 * A stash of cq. *polled is the CQ the program's polls go to: the stash
 * points it at a CQ of its own while it keeps completions, at cq otherwise.
 */
int cq_stash_new(struct ibv_cq *cq, struct ibv_cq **polled, struct cq_stash **stash_ptr);

/* Free the stash (the completions it keeps are lost); NULL-safe. */
void cq_stash_delete(struct cq_stash **stash_ptr);

/* whether the stash keeps completions the program has not polled yet */
bool cq_stash_holds(struct cq_stash *stash);

/* Make room for what the next poll of cq_stash_take() may bring. */
int cq_stash_ready(struct cq_stash *stash);

/*
 * Poll the CQ until the completion of wr_id comes, into *wc, keeping the
 * others; RPMA_E_AGAIN after timeout_ms without it, RPMA_E_PROVIDER when a
 * poll fails, RPMA_E_NOMEM when there is no room to keep what a poll brings.
 */
int cq_stash_take(struct cq_stash *stash, uint64_t wr_id, unsigned timeout_ms,
		struct ibv_wc *wc);

#endif /* RPMA_CQ_STASH_H */
