// SPDX-License-Identifier: BSD-3-Clause
/*
 * raw.c -- the "raw" mode: the baseline. Connections set up with librdmacm
 * and operations posted with ibv_post_send()/ibv_post_recv()/ibv_poll_cq(),
 * with what librpma sets up reproduced: the same QP capabilities (and the
 * extended QP where ATOMIC WRITE is native), the same CQ on a completion
 * channel, the same connection parameters, the same memory, and the flush
 * done the way librpma does it: a native FLUSH where both this build and the
 * device have it and the workload is apm, an 8-byte RDMA read after the
 * writes otherwise.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/rdma_cma.h>

#include "bench.h"

#define FLUSH_BUF 8
#define INLINE_MAX 8

struct raw_ctx {
	struct rdma_cm_id *dev_id;	/* client: keeps the device resolved */
	struct rdma_event_channel *listen_ch;	/* server */
	struct rdma_cm_id *listen_id;
	struct ibv_pd *pd;
	struct ibv_mr *data_mr;
	struct ibv_mr *msg_mr;
	struct ibv_mr *flush_mr;
	char flush_buf[FLUSH_BUF];
	struct bench_mem *mem;
	bool native_atomic;
	unsigned flush_caps;	/* BENCH_FLUSH_* the device serves */
	unsigned native_flush;	/* ... and this build posts */
};

/* the hot fields first */
struct raw_conn {
	struct ibv_qp *qp;
	struct ibv_cq *cq;
	struct ibv_qp_ex *qpx;
	char *data;
	char *msg;
	char *flush_buf;
	uint64_t raddr;
	uint64_t rsize;
	uint32_t rkey;
	uint32_t data_lkey;
	uint32_t msg_lkey;
	uint32_t flush_lkey;
	bool native_atomic;
	unsigned flush_place;	/* a native FLUSH of this placement, or 0: a read */
	/* set-up */
	struct rdma_cm_id *id;
	struct rdma_event_channel *ch;	/* the connection's own, as librpma makes it */
	struct ibv_comp_channel *comp_ch;
	bool server;
};

struct raw_reply {
	uint64_t addr;
	uint64_t size;
	uint32_t rkey;
	uint32_t native_atomic;
	uint32_t flush_place;	/* the placement the region serves for this workload, or 0 */
};

#define RC(c) ((struct raw_conn *)(void *)(c))

static int
failed(const char *call)
{
	BENCH_LOG("%s failed: %s\n", call, strerror(errno));
	return -1;
}

/* --- the data path ------------------------------------------------------- */

static inline int
post_send(struct ibv_qp *qp, struct ibv_send_wr *wr)
{
	struct ibv_send_wr *bad;
	return ibv_post_send(qp, wr, &bad);
}

static int
raw_rdma(struct raw_conn *rc, enum ibv_wr_opcode opcode, size_t loff, size_t roff,
		size_t len, unsigned flags)
{
	struct ibv_sge sge = {
		.addr = (uint64_t)(uintptr_t)(rc->data + loff),
		.length = (uint32_t)len,
		.lkey = rc->data_lkey,
	};
	struct ibv_send_wr wr = {
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = opcode,
		.send_flags = flags,
		.wr.rdma.remote_addr = rc->raddr + roff,
		.wr.rdma.rkey = rc->rkey,
	};
	return post_send(rc->qp, &wr);
}

static int
raw_write(struct xconn *c, size_t loff, size_t roff, size_t len, bool signal)
{
	return raw_rdma(RC(c), IBV_WR_RDMA_WRITE, loff, roff, len, signal ? IBV_SEND_SIGNALED : 0);
}

static int
raw_read(struct xconn *c, size_t loff, size_t roff, size_t len)
{
	return raw_rdma(RC(c), IBV_WR_RDMA_READ, loff, roff, len, IBV_SEND_SIGNALED);
}

