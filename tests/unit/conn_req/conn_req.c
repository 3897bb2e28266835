// SPDX-License-Identifier: BSD-3-Clause
/* conn_req.c -- unit tests of src/conn_req.c: outgoing and incoming requests */

#include <errno.h>

#include "conn_req.h"
#include "cq.h"
#include "fixtures.h"

#define ADDR "192.0.2.1"
#define PORT "7204"

static struct rpma_conn_cfg *
cfg_new(bool shared, uint32_t rcq_size)
{
	struct rpma_conn_cfg *cfg = NULL;

	assert_int_equal(rpma_conn_cfg_new(&cfg), 0);
	assert_int_equal(rpma_conn_cfg_set_compl_channel(cfg, shared), 0);
	assert_int_equal(rpma_conn_cfg_set_rcq_size(cfg, rcq_size), 0);
	return cfg;
}

/* an incoming request, as the endpoint makes it of a CONNECT_REQUEST event */
static struct rpma_conn_req *
incoming(struct rpma_peer *peer, const void *pdata, uint8_t len)
{
	struct rdma_cm_event *ev = mock_cm_event_push(RDMA_CM_EVENT_CONNECT_REQUEST,
			mock_cm_id_new(), pdata, len);
	struct rdma_cm_event *got;
	struct rpma_conn_req *req = NULL;

	/* take it off the queue as the endpoint would */
	struct rdma_event_channel ch = { .fd = 1 };
	assert_int_equal(rdma_get_cm_event(&ch, &got), 0);
	assert_ptr_equal(got, ev);
	assert_int_equal(conn_req_from_cm_event(peer, ev, NULL, &req), 0);
	return req;
}

/*
 * what rdma_connect or rdma_accept got: the private data given (its bytes,
 * not only its pointer), the most RDMA reads in flight either way, and
 * retries without end (7) for both transport and RNR errors
 */
static void
assert_conn_param(const void *pdata, uint8_t len)
{
	const struct rdma_conn_param *p = &mock_rec.conn_param;

	assert_int_equal(p->private_data_len, len);
	if (pdata) {
		assert_ptr_equal(p->private_data, pdata);
		assert_memory_equal(mock_rec.conn_pdata, pdata, len);
	} else {
		assert_null(p->private_data);
	}
	assert_int_equal(p->responder_resources, RDMA_MAX_RESP_RES);
	assert_int_equal(p->initiator_depth, RDMA_MAX_INIT_DEPTH);
	assert_int_equal(p->flow_control, 1);
	assert_int_equal(p->retry_count, RPMA_CONN_RETRY_COUNT);
	assert_int_equal(p->rnr_retry_count, 7);
	assert_int_equal(p->srq, 0);
	assert_int_equal(p->qp_num, 0);
}

static void
test_conn_req_new__invalid(void **state)
{
	(void) state;
	struct rpma_peer *peer = fx_peer();
	struct rpma_conn_req *req = (struct rpma_conn_req *)0x1;

	assert_int_equal(rpma_conn_req_new(NULL, ADDR, PORT, NULL, &req), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_req_new(peer, NULL, PORT, NULL, &req), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_req_new(peer, ADDR, NULL, NULL, &req), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_req_new(peer, ADDR, PORT, NULL, NULL), RPMA_E_INVAL);
	assert_ptr_equal(req, (struct rpma_conn_req *)0x1);
	assert_int_equal(CALLS(rdma_create_id), 0);
	assert_int_equal(rpma_peer_delete(&peer), 0);
}

