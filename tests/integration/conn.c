// SPDX-License-Identifier: BSD-3-Clause
/*
 * conn.c -- connection life cycles: several clients on one endpoint at once
 * (epoll), a rejected request, RPMA_CONN_CLOSED when the client leaves, a
 * port where nobody listens and an address that does not answer.
 */

#include <errno.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "tests.h"

/* several clients at once: one epoll for the endpoint and every connection */

#define MC_CLIENTS 4
#define MC_SLICE 4096
#define MC_EP_TAG 0xffffu
#define MC_SEED(i) (7000u + (uint32_t)(i))
#define MC_MAGIC 'M'
#define MC_GO_LEN 8

struct mc_server {
	struct rpma_ep *ep;
	struct rpma_mr_local *go_mr;	/* the message that lets the clients write */
	struct rpma_conn *conn[MC_CLIENTS];	/* by the client's index */
	struct server_desc sd;
	struct rpma_conn_private_data pd;
	int epfd;
	int established, closed;
	char *buf;
};

static void
mc_epoll_add(int epfd, int fd, uint32_t tag)
{
	struct epoll_event ev = {.events = EPOLLIN, .data.u32 = tag};
	CHECK(epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) == 0, "epoll_ctl(ADD): %s",
			strerror(errno));
}

/* a request: the client names its slice in its private data */
static void
mc_on_request(struct mc_server *s)
{
	struct rpma_conn_req *req;
	struct rpma_conn_private_data pd;

	CHECK_RET(rpma_ep_next_conn_req(s->ep, NULL, &req));
	CHECK_RET(rpma_conn_req_get_private_data(req, &pd));
	const uint8_t *p = pd.ptr;
	CHECK(pd.len >= 2 && p[0] == MC_MAGIC && p[1] < MC_CLIENTS, "bad private data");
	int i = p[1];
	CHECK(s->conn[i] == NULL, "client %d connected twice", i);
	CHECK_RET(rpma_conn_req_connect(&req, &s->pd, &s->conn[i]));
	int fd;
	CHECK_RET(rpma_conn_get_event_fd(s->conn[i], &fd));
	mc_epoll_add(s->epfd, fd, (uint32_t)i);
}

/* every client is connected at once: let them write */
static void
mc_go(struct mc_server *s)
{
	CHECK(s->closed == 0, "a client left before all were connected");
	for (int i = 0; i < MC_CLIENTS; i++)
		CHECK_RET(rpma_send(s->conn[i], s->go_mr, 0, MC_GO_LEN, RPMA_F_COMPLETION_ALWAYS,
				(void *)0x91));
	for (int i = 0; i < MC_CLIENTS; i++) {
		struct rpma_cq *cq;
		CHECK_RET(rpma_conn_get_cq(s->conn[i], &cq));
		cq_expect(cq, IBV_WC_SEND, (void *)0x91, NULL);
	}
	note("%d clients connected at once: go", MC_CLIENTS);
}

static void
mc_on_event(struct mc_server *s, int i)
{
	CHECK(i >= 0 && i < MC_CLIENTS && s->conn[i] != NULL, "event for no connection");
	enum rpma_conn_event event;
	CHECK_RET(rpma_conn_next_event(s->conn[i], &event));
	if (event == RPMA_CONN_ESTABLISHED) {
		s->established++;
		note("client %d established (%d up)", i, s->established - s->closed);
		if (s->established == MC_CLIENTS)
			mc_go(s);
		return;
	}
	CHECK(event == RPMA_CONN_CLOSED, "client %d: event %s", i,
			rpma_utils_conn_event_2str(event));
	/* the client wrote and flushed its slice before it disconnected */
	size_t bad = pattern_check(s->buf + (size_t)i * MC_SLICE, MC_SLICE, MC_SEED(i), 0);
	CHECK(bad == SIZE_MAX, "slice of client %d differs at byte %zu", i, bad);
	int fd;
	CHECK_RET(rpma_conn_get_event_fd(s->conn[i], &fd));
	CHECK(epoll_ctl(s->epfd, EPOLL_CTL_DEL, fd, NULL) == 0, "epoll_ctl(DEL): %s",
			strerror(errno));
	CHECK_RET(rpma_conn_disconnect(s->conn[i]));
	CHECK_RET(rpma_conn_delete(&s->conn[i]));
	s->closed++;
}