/* what rpma_flush() does: a native FLUSH of the range, or a read of a few of its bytes */
static int
raw_flush(struct xconn *c, size_t roff, size_t len)
{
	struct raw_conn *rc = RC(c);
#ifdef HAVE_IBV_FLUSH
	if (rc->flush_place) {
		ibv_wr_start(rc->qpx);
		rc->qpx->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_flush(rc->qpx, rc->rkey, rc->raddr + roff, len, (uint8_t)rc->flush_place,
				IBV_FLUSH_RANGE);
		return ibv_wr_complete(rc->qpx);
	}
#else
	(void) len;
#endif
	uint64_t off = roff <= rc->rsize - FLUSH_BUF ? roff : rc->rsize - FLUSH_BUF;
	struct ibv_sge sge = {
		.addr = (uint64_t)(uintptr_t)rc->flush_buf,
		.length = FLUSH_BUF,
		.lkey = rc->flush_lkey,
	};
	struct ibv_send_wr wr = {
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_RDMA_READ,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma.remote_addr = rc->raddr + off,
		.wr.rdma.rkey = rc->rkey,
	};
	return post_send(rc->qp, &wr);
}

static int
raw_atomic_write(struct xconn *c, size_t roff, const char src[8])
{
	struct raw_conn *rc = RC(c);
#ifdef HAVE_IBV_ATOMIC_WRITE
	if (rc->qpx) {
		ibv_wr_start(rc->qpx);
		rc->qpx->wr_id = 0;
		rc->qpx->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_atomic_write(rc->qpx, rc->rkey, rc->raddr + roff, src);
		return ibv_wr_complete(rc->qpx);
	}
#endif
	/* without native ATOMIC WRITE: an inline 8-byte write, as librpma does */
	struct ibv_sge sge = {.addr = (uint64_t)(uintptr_t)src, .length = 8};
	struct ibv_send_wr wr = {
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE,
		.wr.rdma.remote_addr = rc->raddr + roff,
		.wr.rdma.rkey = rc->rkey,
	};
	return post_send(rc->qp, &wr);
}

static int
raw_send(struct xconn *c, size_t msg_off, size_t len, uint64_t wr_id)
{
	struct raw_conn *rc = RC(c);
	struct ibv_sge sge = {
		.addr = (uint64_t)(uintptr_t)(rc->msg + msg_off),
		.length = (uint32_t)len,
		.lkey = rc->msg_lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = wr_id,
		.sg_list = &sge,
		.num_sge = len ? 1 : 0,
		.opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
	};
	return post_send(rc->qp, &wr);
}

static int
raw_recv(struct xconn *c, size_t msg_off, size_t len, uint64_t wr_id)
{
	struct raw_conn *rc = RC(c);
	struct ibv_sge sge = {
		.addr = (uint64_t)(uintptr_t)(rc->msg + msg_off),
		.length = (uint32_t)len,
		.lkey = rc->msg_lkey,
	};
	struct ibv_recv_wr wr = {
		.wr_id = wr_id,
		.sg_list = &sge,
		.num_sge = 1,
	};
	struct ibv_recv_wr *bad;
	return ibv_post_recv(rc->qp, &wr, &bad);
}

static int
raw_poll(struct xconn *c, struct ibv_wc *wc, int n)
{
	return ibv_poll_cq(RC(c)->cq, n, wc);
}

static const struct xport_ops raw_ops = {
	.write = raw_write,
	.read = raw_read,
	.flush = raw_flush,
	.atomic_write = raw_atomic_write,
	.send = raw_send,
	.recv = raw_recv,
	.poll = raw_poll,
};

/* --- set-up ---------------------------------------------------------------- */

