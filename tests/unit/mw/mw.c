// SPDX-License-Identifier: BSD-3-Clause
/* mw.c -- unit tests of src/mw.c: windows bound on a QP, and their set */

#include <errno.h>
#include <stdlib.h>

#include "fixtures.h"
#include "mw.h"
#include "peer.h"

#define RXE_VENDOR_ID 0xffffff
#define PAGE 4096

static char buf[2 * PAGE];

/* a peer, a QP of its and a region to bind windows over */
struct mw_fx {
	struct rpma_peer *peer;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	struct mw_range range;
};

static void
fx_open(struct mw_fx *fx, uint32_t vendor)
{
	mock_device_set_caps(IBV_DEVICE_MEM_WINDOW_TYPE_2B);
	mock_device_set_vendor_id(vendor);
	fx->peer = fx_peer();
	struct ibv_qp_init_attr_ex attr = {.pd = peer_pd(fx->peer), .qp_type = IBV_QPT_RC};
	fx->qp = mock_qp_new(&attr);
	fx->mr = ibv_reg_mr(peer_pd(fx->peer), buf, sizeof(buf),
			IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND);
	fx->range = (struct mw_range){fx->mr, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND,
			(uintptr_t)buf + PAGE, PAGE};
	mock_calls_reset();
}

static void
fx_close(struct mw_fx *fx)
{
	assert_int_equal(ibv_dereg_mr(fx->mr), 0);
	mock_qp_free(fx->qp);
	assert_int_equal(rpma_peer_delete(&fx->peer), 0);
}

static void
test_mw_set__empty(void **state)
{
	(void) state;
	struct mw_set *set = NULL;

	assert_int_equal(mw_set_delete(&set), 0);
	assert_int_equal(mw_set_new(&set), 0);
	assert_non_null(set);
	assert_int_equal(mw_set_delete(&set), 0);
	assert_null(set);

	MOCK_FAIL(malloc, 0, 0);
	assert_int_equal(mw_set_new(&set), RPMA_E_NOMEM);
	assert_null(set);
}

/* the bind request: the window's next key, the range, the rights, no completion asked */
static void
test_mw_bind__request(void **state)
{
	(void) state;
	struct mw_fx fx;
	fx_open(&fx, 0);
	struct mw_set *set;
	struct mw *mw = NULL;

	assert_int_equal(mw_set_new(&set), 0);
	assert_int_equal(mw_bind(set, fx.peer, fx.qp, &fx.range, IBV_ACCESS_REMOTE_READ, &mw), 0);
	const struct ibv_send_wr *wr = &mock_rec.send_wr;
	assert_int_equal(wr->opcode, IBV_WR_BIND_MW);
	assert_int_equal(wr->send_flags, 0);
	assert_null(wr->next);
	assert_ptr_equal(wr->bind_mw.bind_info.mr, fx.mr);
	assert_int_equal(wr->bind_mw.bind_info.addr, (uintptr_t)buf + PAGE);
	assert_int_equal(wr->bind_mw.bind_info.length, PAGE);
	assert_int_equal(wr->bind_mw.bind_info.mw_access_flags, IBV_ACCESS_REMOTE_READ);
	/* the key byte moves on at every bind: a key of an earlier bind no longer opens it */
	assert_int_equal(wr->bind_mw.rkey & 0xff, (wr->bind_mw.mw->rkey + 1) & 0xff);
	assert_int_equal(mw_rkey(mw), wr->bind_mw.rkey);
	assert_int_equal(mw_delete(&mw), 0);
	assert_null(mw);
	assert_int_equal(mw_set_delete(&set), 0);
	fx_close(&fx);
}

/* the set revokes what is left in it; the windows stay to be freed */
static void
test_mw_set_delete__revokes(void **state)
{
	(void) state;
	struct mw_fx fx;
	fx_open(&fx, RXE_VENDOR_ID);
	struct mw_set *set;
	struct mw *mw[3];

	assert_int_equal(mw_set_new(&set), 0);
	for (int i = 0; i < 3; i++)
		assert_int_equal(mw_bind(set, fx.peer, fx.qp, &fx.range, IBV_ACCESS_REMOTE_WRITE,
				&mw[i]), 0);
	assert_int_equal(CALLS(ibv_reg_mr), 3);	/* rxe: a registration each */
	/* the middle one goes first: the others stay linked */
	assert_int_equal(mw_delete(&mw[1]), 0);
	assert_int_equal(mw_set_delete(&set), 0);
	assert_int_equal(mock_rec.mw.deallocs, 3);
	assert_int_equal(CALLS(ibv_dereg_mr), 3);
	assert_int_equal(mw_delete(&mw[0]), 0);
	assert_int_equal(mw_delete(&mw[2]), 0);
	assert_int_equal(mock_rec.mw.deallocs, 3);
	fx_close(&fx);
}

/* a revocation that fails in the set is made again by the window's delete */
static void
test_mw_set_delete__fails(void **state)
{
	(void) state;
	struct mw_fx fx;
	fx_open(&fx, RXE_VENDOR_ID);
	struct mw_set *set;
	struct mw *mw[2];

	assert_int_equal(mw_set_new(&set), 0);
	for (int i = 0; i < 2; i++)
		assert_int_equal(mw_bind(set, fx.peer, fx.qp, &fx.range, IBV_ACCESS_REMOTE_WRITE,
				&mw[i]), 0);
	MOCK_FAIL(ibv_dereg_mr, EBUSY, 0);
	assert_int_equal(mw_set_delete(&set), RPMA_E_PROVIDER);
	assert_null(set);
	assert_int_equal(mock_rec.mw.deallocs, 2);
	assert_int_equal(CALLS(ibv_dereg_mr), 2);
	for (int i = 0; i < 2; i++)
		assert_int_equal(mw_delete(&mw[i]), 0);
	assert_int_equal(CALLS(ibv_dereg_mr), 3);
	fx_close(&fx);
}

static void
test_mw_bind__failures(void **state)
{
	(void) state;
	static const struct { enum mock_fn fn; int ret; int err; int want; } map[] = {
		{MOCK_malloc, 0, 0, RPMA_E_NOMEM},
		{MOCK_ibv_reg_mr, 0, EFAULT, RPMA_E_PROVIDER},
		{MOCK_ibv_alloc_mw, 0, EOPNOTSUPP, RPMA_E_PROVIDER},
		{MOCK_ibv_post_send, ENOMEM, 0, RPMA_E_PROVIDER},
	};
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
		struct mw_fx fx;
		fx_open(&fx, RXE_VENDOR_ID);
		struct mw_set *set;
		struct mw *mw = NULL;
		assert_int_equal(mw_set_new(&set), 0);
		int objects = mock_live_objects();

		mock_plan(map[i].fn, 1, map[i].ret, map[i].err);
		assert_int_equal(mw_bind(set, fx.peer, fx.qp, &fx.range, IBV_ACCESS_REMOTE_READ, &mw),
				map[i].want);
		assert_null(mw);
		assert_int_equal(mock_live_objects(), objects);
		assert_int_equal(mw_set_delete(&set), 0);
		assert_int_equal(mock_rec.mw.deallocs, mock_rec.mw.allocs);
		fx_close(&fx);
	}
	/* the full send queue is named */
	assert_non_null(strstr(mock_rec.log_last, "ibv_post_send()"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		TEST(test_mw_set__empty),
		TEST(test_mw_bind__request),
		TEST(test_mw_set_delete__revokes),
		TEST(test_mw_set_delete__fails),
		TEST(test_mw_bind__failures),
	};
	return RUN(tests);
}
