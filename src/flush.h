/* SPDX-License-Identifier: BSD-3-Clause */
/* flush.h -- how a connection makes its writes visible or persistent */

#ifndef RPMA_FLUSH_H
#define RPMA_FLUSH_H

#include "rpma.h"

struct rpma_flush;

/* Register the byte read-after-write flushes read into (one per peer, peer.c). */
int flush_new(struct rpma_peer *peer, struct rpma_flush **flush_ptr);

/* NULL-safe */
int flush_delete(struct rpma_flush **flush_ptr);

/* The region a flush reads into (post_read_within() of post.h posts the read). */
const struct rpma_mr_local *flush_dst(const struct rpma_flush *flush);

#endif /* RPMA_FLUSH_H */