void
multi_clients_server(void)
{
	struct rpma_peer *peer = peer_open();
	struct mc_server s = {.established = 0};
	s.buf = buf_new(MC_CLIENTS * MC_SLICE);
	struct rpma_mr_local *mr;
	CHECK_RET(rpma_mr_reg(peer, s.buf, MC_CLIENTS * MC_SLICE, RPMA_MR_USAGE_WRITE_DST |
			RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY, &mr));
	server_desc_make(&s.sd, mr, NULL, &s.pd);
	char go[MC_GO_LEN] = "go!";
	CHECK_RET(rpma_mr_reg(peer, go, MC_GO_LEN, RPMA_MR_USAGE_SEND, &s.go_mr));
	s.epfd = epoll_create1(EPOLL_CLOEXEC);
	CHECK(s.epfd >= 0, "epoll_create1(): %s", strerror(errno));
	s.ep = ep_open(peer);
	int ep_fd;
	CHECK_RET(rpma_ep_get_fd(s.ep, &ep_fd));
	mc_epoll_add(s.epfd, ep_fd, MC_EP_TAG);

	while (s.closed < MC_CLIENTS) {
		struct epoll_event ev[MC_CLIENTS + 1];
		int n = epoll_wait(s.epfd, ev, MC_CLIENTS + 1, WAIT_MS);
		CHECK(n > 0 || (n < 0 && errno == EINTR), "epoll_wait(): %s",
				n == 0 ? "nothing within the time limit" : strerror(errno));
		for (int k = 0; k < n; k++) {
			if (ev[k].data.u32 == MC_EP_TAG)
				mc_on_request(&s);
			else
				mc_on_event(&s, (int)ev[k].data.u32);
		}
	}
	CHECK(s.established == MC_CLIENTS, "%d connections established", s.established);
	note("%d clients served at once, every slice compared", MC_CLIENTS);

	CHECK(close(s.epfd) == 0, "close(epfd): %s", strerror(errno));
	CHECK_RET(rpma_ep_shutdown(&s.ep));
	CHECK_RET(rpma_mr_dereg(&s.go_mr));
	CHECK_RET(rpma_mr_dereg(&mr));
	free(s.buf);
	CHECK_RET(rpma_peer_delete(&peer));
}

void
multi_clients_client(void)
{
	int i = integ_client_index;
	CHECK(i >= 0 && i < MC_CLIENTS, "client index %d out of 0..%d", i, MC_CLIENTS - 1);
	struct rpma_peer *peer = peer_open();
	/* zeroed: valgrind cannot see the NIC fill it, and an empty one fails the check */
	char go[MC_GO_LEN] = {0};
	struct rpma_mr_local *go_mr;
	CHECK_RET(rpma_mr_reg(peer, go, MC_GO_LEN, RPMA_MR_USAGE_RECV, &go_mr));
	uint8_t hello[2] = {MC_MAGIC, (uint8_t)i};
	struct rpma_conn_private_data pd = {hello, sizeof(hello)};
	struct rpma_conn_req *req;
	struct rpma_conn *conn;
	CHECK_RET(rpma_conn_req_new(peer, test_ip(), test_port(), NULL, &req));
	CHECK_RET(rpma_conn_req_recv(req, go_mr, 0, MC_GO_LEN, (void *)0x92));
	CHECK_RET(rpma_conn_req_connect(&req, &pd, &conn));
	conn_expect_event(conn, RPMA_CONN_ESTABLISHED);
	struct rpma_mr_remote *dst = server_desc_take(conn, NULL);
	struct rpma_cq *cq;
	CHECK_RET(rpma_conn_get_cq(conn, &cq));
	/* the server says go once all the clients are connected */
	struct ibv_wc wc;
	cq_expect(cq, IBV_WC_RECV, (void *)0x92, &wc);
	CHECK(wc.byte_len == MC_GO_LEN && strcmp(go, "go!") == 0, "not the go message");

	char *buf = buf_new(MC_SLICE);
	pattern_fill(buf, MC_SLICE, MC_SEED(i), 0);
	struct rpma_mr_local *src;
	CHECK_RET(rpma_mr_reg(peer, buf, MC_SLICE, RPMA_MR_USAGE_WRITE_SRC, &src));
	size_t off = (size_t)i * MC_SLICE;
	CHECK_RET(rpma_write(conn, dst, off, src, 0, MC_SLICE, RPMA_F_COMPLETION_ON_ERROR, NULL));
	CHECK_RET(rpma_flush(conn, dst, off, MC_SLICE, RPMA_FLUSH_TYPE_VISIBILITY,
			RPMA_F_COMPLETION_ALWAYS, (void *)0x90));
	cq_expect(cq, OPCODE_ANY, (void *)0x90, NULL);

	conn_close_active(&conn);
	CHECK_RET(rpma_mr_dereg(&src));
	free(buf);
	CHECK_RET(rpma_mr_dereg(&go_mr));
	CHECK_RET(rpma_mr_remote_delete(&dst));
	CHECK_RET(rpma_peer_delete(&peer));
}

