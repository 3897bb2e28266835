// SPDX-License-Identifier: BSD-3-Clause
/*
 * flush.c -- the flush as an RDMA read after the writes.
 *
 * An RDMA read on a reliable connection completes only after every write
 * posted before it has been placed in the responder's memory, so its
 * completion proves the writes are visible there; where the peer declared
 * direct write to PMem they are then persistent too. One byte of the
 * flushed range is read (post_read_within() of post.h) into a byte the
 * connection owns.
 */

#include <stdlib.h>

#include "fault.h"
#include "flush.h"
#include "log.h"
#include "mr.h"

#define RAW_SIZE 1

struct rpma_flush {
	char raw[RAW_SIZE];
	struct rpma_mr_local *raw_mr;
};

int
flush_new(struct rpma_peer *peer, struct rpma_flush **flush_ptr)
{
	struct rpma_flush *flush = FI_PTR(malloc(sizeof(*flush)), ENOMEM);
	if (flush == NULL)
		return RPMA_E_NOMEM;

	int ret = rpma_mr_reg(peer, flush->raw, RAW_SIZE, RPMA_MR_USAGE_READ_DST,
			&flush->raw_mr);
	if (ret) {
		free(flush);
		return ret;
	}

	*flush_ptr = flush;
	return 0;
}

int
flush_delete(struct rpma_flush **flush_ptr)
{
	struct rpma_flush *flush = *flush_ptr;
	if (flush == NULL)
		return 0;

	int ret = mr_dereg_always(&flush->raw_mr);
	free(flush);
	*flush_ptr = NULL;
	return ret;
}

const struct rpma_mr_local *
flush_dst(const struct rpma_flush *flush)
{
	return flush->raw_mr;
}
