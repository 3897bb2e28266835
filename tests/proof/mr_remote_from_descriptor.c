// SPDX-License-Identifier: BSD-3-Clause
/*
 * mr_remote_from_descriptor.c -- rpma_mr_remote_from_descriptor()
 * (mr_remote.c, mr_desc.c) reads a remote region's descriptor, which comes
 * from the peer.
 *
 * Proven for every buffer length the allocator can give (0 up to CBMC's
 * largest object) and every content:
 * - no read outside the buffer, no undefined behaviour, no leak;
 * - a buffer shorter than 21 bytes, or a NULL argument, is RPMA_E_INVAL;
 * - success only for a non-empty range that does not wrap around and a
 *   usage that is not 0; the region then holds exactly the encoded
 *   address, length, rkey and usage (little-endian), read back by
 *   rpma_mr_remote_get_size() and rpma_mr_remote_get_flush_type(); it
 *   allows a persistent flush only where the usage says so, and a native
 *   FLUSH placement only for a flush type it allows;
 * - every such descriptor succeeds, unless the allocation fails
 *   (RPMA_E_NOMEM); any other fails with RPMA_E_NOSUPP;
 * - on failure the output is left untouched.
 */

#include <stdlib.h>

#include "fixtures.h"

/* the little-endian number of n bytes at p */
static uint64_t
le(const uint8_t *p, int n)
{
	uint64_t v = 0;

	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

int
main(void)
{
	size_t desc_size = nondet_size();
	uint8_t *buf = malloc(desc_size);
	struct rpma_mr_remote untouched;
	struct rpma_mr_remote *mr = &untouched;

	__CPROVER_assume(buf != NULL);
	const uint8_t *desc = nondet_bool() ? buf : NULL;
	struct rpma_mr_remote **mr_ptr = nondet_bool() ? &mr : NULL;

	int ret = rpma_mr_remote_from_descriptor(desc, desc_size, mr_ptr);

	__CPROVER_assert(ret == 0 || ret == RPMA_E_INVAL || ret == RPMA_E_NOSUPP ||
			ret == RPMA_E_NOMEM, "the call returns 0, RPMA_E_INVAL, RPMA_E_NOSUPP or "
			"RPMA_E_NOMEM");
	if (desc == NULL || mr_ptr == NULL || desc_size < 21) {
		__CPROVER_assert(ret == RPMA_E_INVAL,
				"a NULL argument or a descriptor under 21 bytes is RPMA_E_INVAL");
		__CPROVER_assert(mr == &untouched, "a failure leaves the output untouched");
		free(buf);
		return 0;
	}

	uint64_t addr = le(desc, 8), size = le(desc + 8, 8);
	uint32_t rkey = (uint32_t)le(desc + 16, 4);
	int usage = desc[20];
	bool valid = usage != 0 && size != 0 && sum_within(addr, size, UINT64_MAX);

	__CPROVER_assert(valid ? ret == 0 || ret == RPMA_E_NOMEM : ret == RPMA_E_NOSUPP,
			"a descriptor is accepted exactly when its usage is not 0 and its "
			"range is not empty and does not wrap");
	if (ret != 0) {
		__CPROVER_assert(mr == &untouched, "a failure leaves the output untouched");
		free(buf);
		return 0;
	}

	WITNESS("a descriptor is accepted");
	__CPROVER_assert(mr->addr == addr && mr->size == size && mr->rkey == rkey &&
			mr->usage == usage, "the region holds exactly the encoded fields");
	__CPROVER_assert((mr->flush_types & ~3u) == 0 &&
			(!(mr->flush_types & (1u << RPMA_FLUSH_TYPE_PERSISTENT)) ||
			(usage & RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT)),
			"a persistent flush only where the usage allows one");
	for (int t = 0; t < 2; t++)
		__CPROVER_assert(mr->flush_place[t] <= 2 &&
				(mr->flush_place[t] == 0 || (mr->flush_types & (1u << t))),
				"a native FLUSH placement only for a flush type the region allows");

	size_t got_size = 0;
	int flush_type = -1;
	__CPROVER_assert(rpma_mr_remote_get_size(mr, &got_size) == 0 && got_size == size,
			"rpma_mr_remote_get_size() gives the encoded length");
	__CPROVER_assert(rpma_mr_remote_get_flush_type(mr, &flush_type) == 0 &&
			flush_type == (usage & (RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY |
			RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT)),
			"rpma_mr_remote_get_flush_type() gives the encoded flush usage");
	__CPROVER_assert(rpma_mr_remote_delete(&mr) == 0 && mr == NULL,
			"the region is deleted");
	free(buf);
	return 0;
}
