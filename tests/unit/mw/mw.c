// SPDX-License-Identifier: BSD-3-Clause
/* mw.c -- unit tests of src/mw.c: a window, its bind and its revocation */

#include <errno.h>
#include <stdlib.h>

#include "fx_window.h"

#define RXE_VENDOR_ID 0xffffff
#define PAGE 4096
#define REGION_ACCESS (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND | (1 << 8) | (1 << 9))

static char buf[2 * PAGE];

static void
fx_open(struct fx_window *fx, uint32_t vendor)
{
	fx_window_open(fx, vendor, buf, sizeof(buf), REGION_ACCESS, PAGE, PAGE);
}

/* a new window and its bind, completed */
static struct mw *
fx_bound(struct fx_window *fx, int access)
{
	struct mw *mw = NULL;
	assert_int_equal(mw_new(fx->peer, &fx->range, &mw), 0);
	assert_int_equal(mw_bind(mw, fx->qp, fx->cq, &fx->range, access), 0);
	return mw;
}

static void
fx_revoked(struct mw *mw)
{
	assert_int_equal(mw_revoke(mw), 0);
	mw_free(mw);
}

/* the bind request: the window's next key, the range, the rights, its completion asked */
static void
test_mw_bind__request(void **state)
{
	(void) state;
	struct fx_window fx;
	fx_open(&fx, 0);

	struct mw *mw = fx_bound(&fx, IBV_ACCESS_REMOTE_READ);
	const struct ibv_send_wr *wr = &mock_rec.send_wr;
	assert_int_equal(wr->opcode, IBV_WR_BIND_MW);
	assert_int_equal(wr->send_flags, IBV_SEND_SIGNALED);
	assert_int_equal(wr->wr_id, (uintptr_t)mw);
	assert_null(wr->next);
	/* a device that keeps accesses inside a window: bound over the region itself */
	assert_int_equal(CALLS(ibv_reg_mr), 0);
	assert_ptr_equal(wr->bind_mw.bind_info.mr, fx.mr);
	assert_int_equal(wr->bind_mw.bind_info.addr, (uintptr_t)buf + PAGE);
	assert_int_equal(wr->bind_mw.bind_info.length, PAGE);
	assert_int_equal(wr->bind_mw.bind_info.mw_access_flags, IBV_ACCESS_REMOTE_READ);
	/* the key byte moves on at every bind: a key of an earlier bind no longer opens it */
	assert_int_equal(wr->bind_mw.rkey & 0xff, (wr->bind_mw.mw->rkey + 1) & 0xff);
	assert_int_equal(mw_rkey(mw), wr->bind_mw.rkey);
	assert_false(mw_in_flight(mw));
	/* the completion was the library's: the program's poll finds nothing */
	struct ibv_wc wc;
	int n = -1;
	assert_int_equal(rpma_cq_get_wc(fx.cq, 1, &wc, &n), RPMA_E_NO_COMPLETION);
	assert_int_equal(fx.windows, 1);
	fx_revoked(mw);
	assert_int_equal(fx.windows, 0);
	fx_window_close(&fx);
}

/* rxe: over a registration of the range alone, with no remote right of its own */
static void
test_mw_new__rxe_own_registration(void **state)
{
	(void) state;
	struct fx_window fx;
	fx_open(&fx, RXE_VENDOR_ID);

	struct mw *mw = fx_bound(&fx, IBV_ACCESS_REMOTE_WRITE);
	assert_int_equal(CALLS(ibv_reg_mr), 1);
	assert_int_equal(mock_rec.reg_access[0], IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND);
	assert_ptr_equal(mock_rec.reg_addr, buf + PAGE);
	assert_int_equal(mock_rec.reg_length, PAGE);
	assert_ptr_not_equal(mock_rec.send_wr.bind_mw.bind_info.mr, fx.mr);
	/* the window first, then what it was bound over */
	fx_revoked(mw);
	assert_true(ORDER(ibv_dealloc_mw) < ORDER(ibv_dereg_mr));
	assert_int_equal(CALLS(ibv_dereg_mr), 1);
	fx_window_close(&fx);
}

