// SPDX-License-Identifier: BSD-3-Clause
/* link.c -- a writer's connection to one replica, on librpma's public API */

#include <poll.h>
#include <stdio.h>
#include <string.h>

#include "layout.h"
#include "link.h"

static int
failed(const struct link *l, const char *what, int ret)
{
	fprintf(stderr, "rpmalog: %s: %s: %s\n", l->replica, what, rpma_err_2str(ret));
	return RPMALOG_E_PROVIDER;
}

/* FD readable within TIMEOUT_MS */
static bool
ready(int fd, int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, timeout_ms) == 1;
}

/* the replica's notice that a newer writer fenced this one */
static bool
fenced(const struct link *l, const struct ibv_wc *wc)
{
	struct proto_refuse r;

	return wc->opcode == IBV_WC_RECV && wc->status == IBV_WC_SUCCESS &&
			proto_refuse_decode(l->msg[0], wc->byte_len, &r) == 0;
}

/*
 * The next completion of the connection within TIMEOUT_MS, a receive's
 * where RECV says so, else another's (a receive then can only be a fence
 * notice): 0, or a code.
 */
static int
completion(struct link *l, struct ibv_wc *wc, int timeout_ms, bool recv)
{
	int n, ret;

	for (;;) {
		ret = rpma_cq_get_wc(l->cq, 1, wc, &n);
		if (ret == 0 && n == 1 && !recv && fenced(l, wc))
			return RPMALOG_E_FENCED;
		if (ret == 0 && n == 1 && recv == (wc->opcode == IBV_WC_RECV))
			return wc->status == IBV_WC_SUCCESS ? 0 : RPMALOG_E_REPLICA;
		if (ret == 0 && n == 1)
			continue; /* a receive flushed as the connection ends */
		if (ret != RPMA_E_NO_COMPLETION)
			return failed(l, "rpma_cq_get_wc()", ret);
		/* the CQ is armed: a completion after the poll above wakes this */
		if (!ready(l->cq_fd, timeout_ms) || rpma_cq_wait(l->cq))
			return RPMALOG_E_REPLICA;
	}
}

static int
connected(struct link *l, const struct proto_hello *hello, int timeout_ms)
{
	char addr[256];
	const char *colon = strrchr(l->replica, ':');
	struct ibv_context *ctx;
	struct rpma_conn_cfg *cfg = NULL;
	struct rpma_conn_req *req = NULL;
	uint8_t pd[PROTO_HELLO_SIZE];
	struct rpma_conn_private_data pdata = { pd, (uint8_t)proto_hello_encode(hello, pd) };
	enum rpma_conn_event ev = RPMA_CONN_UNDEFINED;
	int ret, fd;

	if (colon == NULL || colon - l->replica >= (long)sizeof(addr)) {
		fprintf(stderr, "rpmalog: %s: not addr:port\n", l->replica);
		return RPMALOG_E_INVAL;
	}
	snprintf(addr, sizeof(addr), "%.*s", (int)(colon - l->replica), l->replica);
	if ((ret = rpma_utils_get_ibv_context(addr, RPMA_UTIL_IBV_CONTEXT_REMOTE, &ctx)) ||
			(ret = rpma_peer_new(ctx, &l->peer)))
		return failed(l, "the RDMA device toward it", ret);
	ret = rpma_mr_reg(l->peer, l->msg, sizeof(l->msg), RPMA_MR_USAGE_SEND |
			RPMA_MR_USAGE_RECV, &l->msg_mr);
	if (!ret)
		ret = rpma_conn_cfg_new(&cfg);
	if (!ret)
		ret = rpma_conn_cfg_set_timeout(cfg, timeout_ms);
	if (!ret)
		ret = rpma_conn_req_new(l->peer, addr, colon + 1, cfg, &req);
	if (!ret)
		ret = rpma_conn_req_recv(req, l->msg_mr, 0, PROTO_MAX_SIZE, NULL);
	if (!ret)
		ret = rpma_conn_req_connect(&req, &pdata, &l->conn);
	if (req)
		(void) rpma_conn_req_delete(&req);
	if (cfg)
		(void) rpma_conn_cfg_delete(&cfg);
	if (ret)
		return failed(l, "connecting", ret);
	if (rpma_conn_get_event_fd(l->conn, &fd) || !ready(fd, timeout_ms) ||
			rpma_conn_next_event(l->conn, &ev) || ev != RPMA_CONN_ESTABLISHED) {
		fprintf(stderr, "rpmalog: %s: no connection (%s)\n", l->replica,
				rpma_utils_conn_event_2str(ev));
		return RPMALOG_E_REPLICA;
	}
	/* taken once: every append polls it */
	if ((ret = rpma_conn_get_cq(l->conn, &l->cq)) || (ret = rpma_cq_get_fd(l->cq, &l->cq_fd)))
		return failed(l, "the connection's CQ", ret);
	return 0;
}

