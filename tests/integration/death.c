// SPDX-License-Identifier: BSD-3-Clause
/*
 * death.c -- a peer killed (SIGKILL) with operations in flight: the
 * survivor learns it from a connection event or error completions within
 * a time limit, never hangs, and releases everything afterwards.
 */

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>

#include "common.h"
#include "tests.h"

#define KIB ((size_t)1024)
#define REGION (1024 * KIB)
#define OP_SIZE (64 * KIB)
#define QD 16
#define RECVS 8
#define MSG 64

/* what the survivor noticed first */
struct outcome {
	bool event;			/* a connection event came */
	enum rpma_conn_event ev;
	bool error_wc;			/* an error completion came */
	enum ibv_wc_status status;
	bool refused;			/* a post failed at the call */
	int completions;		/* completions taken so far */
};

/* whether the peer's death showed */
static bool
noticed(const struct outcome *o)
{
	return o->event || o->error_wc || o->refused;
}

/*
 * soft-iWARP of Linux 7.3.4 may refuse a post at the call once the peer's
 * death has taken the QP out of RTS and before any completion or event
 * says so (siw_post_send() fails outside RTS and ERROR): on iWARP that is
 * a way the death shows. Any other device, and any other error, fails.
 */
static void
post_refused(struct outcome *o, int ret)
{
	CHECK(ret == RPMA_E_PROVIDER && test_iwarp(), "a post failed: %s", rpma_err_2str(ret));
	o->refused = true;
	note("peer death noticed: a post refused at the call (%s)", strerror(errno));
}

/*
 * Take the completions that are there; when there are none, wait on the
 * connection's event fd and the CQ's fd together, at most timeout_ms.
 */
static void
progress(struct rpma_conn *conn, struct rpma_cq *cq, struct outcome *o, int timeout_ms)
{
	int efd, cfd, ret;
	struct ibv_wc wc;

	CHECK_RET(rpma_conn_get_event_fd(conn, &efd));
	CHECK_RET(rpma_cq_get_fd(cq, &cfd));
	fd_set_nonblock(cfd, true);

	int before = o->completions;
	while ((ret = rpma_cq_get_wc(cq, 1, &wc, NULL)) == 0) {
		o->completions++;
		if (wc.status != IBV_WC_SUCCESS && !o->error_wc) {
			o->error_wc = true;
			o->status = wc.status;
			note("peer death noticed: error completion %s", ibv_wc_status_str(wc.status));
		}
	}
	CHECK(ret == RPMA_E_NO_COMPLETION, "rpma_cq_get_wc(): %s", rpma_err_2str(ret));
	if (o->completions > before || noticed(o))
		return;

	struct pollfd pfd[2] = {{.fd = efd, .events = POLLIN}, {.fd = cfd, .events = POLLIN}};
	int n = poll(pfd, 2, timeout_ms);
	CHECK(n > 0, "nothing happened for %d ms: the peer's death went unnoticed", timeout_ms);
	if (pfd[1].revents) {
		ret = rpma_cq_wait(cq);
		CHECK(ret == 0 || ret == RPMA_E_NO_COMPLETION, "rpma_cq_wait(): %s",
				rpma_err_2str(ret));
	}
	if (pfd[0].revents) {
		CHECK_RET(rpma_conn_next_event(conn, &o->ev));
		CHECK(o->ev == RPMA_CONN_CLOSED || o->ev == RPMA_CONN_LOST, "connection event %s",
				rpma_utils_conn_event_2str(o->ev));
		o->event = true;
		note("peer death noticed: connection event %s", rpma_utils_conn_event_2str(o->ev));
	}
}

/* after rpma_conn_disconnect() every operation still in flight comes back */
static void
drain(struct rpma_cq *cq, int inflight)
{
	int errors = 0;
	for (int i = 0; i < inflight; i++) {
		struct ibv_wc wc;
		CHECK(cq_next_wc(cq, WAIT_MS, &wc), "%d of %d operations in flight never came back",
				inflight - i, inflight);
		if (wc.status != IBV_WC_SUCCESS)
			errors++;
	}
	cq_expect_empty(cq);
	note("all %d operations in flight came back, %d with an error status", inflight, errors);
}

