// SPDX-License-Identifier: BSD-3-Clause
/*
 * lib.c -- the "lib" mode: every connection and every operation through
 * librpma, the way an application would use it. A client may ask for its
 * data through a grant (HELLO_GRANT): then the server binds one on the
 * connection and sends its descriptor in a message, as rpma_grant_new(3)
 * shows, instead of a region's descriptor in the accept's private data.
 */

#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <librpma.h>

#include "bench.h"

struct lib_ctx {
	struct rpma_peer *peer;
	struct rpma_mr_local *data_mr;
	struct rpma_mr_local *msg_mr;
	struct rpma_conn_cfg *cfg;
	struct bench_mem *mem;
	bool native_atomic;
	unsigned native_flush;		/* placement types this build posts on the device */
	/* server only */
	struct rpma_ep *ep;
	struct rpma_peer_cfg *pcfg;
	/* the data again, without READ_SRC: a client flushes it natively where it can */
	struct rpma_mr_local *flush_mr;
	/* and registered for grants, with the usages of data_mr */
	struct rpma_mr_local *grant_mr;
	int grant_usage;
};

/* the hot fields first */
struct lib_conn {
	struct rpma_conn *conn;
	struct rpma_cq *cq;
	struct rpma_mr_local *data_mr;
	struct rpma_mr_local *msg_mr;
	struct rpma_mr_remote *rmr;
	enum rpma_flush_type ftype;
	bool native_atomic;
	bool native_flush;	/* the flush is a native FLUSH (librpma(7) says when) */
	unsigned native_flush_caps;
	struct rpma_grant *grant;	/* server: the connection's grant, or NULL */
};

/* what the server's accept (or, with a grant, its message) carries back: the descriptors */
struct lib_reply {
	uint8_t mr_desc_size;
	uint8_t pcfg_desc_size;
	uint8_t native_atomic;
	uint8_t flush_native;	/* the region has no READ_SRC: flushed natively where possible */
	uint8_t desc[64];
};

_Static_assert(sizeof(struct lib_reply) <= MSG_SLOT_MIN, "the reply fits no message slot");

/* how long either side waits for the grant's message */
#define GRANT_WAIT_MS 20000

#define LC(c) ((struct lib_conn *)(void *)(c))

static int
failed(const char *call, int ret)
{
	BENCH_LOG("%s failed: %s\n", call, rpma_err_2str(ret));
	return -1;
}

/* --- the data path ------------------------------------------------------- */

static int
lib_write(struct xconn *c, size_t loff, size_t roff, size_t len, bool signal)
{
	struct lib_conn *lc = LC(c);
	return rpma_write(lc->conn, lc->rmr, roff, lc->data_mr, loff, len,
			signal ? RPMA_F_COMPLETION_ALWAYS : RPMA_F_COMPLETION_ON_ERROR, NULL);
}

static int
lib_read(struct xconn *c, size_t loff, size_t roff, size_t len)
{
	struct lib_conn *lc = LC(c);
	return rpma_read(lc->conn, lc->data_mr, loff, lc->rmr, roff, len,
			RPMA_F_COMPLETION_ALWAYS, NULL);
}

static int
lib_flush(struct xconn *c, size_t roff, size_t len)
{
	struct lib_conn *lc = LC(c);
	return rpma_flush(lc->conn, lc->rmr, roff, len, lc->ftype, RPMA_F_COMPLETION_ALWAYS,
			NULL);
}

static int
lib_atomic_write(struct xconn *c, size_t roff, const char src[8])
{
	struct lib_conn *lc = LC(c);
	return rpma_atomic_write(lc->conn, lc->rmr, roff, src, RPMA_F_COMPLETION_ALWAYS, NULL);
}

static int
lib_send(struct xconn *c, size_t msg_off, size_t len, uint64_t wr_id)
{
	struct lib_conn *lc = LC(c);
	/* a zero-length message carries no region */
	return rpma_send(lc->conn, len ? lc->msg_mr : NULL, len ? msg_off : 0, len,
			RPMA_F_COMPLETION_ALWAYS, (void *)(uintptr_t)wr_id);
}

static int
lib_recv(struct xconn *c, size_t msg_off, size_t len, uint64_t wr_id)
{
	struct lib_conn *lc = LC(c);
	return rpma_recv(lc->conn, lc->msg_mr, msg_off, len, (void *)(uintptr_t)wr_id);
}

