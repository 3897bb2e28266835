// SPDX-License-Identifier: BSD-3-Clause
/*
 * host.c -- a whole host stops (utils/rxe-vm "kill N": its QEMU quits, no
 * disconnect, no packet more) while its peer works or waits. The survivor's
 * outcome is asserted exactly (status, event, bound of twohost.h); after
 * the server's host died, a server booted again on the same persistent
 * memory must hold every byte whose persistent flush was acknowledged.
 */

#include <poll.h>
#include <string.h>

#include "common.h"
#include "tests.h"
#include "twohost.h"

#define KIB ((size_t)1024)
#define H_REGION (1024 * KIB)
#define H_OP (16 * KIB)
#define H_PIECES (H_REGION / H_OP)
#define H_QD 8
#define H_SEED 83
/* pieces acknowledged before the client asks for the server's death */
#define H_ACKED_BEFORE_KILL (H_PIECES / 4)
/*
 * Once the kill is asked for, one more piece every H_PACE_MS: the host's
 * death takes utils/rxe-vm a moment, in which the pieces left must not all
 * complete (they did, in 3 s, on a quiet machine).
 */
#define H_PACE_MS 200

/* --- the server's host dies while the client writes and flushes --- */

/* the server's region: the start of the device DAX, persistent */
static void
pmem_region_open(struct rpma_peer *peer, bool clear, struct pmem_map **pm, char **mem,
		struct rpma_mr_local **mr, struct rpma_peer_cfg **pcfg)
{
	*pm = pmem_open(H_REGION, (void **)mem);
	if (clear) {
		memset(*mem, 0, H_REGION);
		pmem_persist(*pm, *mem, H_REGION);
	}
	CHECK_RET(rpma_mr_reg(peer, *mem, H_REGION, RPMA_MR_USAGE_WRITE_DST |
			RPMA_MR_USAGE_READ_SRC | RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT, mr));
	CHECK_RET(rpma_peer_cfg_new(pcfg));
	CHECK_RET(rpma_peer_cfg_set_direct_write_to_pmem(*pcfg, true));
}

void
server_host_killed_server(void)
{
	struct rpma_peer *peer = peer_open();
	struct pmem_map *pm;
	char *mem;
	struct rpma_mr_local *mr;
	struct rpma_peer_cfg *pcfg;
	bool first = host_boot() == 0;
	pmem_region_open(peer, first, &pm, &mem, &mr, &pcfg);
	struct rpma_ep *ep = ep_open(peer);
	struct rpma_conn_req *req = ep_next_req(ep, NULL);
	struct server_desc sd;
	struct rpma_conn_private_data pd;
	server_desc_make(&sd, mr, pcfg, &pd);
	struct rpma_conn *conn = server_accept(&req, &pd);
	if (first) {
		/* the client has this host killed: nothing may come before */
		enum rpma_conn_event ev = conn_next_event_within(conn, 3 * WAIT_MS);
		fail_at(__FILE__, __LINE__, "still alive, connection event %s",
				rpma_utils_conn_event_2str(ev));
	}
	note("booted again on the same persistent memory: the client reads it back");
	conn_close_passive(&conn);
	CHECK_RET(rpma_ep_shutdown(&ep));
	CHECK_RET(rpma_peer_cfg_delete(&pcfg));
	CHECK_RET(rpma_mr_dereg(&mr));
	pmem_close(&pm);
	CHECK_RET(rpma_peer_delete(&peer));
}

static struct rpma_conn *
pmem_connect(struct rpma_peer *peer, const struct rpma_conn_cfg *cfg,
		struct rpma_mr_remote **dst, struct rpma_cq **cq)
{
	struct rpma_conn *conn = client_connect(peer, cfg, NULL);
	struct rpma_peer_cfg *pcfg;
	*dst = server_desc_take(conn, &pcfg);
	CHECK_RET(rpma_conn_apply_remote_peer_cfg(conn, pcfg));
	CHECK_RET(rpma_peer_cfg_delete(&pcfg));
	CHECK_RET(rpma_conn_get_cq(conn, cq));
	return conn;
}

/*
 * Write and persistently flush the pieces of the region, H_QD pieces in
 * flight: a piece is acknowledged when its flush completed. After
 * H_ACKED_BEFORE_KILL of them the server's host is killed; then, within
 * the retry bound (and the slack), a device with a retry limit fails with
 * IBV_WC_RETRY_EXC_ERR, while rxe stays silent (successes may still come:
 * ACKs sent before the death). Returns how many pieces were posted.
 */