static int
reg_memory(struct raw_ctx *ctx, struct ibv_context *verbs, int data_access)
{
	struct bench_mem *mem = ctx->mem;

	ctx->native_atomic = device_native_atomic_write(verbs);
	ctx->flush_caps = device_flush_caps(verbs);
	ctx->native_flush = device_native_flush(verbs);
	ctx->pd = ibv_alloc_pd(verbs);
	if (ctx->pd == NULL)
		return failed("ibv_alloc_pd()");
	ctx->data_mr = ibv_reg_mr(ctx->pd, mem->data, mem->data_size, data_access);
	/* as librpma: without the persistent-flush right where refused (DRAM), then without any */
	if (ctx->data_mr == NULL && (data_access & BENCH_ACCESS_FLUSH_PERSISTENT))
		ctx->data_mr = ibv_reg_mr(ctx->pd, mem->data, mem->data_size,
				data_access & ~BENCH_ACCESS_FLUSH_PERSISTENT);
	if (ctx->data_mr == NULL && (data_access & BENCH_ACCESS_FLUSH_GLOBAL))
		ctx->data_mr = ibv_reg_mr(ctx->pd, mem->data, mem->data_size,
				data_access & ~(BENCH_ACCESS_FLUSH_GLOBAL | BENCH_ACCESS_FLUSH_PERSISTENT));
	if (ctx->data_mr == NULL)
		return failed("ibv_reg_mr(data)");
	ctx->msg_mr = ibv_reg_mr(ctx->pd, mem->msg, mem->msg_size * mem->msg_slots,
			IBV_ACCESS_LOCAL_WRITE);
	if (ctx->msg_mr == NULL)
		return failed("ibv_reg_mr(messages)");
	ctx->flush_mr = ibv_reg_mr(ctx->pd, ctx->flush_buf, FLUSH_BUF, IBV_ACCESS_LOCAL_WRITE);
	if (ctx->flush_mr == NULL)
		return failed("ibv_reg_mr(flush)");
	return 0;
}

static void
raw_close(void **ctx_ptr)
{
	struct raw_ctx *ctx = *ctx_ptr;

	if (ctx == NULL)
		return;
	if (ctx->flush_mr)
		(void) ibv_dereg_mr(ctx->flush_mr);
	if (ctx->msg_mr)
		(void) ibv_dereg_mr(ctx->msg_mr);
	if (ctx->data_mr)
		(void) ibv_dereg_mr(ctx->data_mr);
	if (ctx->pd)
		(void) ibv_dealloc_pd(ctx->pd);
	if (ctx->listen_id)
		(void) rdma_destroy_id(ctx->listen_id);
	if (ctx->listen_ch)
		rdma_destroy_event_channel(ctx->listen_ch);
	if (ctx->dev_id)
		(void) rdma_destroy_id(ctx->dev_id);
	free(ctx);
	*ctx_ptr = NULL;
}

/* wait for an event of type expected; copies its private data to pd (if any) */
static int
expect_event(struct rdma_event_channel *ch, enum rdma_cm_event_type expected,
		void *pd, size_t pd_len, struct rdma_cm_event **keep)
{
	struct rdma_cm_event *ev;

	if (rdma_get_cm_event(ch, &ev))
		return failed("rdma_get_cm_event()");
	if (ev->event != expected) {
		BENCH_LOG("got cm event %s, expected %s\n", rdma_event_str(ev->event),
				rdma_event_str(expected));
		(void) rdma_ack_cm_event(ev);
		return -1;
	}
	if (pd) {
		memset(pd, 0, pd_len);
		if (ev->param.conn.private_data)
			memcpy(pd, ev->param.conn.private_data,
					ev->param.conn.private_data_len < pd_len ?
					ev->param.conn.private_data_len : pd_len);
	}
	if (keep) {
		*keep = ev;
		return 0;
	}
	return rdma_ack_cm_event(ev) ? failed("rdma_ack_cm_event()") : 0;
}

/* the CQ and the QP exactly as librpma makes them */
static int
create_queues(struct raw_ctx *ctx, struct raw_conn *rc)
{
	struct queue_sizes q = bench_queue_sizes();
	struct ibv_context *verbs = rc->id->verbs;

	rc->comp_ch = ibv_create_comp_channel(verbs);
	if (rc->comp_ch == NULL)
		return failed("ibv_create_comp_channel()");
	rc->cq = ibv_create_cq(verbs, (int)q.cq, NULL, rc->comp_ch, 0);
	if (rc->cq == NULL)
		return failed("ibv_create_cq()");
	if (ibv_req_notify_cq(rc->cq, 0))
		return failed("ibv_req_notify_cq()");

	struct ibv_qp_init_attr_ex attr = {
		.send_cq = rc->cq,
		.recv_cq = rc->cq,
		.cap = {
			.max_send_wr = q.sq,
			.max_recv_wr = q.rq,
			.max_send_sge = 1,
			.max_recv_sge = 1,
			.max_inline_data = INLINE_MAX,
		},
		.qp_type = IBV_QPT_RC,
		.sq_sig_all = 0,
		.comp_mask = IBV_QP_INIT_ATTR_PD,
		.pd = ctx->pd,
	};
	uint64_t ops = 0;
#ifdef HAVE_IBV_ATOMIC_WRITE
	if (ctx->native_atomic)
		ops |= IBV_QP_EX_WITH_ATOMIC_WRITE;
#endif
#ifdef HAVE_IBV_FLUSH
	if (ctx->native_flush)
		ops |= IBV_QP_EX_WITH_FLUSH;
#endif
	if (ops) {
		attr.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
		attr.send_ops_flags = ops | IBV_QP_EX_WITH_RDMA_WRITE |
			IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM | IBV_QP_EX_WITH_SEND |
			IBV_QP_EX_WITH_SEND_WITH_IMM | IBV_QP_EX_WITH_RDMA_READ;
	}
	if (rdma_create_qp_ex(rc->id, &attr))
		return failed("rdma_create_qp_ex()");
	rc->qp = rc->id->qp;
	if (ops)
		rc->qpx = ibv_qp_to_qp_ex(rc->qp);
	return 0;
}