static int
lib_poll(struct xconn *c, struct ibv_wc *wc, int n)
{
	int got;
	int ret = rpma_cq_get_wc(LC(c)->cq, n, wc, &got);

	if (ret == 0)
		return got;
	return ret == RPMA_E_NO_COMPLETION ? 0 : -1;
}

static const struct xport_ops lib_ops = {
	.write = lib_write,
	.read = lib_read,
	.flush = lib_flush,
	.atomic_write = lib_atomic_write,
	.send = lib_send,
	.recv = lib_recv,
	.poll = lib_poll,
};

/* --- set-up shared by both sides ------------------------------------------- */

static int
ctx_new(const char *addr, enum rpma_util_ibv_context_type type, struct bench_mem *mem,
		int data_usage, struct lib_ctx **ctx_ptr)
{
	struct ibv_context *ibv_ctx;
	struct queue_sizes q = bench_queue_sizes();
	struct lib_ctx *ctx = calloc(1, sizeof(*ctx));
	int ret;

	if (ctx == NULL)
		return -1;
	ctx->mem = mem;
	ret = rpma_utils_get_ibv_context(addr, type, &ibv_ctx);
	if (ret) {
		failed("rpma_utils_get_ibv_context()", ret);
		goto err_free;
	}
	ctx->native_atomic = device_native_atomic_write(ibv_ctx);
	ctx->native_flush = device_native_flush(ibv_ctx);
	if ((ret = rpma_peer_new(ibv_ctx, &ctx->peer))) {
		failed("rpma_peer_new()", ret);
		goto err_free;
	}
	if ((ret = rpma_mr_reg(ctx->peer, mem->data, mem->data_size, data_usage, &ctx->data_mr))) {
		failed("rpma_mr_reg(data)", ret);
		goto err_peer;
	}
	if ((ret = rpma_mr_reg(ctx->peer, mem->msg, mem->msg_size * mem->msg_slots,
			RPMA_MR_USAGE_SEND | RPMA_MR_USAGE_RECV, &ctx->msg_mr))) {
		failed("rpma_mr_reg(messages)", ret);
		goto err_data_mr;
	}
	if ((ret = rpma_conn_cfg_new(&ctx->cfg)) ||
			(ret = rpma_conn_cfg_set_sq_size(ctx->cfg, q.sq)) ||
			(ret = rpma_conn_cfg_set_rq_size(ctx->cfg, q.rq)) ||
			(ret = rpma_conn_cfg_set_cq_size(ctx->cfg, q.cq))) {
		failed("rpma_conn_cfg_*()", ret);
		goto err_msg_mr;
	}
	*ctx_ptr = ctx;
	return 0;

err_msg_mr:
	(void) rpma_conn_cfg_delete(&ctx->cfg);
	(void) rpma_mr_dereg(&ctx->msg_mr);
err_data_mr:
	(void) rpma_mr_dereg(&ctx->data_mr);
err_peer:
	(void) rpma_peer_delete(&ctx->peer);
err_free:
	free(ctx);
	return -1;
}

static void
lib_close(void **ctx_ptr)
{
	struct lib_ctx *ctx = *ctx_ptr;
	int ret;

	if (ctx == NULL)
		return;
	if (ctx->ep && (ret = rpma_ep_shutdown(&ctx->ep)))
		failed("rpma_ep_shutdown()", ret);
	if (ctx->pcfg && (ret = rpma_peer_cfg_delete(&ctx->pcfg)))
		failed("rpma_peer_cfg_delete()", ret);
	if ((ret = rpma_conn_cfg_delete(&ctx->cfg)))
		failed("rpma_conn_cfg_delete()", ret);
	if (ctx->flush_mr && (ret = rpma_mr_dereg(&ctx->flush_mr)))
		failed("rpma_mr_dereg()", ret);
	if (ctx->grant_mr && (ret = rpma_mr_dereg(&ctx->grant_mr)))
		failed("rpma_mr_dereg()", ret);
	if ((ret = rpma_mr_dereg(&ctx->msg_mr)))
		failed("rpma_mr_dereg()", ret);
	if ((ret = rpma_mr_dereg(&ctx->data_mr)))
		failed("rpma_mr_dereg()", ret);
	if ((ret = rpma_peer_delete(&ctx->peer)))
		failed("rpma_peer_delete()", ret);
	free(ctx);
	*ctx_ptr = NULL;
}

