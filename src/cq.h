/* SPDX-License-Identifier: BSD-3-Clause */
/* cq.h -- what the completion queue offers connections and shared RQs */

#ifndef RPMA_CQ_H
#define RPMA_CQ_H

#include "rpma.h"

/*
 * Create a CQ of size entries, armed for its first event. With shared
 * NULL the CQ gets its own completion channel, otherwise it uses shared.
 */
int cq_new(struct ibv_context *ibv_ctx, uint32_t size, struct ibv_comp_channel *shared,
		struct rpma_cq **cq_ptr);

/* Acknowledge what is left, destroy the CQ and its own channel; NULL-safe. */
int cq_delete(struct rpma_cq **cq_ptr);

struct ibv_cq *cq_ibv_cq(const struct rpma_cq *cq);

/* Account one event got from the channel and re-arm the CQ. */
int cq_event_got(struct rpma_cq *cq);

/*
 * Make ready what cq_take() keeps the program's completions in, before the
 * request it waits for is posted: a wait that fails for want of memory
 * would leave that request's completion to the program.
 */
int cq_take_ready(struct rpma_cq *cq);

/*
 * Wait for the completion of the library's own request wr_id, at most
 * timeout_ms, into *wc; the program's completions met on the way are kept
 * and come first from rpma_cq_get_wc() (cq_stash.h has the errors).
 */
int cq_take(struct rpma_cq *cq, uint64_t wr_id, unsigned timeout_ms, struct ibv_wc *wc);

/* whether cq_take() kept completions the program has not polled yet */
bool cq_holds_kept(const struct rpma_cq *cq);

#endif /* RPMA_CQ_H */