static size_t
write_until_gone(struct rpma_conn *conn, struct rpma_cq *cq, struct rpma_mr_remote *dst,
		struct rpma_mr_local *src, bool acked[H_PIECES])
{
	size_t posted = 0, acks = 0;
	long t_kill = 0, next_post = 0;
	const long limit = retry_bound_ms() + slack_ms();
	for (;;) {
		while (posted < H_PIECES && posted - acks < H_QD && now_ms() >= next_post) {
			size_t off = posted * H_OP;
			CHECK_RET(rpma_write(conn, dst, off, src, off, H_OP,
					RPMA_F_COMPLETION_ON_ERROR, NULL));
			CHECK_RET(rpma_flush(conn, dst, off, H_OP, RPMA_FLUSH_TYPE_PERSISTENT,
					RPMA_F_COMPLETION_ALWAYS, (void *)(posted + 1)));
			posted++;
			if (t_kill != 0)
				next_post = now_ms() + H_PACE_MS;
		}
		if (t_kill == 0 && acks == H_ACKED_BEFORE_KILL) {
			host_control("kill 0");
			t_kill = now_ms();
			next_post = t_kill + H_PACE_MS;
		}
		long left = t_kill == 0 ? WAIT_MS : t_kill + limit - now_ms();
		/* a paced piece is due before that: wait only until then */
		long wait = left, due = next_post - now_ms();
		if (t_kill != 0 && posted < H_PIECES && due < wait)
			wait = due > 1 ? due : 1;
		struct ibv_wc wc;
		bool got = left > 0 && cq_next_wc(cq, (int)wait, &wc);
		if (!got && left > 0 && wait < left)
			continue;	/* the next paced piece is due */
		if (!got) {
			CHECK(t_kill != 0, "no completion within %d ms", WAIT_MS);
			CHECK(retries_forever(), "no error completion within %ld ms of the kill", limit);
			note("nothing for %ld ms after the kill (rxe retries without limit); "
					"%zu of %zu pieces acknowledged, %zu posted", limit, acks,
					H_PIECES, posted);
			return posted;
		}
		if (wc.status != IBV_WC_SUCCESS) {
			CHECK(t_kill != 0, "%s before the server was killed",
					ibv_wc_status_str(wc.status));
			CHECK(!retries_forever() && wc.status == IBV_WC_RETRY_EXC_ERR,
					"the first error: %s, expected %s", ibv_wc_status_str(wc.status),
					retries_forever() ? "none (rxe)" :
					ibv_wc_status_str(IBV_WC_RETRY_EXC_ERR));
			note("%s %ld ms after the kill (bound %ld ms + %ld ms slack); %zu of %zu "
					"pieces acknowledged, %zu posted", ibv_wc_status_str(wc.status),
					now_ms() - t_kill, retry_bound_ms(), slack_ms(), acks, H_PIECES,
					posted);
			return posted;
		}
		CHECK(wc.wr_id >= 1 && wc.wr_id <= posted && !acked[wc.wr_id - 1],
				"a completion with op_context %#llx", (unsigned long long)wc.wr_id);
		acked[wc.wr_id - 1] = true;
		acks++;
		CHECK(acks < H_PIECES, "every piece acknowledged: the server never died");
	}
}

void
server_host_killed_client(void)
{
	struct rpma_peer *peer = peer_open();
	struct rpma_conn_cfg *cfg;
	CHECK_RET(rpma_conn_cfg_new(&cfg));
	CHECK_RET(rpma_conn_cfg_set_sq_size(cfg, 4 * H_QD));
	CHECK_RET(rpma_conn_cfg_set_cq_size(cfg, 4 * H_QD));
	char *buf = buf_new(H_REGION);
	pattern_fill(buf, H_REGION, H_SEED, 0);
	struct rpma_mr_local *src;
	CHECK_RET(rpma_mr_reg(peer, buf, H_REGION, RPMA_MR_USAGE_WRITE_SRC |
			RPMA_MR_USAGE_READ_DST, &src));
	struct rpma_mr_remote *dst;
	struct rpma_cq *cq;
	struct rpma_conn *conn = pmem_connect(peer, cfg, &dst, &cq);

	bool acked[H_PIECES] = {false};
	write_until_gone(conn, cq, dst, src, acked);
	CHECK(conn_give_up(&conn, cq) > 0, "nothing was in flight");
	CHECK_RET(rpma_mr_remote_delete(&dst));

	/* a new server on the same persistent memory holds every acknowledged byte */
	host_control("boot 0");
	conn = pmem_connect(peer, cfg, &dst, &cq);
	memset(buf, 0, H_REGION);
	CHECK_RET(rpma_read(conn, src, 0, dst, 0, H_REGION, RPMA_F_COMPLETION_ALWAYS,
			(void *)0xfe));
	cq_expect(cq, IBV_WC_RDMA_READ, (void *)0xfe, NULL);
	size_t checked = 0;
	for (size_t i = 0; i < H_PIECES; i++) {
		if (!acked[i])
			continue;
		size_t bad = pattern_check(buf + i * H_OP, H_OP, H_SEED, i * H_OP);
		CHECK(bad == SIZE_MAX, "byte %zu of acknowledged piece %zu is lost", bad, i);
		checked++;
	}
	note("the new server holds all %zu acknowledged pieces (%zu KiB)", checked,
			checked * H_OP / KIB);
	conn_close_active(&conn);

	CHECK_RET(rpma_mr_remote_delete(&dst));
	CHECK_RET(rpma_mr_dereg(&src));
	free(buf);
	CHECK_RET(rpma_conn_cfg_delete(&cfg));
	CHECK_RET(rpma_peer_delete(&peer));
}

