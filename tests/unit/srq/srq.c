// SPDX-License-Identifier: BSD-3-Clause
/* srq.c -- unit tests of src/srq.c: the shared RQ, its CQ, receives */

#include <errno.h>

#include "fixtures.h"

static void
test_srq_new__invalid(void **state)
{
	(void) state;
	struct rpma_peer *peer = fx_peer();
	struct rpma_srq *srq = (struct rpma_srq *)0x1;

	assert_int_equal(rpma_srq_new(NULL, NULL, &srq), RPMA_E_INVAL);
	assert_int_equal(rpma_srq_new(peer, NULL, NULL), RPMA_E_INVAL);
	assert_ptr_equal(srq, (struct rpma_srq *)0x1);
	assert_int_equal(CALLS(ibv_create_srq), 0);
	assert_int_equal(rpma_peer_delete(&peer), 0);
}

static void
test_srq_new__defaults(void **state)
{
	(void) state;
	struct rpma_peer *peer = fx_peer();
	struct rpma_srq *srq = NULL;
	struct rpma_cq *rcq = NULL;

	assert_int_equal(rpma_srq_new(peer, NULL, &srq), 0);
	assert_int_equal(mock_rec.srq_attr.attr.max_wr, 100);
	assert_int_equal(mock_rec.srq_attr.attr.max_sge, 1);
	assert_int_equal(mock_rec.cq_size, 100);
	assert_int_equal(rpma_srq_get_rcq(srq, &rcq), 0);
	assert_non_null(rcq);
	mock_calls_reset();
	assert_int_equal(rpma_srq_delete(&srq), 0);
	assert_null(srq);
	assert_true(ORDER(ibv_destroy_cq) < ORDER(ibv_destroy_srq));
	assert_int_equal(rpma_peer_delete(&peer), 0);
}

static void
test_srq_new__no_rcq(void **state)
{
	(void) state;
	struct rpma_peer *peer = fx_peer();
	struct rpma_srq_cfg *cfg = NULL;
	struct rpma_srq *srq = NULL;
	struct rpma_cq *rcq = (struct rpma_cq *)0x1;

	assert_int_equal(rpma_srq_cfg_new(&cfg), 0);
	assert_int_equal(rpma_srq_cfg_set_rcq_size(cfg, 0), 0);
	assert_int_equal(rpma_srq_cfg_set_rq_size(cfg, 42), 0);
	assert_int_equal(rpma_srq_new(peer, cfg, &srq), 0);
	assert_int_equal(mock_rec.srq_attr.attr.max_wr, 42);
	assert_int_equal(CALLS(ibv_create_cq), 0);
	assert_int_equal(rpma_srq_get_rcq(srq, &rcq), 0);
	assert_null(rcq);
	assert_int_equal(rpma_srq_delete(&srq), 0);
	assert_int_equal(rpma_srq_cfg_delete(&cfg), 0);
	assert_int_equal(rpma_peer_delete(&peer), 0);
}

static void
test_srq_new__fails(void **state)
{
	(void) state;
	static const struct { enum mock_fn fn; int ret; int expected; } steps[] = {
		{MOCK_malloc, 0, RPMA_E_NOMEM},
		{MOCK_ibv_create_srq, 0, RPMA_E_PROVIDER},
		{MOCK_ibv_create_comp_channel, 0, RPMA_E_PROVIDER},
		{MOCK_ibv_create_cq, 0, RPMA_E_PROVIDER},
	};
	struct rpma_peer *peer = fx_peer();

	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		struct rpma_srq *srq = NULL;

		mock_calls_reset();
		mock_plan(steps[i].fn, 1, steps[i].ret, ENOMEM);
		assert_int_equal(rpma_srq_new(peer, NULL, &srq), steps[i].expected);
		assert_int_equal(errno, ENOMEM);
		assert_null(srq);
		assert_int_equal(CALLS(ibv_destroy_srq), i >= 2);
	}
	/* the CQ's own allocation */
	struct rpma_srq *srq = NULL;
	mock_calls_reset();
	MOCK_FAIL_NTH(malloc, 2, 0, 0);
	assert_int_equal(rpma_srq_new(peer, NULL, &srq), RPMA_E_NOMEM);
	assert_int_equal(CALLS(ibv_destroy_srq), 1);
	assert_int_equal(rpma_peer_delete(&peer), 0);
}

static void
test_srq_delete__all(void **state)
{
	(void) state;
	struct rpma_peer *peer = fx_peer();
	struct rpma_srq *srq = NULL;

	assert_int_equal(rpma_srq_delete(NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_srq_delete(&srq), 0);
	assert_int_equal(rpma_srq_new(peer, NULL, &srq), 0);
	MOCK_FAIL(ibv_destroy_srq, EBUSY, 0);
	assert_int_equal(rpma_srq_delete(&srq), RPMA_E_PROVIDER);
	assert_int_equal(errno, EBUSY);
	assert_null(srq);
	assert_int_equal(rpma_peer_delete(&peer), 0);
	mock_release_all();
}

static void
test_srq_recv__all(void **state)
{
	(void) state;
	struct rpma_peer *peer = fx_peer();
	struct rpma_srq *srq = NULL;
	struct rpma_cq *rcq = (struct rpma_cq *)0x1;
	char buf[64];
	struct rpma_mr_local *mr = fx_mr(peer, buf, sizeof(buf), RPMA_MR_USAGE_RECV);

	assert_int_equal(rpma_srq_new(peer, NULL, &srq), 0);
	assert_int_equal(rpma_srq_get_rcq(NULL, &rcq), RPMA_E_INVAL);
	assert_int_equal(rpma_srq_get_rcq(srq, NULL), RPMA_E_INVAL);
	assert_ptr_equal(rcq, (struct rpma_cq *)0x1);
	assert_int_equal(rpma_srq_recv(NULL, mr, 0, 8, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_srq_recv(srq, NULL, 0, 8, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_srq_recv(srq, NULL, 8, 0, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_srq_recv(srq, mr, 57, 8, NULL), RPMA_E_INVAL);
	assert_int_equal(CALLS(ibv_post_srq_recv), 0);
	assert_int_equal(rpma_srq_recv(srq, mr, 8, 16, (void *)0x99), 0);
	assert_int_equal(CALLS(ibv_post_srq_recv), 1);
	assert_int_equal(CALLS(ibv_post_recv), 0);
	assert_int_equal(mock_rec.recv_wr.wr_id, 0x99);
	assert_int_equal(mock_rec.recv_sge.addr, (uintptr_t)(buf + 8));
	assert_int_equal(mock_rec.recv_sge.length, 16);
	assert_int_equal(rpma_srq_recv(srq, NULL, 0, 0, NULL), 0);
	assert_int_equal(mock_rec.recv_wr.num_sge, 0);
	MOCK_FAIL(ibv_post_srq_recv, ENOMEM, 0);
	assert_int_equal(rpma_srq_recv(srq, mr, 0, 8, NULL), RPMA_E_PROVIDER);
	assert_int_equal(errno, ENOMEM);
	assert_int_equal(rpma_mr_dereg(&mr), 0);
	assert_int_equal(rpma_srq_delete(&srq), 0);
	assert_int_equal(rpma_peer_delete(&peer), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		TEST(test_srq_new__invalid),
		TEST(test_srq_new__defaults),
		TEST(test_srq_new__no_rcq),
		TEST(test_srq_new__fails),
		TEST(test_srq_delete__all),
		TEST(test_srq_recv__all),
	};
	return RUN(tests);
}
