// SPDX-License-Identifier: BSD-3-Clause
/* conn.c -- unit tests of src/conn.c: events, getters, waiting, the data path */

#include <arpa/inet.h>
#include <errno.h>

#include "conn_req.h"
#include "cq.h"
#include "fixtures.h"

#define LOCAL_SIZE 256
#define REMOTE_ADDR 0x10000ULL
#define REMOTE_SIZE 512ULL
#define RKEY 0x7777
#define CTX ((const void *)0xc0ffee)
#define ALWAYS RPMA_F_COMPLETION_ALWAYS
#define ON_ERROR RPMA_F_COMPLETION_ON_ERROR
#define DEVICE_CAP_ATOMIC_WRITE (1ULL << 40)
#define DEVICE_CAP_FLUSH_GLOBAL (1ULL << 38)
#define DEVICE_CAP_FLUSH_PERSISTENT (1ULL << 39)
#define DEVICE_CAP_FLUSH (DEVICE_CAP_FLUSH_GLOBAL | DEVICE_CAP_FLUSH_PERSISTENT)
#define PLACE_GLOBAL 1		/* IBV_FLUSH_GLOBAL */
#define PLACE_PERSISTENT 2	/* IBV_FLUSH_PERSISTENT */
#define VIS RPMA_FLUSH_TYPE_VISIBILITY
#define PERS RPMA_FLUSH_TYPE_PERSISTENT

static char buf[LOCAL_SIZE];

/* everything a data path test needs */
struct fx {
	struct rpma_peer *peer;
	struct rpma_conn *conn;
	struct rpma_mr_local *local;
	struct rpma_mr_remote *remote;
	struct rpma_cq *cq;
};

static void
fx_up(struct fx *f, const struct rpma_conn_cfg *cfg, int remote_usage)
{
	f->peer = fx_peer();
	f->conn = fx_conn(f->peer, cfg);
	f->local = fx_mr(f->peer, buf, LOCAL_SIZE, RPMA_MR_USAGE_READ_DST |
			RPMA_MR_USAGE_WRITE_SRC | RPMA_MR_USAGE_SEND | RPMA_MR_USAGE_RECV);
	f->remote = fx_mr_remote(REMOTE_ADDR, REMOTE_SIZE, RKEY, remote_usage);
	assert_int_equal(rpma_conn_get_cq(f->conn, &f->cq), 0);
	mock_calls_reset();
}

static void
fx_down(struct fx *f)
{
	assert_int_equal(rpma_mr_remote_delete(&f->remote), 0);
	assert_int_equal(rpma_mr_dereg(&f->local), 0);
	assert_int_equal(rpma_conn_delete(&f->conn), 0);
	assert_int_equal(rpma_peer_delete(&f->peer), 0);
}

static const struct ibv_send_wr *
wr(void)
{
	return &mock_rec.send_wr;
}

/* lifecycle and getters */

