// SPDX-License-Identifier: BSD-3-Clause
/*
 * threads.c -- rpma-threads SCENARIO PORT: librpma used from several
 * threads at once, exactly as doc/THREAD_SAFETY.md allows, so that
 * valgrind --tool=helgrind (or ThreadSanitizer) can check that what the
 * document promises holds.
 *
 * Server and clients live in one process (the server listens on
 * RPMA_TEST_IP:PORT and the clients connect to it), so one helgrind run
 * sees every thread.
 *
 * one_conn    one connection, NTHREADS threads writing their own slice of
 *             one remote region and flushing it, all polling the one CQ
 *             with rpma_cq_get_wc(); the server then compares every slice
 * many_conns  NTHREADS client threads, each with its own connection on one
 *             shared peer, its own CQ waited for with rpma_cq_wait(); a
 *             server thread per connection waits on that connection's CQ
 *             and compares the slice the client wrote
 * grant_delete  one connection with NGRANTS grants (LIBRPMA_1.5): one thread
 *             deletes them while the server's thread deletes the
 *             connection, ROUNDS_GRANT times; then the region deregisters
 *             (no window left holds it). Where the device binds no type-2
 *             windows the grants are refused, and checked to be so.
 * one_cq_wait one connection, NTHREADS threads each writing its slice in
 *             ROUNDS writes, one at a time, every completion reaped by
 *             whichever thread gets it: all of them wait on the one CQ with
 *             rpma_cq_wait() at once (non-blocking channel, poll()), so the
 *             acknowledgement count is shared; a lost or doubled count
 *             would hang deleting the connection's CQ
 * all         all four, one after the other (on PORT, PORT + 1, ...)
 */

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <librpma.h>

#define NTHREADS	4
#define SLICE		4096	/* bytes each thread writes */
#define CHUNKS		8	/* writes per slice */
#define ROUNDS		16	/* writes per slice, one at a time (one_cq_wait) */
#define WAIT_MS		wait_ms()	/* any single wait */

/* a flush completes as a native FLUSH (IBV_WC_FLUSH of rdma-core 45+) or as a read */
#define WC_FLUSH	8
#define OPCODE_FLUSH	(-1)
#define WC_IS_FLUSH(opcode) ((int)(opcode) == WC_FLUSH || (opcode) == IBV_WC_RDMA_READ)

#define CHECK(cond, ...) do { \
	if (!(cond)) \
		fail_at(__LINE__, __VA_ARGS__); \
} while (0)

#define CHECK_RET(call) do { \
	int ret_ = (call); \
	CHECK(ret_ == 0, "%s returned %d (%s)", #call, ret_, rpma_err_2str(ret_)); \
} while (0)

__attribute__((noreturn, format(printf, 2, 3)))
static void
fail_at(int line, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "rpma-threads: FAIL line %d: ", line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	exit(1);
}

static const char *Addr;

/* byte i of the slice of thread t: differs between threads and positions */
static inline unsigned char
pattern_byte(unsigned t, size_t i)
{
	return (unsigned char)((t + 1) * 37 + i * 7 + (i >> 8));
}

static void
pattern_fill(unsigned char *buf, unsigned t)
{
	for (size_t i = 0; i < SLICE; i++)
		buf[i] = pattern_byte(t, i);
}

static void
pattern_check(const unsigned char *buf, unsigned t)
{
	for (size_t i = 0; i < SLICE; i++)
		CHECK(buf[i] == pattern_byte(t, i),
				"slice %u byte %zu is 0x%02x, expected 0x%02x",
				t, i, buf[i], pattern_byte(t, i));
}

/*
 * RPMA_TEST_WAIT_MS, as in the other integration tests (utils/fault-sweep
 * shortens it), else 120 s: helgrind under TCG is slow.
 */
static int
wait_ms(void)
{
	const char *v = getenv("RPMA_TEST_WAIT_MS");
	int ms = v != NULL ? atoi(v) : 0;

	return ms > 0 ? ms : 120000;
}

