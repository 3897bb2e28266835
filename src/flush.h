/* SPDX-License-Identifier: BSD-3-Clause */
/* flush.h -- how a connection makes its writes visible or persistent */

#ifndef RPMA_FLUSH_H
#define RPMA_FLUSH_H

#include "rpma.h"

struct rpma_flush;

/* Prepare the flush of one connection (registers its small read buffer). */
int flush_new(struct rpma_peer *peer, struct rpma_flush **flush_ptr);

/* NULL-safe */
int flush_delete(struct rpma_flush **flush_ptr);

/* Post the flush of dst[dst_offset, +len); the caller checked the type is allowed. */
int flush_post(struct rpma_flush *flush, struct ibv_qp *qp, struct rpma_mr_remote *dst,
		size_t dst_offset, size_t len, int flags, const void *op_context);

#endif /* RPMA_FLUSH_H */