static void
test_conn_req_new__success(void **state)
{
	(void) state;
	struct rpma_peer *peer = fx_peer();
	struct rpma_conn_cfg *cfg = cfg_new(false, 0);
	struct rpma_conn_req *req = NULL;

	assert_int_equal(rpma_conn_cfg_set_timeout(cfg, 777), 0);
	assert_int_equal(rpma_conn_cfg_set_cq_size(cfg, 31), 0);
	assert_int_equal(rpma_conn_cfg_set_sq_size(cfg, 32), 0);
	assert_int_equal(rpma_conn_cfg_set_rq_size(cfg, 33), 0);
	assert_int_equal(rpma_conn_req_new(peer, ADDR, PORT, cfg, &req), 0);
	assert_non_null(req);
	/* resolved as the active side, within the configured timeout */
	assert_int_equal(mock_rec.hints.ai_flags & RAI_PASSIVE, 0);
	assert_int_equal(mock_rec.hints.ai_port_space, RDMA_PS_TCP);
	assert_int_equal(mock_rec.resolve_addr_timeout, 777);
	assert_int_equal(mock_rec.resolve_route_timeout, 777);
	assert_true(ORDER(rdma_resolve_addr) < ORDER(rdma_resolve_route));
	assert_int_equal(CALLS(rdma_freeaddrinfo), 1);
	/* on an event channel of its own: each resolution's event got and acknowledged */
	assert_int_equal(CALLS(rdma_create_event_channel), 1);
	assert_true(ORDER(rdma_create_event_channel) < ORDER(rdma_create_id));
	assert_int_equal(CALLS(rdma_get_cm_event), 2);
	assert_int_equal(CALLS(rdma_ack_cm_event), 2);
	/* one CQ for everything, the QP on it */
	assert_int_equal(CALLS(ibv_create_cq), 1);
	assert_int_equal(mock_rec.cq_size, 31);
	struct ibv_qp_init_attr_ex *qa = &mock_rec.qp_attr;
	assert_ptr_equal(qa->send_cq, qa->recv_cq);
	assert_null(qa->srq);
	assert_int_equal(qa->qp_type, IBV_QPT_RC);
	assert_int_equal(qa->cap.max_send_wr, 32);
	assert_int_equal(qa->cap.max_recv_wr, 33);
	assert_int_equal(qa->cap.max_send_sge, 1);
	assert_int_equal(qa->cap.max_recv_sge, 1);
	assert_true(qa->comp_mask & IBV_QP_INIT_ATTR_PD);
	assert_non_null(qa->pd);
	assert_int_equal(qa->sq_sig_all, 0);

	mock_calls_reset();
	assert_int_equal(rpma_conn_req_delete(&req), 0);
	assert_null(req);
	/* an outgoing request is not rejected, only dropped */
	assert_int_equal(CALLS(rdma_reject), 0);
	assert_true(ORDER(rdma_destroy_qp) < ORDER(ibv_destroy_cq));
	assert_true(ORDER(ibv_destroy_cq) < ORDER(rdma_destroy_id));
	assert_int_equal(rpma_conn_cfg_delete(&cfg), 0);
	assert_int_equal(rpma_peer_delete(&peer), 0);
}

static void
test_conn_req_new__rcq_and_shared_channel(void **state)
{
	(void) state;
	struct rpma_peer *peer = fx_peer();
	struct rpma_conn_cfg *cfg = cfg_new(true, 9);
	struct rpma_conn_req *req = NULL;

	assert_int_equal(rpma_conn_req_new(peer, ADDR, PORT, cfg, &req), 0);
	assert_int_equal(CALLS(ibv_create_comp_channel), 1);
	assert_int_equal(CALLS(ibv_create_cq), 2);
	assert_int_equal(mock_rec.cq_size, 9);
	assert_non_null(mock_rec.cq_channel);
	assert_ptr_not_equal(mock_rec.qp_attr.send_cq, mock_rec.qp_attr.recv_cq);
	assert_ptr_equal(mock_rec.qp_attr.recv_cq->channel, mock_rec.qp_attr.send_cq->channel);
	mock_calls_reset();
	assert_int_equal(rpma_conn_req_delete(&req), 0);
	assert_int_equal(CALLS(ibv_destroy_cq), 2);
	/* the shared channel goes after both CQs */
	assert_true(ORDER(ibv_destroy_cq) < ORDER(ibv_destroy_comp_channel));
	assert_int_equal(rpma_conn_cfg_delete(&cfg), 0);
	assert_int_equal(rpma_peer_delete(&peer), 0);
}

static void
test_conn_req_new__srq(void **state)
{
	(void) state;
	struct rpma_peer *peer = fx_peer();
	struct rpma_conn_cfg *cfg = cfg_new(false, 0);
	struct rpma_srq *srq = NULL;
	struct rpma_cq *srq_rcq = NULL;
	struct rpma_conn_req *req = NULL;

	assert_int_equal(rpma_srq_new(peer, NULL, &srq), 0);
	assert_int_equal(rpma_srq_get_rcq(srq, &srq_rcq), 0);
	assert_int_equal(rpma_conn_cfg_set_srq(cfg, srq), 0);
	mock_calls_reset();
	assert_int_equal(rpma_conn_req_new(peer, ADDR, PORT, cfg, &req), 0);
	/* receives complete on the shared RQ's CQ: no CQ of its own for them */
	assert_int_equal(CALLS(ibv_create_cq), 1);
	assert_non_null(mock_rec.qp_attr.srq);
	assert_int_equal(mock_rec.qp_attr.cap.max_recv_wr, 0);
	assert_ptr_equal(mock_rec.qp_attr.recv_cq, cq_ibv_cq(srq_rcq));
	mock_calls_reset();
	assert_int_equal(rpma_conn_req_delete(&req), 0);
	/* the shared RQ's CQ is not the request's */
	assert_int_equal(CALLS(ibv_destroy_cq), 1);
	assert_int_equal(rpma_srq_delete(&srq), 0);
	assert_int_equal(rpma_conn_cfg_delete(&cfg), 0);
	assert_int_equal(rpma_peer_delete(&peer), 0);
}