/* a rejected connection request */

static const char reject_hello[] = "please reject me";

void
reject_server(void)
{
	struct rpma_peer *peer = peer_open();
	struct rpma_ep *ep = ep_open(peer);
	struct rpma_conn_req *req = ep_next_req(ep, NULL);
	struct rpma_conn_private_data pd;
	CHECK_RET(rpma_conn_req_get_private_data(req, &pd));
	CHECK(pd.len >= sizeof(reject_hello) && memcmp(pd.ptr, reject_hello,
			sizeof(reject_hello)) == 0, "not the request of this test");
	CHECK_RET(rpma_conn_req_delete(&req));
	CHECK(req == NULL, "rpma_conn_req_delete() left the handle set");
	note("request rejected");
	CHECK_RET(rpma_ep_shutdown(&ep));
	CHECK_RET(rpma_peer_delete(&peer));
}

void
reject_client(void)
{
	struct rpma_peer *peer = peer_open();
	struct rpma_conn_req *req;
	struct rpma_conn *conn;
	CHECK_RET(rpma_conn_req_new(peer, test_ip(), test_port(), NULL, &req));
	struct rpma_conn_private_data pd = {(void *)reject_hello, sizeof(reject_hello)};
	CHECK_RET(rpma_conn_req_connect(&req, &pd, &conn));
	conn_expect_event(conn, RPMA_CONN_REJECTED);
	note("got RPMA_CONN_REJECTED");
	CHECK_RET(rpma_conn_delete(&conn));
	CHECK_RET(rpma_peer_delete(&peer));
}

/* the server sees RPMA_CONN_CLOSED when the client disconnects and exits */

void
closed_server(void)
{
	struct rpma_peer *peer = peer_open();
	char *buf = buf_new(64);
	struct rpma_mr_local *mr;
	CHECK_RET(rpma_mr_reg(peer, buf, 64, RPMA_MR_USAGE_RECV, &mr));
	struct rpma_ep *ep = ep_open(peer);
	struct rpma_conn_req *req = ep_next_req(ep, NULL);
	CHECK_RET(rpma_conn_req_recv(req, mr, 0, 64, (void *)0xa0));
	struct rpma_conn *conn = server_accept(&req, NULL);
	struct rpma_cq *cq;
	CHECK_RET(rpma_conn_get_cq(conn, &cq));

	conn_expect_event(conn, RPMA_CONN_CLOSED);
	note("got RPMA_CONN_CLOSED");
	CHECK_RET(rpma_conn_disconnect(conn));
	/* the receive still posted comes back flushed, not lost */
	struct ibv_wc wc;
	CHECK(cq_next_wc(cq, WAIT_MS, &wc), "the posted receive did not come back");
	CHECK(wc.wr_id == 0xa0 && wc.status != IBV_WC_SUCCESS, "receive: status %s",
			ibv_wc_status_str(wc.status));
	note("the posted receive came back with %s", ibv_wc_status_str(wc.status));
	CHECK_RET(rpma_conn_delete(&conn));

	CHECK_RET(rpma_ep_shutdown(&ep));
	CHECK_RET(rpma_mr_dereg(&mr));
	free(buf);
	CHECK_RET(rpma_peer_delete(&peer));
}