/* the welcome's grant and peer configuration taken, the flush chosen */
static int
welcomed(struct link *l, int flags)
{
	struct rpma_peer_cfg *pcfg = NULL;
	bool direct = false;
	int ret = rpma_mr_remote_from_descriptor(l->w.grant, l->w.grant_size, &l->entries);

	if (!ret)
		ret = rpma_peer_cfg_from_descriptor(l->w.pcfg, l->w.pcfg_size, &pcfg);
	if (!ret)
		ret = rpma_peer_cfg_get_direct_write_to_pmem(pcfg, &direct);
	if (!ret)
		ret = rpma_conn_apply_remote_peer_cfg(l->conn, pcfg);
	if (pcfg)
		(void) rpma_peer_cfg_delete(&pcfg);
	if (ret)
		return failed(l, "its welcome's descriptors", ret);
	if (!direct && !(flags & RPMALOG_ACCEPT_VISIBILITY)) {
		fprintf(stderr, "rpmalog: %s: no direct write to PMem: it cannot persist\n",
				l->replica);
		return RPMALOG_E_NO_PERSIST;
	}
	l->flush = direct ? RPMA_FLUSH_TYPE_PERSISTENT : RPMA_FLUSH_TYPE_VISIBILITY;
	return 0;
}

int
link_open(struct link *l, const struct proto_hello *hello, int flags, int timeout_ms)
{
	struct ibv_wc wc;
	struct proto_refuse r;
	int ret = connected(l, hello, timeout_ms);

	if (!ret)
		ret = completion(l, &wc, timeout_ms, true);
	if (ret)
		return ret;
	if (proto_refuse_decode(l->msg[0], wc.byte_len, &r) == 0) {
		fprintf(stderr, "rpmalog: %s: refused: %s (its epoch %llu)\n", l->replica,
				r.reason == PROTO_NO_GRANT ? "its device binds no grant" :
				"a writer of a newer or the same epoch has it",
				(unsigned long long)r.epoch);
		return r.reason == PROTO_NO_GRANT ? RPMALOG_E_PROVIDER : RPMALOG_E_FENCED;
	}
	if (proto_welcome_decode(l->msg[0], wc.byte_len, &l->w)) {
		fprintf(stderr, "rpmalog: %s: not a replica's welcome\n", l->replica);
		return RPMALOG_E_PROTOCOL;
	}
	ret = welcomed(l, flags);
	/* where a newer writer fences this one, the replica says so here */
	if (!ret && (ret = rpma_recv(l->conn, l->msg_mr, 0, PROTO_MAX_SIZE, NULL)))
		ret = failed(l, "rpma_recv()", ret);
	l->live = ret == 0;
	return ret;
}

int
link_stage(struct link *l, void *buf, size_t size)
{
	int ret;

	if (l->stage_mr)
		(void) rpma_mr_dereg(&l->stage_mr);
	ret = rpma_mr_reg(l->peer, buf, size, RPMA_MR_USAGE_WRITE_SRC | RPMA_MR_USAGE_READ_DST,
			&l->stage_mr);
	return ret ? failed(l, "registering the stage", ret) : 0;
}

int
link_post(struct link *l, uint64_t offset, size_t len)
{
	size_t at = offset - LAYOUT_ENTRIES;
	int ret = rpma_write(l->conn, l->entries, at, l->stage_mr, 0, len,
			RPMA_F_COMPLETION_ON_ERROR, NULL);

	if (!ret)
		ret = rpma_flush(l->conn, l->entries, at, len, l->flush,
				RPMA_F_COMPLETION_ALWAYS, NULL);
	l->posted = ret == 0;
	return ret ? failed(l, "posting the entry", ret) : 0;
}