static void
test_conn_req_new__create_id_fails(void **state)
{
	(void) state;
	struct rpma_peer *peer = fx_peer();
	struct rpma_conn_req *req = NULL;

	MOCK_FAIL(rdma_create_id, -1, ENOMEM);
	assert_int_equal(rpma_conn_req_new(peer, ADDR, PORT, NULL, &req), RPMA_E_PROVIDER);
	assert_int_equal(errno, ENOMEM);
	assert_null(req);
	assert_int_equal(CALLS(rdma_getaddrinfo), 0);
	assert_int_equal(rpma_peer_delete(&peer), 0);
}

/* each step of the resolution failing: errno kept, the id dropped */
static void
test_conn_req_new__resolve_fails(void **state)
{
	(void) state;
	static const enum mock_fn steps[] = {
		MOCK_rdma_getaddrinfo, MOCK_rdma_resolve_addr, MOCK_rdma_resolve_route,
	};
	struct rpma_peer *peer = fx_peer();
	struct rpma_conn_req *req = NULL;

	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		mock_calls_reset();
		mock_plan(steps[i], 1, -1, EHOSTUNREACH);
		assert_int_equal(rpma_conn_req_new(peer, ADDR, PORT, NULL, &req),
				RPMA_E_PROVIDER);
		assert_int_equal(errno, EHOSTUNREACH);
		assert_null(req);
		assert_int_equal(CALLS(rdma_destroy_id), 1);
		assert_int_equal(CALLS(rdma_destroy_event_channel), 1);
		assert_int_equal(CALLS(rdma_freeaddrinfo), i == 0 ? 0 : 1);
		assert_int_equal(CALLS(ibv_create_cq), 0);
	}
	assert_int_equal(rpma_peer_delete(&peer), 0);
}

/* a resolution that ends in an error event: its status is errno, as a synchronous id's */
static void
test_conn_req_new__resolve_event_error(void **state)
{
	(void) state;
	static const struct { enum rdma_cm_event_type type; int err; } cases[] = {
		{RDMA_CM_EVENT_ADDR_ERROR, ETIMEDOUT},
		{RDMA_CM_EVENT_ROUTE_ERROR, EHOSTUNREACH},
	};
	struct rpma_peer *peer = fx_peer();
	struct rpma_conn_req *req = NULL;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		mock_calls_reset();
		mock_cm_resolve_fail(cases[i].type, -cases[i].err);
		assert_int_equal(rpma_conn_req_new(peer, ADDR, PORT, NULL, &req),
				RPMA_E_PROVIDER);
		assert_int_equal(errno, cases[i].err);
		assert_null(req);
		assert_int_equal(CALLS(rdma_resolve_route), (int)i);
		assert_int_equal(CALLS(rdma_ack_cm_event), (int)i + 1);
		assert_int_equal(CALLS(rdma_destroy_id), 1);
		assert_int_equal(CALLS(rdma_destroy_event_channel), 1);
		assert_int_equal(CALLS(ibv_create_cq), 0);
	}
	assert_int_equal(rpma_peer_delete(&peer), 0);
}

