// SPDX-License-Identifier: BSD-3-Clause
/*
 * cq_stash.c -- unit tests of src/cq_stash.c: a wait for the library's own
 * completion that keeps the program's, which rpma_cq_get_wc() returns first
 */

#include <errno.h>

#include "cq.h"
#include "cq_stash.h"
#include "mocks.h"

#define OWN 0xb1dULL

static struct rpma_cq *
cq_create(void)
{
	struct rpma_cq *cq = NULL;
	assert_int_equal(cq_new(mock_ibv_ctx(), 64, NULL, &cq), 0);
	return cq;
}

static void
push(uint64_t wr_id, enum ibv_wc_status status)
{
	struct ibv_wc wc = {.wr_id = wr_id, .status = status, .opcode = IBV_WC_SEND};
	mock_wc_push(&wc);
}

/* the program's ids, in order, from rpma_cq_get_wc() by batches of batch */
static void
expect_program(struct rpma_cq *cq, uint64_t first, int n, int batch)
{
	struct ibv_wc wc[8];
	int got, seen = 0;

	while (seen < n) {
		assert_int_equal(rpma_cq_get_wc(cq, batch, wc, &got), 0);
		for (int i = 0; i < got; i++)
			assert_int_equal(wc[i].wr_id, first + (uint64_t)seen++);
	}
	assert_int_equal(seen, n);
	assert_int_equal(rpma_cq_get_wc(cq, batch, wc, &got), RPMA_E_NO_COMPLETION);
}

/* the own completion alone: nothing kept, the program's poll goes to the CQ */
static void
test_cq_take__alone(void **state)
{
	(void) state;
	struct rpma_cq *cq = cq_create();
	struct ibv_wc wc;

	push(OWN, IBV_WC_SUCCESS);
	assert_int_equal(cq_take(cq, OWN, 100, &wc), 0);
	assert_int_equal(wc.wr_id, OWN);
	assert_false(cq_holds_kept(cq));
	assert_int_equal(rpma_cq_get_wc(cq, 1, &wc, NULL), RPMA_E_NO_COMPLETION);
	assert_int_equal(cq_delete(&cq), 0);
}

/* before and after the own one: the program gets all of them, in order, once */
static void
test_cq_take__keeps_in_order(void **state)
{
	(void) state;
	for (int batch = 1; batch <= 8; batch *= 2) {
		struct rpma_cq *cq = cq_create();
		struct ibv_wc wc;

		for (uint64_t i = 0; i < 20; i++)
			push(100 + i, IBV_WC_SUCCESS);
		push(OWN, IBV_WC_REM_ACCESS_ERR);
		for (uint64_t i = 20; i < 40; i++)
			push(100 + i, IBV_WC_SUCCESS);
		assert_int_equal(cq_take(cq, OWN, 100, &wc), 0);
		assert_int_equal(wc.status, IBV_WC_REM_ACCESS_ERR);
		assert_true(cq_holds_kept(cq));
		/* kept ones come first, then what the CQ still has */
		expect_program(cq, 100, 40, batch);
		assert_false(cq_holds_kept(cq));
		assert_int_equal(cq_delete(&cq), 0);
	}
}

/* one entry at a time, without a count (num_entries_got NULL) */
static void
test_cq_take__uncounted(void **state)
{
	(void) state;
	struct rpma_cq *cq = cq_create();
	struct ibv_wc wc;

	push(7, IBV_WC_SUCCESS);
	push(OWN, IBV_WC_SUCCESS);
	push(8, IBV_WC_SUCCESS);
	assert_int_equal(cq_take(cq, OWN, 100, &wc), 0);
	for (uint64_t id = 7; id <= 8; id++) {
		assert_int_equal(rpma_cq_get_wc(cq, 1, &wc, NULL), 0);
		assert_int_equal(wc.wr_id, id);
	}
	assert_int_equal(rpma_cq_get_wc(cq, 1, &wc, NULL), RPMA_E_NO_COMPLETION);
	assert_int_equal(cq_delete(&cq), 0);
}

