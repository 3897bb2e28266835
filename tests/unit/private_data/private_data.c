// SPDX-License-Identifier: BSD-3-Clause
/* private_data.c -- unit tests of src/private_data.c */

#include "fixtures.h"
#include "private_data.h"

static void
test_private_data_store__empty(void **state)
{
	(void) state;
	struct rpma_conn_private_data pdata = {(void *)0x1, 9};

	assert_int_equal(private_data_store(NULL, 5, &pdata), 0);
	assert_null(pdata.ptr);
	assert_int_equal(pdata.len, 0);
	pdata.ptr = (void *)0x1;
	assert_int_equal(private_data_store("abc", 0, &pdata), 0);
	assert_null(pdata.ptr);
	assert_int_equal(CALLS(malloc), 0);
	private_data_delete(&pdata);	/* of an empty one: nothing */
}

static void
test_private_data_store__copy(void **state)
{
	(void) state;
	char src[4] = "abc";
	struct rpma_conn_private_data pdata = {NULL, 0};

	assert_int_equal(private_data_store(src, sizeof(src), &pdata), 0);
	assert_ptr_not_equal(pdata.ptr, src);
	assert_int_equal(pdata.len, 4);
	src[0] = 'z';	/* the copy is the library's */
	assert_memory_equal(pdata.ptr, "abc", 4);
	private_data_delete(&pdata);
	assert_null(pdata.ptr);
	assert_int_equal(pdata.len, 0);
}

static void
test_private_data_store__nomem(void **state)
{
	(void) state;
	struct rpma_conn_private_data pdata = {(void *)0x1, 9};

	MOCK_FAIL(malloc, 0, 0);
	assert_int_equal(private_data_store("abc", 3, &pdata), RPMA_E_NOMEM);
	assert_ptr_equal(pdata.ptr, (void *)0x1);
	assert_int_equal(pdata.len, 9);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		TEST(test_private_data_store__empty),
		TEST(test_private_data_store__copy),
		TEST(test_private_data_store__nomem),
	};
	return RUN(tests);
}