/* the channel, the id, getting or acknowledging an event failing: nothing is left */
static void
test_conn_req_new__channel_steps_fail(void **state)
{
	(void) state;
	static const struct { enum mock_fn fn; int nth; int ret; } steps[] = {
		{MOCK_rdma_create_event_channel, 1, 0},
		{MOCK_rdma_get_cm_event, 1, -1},	/* the address's event */
		{MOCK_rdma_get_cm_event, 2, -1},	/* the route's */
		{MOCK_rdma_ack_cm_event, 1, -1},
		{MOCK_rdma_ack_cm_event, 2, -1},
	};
	struct rpma_peer *peer = fx_peer();
	struct rpma_conn_req *req = NULL;

	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		mock_calls_reset();
		mock_plan(steps[i].fn, steps[i].nth, steps[i].ret, EIO);
		assert_int_equal(rpma_conn_req_new(peer, ADDR, PORT, NULL, &req),
				RPMA_E_PROVIDER);
		assert_int_equal(errno, EIO);
		assert_null(req);
		assert_int_equal(CALLS(rdma_destroy_id), CALLS(rdma_create_id));
		assert_int_equal(CALLS(rdma_destroy_event_channel),
				CALLS(rdma_create_event_channel) - (i == 0));
		assert_int_equal(CALLS(ibv_create_cq), 0);
	}
	assert_int_equal(rpma_peer_delete(&peer), 0);
	mock_release_all();	/* the events whose acknowledgement failed, kept by the mock */
}

/* every allocation of the request failing in turn */
static void
test_conn_req_new__alloc_fails(void **state)
{
	(void) state;
	struct rpma_peer *peer = fx_peer();
	struct rpma_conn_cfg *cfg = cfg_new(false, 4);
	struct rpma_conn_req *req = NULL;
	int n;

	for (n = 1; ; n++) {
		mock_calls_reset();
		MOCK_FAIL_NTH(malloc, n, 0, 0);
		int ret = rpma_conn_req_new(peer, ADDR, PORT, cfg, &req);
		if (CALLS(malloc) < n) {
			assert_int_equal(ret, 0);
			break;
		}
		assert_int_equal(ret, RPMA_E_NOMEM);
		assert_null(req);
		assert_int_equal(CALLS(rdma_destroy_id), 1);
		assert_int_equal(CALLS(ibv_destroy_cq), CALLS(ibv_create_cq));
	}
	assert_int_equal(n, 4);	/* the request, its CQ and its receive CQ */
	assert_int_equal(rpma_conn_req_delete(&req), 0);
	assert_int_equal(rpma_conn_cfg_delete(&cfg), 0);
	assert_int_equal(rpma_peer_delete(&peer), 0);
}

/* every provider call building the queues failing in turn: what was made is released */
static void
test_conn_req_new__queues_fail(void **state)
{
	(void) state;
	static const struct { enum mock_fn fn; int nth; int ret; } steps[] = {
		{MOCK_ibv_create_comp_channel, 1, 0},
		{MOCK_ibv_create_cq, 1, 0},
		{MOCK_ibv_req_notify_cq, 1, EIO},
		{MOCK_ibv_create_cq, 2, 0},
		{MOCK_rdma_create_qp_ex, 1, -1},
	};
	struct rpma_peer *peer = fx_peer();
	struct rpma_conn_cfg *cfg = cfg_new(true, 4);
	struct rpma_conn_req *req = NULL;

	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		mock_calls_reset();
		mock_plan(steps[i].fn, steps[i].nth, steps[i].ret, EIO);
		assert_int_equal(rpma_conn_req_new(peer, ADDR, PORT, cfg, &req), RPMA_E_PROVIDER);
		assert_int_equal(errno, EIO);
		assert_null(req);
		assert_int_equal(CALLS(ibv_destroy_cq), CALLS(ibv_create_cq) - (i == 1 || i == 3));
		assert_int_equal(CALLS(ibv_destroy_comp_channel),
				CALLS(ibv_create_comp_channel) - (i == 0));
		assert_int_equal(CALLS(rdma_destroy_id), 1);
		if (CALLS(ibv_destroy_comp_channel))
			assert_true(ORDER(ibv_destroy_cq) < ORDER(ibv_destroy_comp_channel));
		assert_true(ORDER(ibv_destroy_comp_channel) < ORDER(rdma_destroy_id));
	}
	assert_int_equal(rpma_conn_cfg_delete(&cfg), 0);
	assert_int_equal(rpma_peer_delete(&peer), 0);
}

