/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mr_desc.h -- the codec of the descriptor a region or a grant sends its
 * peer (its layout: mr_desc.c).
 */

#ifndef RPMA_MR_DESC_H
#define RPMA_MR_DESC_H

#include <stdint.h>

/* the size of a region's or a grant's descriptor */
#define MR_DESC_SIZE 21

/* what a descriptor says, as its writer put it: nothing of it checked */
struct mr_desc {
	uint64_t addr;
	uint64_t length;
	uint32_t rkey;
	int usage;
};

/* Write a descriptor of [addr, +length) reached with rkey for usage. */
void mr_desc_write(void *desc, uint64_t addr, uint64_t length, uint32_t rkey, int usage);

/* Read the MR_DESC_SIZE bytes at desc. */
void mr_desc_read(const void *desc, struct mr_desc *out);

#endif /* RPMA_MR_DESC_H */