/* a revocation that failed leaves the window whole; the next one completes it */
static void
test_mw_revoke__fails(void **state)
{
	(void) state;
	struct fx_window fx;
	fx_open(&fx, RXE_VENDOR_ID);
	struct mw *mw = fx_bound(&fx, IBV_ACCESS_REMOTE_WRITE);

	MOCK_FAIL(ibv_dealloc_mw, EBUSY, 0);
	assert_int_equal(mw_revoke(mw), RPMA_E_PROVIDER);
	assert_int_equal(fx.windows, 1);
	MOCK_FAIL(ibv_dereg_mr, EBUSY, 0);
	assert_int_equal(mw_revoke(mw), RPMA_E_PROVIDER);
	assert_int_equal(mock_rec.mw.deallocs, 1);
	assert_int_equal(fx.windows, 1);
	assert_int_equal(mw_revoke(mw), 0);
	assert_int_equal(fx.windows, 0);
	assert_int_equal(mw_revoke(mw), 0);
	assert_int_equal(mock_rec.mw.deallocs, 1);
	assert_int_equal(CALLS(ibv_dereg_mr), 2);
	mw_free(mw);
	fx_window_close(&fx);
}

static void
test_mw_new__failures(void **state)
{
	(void) state;
	static const struct { enum mock_fn fn; int ret; int err; int want; } map[] = {
		{MOCK_malloc, 0, 0, RPMA_E_NOMEM},
		{MOCK_ibv_reg_mr, 0, EFAULT, RPMA_E_PROVIDER},
		{MOCK_ibv_alloc_mw, 0, EOPNOTSUPP, RPMA_E_PROVIDER},
	};
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
		struct fx_window fx;
		fx_open(&fx, RXE_VENDOR_ID);
		struct mw *mw = NULL;
		int objects = mock_live_objects();

		mock_plan(map[i].fn, 1, map[i].ret, map[i].err);
		assert_int_equal(mw_new(fx.peer, &fx.range, &mw), map[i].want);
		assert_null(mw);
		assert_int_equal(mock_live_objects(), objects);
		assert_int_equal(fx.windows, 0);
		fx_window_close(&fx);
	}
}

/* a bind the send queue has no room for: refused at once, nothing in flight */
static void
test_mw_bind__queue_full(void **state)
{
	(void) state;
	struct fx_window fx;
	fx_open(&fx, 0);
	struct mw *mw = NULL;
	assert_int_equal(mw_new(fx.peer, &fx.range, &mw), 0);

	MOCK_FAIL(ibv_post_send, ENOMEM, 0);
	assert_int_equal(mw_bind(mw, fx.qp, fx.cq, &fx.range, IBV_ACCESS_REMOTE_READ),
			RPMA_E_PROVIDER);
	assert_non_null(strstr(mock_rec.log_last, "ibv_post_send()"));
	assert_false(mw_in_flight(mw));
	assert_int_equal(CALLS(ibv_poll_cq), 0);
	fx_revoked(mw);
	fx_window_close(&fx);
}

/* a bind the device failed: its completion says so, and is not the program's */
static void
test_mw_bind__fails_on_device(void **state)
{
	(void) state;
	struct fx_window fx;
	fx_open(&fx, 0);
	struct mw *mw = NULL;
	assert_int_equal(mw_new(fx.peer, &fx.range, &mw), 0);

	mock_bind_set_outcome(IBV_WC_MW_BIND_ERR);
	assert_int_equal(mw_bind(mw, fx.qp, fx.cq, &fx.range, IBV_ACCESS_REMOTE_READ),
			RPMA_E_PROVIDER);
	assert_non_null(strstr(mock_rec.log_last, "failed: memory bind operation error"));
	assert_false(mw_in_flight(mw));
	struct ibv_wc wc;
	int n;
	assert_int_equal(rpma_cq_get_wc(fx.cq, 1, &wc, &n), RPMA_E_NO_COMPLETION);
	fx_revoked(mw);
	fx_window_close(&fx);
}