static void
test_conn_req_delete__invalid(void **state)
{
	(void) state;
	struct rpma_conn_req *req = NULL;

	assert_int_equal(rpma_conn_req_delete(NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_req_delete(&req), 0);
	assert_int_equal(CALLS(rdma_destroy_id), 0);
}

static void
test_conn_req_delete__destroy_id_fails(void **state)
{
	(void) state;
	struct rpma_peer *peer = fx_peer();
	struct rpma_conn_req *req = fx_conn_req(peer, NULL);

	MOCK_FAIL(rdma_destroy_id, -1, EBUSY);
	assert_int_equal(rpma_conn_req_delete(&req), RPMA_E_PROVIDER);
	assert_int_equal(errno, EBUSY);
	assert_null(req);
	assert_int_equal(rpma_peer_delete(&peer), 0);
	mock_release_all();
}

static void
test_conn_req_connect__invalid(void **state)
{
	(void) state;
	struct rpma_peer *peer = fx_peer();
	struct rpma_conn_req *none = NULL;
	struct rpma_conn *conn = (struct rpma_conn *)0x1;
	struct rpma_conn_private_data empty = {"x", 0}, null_ptr = {NULL, 4};

	/* no request: nothing to consume */
	assert_int_equal(rpma_conn_req_connect(NULL, NULL, &conn), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_req_connect(&none, NULL, &conn), RPMA_E_INVAL);

	/* as librpma 1.x: a request is consumed by a failure, invalid arguments included */
	struct rpma_conn_req *req = fx_conn_req(peer, NULL);
	mock_calls_reset();
	assert_int_equal(rpma_conn_req_connect(&req, NULL, NULL), RPMA_E_INVAL);
	assert_null(req);
	assert_int_equal(CALLS(rdma_destroy_id), 1);
	req = fx_conn_req(peer, NULL);
	assert_int_equal(rpma_conn_req_connect(&req, &empty, &conn), RPMA_E_INVAL);
	assert_null(req);
	req = fx_conn_req(peer, NULL);
	assert_int_equal(rpma_conn_req_connect(&req, &null_ptr, &conn), RPMA_E_INVAL);
	assert_null(req);
	assert_ptr_equal(conn, (struct rpma_conn *)0x1);
	assert_int_equal(CALLS(rdma_connect), 0);
	assert_int_equal(CALLS(rdma_destroy_id), 3);
	assert_int_equal(rpma_peer_delete(&peer), 0);
}

static void
test_conn_req_connect__active(void **state)
{
	(void) state;
	struct rpma_peer *peer = fx_peer();
	struct rpma_conn_req *req = fx_conn_req(peer, NULL);
	struct rpma_conn *conn = NULL;
	struct rpma_conn_private_data pdata = {"hello", 6};
	int fd = -1;

	mock_calls_reset();
	assert_int_equal(rpma_conn_req_connect(&req, &pdata, &conn), 0);
	assert_null(req);
	assert_non_null(conn);
	/* the id was made on its own event channel: nothing moves at the connect */
	assert_int_equal(CALLS(rdma_create_event_channel), 0);
	assert_int_equal(CALLS(rdma_migrate_id), 0);
	assert_int_equal(CALLS(rdma_accept), 0);
	assert_ptr_equal(mock_rec.conn_param.private_data, pdata.ptr);
	assert_int_equal(mock_rec.conn_param.private_data_len, 6);
	assert_int_equal(mock_rec.conn_param.responder_resources, RDMA_MAX_RESP_RES);
	assert_int_equal(mock_rec.conn_param.initiator_depth, RDMA_MAX_INIT_DEPTH);
	assert_conn_param(pdata.ptr, 6);
	assert_int_equal(rpma_conn_get_event_fd(conn, &fd), 0);
	assert_true(fd >= 200);
	assert_int_equal(rpma_conn_delete(&conn), 0);
	assert_int_equal(rpma_peer_delete(&peer), 0);
}

static void
test_conn_req_connect__connect_fails(void **state)
{
	(void) state;
	struct rpma_peer *peer = fx_peer();
	struct rpma_conn_req *req = fx_conn_req(peer, NULL);
	struct rpma_conn *conn = (struct rpma_conn *)0x1;

	MOCK_FAIL(rdma_connect, -1, ECONNREFUSED);
	assert_int_equal(rpma_conn_req_connect(&req, NULL, &conn), RPMA_E_PROVIDER);
	assert_null(req);	/* consumed whatever happens */
	assert_ptr_equal(conn, (struct rpma_conn *)0x1);
	assert_int_equal(CALLS(rdma_reject), 0);
	assert_int_equal(CALLS(rdma_destroy_id), 1);
	assert_int_equal(rpma_peer_delete(&peer), 0);
}

/* each step between the request and the connection failing in turn */
static void
test_conn_req_connect__steps_fail(void **state)
{
	(void) state;
	static const struct { enum mock_fn fn; int nth; int ret; int expected; } steps[] = {
		{MOCK_malloc, 1, 0, RPMA_E_NOMEM},	/* the connection */
		{MOCK_malloc, 2, 0, RPMA_E_NOMEM},	/* the peer's flush byte */
		{MOCK_ibv_reg_mr, 1, 0, RPMA_E_PROVIDER},
	};
	struct rpma_peer *peer = fx_peer();

	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		struct rpma_conn_req *req = fx_conn_req(peer, NULL);
		struct rpma_conn *conn = (struct rpma_conn *)0x1;

		mock_calls_reset();
		mock_plan(steps[i].fn, steps[i].nth, steps[i].ret, ENOMEM);
		assert_int_equal(rpma_conn_req_connect(&req, NULL, &conn), steps[i].expected);
		assert_null(req);
		assert_ptr_equal(conn, (struct rpma_conn *)0x1);
		assert_int_equal(CALLS(rdma_connect), 0);
		assert_int_equal(CALLS(rdma_destroy_id), 1);
		assert_int_equal(CALLS(ibv_destroy_cq), 1);
		assert_int_equal(CALLS(rdma_destroy_event_channel), 1);
	}
	assert_int_equal(rpma_peer_delete(&peer), 0);
}