/*
 * soft-iWARP (Linux 6.12) may complete the operations in flight at the
 * peer's death not at all: its QP goes from CLOSING to ERROR flushing the
 * send queue only while a work request is in progress (siw_qp.c,
 * siw_qp_nextstate_from_close()); and once one more than were in flight
 * came back. So on iWARP what comes back within a while is taken, and the
 * connection must still be deleted at once (tests.def, IWARP).
 */
#define DRAIN_SOME_MS 2000

static void
drain_some(struct rpma_cq *cq, int inflight)
{
	int back = 0;
	struct ibv_wc wc;

	while (cq_next_wc(cq, DRAIN_SOME_MS, &wc))
		back++;
	note("iWARP: %d of the %d operations in flight came back", back, inflight);
}

/* a client killed mid-transfer */

void
client_killed_server(void)
{
	struct rpma_peer *peer = peer_open();
	char *buf = buf_new(REGION);
	char *msgs = buf_new(RECVS * MSG);
	struct rpma_mr_local *mr, *msg_mr;
	CHECK_RET(rpma_mr_reg(peer, buf, REGION, RPMA_MR_USAGE_WRITE_DST, &mr));
	CHECK_RET(rpma_mr_reg(peer, msgs, RECVS * MSG, RPMA_MR_USAGE_RECV, &msg_mr));
	struct rpma_ep *ep = ep_open(peer);
	struct rpma_conn_req *req = ep_next_req(ep, NULL);
	/* receives in flight on this side, which the client's death must not strand */
	for (uintptr_t i = 0; i < RECVS; i++)
		CHECK_RET(rpma_conn_req_recv(req, msg_mr, i * MSG, MSG, (void *)(i + 1)));
	struct server_desc sd;
	struct rpma_conn_private_data pd;
	server_desc_make(&sd, mr, NULL, &pd);
	struct rpma_conn *conn = server_accept(&req, &pd);
	struct rpma_cq *cq;
	CHECK_RET(rpma_conn_get_cq(conn, &cq));

	struct outcome o = {.event = false};
	while (!noticed(&o))
		progress(conn, cq, &o, WAIT_MS);
	CHECK(o.completions == 0 || o.error_wc, "a receive completed though the client sent nothing");
	CHECK_RET(rpma_conn_disconnect(conn));
	drain(cq, RECVS - o.completions);
	CHECK_RET(rpma_conn_delete(&conn));

	CHECK_RET(rpma_ep_shutdown(&ep));
	CHECK_RET(rpma_mr_dereg(&msg_mr));
	CHECK_RET(rpma_mr_dereg(&mr));
	free(msgs);
	free(buf);
	CHECK_RET(rpma_peer_delete(&peer));
}

void
client_killed_client(void)
{
	struct rpma_peer *peer = peer_open();
	struct rpma_conn_cfg *cfg;
	CHECK_RET(rpma_conn_cfg_new(&cfg));
	CHECK_RET(rpma_conn_cfg_set_sq_size(cfg, 2 * QD));
	CHECK_RET(rpma_conn_cfg_set_cq_size(cfg, 2 * QD));
	struct rpma_conn *conn = client_connect(peer, cfg, NULL);
	struct rpma_mr_remote *dst = server_desc_take(conn, NULL);
	struct rpma_cq *cq;
	CHECK_RET(rpma_conn_get_cq(conn, &cq));
	char *buf = buf_new(REGION);
	struct rpma_mr_local *src;
	CHECK_RET(rpma_mr_reg(peer, buf, REGION, RPMA_MR_USAGE_WRITE_SRC, &src));

	/* keep QD writes in flight; die without warning after 2 * QD completed */
	size_t posted = 0, done = 0;
	for (;;) {
		while (posted - done < QD) {
			size_t off = (posted * OP_SIZE) % REGION;
			CHECK_RET(rpma_write(conn, dst, off, src, off, OP_SIZE,
					RPMA_F_COMPLETION_ALWAYS, NULL));
			posted++;
		}
		if (done == 2 * QD) {
			note("%zu writes done, %zu in flight: SIGKILL", done, posted - done);
			raise(SIGKILL);
		}
		cq_expect(cq, IBV_WC_RDMA_WRITE, NULL, NULL);
		done++;
	}
}

/* the server killed while the client has all kinds of operations in flight */

