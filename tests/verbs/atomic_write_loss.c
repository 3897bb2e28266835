// SPDX-License-Identifier: BSD-3-Clause
/*
 * atomic_write_loss.c -- native RDMA ATOMIC WRITE and FLUSH on plain
 * libibverbs and librdmacm, no librpma: does the device serve an ATOMIC
 * WRITE or a FLUSH that is sent again (a packet lost, under tc netem) as it
 * serves the first one?
 *
 * Usage (run-pair's interface): rpma-verbs-atomic-write MODE server
 *                               rpma-verbs-atomic-write MODE client INDEX
 * MODE: atomic_write (native ATOMIC WRITE, then an RDMA READ of the 8
 * bytes), write (the same with an 8-byte RDMA WRITE: the control), or,
 * where rdma-core has it, flush (an 8-byte RDMA WRITE, then a native
 * FLUSH of it to global visibility, each posted on its own as librpma
 * posts them, only the FLUSH signaled; the server's region needs
 * RPMA_VERBS_MR_ACCESS=flush).
 * The server listens on RPMA_TEST_IP:RPMA_TEST_PORT and hands its region's
 * address and rkey over in the private data; the client, connecting to
 * RPMA_TEST_SERVER_IP (or RPMA_TEST_IP), posts RPMA_VERBS_OPS operations
 * (default 200), each waited for, each with its own value, read back and
 * compared, each within RPMA_VERBS_WAIT_MS (default 120000 ms, as is
 * each CM event). Any completion other than IBV_WC_SUCCESS fails the client,
 * which prints the operation's index, the status and the time it took.
 * RPMA_VERBS_MR_ACCESS=flush registers the server's region with the
 * rights of a native FLUSH as well, as librpma does (where rdma-core has
 * them).
 */

#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#define REGION 4096
#define OFFSET 64
/* how long any one event or completion is waited for: RPMA_VERBS_WAIT_MS */
static int wait_ms = 120000;

struct region_info {
	uint64_t addr;
	uint32_t rkey;
} __attribute__((packed));

struct side {
	struct rdma_event_channel *ch;
	struct rdma_cm_id *listen_id;
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_comp_channel *cch;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	char *buf;
};

__attribute__((noreturn, format(printf, 1, 2))) static void
die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "verbs-atomic-write: ");
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (errno %d: %s)\n", errno, strerror(errno));
	exit(1);
}

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static const char *
env_or(const char *name, const char *fallback)
{
	const char *value = getenv(name);

	return value && *value ? value : fallback;
}

/* the next CM event, which must be the one expected; its private data kept */
static void
expect_event(struct rdma_event_channel *ch, enum rdma_cm_event_type expected,
		struct rdma_cm_id **id, void *pdata, size_t len)
{
	struct rdma_cm_event *event;
	struct pollfd pfd = {.fd = ch->fd, .events = POLLIN};

	if (poll(&pfd, 1, wait_ms) != 1)
		die("no CM event within %d ms, waiting for %s", wait_ms,
				rdma_event_str(expected));
	if (rdma_get_cm_event(ch, &event))
		die("rdma_get_cm_event()");
	if (event->event != expected) {
		errno = event->status < 0 ? -event->status : 0;
		die("CM event %s, expected %s", rdma_event_str(event->event),
				rdma_event_str(expected));
	}
	if (id)
		*id = event->id;
	if (pdata) {
		if (event->param.conn.private_data_len < len)
			die("private data of %u bytes", event->param.conn.private_data_len);
		memcpy(pdata, event->param.conn.private_data, len);
	}
	rdma_ack_cm_event(event);
}