/* an incoming request's id moves to a channel of its own: each step failing */
static void
test_conn_req_incoming__channel_steps_fail(void **state)
{
	(void) state;
	static const struct { enum mock_fn fn; int ret; } steps[] = {
		{MOCK_rdma_create_event_channel, 0},
		{MOCK_rdma_migrate_id, -1},
	};
	struct rpma_peer *peer = fx_peer();

	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		struct rpma_conn_req *req = incoming(peer, NULL, 0);
		struct rpma_conn *conn = (struct rpma_conn *)0x1;

		mock_calls_reset();
		mock_plan(steps[i].fn, 1, steps[i].ret, ENOMEM);
		assert_int_equal(rpma_conn_req_connect(&req, NULL, &conn), RPMA_E_PROVIDER);
		assert_int_equal(errno, ENOMEM);
		assert_null(req);
		assert_ptr_equal(conn, (struct rpma_conn *)0x1);
		assert_int_equal(CALLS(rdma_accept), 0);
		assert_int_equal(CALLS(rdma_reject), 1);
		assert_int_equal(CALLS(rdma_destroy_id), 1);
		assert_int_equal(CALLS(ibv_destroy_cq), 1);
		assert_int_equal(CALLS(rdma_destroy_event_channel), (int)i);
	}
	assert_int_equal(rpma_peer_delete(&peer), 0);
}

static void
test_conn_req_incoming__accept(void **state)
{
	(void) state;
	struct rpma_peer *peer = fx_peer();
	const char hello[] = "hello";
	struct rpma_conn_req *req = incoming(peer, hello, sizeof(hello));
	struct rpma_conn_private_data pdata;
	struct rpma_conn *conn = NULL;

	assert_int_equal(rpma_conn_req_get_private_data(req, &pdata), 0);
	assert_int_equal(pdata.len, sizeof(hello));
	assert_memory_equal(pdata.ptr, hello, sizeof(hello));
	mock_calls_reset();
	assert_int_equal(rpma_conn_req_connect(&req, NULL, &conn), 0);
	/* the request's event is acknowledged before the id moves to its channel */
	assert_true(ORDER(rdma_ack_cm_event) < ORDER(rdma_migrate_id));
	assert_true(ORDER(rdma_migrate_id) < ORDER(rdma_accept));
	assert_int_equal(CALLS(rdma_connect), 0);
	assert_null(mock_rec.conn_param.private_data);
	assert_conn_param(NULL, 0);
	/* the connection keeps the private data of the request */
	assert_int_equal(rpma_conn_get_private_data(conn, &pdata), 0);
	assert_memory_equal(pdata.ptr, hello, sizeof(hello));
	assert_int_equal(rpma_conn_delete(&conn), 0);
	assert_int_equal(rpma_peer_delete(&peer), 0);
}

/* the server's private data goes with its accept, as the client's with its connect */
static void
test_conn_req_incoming__accept_private_data(void **state)
{
	(void) state;
	struct rpma_peer *peer = fx_peer();
	struct rpma_conn_req *req = incoming(peer, "hi", 3);
	char reply[] = "from the server";
	struct rpma_conn_private_data pdata = {reply, sizeof(reply)};
	struct rpma_conn *conn = NULL;

	mock_calls_reset();
	assert_int_equal(rpma_conn_req_connect(&req, &pdata, &conn), 0);
	assert_int_equal(CALLS(rdma_accept), 1);
	assert_int_equal(CALLS(rdma_connect), 0);
	assert_conn_param(reply, sizeof(reply));
	/* what the connection reports is still the client's */
	assert_int_equal(rpma_conn_get_private_data(conn, &pdata), 0);
	assert_int_equal(pdata.len, 3);
	assert_memory_equal(pdata.ptr, "hi", 3);
	assert_int_equal(rpma_conn_delete(&conn), 0);
	assert_int_equal(rpma_peer_delete(&peer), 0);
}

