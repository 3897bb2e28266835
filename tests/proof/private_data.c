// SPDX-License-Identifier: BSD-3-Clause
/*
 * private_data.c -- private_data_store() and private_data_delete()
 * (private_data.c) keep the library's own copy of the private data rdma_cm
 * hands over.
 *
 * Proven for every length rdma_cm can report (0 to 255: its
 * private_data_len is 8 bits) and every content, with the bytes in a buffer
 * of exactly that length:
 * - no read outside that buffer, no write outside the copy, no undefined
 *   behaviour, no leak once the copy is deleted;
 * - the copy is a new object of exactly the reported length holding the
 *   same bytes, and its stored length is the reported one; a NULL buffer or
 *   a length of 0 is stored as empty (NULL, 0);
 * - a failed allocation is RPMA_E_NOMEM and leaves the output untouched;
 * - deleting leaves the output empty.
 */

#include <stdlib.h>

#include "fixtures.h"
#include "private_data.h"

int
main(void)
{
	uint8_t len = nondet_u8();
	uint8_t *buf = malloc(len);
	struct rpma_conn_private_data pdata = { (void *)&len, 7 };

	__CPROVER_assume(buf != NULL);
	const void *ptr = nondet_bool() ? buf : NULL;

	int ret = private_data_store(ptr, len, &pdata);
	if (ptr == NULL || len == 0) {
		__CPROVER_assert(ret == 0 && pdata.ptr == NULL && pdata.len == 0,
				"no bytes are stored as empty");
	} else if (ret != 0) {
		__CPROVER_assert(ret == RPMA_E_NOMEM && pdata.ptr == (void *)&len && pdata.len == 7,
				"a failed allocation is RPMA_E_NOMEM, the output untouched");
	} else {
		size_t i = nondet_size();
		WITNESS("private data is copied");
		__CPROVER_assert(pdata.len == len, "the stored length is the reported one");
		__CPROVER_assert(pdata.ptr != buf && __CPROVER_OBJECT_SIZE(pdata.ptr) == len &&
				__CPROVER_POINTER_OFFSET(pdata.ptr) == 0,
				"the copy is an object of its own, of exactly that length");
		if (i < len)
			__CPROVER_assert(((uint8_t *)pdata.ptr)[i] == buf[i],
					"the copy holds the same bytes");
	}

	if (ret == 0) {
		private_data_delete(&pdata);
		__CPROVER_assert(pdata.ptr == NULL && pdata.len == 0, "a deleted copy is empty");
	}
	free(buf);
	return 0;
}