static struct raw_conn *
conn_alloc(struct raw_ctx *ctx)
{
	struct raw_conn *rc = calloc(1, sizeof(*rc));

	if (rc == NULL)
		return NULL;
	rc->data = ctx->mem->data;
	rc->msg = ctx->mem->msg;
	rc->flush_buf = ctx->flush_buf;
	rc->data_lkey = ctx->data_mr->lkey;
	rc->msg_lkey = ctx->msg_mr->lkey;
	rc->flush_lkey = ctx->flush_mr->lkey;
	rc->native_atomic = ctx->native_atomic;
	return rc;
}

static void
conn_free(struct raw_conn *rc)
{
	if (rc->qp)
		rdma_destroy_qp(rc->id);
	if (rc->cq)
		(void) ibv_destroy_cq(rc->cq);
	if (rc->comp_ch)
		(void) ibv_destroy_comp_channel(rc->comp_ch);
	if (rc->id)
		(void) rdma_destroy_id(rc->id);
	if (rc->ch)
		rdma_destroy_event_channel(rc->ch);
	free(rc);
}

/* librpma's connection parameters */
static struct rdma_conn_param
conn_param(const void *pd, size_t len)
{
	struct rdma_conn_param param = {
		.private_data = pd,
		.private_data_len = (uint8_t)len,
		.responder_resources = RDMA_MAX_RESP_RES,
		.initiator_depth = RDMA_MAX_INIT_DEPTH,
		.flow_control = 1,
		.retry_count = 7,
		.rnr_retry_count = 7,
	};
	return param;
}

/* --- client ---------------------------------------------------------------- */

static int
resolve(struct rdma_cm_id *id, const char *addr, const char *port)
{
	struct rdma_addrinfo hints = {.ai_port_space = RDMA_PS_TCP}, *rai;

	if (rdma_getaddrinfo(addr, port, &hints, &rai))
		return failed("rdma_getaddrinfo()");
	int ret = rdma_resolve_addr(id, rai->ai_src_addr, rai->ai_dst_addr, 1000);
	rdma_freeaddrinfo(rai);
	return ret ? failed("rdma_resolve_addr()") : 0;
}

static int
raw_client_open(const char *addr, struct bench_mem *mem, void **ctx_ptr)
{
	struct raw_ctx *ctx = calloc(1, sizeof(*ctx));

	if (ctx == NULL)
		return -1;
	ctx->mem = mem;
	*ctx_ptr = ctx;
	/* a synchronous id (no channel) finds the device that routes to addr */
	if (rdma_create_id(NULL, &ctx->dev_id, NULL, RDMA_PS_TCP)) {
		failed("rdma_create_id()");
		goto err;
	}
	if (resolve(ctx->dev_id, addr, NULL) ||
			reg_memory(ctx, ctx->dev_id->verbs,
				IBV_ACCESS_LOCAL_WRITE))
		goto err;
	return 0;
err:
	raw_close(ctx_ptr);
	return -1;
}

static int
raw_disconnect(struct xconn **conn_ptr)
{
	struct raw_conn *rc = RC(*conn_ptr);
	int err = 0;

	if (rc == NULL)
		return 0;
	if (!rc->server) {
		(void) rdma_disconnect(rc->id);
		err = expect_event(rc->ch, RDMA_CM_EVENT_DISCONNECTED, NULL, 0, NULL);
	}
	conn_free(rc);
	*conn_ptr = NULL;
	return err;
}