static int
conn_expect(struct rpma_conn *conn, enum rpma_conn_event expected)
{
	enum rpma_conn_event ev;
	int ret = rpma_conn_next_event(conn, &ev);

	if (ret)
		return failed("rpma_conn_next_event()", ret);
	if (ev != expected) {
		BENCH_LOG("unexpected connection event: %s\n", rpma_utils_conn_event_2str(ev));
		return -1;
	}
	return 0;
}

static struct lib_conn *
conn_alloc(struct lib_ctx *ctx)
{
	struct lib_conn *lc = calloc(1, sizeof(*lc));

	if (lc == NULL)
		return NULL;
	lc->data_mr = ctx->data_mr;
	lc->msg_mr = ctx->msg_mr;
	lc->native_atomic = ctx->native_atomic;
	lc->native_flush_caps = ctx->native_flush;
	return lc;
}

/*
 * After rpma_conn_delete(), which revoked the grant (rpma_grant_new(3),
 * "Its end"): free its handle, then the connection.
 */
static int
conn_free(struct lib_conn *lc)
{
	int ret = lc->grant ? rpma_grant_delete(&lc->grant) : 0;

	free(lc);
	return ret ? failed("rpma_grant_delete()", ret) : 0;
}

static int
lib_disconnect(struct xconn **conn_ptr)
{
	struct lib_conn *lc = LC(*conn_ptr);
	int ret, err = 0;

	if (lc == NULL)
		return 0;
	if (lc->rmr && (ret = rpma_mr_remote_delete(&lc->rmr)))
		err = failed("rpma_mr_remote_delete()", ret);
	if (lc->conn) {
		/* the peer may have disconnected already: then CLOSED is there */
		(void) rpma_conn_disconnect(lc->conn);
		if (conn_expect(lc->conn, RPMA_CONN_CLOSED))
			err = -1;
		if ((ret = rpma_conn_delete(&lc->conn)))
			err = failed("rpma_conn_delete()", ret);
	}
	if (conn_free(lc))
		err = -1;
	*conn_ptr = NULL;
	return err;
}

/*
 * Take the completion of the grant's message (opcode: the server's send or
 * the client's receive), waiting on the CQ's channel: the CQ is armed at its
 * creation (rpma_cq_wait(3)) and this is its first completion. The peer's
 * disconnect ends the wait too: it flushes no receive of this side.
 */
static int
wait_message(struct lib_conn *lc, enum ibv_wc_opcode opcode, struct ibv_wc *wc)
{
	struct pollfd pfd[2] = {{.events = POLLIN}, {.events = POLLIN}};
	int ret;

	if ((ret = rpma_cq_get_fd(lc->cq, &pfd[0].fd)) ||
			(ret = rpma_conn_get_event_fd(lc->conn, &pfd[1].fd)))
		return failed("rpma_*_get_fd()", ret);
	for (;;) {
		int n = poll(pfd, 2, GRANT_WAIT_MS);
		if (n <= 0) {
			BENCH_LOG("no grant's message: %s\n", n ? "poll() failed" : "timed out");
			return -1;
		}
		if ((pfd[0].revents & POLLIN) && (ret = rpma_cq_wait(lc->cq)))
			return failed("rpma_cq_wait()", ret);
		/* the peer's close may come with the completion: take that first */
		ret = rpma_cq_get_wc(lc->cq, 1, wc, NULL);
		if (ret != RPMA_E_NO_COMPLETION)
			break;
		if (pfd[1].revents & POLLIN) {
			BENCH_LOG("no grant's message: the peer is gone\n");
			return -1;
		}
	}
	if (ret)
		return failed("rpma_cq_get_wc()", ret);
	if (wc->status != IBV_WC_SUCCESS || wc->opcode != opcode) {
		BENCH_LOG("the grant's message: %s (opcode %d)\n", ibv_wc_status_str(wc->status),
				wc->opcode);
		return -1;
	}
	return 0;
}

/* --- client ---------------------------------------------------------------- */

static int
lib_client_open(const char *addr, struct bench_mem *mem, void **ctx)
{
	return ctx_new(addr, RPMA_UTIL_IBV_CONTEXT_REMOTE, mem,
			RPMA_MR_USAGE_WRITE_SRC | RPMA_MR_USAGE_READ_DST,
			(struct lib_ctx **)ctx);
}