static void *
buf_new(size_t size)
{
	void *buf = aligned_alloc(4096, (size + 4095) / 4096 * 4096);
	CHECK(buf != NULL, "out of memory");
	memset(buf, 0, size);
	return buf;
}

static struct rpma_peer *
peer_open(void)
{
	struct ibv_context *ctx;
	struct rpma_peer *peer;

	CHECK_RET(rpma_utils_get_ibv_context(Addr, RPMA_UTIL_IBV_CONTEXT_LOCAL, &ctx));
	CHECK_RET(rpma_peer_new(ctx, &peer));
	return peer;
}

static void
fd_wait(int fd, const char *what)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int n;

	do
		n = poll(&pfd, 1, WAIT_MS);
	while (n < 0 && errno == EINTR);
	CHECK(n == 1, "no %s within %d ms", what, WAIT_MS);
}

static void
expect_event(struct rpma_conn *conn, enum rpma_conn_event want)
{
	enum rpma_conn_event event;
	int fd;

	CHECK_RET(rpma_conn_get_event_fd(conn, &fd));
	fd_wait(fd, "connection event");
	CHECK_RET(rpma_conn_next_event(conn, &event));
	CHECK(event == want, "connection event %s, expected %s",
			rpma_utils_conn_event_2str(event), rpma_utils_conn_event_2str(want));
}

/* one successful completion from cq, waiting with rpma_cq_wait() */
static void
cq_wait_one(struct rpma_cq *cq, int opcode, const void *ctx)
{
	struct ibv_wc wc;
	int fd, ret;

	CHECK_RET(rpma_cq_get_fd(cq, &fd));
	while ((ret = rpma_cq_get_wc(cq, 1, &wc, NULL)) == RPMA_E_NO_COMPLETION) {
		fd_wait(fd, "completion");
		CHECK_RET(rpma_cq_wait(cq));
	}
	CHECK_RET(ret);
	CHECK(wc.status == IBV_WC_SUCCESS, "completion failed: %s", ibv_wc_status_str(wc.status));
	CHECK(opcode == OPCODE_FLUSH ? WC_IS_FLUSH(wc.opcode) : (int)wc.opcode == opcode,
			"completion opcode %d, expected %d", wc.opcode, opcode);
	CHECK(wc.wr_id == (uintptr_t)ctx, "completion of another operation");
}

/* what the server tells a client: its region's descriptor */
struct desc {
	unsigned char mr[64];
};

static struct rpma_mr_remote *
remote_mr_take(const struct rpma_conn *conn)
{
	struct rpma_conn_private_data pdata;
	struct rpma_mr_remote *mr;
	size_t size;

	CHECK_RET(rpma_conn_get_private_data(conn, &pdata));
	CHECK(pdata.ptr != NULL && pdata.len >= 21, "private data of %u bytes", pdata.len);
	/* the descriptor is 21 bytes; rdma_cm pads the private data with zeros */
	CHECK_RET(rpma_mr_remote_from_descriptor(pdata.ptr, 21, &mr));
	CHECK_RET(rpma_mr_remote_get_size(mr, &size));
	CHECK(size == NTHREADS * SLICE, "remote region of %zu bytes", size);
	return mr;
}

/* the server's side of one connection: region, receive, accept */
struct server_conn {
	struct rpma_conn_req *req;
	struct rpma_conn *conn;
	struct rpma_mr_local *msg_mr;
	char msg[16];
	unsigned index;		/* which slice the client writes (many_conns) */
	const unsigned char *region;
	const struct rpma_conn_private_data *pdata;
};

static void
server_accept(struct server_conn *sc)
{
	CHECK_RET(rpma_conn_req_recv(sc->req, sc->msg_mr, 0, sizeof(sc->msg), sc));
	CHECK_RET(rpma_conn_req_connect(&sc->req, sc->pdata, &sc->conn));
	CHECK(sc->req == NULL, "the request was not consumed");
	expect_event(sc->conn, RPMA_CONN_ESTABLISHED);
}