/* without a configuration the resolution waits the documented default */
static void
test_conn_req_new__default_timeout(void **state)
{
	(void) state;
	struct rpma_peer *peer = fx_peer();
	struct rpma_conn_req *req = fx_conn_req(peer, NULL);

	assert_int_equal(mock_rec.resolve_addr_timeout, RPMA_DEFAULT_TIMEOUT_MS);
	assert_int_equal(mock_rec.resolve_route_timeout, RPMA_DEFAULT_TIMEOUT_MS);
	assert_int_equal(rpma_conn_req_delete(&req), 0);
	assert_int_equal(rpma_peer_delete(&peer), 0);
}

/* the request's event cannot be acknowledged: nothing is accepted, all is released */
static void
test_conn_req_incoming__ack_fails(void **state)
{
	(void) state;
	struct rpma_peer *peer = fx_peer();
	struct rpma_conn_req *req = incoming(peer, "ab", 2);
	struct rpma_conn *conn = (struct rpma_conn *)0x1;

	mock_calls_reset();
	MOCK_FAIL(rdma_ack_cm_event, -1, EINVAL);
	assert_int_equal(rpma_conn_req_connect(&req, NULL, &conn), RPMA_E_PROVIDER);
	assert_int_equal(errno, EINVAL);
	assert_null(req);
	assert_ptr_equal(conn, (struct rpma_conn *)0x1);
	assert_int_equal(CALLS(rdma_accept), 0);
	assert_int_equal(CALLS(rdma_migrate_id), 0);
	assert_int_equal(CALLS(rdma_reject), 1);
	assert_int_equal(CALLS(rdma_destroy_id), 1);
	assert_int_equal(CALLS(ibv_destroy_cq), 1);
	assert_int_equal(rpma_peer_delete(&peer), 0);
	mock_release_all();	/* the event the mock kept */
}

static void
test_conn_req_incoming__accept_fails(void **state)
{
	(void) state;
	struct rpma_peer *peer = fx_peer();
	struct rpma_conn_req *req = incoming(peer, NULL, 0);
	struct rpma_conn *conn = (struct rpma_conn *)0x1;

	mock_calls_reset();
	MOCK_FAIL(rdma_accept, -1, EINVAL);
	assert_int_equal(rpma_conn_req_connect(&req, NULL, &conn), RPMA_E_PROVIDER);
	assert_ptr_equal(conn, (struct rpma_conn *)0x1);
	/* the peer is told */
	assert_int_equal(CALLS(rdma_reject), 1);
	assert_int_equal(CALLS(rdma_destroy_id), 1);
	assert_int_equal(rpma_peer_delete(&peer), 0);
}

static void
test_conn_req_incoming__delete_rejects(void **state)
{
	(void) state;
	struct rpma_peer *peer = fx_peer();
	struct rpma_conn_req *req = incoming(peer, "ab", 2);

	mock_calls_reset();
	assert_int_equal(rpma_conn_req_delete(&req), 0);
	assert_int_equal(CALLS(rdma_reject), 1);
	assert_int_equal(CALLS(rdma_ack_cm_event), 1);
	assert_true(ORDER(rdma_reject) < ORDER(rdma_ack_cm_event));
	assert_true(ORDER(rdma_ack_cm_event) < ORDER(rdma_destroy_id));
	assert_int_equal(rpma_peer_delete(&peer), 0);
}

static void
test_conn_req_incoming__delete_reject_fails(void **state)
{
	(void) state;
	struct rpma_peer *peer = fx_peer();
	struct rpma_conn_req *req = incoming(peer, NULL, 0);

	MOCK_FAIL(rdma_reject, -1, ENOTCONN);
	assert_int_equal(rpma_conn_req_delete(&req), RPMA_E_PROVIDER);
	assert_null(req);
	assert_int_equal(CALLS(rdma_destroy_id), 1);
	assert_int_equal(rpma_peer_delete(&peer), 0);
}