/* the region (or grant) and the peer configuration the server sent: len bytes at ptr */
static int
apply_reply(struct lib_conn *lc, const void *ptr, size_t len)
{
	struct lib_reply reply;
	struct rpma_peer_cfg *pcfg;
	int ret, flush_types;
	bool direct;

	if (ptr == NULL || len < sizeof(reply)) {
		BENCH_LOG("the server sent %zu bytes of descriptors\n", len);
		return -1;
	}
	memcpy(&reply, ptr, sizeof(reply));
	if ((size_t)reply.mr_desc_size + reply.pcfg_desc_size > sizeof(reply.desc)) {
		BENCH_LOG("the server's descriptors do not fit\n");
		return -1;
	}
	if ((ret = rpma_mr_remote_from_descriptor(reply.desc, reply.mr_desc_size, &lc->rmr)))
		return failed("rpma_mr_remote_from_descriptor()", ret);
	if ((ret = rpma_peer_cfg_from_descriptor(reply.desc + reply.mr_desc_size,
			reply.pcfg_desc_size, &pcfg)))
		return failed("rpma_peer_cfg_from_descriptor()", ret);
	ret = rpma_conn_apply_remote_peer_cfg(lc->conn, pcfg);
	if (!ret)
		ret = rpma_peer_cfg_get_direct_write_to_pmem(pcfg, &direct);
	(void) rpma_peer_cfg_delete(&pcfg);
	if (ret)
		return failed("rpma_conn_apply_remote_peer_cfg()", ret);
	if ((ret = rpma_mr_remote_get_flush_type(lc->rmr, &flush_types)))
		return failed("rpma_mr_remote_get_flush_type()", ret);
	/* persistent where the server allows it, visible otherwise */
	lc->ftype = (direct && (flush_types & RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT)) ?
			RPMA_FLUSH_TYPE_PERSISTENT : RPMA_FLUSH_TYPE_VISIBILITY;
	/* the server sends a region without READ_SRC for apm only, not a grant (make_reply()) */
	lc->native_flush = reply.flush_native && (lc->native_flush_caps &
			(lc->ftype == RPMA_FLUSH_TYPE_PERSISTENT ?
			BENCH_FLUSH_PERSISTENT : BENCH_FLUSH_GLOBAL));
	return 0;
}

/* the descriptors: in the accept's private data, or with a grant in the first message */
static int
take_reply(struct lib_conn *lc, bool grant, const struct bench_mem *mem)
{
	struct rpma_conn_private_data pd;
	struct ibv_wc wc;
	int ret;

	if (grant) {
		/* the receive in slot 0, posted before the connection */
		if (wait_message(lc, IBV_WC_RECV, &wc))
			return -1;
		return apply_reply(lc, mem->msg, wc.byte_len);
	}
	if ((ret = rpma_conn_get_private_data(lc->conn, &pd)))
		return failed("rpma_conn_get_private_data()", ret);
	return apply_reply(lc, pd.ptr, pd.len);
}

static int
lib_connect(void *ctx_ptr, const char *addr, const char *port, const struct hello *hello,
		struct xconn **conn)
{
	struct lib_ctx *ctx = ctx_ptr;
	struct rpma_conn_req *req;
	struct rpma_conn_private_data pd = {(void *)hello, sizeof(*hello)};
	struct lib_conn *lc = conn_alloc(ctx);
	bool grant = hello->flags & HELLO_GRANT;
	int ret;

	if (lc == NULL)
		return -1;
	if ((ret = rpma_conn_req_new(ctx->peer, addr, port, ctx->cfg, &req))) {
		failed("rpma_conn_req_new()", ret);
		goto err_free;
	}
	/* the grant's message may come before ESTABLISHED does: its buffer first (slot 0) */
	if (grant && (ret = rpma_conn_req_recv(req, ctx->msg_mr, 0, ctx->mem->msg_size, NULL))) {
		failed("rpma_conn_req_recv()", ret);
		(void) rpma_conn_req_delete(&req);
		goto err_free;
	}
	if ((ret = rpma_conn_req_connect(&req, &pd, &lc->conn))) {
		failed("rpma_conn_req_connect()", ret);
		goto err_free;
	}
	/* refused or unreachable: no CLOSED follows, nothing to disconnect */
	if (conn_expect(lc->conn, RPMA_CONN_ESTABLISHED))
		goto err_delete;
	if ((ret = rpma_conn_get_cq(lc->conn, &lc->cq))) {
		failed("rpma_conn_get_cq()", ret);
		goto err_disconnect;
	}
	if (take_reply(lc, grant, ctx->mem))
		goto err_disconnect;
	*conn = (struct xconn *)(void *)lc;
	return 0;

err_disconnect:
	*conn = (struct xconn *)(void *)lc;
	(void) lib_disconnect(conn);
	return -1;
err_delete:
	(void) rpma_conn_delete(&lc->conn);
err_free:
	free(lc);
	return -1;
}