/* wait for the client's "written" message, then close after the client */
static void
server_finish(struct server_conn *sc)
{
	struct rpma_cq *cq;

	CHECK_RET(rpma_conn_get_cq(sc->conn, &cq));
	cq_wait_one(cq, IBV_WC_RECV, sc);
	expect_event(sc->conn, RPMA_CONN_CLOSED);
	CHECK_RET(rpma_conn_disconnect(sc->conn));
	CHECK_RET(rpma_conn_delete(&sc->conn));
}

static struct rpma_conn_req *
ep_next_req(struct rpma_ep *ep, const struct rpma_conn_cfg *cfg)
{
	struct rpma_conn_req *req;
	int fd;

	CHECK_RET(rpma_ep_get_fd(ep, &fd));
	fd_wait(fd, "connection request");
	CHECK_RET(rpma_ep_next_conn_req(ep, cfg, &req));
	return req;
}

/* the client's side: connect with optional private data, wait until up */
static struct rpma_conn *
client_connect(struct rpma_peer *peer, const char *port, const struct rpma_conn_cfg *cfg,
		const struct rpma_conn_private_data *pdata)
{
	struct rpma_conn_req *req;
	struct rpma_conn *conn;

	CHECK_RET(rpma_conn_req_new(peer, Addr, port, cfg, &req));
	CHECK_RET(rpma_conn_req_connect(&req, pdata, &conn));
	expect_event(conn, RPMA_CONN_ESTABLISHED);
	return conn;
}

static void
client_close(struct rpma_conn **conn)
{
	CHECK_RET(rpma_conn_disconnect(*conn));
	expect_event(*conn, RPMA_CONN_CLOSED);
	CHECK_RET(rpma_conn_delete(conn));
}

/* one_conn ------------------------------------------------------------- */

struct one_conn {
	struct rpma_conn *conn;
	struct rpma_cq *cq;
	struct rpma_mr_remote *dst;
	struct rpma_mr_local *src;
	atomic_uint done;		/* flushes completed, whoever polled them */
	atomic_uint mine[NTHREADS];	/* per thread: its flush completed */
	atomic_uint written[NTHREADS];	/* per thread: its writes completed (one_cq_wait) */
	atomic_uint waits;		/* rpma_cq_wait calls that got an event */
};

struct one_conn_thread {
	struct one_conn *oc;
	unsigned index;
};

/* a successful completion of opcode, posted by one of the threads: which one */
static struct one_conn_thread *
wc_owner(const struct ibv_wc *wc, int opcode)
{
	CHECK(wc->status == IBV_WC_SUCCESS, "completion failed: %s",
			ibv_wc_status_str(wc->status));
	CHECK(opcode == OPCODE_FLUSH ? WC_IS_FLUSH(wc->opcode) : (int)wc->opcode == opcode,
			"opcode %d, expected %d", wc->opcode, opcode);
	struct one_conn_thread *owner = (struct one_conn_thread *)(uintptr_t)wc->wr_id;
	CHECK(owner->index < NTHREADS, "completion of an unknown operation");
	return owner;
}

/* Poll the shared CQ until every thread's flush has completed. */
static void
one_conn_poll(struct one_conn *oc)
{
	time_t deadline = time(NULL) + WAIT_MS / 1000;
	struct ibv_wc wc;

	while (atomic_load(&oc->done) < NTHREADS) {
		int ret = rpma_cq_get_wc(oc->cq, 1, &wc, NULL);
		if (ret == RPMA_E_NO_COMPLETION) {
			CHECK(time(NULL) < deadline, "flush completions missing");
			struct timespec ts = { 0, 1000000 };
			nanosleep(&ts, NULL);
			continue;
		}
		CHECK_RET(ret);
		struct one_conn_thread *owner = wc_owner(&wc, OPCODE_FLUSH);
		CHECK(atomic_exchange(&oc->mine[owner->index], 1) == 0,
				"flush of thread %u completed twice", owner->index);
		atomic_fetch_add(&oc->done, 1);
	}
}

