/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mr.h -- the local (mr.c) and remote (mr_remote.c) memory regions. Both
 * structures are defined here, not in their files, because the data path
 * (post.h) reads their fields inline: an operation costs no call to fetch
 * an address or a key. Their access policy is mr_access.h's, their
 * descriptor's codec mr_desc.h's.
 */

#ifndef RPMA_MR_H
#define RPMA_MR_H

#include "rpma.h"

struct rpma_mr_local {
	char *addr;
	size_t size;
	uint32_t lkey;
	int usage;
	int desc_usage;		/* what its descriptor shows the peer (mr_access.c) */
	struct ibv_mr *ibv_mr;
	int access;		/* the access it was registered with */
	bool for_grants;	/* rpma_mr_reg_for_grants(): no remote right of its own */
	unsigned windows;	/* the grants' windows that hold it (atomic, mw.c) */
};

struct rpma_mr_remote {
	uint64_t addr;
	uint64_t size;		/* checked at import: fits a size_t, does not wrap */
	uint32_t rkey;
	int usage;
	unsigned flush_types;	/* 1 << RPMA_FLUSH_TYPE_* the region allows */
	/* per RPMA_FLUSH_TYPE_*: the placement (PEER_FLUSH_*) of a native FLUSH, 0: a read */
	uint8_t flush_place[2];
};

/* off and len lie inside a region of size bytes, without overflow */
static inline bool
mr_range_ok(size_t off, size_t len, size_t size)
{
	return off <= size && len <= size - off;
}

#endif /* RPMA_MR_H */