int
link_poll(struct link *l)
{
	struct ibv_wc wc;
	int n, ret;

	do {
		ret = rpma_cq_get_wc(l->cq, 1, &wc, &n);
		if (ret == RPMA_E_NO_COMPLETION)
			return 0;
		if (ret)
			return failed(l, "rpma_cq_get_wc()", ret);
		/* (the notice comes before the disconnect that fails the flush) */
		if (fenced(l, &wc)) {
			fprintf(stderr, "rpmalog: %s: fenced by a newer writer\n", l->replica);
			return RPMALOG_E_FENCED;
		}
	} while (wc.opcode == IBV_WC_RECV);
	l->posted = false;
	if (wc.status == IBV_WC_SUCCESS)
		return 1;
	/*
	 * A remote access error is a grant gone: revoked for a newer writer
	 * (whose notice then never arrives: the error broke the connection) or
	 * with the replica's death. Only the notice tells them apart.
	 */
	fprintf(stderr, "rpmalog: %s: %s\n", l->replica, ibv_wc_status_str(wc.status));
	return RPMALOG_E_REPLICA;
}

int
link_commit(struct link *l, const struct proto_commit *c, int timeout_ms)
{
	struct ibv_wc wc;
	int ret = rpma_send(l->conn, l->msg_mr, PROTO_MAX_SIZE,
			proto_commit_encode(c, l->msg[1]), RPMA_F_COMPLETION_ALWAYS, NULL);

	return ret ? failed(l, "rpma_send()", ret) : completion(l, &wc, timeout_ms, false);
}

/* LEN bytes at OFFSET of the log read into MR, within TIMEOUT_MS */
static int
read_into(struct link *l, struct rpma_mr_local *mr, uint64_t offset, size_t len, int timeout_ms)
{
	struct ibv_wc wc;
	int ret = rpma_read(l->conn, mr, 0, l->entries, offset - LAYOUT_ENTRIES, len,
			RPMA_F_COMPLETION_ALWAYS, NULL);

	return ret ? failed(l, "rpma_read()", ret) : completion(l, &wc, timeout_ms, false);
}

int
link_read(struct link *l, void *dst, size_t size, uint64_t offset, size_t len, int timeout_ms)
{
	struct rpma_mr_local *mr;
	int ret = rpma_mr_reg(l->peer, dst, size, RPMA_MR_USAGE_READ_DST, &mr);

	if (ret)
		return failed(l, "registering the reader's buffer", ret);
	ret = read_into(l, mr, offset, len, timeout_ms);
	(void) rpma_mr_dereg(&mr);
	return ret;
}

int
link_read_stage(struct link *l, uint64_t offset, size_t len, int timeout_ms)
{
	return read_into(l, l->stage_mr, offset, len, timeout_ms);
}

int
link_put(struct link *l, uint64_t offset, size_t len, int timeout_ms)
{
	struct ibv_wc wc;
	int ret = link_post(l, offset, len);

	if (!ret)
		ret = completion(l, &wc, timeout_ms, false);
	l->posted = false;
	return ret;
}

void
link_close(struct link *l)
{
	enum rpma_conn_event ev;
	int fd;

	l->live = false;
	if (l->conn) {
		/* the replica's answer to the disconnect, awaited a little */
		if (rpma_conn_disconnect(l->conn) == 0 &&
				rpma_conn_get_event_fd(l->conn, &fd) == 0 && ready(fd, 1000))
			(void) rpma_conn_next_event(l->conn, &ev);
		(void) rpma_conn_delete(&l->conn);
	}
	if (l->entries)
		(void) rpma_mr_remote_delete(&l->entries);
	if (l->stage_mr)
		(void) rpma_mr_dereg(&l->stage_mr);
	if (l->msg_mr)
		(void) rpma_mr_dereg(&l->msg_mr);
	if (l->peer)
		(void) rpma_peer_delete(&l->peer);
}