/* --- the client's host dies while the server waits --- */

#define C_RECVS 4
#define C_MSG 64

void
client_host_killed_server(void)
{
	struct rpma_peer *peer = peer_open();
	char *msgs = buf_new(C_RECVS * C_MSG);
	struct rpma_mr_local *mr;
	CHECK_RET(rpma_mr_reg(peer, msgs, C_RECVS * C_MSG, RPMA_MR_USAGE_RECV |
			RPMA_MR_USAGE_SEND, &mr));
	struct rpma_ep *ep = ep_open(peer);
	struct rpma_conn_req *req = ep_next_req(ep, NULL);
	for (uintptr_t i = 1; i < C_RECVS; i++)
		CHECK_RET(rpma_conn_req_recv(req, mr, i * C_MSG, C_MSG, (void *)i));
	struct rpma_conn *conn = server_accept(&req, NULL);
	struct rpma_cq *cq;
	CHECK_RET(rpma_conn_get_cq(conn, &cq));
	cq_expect(cq, IBV_WC_RECV, (void *)1, NULL);
	note("the client said it dies now");

	/*
	 * Waiting in rpma_conn_next_event() and rpma_cq_wait() (on their fds)
	 * with receives posted, nothing happens: no packet comes that could
	 * tell, and RoCE's CM sends none of its own.
	 */
	const long idle = retry_bound_ms() + slack_ms();
	/* the receive's completion may have left its event on the channel */
	int ret = rpma_cq_wait(cq);
	CHECK(ret == 0 || ret == RPMA_E_NO_COMPLETION, "rpma_cq_wait(): %s", rpma_err_2str(ret));
	cq_expect_empty(cq);
	int efd, cfd;
	CHECK_RET(rpma_conn_get_event_fd(conn, &efd));
	CHECK_RET(rpma_cq_get_fd(cq, &cfd));
	struct pollfd pfd[2] = {{.fd = efd, .events = POLLIN}, {.fd = cfd, .events = POLLIN}};
	CHECK(poll(pfd, 2, (int)idle) == 0, "something came from a dead client: event fd %#x, "
			"CQ fd %#x", pfd[0].revents, pfd[1].revents);
	note("waited %ld ms: no event, no completion (the server cannot know)", idle);

	/*
	 * A message of its own shows it within the bound, where the device
	 * limits its retries; on rxe the send stays in flight, and the
	 * server's own deadline ends the wait.
	 */
	long t = now_ms();
	CHECK_RET(rpma_send(conn, mr, 0, C_MSG, RPMA_F_COMPLETION_ALWAYS, (void *)0x5e));
	struct ibv_wc wc;
	bool came = cq_next_wc(cq, (int)idle, &wc);
	if (retries_forever()) {
		CHECK(!came, "the send to a dead client completed: %s", ibv_wc_status_str(wc.status));
		note("a send: no completion within %ld ms (rxe retries without limit)", idle);
		CHECK(conn_give_up(&conn, cq) == C_RECVS - 1, "expected the send and %d receives "
				"to come back", C_RECVS - 2);
	} else {
		CHECK(came && wc.status == IBV_WC_RETRY_EXC_ERR && wc.wr_id == 0x5e,
				"the send ended %s (op_context %#llx), expected %s",
				came ? ibv_wc_status_str(wc.status) : "never",
				came ? (unsigned long long)wc.wr_id : 0ull,
				ibv_wc_status_str(IBV_WC_RETRY_EXC_ERR));
		note("a send: %s %ld ms later (bound %ld ms + %ld ms slack)",
				ibv_wc_status_str(wc.status), now_ms() - t, retry_bound_ms(), slack_ms());
		CHECK(conn_give_up(&conn, cq) == C_RECVS - 2, "expected %d receives to come back",
				C_RECVS - 2);
	}

	CHECK_RET(rpma_ep_shutdown(&ep));
	CHECK_RET(rpma_mr_dereg(&mr));
	free(msgs);
	CHECK_RET(rpma_peer_delete(&peer));
}

void
client_host_killed_client(void)
{
	struct rpma_peer *peer = peer_open();
	char *msg = buf_new(C_MSG);
	struct rpma_mr_local *mr;
	CHECK_RET(rpma_mr_reg(peer, msg, C_MSG, RPMA_MR_USAGE_SEND, &mr));
	struct rpma_conn *conn = client_connect(peer, NULL, NULL);
	struct rpma_cq *cq;
	CHECK_RET(rpma_conn_get_cq(conn, &cq));
	CHECK_RET(rpma_send(conn, mr, 0, C_MSG, RPMA_F_COMPLETION_ALWAYS, (void *)0x1));
	cq_expect(cq, IBV_WC_SEND, (void *)0x1, NULL);
	host_control("kill 1");
	nap_ms(2 * WAIT_MS);
	fail_at(__FILE__, __LINE__, "this host was not killed");
}
