// SPDX-License-Identifier: BSD-3-Clause
/*
 * server.c -- the passive side: listens in both modes at once (lib on PORT,
 * raw on PORT+1) and serves one connection at a time. For one-sided
 * workloads it only waits for the disconnect; for the messaging ones it
 * busy-polls, answering each request (and persisting the range first for
 * GPSPM) through the same mode the client uses.
 */

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"

/* a server gives up a connection whose client went silent this long */
#define IDLE_LIMIT_S 60

static volatile sig_atomic_t stop_requested;

static void
on_signal(int sig)
{
	(void) sig;
	stop_requested = 1;
}

/* a GPSPM request: persist the range if it lies in the region */
static int
persist_range(const struct bench_mem *mem, const char *msg, uint32_t len)
{
	struct persist_req req;

	if (len < sizeof(req)) {
		BENCH_LOG("a persist request of %u bytes\n", len);
		return -1;
	}
	memcpy(&req, msg, sizeof(req));
	if (req.offset > mem->data_size || req.len > mem->data_size - req.offset) {
		BENCH_LOG("a persist request outside the region\n");
		return -1;
	}
	mem->persist(mem->data + req.offset, req.len);
	return 0;
}

/* one received message: act on it, give the slot back, answer */
static int
answer(const struct xport_ops *ops, struct xconn *c, const struct bench_mem *mem,
		const struct hello *hello, const struct ibv_wc *wc)
{
	size_t slot = wc->wr_id;
	size_t reply_len = wc->byte_len;

	if (slot >= hello->depth + 2u)
		return -1;
	if (hello->workload == WL_GPSPM) {
		if (persist_range(mem, mem->msg + slot * mem->msg_size, wc->byte_len))
			return -1;
		reply_len = sizeof(uint64_t);
	}
	if (ops->recv(c, slot * mem->msg_size, hello->msg_size, slot) ||
			ops->send(c, server_send_slot(mem), reply_len, UINT64_MAX)) {
		BENCH_LOG("posting the answer failed\n");
		return -1;
	}
	return 0;
}

static int
serve_messages(const struct xport_ops *ops, struct xconn *c, const struct bench_mem *mem,
		const struct hello *hello)
{
	struct ibv_wc wc[16];
	uint64_t sends = 0, empty = 0;
	bool quit = false;
	double idle_since = 0;	/* read the clock only when idle */

	while (!quit || sends) {
		int n = ops->poll(c, wc, 16);
		if (n < 0) {
			BENCH_LOG("polling the CQ failed\n");
			return -1;
		}
		if (n == 0) {
			if ((++empty & 0xffff) == 0) {
				if (idle_since == 0) {
					idle_since = now_s();
				} else if (now_s() - idle_since > IDLE_LIMIT_S) {
					BENCH_LOG("the client went silent\n");
					return -1;
				}
			}
			continue;
		}
		empty = 0;
		idle_since = 0;
		for (int i = 0; i < n; i++) {
			if (wc[i].status != IBV_WC_SUCCESS) {
				BENCH_LOG("completion error: %s\n", ibv_wc_status_str(wc[i].status));
				return -1;
			}
			if (!(wc[i].opcode & IBV_WC_RECV)) {
				sends--;
			} else if (wc[i].byte_len == 0) {
				quit = true;	/* the client is done */
			} else if (answer(ops, c, mem, hello, &wc[i])) {
				return -1;
			} else {
				sends++;
			}
		}
	}
	return 0;
}

/*
 * One-sided workloads need nothing from the server, but it polls all the
 * same until the client goes: a halted vCPU of a TCG guest wakes slowly,
 * which would add its noise to the responder's (kernel) work.
 */
static int
spin_until_closed(const struct xport *x, struct xconn *c)
{
	struct pollfd pfd = {.fd = x->event_fd(c), .events = POLLIN};
	struct ibv_wc wc;

	for (;;) {
		for (int i = 0; i < 4096; i++)
			if (x->ops->poll(c, &wc, 1) < 0)
				return -1;
		int ret = poll(&pfd, 1, 0);
		if (ret < 0 && errno != EINTR)
			return -1;
		if (ret > 0 || stop_requested)
			return 0;
	}
}

/* the connections of clients that hold several at once (HELLO_HOLD) */
#define MAX_HELD 1024

struct held {
	const struct xport *x;
	struct xconn *conn;
	const char *label;	/* of its phase marks */
};

static struct held held[MAX_HELD];
static int nheld;

/* held connection i was closed by its client */
static void
release_held(int i)
{
	count_mark("close", held[i].label);
	if (held[i].x->wait_closed(held[i].conn) || held[i].x->disconnect(&held[i].conn))
		BENCH_LOG("%s: a held connection ended with an error\n", held[i].x->name);
	count_mark("-", held[i].label);
	held[i] = held[--nheld];
}

