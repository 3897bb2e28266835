// SPDX-License-Identifier: BSD-3-Clause
/* info.c -- unit tests of src/info.c */

#include <errno.h>

#include "fixtures.h"
#include "info.h"

static void
test_info_new__passive_and_active(void **state)
{
	(void) state;
	struct rdma_addrinfo *rai = NULL;

	assert_int_equal(info_new("192.0.2.1", "7204", true, &rai), 0);
	assert_non_null(rai);
	assert_true(mock_rec.hints.ai_flags & RAI_PASSIVE);
	assert_int_equal(mock_rec.hints.ai_qp_type, IBV_QPT_RC);
	assert_int_equal(mock_rec.hints.ai_port_space, RDMA_PS_TCP);
	info_delete(&rai);
	assert_null(rai);
	assert_int_equal(info_new("192.0.2.1", NULL, false, &rai), 0);
	assert_int_equal(mock_rec.hints.ai_flags & RAI_PASSIVE, 0);
	info_delete(&rai);
	assert_int_equal(CALLS(rdma_freeaddrinfo), 2);
}

static void
test_info_new__fails(void **state)
{
	(void) state;
	struct rdma_addrinfo *rai = (struct rdma_addrinfo *)0x1;

	MOCK_FAIL(rdma_getaddrinfo, -1, EADDRNOTAVAIL);
	assert_int_equal(info_new("nowhere", NULL, false, &rai), RPMA_E_PROVIDER);
	/* errno survives the logging */
	assert_int_equal(errno, EADDRNOTAVAIL);
	assert_ptr_equal(rai, (struct rdma_addrinfo *)0x1);
	assert_int_equal(mock_rec.log_count, 1);
	assert_non_null(strstr(mock_rec.log_last, "nowhere"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		TEST(test_info_new__passive_and_active),
		TEST(test_info_new__fails),
	};
	return RUN(tests);
}
