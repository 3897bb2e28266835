// SPDX-License-Identifier: BSD-3-Clause
/* mw_set.c -- unit tests of src/mw_set.c: a connection's windows, revoked together */

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include "fx_window.h"
#include "mw_set.h"

#define PAGE 4096

static char buf[PAGE];

/* windows over a page, in a set */
struct set_fx {
	struct fx_window w;
	struct mw_set *set;
};

static void
fx_open(struct set_fx *fx)
{
	fx_window_open(&fx->w, 0, buf, sizeof(buf), IBV_ACCESS_MW_BIND, 0, PAGE);
	assert_int_equal(mw_set_new(&fx->set), 0);
	mock_calls_reset();
}

static struct mw *
fx_add(struct set_fx *fx)
{
	struct mw *mw;
	assert_int_equal(mw_new(fx->w.peer, &fx->w.range, &mw), 0);
	assert_int_equal(mw_set_add(fx->set, mw), 0);
	assert_int_equal(mw_bind(mw, fx->w.qp, fx->w.cq, &fx->w.range, IBV_ACCESS_REMOTE_READ),
			0);
	return mw;
}

static void
test_mw_set__empty(void **state)
{
	(void) state;
	struct mw_set *set = NULL;

	assert_int_equal(mw_set_close(&set), 0);
	assert_int_equal(mw_set_new(&set), 0);
	assert_non_null(set);
	assert_int_equal(mw_set_close(&set), 0);
	assert_null(set);

	MOCK_FAIL(malloc, 0, 0);
	assert_int_equal(mw_set_new(&set), RPMA_E_NOMEM);
	assert_null(set);
}

/* windows dropped before the close are revoked and freed at once */
static void
test_mw_set_drop__open(void **state)
{
	(void) state;
	struct set_fx fx;
	fx_open(&fx);
	struct mw *mw[20];

	/* more than the first allocation of slots holds */
	for (int i = 0; i < 20; i++)
		mw[i] = fx_add(&fx);
	assert_int_equal(fx.w.windows, 20);
	for (int i = 19; i >= 0; i -= 2) {
		assert_int_equal(mw_set_drop(fx.set, &mw[i]), 0);
		assert_null(mw[i]);
	}
	assert_int_equal(mock_rec.mw.deallocs, 10);
	assert_int_equal(fx.w.windows, 10);
	struct mw_set *set = fx.set;
	assert_int_equal(mw_set_close(&fx.set), 0);
	assert_null(fx.set);
	assert_int_equal(mock_rec.mw.deallocs, 20);
	assert_int_equal(fx.w.windows, 0);
	/* the windows' handles stay theirs: the set goes with the last */
	for (int i = 0; i < 20; i += 2)
		assert_int_equal(mw_set_drop(set, &mw[i]), 0);
	assert_int_equal(mock_rec.mw.deallocs, 20);
	fx_window_close(&fx.w);
}

/* a revocation that fails at the close is made again by the window's drop */
static void
test_mw_set_close__fails(void **state)
{
	(void) state;
	struct set_fx fx;
	fx_open(&fx);
	struct mw_set *set = fx.set;
	struct mw *mw[2] = {fx_add(&fx), fx_add(&fx)};

	MOCK_FAIL(ibv_dealloc_mw, EBUSY, 0);
	assert_int_equal(mw_set_close(&fx.set), RPMA_E_PROVIDER);
	assert_null(fx.set);
	assert_int_equal(mock_rec.mw.deallocs, 1);
	assert_int_equal(fx.w.windows, 1);
	/* a drop that fails changes nothing */
	MOCK_FAIL(ibv_dealloc_mw, EBUSY, 0);
	assert_int_equal(mw_set_drop(set, &mw[0]), RPMA_E_PROVIDER);
	assert_int_equal(mw_set_drop(set, &mw[1]), 0);
	assert_non_null(mw[0]);
	assert_int_equal(mw_set_drop(set, &mw[0]), 0);
	assert_int_equal(mock_rec.mw.deallocs, 2);
	assert_int_equal(fx.w.windows, 0);
	fx_window_close(&fx.w);
}

/* a window without an owner (its bind may still run) goes with the close */
static void
test_mw_set_abandon(void **state)
{
	(void) state;
	struct set_fx fx;
	fx_open(&fx);
	struct mw *kept = fx_add(&fx);
	struct mw *lost;
	assert_int_equal(mw_new(fx.w.peer, &fx.w.range, &lost), 0);
	assert_int_equal(mw_set_add(fx.set, lost), 0);
	mw_set_abandon(fx.set, lost);
	struct mw_set *set = fx.set;

	assert_int_equal(mw_set_close(&fx.set), 0);
	assert_int_equal(mock_rec.mw.deallocs, 2);
	assert_int_equal(fx.w.windows, 0);
	assert_int_equal(mw_set_drop(set, &kept), 0);
	fx_window_close(&fx.w);
}

static void
test_mw_set_add__nomem(void **state)
{
	(void) state;
	struct set_fx fx;
	fx_open(&fx);
	struct mw *mw;
	assert_int_equal(mw_new(fx.w.peer, &fx.w.range, &mw), 0);

	MOCK_FAIL(malloc, 0, 0);
	assert_int_equal(mw_set_add(fx.set, mw), RPMA_E_NOMEM);
	assert_int_equal(mw_revoke(mw), 0);
	mw_free(mw);
	assert_int_equal(mw_set_close(&fx.set), 0);
	fx_window_close(&fx.w);
}

/* one thread drops its windows while another closes the set: each window once, no crash */
struct dropper {
	struct mw_set *set;
	struct mw **mw;
	int n;
};

static void *
drop_all(void *arg)
{
	struct dropper *d = arg;
	for (int i = 0; i < d->n; i++)
		assert_int_equal(mw_set_drop(d->set, &d->mw[i]), 0);
	return NULL;
}

static void
test_mw_set__two_threads(void **state)
{
	(void) state;
	for (int round = 0; round < 50; round++) {
		struct set_fx fx;
		fx_open(&fx);
		struct mw *mw[8];
		for (int i = 0; i < 8; i++)
			mw[i] = fx_add(&fx);
		struct dropper d = {fx.set, mw, 8};
		pthread_t t;
		int deallocs = mock_rec.mw.deallocs;

		assert_int_equal(pthread_create(&t, NULL, drop_all, &d), 0);
		assert_int_equal(mw_set_close(&fx.set), 0);
		assert_int_equal(pthread_join(t, NULL), 0);
		assert_int_equal(mock_rec.mw.deallocs - deallocs, 8);
		assert_int_equal(fx.w.windows, 0);
		fx_window_close(&fx.w);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		TEST(test_mw_set__empty),
		TEST(test_mw_set_drop__open),
		TEST(test_mw_set_close__fails),
		TEST(test_mw_set_abandon),
		TEST(test_mw_set_add__nomem),
		TEST(test_mw_set__two_threads),
	};
	return RUN(tests);
}
