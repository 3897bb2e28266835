// SPDX-License-Identifier: BSD-3-Clause
/* ep.c -- unit tests of src/ep.c: listening and the requests that arrive */

#include <errno.h>

#include "fixtures.h"

#define ADDR "192.0.2.1"
#define PORT "7204"

static void
test_ep_listen__invalid(void **state)
{
	(void) state;
	struct rpma_peer *peer = fx_peer();
	struct rpma_ep *ep = (struct rpma_ep *)0x1;

	assert_int_equal(rpma_ep_listen(NULL, ADDR, PORT, &ep), RPMA_E_INVAL);
	assert_int_equal(rpma_ep_listen(peer, NULL, PORT, &ep), RPMA_E_INVAL);
	assert_int_equal(rpma_ep_listen(peer, ADDR, NULL, &ep), RPMA_E_INVAL);
	assert_int_equal(rpma_ep_listen(peer, ADDR, PORT, NULL), RPMA_E_INVAL);
	assert_ptr_equal(ep, (struct rpma_ep *)0x1);
	assert_int_equal(CALLS(rdma_create_event_channel), 0);
	assert_int_equal(rpma_peer_delete(&peer), 0);
}

static void
test_ep_listen__success(void **state)
{
	(void) state;
	struct rpma_peer *peer = fx_peer();
	struct rpma_ep *ep = NULL;
	int fd = -1;

	assert_int_equal(rpma_ep_listen(peer, ADDR, PORT, &ep), 0);
	assert_non_null(ep);
	assert_true(mock_rec.hints.ai_flags & RAI_PASSIVE);
	assert_int_equal(mock_rec.hints.ai_port_space, RDMA_PS_TCP);
	assert_true(ORDER(rdma_bind_addr) < ORDER(rdma_listen));
	/* 0: the kernel's largest backlog (net.rdma_ucm.max_backlog) */
	assert_int_equal(CALLS(rdma_listen), 1);
	assert_int_equal(mock_rec.listen_backlog, 0);
	assert_int_equal(CALLS(rdma_freeaddrinfo), 1);
	assert_int_equal(rpma_ep_get_fd(ep, &fd), 0);
	assert_true(fd >= 200);
	mock_calls_reset();
	assert_int_equal(rpma_ep_shutdown(&ep), 0);
	assert_null(ep);
	assert_true(ORDER(rdma_destroy_id) < ORDER(rdma_destroy_event_channel));
	assert_int_equal(rpma_peer_delete(&peer), 0);
}

static void
test_ep_listen__alloc_fails(void **state)
{
	(void) state;
	struct rpma_peer *peer = fx_peer();
	struct rpma_ep *ep = NULL;

	MOCK_FAIL(malloc, 0, 0);
	assert_int_equal(rpma_ep_listen(peer, ADDR, PORT, &ep), RPMA_E_NOMEM);
	assert_null(ep);
	assert_int_equal(CALLS(rdma_create_event_channel), 0);
	assert_int_equal(rpma_peer_delete(&peer), 0);
}

/* each provider step failing: errno kept, what was made released in reverse */
static void
test_ep_listen__steps_fail(void **state)
{
	(void) state;
	static const struct { enum mock_fn fn; int ret; } steps[] = {
		{MOCK_rdma_create_event_channel, 0},
		{MOCK_rdma_create_id, -1},
		{MOCK_rdma_getaddrinfo, -1},
		{MOCK_rdma_bind_addr, -1},
		{MOCK_rdma_listen, -1},
	};
	struct rpma_peer *peer = fx_peer();

	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		struct rpma_ep *ep = NULL;

		mock_calls_reset();
		mock_plan(steps[i].fn, 1, steps[i].ret, EADDRINUSE);
		assert_int_equal(rpma_ep_listen(peer, ADDR, PORT, &ep), RPMA_E_PROVIDER);
		assert_int_equal(errno, EADDRINUSE);
		assert_null(ep);
		assert_int_equal(CALLS(rdma_destroy_event_channel), i >= 1);
		assert_int_equal(CALLS(rdma_destroy_id), i >= 2);
		assert_int_equal(CALLS(rdma_freeaddrinfo), i >= 3);
		if (i >= 2)
			assert_true(ORDER(rdma_destroy_id) < ORDER(rdma_destroy_event_channel));
	}
	assert_int_equal(rpma_peer_delete(&peer), 0);
}

