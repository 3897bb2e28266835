// SPDX-License-Identifier: BSD-3-Clause
/* cq.c -- unit tests of src/cq.c: creation, the wait cycle, polling */

#include <errno.h>

#include "cq.h"
#include "mocks.h"

#define CQ_SIZE 12

static struct rpma_cq *
cq_create(struct ibv_comp_channel *shared)
{
	struct rpma_cq *cq = NULL;

	assert_int_equal(cq_new(mock_ibv_ctx(), CQ_SIZE, shared, &cq), 0);
	assert_non_null(cq);
	return cq;
}

static void
test_cq_new__success(void **state)
{
	(void) state;
	struct rpma_cq *cq = cq_create(NULL);
	struct ibv_cq *ibv_cq = cq_ibv_cq(cq);

	assert_int_equal(mock_rec.cq_size, CQ_SIZE);
	assert_non_null(mock_rec.cq_channel);
	assert_ptr_equal(ibv_cq->channel, mock_rec.cq_channel);
	/* armed for its first event */
	assert_int_equal(CALLS(ibv_req_notify_cq), 1);
	assert_int_equal(cq_delete(&cq), 0);
	assert_null(cq);
	assert_int_equal(CALLS(ibv_destroy_comp_channel), 1);
}

static void
test_cq_new__shared_channel(void **state)
{
	(void) state;
	struct ibv_comp_channel *ch = ibv_create_comp_channel(mock_ibv_ctx());
	struct rpma_cq *cq = cq_create(ch);

	assert_int_equal(CALLS(ibv_create_comp_channel), 1);
	assert_ptr_equal(mock_rec.cq_channel, ch);
	assert_int_equal(cq_delete(&cq), 0);
	/* the shared channel is not the CQ's to destroy */
	assert_int_equal(CALLS(ibv_destroy_comp_channel), 0);
	assert_int_equal(ibv_destroy_comp_channel(ch), 0);
}

static void
test_cq_new__create_channel_fails(void **state)
{
	(void) state;
	struct rpma_cq *cq = (struct rpma_cq *)0x1;

	MOCK_FAIL(ibv_create_comp_channel, 0, EMFILE);
	assert_int_equal(cq_new(mock_ibv_ctx(), CQ_SIZE, NULL, &cq), RPMA_E_PROVIDER);
	assert_int_equal(errno, EMFILE);
	assert_ptr_equal(cq, (struct rpma_cq *)0x1);
	assert_int_equal(CALLS(ibv_create_cq), 0);
}

static void
test_cq_new__create_cq_fails(void **state)
{
	(void) state;
	struct rpma_cq *cq = NULL;

	MOCK_FAIL(ibv_create_cq, 0, ENOMEM);
	assert_int_equal(cq_new(mock_ibv_ctx(), CQ_SIZE, NULL, &cq), RPMA_E_PROVIDER);
	assert_int_equal(errno, ENOMEM);
	assert_null(cq);
	assert_int_equal(CALLS(ibv_destroy_comp_channel), 1);
	assert_true(mock_rec.log_count >= 1);
}

static void
test_cq_new__req_notify_fails(void **state)
{
	(void) state;
	struct rpma_cq *cq = NULL;

	MOCK_FAIL(ibv_req_notify_cq, EIO, 0);
	assert_int_equal(cq_new(mock_ibv_ctx(), CQ_SIZE, NULL, &cq), RPMA_E_PROVIDER);
	assert_int_equal(errno, EIO);
	assert_null(cq);
	/* released in reverse order */
	assert_int_equal(CALLS(ibv_destroy_cq), 1);
	assert_true(ORDER(ibv_destroy_cq) < ORDER(ibv_destroy_comp_channel));
}

static void
test_cq_new__alloc_fails(void **state)
{
	(void) state;
	struct rpma_cq *cq = NULL;

	MOCK_FAIL(malloc, 0, 0);
	assert_int_equal(cq_new(mock_ibv_ctx(), CQ_SIZE, NULL, &cq), RPMA_E_NOMEM);
	assert_null(cq);
	assert_int_equal(CALLS(ibv_create_comp_channel), 0);
}

static void
test_cq_delete__null(void **state)
{
	(void) state;
	struct rpma_cq *cq = NULL;

	assert_int_equal(cq_delete(&cq), 0);
	assert_int_equal(CALLS(ibv_destroy_cq), 0);
}

static void
test_cq_delete__destroy_cq_fails(void **state)
{
	(void) state;
	struct rpma_cq *cq = cq_create(NULL);

	MOCK_FAIL(ibv_destroy_cq, EBUSY, 0);
	assert_int_equal(cq_delete(&cq), RPMA_E_PROVIDER);
	assert_int_equal(errno, EBUSY);
	assert_null(cq);
	/* the channel is still destroyed */
	assert_int_equal(CALLS(ibv_destroy_comp_channel), 1);
	mock_release_all();	/* the CQ the mock refused to destroy */
}