/* the request cannot be built: the event is acknowledged and the peer rejected */
static void
test_conn_req_incoming__alloc_fails(void **state)
{
	(void) state;
	struct rpma_peer *peer = fx_peer();

	for (int n = 1; n <= 3; n++) {
		struct rdma_cm_event *ev = mock_cm_event_push(RDMA_CM_EVENT_CONNECT_REQUEST,
				mock_cm_id_new(), "pd", 2);
		struct rpma_conn_req *req = NULL;
		struct rdma_event_channel ch = { .fd = 1 };
		struct rdma_cm_event *got;

		assert_int_equal(rdma_get_cm_event(&ch, &got), 0);
		mock_calls_reset();
		MOCK_FAIL_NTH(malloc, n, 0, 0);	/* request, CQ, private data */
		assert_int_equal(conn_req_from_cm_event(peer, ev, NULL, &req), RPMA_E_NOMEM);
		assert_null(req);
		assert_int_equal(CALLS(rdma_reject), 1);
		assert_int_equal(CALLS(rdma_ack_cm_event), 1);
		assert_int_equal(CALLS(rdma_destroy_id), 1);
		assert_int_equal(CALLS(ibv_destroy_cq), CALLS(ibv_create_cq));
	}
	assert_int_equal(rpma_peer_delete(&peer), 0);
}

static void
test_conn_req_recv__all(void **state)
{
	(void) state;
	struct rpma_peer *peer = fx_peer();
	struct rpma_conn_req *req = fx_conn_req(peer, NULL);
	char buf[64];
	struct rpma_mr_local *mr = fx_mr(peer, buf, sizeof(buf), RPMA_MR_USAGE_RECV);
	struct rpma_conn_private_data pdata = {(void *)0x1, 1};

	assert_int_equal(rpma_conn_req_recv(NULL, mr, 0, 8, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_req_recv(req, NULL, 0, 8, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_req_recv(req, mr, 60, 8, NULL), RPMA_E_INVAL);
	assert_int_equal(CALLS(ibv_post_recv), 0);
	assert_int_equal(rpma_conn_req_recv(req, mr, 8, 16, (void *)0x42), 0);
	assert_int_equal(mock_rec.recv_wr.wr_id, 0x42);
	assert_int_equal(mock_rec.recv_sge.addr, (uintptr_t)(buf + 8));
	assert_int_equal(mock_rec.recv_sge.length, 16);
	MOCK_FAIL(ibv_post_recv, ENOMEM, 0);
	assert_int_equal(rpma_conn_req_recv(req, mr, 0, 8, NULL), RPMA_E_PROVIDER);

	assert_int_equal(rpma_conn_req_get_private_data(NULL, &pdata), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_req_get_private_data(req, NULL), RPMA_E_INVAL);
	assert_ptr_equal(pdata.ptr, (void *)0x1);
	assert_int_equal(rpma_conn_req_get_private_data(req, &pdata), 0);
	assert_null(pdata.ptr);
	assert_int_equal(pdata.len, 0);

	assert_int_equal(rpma_mr_dereg(&mr), 0);
	assert_int_equal(rpma_conn_req_delete(&req), 0);
	assert_int_equal(rpma_peer_delete(&peer), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		TEST(test_conn_req_new__invalid),
		TEST(test_conn_req_new__success),
		TEST(test_conn_req_new__default_timeout),
		TEST(test_conn_req_new__rcq_and_shared_channel),
		TEST(test_conn_req_new__srq),
		TEST(test_conn_req_new__create_id_fails),
		TEST(test_conn_req_new__resolve_fails),
		TEST(test_conn_req_new__resolve_event_error),
		TEST(test_conn_req_new__channel_steps_fail),
		TEST(test_conn_req_new__alloc_fails),
		TEST(test_conn_req_new__queues_fail),
		TEST(test_conn_req_delete__invalid),
		TEST(test_conn_req_delete__destroy_id_fails),
		TEST(test_conn_req_connect__invalid),
		TEST(test_conn_req_connect__active),
		TEST(test_conn_req_connect__connect_fails),
		TEST(test_conn_req_connect__steps_fail),
		TEST(test_conn_req_incoming__channel_steps_fail),
		TEST(test_conn_req_incoming__accept),
		TEST(test_conn_req_incoming__accept_private_data),
		TEST(test_conn_req_incoming__ack_fails),
		TEST(test_conn_req_incoming__accept_fails),
		TEST(test_conn_req_incoming__delete_rejects),
		TEST(test_conn_req_incoming__delete_reject_fails),
		TEST(test_conn_req_incoming__alloc_fails),
		TEST(test_conn_req_recv__all),
	};
	return RUN(tests);
}