/* the PD, CQ and QP on side->id; the QP can post ATOMIC WRITE */
static void
create_queues(struct side *s)
{
	s->pd = ibv_alloc_pd(s->id->verbs);
	s->cch = ibv_create_comp_channel(s->id->verbs);
	if (!s->pd || !s->cch)
		die("ibv_alloc_pd() or ibv_create_comp_channel()");
	s->cq = ibv_create_cq(s->id->verbs, 16, NULL, s->cch, 0);
	if (!s->cq || ibv_req_notify_cq(s->cq, 0))
		die("ibv_create_cq()");
	struct ibv_qp_init_attr_ex attr = {
		.send_cq = s->cq,
		.recv_cq = s->cq,
		.cap = {.max_send_wr = 8, .max_recv_wr = 8, .max_send_sge = 1,
			.max_recv_sge = 1},
		.qp_type = IBV_QPT_RC,
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.pd = s->pd,
		.send_ops_flags = IBV_QP_EX_WITH_ATOMIC_WRITE | IBV_QP_EX_WITH_RDMA_WRITE |
			IBV_QP_EX_WITH_RDMA_READ,
	};
#ifdef HAVE_IBV_FLUSH
	attr.send_ops_flags |= IBV_QP_EX_WITH_FLUSH;
#endif
	if (rdma_create_qp_ex(s->id, &attr))
		die("rdma_create_qp_ex()");
	s->buf = aligned_alloc(4096, REGION);
	if (!s->buf)
		die("aligned_alloc()");
	memset(s->buf, 0, REGION);
}

/* the connection parameters librpma uses (src/conn_req.c) */
static struct rdma_conn_param
conn_param(const void *pdata, size_t len)
{
	struct rdma_conn_param param = {
		.private_data = pdata,
		.private_data_len = (uint8_t)len,
		.responder_resources = RDMA_MAX_RESP_RES,
		.initiator_depth = RDMA_MAX_INIT_DEPTH,
		.flow_control = 1,
		.retry_count = 7,
		.rnr_retry_count = 7,
	};
	return param;
}

static struct ibv_wc
wait_wc(struct side *s)
{
	struct ibv_wc wc;
	struct pollfd pfd = {.fd = s->cch->fd, .events = POLLIN};
	double deadline = now_s() + wait_ms / 1000.0;

	for (;;) {
		int n = ibv_poll_cq(s->cq, 1, &wc);
		if (n < 0)
			die("ibv_poll_cq()");
		if (n == 1)
			return wc;
		if (now_s() > deadline)
			die("no completion within %d ms", wait_ms);
		if (poll(&pfd, 1, 1000) == 1) {
			struct ibv_cq *cq;
			void *ctx;
			if (ibv_get_cq_event(s->cch, &cq, &ctx))
				die("ibv_get_cq_event()");
			ibv_ack_cq_events(cq, 1);
			if (ibv_req_notify_cq(cq, 0))
				die("ibv_req_notify_cq()");
		}
	}
}

static int
server(void)
{
	struct side s = {0};
	struct rdma_addrinfo hints = {.ai_flags = RAI_PASSIVE, .ai_port_space = RDMA_PS_TCP};
	struct rdma_addrinfo *ai;

	if (rdma_getaddrinfo(env_or("RPMA_TEST_IP", NULL), env_or("RPMA_TEST_PORT", NULL),
			&hints, &ai))
		die("rdma_getaddrinfo()");
	s.ch = rdma_create_event_channel();
	if (!s.ch || rdma_create_id(s.ch, &s.listen_id, NULL, RDMA_PS_TCP) ||
			rdma_bind_addr(s.listen_id, ai->ai_src_addr) || rdma_listen(s.listen_id, 1))
		die("listening");
	rdma_freeaddrinfo(ai);
	/* the runner starts the client once it reads this line */
	printf("listening on %s:%s\n", env_or("RPMA_TEST_IP", ""), env_or("RPMA_TEST_PORT", ""));
	fflush(stdout);

	expect_event(s.ch, RDMA_CM_EVENT_CONNECT_REQUEST, &s.id, NULL, 0);
	create_queues(&s);
	int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
#ifdef HAVE_IBV_FLUSH
	if (strcmp(env_or("RPMA_VERBS_MR_ACCESS", "plain"), "flush") == 0)
		access |= IBV_ACCESS_FLUSH_GLOBAL;
#endif
	s.mr = ibv_reg_mr(s.pd, s.buf, REGION, access);
	if (!s.mr)
		die("ibv_reg_mr()");
	printf("region access flags: %#x\n", access);
	struct region_info info = {.addr = (uint64_t)(uintptr_t)s.buf, .rkey = s.mr->rkey};
	struct rdma_conn_param param = conn_param(&info, sizeof(info));
	if (rdma_accept(s.id, &param))
		die("rdma_accept()");
	/*
	 * A lost RTU delays ESTABLISHED, and a client done by then makes it
	 * DISCONNECTED at once: the QP served the client meanwhile (README).
	 */
	struct rdma_cm_event *event;
	bool established = false;
	for (;;) {
		struct pollfd pfd = {.fd = s.ch->fd, .events = POLLIN};
		if (poll(&pfd, 1, wait_ms) != 1 || rdma_get_cm_event(s.ch, &event))
			die("no CM event within %d ms", wait_ms);
		enum rdma_cm_event_type type = event->event;
		rdma_ack_cm_event(event);
		if (type == RDMA_CM_EVENT_DISCONNECTED)
			break;
		if (type != RDMA_CM_EVENT_ESTABLISHED)
			die("CM event %s", rdma_event_str(type));
		established = true;
	}
	if (!established)
		printf("DISCONNECTED without ESTABLISHED (a lost RTU)\n");
	uint64_t last;
	memcpy(&last, s.buf + OFFSET, sizeof(last));
	printf("the client disconnected; the last value here: %llu\n", (unsigned long long)last);
	rdma_destroy_qp(s.id);
	ibv_dereg_mr(s.mr);
	return 0;
}