static void
test_cq_delete__destroy_channel_fails(void **state)
{
	(void) state;
	struct rpma_cq *cq = cq_create(NULL);

	MOCK_FAIL(ibv_destroy_comp_channel, -1, EBUSY);
	assert_int_equal(cq_delete(&cq), RPMA_E_PROVIDER);
	assert_int_equal(errno, EBUSY);
	assert_null(cq);
	mock_release_all();
}

static void
test_cq_get_fd__invalid(void **state)
{
	(void) state;
	struct rpma_cq *cq = cq_create(NULL);
	int fd = -7;

	assert_int_equal(rpma_cq_get_fd(NULL, &fd), RPMA_E_INVAL);
	assert_int_equal(rpma_cq_get_fd(cq, NULL), RPMA_E_INVAL);
	assert_int_equal(fd, -7);
	assert_int_equal(cq_delete(&cq), 0);
}

static void
test_cq_get_fd__success(void **state)
{
	(void) state;
	struct rpma_cq *cq = cq_create(NULL);
	int fd = -7;

	assert_int_equal(rpma_cq_get_fd(cq, &fd), 0);
	assert_int_equal(fd, mock_rec.cq_channel->fd);
	assert_int_equal(cq_delete(&cq), 0);
}

static void
test_cq_wait__null(void **state)
{
	(void) state;
	assert_int_equal(rpma_cq_wait(NULL), RPMA_E_INVAL);
}

static void
test_cq_wait__shared_channel(void **state)
{
	(void) state;
	struct ibv_comp_channel *ch = ibv_create_comp_channel(mock_ibv_ctx());
	struct rpma_cq *cq = cq_create(ch);

	mock_cq_event_push(cq_ibv_cq(cq));
	assert_int_equal(rpma_cq_wait(cq), RPMA_E_SHARED_CHANNEL);
	assert_int_equal(CALLS(ibv_get_cq_event), 0);
	/* take the event back so the CQ can go */
	struct ibv_cq *ev_cq;
	void *ev_ctx;
	assert_int_equal(ibv_get_cq_event(ch, &ev_cq, &ev_ctx), 0);
	ibv_ack_cq_events(ev_cq, 1);
	assert_int_equal(cq_delete(&cq), 0);
	assert_int_equal(ibv_destroy_comp_channel(ch), 0);
}

static void
test_cq_wait__no_event(void **state)
{
	(void) state;
	struct rpma_cq *cq = cq_create(NULL);

	assert_int_equal(rpma_cq_wait(cq), RPMA_E_NO_COMPLETION);
	/* not re-armed: nothing was got */
	assert_int_equal(CALLS(ibv_req_notify_cq), 1);
	assert_int_equal(cq_delete(&cq), 0);
}

static void
test_cq_wait__success(void **state)
{
	(void) state;
	struct rpma_cq *cq = cq_create(NULL);

	mock_cq_event_push(cq_ibv_cq(cq));
	assert_int_equal(rpma_cq_wait(cq), 0);
	assert_int_equal(CALLS(ibv_get_cq_event), 1);
	/* re-armed after the event; acknowledged later, in a batch */
	assert_int_equal(CALLS(ibv_req_notify_cq), 2);
	assert_true(ORDER(ibv_get_cq_event) < ORDER(ibv_req_notify_cq));
	assert_int_equal(CALLS(ibv_ack_cq_events), 0);
	/* the deletion acknowledges the rest before destroying the CQ */
	assert_int_equal(cq_delete(&cq), 0);
	assert_int_equal(mock_rec.acked, 1);
	assert_true(ORDER(ibv_ack_cq_events) < ORDER(ibv_destroy_cq));
}

static void
test_cq_wait__ack_batches(void **state)
{
	(void) state;
	struct rpma_cq *cq = cq_create(NULL);

	for (int i = 0; i < 16 + 3; i++) {
		mock_cq_event_push(cq_ibv_cq(cq));
		assert_int_equal(rpma_cq_wait(cq), 0);
		if (i == 14)
			assert_int_equal(CALLS(ibv_ack_cq_events), 0);
	}
	/* one acknowledgement of 16 events, at the 16th */
	assert_int_equal(CALLS(ibv_ack_cq_events), 1);
	assert_int_equal(mock_rec.ack_calls_nevents[0], 16);
	assert_int_equal(CALLS(ibv_req_notify_cq), 1 + 19);
	assert_int_equal(cq_delete(&cq), 0);
	assert_int_equal(mock_rec.ack_calls_nevents[1], 3);
	assert_int_equal(mock_rec.acked, 19);
}