static void *
one_conn_writer(void *arg)
{
	struct one_conn_thread *t = arg;
	struct one_conn *oc = t->oc;
	size_t base = t->index * SLICE;
	size_t chunk = SLICE / CHUNKS;

	/* the writes complete only on error: the flush's completion covers them */
	for (size_t c = 0; c < CHUNKS; c++)
		CHECK_RET(rpma_write(oc->conn, oc->dst, base + c * chunk, oc->src,
				base + c * chunk, chunk, RPMA_F_COMPLETION_ON_ERROR, NULL));
	CHECK_RET(rpma_flush(oc->conn, oc->dst, base, SLICE, RPMA_FLUSH_TYPE_VISIBILITY,
			RPMA_F_COMPLETION_ALWAYS, t));

	one_conn_poll(oc);
	return NULL;
}

/*
 * Wait (at most 10 ms) for the shared CQ's channel and take its event with
 * rpma_cq_wait(), which another thread may have taken first
 * (RPMA_E_NO_COMPLETION on the non-blocking channel), then reap one
 * completion. The channel comes first: the CQ is armed from its creation,
 * so the event of the first completion waits until a thread takes it,
 * and every thread looks for it again in each of its later rounds. Polling
 * first, a thread that always found a completion would never wait.
 */
static void
one_cq_wait_reap(struct one_conn *oc, int fd, time_t deadline)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	struct ibv_wc wc;

	if (poll(&pfd, 1, 10) == 1) {
		int ret = rpma_cq_wait(oc->cq);
		CHECK(ret == 0 || ret == RPMA_E_NO_COMPLETION, "rpma_cq_wait returned %d (%s)",
				ret, rpma_err_2str(ret));
		if (ret == 0)
			atomic_fetch_add(&oc->waits, 1);
	}
	int ret = rpma_cq_get_wc(oc->cq, 1, &wc, NULL);
	if (ret == 0) {
		atomic_fetch_add(&oc->written[wc_owner(&wc, IBV_WC_RDMA_WRITE)->index], 1);
		return;
	}
	CHECK(ret == RPMA_E_NO_COMPLETION, "rpma_cq_get_wc returned %d", ret);
	CHECK(time(NULL) < deadline, "write completions missing");
}

/* write the slice one chunk at a time; reap completions until this one's came */
static void *
one_cq_wait_writer(void *arg)
{
	struct one_conn_thread *t = arg;
	struct one_conn *oc = t->oc;
	size_t base = t->index * SLICE;
	size_t chunk = SLICE / ROUNDS;
	time_t deadline = time(NULL) + WAIT_MS / 1000;
	int fd;

	CHECK_RET(rpma_cq_get_fd(oc->cq, &fd));
	for (unsigned r = 0; r < ROUNDS; r++) {
		CHECK_RET(rpma_write(oc->conn, oc->dst, base + r * chunk, oc->src,
				base + r * chunk, chunk, RPMA_F_COMPLETION_ALWAYS, t));
		while (atomic_load(&oc->written[t->index]) <= r)
			one_cq_wait_reap(oc, fd, deadline);
	}
	CHECK(atomic_load(&oc->written[t->index]) == ROUNDS, "thread %u: %u writes completed",
			t->index, atomic_load(&oc->written[t->index]));
	return NULL;
}

