/* SPDX-License-Identifier: BSD-3-Clause */
/* flush.h -- how a connection makes its writes visible or persistent */

#ifndef RPMA_FLUSH_H
#define RPMA_FLUSH_H

#include "rpma.h"

struct rpma_flush;

/*
 * Register, on pd with access, the byte read-after-write flushes read into
 * (one per peer: peer.c holds it and says what access a read's destination
 * needs).
 */
int flush_new(struct ibv_pd *pd, int access, struct rpma_flush **flush_ptr);

/* Deregister the byte and free it, even when deregistration fails; NULL-safe. */
int flush_delete(struct rpma_flush **flush_ptr);

/* The scatter entry a flush reads into (post_read_within() of post.h posts the read). */
void flush_dst(const struct rpma_flush *flush, struct ibv_sge *sge);

#endif /* RPMA_FLUSH_H */