static int
raw_connect(void *ctx_ptr, const char *addr, const char *port, const struct hello *hello,
		struct xconn **conn)
{
	struct raw_ctx *ctx = ctx_ptr;
	struct raw_conn *rc = conn_alloc(ctx);
	struct raw_reply reply;

	if (rc == NULL)
		return -1;
	rc->ch = rdma_create_event_channel();
	if (rc->ch == NULL) {
		failed("rdma_create_event_channel()");
		goto err;
	}
	if (rdma_create_id(rc->ch, &rc->id, NULL, RDMA_PS_TCP)) {
		failed("rdma_create_id()");
		goto err;
	}
	if (resolve(rc->id, addr, port) ||
			expect_event(rc->ch, RDMA_CM_EVENT_ADDR_RESOLVED, NULL, 0, NULL))
		goto err;
	if (rdma_resolve_route(rc->id, 1000)) {
		failed("rdma_resolve_route()");
		goto err;
	}
	if (expect_event(rc->ch, RDMA_CM_EVENT_ROUTE_RESOLVED, NULL, 0, NULL) ||
			create_queues(ctx, rc))
		goto err;
	struct rdma_conn_param param = conn_param(hello, sizeof(*hello));
	if (rdma_connect(rc->id, &param)) {
		failed("rdma_connect()");
		goto err;
	}
	if (expect_event(rc->ch, RDMA_CM_EVENT_ESTABLISHED, &reply, sizeof(reply), NULL))
		goto err;
	if (reply.size < FLUSH_BUF) {
		BENCH_LOG("the server's region is too small\n");
		*conn = (struct xconn *)(void *)rc;
		(void) raw_disconnect(conn);
		return -1;
	}
	rc->raddr = reply.addr;
	rc->rsize = reply.size;
	rc->rkey = reply.rkey;
	rc->flush_place = rc->qpx ? reply.flush_place & ctx->native_flush : 0;
	*conn = (struct xconn *)(void *)rc;
	return 0;
err:
	conn_free(rc);
	return -1;
}

/* --- server ---------------------------------------------------------------- */

static int
raw_server_open(const char *addr, const char *port, struct bench_mem *mem, void **ctx_ptr,
		int *fd)
{
	struct rdma_addrinfo hints = {.ai_flags = RAI_PASSIVE, .ai_port_space = RDMA_PS_TCP};
	struct rdma_addrinfo *rai;
	struct raw_ctx *ctx = calloc(1, sizeof(*ctx));

	if (ctx == NULL)
		return -1;
	ctx->mem = mem;
	*ctx_ptr = ctx;
	ctx->listen_ch = rdma_create_event_channel();
	if (ctx->listen_ch == NULL) {
		failed("rdma_create_event_channel()");
		goto err;
	}
	if (rdma_create_id(ctx->listen_ch, &ctx->listen_id, NULL, RDMA_PS_TCP)) {
		failed("rdma_create_id()");
		goto err;
	}
	if (rdma_getaddrinfo(addr, port, &hints, &rai)) {
		failed("rdma_getaddrinfo()");
		goto err;
	}
	int ret = rdma_bind_addr(ctx->listen_id, rai->ai_src_addr);
	rdma_freeaddrinfo(rai);
	if (ret) {
		failed("rdma_bind_addr()");
		goto err;
	}
	/* what librpma registers: READ_SRC | WRITE_DST | FLUSH_TYPE_* */
	unsigned caps = device_flush_caps(ctx->listen_id->verbs);
	int flush_rights = ((caps & BENCH_FLUSH_GLOBAL) ? BENCH_ACCESS_FLUSH_GLOBAL : 0) |
		((caps & BENCH_FLUSH_PERSISTENT) && mem->pmem ? BENCH_ACCESS_FLUSH_PERSISTENT : 0);
	if (reg_memory(ctx, ctx->listen_id->verbs, IBV_ACCESS_LOCAL_WRITE |
			IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | flush_rights))
		goto err;
	if (rdma_listen(ctx->listen_id, 0)) {
		failed("rdma_listen()");
		goto err;
	}
	*fd = ctx->listen_ch->fd;
	return 0;
err:
	raw_close(ctx_ptr);
	return -1;
}