static void
one_conn_client(struct rpma_peer *peer, const char *port, void *(*writer)(void *))
{
	struct one_conn oc = { 0 };
	struct one_conn_thread threads[NTHREADS];
	pthread_t tids[NTHREADS];
	struct rpma_conn_cfg *cfg;

	/* every write of every thread may be outstanding at once */
	CHECK_RET(rpma_conn_cfg_new(&cfg));
	CHECK_RET(rpma_conn_cfg_set_sq_size(cfg, NTHREADS * (CHUNKS + 1) + 1));
	CHECK_RET(rpma_conn_cfg_set_cq_size(cfg, NTHREADS + 1));

	unsigned char *src = buf_new(NTHREADS * SLICE);
	for (unsigned t = 0; t < NTHREADS; t++)
		pattern_fill(src + t * SLICE, t);
	CHECK_RET(rpma_mr_reg(peer, src, NTHREADS * SLICE, RPMA_MR_USAGE_WRITE_SRC, &oc.src));

	oc.conn = client_connect(peer, port, cfg, NULL);
	oc.dst = remote_mr_take(oc.conn);
	CHECK_RET(rpma_conn_get_cq(oc.conn, &oc.cq));
	if (writer == one_cq_wait_writer) {
		int fd, flags;
		CHECK_RET(rpma_cq_get_fd(oc.cq, &fd));
		flags = fcntl(fd, F_GETFL);
		CHECK(flags >= 0 && fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0, "fcntl failed");
	}

	/*
	 * All filled before any thread starts: a thread may read another's entry
	 * through a completion's wr_id, an ordering helgrind cannot see.
	 */
	for (unsigned t = 0; t < NTHREADS; t++)
		threads[t] = (struct one_conn_thread){ .oc = &oc, .index = t };
	for (unsigned t = 0; t < NTHREADS; t++)
		CHECK(pthread_create(&tids[t], NULL, writer, &threads[t]) == 0,
				"pthread_create failed");
	for (unsigned t = 0; t < NTHREADS; t++)
		CHECK(pthread_join(tids[t], NULL) == 0, "pthread_join failed");

	if (writer == one_cq_wait_writer)
		CHECK(atomic_load(&oc.waits) > 0, "no thread got an event from rpma_cq_wait");

	/* an empty message tells the server that every slice is in place */
	CHECK_RET(rpma_send(oc.conn, NULL, 0, 0, RPMA_F_COMPLETION_ALWAYS, &oc));
	cq_wait_one(oc.cq, IBV_WC_SEND, &oc);

	client_close(&oc.conn);
	CHECK_RET(rpma_mr_remote_delete(&oc.dst));
	CHECK_RET(rpma_mr_dereg(&oc.src));
	CHECK_RET(rpma_conn_cfg_delete(&cfg));
	free(src);
}

struct server_args {
	struct rpma_peer *peer;
	struct rpma_ep *ep;
};

static void *
one_conn_server(void *arg)
{
	struct server_args *sa = arg;
	struct rpma_mr_local *mr;
	struct rpma_conn_private_data pdata;
	struct desc desc;
	struct server_conn sc = { 0 };

	unsigned char *region = buf_new(NTHREADS * SLICE);
	CHECK_RET(rpma_mr_reg(sa->peer, region, NTHREADS * SLICE,
			RPMA_MR_USAGE_WRITE_DST | RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY, &mr));
	CHECK_RET(rpma_mr_get_descriptor(mr, desc.mr));
	pdata = (struct rpma_conn_private_data){ .ptr = desc.mr, .len = 21 };
	CHECK_RET(rpma_mr_reg(sa->peer, sc.msg, sizeof(sc.msg), RPMA_MR_USAGE_RECV, &sc.msg_mr));

	sc.req = ep_next_req(sa->ep, NULL);
	sc.pdata = &pdata;
	server_accept(&sc);
	server_finish(&sc);

	for (unsigned t = 0; t < NTHREADS; t++)
		pattern_check(region + t * SLICE, t);

	CHECK_RET(rpma_mr_dereg(&sc.msg_mr));
	CHECK_RET(rpma_mr_dereg(&mr));
	free(region);
	return NULL;
}

/* many_conns ----------------------------------------------------------- */

struct many_client {
	struct rpma_peer *peer;		/* shared by every client thread */
	const char *port;
	unsigned index;
};