static void
test_ep_shutdown__invalid(void **state)
{
	(void) state;
	struct rpma_ep *ep = NULL;
	int fd = -7;

	assert_int_equal(rpma_ep_shutdown(NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_ep_shutdown(&ep), 0);
	assert_int_equal(rpma_ep_get_fd(NULL, &fd), RPMA_E_INVAL);
	assert_int_equal(fd, -7);
	assert_int_equal(CALLS(rdma_destroy_id), 0);
}

static void
test_ep_shutdown__destroy_id_fails(void **state)
{
	(void) state;
	struct rpma_peer *peer = fx_peer();
	struct rpma_ep *ep = NULL;
	int fd = -7;

	assert_int_equal(rpma_ep_listen(peer, ADDR, PORT, &ep), 0);
	assert_int_equal(rpma_ep_get_fd(ep, NULL), RPMA_E_INVAL);
	MOCK_FAIL(rdma_destroy_id, -1, EBUSY);
	assert_int_equal(rpma_ep_shutdown(&ep), RPMA_E_PROVIDER);
	assert_int_equal(errno, EBUSY);
	assert_non_null(ep);
	assert_int_equal(rpma_ep_get_fd(ep, &fd), 0);
	assert_int_equal(rpma_ep_shutdown(&ep), 0);
	assert_int_equal(rpma_peer_delete(&peer), 0);
}

static struct rpma_ep *
ep_up(struct rpma_peer *peer)
{
	struct rpma_ep *ep = NULL;

	assert_int_equal(rpma_ep_listen(peer, ADDR, PORT, &ep), 0);
	mock_calls_reset();
	return ep;
}

static void
test_ep_next_conn_req__invalid(void **state)
{
	(void) state;
	struct rpma_peer *peer = fx_peer();
	struct rpma_ep *ep = ep_up(peer);
	struct rpma_conn_req *req = (struct rpma_conn_req *)0x1;

	assert_int_equal(rpma_ep_next_conn_req(NULL, NULL, &req), RPMA_E_INVAL);
	assert_int_equal(rpma_ep_next_conn_req(ep, NULL, NULL), RPMA_E_INVAL);
	assert_ptr_equal(req, (struct rpma_conn_req *)0x1);
	assert_int_equal(CALLS(rdma_get_cm_event), 0);
	assert_int_equal(rpma_ep_shutdown(&ep), 0);
	assert_int_equal(rpma_peer_delete(&peer), 0);
}

static void
test_ep_next_conn_req__no_event(void **state)
{
	(void) state;
	struct rpma_peer *peer = fx_peer();
	struct rpma_ep *ep = ep_up(peer);
	struct rpma_conn_req *req = (struct rpma_conn_req *)0x1;

	assert_int_equal(rpma_ep_next_conn_req(ep, NULL, &req), RPMA_E_NO_EVENT);
	MOCK_FAIL(rdma_get_cm_event, -1, EBADF);
	assert_int_equal(rpma_ep_next_conn_req(ep, NULL, &req), RPMA_E_PROVIDER);
	assert_int_equal(errno, EBADF);
	assert_ptr_equal(req, (struct rpma_conn_req *)0x1);
	assert_int_equal(rpma_ep_shutdown(&ep), 0);
	assert_int_equal(rpma_peer_delete(&peer), 0);
}

static void
test_ep_next_conn_req__unexpected_event(void **state)
{
	(void) state;
	struct rpma_peer *peer = fx_peer();
	struct rpma_ep *ep = ep_up(peer);
	struct rpma_conn_req *req = (struct rpma_conn_req *)0x1;

	mock_cm_event_push(RDMA_CM_EVENT_DISCONNECTED, NULL, NULL, 0);
	assert_int_equal(rpma_ep_next_conn_req(ep, NULL, &req), RPMA_E_INVAL);
	assert_int_equal(CALLS(rdma_ack_cm_event), 1);
	mock_cm_event_push(RDMA_CM_EVENT_ESTABLISHED, NULL, NULL, 0);
	MOCK_FAIL(rdma_ack_cm_event, -1, EINVAL);
	assert_int_equal(rpma_ep_next_conn_req(ep, NULL, &req), RPMA_E_PROVIDER);
	assert_ptr_equal(req, (struct rpma_conn_req *)0x1);
	assert_int_equal(rpma_ep_shutdown(&ep), 0);
	assert_int_equal(rpma_peer_delete(&peer), 0);
	mock_release_all();	/* the event the mock refused to acknowledge */
}

static void
test_ep_next_conn_req__success(void **state)
{
	(void) state;
	struct rpma_peer *peer = fx_peer();
	struct rpma_ep *ep = ep_up(peer);
	struct rpma_conn_cfg *cfg = NULL;
	struct rpma_conn_req *req = NULL;
	struct rpma_conn_private_data pdata;

	assert_int_equal(rpma_conn_cfg_new(&cfg), 0);
	assert_int_equal(rpma_conn_cfg_set_cq_size(cfg, 77), 0);
	mock_cm_event_push(RDMA_CM_EVENT_CONNECT_REQUEST, mock_cm_id_new(), "abc", 3);
	assert_int_equal(rpma_ep_next_conn_req(ep, cfg, &req), 0);
	assert_non_null(req);
	assert_int_equal(mock_rec.cq_size, 77);
	/* held until connected or deleted */
	assert_int_equal(CALLS(rdma_ack_cm_event), 0);
	assert_int_equal(rpma_conn_req_get_private_data(req, &pdata), 0);
	assert_int_equal(pdata.len, 3);
	assert_memory_equal(pdata.ptr, "abc", 3);
	assert_int_equal(rpma_conn_req_delete(&req), 0);
	assert_int_equal(CALLS(rdma_ack_cm_event), 1);
	assert_int_equal(rpma_conn_cfg_delete(&cfg), 0);
	assert_int_equal(rpma_ep_shutdown(&ep), 0);
	assert_int_equal(rpma_peer_delete(&peer), 0);
}

static void
test_ep_next_conn_req__request_fails(void **state)
{
	(void) state;
	struct rpma_peer *peer = fx_peer();
	struct rpma_ep *ep = ep_up(peer);
	struct rpma_conn_req *req = (struct rpma_conn_req *)0x1;

	mock_cm_event_push(RDMA_CM_EVENT_CONNECT_REQUEST, mock_cm_id_new(), NULL, 0);
	MOCK_FAIL(ibv_create_cq, 0, ENOMEM);
	assert_int_equal(rpma_ep_next_conn_req(ep, NULL, &req), RPMA_E_PROVIDER);
	assert_ptr_equal(req, (struct rpma_conn_req *)0x1);
	/* refused: rejected, acknowledged, its id dropped */
	assert_int_equal(CALLS(rdma_reject), 1);
	assert_int_equal(CALLS(rdma_ack_cm_event), 1);
	assert_int_equal(CALLS(rdma_destroy_id), 1);
	assert_int_equal(rpma_ep_shutdown(&ep), 0);
	assert_int_equal(rpma_peer_delete(&peer), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		TEST(test_ep_listen__invalid),
		TEST(test_ep_listen__success),
		TEST(test_ep_listen__alloc_fails),
		TEST(test_ep_listen__steps_fail),
		TEST(test_ep_shutdown__invalid),
		TEST(test_ep_shutdown__destroy_id_fails),
		TEST(test_ep_next_conn_req__invalid),
		TEST(test_ep_next_conn_req__no_event),
		TEST(test_ep_next_conn_req__unexpected_event),
		TEST(test_ep_next_conn_req__success),
		TEST(test_ep_next_conn_req__request_fails),
	};
	return RUN(tests);
}