void
server_killed_server(void)
{
	struct rpma_peer *peer = peer_open();
	char *buf = buf_new(REGION);
	char *msgs = buf_new(RECVS * MSG);
	struct rpma_mr_local *mr, *msg_mr;
	CHECK_RET(rpma_mr_reg(peer, buf, REGION, RPMA_MR_USAGE_WRITE_DST |
			RPMA_MR_USAGE_READ_SRC | RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY, &mr));
	CHECK_RET(rpma_mr_reg(peer, msgs, RECVS * MSG, RPMA_MR_USAGE_RECV, &msg_mr));
	struct rpma_ep *ep = ep_open(peer);
	struct rpma_conn_req *req = ep_next_req(ep, NULL);
	for (uintptr_t i = 0; i < RECVS; i++)
		CHECK_RET(rpma_conn_req_recv(req, msg_mr, i * MSG, MSG, (void *)(i + 1)));
	struct server_desc sd;
	struct rpma_conn_private_data pd;
	server_desc_make(&sd, mr, NULL, &pd);
	struct rpma_conn *conn = server_accept(&req, &pd);
	struct rpma_cq *cq;
	CHECK_RET(rpma_conn_get_cq(conn, &cq));

	/* the client's first message says its operations are flowing */
	cq_expect(cq, IBV_WC_RECV, (void *)1, NULL);
	note("the client is busy: SIGKILL");
	raise(SIGKILL);
}

/* post operation number n of the mix: write, read, flush, send */
static int
post_mixed(struct rpma_conn *conn, size_t n, struct rpma_mr_remote *dst,
		struct rpma_mr_local *local)
{
	size_t off = (n * OP_SIZE) % REGION;
	const int F = RPMA_F_COMPLETION_ALWAYS;
	void *ctx = (void *)(n + 1);

	switch (n % 4) {
	case 0:
		return rpma_write(conn, dst, off, local, off, OP_SIZE, F, ctx);
	case 1:
		return rpma_read(conn, local, off, dst, off, OP_SIZE, F, ctx);
	case 2:
		return rpma_flush(conn, dst, off, OP_SIZE, RPMA_FLUSH_TYPE_VISIBILITY, F, ctx);
	default:
		return rpma_send(conn, local, 0, MSG, F, ctx);
	}
}

void
server_killed_client(void)
{
	struct rpma_peer *peer = peer_open();
	struct rpma_conn_cfg *cfg;
	CHECK_RET(rpma_conn_cfg_new(&cfg));
	CHECK_RET(rpma_conn_cfg_set_sq_size(cfg, 2 * QD));
	CHECK_RET(rpma_conn_cfg_set_cq_size(cfg, 2 * QD));
	struct rpma_conn *conn = client_connect(peer, cfg, NULL);
	struct rpma_mr_remote *dst = server_desc_take(conn, NULL);
	struct rpma_cq *cq;
	CHECK_RET(rpma_conn_get_cq(conn, &cq));
	char *buf = buf_new(REGION);
	struct rpma_mr_local *local;
	CHECK_RET(rpma_mr_reg(peer, buf, REGION, RPMA_MR_USAGE_WRITE_SRC |
			RPMA_MR_USAGE_READ_DST | RPMA_MR_USAGE_SEND, &local));

	/*
	 * Keep QD operations of every kind in flight until the server's death
	 * shows. The sends (one in four) meet the server's RECVS receives; past
	 * those they wait for receiver-not-ready retries, which is in flight too.
	 */
	struct outcome o = {.event = false};
	size_t posted = 0;
	while (!noticed(&o)) {
		if (posted - (size_t)o.completions == QD) {
			progress(conn, cq, &o, WAIT_MS);
			continue;
		}
		/* a send first: it tells the server to die */
		int ret = post_mixed(conn, 3 + posted, dst, local);
		if (ret)
			post_refused(&o, ret);
		else
			posted++;
	}
	int inflight = (int)posted - o.completions;
	note("%zu operations posted, %d completed, %d in flight", posted, o.completions, inflight);

	/* whatever is in flight comes back once the QP goes down */
	CHECK_RET(rpma_conn_disconnect(conn));
	if (test_iwarp())
		drain_some(cq, inflight);
	else
		drain(cq, inflight);
	CHECK_RET(rpma_conn_delete(&conn));

	CHECK_RET(rpma_mr_dereg(&local));
	free(buf);
	CHECK_RET(rpma_mr_remote_delete(&dst));
	CHECK_RET(rpma_conn_cfg_delete(&cfg));
	CHECK_RET(rpma_peer_delete(&peer));
}