static int
serve_one(const struct xport *x, void *ctx, const struct bench_mem *mem)
{
	struct xconn *conn;
	struct hello hello;

	count_mark("accept", x->name);
	int ret = x->accept(ctx, &conn, &hello);
	bool grant = ret == 0 && (hello.flags & HELLO_GRANT);
	const char *label = grant ? GRANT_LABEL : x->name;
	/* known from the hello only: the accept was one with a grant */
	if (grant)
		count_mark(COUNT_RENAME " accept", label);
	count_mark("-", label);
	if (ret)
		return 0;	/* a refused request does not stop the server */
	if (hello.flags & HELLO_HOLD) {
		/* one-sided: nothing to serve, keep it until the client closes it */
		if (nheld < MAX_HELD) {
			held[nheld++] = (struct held){x, conn, label};
			return 0;
		}
		BENCH_LOG("more than %d connections held\n", MAX_HELD);
		return x->disconnect(&conn) ? -1 : 0;
	}
	ret = workload_messaging(hello.workload) ?
			serve_messages(x->ops, conn, mem, &hello) : spin_until_closed(x, conn);
	if (ret == 0)
		ret = x->wait_closed(conn);
	if (x->disconnect(&conn))
		ret = -1;
	if (ret)
		BENCH_LOG("%s connection for %s ended with an error\n", x->name,
				workload_name(hello.workload));
	return 0;
}

static int
alloc_messages(struct bench_mem *mem, size_t max_size)
{
	mem->msg_size = max_size < MSG_SLOT_MIN ? MSG_SLOT_MIN : max_size;
	mem->msg_slots = MAX_DEPTH + 3;	/* receive slots, then one send slot */
	mem->msg = aligned_alloc(4096, mem->msg_size * mem->msg_slots);
	if (mem->msg == NULL) {
		BENCH_LOG("cannot allocate %zu bytes\n", mem->msg_size * mem->msg_slots);
		return -1;
	}
	memset(mem->msg, 0, mem->msg_size * mem->msg_slots);
	return 0;
}

static int
serve_forever(const struct xport *const xports[MODE_COUNT], void *ctx[MODE_COUNT],
		struct pollfd fds[MODE_COUNT + MAX_HELD], const struct bench_mem *mem, bool once)
{
	while (!stop_requested) {
		for (int i = 0; i < nheld; i++)
			fds[MODE_COUNT + i] = (struct pollfd){
				.fd = held[i].x->event_fd(held[i].conn), .events = POLLIN};
		if (poll(fds, (nfds_t)(MODE_COUNT + nheld), -1) < 0) {
			if (errno == EINTR)
				continue;
			perror("poll()");
			return -1;
		}
		/* from the end: release_held() moves the last one into the gap */
		for (int i = nheld - 1; i >= 0; i--)
			if (fds[MODE_COUNT + i].revents & POLLIN)
				release_held(i);
		for (int m = 0; m < MODE_COUNT; m++) {
			if (!(fds[m].revents & POLLIN))
				continue;
			if (serve_one(xports[m], ctx[m], mem))
				return -1;
			if (once)
				return 0;
		}
	}
	return 0;
}

int
server_run(const char *addr, const char *port, const char *pmem_path, size_t max_size,
		bool once)
{
	static const struct xport *const xports[MODE_COUNT] = {&xport_lib, &xport_raw};
	struct bench_mem mem = {0};
	void *ctx[MODE_COUNT] = {NULL};
	static struct pollfd fds[MODE_COUNT + MAX_HELD];
	char ports[MODE_COUNT][16];
	int ret = -1;

	struct sigaction sa = {.sa_handler = on_signal};
	(void) sigaction(SIGINT, &sa, NULL);
	(void) sigaction(SIGTERM, &sa, NULL);

	if (pmem_open(pmem_path, (size_t)MAX_DEPTH * max_size, &mem))
		return -1;
	if (alloc_messages(&mem, max_size))
		goto out_pmem;
	for (int m = 0; m < MODE_COUNT; m++) {
		(void) snprintf(ports[m], sizeof(ports[m]), "%d", atoi(port) + m);
		fds[m].events = POLLIN;
		if (xports[m]->server_open(addr, ports[m], &mem, &ctx[m], &fds[m].fd))
			goto out_close;
	}
	printf("rpma-bench server: ready on %s ports %s (lib) and %s (raw), memory %s%s\n",
			addr, ports[MODE_LIB], ports[MODE_RAW],
			pmem_path ? pmem_path : "/dev/shm",
			mem.pmem ? " (pmem: direct write to pmem declared)" : " (not pmem)");
	fflush(stdout);
	ret = serve_forever(xports, ctx, fds, &mem, once);

out_close:
	while (nheld > 0) {
		struct held *h = &held[--nheld];
		(void) h->x->disconnect(&h->conn);
	}
	for (int m = 0; m < MODE_COUNT; m++)
		if (ctx[m])
			xports[m]->close(&ctx[m]);
	free(mem.msg);
out_pmem:
	pmem_close(&mem);
	return ret;
}