/* rdma_migrate_id() waits until the id's events are acknowledged */
static int
own_channel(struct raw_conn *rc)
{
	rc->ch = rdma_create_event_channel();
	if (rc->ch == NULL)
		return failed("rdma_create_event_channel()");
	if (rdma_migrate_id(rc->id, rc->ch))
		return failed("rdma_migrate_id()");
	return 0;
}

static int
raw_accept(void *ctx_ptr, struct xconn **conn, struct hello *hello)
{
	struct raw_ctx *ctx = ctx_ptr;
	struct rdma_cm_event *ev;
	struct raw_conn *rc = conn_alloc(ctx);

	if (rc == NULL)
		return -1;
	rc->server = true;
	if (expect_event(ctx->listen_ch, RDMA_CM_EVENT_CONNECT_REQUEST, NULL, 0, &ev))
		goto err_free;
	rc->id = ev->id;
	const void *pd = ev->param.conn.private_data;
	uint8_t pd_len = ev->param.conn.private_data_len;
	/* no HELLO_GRANT: a grant is the library's (a window bound for one QP), raw has none */
	if (hello_parse(pd, pd_len, ctx->mem, HELLO_HOLD, hello) || create_queues(ctx, rc))
		goto err_reject;
	for (uint32_t i = 0; workload_messaging(hello->workload) && i < hello->depth + 2; i++) {
		if (raw_recv((struct xconn *)(void *)rc, i * ctx->mem->msg_size,
				hello->msg_size, i)) {
			failed("ibv_post_recv()");
			goto err_reject;
		}
	}
	struct raw_reply reply = {
		.addr = (uint64_t)(uintptr_t)ctx->mem->data,
		.size = ctx->mem->data_size,
		.rkey = ctx->data_mr->rkey,
		.native_atomic = ctx->native_atomic,
		/* librpma's apm region has no READ_SRC: flushed natively where possible */
		.flush_place = hello->workload != WL_APM ? 0 : ctx->mem->pmem ?
			BENCH_FLUSH_PERSISTENT : BENCH_FLUSH_GLOBAL,
	};
	/* the connection's events on a channel of its own, as librpma does */
	(void) rdma_ack_cm_event(ev);
	if (own_channel(rc)) {
		(void) rdma_reject(rc->id, NULL, 0);
		goto err_free;
	}
	struct rdma_conn_param param = conn_param(&reply, sizeof(reply));
	if (rdma_accept(rc->id, &param)) {
		failed("rdma_accept()");
		(void) rdma_reject(rc->id, NULL, 0);
		goto err_free;
	}
	*conn = (struct xconn *)(void *)rc;
	if (expect_event(rc->ch, RDMA_CM_EVENT_ESTABLISHED, NULL, 0, NULL)) {
		(void) raw_disconnect(conn);
		return -1;
	}
	return 0;

err_reject:
	(void) rdma_reject(rc->id, NULL, 0);
	(void) rdma_ack_cm_event(ev);
err_free:
	conn_free(rc);
	return -1;
}

static int
raw_event_fd(const struct xconn *c)
{
	return RC(c)->ch->fd;
}

static int
raw_wait_closed(struct xconn *conn)
{
	return expect_event(RC(conn)->ch, RDMA_CM_EVENT_DISCONNECTED, NULL, 0, NULL);
}

static const char *
raw_flush_kind(const struct xconn *c)
{
	return RC(c)->flush_place ? "native" : "read-after-write";
}

static bool
raw_native_atomic(const struct xconn *c)
{
	return RC(c)->native_atomic;
}

const struct xport xport_raw = {
	.name = "raw",
	.ops = &raw_ops,
	.client_open = raw_client_open,
	.connect = raw_connect,
	.server_open = raw_server_open,
	.accept = raw_accept,
	.event_fd = raw_event_fd,
	.wait_closed = raw_wait_closed,
	.disconnect = raw_disconnect,
	.close = raw_close,
	.flush_kind = raw_flush_kind,
	.native_atomic = raw_native_atomic,
};