enum mode { MODE_ATOMIC_WRITE, MODE_WRITE, MODE_FLUSH };

static const struct {
	const char *arg;	/* on the command line */
	const char *name;	/* in the client's report */
} modes[] = {
	[MODE_ATOMIC_WRITE] = {"atomic_write", "ATOMIC WRITE"},
	[MODE_WRITE] = {"write", "RDMA WRITE"},
	[MODE_FLUSH] = {"flush", "RDMA WRITE + FLUSH"},
};

/* post operation i of the mode: one work request, or a WRITE and a FLUSH */
static void
post_op(struct ibv_qp_ex *qpx, struct side *s, const struct region_info *info,
		enum mode mode, long i)
{
	ibv_wr_start(qpx);
	qpx->wr_id = (uint64_t)i;
	qpx->wr_flags = mode == MODE_FLUSH ? 0 : IBV_SEND_SIGNALED;
	if (mode == MODE_ATOMIC_WRITE) {
		ibv_wr_atomic_write(qpx, info->rkey, info->addr + OFFSET, s->buf);
	} else {
		/* the work request first, then its data */
		ibv_wr_rdma_write(qpx, info->rkey, info->addr + OFFSET);
		ibv_wr_set_sge(qpx, s->mr->lkey, (uint64_t)(uintptr_t)s->buf, sizeof(uint64_t));
	}
	if (ibv_wr_complete(qpx))
		die("posting operation %ld", i);
#ifdef HAVE_IBV_FLUSH
	if (mode != MODE_FLUSH)
		return;
	ibv_wr_start(qpx);
	qpx->wr_id = (uint64_t)i;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_flush(qpx, info->rkey, info->addr + OFFSET, sizeof(uint64_t), IBV_FLUSH_GLOBAL,
			IBV_FLUSH_RANGE);
	if (ibv_wr_complete(qpx))
		die("posting the FLUSH of operation %ld", i);
#endif
}

