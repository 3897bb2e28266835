// SPDX-License-Identifier: BSD-3-Clause
/* flush.c -- unit tests of src/flush.c: the byte a read-after-write flush reads into */

#include <errno.h>
#include <stdint.h>
#include <unistd.h>

#include "fixtures.h"
#include "flush.h"
#include "peer.h"

static void
test_flush_new__success(void **state)
{
	(void) state;
	struct rpma_peer *peer = fx_peer();
	struct rpma_flush *flush = NULL;

	struct ibv_sge sge;

	assert_int_equal(flush_new(peer_pd(peer), IBV_ACCESS_LOCAL_WRITE, &flush), 0);
	assert_non_null(flush);
	/* registered with the access the peer says, on its protection domain */
	assert_int_equal(mock_rec.reg_access[0], IBV_ACCESS_LOCAL_WRITE);
	assert_int_equal(mock_rec.reg_length, 1);
	/* the registered byte starts a page of its own, not one shared with the heap */
	assert_int_equal((uintptr_t)mock_rec.reg_addr % (uintptr_t)sysconf(_SC_PAGESIZE), 0);
	/* a read of one byte lands in it */
	flush_dst(flush, &sge);
	assert_int_equal(sge.addr, (uintptr_t)mock_rec.reg_addr);
	assert_int_equal(sge.length, 1);
	assert_int_equal(sge.lkey, 0x1000);
	assert_int_equal(flush_delete(&flush), 0);
	assert_null(flush);
	assert_int_equal(flush_delete(&flush), 0);
	assert_int_equal(CALLS(ibv_dereg_mr), 1);
	assert_int_equal(rpma_peer_delete(&peer), 0);
}

static void
test_flush_new__fails(void **state)
{
	(void) state;
	struct rpma_peer *peer = fx_peer();
	struct rpma_flush *flush = NULL;

	MOCK_FAIL(malloc, 0, 0);
	assert_int_equal(flush_new(peer_pd(peer), IBV_ACCESS_LOCAL_WRITE, &flush), RPMA_E_NOMEM);
	MOCK_FAIL(ibv_reg_mr, 0, EFAULT);
	assert_int_equal(flush_new(peer_pd(peer), IBV_ACCESS_LOCAL_WRITE, &flush),
			RPMA_E_PROVIDER);
	assert_int_equal(errno, EFAULT);
	assert_null(flush);
	/* the page went with the failure: nothing left for the teardown to find */
	assert_int_equal(rpma_peer_delete(&peer), 0);
}

static void
test_flush_delete__dereg_fails(void **state)
{
	(void) state;
	struct rpma_peer *peer = fx_peer();
	struct rpma_flush *flush = NULL;

	assert_int_equal(flush_new(peer_pd(peer), IBV_ACCESS_LOCAL_WRITE, &flush), 0);
	MOCK_FAIL(ibv_dereg_mr, EBUSY, 0);
	/* the failure is reported, and the flush is gone */
	assert_int_equal(flush_delete(&flush), RPMA_E_PROVIDER);
	assert_int_equal(errno, EBUSY);
	assert_null(flush);
	assert_int_equal(rpma_peer_delete(&peer), 0);
	/* the registration the provider kept is the mock's, not a leak of ours */
	mock_release_all();
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		TEST(test_flush_new__success),
		TEST(test_flush_new__fails),
		TEST(test_flush_delete__dereg_fails),
	};
	return RUN(tests);
}