static void
test_conn_delete__invalid(void **state)
{
	(void) state;
	struct rpma_conn *conn = NULL;

	assert_int_equal(rpma_conn_delete(NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_delete(&conn), 0);
	assert_int_equal(CALLS(rdma_destroy_id), 0);
}

/* everything the connection owns goes, the QP before its CQs, the id after */
static void
test_conn_delete__success(void **state)
{
	(void) state;
	struct fx f;

	fx_up(&f, NULL, RPMA_MR_USAGE_READ_SRC);
	assert_int_equal(rpma_conn_delete(&f.conn), 0);
	assert_null(f.conn);
	/* the flush's byte is the peer's: it stays for the next connection */
	assert_int_equal(CALLS(ibv_dereg_mr), 0);
	assert_int_equal(CALLS(rdma_destroy_qp), 1);
	assert_int_equal(CALLS(ibv_destroy_cq), 1);
	assert_int_equal(CALLS(ibv_destroy_comp_channel), 1);
	assert_int_equal(CALLS(rdma_destroy_id), 1);
	assert_int_equal(CALLS(rdma_destroy_event_channel), 1);
	assert_true(ORDER(rdma_destroy_qp) < ORDER(ibv_destroy_cq));
	assert_true(ORDER(ibv_destroy_cq) < ORDER(rdma_destroy_id));
	assert_true(ORDER(rdma_destroy_id) < ORDER(rdma_destroy_event_channel));
	fx_down(&f);
}

/* connections of one peer share the flush's byte: one registration, one mapping */
static void
test_conn_new__flush_byte_shared(void **state)
{
	(void) state;
	struct rpma_peer *peer = fx_peer();

	mock_calls_reset();
	struct rpma_conn *a = fx_conn(peer, NULL);
	struct rpma_conn *b = fx_conn(peer, NULL);
	assert_int_equal(CALLS(ibv_reg_mr), 1);
	assert_int_equal(mock_rec.reg_length, 1);
	assert_int_equal(rpma_conn_delete(&a), 0);
	assert_int_equal(rpma_conn_delete(&b), 0);
	struct rpma_conn *c = fx_conn(peer, NULL);
	assert_int_equal(CALLS(ibv_reg_mr), 1);
	assert_int_equal(rpma_conn_delete(&c), 0);
	assert_int_equal(CALLS(ibv_dereg_mr), 0);
	assert_int_equal(rpma_peer_delete(&peer), 0);
	assert_int_equal(CALLS(ibv_dereg_mr), 1);
}

static void
test_conn_delete__destroy_id_fails(void **state)
{
	(void) state;
	struct fx f;

	fx_up(&f, NULL, RPMA_MR_USAGE_READ_SRC);
	MOCK_FAIL(rdma_destroy_id, -1, EBUSY);
	assert_int_equal(rpma_conn_delete(&f.conn), RPMA_E_PROVIDER);
	assert_int_equal(errno, EBUSY);
	assert_null(f.conn);
	/* the rest is still released */
	assert_int_equal(CALLS(rdma_destroy_event_channel), 1);
	assert_int_equal(CALLS(ibv_destroy_cq), 1);
	fx_down(&f);
	mock_release_all();	/* the id the mock refused to destroy */
}

static void
test_conn_delete__destroy_cq_fails(void **state)
{
	(void) state;
	struct fx f;

	fx_up(&f, NULL, RPMA_MR_USAGE_READ_SRC);
	MOCK_FAIL(ibv_destroy_cq, EBUSY, 0);
	assert_int_equal(rpma_conn_delete(&f.conn), RPMA_E_PROVIDER);
	assert_null(f.conn);
	assert_int_equal(CALLS(rdma_destroy_id), 1);
	fx_down(&f);
	mock_release_all();
}

static void
test_conn_getters__invalid(void **state)
{
	(void) state;
	struct fx f;
	struct rpma_conn_private_data pdata = {(void *)0x1, 7};
	struct rpma_cq *cq = (struct rpma_cq *)0x1;
	uint32_t qp_num = 7;
	int fd = -7;

	fx_up(&f, NULL, RPMA_MR_USAGE_READ_SRC);
	assert_int_equal(rpma_conn_get_event_fd(NULL, &fd), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_get_event_fd(f.conn, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_get_compl_fd(NULL, &fd), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_get_compl_fd(f.conn, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_get_private_data(NULL, &pdata), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_get_private_data(f.conn, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_get_qp_num(NULL, &qp_num), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_get_qp_num(f.conn, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_get_cq(NULL, &cq), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_get_cq(f.conn, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_get_rcq(NULL, &cq), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_get_rcq(f.conn, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_apply_remote_peer_cfg(NULL, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_apply_remote_peer_cfg(f.conn, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_disconnect(NULL), RPMA_E_INVAL);
	assert_int_equal(fd, -7);
	assert_int_equal(qp_num, 7);
	assert_ptr_equal(cq, (struct rpma_cq *)0x1);
	assert_ptr_equal(pdata.ptr, (void *)0x1);
	/* not shared: no completion fd of the connection */
	assert_int_equal(rpma_conn_get_compl_fd(f.conn, &fd), RPMA_E_NOT_SHARED_CHNL);
	assert_int_equal(fd, -7);
	fx_down(&f);
}

static void
test_conn_getters__success(void **state)
{
	(void) state;
	struct fx f;
	struct rpma_conn_private_data pdata = {(void *)0x1, 7};
	struct rpma_cq *rcq = (struct rpma_cq *)0x1;
	uint32_t qp_num = 0;
	int fd = -1;

	fx_up(&f, NULL, RPMA_MR_USAGE_READ_SRC);
	assert_int_equal(rpma_conn_get_event_fd(f.conn, &fd), 0);
	assert_true(fd >= 200);	/* the mock's event channels */
	assert_int_equal(rpma_conn_get_qp_num(f.conn, &qp_num), 0);
	assert_int_equal(qp_num, 0x123);
	assert_non_null(f.cq);
	assert_int_equal(rpma_conn_get_rcq(f.conn, &rcq), 0);
	assert_null(rcq);
	/* the active side has no private data before it is established */
	assert_int_equal(rpma_conn_get_private_data(f.conn, &pdata), 0);
	assert_null(pdata.ptr);
	assert_int_equal(pdata.len, 0);
	fx_down(&f);
}

static void
test_conn_disconnect__fails(void **state)
{
	(void) state;
	struct fx f;

	fx_up(&f, NULL, RPMA_MR_USAGE_READ_SRC);
	MOCK_FAIL(rdma_disconnect, -1, ENOTCONN);
	assert_int_equal(rpma_conn_disconnect(f.conn), RPMA_E_PROVIDER);
	assert_int_equal(errno, ENOTCONN);
	assert_int_equal(rpma_conn_disconnect(f.conn), 0);
	assert_int_equal(CALLS(rdma_disconnect), 2);
	fx_down(&f);
}

/* events */

/* a connection accepted from an incoming request, as an endpoint gives it */
static struct rpma_conn *
conn_passive(struct rpma_peer *peer)
{
	struct rdma_cm_event *ev = mock_cm_event_push(RDMA_CM_EVENT_CONNECT_REQUEST,
			mock_cm_id_new(), NULL, 0);
	struct rdma_event_channel ch = { .fd = 1 };
	struct rdma_cm_event *got;
	struct rpma_conn_req *req = NULL;
	struct rpma_conn *conn = NULL;

	assert_int_equal(rdma_get_cm_event(&ch, &got), 0);
	assert_ptr_equal(got, ev);
	assert_int_equal(conn_req_from_cm_event(peer, ev, NULL, &req), 0);
	assert_int_equal(rpma_conn_req_connect(&req, NULL, &conn), 0);
	mock_calls_reset();
	return conn;
}

/* the events a connection gives for cm's events, in order */
static void
expect_events(struct rpma_conn *conn, const enum rdma_cm_event_type *cm,
		const enum rpma_conn_event *want, size_t n)
{
	for (size_t i = 0; i < n; i++)
		mock_cm_event_push(cm[i], NULL, NULL, 0);
	for (size_t i = 0; i < n; i++) {
		enum rpma_conn_event ev = RPMA_CONN_UNDEFINED;
		assert_int_equal(rpma_conn_next_event(conn, &ev), 0);
		assert_int_equal(ev, want[i]);
	}
}

/*
 * The client's RTU lost and the client closed first: the passive side
 * reports ESTABLISHED, disconnects for the program, and CLOSED comes with
 * TIMEWAIT_EXIT; the program's own disconnect then does nothing more.
 */
static void
test_conn_next_event__closed_before_established(void **state)
{
	(void) state;
	static const enum rdma_cm_event_type cm[] = {RDMA_CM_EVENT_DISCONNECTED,
			RDMA_CM_EVENT_TIMEWAIT_EXIT};
	static const enum rpma_conn_event want[] = {RPMA_CONN_ESTABLISHED, RPMA_CONN_CLOSED};
	struct rpma_peer *peer = fx_peer();
	struct rpma_conn *conn = conn_passive(peer);

	expect_events(conn, cm, want, 2);
	assert_int_equal(CALLS(rdma_disconnect), 1);
	assert_int_equal(rpma_conn_disconnect(conn), 0);
	assert_int_equal(CALLS(rdma_disconnect), 1);
	assert_int_equal(rpma_conn_delete(&conn), 0);
	assert_int_equal(rpma_peer_delete(&peer), 0);
}

/* the handshake's events as the CM gives them, whoever closes */
static void
test_conn_next_event__handshake_in_order(void **state)
{
	(void) state;
	static const enum rdma_cm_event_type cm[] = {RDMA_CM_EVENT_ESTABLISHED,
			RDMA_CM_EVENT_DISCONNECTED, RDMA_CM_EVENT_DISCONNECTED};
	static const enum rpma_conn_event want[] = {RPMA_CONN_ESTABLISHED, RPMA_CONN_CLOSED,
			RPMA_CONN_CLOSED};
	struct rpma_peer *peer = fx_peer();
	struct rpma_conn *passive = conn_passive(peer);
	struct rpma_conn *active = fx_conn(peer, NULL);

	/* established first: nothing of the library's own */
	expect_events(passive, cm, want, 3);
	/* the active side: DISCONNECTED is always CLOSED */
	expect_events(active, cm + 1, want + 1, 1);
	assert_int_equal(CALLS(rdma_disconnect), 0);
	assert_int_equal(rpma_conn_delete(&active), 0);
	assert_int_equal(rpma_conn_delete(&passive), 0);

	/* the program disconnects before ESTABLISHED: what comes is the answer */
	passive = conn_passive(peer);
	assert_int_equal(rpma_conn_disconnect(passive), 0);
	expect_events(passive, cm + 1, want + 1, 1);
	assert_int_equal(CALLS(rdma_disconnect), 1);
	assert_int_equal(rpma_conn_delete(&passive), 0);
	assert_int_equal(rpma_peer_delete(&peer), 0);
}

/* the library's disconnect fails: CLOSED at once, the program's disconnect is its own */
static void
test_conn_next_event__closed_early_disconnect_fails(void **state)
{
	(void) state;
	static const enum rdma_cm_event_type cm[] = {RDMA_CM_EVENT_DISCONNECTED};
	static const enum rpma_conn_event want[] = {RPMA_CONN_CLOSED};
	struct rpma_peer *peer = fx_peer();
	struct rpma_conn *conn = conn_passive(peer);

	MOCK_FAIL(rdma_disconnect, -1, EINVAL);
	expect_events(conn, cm, want, 1);
	assert_int_equal(rpma_conn_disconnect(conn), 0);
	assert_int_equal(CALLS(rdma_disconnect), 2);
	assert_int_equal(rpma_conn_delete(&conn), 0);
	assert_int_equal(rpma_peer_delete(&peer), 0);
}

static void
test_conn_next_event__invalid(void **state)
{
	(void) state;
	struct fx f;
	enum rpma_conn_event ev = RPMA_CONN_LOST;

	fx_up(&f, NULL, RPMA_MR_USAGE_READ_SRC);
	assert_int_equal(rpma_conn_next_event(NULL, &ev), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_next_event(f.conn, NULL), RPMA_E_INVAL);
	assert_int_equal(ev, RPMA_CONN_LOST);
	assert_int_equal(CALLS(rdma_get_cm_event), 0);
	fx_down(&f);
}

static void
test_conn_next_event__mapping(void **state)
{
	(void) state;
	static const struct { enum rdma_cm_event_type cm; enum rpma_conn_event ev; } map[] = {
		{RDMA_CM_EVENT_ESTABLISHED, RPMA_CONN_ESTABLISHED},
		{RDMA_CM_EVENT_DISCONNECTED, RPMA_CONN_CLOSED},
		{RDMA_CM_EVENT_TIMEWAIT_EXIT, RPMA_CONN_CLOSED},
		{RDMA_CM_EVENT_CONNECT_ERROR, RPMA_CONN_LOST},
		{RDMA_CM_EVENT_DEVICE_REMOVAL, RPMA_CONN_LOST},
		{RDMA_CM_EVENT_REJECTED, RPMA_CONN_REJECTED},
		{RDMA_CM_EVENT_UNREACHABLE, RPMA_CONN_UNREACHABLE},
		{RDMA_CM_EVENT_ADDR_ERROR, RPMA_CONN_UNREACHABLE},
		{RDMA_CM_EVENT_ROUTE_ERROR, RPMA_CONN_UNREACHABLE},
	};
	struct fx f;

	fx_up(&f, NULL, RPMA_MR_USAGE_READ_SRC);
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
		enum rpma_conn_event ev = RPMA_CONN_UNDEFINED;
		mock_cm_event_push(map[i].cm, NULL, NULL, 0);
		assert_int_equal(rpma_conn_next_event(f.conn, &ev), 0);
		assert_int_equal(ev, map[i].ev);
	}
	/* every event was acknowledged */
	assert_int_equal(CALLS(rdma_ack_cm_event), 9);
	fx_down(&f);
}

static void
test_conn_next_event__unexpected(void **state)
{
	(void) state;
	static const enum rdma_cm_event_type odd[] = {
		RDMA_CM_EVENT_ADDR_RESOLVED, RDMA_CM_EVENT_CONNECT_REQUEST,
		RDMA_CM_EVENT_CONNECT_RESPONSE, RDMA_CM_EVENT_ADDR_CHANGE,
	};
	struct fx f;

	fx_up(&f, NULL, RPMA_MR_USAGE_READ_SRC);
	for (size_t i = 0; i < sizeof(odd) / sizeof(odd[0]); i++) {
		enum rpma_conn_event ev = RPMA_CONN_LOST;
		mock_cm_event_push(odd[i], NULL, NULL, 0);
		assert_int_equal(rpma_conn_next_event(f.conn, &ev), RPMA_E_UNKNOWN);
		assert_int_equal(ev, RPMA_CONN_LOST);
	}
	assert_int_equal(CALLS(rdma_ack_cm_event), 4);
	fx_down(&f);
}

static void
test_conn_next_event__no_event(void **state)
{
	(void) state;
	struct fx f;
	enum rpma_conn_event ev = RPMA_CONN_LOST;

	fx_up(&f, NULL, RPMA_MR_USAGE_READ_SRC);
	/* as librpma 1.x: a provider error with errno EAGAIN, and nothing logged */
	int logged = mock_rec.log_count;
	errno = 0;
	assert_int_equal(rpma_conn_next_event(f.conn, &ev), RPMA_E_PROVIDER);
	assert_true(errno == EAGAIN || errno == EWOULDBLOCK);
	assert_int_equal(mock_rec.log_count, logged);
	/* any other failure is an error, and logged */
	MOCK_FAIL(rdma_get_cm_event, -1, ENODEV);
	assert_int_equal(rpma_conn_next_event(f.conn, &ev), RPMA_E_PROVIDER);
	assert_int_equal(errno, ENODEV);
	assert_int_equal(ev, RPMA_CONN_LOST);
	assert_int_equal(mock_rec.log_count, logged + 1);
	assert_non_null(strstr(mock_rec.log_last, "rdma_get_cm_event()"));
	fx_down(&f);
}

static void
test_conn_next_event__ack_fails(void **state)
{
	(void) state;
	struct fx f;
	enum rpma_conn_event ev = RPMA_CONN_LOST;

	fx_up(&f, NULL, RPMA_MR_USAGE_READ_SRC);
	mock_cm_event_push(RDMA_CM_EVENT_DISCONNECTED, NULL, NULL, 0);
	MOCK_FAIL(rdma_ack_cm_event, -1, EINVAL);
	assert_int_equal(rpma_conn_next_event(f.conn, &ev), RPMA_E_PROVIDER);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(ev, RPMA_CONN_LOST);
	fx_down(&f);
	mock_release_all();	/* the event the mock kept */
}

/* the active side learns the peer's private data with ESTABLISHED, in a copy */
static void
test_conn_next_event__private_data(void **state)
{
	(void) state;
	struct fx f;
	enum rpma_conn_event ev;
	struct rpma_conn_private_data pdata;
	const char hello[] = "hello";

	fx_up(&f, NULL, RPMA_MR_USAGE_READ_SRC);
	mock_cm_event_push(RDMA_CM_EVENT_ESTABLISHED, NULL, hello, sizeof(hello));
	assert_int_equal(rpma_conn_next_event(f.conn, &ev), 0);
	assert_int_equal(ev, RPMA_CONN_ESTABLISHED);
	assert_int_equal(rpma_conn_get_private_data(f.conn, &pdata), 0);
	assert_int_equal(pdata.len, sizeof(hello));
	assert_memory_equal(pdata.ptr, hello, sizeof(hello));
	fx_down(&f);	/* the copy is freed with the connection */
}

/* only ESTABLISHED brings the peer's private data, and only the first one is kept */
static void
test_conn_next_event__private_data_once(void **state)
{
	(void) state;
	struct fx f;
	enum rpma_conn_event ev;
	struct rpma_conn_private_data pdata;

	fx_up(&f, NULL, RPMA_MR_USAGE_READ_SRC);
	mock_cm_event_push(RDMA_CM_EVENT_REJECTED, NULL, "no", 2);
	assert_int_equal(rpma_conn_next_event(f.conn, &ev), 0);
	assert_int_equal(rpma_conn_get_private_data(f.conn, &pdata), 0);
	assert_null(pdata.ptr);
	assert_int_equal(pdata.len, 0);
	mock_cm_event_push(RDMA_CM_EVENT_ESTABLISHED, NULL, "first", 5);
	mock_cm_event_push(RDMA_CM_EVENT_ESTABLISHED, NULL, "later", 5);
	mock_cm_event_push(RDMA_CM_EVENT_DISCONNECTED, NULL, "bye", 3);
	for (int i = 0; i < 3; i++)
		assert_int_equal(rpma_conn_next_event(f.conn, &ev), 0);
	assert_int_equal(ev, RPMA_CONN_CLOSED);
	assert_int_equal(rpma_conn_get_private_data(f.conn, &pdata), 0);
	assert_int_equal(pdata.len, 5);
	assert_memory_equal(pdata.ptr, "first", 5);
	fx_down(&f);
}

static void
test_conn_next_event__private_data_nomem(void **state)
{
	(void) state;
	struct fx f;
	enum rpma_conn_event ev = RPMA_CONN_LOST;
	struct rpma_conn_private_data pdata;

	fx_up(&f, NULL, RPMA_MR_USAGE_READ_SRC);
	mock_cm_event_push(RDMA_CM_EVENT_ESTABLISHED, NULL, "x", 1);
	MOCK_FAIL(malloc, 0, 0);
	assert_int_equal(rpma_conn_next_event(f.conn, &ev), RPMA_E_NOMEM);
	assert_int_equal(ev, RPMA_CONN_LOST);
	assert_int_equal(CALLS(rdma_ack_cm_event), 1);
	assert_int_equal(rpma_conn_get_private_data(f.conn, &pdata), 0);
	assert_null(pdata.ptr);
	fx_down(&f);
}

/* waiting on the shared channel */

static struct rpma_conn_cfg *
cfg_shared(uint32_t rcq_size)
{
	struct rpma_conn_cfg *cfg = NULL;

	assert_int_equal(rpma_conn_cfg_new(&cfg), 0);
	assert_int_equal(rpma_conn_cfg_set_compl_channel(cfg, true), 0);
	assert_int_equal(rpma_conn_cfg_set_rcq_size(cfg, rcq_size), 0);
	return cfg;
}

static void
test_conn_wait__invalid(void **state)
{
	(void) state;
	struct fx f;
	struct rpma_cq *cq = (struct rpma_cq *)0x1;
	bool is_rcq = true;

	fx_up(&f, NULL, RPMA_MR_USAGE_READ_SRC);
	assert_int_equal(rpma_conn_wait(NULL, 0, &cq, &is_rcq), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_wait(f.conn, 0, NULL, &is_rcq), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_wait(f.conn, 0, &cq, &is_rcq), RPMA_E_NOT_SHARED_CHNL);
	assert_ptr_equal(cq, (struct rpma_cq *)0x1);
	assert_true(is_rcq);
	assert_int_equal(CALLS(ibv_get_cq_event), 0);
	fx_down(&f);
}

/* completions a wait of the library's kept on the main CQ: that CQ at once, no event taken */
static void
test_conn_wait__kept(void **state)
{
	(void) state;
	struct rpma_conn_cfg *cfg = cfg_shared(5);
	struct fx f;
	struct rpma_cq *cq = NULL;
	bool is_rcq = true;
	struct ibv_wc wc;

	fx_up(&f, cfg, RPMA_MR_USAGE_READ_SRC);
	struct ibv_wc mine = {.wr_id = 21}, own = {.wr_id = 0xb1d};
	mock_wc_push(&mine);
	mock_wc_push(&own);
	assert_int_equal(cq_take(f.cq, 0xb1d, 100, &wc), 0);
	assert_int_equal(rpma_conn_wait(f.conn, 0, &cq, &is_rcq), 0);
	assert_ptr_equal(cq, f.cq);
	assert_false(is_rcq);
	assert_int_equal(CALLS(ibv_get_cq_event), 0);
	assert_int_equal(rpma_cq_get_wc(cq, 1, &wc, NULL), 0);
	assert_int_equal(wc.wr_id, 21);
	/* none kept any more: the channel again */
	assert_int_equal(rpma_conn_wait(f.conn, 0, &cq, &is_rcq), RPMA_E_NO_COMPLETION);
	assert_int_equal(CALLS(ibv_get_cq_event), 1);
	fx_down(&f);
	assert_int_equal(rpma_conn_cfg_delete(&cfg), 0);
}

static void
test_conn_wait__cq_and_rcq(void **state)
{
	(void) state;
	struct rpma_conn_cfg *cfg = cfg_shared(5);
	struct fx f;
	struct rpma_cq *cq = NULL, *rcq = NULL;
	bool is_rcq = true;
	int fd = -1;

	fx_up(&f, cfg, RPMA_MR_USAGE_READ_SRC);
	assert_int_equal(rpma_conn_get_rcq(f.conn, &rcq), 0);
	assert_non_null(rcq);
	assert_int_equal(rpma_conn_get_compl_fd(f.conn, &fd), 0);
	assert_true(fd >= 100 && fd < 200);
	/* both CQs use the one channel: the cq's own wait refuses */
	assert_int_equal(rpma_cq_wait(f.cq), RPMA_E_SHARED_CHANNEL);

	mock_cq_event_push(cq_ibv_cq(f.cq));
	assert_int_equal(rpma_conn_wait(f.conn, RPMA_W_WAIT_FOR_COMPLETION, &cq, &is_rcq), 0);
	assert_ptr_equal(cq, f.cq);
	assert_false(is_rcq);
	mock_cq_event_push(cq_ibv_cq(rcq));
	assert_int_equal(rpma_conn_wait(f.conn, 0, &cq, &is_rcq), 0);
	assert_ptr_equal(cq, rcq);
	assert_true(is_rcq);
	mock_cq_event_push(cq_ibv_cq(rcq));
	assert_int_equal(rpma_conn_wait(f.conn, 0, &cq, NULL), 0);
	/* got, then re-armed */
	assert_int_equal(CALLS(ibv_req_notify_cq), 3);
	assert_true(ORDER(ibv_get_cq_event) < ORDER(ibv_req_notify_cq));
	/* nothing more */
	assert_int_equal(rpma_conn_wait(f.conn, 0, &cq, NULL), RPMA_E_NO_COMPLETION);
	fx_down(&f);
	/* the deletion acknowledged what was got, before destroying */
	assert_int_equal(mock_rec.acked, 3);
	assert_int_equal(rpma_conn_cfg_delete(&cfg), 0);
}

static void
test_conn_wait__unknown_cq(void **state)
{
	(void) state;
	struct rpma_conn_cfg *cfg = cfg_shared(0);
	struct fx f;
	struct rpma_cq *cq = (struct rpma_cq *)0x1;

	fx_up(&f, cfg, RPMA_MR_USAGE_READ_SRC);
	struct ibv_cq *stranger = mock_ibv_cq_new();
	stranger->channel = mock_rec.cq_channel;
	mock_cq_event_push(stranger);
	assert_int_equal(rpma_conn_wait(f.conn, 0, &cq, NULL), RPMA_E_UNKNOWN);
	assert_ptr_equal(cq, (struct rpma_cq *)0x1);
	/* the stray event is acknowledged at once */
	assert_int_equal(mock_rec.acked, 1);
	assert_int_equal(ibv_destroy_cq(stranger), 0);
	fx_down(&f);
	assert_int_equal(rpma_conn_cfg_delete(&cfg), 0);
}

static void
test_conn_wait__req_notify_fails(void **state)
{
	(void) state;
	struct rpma_conn_cfg *cfg = cfg_shared(0);
	struct fx f;
	struct rpma_cq *cq = (struct rpma_cq *)0x1;

	fx_up(&f, cfg, RPMA_MR_USAGE_READ_SRC);
	mock_cq_event_push(cq_ibv_cq(f.cq));
	MOCK_FAIL(ibv_req_notify_cq, EIO, 0);
	assert_int_equal(rpma_conn_wait(f.conn, 0, &cq, NULL), RPMA_E_PROVIDER);
	assert_int_equal(errno, EIO);
	assert_ptr_equal(cq, (struct rpma_cq *)0x1);
	fx_down(&f);
	assert_int_equal(rpma_conn_cfg_delete(&cfg), 0);
}

static void
test_conn_wait__get_event_fails(void **state)
{
	(void) state;
	struct rpma_conn_cfg *cfg = cfg_shared(0);
	struct fx f;
	struct rpma_cq *cq = (struct rpma_cq *)0x1;

	fx_up(&f, cfg, RPMA_MR_USAGE_READ_SRC);
	MOCK_FAIL(ibv_get_cq_event, -1, EINTR);
	assert_int_equal(rpma_conn_wait(f.conn, 0, &cq, NULL), RPMA_E_NO_COMPLETION);
	assert_ptr_equal(cq, (struct rpma_cq *)0x1);
	fx_down(&f);
	assert_int_equal(rpma_conn_cfg_delete(&cfg), 0);
}

/* the data path */

static void
test_read__invalid(void **state)
{
	(void) state;
	struct fx f;

	fx_up(&f, NULL, RPMA_MR_USAGE_READ_SRC);
	assert_int_equal(rpma_read(NULL, f.local, 0, f.remote, 0, 8, ALWAYS, CTX), RPMA_E_INVAL);
	assert_int_equal(rpma_read(f.conn, f.local, 0, f.remote, 0, 8, 0, CTX), RPMA_E_INVAL);
	assert_int_equal(rpma_read(f.conn, NULL, 0, f.remote, 0, 8, ALWAYS, CTX), RPMA_E_INVAL);
	assert_int_equal(rpma_read(f.conn, f.local, 0, NULL, 0, 8, ALWAYS, CTX), RPMA_E_INVAL);
	/* without regions there must be nothing to move */
	assert_int_equal(rpma_read(f.conn, NULL, 0, NULL, 0, 8, ALWAYS, CTX), RPMA_E_INVAL);
	assert_int_equal(rpma_read(f.conn, NULL, 1, NULL, 0, 0, ALWAYS, CTX), RPMA_E_INVAL);
	assert_int_equal(rpma_read(f.conn, NULL, 0, NULL, 1, 0, ALWAYS, CTX), RPMA_E_INVAL);
	/* an empty request has no region on either side */
	assert_int_equal(rpma_read(f.conn, f.local, 0, NULL, 0, 0, ALWAYS, CTX), RPMA_E_INVAL);
	assert_int_equal(rpma_read(f.conn, NULL, 0, f.remote, 0, 0, ALWAYS, CTX), RPMA_E_INVAL);
	assert_int_equal(CALLS(ibv_post_send), 0);
	fx_down(&f);
}

/* outside either region: refused before anything is posted */
static void
test_read__out_of_range(void **state)
{
	(void) state;
	struct fx f;

	fx_up(&f, NULL, RPMA_MR_USAGE_READ_SRC);
	assert_int_equal(rpma_read(f.conn, f.local, LOCAL_SIZE - 7, f.remote, 0, 8, ALWAYS, CTX),
			RPMA_E_INVAL);
	assert_int_equal(rpma_read(f.conn, f.local, LOCAL_SIZE + 1, f.remote, 0, 0, ALWAYS, CTX),
			RPMA_E_INVAL);
	assert_int_equal(rpma_read(f.conn, f.local, 0, f.remote, REMOTE_SIZE - 7, 8, ALWAYS, CTX),
			RPMA_E_INVAL);
	assert_int_equal(rpma_read(f.conn, f.local, 0, f.remote, SIZE_MAX, 8, ALWAYS, CTX),
			RPMA_E_INVAL);
	assert_int_equal(rpma_read(f.conn, f.local, 8, f.remote, 0, SIZE_MAX, ALWAYS, CTX),
			RPMA_E_INVAL);
	assert_int_equal(CALLS(ibv_post_send), 0);
	fx_down(&f);
}

static void
test_read__posted(void **state)
{
	(void) state;
	struct fx f;

	fx_up(&f, NULL, RPMA_MR_USAGE_READ_SRC);
	assert_int_equal(rpma_read(f.conn, f.local, 16, f.remote, 32, 64, ALWAYS, CTX), 0);
	assert_int_equal(CALLS(ibv_post_send), 1);
	assert_int_equal(wr()->opcode, IBV_WR_RDMA_READ);
	assert_int_equal(wr()->wr_id, (uintptr_t)CTX);
	assert_int_equal(wr()->send_flags, IBV_SEND_SIGNALED);
	assert_int_equal(wr()->num_sge, 1);
	assert_int_equal(mock_rec.send_sge.addr, (uintptr_t)(buf + 16));
	assert_int_equal(mock_rec.send_sge.length, 64);
	assert_int_equal(mock_rec.send_sge.lkey, 0x1001);	/* after the flush's buffer */
	assert_int_equal(wr()->wr.rdma.remote_addr, REMOTE_ADDR + 32);
	assert_int_equal(wr()->wr.rdma.rkey, RKEY);
	/* imm_data is not set: providers read it for the _WITH_IMM opcodes only */
	/* the whole of both regions is in range */
	assert_int_equal(rpma_read(f.conn, f.local, 0, f.remote, REMOTE_SIZE - LOCAL_SIZE,
			LOCAL_SIZE, ON_ERROR, NULL), 0);
	assert_int_equal(wr()->send_flags, 0);
	assert_int_equal(wr()->wr_id, 0);
	fx_down(&f);
}

static void
test_read__empty(void **state)
{
	(void) state;
	struct fx f;

	fx_up(&f, NULL, RPMA_MR_USAGE_READ_SRC);
	assert_int_equal(rpma_read(f.conn, NULL, 0, NULL, 0, 0, ALWAYS, CTX), 0);
	assert_int_equal(wr()->opcode, IBV_WR_RDMA_READ);
	assert_int_equal(wr()->num_sge, 0);
	assert_int_equal(wr()->wr_id, (uintptr_t)CTX);
	assert_int_equal(wr()->imm_data, 0);
	fx_down(&f);
}

static void
test_read__post_fails(void **state)
{
	(void) state;
	struct fx f;

	fx_up(&f, NULL, RPMA_MR_USAGE_READ_SRC);
	MOCK_FAIL(ibv_post_send, ENOMEM, 0);
	assert_int_equal(rpma_read(f.conn, f.local, 0, f.remote, 0, 8, ALWAYS, CTX),
			RPMA_E_PROVIDER);
	assert_int_equal(errno, ENOMEM);
	assert_int_equal(mock_rec.log_count, 1);
	fx_down(&f);
}

/* soft-iWARP's provider (libsiw) returns the errno negated: errno gets the cause all the same */
static void
test_read__post_fails_negated(void **state)
{
	(void) state;
	struct fx f;

	fx_up(&f, NULL, RPMA_MR_USAGE_READ_SRC);
	MOCK_FAIL(ibv_post_send, -EINVAL, 0);
	assert_int_equal(rpma_read(f.conn, f.local, 0, f.remote, 0, 8, ALWAYS, CTX),
			RPMA_E_PROVIDER);
	assert_int_equal(errno, EINVAL);
	assert_non_null(strstr(mock_rec.log_last, strerror(EINVAL)));
	fx_down(&f);
}

static void
test_write__invalid(void **state)
{
	(void) state;
	struct fx f;

	fx_up(&f, NULL, RPMA_MR_USAGE_WRITE_DST);
	assert_int_equal(rpma_write(NULL, f.remote, 0, f.local, 0, 8, ALWAYS, CTX), RPMA_E_INVAL);
	assert_int_equal(rpma_write(f.conn, f.remote, 0, f.local, 0, 8, 0, CTX), RPMA_E_INVAL);
	assert_int_equal(rpma_write(f.conn, NULL, 0, f.local, 0, 8, ALWAYS, CTX), RPMA_E_INVAL);
	assert_int_equal(rpma_write(f.conn, f.remote, 0, NULL, 0, 8, ALWAYS, CTX), RPMA_E_INVAL);
	assert_int_equal(rpma_write(f.conn, NULL, 0, NULL, 0, 1, ALWAYS, CTX), RPMA_E_INVAL);
	assert_int_equal(rpma_write_with_imm(NULL, f.remote, 0, f.local, 0, 8, ALWAYS, 1, CTX),
			RPMA_E_INVAL);
	assert_int_equal(rpma_write_with_imm(f.conn, f.remote, 0, f.local, 0, 8, 0, 1, CTX),
			RPMA_E_INVAL);
	assert_int_equal(rpma_write_with_imm(f.conn, NULL, 0, f.local, 0, 8, ALWAYS, 1, CTX),
			RPMA_E_INVAL);
	assert_int_equal(rpma_write_with_imm(f.conn, NULL, 0, NULL, 4, 0, ALWAYS, 1, CTX),
			RPMA_E_INVAL);
	/* ranges */
	assert_int_equal(rpma_write(f.conn, f.remote, 0, f.local, LOCAL_SIZE, 1, ALWAYS, CTX),
			RPMA_E_INVAL);
	assert_int_equal(rpma_write(f.conn, f.remote, REMOTE_SIZE - 4, f.local, 0, 8, ALWAYS,
			CTX), RPMA_E_INVAL);
	assert_int_equal(rpma_write_with_imm(f.conn, f.remote, REMOTE_SIZE, f.local, 0, 1,
			ALWAYS, 1, CTX), RPMA_E_INVAL);
	assert_int_equal(CALLS(ibv_post_send), 0);
	fx_down(&f);
}

/*
 * Offsets at and above 4 GiB leave the fast path: a remote region that
 * large takes them, every range is still checked, and a length of 4 GiB
 * or more is refused whatever the regions' sizes.
 */
static void
test_rdma__large_offsets(void **state)
{
	(void) state;
	struct fx f;
	const uint64_t big = 1ULL << 34;

	fx_up(&f, NULL, RPMA_MR_USAGE_READ_SRC);
	struct rpma_mr_remote *r = fx_mr_remote(REMOTE_ADDR, big, RKEY,
			RPMA_MR_USAGE_WRITE_DST | RPMA_MR_USAGE_READ_SRC);
	assert_int_equal(rpma_write(f.conn, r, big - 16, f.local, 0, 16, ALWAYS, CTX), 0);
	assert_int_equal(wr()->opcode, IBV_WR_RDMA_WRITE);
	assert_int_equal(wr()->wr.rdma.remote_addr, REMOTE_ADDR + big - 16);
	assert_int_equal(mock_rec.send_sge.length, 16);
	assert_int_equal(rpma_read(f.conn, f.local, 8, r, 1ULL << 32, 8, ALWAYS, CTX), 0);
	assert_int_equal(wr()->wr.rdma.remote_addr, REMOTE_ADDR + (1ULL << 32));
	assert_int_equal(rpma_write_with_imm(f.conn, r, 1ULL << 33, f.local, 0, 4, ALWAYS, 9,
			CTX), 0);
	assert_int_equal(wr()->imm_data, htonl(9));
	int calls = CALLS(ibv_post_send);
	/* past the end, wrapping, too long */
	assert_int_equal(rpma_write(f.conn, r, big - 8, f.local, 0, 16, ALWAYS, CTX),
			RPMA_E_INVAL);
	assert_int_equal(rpma_write(f.conn, r, SIZE_MAX, f.local, 0, 2, ALWAYS, CTX),
			RPMA_E_INVAL);
	assert_int_equal(rpma_read(f.conn, f.local, 1ULL << 32, r, 0, 8, ALWAYS, CTX),
			RPMA_E_INVAL);
	assert_int_equal(rpma_read(f.conn, f.local, 0, r, 0, 1ULL << 32, ALWAYS, CTX),
			RPMA_E_INVAL);
	assert_int_equal(rpma_send(f.conn, f.local, 1ULL << 32, 0, ALWAYS, CTX), RPMA_E_INVAL);
	assert_int_equal(rpma_send(f.conn, f.local, 0, 1ULL << 32, ALWAYS, CTX), RPMA_E_INVAL);
	assert_int_equal(rpma_send_with_imm(f.conn, f.local, SIZE_MAX, 2, ALWAYS, 1, CTX),
			RPMA_E_INVAL);
	assert_int_equal(rpma_recv(f.conn, f.local, 1ULL << 32, 0, CTX), RPMA_E_INVAL);
	assert_int_equal(rpma_recv(f.conn, f.local, 0, 1ULL << 32, CTX), RPMA_E_INVAL);
	assert_int_equal(rpma_flush(f.conn, r, big + 1, 0, VIS, ALWAYS, CTX), RPMA_E_INVAL);
	assert_int_equal(rpma_flush(f.conn, r, big - 1, 2, VIS, ALWAYS, CTX), RPMA_E_INVAL);
	assert_int_equal(CALLS(ibv_post_send), calls);
	assert_int_equal(CALLS(ibv_post_recv), 0);
	/* a flush of the region's last bytes reads the last of them */
	assert_int_equal(rpma_flush(f.conn, r, 1ULL << 33, big - (1ULL << 33), VIS, ALWAYS, CTX),
			0);
	assert_int_equal(wr()->wr.rdma.remote_addr, REMOTE_ADDR + (1ULL << 33));
	assert_int_equal(rpma_flush(f.conn, r, big, 0, VIS, ALWAYS, CTX), 0);
	assert_int_equal(wr()->wr.rdma.remote_addr, REMOTE_ADDR + big - 1);
	assert_int_equal(rpma_mr_remote_delete(&r), 0);
	fx_down(&f);
}

static void
test_write__posted(void **state)
{
	(void) state;
	struct fx f;

	fx_up(&f, NULL, RPMA_MR_USAGE_WRITE_DST);
	assert_int_equal(rpma_write(f.conn, f.remote, 100, f.local, 8, 24, ALWAYS, CTX), 0);
	assert_int_equal(wr()->opcode, IBV_WR_RDMA_WRITE);
	assert_int_equal(wr()->wr_id, (uintptr_t)CTX);
	assert_int_equal(wr()->send_flags, IBV_SEND_SIGNALED);
	assert_int_equal(wr()->num_sge, 1);
	assert_int_equal(mock_rec.send_sge.addr, (uintptr_t)(buf + 8));
	assert_int_equal(mock_rec.send_sge.length, 24);
	assert_int_equal(mock_rec.send_sge.lkey, 0x1001);
	assert_int_equal(wr()->wr.rdma.remote_addr, REMOTE_ADDR + 100);
	assert_int_equal(wr()->wr.rdma.rkey, RKEY);
	/* imm_data is not set: providers read it for the _WITH_IMM opcodes only */
	assert_int_equal(rpma_write(f.conn, f.remote, 0, f.local, 0, 8, ON_ERROR, CTX), 0);
	assert_int_equal(wr()->send_flags, 0);
	assert_int_equal(rpma_write(f.conn, NULL, 0, NULL, 0, 0, ALWAYS, CTX), 0);
	assert_int_equal(wr()->num_sge, 0);
	assert_int_equal(wr()->opcode, IBV_WR_RDMA_WRITE);
	assert_int_equal(wr()->imm_data, 0);
	MOCK_FAIL(ibv_post_send, EINVAL, 0);
	assert_int_equal(rpma_write(f.conn, f.remote, 0, f.local, 0, 8, ALWAYS, CTX),
			RPMA_E_PROVIDER);
	assert_int_equal(errno, EINVAL);
	fx_down(&f);
}

/* the immediate data goes in network byte order */
static void
test_write_with_imm__posted(void **state)
{
	(void) state;
	struct fx f;

	fx_up(&f, NULL, RPMA_MR_USAGE_WRITE_DST);
	assert_int_equal(rpma_write_with_imm(f.conn, f.remote, 4, f.local, 0, 4, ALWAYS,
			0x01020304, CTX), 0);
	assert_int_equal(wr()->opcode, IBV_WR_RDMA_WRITE_WITH_IMM);
	assert_int_equal(wr()->imm_data, htonl(0x01020304));
	assert_int_equal(wr()->wr.rdma.remote_addr, REMOTE_ADDR + 4);
	assert_int_equal(wr()->wr.rdma.rkey, RKEY);
	assert_int_equal(mock_rec.send_sge.length, 4);
	assert_int_equal(wr()->send_flags, IBV_SEND_SIGNALED);
	fx_down(&f);
}

static void
test_atomic_write__invalid(void **state)
{
	(void) state;
	struct fx f;
	const char v[8] = "1234567";

	fx_up(&f, NULL, RPMA_MR_USAGE_WRITE_DST);
	assert_int_equal(rpma_atomic_write(NULL, f.remote, 0, v, ALWAYS, CTX), RPMA_E_INVAL);
	assert_int_equal(rpma_atomic_write(f.conn, NULL, 0, v, ALWAYS, CTX), RPMA_E_INVAL);
	assert_int_equal(rpma_atomic_write(f.conn, f.remote, 0, NULL, ALWAYS, CTX), RPMA_E_INVAL);
	assert_int_equal(rpma_atomic_write(f.conn, f.remote, 0, v, 0, CTX), RPMA_E_INVAL);
	assert_int_equal(rpma_atomic_write(f.conn, f.remote, 4, v, ALWAYS, CTX), RPMA_E_INVAL);
	assert_int_equal(rpma_atomic_write(f.conn, f.remote, REMOTE_SIZE, v, ALWAYS, CTX),
			RPMA_E_INVAL);
	assert_int_equal(CALLS(ibv_post_send), 0);
	fx_down(&f);
}

/* without native ATOMIC WRITE: an 8-byte inline RDMA write */
static void
test_atomic_write__fallback(void **state)
{
	(void) state;
	struct fx f;
	const char v[8] = "1234567";

	fx_up(&f, NULL, RPMA_MR_USAGE_WRITE_DST);
	assert_int_equal(rpma_atomic_write(f.conn, f.remote, REMOTE_SIZE - 8, v, ALWAYS, CTX), 0);
	assert_int_equal(wr()->opcode, IBV_WR_RDMA_WRITE);
	assert_int_equal(wr()->send_flags, IBV_SEND_SIGNALED | IBV_SEND_INLINE);
	assert_int_equal(wr()->wr_id, (uintptr_t)CTX);
	assert_int_equal(mock_rec.send_sge.addr, (uintptr_t)v);
	assert_int_equal(mock_rec.send_sge.length, 8);
	assert_int_equal(wr()->wr.rdma.remote_addr, REMOTE_ADDR + REMOTE_SIZE - 8);
	assert_int_equal(wr()->wr.rdma.rkey, RKEY);
	MOCK_FAIL(ibv_post_send, EIO, 0);
	assert_int_equal(rpma_atomic_write(f.conn, f.remote, 0, v, ON_ERROR, CTX),
			RPMA_E_PROVIDER);
	assert_int_equal(wr()->send_flags, IBV_SEND_INLINE);
	fx_down(&f);
}

/* with native ATOMIC WRITE: through the extended QP, nothing on ibv_post_send */
static void
test_atomic_write__native(void **state)
{
	(void) state;
	struct fx f;
	const char v[8] = "abcdefg";
	uint64_t expected;

	mock_device_set_caps_ex(DEVICE_CAP_ATOMIC_WRITE);
	fx_up(&f, NULL, RPMA_MR_USAGE_WRITE_DST);
	int ret = rpma_atomic_write(f.conn, f.remote, 8, v, ALWAYS, CTX);
#ifdef HAVE_IBV_ATOMIC_WRITE
	assert_int_equal(ret, 0);
	assert_int_equal(CALLS(ibv_post_send), 0);
	assert_int_equal(CALLS(ibv_wr_complete), 1);
	memcpy(&expected, v, 8);
	assert_int_equal(mock_rec.atomic.value, expected);
	assert_int_equal(mock_rec.atomic.addr, REMOTE_ADDR + 8);
	assert_int_equal(mock_rec.atomic.rkey, RKEY);
	assert_int_equal(mock_rec.atomic.wr_id, (uintptr_t)CTX);
	assert_int_equal(mock_rec.atomic.flags, IBV_SEND_SIGNALED);
	MOCK_FAIL(ibv_wr_complete, EIO, 0);
	assert_int_equal(rpma_atomic_write(f.conn, f.remote, 0, v, ON_ERROR, CTX),
			RPMA_E_PROVIDER);
	assert_int_equal(errno, EIO);
	assert_int_equal(mock_rec.atomic.flags, 0);
	/* the range is checked on this path too */
	assert_int_equal(rpma_atomic_write(f.conn, f.remote, REMOTE_SIZE - 4, v, ALWAYS, CTX),
			RPMA_E_INVAL);
	assert_int_equal(rpma_atomic_write(f.conn, f.remote, REMOTE_SIZE, v, ALWAYS, CTX),
			RPMA_E_INVAL);
	assert_int_equal(CALLS(ibv_wr_complete), 2);
	assert_int_equal(rpma_atomic_write(f.conn, f.remote, REMOTE_SIZE - 8, v, ALWAYS, CTX),
			0);
	assert_int_equal(mock_rec.atomic.addr, REMOTE_ADDR + REMOTE_SIZE - 8);
#else
	(void) expected;
	assert_int_equal(ret, 0);
	assert_int_equal(CALLS(ibv_post_send), 1);
#endif
	fx_down(&f);
}

static void
test_flush__invalid(void **state)
{
	(void) state;
	struct fx f;
	enum rpma_flush_type vis = RPMA_FLUSH_TYPE_VISIBILITY;

	fx_up(&f, NULL, RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY);
	assert_int_equal(rpma_flush(NULL, f.remote, 0, 8, vis, ALWAYS, CTX), RPMA_E_INVAL);
	assert_int_equal(rpma_flush(f.conn, NULL, 0, 8, vis, ALWAYS, CTX), RPMA_E_INVAL);
	assert_int_equal(rpma_flush(f.conn, f.remote, 0, 8, vis, 0, CTX), RPMA_E_INVAL);
	assert_int_equal(rpma_flush(f.conn, f.remote, 0, 8, (enum rpma_flush_type)7, ALWAYS,
			CTX), RPMA_E_INVAL);
	assert_int_equal(rpma_flush(f.conn, f.remote, REMOTE_SIZE - 4, 8, vis, ALWAYS, CTX),
			RPMA_E_INVAL);
	assert_int_equal(rpma_flush(f.conn, f.remote, REMOTE_SIZE + 1, 0, vis, ALWAYS, CTX),
			RPMA_E_INVAL);
	assert_int_equal(CALLS(ibv_post_send), 0);
	fx_down(&f);
}

/*
 * persistent: the region must allow it and the peer must have declared direct
 * write to PMem in the configuration applied last
 */
static void
test_flush__persistent_checks(void **state)
{
	(void) state;
	struct fx f;
	struct rpma_peer_cfg *pcfg = NULL;
	enum rpma_flush_type pers = RPMA_FLUSH_TYPE_PERSISTENT;

	assert_int_equal(rpma_peer_cfg_new(&pcfg), 0);
	fx_up(&f, NULL, RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT);
	/* no peer configuration applied */
	assert_int_equal(rpma_flush(f.conn, f.remote, 0, 8, pers, ALWAYS, CTX), RPMA_E_NOSUPP);
	/* the log says which of the two is missing */
	assert_non_null(strstr(mock_rec.log_last, "did not declare direct write to PMem"));
	assert_int_equal(rpma_conn_apply_remote_peer_cfg(f.conn, pcfg), 0);
	assert_int_equal(rpma_flush(f.conn, f.remote, 0, 8, pers, ALWAYS, CTX), RPMA_E_NOSUPP);
	assert_int_equal(CALLS(ibv_post_send), 0);
	assert_int_equal(rpma_peer_cfg_set_direct_write_to_pmem(pcfg, true), 0);
	assert_int_equal(rpma_conn_apply_remote_peer_cfg(f.conn, pcfg), 0);
	assert_int_equal(rpma_flush(f.conn, f.remote, 0, 8, pers, ALWAYS, CTX), 0);
	assert_int_equal(CALLS(ibv_post_send), 1);
	/* a region registered for visibility only */
	struct rpma_mr_remote *vis_only = fx_mr_remote(REMOTE_ADDR, REMOTE_SIZE, RKEY,
			RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY);
	assert_int_equal(rpma_flush(f.conn, vis_only, 0, 8, pers, ALWAYS, CTX), RPMA_E_NOSUPP);
	assert_non_null(strstr(mock_rec.log_last, "not registered for a persistent flush"));
	assert_int_equal(rpma_flush(f.conn, vis_only, 0, 8, RPMA_FLUSH_TYPE_VISIBILITY, ALWAYS,
			CTX), 0);
	assert_int_equal(CALLS(ibv_post_send), 2);
	/* a later configuration without direct write to PMem takes persistence back */
	assert_int_equal(rpma_peer_cfg_set_direct_write_to_pmem(pcfg, false), 0);
	assert_int_equal(rpma_conn_apply_remote_peer_cfg(f.conn, pcfg), 0);
	assert_int_equal(rpma_flush(f.conn, f.remote, 0, 8, pers, ALWAYS, CTX), RPMA_E_NOSUPP);
	assert_int_equal(CALLS(ibv_post_send), 2);
	/* visibility stays */
	assert_int_equal(rpma_flush(f.conn, f.remote, 0, 8, RPMA_FLUSH_TYPE_VISIBILITY, ALWAYS,
			CTX), 0);
	assert_int_equal(CALLS(ibv_post_send), 3);
	assert_int_equal(rpma_mr_remote_delete(&vis_only), 0);
	assert_int_equal(rpma_peer_cfg_delete(&pcfg), 0);
	fx_down(&f);
}

/* a region the peer may read is flushable for visibility (the flush reads it), not persistence */
static void
test_flush__read_src_only(void **state)
{
	(void) state;
	struct fx f;
	struct rpma_peer_cfg *pcfg = NULL;

	assert_int_equal(rpma_peer_cfg_new(&pcfg), 0);
	assert_int_equal(rpma_peer_cfg_set_direct_write_to_pmem(pcfg, true), 0);
	fx_up(&f, NULL, RPMA_MR_USAGE_READ_SRC);
	assert_int_equal(rpma_conn_apply_remote_peer_cfg(f.conn, pcfg), 0);
	assert_int_equal(rpma_flush(f.conn, f.remote, 8, 16, RPMA_FLUSH_TYPE_VISIBILITY, ALWAYS,
			CTX), 0);
	assert_int_equal(CALLS(ibv_post_send), 1);
	assert_int_equal(wr()->opcode, IBV_WR_RDMA_READ);
	assert_int_equal(wr()->wr.rdma.remote_addr, REMOTE_ADDR + 8);
	assert_int_equal(rpma_flush(f.conn, f.remote, 8, 16, RPMA_FLUSH_TYPE_PERSISTENT, ALWAYS,
			CTX), RPMA_E_NOSUPP);
	assert_int_equal(CALLS(ibv_post_send), 1);
	assert_int_equal(rpma_peer_cfg_delete(&pcfg), 0);
	fx_down(&f);
}

static void
test_flush__visibility_needs_flush_usage(void **state)
{
	(void) state;
	struct fx f;

	fx_up(&f, NULL, RPMA_MR_USAGE_WRITE_DST);
	assert_int_equal(rpma_flush(f.conn, f.remote, 0, 8, RPMA_FLUSH_TYPE_VISIBILITY, ALWAYS,
			CTX), RPMA_E_NOSUPP);
	assert_non_null(strstr(mock_rec.log_last, "not registered for a visibility flush"));
	assert_int_equal(CALLS(ibv_post_send), 0);
	fx_down(&f);
}

/* the flush is a one-byte RDMA read of the flushed range into the connection's byte */
static void
test_flush__posted(void **state)
{
	(void) state;
	struct fx f;

	fx_up(&f, NULL, RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY);
	assert_int_equal(rpma_flush(f.conn, f.remote, 64, 128, RPMA_FLUSH_TYPE_VISIBILITY, ALWAYS,
			CTX), 0);
	assert_int_equal(wr()->opcode, IBV_WR_RDMA_READ);
	assert_int_equal(wr()->wr_id, (uintptr_t)CTX);
	assert_int_equal(wr()->send_flags, IBV_SEND_SIGNALED);
	assert_int_equal(wr()->num_sge, 1);
	assert_int_equal(mock_rec.send_sge.lkey, 0x1000);	/* the flush's own buffer */
	assert_int_equal(mock_rec.send_sge.length, 1);
	assert_int_equal(wr()->wr.rdma.remote_addr, REMOTE_ADDR + 64);
	assert_int_equal(wr()->wr.rdma.rkey, RKEY);
	/* the last byte of the region */
	assert_int_equal(rpma_flush(f.conn, f.remote, REMOTE_SIZE - 1, 1,
			RPMA_FLUSH_TYPE_VISIBILITY, ON_ERROR, CTX), 0);
	assert_int_equal(wr()->wr.rdma.remote_addr, REMOTE_ADDR + REMOTE_SIZE - 1);
	assert_int_equal(wr()->send_flags, 0);
	/* an empty range at the end: the byte before it, inside the region */
	assert_int_equal(rpma_flush(f.conn, f.remote, REMOTE_SIZE, 0,
			RPMA_FLUSH_TYPE_VISIBILITY, ALWAYS, CTX), 0);
	assert_int_equal(wr()->wr.rdma.remote_addr, REMOTE_ADDR + REMOTE_SIZE - 1);
	assert_int_equal(mock_rec.send_sge.length, 1);
	MOCK_FAIL(ibv_post_send, EIO, 0);
	assert_int_equal(rpma_flush(f.conn, f.remote, 0, 8, RPMA_FLUSH_TYPE_VISIBILITY, ALWAYS,
			CTX), RPMA_E_PROVIDER);
	assert_int_equal(errno, EIO);
	fx_down(&f);
}

/* a connection whose peer declared direct write to PMem */
static void
fx_up_pmem(struct fx *f, int remote_usage)
{
	struct rpma_peer_cfg *pcfg = NULL;

	fx_up(f, NULL, remote_usage);
	assert_int_equal(rpma_peer_cfg_new(&pcfg), 0);
	assert_int_equal(rpma_peer_cfg_set_direct_write_to_pmem(pcfg, true), 0);
	assert_int_equal(rpma_conn_apply_remote_peer_cfg(f->conn, pcfg), 0);
	assert_int_equal(rpma_peer_cfg_delete(&pcfg), 0);
}

/* whether the last flush was posted as a native FLUSH of placement place */
static void
assert_native(uint8_t place, uint64_t addr, size_t len)
{
#ifdef HAVE_IBV_FLUSH
	assert_int_equal(CALLS(ibv_post_send), 0);
	assert_int_equal(CALLS(ibv_wr_complete), 1);
	assert_int_equal(mock_rec.flush.type, place);
	assert_int_equal(mock_rec.flush.level, 0);	/* IBV_FLUSH_RANGE */
	assert_int_equal(mock_rec.flush.addr, addr);
	assert_int_equal(mock_rec.flush.len, len);
	assert_int_equal(mock_rec.flush.rkey, RKEY);
#else
	/* a build without FLUSH: the read after the writes */
	(void) place;
	(void) len;
	assert_int_equal(CALLS(ibv_post_send), 1);
	assert_int_equal(wr()->opcode, IBV_WR_RDMA_READ);
	assert_int_equal(wr()->wr.rdma.remote_addr, addr);
#endif
	mock_calls_reset();
}

/* the last flush was posted as a read of one byte */
static void
assert_read(void)
{
	assert_int_equal(CALLS(ibv_post_send), 1);
	assert_int_equal(CALLS(ibv_wr_complete), 0);
	assert_int_equal(wr()->opcode, IBV_WR_RDMA_READ);
	assert_int_equal(mock_rec.send_sge.length, 1);
	mock_calls_reset();
}

/* the device serves FLUSH: global placement for visibility, persistent for persistence */
static void
test_flush__native(void **state)
{
	(void) state;
	struct fx f;

	mock_device_set_caps_ex(DEVICE_CAP_FLUSH);
	fx_up_pmem(&f, RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY | RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT);
	assert_int_equal(rpma_flush(f.conn, f.remote, 64, 128, VIS, ALWAYS, CTX), 0);
	assert_native(PLACE_GLOBAL, REMOTE_ADDR + 64, 128);
#ifdef HAVE_IBV_FLUSH
	assert_int_equal(mock_rec.flush.wr_id, (uintptr_t)CTX);
	assert_int_equal(mock_rec.flush.flags, IBV_SEND_SIGNALED);
#endif
	assert_int_equal(rpma_flush(f.conn, f.remote, 0, REMOTE_SIZE, PERS, ON_ERROR, CTX), 0);
	assert_native(PLACE_PERSISTENT, REMOTE_ADDR, REMOTE_SIZE);
#ifdef HAVE_IBV_FLUSH
	assert_int_equal(mock_rec.flush.flags, 0);
	/* an empty range is flushed as one */
	assert_int_equal(rpma_flush(f.conn, f.remote, REMOTE_SIZE, 0, VIS, ALWAYS, CTX), 0);
	assert_native(PLACE_GLOBAL, REMOTE_ADDR + REMOTE_SIZE, 0);
	assert_int_equal(rpma_flush(f.conn, f.remote, REMOTE_SIZE - 4, 8, VIS, ALWAYS, CTX),
			RPMA_E_INVAL);
	assert_int_equal(CALLS(ibv_wr_complete), 0);
	MOCK_FAIL(ibv_wr_complete, EIO, 0);
	assert_int_equal(rpma_flush(f.conn, f.remote, 0, 8, VIS, ALWAYS, CTX), RPMA_E_PROVIDER);
	assert_int_equal(errno, EIO);
#endif
	fx_down(&f);
}

/* a region the client may read is flushed by a read, native FLUSH or not */
static void
test_flush__native_readable_region(void **state)
{
	(void) state;
	struct fx f;

	mock_device_set_caps_ex(DEVICE_CAP_FLUSH);
	fx_up_pmem(&f, RPMA_MR_USAGE_READ_SRC | RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT);
	assert_int_equal(rpma_flush(f.conn, f.remote, 0, 8, VIS, ALWAYS, CTX), 0);
	assert_read();
	assert_int_equal(rpma_flush(f.conn, f.remote, 0, 8, PERS, ALWAYS, CTX), 0);
	assert_read();
	fx_down(&f);
}

/* a visibility flush of a persistent-only region is persistent (librpma 1.3's rights) */
static void
test_flush__native_persistent_only(void **state)
{
	(void) state;
	struct fx f;

	mock_device_set_caps_ex(DEVICE_CAP_FLUSH);
	fx_up(&f, NULL, RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT);
	assert_int_equal(rpma_flush(f.conn, f.remote, 8, 8, VIS, ALWAYS, CTX), 0);
	assert_native(PLACE_PERSISTENT, REMOTE_ADDR + 8, 8);
	fx_down(&f);
}

/* a placement the device does not post is flushed by a read */
static void
test_flush__device_global_only(void **state)
{
	(void) state;
	struct fx f;

	mock_device_set_caps_ex(DEVICE_CAP_FLUSH_GLOBAL);
	fx_up_pmem(&f, RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY | RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT);
	assert_int_equal(rpma_flush(f.conn, f.remote, 0, 8, VIS, ALWAYS, CTX), 0);
	assert_native(PLACE_GLOBAL, REMOTE_ADDR, 8);
	assert_int_equal(rpma_flush(f.conn, f.remote, 0, 8, PERS, ALWAYS, CTX), 0);
	assert_read();
	fx_down(&f);
}

/* native ATOMIC WRITE and FLUSH share one extended QP, asked for once */
static void
test_conn_new__one_qp_ex(void **state)
{
	(void) state;
	mock_device_set_caps_ex(DEVICE_CAP_ATOMIC_WRITE | DEVICE_CAP_FLUSH);
	struct rpma_peer *peer = fx_peer();

	mock_calls_reset();
	struct rpma_conn *conn = fx_conn(peer, NULL);
#if defined(HAVE_IBV_ATOMIC_WRITE) || defined(HAVE_IBV_FLUSH)
	assert_int_equal(CALLS(ibv_qp_to_qp_ex), 1);
#else
	assert_int_equal(CALLS(ibv_qp_to_qp_ex), 0);
#endif
	assert_int_equal(rpma_conn_delete(&conn), 0);
	assert_int_equal(rpma_peer_delete(&peer), 0);
}

/* without the extended QP, every flush is a read */
static void
test_flush__no_qp_ex(void **state)
{
	(void) state;
	struct fx f;

	mock_device_set_caps_ex(DEVICE_CAP_FLUSH);
#ifdef HAVE_IBV_FLUSH
	MOCK_FAIL(ibv_qp_to_qp_ex, 0, EOPNOTSUPP);
#endif
	fx_up(&f, NULL, RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY);
	assert_int_equal(rpma_flush(f.conn, f.remote, 0, 8, VIS, ALWAYS, CTX), 0);
	assert_read();
	fx_down(&f);
}

/* a one-byte region: its byte, whatever the (valid) range */
static void
test_flush__tiny_region(void **state)
{
	(void) state;
	struct fx f;

	fx_up(&f, NULL, RPMA_MR_USAGE_READ_SRC);
	struct rpma_mr_remote *tiny = fx_mr_remote(REMOTE_ADDR, 1, RKEY,
			RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY);
	assert_int_equal(rpma_flush(f.conn, tiny, 1, 0, RPMA_FLUSH_TYPE_VISIBILITY, ALWAYS, CTX),
			0);
	assert_int_equal(mock_rec.send_sge.length, 1);
	assert_int_equal(wr()->wr.rdma.remote_addr, REMOTE_ADDR);
	assert_int_equal(rpma_flush(f.conn, tiny, 0, 2, RPMA_FLUSH_TYPE_VISIBILITY, ALWAYS, CTX),
			RPMA_E_INVAL);
	assert_int_equal(rpma_mr_remote_delete(&tiny), 0);
	fx_down(&f);
}

static void
test_send__invalid(void **state)
{
	(void) state;
	struct fx f;

	fx_up(&f, NULL, RPMA_MR_USAGE_READ_SRC);
	assert_int_equal(rpma_send(NULL, f.local, 0, 8, ALWAYS, CTX), RPMA_E_INVAL);
	assert_int_equal(rpma_send(f.conn, f.local, 0, 8, 0, CTX), RPMA_E_INVAL);
	assert_int_equal(rpma_send(f.conn, NULL, 0, 8, ALWAYS, CTX), RPMA_E_INVAL);
	assert_int_equal(rpma_send(f.conn, NULL, 8, 0, ALWAYS, CTX), RPMA_E_INVAL);
	assert_int_equal(rpma_send(f.conn, f.local, LOCAL_SIZE - 4, 8, ALWAYS, CTX),
			RPMA_E_INVAL);
	assert_int_equal(rpma_send_with_imm(NULL, f.local, 0, 8, ALWAYS, 1, CTX), RPMA_E_INVAL);
	assert_int_equal(rpma_send_with_imm(f.conn, f.local, 0, 8, 0, 1, CTX), RPMA_E_INVAL);
	assert_int_equal(rpma_send_with_imm(f.conn, NULL, 0, 1, ALWAYS, 1, CTX), RPMA_E_INVAL);
	assert_int_equal(rpma_send_with_imm(f.conn, f.local, LOCAL_SIZE, 1, ALWAYS, 1, CTX),
			RPMA_E_INVAL);
	assert_int_equal(CALLS(ibv_post_send), 0);
	fx_down(&f);
}

static void
test_send__posted(void **state)
{
	(void) state;
	struct fx f;

	fx_up(&f, NULL, RPMA_MR_USAGE_READ_SRC);
	assert_int_equal(rpma_send(f.conn, f.local, 4, 12, ALWAYS, CTX), 0);
	assert_int_equal(wr()->opcode, IBV_WR_SEND);
	assert_int_equal(wr()->wr_id, (uintptr_t)CTX);
	assert_int_equal(wr()->send_flags, IBV_SEND_SIGNALED);
	assert_int_equal(mock_rec.send_sge.addr, (uintptr_t)(buf + 4));
	assert_int_equal(mock_rec.send_sge.length, 12);
	assert_int_equal(mock_rec.send_sge.lkey, 0x1001);
	/* imm_data is not set: providers read it for the _WITH_IMM opcodes only */
	assert_int_equal(rpma_send_with_imm(f.conn, f.local, 0, 4, ON_ERROR, 0xdeadbeef, CTX), 0);
	assert_int_equal(wr()->opcode, IBV_WR_SEND_WITH_IMM);
	assert_int_equal(wr()->imm_data, htonl(0xdeadbeef));
	assert_int_equal(wr()->send_flags, 0);
	/* a message without payload */
	assert_int_equal(rpma_send(f.conn, NULL, 0, 0, ALWAYS, CTX), 0);
	assert_int_equal(wr()->num_sge, 0);
	assert_int_equal(wr()->opcode, IBV_WR_SEND);
	assert_int_equal(wr()->imm_data, 0);
	/* only an immediate value */
	assert_int_equal(rpma_send_with_imm(f.conn, NULL, 0, 0, ALWAYS, 0x01020304, CTX), 0);
	assert_int_equal(wr()->num_sge, 0);
	assert_int_equal(wr()->opcode, IBV_WR_SEND_WITH_IMM);
	assert_int_equal(wr()->imm_data, htonl(0x01020304));
	assert_int_equal(wr()->send_flags, IBV_SEND_SIGNALED);
	MOCK_FAIL(ibv_post_send, ENOMEM, 0);
	assert_int_equal(rpma_send(f.conn, f.local, 0, 4, ALWAYS, CTX), RPMA_E_PROVIDER);
	assert_int_equal(errno, ENOMEM);
	fx_down(&f);
}

static void
test_recv__all(void **state)
{
	(void) state;
	struct fx f;
	struct ibv_qp *qp;

	fx_up(&f, NULL, RPMA_MR_USAGE_READ_SRC);
	assert_int_equal(rpma_recv(NULL, f.local, 0, 8, CTX), RPMA_E_INVAL);
	assert_int_equal(rpma_recv(f.conn, NULL, 0, 8, CTX), RPMA_E_INVAL);
	assert_int_equal(rpma_recv(f.conn, f.local, LOCAL_SIZE, 1, CTX), RPMA_E_INVAL);
	assert_int_equal(CALLS(ibv_post_recv), 0);

	assert_int_equal(rpma_recv(f.conn, f.local, 32, 16, CTX), 0);
	qp = mock_rec.recv_target;
	assert_int_equal(qp->qp_num, 0x123);
	assert_int_equal(mock_rec.recv_wr.wr_id, (uintptr_t)CTX);
	assert_int_equal(mock_rec.recv_wr.num_sge, 1);
	assert_int_equal(mock_rec.recv_sge.addr, (uintptr_t)(buf + 32));
	assert_int_equal(mock_rec.recv_sge.length, 16);
	assert_int_equal(mock_rec.recv_sge.lkey, 0x1001);
	assert_int_equal(rpma_recv(f.conn, NULL, 0, 0, CTX), 0);
	assert_int_equal(mock_rec.recv_wr.num_sge, 0);
	MOCK_FAIL(ibv_post_recv, ENOMEM, 0);
	assert_int_equal(rpma_recv(f.conn, f.local, 0, 8, CTX), RPMA_E_PROVIDER);
	assert_int_equal(errno, ENOMEM);
	assert_int_equal(CALLS(ibv_post_send), 0);
	fx_down(&f);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		TEST(test_conn_delete__invalid),
		TEST(test_conn_delete__success),
		TEST(test_conn_new__flush_byte_shared),
		TEST(test_conn_new__one_qp_ex),
		TEST(test_conn_delete__destroy_id_fails),
		TEST(test_conn_delete__destroy_cq_fails),
		TEST(test_conn_getters__invalid),
		TEST(test_conn_getters__success),
		TEST(test_conn_disconnect__fails),
		TEST(test_conn_next_event__invalid),
		TEST(test_conn_next_event__mapping),
		TEST(test_conn_next_event__closed_before_established),
		TEST(test_conn_next_event__handshake_in_order),
		TEST(test_conn_next_event__closed_early_disconnect_fails),
		TEST(test_conn_next_event__unexpected),
		TEST(test_conn_next_event__no_event),
		TEST(test_conn_next_event__ack_fails),
		TEST(test_conn_next_event__private_data),
		TEST(test_conn_next_event__private_data_once),
		TEST(test_conn_next_event__private_data_nomem),
		TEST(test_conn_wait__invalid),
		TEST(test_conn_wait__kept),
		TEST(test_conn_wait__cq_and_rcq),
		TEST(test_conn_wait__unknown_cq),
		TEST(test_conn_wait__req_notify_fails),
		TEST(test_conn_wait__get_event_fails),
		TEST(test_read__invalid),
		TEST(test_read__out_of_range),
		TEST(test_read__posted),
		TEST(test_read__empty),
		TEST(test_read__post_fails),
		TEST(test_read__post_fails_negated),
		TEST(test_write__invalid),
		TEST(test_write__posted),
		TEST(test_rdma__large_offsets),
		TEST(test_write_with_imm__posted),
		TEST(test_atomic_write__invalid),
		TEST(test_atomic_write__fallback),
		TEST(test_atomic_write__native),
		TEST(test_flush__invalid),
		TEST(test_flush__persistent_checks),
		TEST(test_flush__read_src_only),
		TEST(test_flush__visibility_needs_flush_usage),
		TEST(test_flush__posted),
		TEST(test_flush__native),
		TEST(test_flush__native_readable_region),
		TEST(test_flush__native_persistent_only),
		TEST(test_flush__device_global_only),
		TEST(test_flush__no_qp_ex),
		TEST(test_flush__tiny_region),
		TEST(test_send__invalid),
		TEST(test_send__posted),
		TEST(test_recv__all),
	};
	return RUN(tests);
}