static void *
many_conns_client(void *arg)
{
	struct many_client *mc = arg;
	struct rpma_mr_local *src_mr;
	struct rpma_cq *cq;
	unsigned char index = (unsigned char)mc->index;
	struct rpma_conn_private_data pdata = { .ptr = &index, .len = 1 };

	unsigned char *src = buf_new(SLICE);
	pattern_fill(src, mc->index);
	CHECK_RET(rpma_mr_reg(mc->peer, src, SLICE, RPMA_MR_USAGE_WRITE_SRC, &src_mr));

	struct rpma_conn *conn = client_connect(mc->peer, mc->port, NULL, &pdata);
	struct rpma_mr_remote *dst = remote_mr_take(conn);
	CHECK_RET(rpma_conn_get_cq(conn, &cq));

	CHECK_RET(rpma_write(conn, dst, mc->index * SLICE, src_mr, 0, SLICE,
			RPMA_F_COMPLETION_ON_ERROR, NULL));
	CHECK_RET(rpma_flush(conn, dst, mc->index * SLICE, SLICE, RPMA_FLUSH_TYPE_VISIBILITY,
			RPMA_F_COMPLETION_ALWAYS, mc));
	cq_wait_one(cq, OPCODE_FLUSH, mc);
	CHECK_RET(rpma_send(conn, NULL, 0, 0, RPMA_F_COMPLETION_ALWAYS, mc));
	cq_wait_one(cq, IBV_WC_SEND, mc);

	client_close(&conn);
	CHECK_RET(rpma_mr_remote_delete(&dst));
	CHECK_RET(rpma_mr_dereg(&src_mr));
	free(src);
	return NULL;
}

/* a server thread per connection: wait on its own CQ, compare its slice */
static void *
many_conns_server_conn(void *arg)
{
	struct server_conn *sc = arg;

	server_accept(sc);
	server_finish(sc);
	pattern_check(sc->region + sc->index * SLICE, sc->index);
	return NULL;
}

static void *
many_conns_server(void *arg)
{
	struct server_args *sa = arg;
	struct rpma_mr_local *mr;
	struct rpma_conn_private_data pdata, cpdata;
	struct desc desc;
	struct server_conn sc[NTHREADS] = { 0 };
	pthread_t tids[NTHREADS];
	bool seen[NTHREADS] = { false };

	unsigned char *region = buf_new(NTHREADS * SLICE);
	CHECK_RET(rpma_mr_reg(sa->peer, region, NTHREADS * SLICE,
			RPMA_MR_USAGE_WRITE_DST | RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY, &mr));
	CHECK_RET(rpma_mr_get_descriptor(mr, desc.mr));
	pdata = (struct rpma_conn_private_data){ .ptr = desc.mr, .len = 21 };

	/* the endpoint stays in this thread; each connection gets its own */
	for (unsigned n = 0; n < NTHREADS; n++) {
		struct server_conn *c = &sc[n];
		c->req = ep_next_req(sa->ep, NULL);
		CHECK_RET(rpma_conn_req_get_private_data(c->req, &cpdata));
		CHECK(cpdata.ptr != NULL && cpdata.len >= 1, "no client index");
		c->index = *(unsigned char *)cpdata.ptr;
		CHECK(c->index < NTHREADS && !seen[c->index], "bad client index %u", c->index);
		seen[c->index] = true;
		c->region = region;
		c->pdata = &pdata;
		CHECK_RET(rpma_mr_reg(sa->peer, c->msg, sizeof(c->msg), RPMA_MR_USAGE_RECV,
				&c->msg_mr));
		CHECK(pthread_create(&tids[n], NULL, many_conns_server_conn, c) == 0,
				"pthread_create failed");
	}
	for (unsigned n = 0; n < NTHREADS; n++) {
		CHECK(pthread_join(tids[n], NULL) == 0, "pthread_join failed");
		CHECK_RET(rpma_mr_dereg(&sc[n].msg_mr));
	}

	CHECK_RET(rpma_mr_dereg(&mr));
	free(region);
	return NULL;
}

/* grant_delete ----------------------------------------------------------- */