/* the program's completions that came before the bind's are kept for it, in order */
static void
test_mw_bind__keeps_the_programs(void **state)
{
	(void) state;
	struct fx_window fx;
	fx_open(&fx, 0);
	struct ibv_wc mine[3] = {
		{.wr_id = 11, .opcode = IBV_WC_RDMA_WRITE},
		{.wr_id = 12, .opcode = IBV_WC_RECV},
		{.wr_id = 13, .opcode = IBV_WC_SEND, .status = IBV_WC_REM_ACCESS_ERR},
	};
	for (int i = 0; i < 3; i++)
		mock_wc_push(&mine[i]);

	struct mw *mw = fx_bound(&fx, IBV_ACCESS_REMOTE_READ);
	struct ibv_wc wc[4];
	int n = 0;
	assert_int_equal(rpma_cq_get_wc(fx.cq, 4, wc, &n), 0);
	assert_int_equal(n, 3);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(wc[i].wr_id, mine[i].wr_id);
		assert_int_equal(wc[i].status, mine[i].status);
	}
	assert_int_equal(rpma_cq_get_wc(fx.cq, 4, wc, &n), RPMA_E_NO_COMPLETION);
	fx_revoked(mw);
	fx_window_close(&fx);
}

/* a bind stuck behind the QP's requests: the QP goes to the error state, the bind is flushed */
static void
test_mw_bind__stuck(void **state)
{
	(void) state;
	struct fx_window fx;
	fx_open(&fx, 0);
	struct mw *mw = NULL;
	assert_int_equal(mw_new(fx.peer, &fx.range, &mw), 0);

	mock_bind_set_outcome(MOCK_BIND_HELD);
	assert_int_equal(mw_bind(mw, fx.qp, fx.cq, &fx.range, IBV_ACCESS_REMOTE_READ),
			RPMA_E_PROVIDER);
	assert_int_equal(CALLS(ibv_modify_qp), 1);
	assert_int_equal(mock_rec.qp_state, IBV_QPS_ERR);
	assert_non_null(strstr(mock_rec.log_last, "Work Request Flushed Error"));
	assert_false(mw_in_flight(mw));
	fx_revoked(mw);
	fx_window_close(&fx);
}

/* no completion at all, not even a flush: the window must outlive the QP */
static void
test_mw_bind__lost(void **state)
{
	(void) state;
	struct fx_window fx;
	fx_open(&fx, 0);
	struct mw *mw = NULL;
	assert_int_equal(mw_new(fx.peer, &fx.range, &mw), 0);

	mock_bind_set_outcome(MOCK_BIND_NEVER);
	assert_int_equal(mw_bind(mw, fx.qp, fx.cq, &fx.range, IBV_ACCESS_REMOTE_READ),
			RPMA_E_PROVIDER);
	assert_true(mw_in_flight(mw));
	assert_non_null(strstr(mock_rec.log_last, "stays allocated until the connection"));
	fx_revoked(mw);
	fx_window_close(&fx);

	/* the error state refused too */
	fx_open(&fx, 0);
	assert_int_equal(mw_new(fx.peer, &fx.range, &mw), 0);
	mock_bind_set_outcome(MOCK_BIND_HELD);
	MOCK_FAIL(ibv_modify_qp, EINVAL, 0);
	assert_int_equal(mw_bind(mw, fx.qp, fx.cq, &fx.range, IBV_ACCESS_REMOTE_READ),
			RPMA_E_PROVIDER);
	assert_true(mw_in_flight(mw));
	fx_revoked(mw);
	fx_window_close(&fx);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		TEST(test_mw_bind__request),
		TEST(test_mw_new__rxe_own_registration),
		TEST(test_mw_revoke__fails),
		TEST(test_mw_new__failures),
		TEST(test_mw_bind__queue_full),
		TEST(test_mw_bind__fails_on_device),
		TEST(test_mw_bind__keeps_the_programs),
		TEST(test_mw_bind__stuck),
		TEST(test_mw_bind__lost),
	};
	return RUN(tests);
}