static void
test_cq_wait__req_notify_fails(void **state)
{
	(void) state;
	struct rpma_cq *cq = cq_create(NULL);

	mock_cq_event_push(cq_ibv_cq(cq));
	MOCK_FAIL(ibv_req_notify_cq, EIO, 0);
	assert_int_equal(rpma_cq_wait(cq), RPMA_E_PROVIDER);
	assert_int_equal(errno, EIO);
	/* the event got is still acknowledged by the deletion */
	assert_int_equal(cq_delete(&cq), 0);
	assert_int_equal(mock_rec.acked, 1);
}

static void
test_cq_wait__get_event_fails(void **state)
{
	(void) state;
	struct rpma_cq *cq = cq_create(NULL);

	MOCK_FAIL(ibv_get_cq_event, -1, EINTR);
	assert_int_equal(rpma_cq_wait(cq), RPMA_E_NO_COMPLETION);
	assert_int_equal(cq_delete(&cq), 0);
}

static void
test_cq_get_wc__invalid(void **state)
{
	(void) state;
	struct rpma_cq *cq = cq_create(NULL);
	struct ibv_wc wc[2];
	int got = -7;

	assert_int_equal(rpma_cq_get_wc(NULL, 1, wc, &got), RPMA_E_INVAL);
	assert_int_equal(rpma_cq_get_wc(cq, 1, NULL, &got), RPMA_E_INVAL);
	assert_int_equal(rpma_cq_get_wc(cq, 0, wc, &got), RPMA_E_INVAL);
	assert_int_equal(rpma_cq_get_wc(cq, -1, wc, &got), RPMA_E_INVAL);
	assert_int_equal(rpma_cq_get_wc(cq, 2, wc, NULL), RPMA_E_INVAL);
	assert_int_equal(got, -7);
	assert_int_equal(CALLS(ibv_poll_cq), 0);
	assert_int_equal(cq_delete(&cq), 0);
}

static void
test_cq_get_wc__no_completion(void **state)
{
	(void) state;
	struct rpma_cq *cq = cq_create(NULL);
	struct ibv_wc wc;
	int got = -7;

	assert_int_equal(rpma_cq_get_wc(cq, 1, &wc, &got), RPMA_E_NO_COMPLETION);
	assert_int_equal(got, 0);
	assert_int_equal(CALLS(ibv_poll_cq), 1);
	assert_int_equal(cq_delete(&cq), 0);
}

static void
test_cq_get_wc__poll_error(void **state)
{
	(void) state;
	struct rpma_cq *cq = cq_create(NULL);
	struct ibv_wc wc;
	int got = -7;

	MOCK_FAIL(ibv_poll_cq, -EIO, 0);
	assert_int_equal(rpma_cq_get_wc(cq, 1, &wc, &got), RPMA_E_PROVIDER);
	assert_int_equal(got, -7);
	assert_true(mock_rec.log_count >= 1);
	assert_int_equal(cq_delete(&cq), 0);
}

static void
test_cq_get_wc__one_without_count(void **state)
{
	(void) state;
	struct rpma_cq *cq = cq_create(NULL);
	struct ibv_wc wc = {0};

	MOCK_FAIL(ibv_poll_cq, 1, 0);
	assert_int_equal(rpma_cq_get_wc(cq, 1, &wc, NULL), 0);
	assert_int_equal(wc.wr_id, 1000);
	assert_int_equal(cq_delete(&cq), 0);
}

static void
test_cq_get_wc__count_returned(void **state)
{
	(void) state;
	struct rpma_cq *cq = cq_create(NULL);
	struct ibv_wc wc[5];
	int got = -7;

	MOCK_FAIL(ibv_poll_cq, 3, 0);
	assert_int_equal(rpma_cq_get_wc(cq, 5, wc, &got), 0);
	assert_int_equal(got, 3);
	assert_int_equal(wc[2].wr_id, 1002);
	assert_int_equal(cq_delete(&cq), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		TEST(test_cq_new__success),
		TEST(test_cq_new__shared_channel),
		TEST(test_cq_new__create_channel_fails),
		TEST(test_cq_new__create_cq_fails),
		TEST(test_cq_new__req_notify_fails),
		TEST(test_cq_new__alloc_fails),
		TEST(test_cq_delete__null),
		TEST(test_cq_delete__destroy_cq_fails),
		TEST(test_cq_delete__destroy_channel_fails),
		TEST(test_cq_get_fd__invalid),
		TEST(test_cq_get_fd__success),
		TEST(test_cq_wait__null),
		TEST(test_cq_wait__shared_channel),
		TEST(test_cq_wait__no_event),
		TEST(test_cq_wait__success),
		TEST(test_cq_wait__ack_batches),
		TEST(test_cq_wait__req_notify_fails),
		TEST(test_cq_wait__get_event_fails),
		TEST(test_cq_get_wc__invalid),
		TEST(test_cq_get_wc__no_completion),
		TEST(test_cq_get_wc__poll_error),
		TEST(test_cq_get_wc__one_without_count),
		TEST(test_cq_get_wc__count_returned),
	};
	return RUN(tests);
}
