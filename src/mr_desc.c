// SPDX-License-Identifier: BSD-3-Clause
/*
 * mr_desc.c -- the descriptor of a region or a grant: 21 bytes,
 * little-endian whatever the host:
 *   0  address   8 bytes
 *   8  length    8 bytes
 *   16 rkey      4 bytes
 *   20 usage     1 byte (RPMA_MR_USAGE_* bits)
 * It comes from the peer: the reader trusts none of it (mr_remote.c checks).
 */

#include <endian.h>
#include <string.h>

#include "mr_desc.h"

#define DESC_ADDR	0
#define DESC_LENGTH	8
#define DESC_RKEY	16
#define DESC_USAGE	20

void
mr_desc_write(void *desc, uint64_t addr, uint64_t length, uint32_t rkey, int usage)
{
	uint8_t *d = desc;

	addr = htole64(addr);
	length = htole64(length);
	rkey = htole32(rkey);
	memcpy(d + DESC_ADDR, &addr, sizeof(addr));
	memcpy(d + DESC_LENGTH, &length, sizeof(length));
	memcpy(d + DESC_RKEY, &rkey, sizeof(rkey));
	d[DESC_USAGE] = (uint8_t)usage;
}

void
mr_desc_read(const void *desc, struct mr_desc *out)
{
	const uint8_t *d = desc;
	uint64_t addr, length;
	uint32_t rkey;

	memcpy(&addr, d + DESC_ADDR, sizeof(addr));
	memcpy(&length, d + DESC_LENGTH, sizeof(length));
	memcpy(&rkey, d + DESC_RKEY, sizeof(rkey));
	out->addr = le64toh(addr);
	out->length = le64toh(length);
	out->rkey = le32toh(rkey);
	out->usage = d[DESC_USAGE];
}
