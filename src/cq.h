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

#endif /* RPMA_CQ_H */