/* --- server ---------------------------------------------------------------- */

static int
lib_server_open(const char *addr, const char *port, struct bench_mem *mem, void **ctx_ptr,
		int *fd)
{
	struct lib_ctx *ctx;
	int usage = RPMA_MR_USAGE_READ_SRC | RPMA_MR_USAGE_WRITE_DST |
			RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY;
	int ret;

	if (mem->pmem)
		usage |= RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT;
	if (ctx_new(addr, RPMA_UTIL_IBV_CONTEXT_LOCAL, mem, usage, &ctx))
		return -1;
	*ctx_ptr = ctx;
	if ((ret = rpma_mr_reg(ctx->peer, mem->data, mem->data_size,
			usage & ~RPMA_MR_USAGE_READ_SRC, &ctx->flush_mr))) {
		failed("rpma_mr_reg(data, flush)", ret);
		goto err_close;
	}
	/* succeeds on a device without type-2 windows too: then a grant is refused */
	if ((ret = rpma_mr_reg_for_grants(ctx->peer, mem->data, mem->data_size, usage,
			&ctx->grant_mr))) {
		failed("rpma_mr_reg_for_grants(data)", ret);
		goto err_close;
	}
	ctx->grant_usage = usage;
	if ((ret = rpma_peer_cfg_new(&ctx->pcfg)) ||
			(ret = rpma_peer_cfg_set_direct_write_to_pmem(ctx->pcfg, mem->pmem))) {
		failed("rpma_peer_cfg_*()", ret);
		goto err_close;
	}
	if ((ret = rpma_ep_listen(ctx->peer, addr, port, &ctx->ep))) {
		failed("rpma_ep_listen()", ret);
		goto err_close;
	}
	if ((ret = rpma_ep_get_fd(ctx->ep, fd))) {
		failed("rpma_ep_get_fd()", ret);
		goto err_close;
	}
	return 0;

err_close:
	lib_close(ctx_ptr);
	return -1;
}

/*
 * The data's descriptor: the grant's, if there is one, which says itself
 * how its client flushes (rpma_grant_get_descriptor(3)); else apm gets the
 * region a client flushes natively where it can, the rest READ_SRC's.
 */
static int
make_reply(struct lib_ctx *ctx, enum workload wl, const struct rpma_grant *grant,
		struct lib_reply *reply)
{
	const struct rpma_mr_local *mr = wl == WL_APM ? ctx->flush_mr : ctx->data_mr;
	size_t mr_size, pcfg_size;
	int ret;

	memset(reply, 0, sizeof(*reply));
	ret = grant ? rpma_grant_get_descriptor_size(grant, &mr_size) :
			rpma_mr_get_descriptor_size(mr, &mr_size);
	if (ret || (ret = rpma_peer_cfg_get_descriptor_size(ctx->pcfg, &pcfg_size)))
		return failed("rpma_*_get_descriptor_size()", ret);
	if (mr_size + pcfg_size > sizeof(reply->desc))
		return -1;
	ret = grant ? rpma_grant_get_descriptor(grant, reply->desc) :
			rpma_mr_get_descriptor(mr, reply->desc);
	if (ret || (ret = rpma_peer_cfg_get_descriptor(ctx->pcfg, reply->desc + mr_size)))
		return failed("rpma_*_get_descriptor()", ret);
	reply->mr_desc_size = (uint8_t)mr_size;
	reply->pcfg_desc_size = (uint8_t)pcfg_size;
	reply->native_atomic = ctx->native_atomic;
	reply->flush_native = grant == NULL && wl == WL_APM;
	return 0;
}

/*
 * Bind a grant of the whole data on the established connection and send
 * its descriptor (and the peer configuration's) from the server's send
 * slot, then wait for the send: the slot is free again, and the bind,
 * posted unsignaled before it, has left the send queue.
 */
static int
grant_send(struct lib_ctx *ctx, struct lib_conn *lc, enum workload wl)
{
	struct bench_mem *mem = ctx->mem;
	size_t off = server_send_slot(mem);
	struct lib_reply reply;
	struct ibv_wc wc;
	int ret;

	if ((ret = rpma_grant_new(lc->conn, ctx->grant_mr, 0, mem->data_size, ctx->grant_usage,
			&lc->grant)))
		return failed("rpma_grant_new()", ret);
	if (make_reply(ctx, wl, lc->grant, &reply))
		return -1;
	memcpy(mem->msg + off, &reply, sizeof(reply));
	if ((ret = rpma_send(lc->conn, ctx->msg_mr, off, sizeof(reply), RPMA_F_COMPLETION_ALWAYS,
			NULL)))
		return failed("rpma_send()", ret);
	return wait_message(lc, IBV_WC_SEND, &wc);
}

