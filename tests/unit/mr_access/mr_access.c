// SPDX-License-Identifier: BSD-3-Clause
/* mr_access.c -- unit tests of src/mr_access.c: the rights of a grant's window */

#include <errno.h>

#include "fixtures.h"
#include "mr.h"
#include "mr_access.h"

/* device_cap_flags_ex: FLUSH of global and of persistent placement (kernel ABI) */
#define CAP_FLUSH_GLOBAL	(1ULL << 38)
#define CAP_FLUSH_PERSISTENT	(1ULL << 39)
#define RIGHTS_FLUSH_GLOBAL	(1 << 8)	/* IBV_ACCESS_FLUSH_GLOBAL */
#define RIGHTS_FLUSH_PERSISTENT	(1 << 9)	/* IBV_ACCESS_FLUSH_PERSISTENT */
#define VIS RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY
#define PERS RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT

#define BUF_SIZE 4096
static char buf[BUF_SIZE];

/* a window's rights: what the usage needs, FLUSH rights as far as the region has them */
static void
test_mr_window_access(void **state)
{
	(void) state;
	mock_device_set_caps(IBV_DEVICE_MEM_WINDOW_TYPE_2B);
	mock_device_set_caps_ex(CAP_FLUSH_GLOBAL | CAP_FLUSH_PERSISTENT);
	struct rpma_peer *peer = fx_peer();
	struct rpma_mr_local *mr = NULL, *plain = NULL;
	int all = RPMA_MR_USAGE_READ_SRC | RPMA_MR_USAGE_WRITE_DST | VIS | PERS;

	/* persistence refused (rxe on DRAM): the region has the global FLUSH right only */
	MOCK_FAIL(ibv_reg_mr, 0, EINVAL);
	assert_int_equal(rpma_mr_reg_for_grants(peer, buf, BUF_SIZE, all | RPMA_MR_USAGE_SEND,
			&mr), 0);
	assert_int_equal(mr_window_access(mr, RPMA_MR_USAGE_READ_SRC), IBV_ACCESS_REMOTE_READ);
	assert_int_equal(mr_window_access(mr, RPMA_MR_USAGE_WRITE_DST), IBV_ACCESS_REMOTE_WRITE);
	assert_int_equal(mr_window_access(mr, VIS), IBV_ACCESS_REMOTE_READ | RIGHTS_FLUSH_GLOBAL);
	assert_int_equal(mr_window_access(mr, PERS), IBV_ACCESS_REMOTE_READ | RIGHTS_FLUSH_GLOBAL);
	/* no usage, a local one, one beyond the region's */
	assert_int_equal(mr_window_access(mr, 0), -1);
	assert_int_equal(mr_window_access(mr, RPMA_MR_USAGE_SEND), -1);
	assert_int_equal(mr_window_access(mr, RPMA_MR_USAGE_READ_SRC | RPMA_MR_USAGE_RECV), -1);
	assert_int_equal(rpma_mr_dereg(&mr), 0);

	assert_int_equal(rpma_mr_reg_for_grants(peer, buf, BUF_SIZE, RPMA_MR_USAGE_READ_SRC | PERS,
			&mr), 0);
	assert_int_equal(mr_window_access(mr, PERS), IBV_ACCESS_REMOTE_READ |
			RIGHTS_FLUSH_GLOBAL | RIGHTS_FLUSH_PERSISTENT);
	assert_int_equal(mr_window_access(mr, RPMA_MR_USAGE_WRITE_DST), -1);
	assert_int_equal(rpma_mr_dereg(&mr), 0);

	/* a region registered with rpma_mr_reg() gets no window */
	plain = fx_mr(peer, buf, BUF_SIZE, RPMA_MR_USAGE_READ_SRC);
	assert_int_equal(mr_window_access(plain, RPMA_MR_USAGE_READ_SRC), -1);
	assert_int_equal(rpma_mr_dereg(&plain), 0);
	assert_int_equal(rpma_peer_delete(&peer), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		TEST(test_mr_window_access),
	};
	return RUN(tests);
}
