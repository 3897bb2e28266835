// SPDX-License-Identifier: BSD-3-Clause
/*
 * fuzz_mr_remote_descriptor.c -- rpma_mr_remote_from_descriptor() on bytes
 * a peer sent: it succeeds only for a 21-byte descriptor of a non-empty,
 * non-wrapping range with some usage, and what the getters give back is
 * what the bytes said.
 */

#include <endian.h>
#include <stdint.h>
#include <string.h>

#include "fuzz.h"

#define DESC_SIZE 21
#define FLUSH_BITS (RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY | RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT)

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void) argc;
	(void) argv;
	fuzz_log_quiet();
	return 0;
}

/* what a librpma peer could have written, decoded independently of mr_desc.c
 * (in the first bytes of a buffer at least that long) */
static int
descriptor_acceptable(const uint8_t *data, size_t size, uint64_t *len)
{
	uint64_t addr;

	if (size < DESC_SIZE)
		return 0;
	memcpy(&addr, data, sizeof(addr));
	memcpy(len, data + 8, sizeof(*len));
	addr = le64toh(addr);
	*len = le64toh(*len);
	return *len != 0 && addr + *len >= addr && data[20] != 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rpma_mr_remote *mr = NULL;
	uint64_t len = 0;
	int expect_ok = descriptor_acceptable(data, size, &len);

	int ret = rpma_mr_remote_from_descriptor(data, size, &mr);
	if (!expect_ok) {
		FUZZ_CHECK(ret == RPMA_E_INVAL || ret == RPMA_E_NOSUPP);
		FUZZ_CHECK(mr == NULL);	/* untouched on failure */
		return 0;
	}
	FUZZ_CHECK(ret == 0);
	FUZZ_CHECK(mr != NULL);

	size_t got_size = 0;
	FUZZ_CHECK(rpma_mr_remote_get_size(mr, &got_size) == 0);
	FUZZ_CHECK(got_size == len);

	int flush_type = -1;
	FUZZ_CHECK(rpma_mr_remote_get_flush_type(mr, &flush_type) == 0);
	FUZZ_CHECK((flush_type & ~FLUSH_BITS) == 0);
	FUZZ_CHECK(flush_type == (data[20] & FLUSH_BITS));

	FUZZ_CHECK(rpma_mr_remote_delete(&mr) == 0);
	FUZZ_CHECK(mr == NULL);
	return 0;
}