static int
client(enum mode mode)
{
	struct side s = {0};
	struct rdma_addrinfo hints = {.ai_port_space = RDMA_PS_TCP};
	struct rdma_addrinfo *ai;
	const char *addr = env_or("RPMA_TEST_SERVER_IP", env_or("RPMA_TEST_IP", NULL));
	long ops = strtol(env_or("RPMA_VERBS_OPS", "200"), NULL, 10);
	struct region_info info;
	int tries = 60;

	s.ch = rdma_create_event_channel();
	if (!s.ch)
		die("rdma_create_event_channel()");
	if (rdma_getaddrinfo(addr, env_or("RPMA_TEST_PORT", NULL), &hints, &ai))
		die("rdma_getaddrinfo(%s)", addr);
	for (;;) {
		/* across hosts the server may not listen yet: retried while refused */
		if (rdma_create_id(s.ch, &s.id, NULL, RDMA_PS_TCP) ||
				rdma_resolve_addr(s.id, NULL, ai->ai_dst_addr, 5000))
			die("rdma_resolve_addr()");
		expect_event(s.ch, RDMA_CM_EVENT_ADDR_RESOLVED, NULL, NULL, 0);
		if (rdma_resolve_route(s.id, 5000))
			die("rdma_resolve_route()");
		expect_event(s.ch, RDMA_CM_EVENT_ROUTE_RESOLVED, NULL, NULL, 0);
		create_queues(&s);
		struct rdma_conn_param param = conn_param(NULL, 0);
		if (rdma_connect(s.id, &param))
			die("rdma_connect()");
		struct rdma_cm_event *event;
		struct pollfd pfd = {.fd = s.ch->fd, .events = POLLIN};
		if (poll(&pfd, 1, wait_ms) != 1 || rdma_get_cm_event(s.ch, &event))
			die("no answer to the connection request");
		enum rdma_cm_event_type type = event->event;
		if (type == RDMA_CM_EVENT_ESTABLISHED) {
			if (event->param.conn.private_data_len < sizeof(info))
				die("no region in the private data");
			memcpy(&info, event->param.conn.private_data, sizeof(info));
			rdma_ack_cm_event(event);
			break;
		}
		rdma_ack_cm_event(event);
		if (type != RDMA_CM_EVENT_REJECTED || --tries == 0)
			die("connecting: %s", rdma_event_str(type));
		rdma_destroy_qp(s.id);
		ibv_destroy_cq(s.cq);
		ibv_destroy_comp_channel(s.cch);
		ibv_dealloc_pd(s.pd);
		free(s.buf);
		rdma_destroy_id(s.id);
		sleep(1);
	}
	rdma_freeaddrinfo(ai);
	s.mr = ibv_reg_mr(s.pd, s.buf, REGION, IBV_ACCESS_LOCAL_WRITE);
	if (!s.mr)
		die("ibv_reg_mr()");
	struct ibv_qp_ex *qpx = ibv_qp_to_qp_ex(s.id->qp);
	if (!qpx)
		die("ibv_qp_to_qp_ex()");

	double slowest = 0;
	for (long i = 1; i <= ops; i++) {
		uint64_t value = 0x5157000000000000ULL + (uint64_t)i;
		memcpy(s.buf, &value, sizeof(value));
		double t0 = now_s();
		post_op(qpx, &s, &info, mode, i);
		struct ibv_wc wc = wait_wc(&s);
		double took = now_s() - t0;
		if (took > slowest)
			slowest = took;
		if (wc.status != IBV_WC_SUCCESS) {
			printf("operation %ld of %ld (%s): %s after %.3f s\n", i, ops,
					modes[mode].name, ibv_wc_status_str(wc.status), took);
			return 1;
		}
		/* read it back: the value must be there */
		ibv_wr_start(qpx);
		qpx->wr_id = (uint64_t)-i;
		qpx->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_rdma_read(qpx, info.rkey, info.addr + OFFSET);
		ibv_wr_set_sge(qpx, s.mr->lkey, (uint64_t)(uintptr_t)(s.buf + 8), 8);
		if (ibv_wr_complete(qpx))
			die("posting read %ld", i);
		wc = wait_wc(&s);
		if (wc.status != IBV_WC_SUCCESS) {
			printf("the read after operation %ld: %s\n", i, ibv_wc_status_str(wc.status));
			return 1;
		}
		if (memcmp(s.buf + 8, &value, sizeof(value)) != 0) {
			printf("operation %ld: read back another value\n", i);
			return 1;
		}
	}
	printf("%ld %s operations completed and read back; the slowest took %.3f s\n", ops,
			modes[mode].name, slowest);
	if (rdma_disconnect(s.id))
		die("rdma_disconnect()");
	expect_event(s.ch, RDMA_CM_EVENT_DISCONNECTED, NULL, NULL, 0);
	return 0;
}

int
main(int argc, char *argv[])
{
	int mode = -1;

	for (int m = 0; argc >= 3 && m < (int)(sizeof(modes) / sizeof(modes[0])); m++)
		if (strcmp(argv[1], modes[m].arg) == 0)
			mode = m;
#ifndef HAVE_IBV_FLUSH
	if (mode == MODE_FLUSH)
		mode = -1;
#endif
	if (mode < 0) {
		fprintf(stderr, "usage: %s atomic_write|write|flush server|client [INDEX]\n"
				"(flush where rdma-core has native FLUSH)\n", argv[0]);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	wait_ms = (int)strtol(env_or("RPMA_VERBS_WAIT_MS", "120000"), NULL, 10);
	if (strcmp(argv[2], "server") == 0)
		return server();
	return client((enum mode)mode);
}