static int
lib_accept(void *ctx_ptr, struct xconn **conn, struct hello *hello)
{
	struct lib_ctx *ctx = ctx_ptr;
	struct rpma_conn_req *req;
	struct rpma_conn_private_data pd;
	struct lib_reply reply;
	struct lib_conn *lc = conn_alloc(ctx);
	int ret;

	if (lc == NULL)
		return -1;
	if ((ret = rpma_ep_next_conn_req(ctx->ep, ctx->cfg, &req))) {
		failed("rpma_ep_next_conn_req()", ret);
		goto err_free;
	}
	if ((ret = rpma_conn_req_get_private_data(req, &pd)) ||
			hello_parse(pd.ptr, pd.len, ctx->mem, HELLO_HOLD | HELLO_GRANT, hello))
		goto err_reject;
	bool grant = hello->flags & HELLO_GRANT;
	if (!grant && make_reply(ctx, (enum workload)hello->workload, NULL, &reply))
		goto err_reject;
	for (uint32_t i = 0; workload_messaging(hello->workload) && i < hello->depth + 2; i++) {
		ret = rpma_conn_req_recv(req, ctx->msg_mr, i * ctx->mem->msg_size,
				hello->msg_size, (void *)(uintptr_t)i);
		if (ret) {
			failed("rpma_conn_req_recv()", ret);
			goto err_reject;
		}
	}
	/* a grant needs the connection: its descriptor follows in a message */
	pd.ptr = &reply;
	pd.len = sizeof(reply);
	if ((ret = rpma_conn_req_connect(&req, grant ? NULL : &pd, &lc->conn))) {
		failed("rpma_conn_req_connect()", ret);
		goto err_free;
	}
	*conn = (struct xconn *)(void *)lc;
	if (conn_expect(lc->conn, RPMA_CONN_ESTABLISHED) ||
			(ret = rpma_conn_get_cq(lc->conn, &lc->cq)) ||
			(grant && grant_send(ctx, lc, (enum workload)hello->workload))) {
		(void) lib_disconnect(conn);
		return -1;
	}
	return 0;

err_reject:
	(void) rpma_conn_req_delete(&req);
err_free:
	free(lc);
	return -1;
}

static int
lib_event_fd(const struct xconn *c)
{
	int fd = -1;
	(void) rpma_conn_get_event_fd(LC(c)->conn, &fd);
	return fd;
}

static int
lib_wait_closed(struct xconn *conn)
{
	return conn_expect(LC(conn)->conn, RPMA_CONN_CLOSED);
}

static int
lib_server_disconnect(struct xconn **conn_ptr)
{
	struct lib_conn *lc = LC(*conn_ptr);
	int ret = rpma_conn_delete(&lc->conn);
	int err = ret ? failed("rpma_conn_delete()", ret) : 0;

	if (conn_free(lc))
		err = -1;
	*conn_ptr = NULL;
	return err;
}

static int
lib_any_disconnect(struct xconn **conn_ptr)
{
	/* a server's connection has no remote region and saw CLOSED already */
	return LC(*conn_ptr)->rmr ? lib_disconnect(conn_ptr) : lib_server_disconnect(conn_ptr);
}

static const char *
lib_flush_kind(const struct xconn *c)
{
	static const char *const kind[2][2] = {
		{"visibility/read-after-write", "visibility/native"},
		{"persistent/read-after-write", "persistent/native"},
	};
	const struct lib_conn *lc = LC(c);

	return kind[lc->ftype == RPMA_FLUSH_TYPE_PERSISTENT][lc->native_flush];
}

static bool
lib_native_atomic(const struct xconn *c)
{
	return LC(c)->native_atomic;
}

const struct xport xport_lib = {
	.name = "lib",
	.ops = &lib_ops,
	.client_open = lib_client_open,
	.connect = lib_connect,
	.server_open = lib_server_open,
	.accept = lib_accept,
	.event_fd = lib_event_fd,
	.wait_closed = lib_wait_closed,
	.disconnect = lib_any_disconnect,
	.close = lib_close,
	.flush_kind = lib_flush_kind,
	.native_atomic = lib_native_atomic,
};