#define NGRANTS		16
#define ROUNDS_GRANT	3

struct grant_deleter {
	struct rpma_grant **grants;
	atomic_uint *go;
};

static void *
grant_deleter(void *arg)
{
	struct grant_deleter *d = arg;

	while (atomic_load(d->go) == 0)
		;
	for (unsigned g = 0; g < NGRANTS; g++) {
		CHECK_RET(rpma_grant_delete(&d->grants[g]));
		CHECK(d->grants[g] == NULL, "rpma_grant_delete() left the handle");
	}
	return NULL;
}

/* the device binds type-2 memory windows, which grants are made of */
static bool
device_windows(void)
{
	struct ibv_context *ctx;
	struct ibv_device_attr attr;

	CHECK_RET(rpma_utils_get_ibv_context(Addr, RPMA_UTIL_IBV_CONTEXT_LOCAL, &ctx));
	CHECK(ibv_query_device(ctx, &attr) == 0, "ibv_query_device() failed");
	return (attr.device_cap_flags &
			(IBV_DEVICE_MEM_WINDOW_TYPE_2A | IBV_DEVICE_MEM_WINDOW_TYPE_2B)) != 0;
}

/* one round: grants on a new connection, deleted while the connection goes */
static bool
grant_delete_round(struct server_args *sa, struct rpma_mr_local *mr)
{
	struct server_conn sc = { 0 };
	struct rpma_grant *grants[NGRANTS];
	atomic_uint go = 0;
	struct grant_deleter d = { grants, &go };
	pthread_t tid;

	CHECK_RET(rpma_mr_reg(sa->peer, sc.msg, sizeof(sc.msg), RPMA_MR_USAGE_RECV, &sc.msg_mr));
	sc.req = ep_next_req(sa->ep, NULL);
	server_accept(&sc);
	for (unsigned g = 0; g < NGRANTS; g++) {
		int ret = rpma_grant_new(sc.conn, mr, g * SLICE, SLICE, RPMA_MR_USAGE_WRITE_DST,
				&grants[g]);
		if (ret == RPMA_E_NOSUPP && g == 0 && !device_windows()) {
			/* nothing to race: the client knows it too, and closes */
			expect_event(sc.conn, RPMA_CONN_CLOSED);
			CHECK_RET(rpma_conn_disconnect(sc.conn));
			CHECK_RET(rpma_conn_delete(&sc.conn));
			CHECK_RET(rpma_mr_dereg(&sc.msg_mr));
			return false;
		}
		CHECK_RET(ret);
	}
	/* the region is held while any window is */
	CHECK(rpma_mr_dereg(&mr) == RPMA_E_INVAL, "a region with grants deregistered");

	CHECK(pthread_create(&tid, NULL, grant_deleter, &d) == 0, "pthread_create failed");
	atomic_store(&go, 1);
	CHECK_RET(rpma_conn_disconnect(sc.conn));
	CHECK_RET(rpma_conn_delete(&sc.conn));
	CHECK(pthread_join(tid, NULL) == 0, "pthread_join failed");
	CHECK_RET(rpma_mr_dereg(&sc.msg_mr));
	return true;
}

static void *
grant_delete_server(void *arg)
{
	struct server_args *sa = arg;
	struct rpma_mr_local *mr;
	unsigned char *region = buf_new(NGRANTS * SLICE);
	bool windows = true;

	CHECK_RET(rpma_mr_reg_for_grants(sa->peer, region, NGRANTS * SLICE,
			RPMA_MR_USAGE_WRITE_DST, &mr));
	for (unsigned r = 0; r < ROUNDS_GRANT && windows; r++)
		windows = grant_delete_round(sa, mr);
	/* every window released: by its delete or by its connection's */
	CHECK_RET(rpma_mr_dereg(&mr));
	free(region);
	if (!windows)
		printf("rpma-threads: grant_delete: the device binds no type-2 windows: "
				"the grants were refused\n");
	return NULL;
}