/* two waits: the second's completion, met by the first, is taken from what was kept */
static void
test_cq_take__another_waiters(void **state)
{
	(void) state;
	struct rpma_cq *cq = cq_create();
	struct ibv_wc wc;

	push(1, IBV_WC_SUCCESS);
	push(OWN + 1, IBV_WC_SUCCESS);
	push(2, IBV_WC_SUCCESS);
	push(OWN, IBV_WC_SUCCESS);
	assert_int_equal(cq_take(cq, OWN, 100, &wc), 0);
	assert_int_equal(cq_take(cq, OWN + 1, 100, &wc), 0);
	assert_int_equal(wc.wr_id, OWN + 1);
	expect_program(cq, 1, 2, 4);
	assert_int_equal(cq_delete(&cq), 0);
}

/* no own completion within the time: RPMA_E_AGAIN, the program's kept */
static void
test_cq_take__timeout(void **state)
{
	(void) state;
	struct rpma_cq *cq = cq_create();
	struct ibv_wc wc;

	push(5, IBV_WC_SUCCESS);
	assert_int_equal(cq_take(cq, OWN, 50, &wc), RPMA_E_AGAIN);
	/* the clock moves 1 ms a reading: about one poll a ms */
	assert_in_range(CALLS(ibv_poll_cq), 20, 60);
	assert_true(cq_holds_kept(cq));
	expect_program(cq, 5, 1, 1);
	assert_int_equal(cq_delete(&cq), 0);
}

/* a poll that fails is the wait's error; the completions of earlier polls stay kept */
static void
test_cq_take__poll_fails(void **state)
{
	(void) state;
	struct rpma_cq *cq = cq_create();
	struct ibv_wc wc;

	MOCK_FAIL(ibv_poll_cq, -EIO, 0);
	assert_int_equal(cq_take(cq, OWN, 100, &wc), RPMA_E_PROVIDER);
	assert_non_null(strstr(mock_rec.log_last, "ibv_poll_cq() failed"));
	assert_false(cq_holds_kept(cq));

	push(9, IBV_WC_SUCCESS);
	MOCK_FAIL_NTH(ibv_poll_cq, 2, -EIO, 0);
	assert_int_equal(cq_take(cq, OWN, 100, &wc), RPMA_E_PROVIDER);
	assert_true(cq_holds_kept(cq));
	/* the program's poll gets the kept one, and the CQ's failure only when none is kept */
	assert_int_equal(rpma_cq_get_wc(cq, 1, &wc, NULL), 0);
	assert_int_equal(wc.wr_id, 9);
	MOCK_FAIL(ibv_poll_cq, -EIO, 0);
	assert_int_equal(rpma_cq_get_wc(cq, 1, &wc, NULL), RPMA_E_PROVIDER);
	assert_int_equal(cq_delete(&cq), 0);
}

/* no room to keep what a poll would bring: the poll is not made */
static void
test_cq_take__nomem(void **state)
{
	(void) state;
	struct rpma_cq *cq = cq_create();
	struct ibv_wc wc;

	/* the stash itself, then its ring */
	MOCK_FAIL(malloc, 0, 0);
	assert_int_equal(cq_take(cq, OWN, 100, &wc), RPMA_E_NOMEM);
	MOCK_FAIL_NTH(malloc, 2, 0, 0);
	assert_int_equal(cq_take(cq, OWN, 100, &wc), RPMA_E_NOMEM);
	assert_int_equal(CALLS(ibv_poll_cq), 0);
	push(OWN, IBV_WC_SUCCESS);
	assert_int_equal(cq_take(cq, OWN, 100, &wc), 0);
	assert_int_equal(cq_delete(&cq), 0);
}

/* completions that were kept make rpma_cq_wait() return at once, consuming no event */
static void
test_cq_wait__kept(void **state)
{
	(void) state;
	struct rpma_cq *cq = cq_create();
	struct ibv_wc wc;

	push(3, IBV_WC_SUCCESS);
	push(OWN, IBV_WC_SUCCESS);
	assert_int_equal(cq_take(cq, OWN, 100, &wc), 0);
	assert_int_equal(rpma_cq_wait(cq), 0);
	assert_int_equal(CALLS(ibv_get_cq_event), 0);
	expect_program(cq, 3, 1, 1);
	assert_int_equal(cq_delete(&cq), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		TEST(test_cq_take__alone),
		TEST(test_cq_take__keeps_in_order),
		TEST(test_cq_take__uncounted),
		TEST(test_cq_take__another_waiters),
		TEST(test_cq_take__timeout),
		TEST(test_cq_take__poll_fails),
		TEST(test_cq_take__nomem),
		TEST(test_cq_wait__kept),
	};
	return RUN(tests);
}
