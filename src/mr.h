/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mr.h -- what memory regions offer the other modules. The two region
 * structures are defined here, not in mr.c, because the data path
 * (post.h) reads their fields inline: an operation costs no call to fetch
 * an address or a key.
 */

#ifndef RPMA_MR_H
#define RPMA_MR_H

#include "rpma.h"

struct rpma_mr_local {
	char *addr;
	size_t size;
	uint32_t lkey;
	int usage;
	int desc_usage;		/* what its descriptor shows the peer (mr.c) */
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

/* the size of a region's or a grant's descriptor (its layout: mr.c) */
#define MR_DESC_SIZE 21

/* Write a descriptor of [addr, +length) reached with rkey for usage. */
void mr_desc_write(void *desc, uint64_t addr, uint64_t length, uint32_t rkey, int usage);

/* off and len lie inside a region of size bytes, without overflow */
static inline bool
mr_range_ok(size_t off, size_t len, size_t size)
{
	return off <= size && len <= size - off;
}

/*
 * The access a window over mr needs for usage, or -1 when usage is not a
 * non-empty subset of the remote usages (read source, write destination,
 * flush) mr was registered for grants with.
 */
int mr_window_access(const struct rpma_mr_local *mr, int usage);

/*
 * The usage the descriptor of a region or window with access shows the
 * peer: usage, plus RPMA_MR_USAGE_READ_SRC where a flush usage lacks the
 * rights of the native FLUSH a peer would post for it (see mr.c).
 */
int mr_desc_usage(const struct rpma_peer *peer, int usage, int access);

#endif /* RPMA_MR_H */