/* each round: connect, then wait for the server to go; without windows, go first, once */
static void
grant_delete_client(struct rpma_peer *peer, const char *port)
{
	bool windows = device_windows();
	struct rpma_conn_cfg *cfg;

	CHECK_RET(rpma_conn_cfg_new(&cfg));
	CHECK_RET(rpma_conn_cfg_set_sq_size(cfg, NGRANTS + 1));
	for (unsigned r = 0; r < (windows ? ROUNDS_GRANT : 1); r++) {
		struct rpma_conn *conn = client_connect(peer, port, cfg, NULL);
		if (!windows) {
			client_close(&conn);
			break;
		}
		expect_event(conn, RPMA_CONN_CLOSED);
		CHECK_RET(rpma_conn_delete(&conn));
	}
	CHECK_RET(rpma_conn_cfg_delete(&cfg));
}

/* driver ---------------------------------------------------------------- */

static void
scenario(const char *name, const char *port)
{
	struct server_args sa;
	pthread_t server;
	bool grants = strcmp(name, "grant_delete") == 0;
	bool one = !grants && strcmp(name, "many_conns") != 0;
	void *(*server_fn)(void *) = grants ? grant_delete_server :
		one ? one_conn_server : many_conns_server;

	/*
	 * Everything the threads share is created here, before they start:
	 * creating them must not race with their use (THREAD_SAFETY.md).
	 */
	sa.peer = peer_open();
	struct rpma_peer *client_peer = peer_open();
	CHECK_RET(rpma_ep_listen(sa.peer, Addr, port, &sa.ep));

	CHECK(pthread_create(&server, NULL, server_fn, &sa) == 0, "pthread_create failed");
	if (grants) {
		grant_delete_client(client_peer, port);
	} else if (one) {
		one_conn_client(client_peer, port, strcmp(name, "one_conn") == 0 ?
				one_conn_writer : one_cq_wait_writer);
	} else {
		struct many_client mc[NTHREADS];
		pthread_t tids[NTHREADS];
		for (unsigned t = 0; t < NTHREADS; t++) {
			mc[t] = (struct many_client){ client_peer, port, t };
			CHECK(pthread_create(&tids[t], NULL, many_conns_client, &mc[t]) == 0,
					"pthread_create failed");
		}
		for (unsigned t = 0; t < NTHREADS; t++)
			CHECK(pthread_join(tids[t], NULL) == 0, "pthread_join failed");
	}
	CHECK(pthread_join(server, NULL) == 0, "pthread_join failed");

	CHECK_RET(rpma_ep_shutdown(&sa.ep));
	CHECK_RET(rpma_peer_delete(&client_peer));
	CHECK_RET(rpma_peer_delete(&sa.peer));
	printf("rpma-threads: %s: PASS\n", name);
}

int
main(int argc, char *argv[])
{
	static const char *const names[] = {
		"one_conn", "many_conns", "one_cq_wait", "grant_delete"
	};
	int n = sizeof(names) / sizeof(names[0]);
	int which = -1;	/* all */

	for (int i = 0; argc == 3 && i < n; i++)
		if (strcmp(argv[1], names[i]) == 0)
			which = i;
	if (argc != 3 || (which < 0 && strcmp(argv[1], "all") != 0)) {
		fprintf(stderr, "usage: %s one_conn|many_conns|one_cq_wait|grant_delete|all PORT\n",
				argv[0]);
		return 2;
	}
	Addr = getenv("RPMA_TEST_IP");
	if (Addr == NULL || *Addr == '\0') {
		fprintf(stderr, "rpma-threads: RPMA_TEST_IP is not set: run it through "
				"utils/rxe-vm or point it at an RDMA device\n");
		return 125;
	}

	for (int i = 0; i < n; i++) {
		if (which >= 0 && i != which)
			continue;
		char port[16];
		snprintf(port, sizeof(port), "%d", atoi(argv[2]) + (which < 0 ? i : 0));
		scenario(names[i], port);
	}
	return 0;
}