void
closed_client(void)
{
	struct rpma_peer *peer = peer_open();
	struct rpma_conn *conn = client_connect(peer, NULL, NULL);
	/* leave without waiting for anything: the server must notice by itself */
	CHECK_RET(rpma_conn_disconnect(conn));
	CHECK_RET(rpma_conn_delete(&conn));
	CHECK_RET(rpma_peer_delete(&peer));
}

/* a port where nobody listens */

/* seconds on clock id: CLOCK_MONOTONIC, or the process's CPU time, which
 * under valgrind is most of a call's time */
static double
clock_s(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double
now_s(void)
{
	return clock_s(CLOCK_MONOTONIC);
}

/* how a connection attempt must fail */
struct conn_failure {
	const char *call;		/* the call that fails; NULL: none does, */
	int ret;			/* it returns ret */
	int err;			/* with errno err */
	enum rpma_conn_event event;	/* ... and the connection ends with event */
};

/* the attempt ended as want says; what it saw is in call, ret, err and ev */
static void
check_failure(const struct conn_failure *want, const char *call, int ret, int err,
		enum rpma_conn_event ev)
{
	if (want->call == NULL) {
		CHECK(call == NULL, "%s() failed: %s (errno %s)", call ? call : "",
				rpma_err_2str(ret), strerror(err));
		CHECK(ev == want->event, "the attempt ended with %s, expected %s",
				rpma_utils_conn_event_2str(ev),
				rpma_utils_conn_event_2str(want->event));
		return;
	}
	CHECK(call != NULL && strcmp(call, want->call) == 0,
			"expected %s() to fail, %s", want->call,
			call ? call : "every call succeeded");
	CHECK(ret == want->ret && err == want->err,
			"%s() failed with \"%s\" (errno %s), expected \"%s\" (errno %s)",
			call, rpma_err_2str(ret), strerror(err), rpma_err_2str(want->ret),
			strerror(want->err));
}

/*
 * Connect to addr with a timeout; the attempt must fail as want says
 * within limit_s of waiting: the time the process spent on the CPU
 * meanwhile does not count, so that valgrind's slowness does not (it
 * multiplies the library's work, not its waits). Says what it saw.
 */
static void
connect_must_fail(const char *addr, int timeout_ms, double limit_s,
		const struct conn_failure *want)
{
	struct rpma_peer *peer = peer_open();
	struct rpma_conn_cfg *cfg;
	CHECK_RET(rpma_conn_cfg_new(&cfg));
	CHECK_RET(rpma_conn_cfg_set_timeout(cfg, timeout_ms));

	struct rpma_conn_req *req = NULL;
	struct rpma_conn *conn = NULL;
	enum rpma_conn_event ev = RPMA_CONN_UNDEFINED;
	const char *failed = NULL;
	double t0 = now_s(), c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
	int ret = rpma_conn_req_new(peer, addr, test_port(), cfg, &req);
	if (ret) {
		failed = "rpma_conn_req_new";
	} else if ((ret = rpma_conn_req_connect(&req, NULL, &conn)) != 0) {
		failed = "rpma_conn_req_connect";
	} else {
		int left_ms = (int)((limit_s - (now_s() - t0)) * 1000);
		ev = conn_next_event_within(conn, left_ms > 0 ? left_ms : 0);
	}
	/* read before anything is printed: under valgrind a line costs a good
	 * part of a second */
	double took = now_s() - t0, cpu = clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
	int err = ret == RPMA_E_PROVIDER ? errno : 0;

	if (failed != NULL) {
		CHECK(req == NULL && conn == NULL, "a failed %s() set a handle", failed);
		note("%s(%s) failed: %s (errno %s)", failed, addr, rpma_err_2str(ret),
				strerror(err));
	} else {
		note("connecting to %s: %s", addr, rpma_utils_conn_event_2str(ev));
	}
	check_failure(want, failed, ret, err, ev);
	if (conn != NULL)
		CHECK_RET(rpma_conn_delete(&conn));
	note("after %.2f s, %.2f s of it on the CPU", took, cpu);
	CHECK(took - cpu <= limit_s,
			"the failure took %.2f s, %.2f s of it waiting, the limit is %.2f s", took,
			took - cpu, limit_s);
	CHECK(req == NULL, "the request was not consumed");
	CHECK_RET(rpma_conn_cfg_delete(&cfg));
	CHECK_RET(rpma_peer_delete(&peer));
}

/*
 * A connection request, made and dropped (its QP is made in
 * rpma_conn_req_new()), on librpma 1.x (CLIENT_1X). librpma 1.3 cannot
 * make one on soft-iWARP: built with native ATOMIC WRITE and FLUSH, it
 * asks rdma_create_qp_ex() for an extended QP, which libsiw refuses with
 * EOPNOTSUPP (ours asks for one only where the device offers those
 * operations). So no pair with 1.3 connects there, and utils/test --siw
 * leaves them out; this test shows why, and would show the day it changes.
 */
void
conn_req_client(void)
{
	struct rpma_peer *peer = peer_open();
	struct rpma_conn_req *req = NULL;
	const char *version = env_or("RPMA_TEST_1X_VERSION", "");
	bool refused = on_1x() && strncmp(version, "1.3", 3) == 0 && test_iwarp();

	int ret = rpma_conn_req_new(peer, test_ip(), test_port(), NULL, &req);
	if (refused) {
		CHECK(ret == RPMA_E_PROVIDER && req == NULL, "librpma %s on iWARP: "
				"rpma_conn_req_new() returned %d (%s), expected RPMA_E_PROVIDER",
				version, ret, rpma_err_2str(ret));
		note("librpma %s on iWARP: rpma_conn_req_new() refused (its QP)", version);
	} else {
		CHECK_RET(ret);
		CHECK_RET(rpma_conn_req_delete(&req));
		note("a connection request made and dropped%s%s", on_1x() ? " on librpma " : "",
				on_1x() ? version : "");
	}
	CHECK_RET(rpma_peer_delete(&peer));
}

/*
 * nobody listens on the port: the peer's CM rejects the request; on iWARP
 * the TCP connection rdma_connect() opens is refused, and the call fails
 */
void
no_listener_client(void)
{
	const struct conn_failure want = {NULL, 0, 0, RPMA_CONN_REJECTED};
	const struct conn_failure want_iwarp = {"rpma_conn_req_connect", RPMA_E_PROVIDER,
			ECONNREFUSED, RPMA_CONN_UNDEFINED};
	connect_must_fail(test_ip(), 2000, 20.0, test_iwarp() ? &want_iwarp : &want);
}

/*
 * An address nobody has, on the test device's subnet: the neighbour
 * resolution gets no answer, and the configured timeout bounds it
 * (rxe-vm's link is a veth pair, with ARP, as a real network is):
 * rpma_conn_req_new() fails as the address resolution did.
 */

#define UNREACHABLE_TIMEOUT_MS 1000
/*
 * What the event may take to reach a loaded, emulated machine (the time on
 * the CPU, valgrind's above all, is not counted);
 * the limit stays below the 3 s the kernel's own ARP gives up after, so a
 * timeout the library did not pass on is caught.
 */
#define UNREACHABLE_SLACK_S 1.5

void
unreachable_client(void)
{
	const struct conn_failure want = {"rpma_conn_req_new", RPMA_E_PROVIDER, ETIMEDOUT,
			RPMA_CONN_UNDEFINED};
	connect_must_fail(env_or("RPMA_TEST_DEAD_IP", "192.0.2.99"), UNREACHABLE_TIMEOUT_MS,
			UNREACHABLE_TIMEOUT_MS / 1000.0 + UNREACHABLE_SLACK_S, &want);
}

/*
 * A peer that resolves but never answers the connection request (rxe-vm
 * gives 192.0.2.98 a permanent neighbour entry nobody answers for): only
 * the kernel's CM reports that, after its own REQ retries (78 s on Linux
 * 6.12) whatever the timeout, so the client does what an application does:
 * gives up at the configured timeout and must be able to release
 * everything at once.
 */
/* give up on a connection that did not come up within the configured timeout */
static void
connect_and_give_up(const char *addr, int timeout_ms)
{
	struct rpma_peer *peer = peer_open();
	struct rpma_conn_cfg *cfg;
	CHECK_RET(rpma_conn_cfg_new(&cfg));
	CHECK_RET(rpma_conn_cfg_set_timeout(cfg, timeout_ms));
	double t0 = now_s();
	/* resolution and the wait: within (twice) the timeout, and the release */
	double limit_s = 2 * timeout_ms / 1000.0 + 10;

	/* the neighbour is known: the request is made and sent */
	struct rpma_conn_req *req = NULL;
	struct rpma_conn *conn = NULL;
	CHECK_RET(rpma_conn_req_new(peer, addr, test_port(), cfg, &req));
	CHECK_RET(rpma_conn_req_connect(&req, NULL, &conn));
	int fd;
	CHECK_RET(rpma_conn_get_event_fd(conn, &fd));
	/* ... and nothing answers it: no event at all within the timeout */
	if (fd_wait(fd, timeout_ms)) {
		enum rpma_conn_event ev = RPMA_CONN_UNDEFINED;
		CHECK_RET(rpma_conn_next_event(conn, &ev));
		fail_at(__FILE__, __LINE__, "%s answered within %d ms: %s", addr, timeout_ms,
				rpma_utils_conn_event_2str(ev));
	}
	note("no answer from %s within %d ms: giving up", addr, timeout_ms);
	double t1 = now_s();
	CHECK_RET(rpma_conn_delete(&conn));
	CHECK(now_s() - t1 < 10.0, "deleting a connection in progress took %.2f s",
			now_s() - t1);
	double took = now_s() - t0;
	CHECK(took <= limit_s, "giving up took %.2f s, the limit is %.2f s", took, limit_s);
	CHECK_RET(rpma_conn_cfg_delete(&cfg));
	CHECK_RET(rpma_peer_delete(&peer));
}

/*
 * iWARP: rdma_connect() opens the TCP connection and waits for it, so
 * rpma_conn_req_connect() fails when TCP gives up on its SYNs, whatever
 * the configured timeout: after 2^(n+1) - 1 s for n retries
 * (net.ipv4.tcp_syn_retries; utils/rxe-vm --device siw sets 2).
 */
static void
silent_peer_iwarp(const char *addr)
{
	FILE *f = fopen("/proc/sys/net/ipv4/tcp_syn_retries", "r");
	int retries = -1;
	CHECK(f != NULL && fscanf(f, "%d", &retries) == 1, "cannot read tcp_syn_retries");
	fclose(f);
	CHECK(retries >= 0 && retries <= 4, "net.ipv4.tcp_syn_retries is %d: the connection "
			"would take %d s to fail (utils/rxe-vm --device siw sets 2)", retries,
			(2 << retries) - 1);
	const struct conn_failure want = {"rpma_conn_req_connect", RPMA_E_PROVIDER, ETIMEDOUT,
			RPMA_CONN_UNDEFINED};
	connect_must_fail(addr, 2000, (2 << retries) - 1 + 10.0, &want);
}

void
silent_peer_client(void)
{
	const char *addr = env_or("RPMA_TEST_SILENT_IP", "192.0.2.98");
	if (test_iwarp())
		silent_peer_iwarp(addr);
	else
		connect_and_give_up(addr, 2000);
}
