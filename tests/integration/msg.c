// SPDX-License-Identifier: BSD-3-Clause
/*
 * msg.c -- two-sided messaging and the ways of waiting for completions:
 * send/recv ping-pong, immediate data, a separate receive CQ, a shared RQ
 * for two connections, a shared completion channel, rpma_cq_wait() and
 * poll() on the CQ's fd.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <string.h>

#include "common.h"
#include "tests.h"

#define MSG_SIZE 64

/* a message buffer: slots of MSG_SIZE bytes, registered to send and receive */
struct msgbuf {
	char *buf;
	struct rpma_mr_local *mr;
};

static void
msgbuf_new(struct rpma_peer *peer, int slots, struct msgbuf *m)
{
	m->buf = buf_new((size_t)slots * MSG_SIZE);
	CHECK_RET(rpma_mr_reg(peer, m->buf, (size_t)slots * MSG_SIZE,
			RPMA_MR_USAGE_SEND | RPMA_MR_USAGE_RECV, &m->mr));
}

static void
msgbuf_delete(struct msgbuf *m)
{
	CHECK_RET(rpma_mr_dereg(&m->mr));
	free(m->buf);
}

static char *
slot(struct msgbuf *m, int i)
{
	return m->buf + (size_t)i * MSG_SIZE;
}

/* the message of slot i must be the pattern of seed */
static void
check_msg(struct msgbuf *m, int i, const struct ibv_wc *wc, uint32_t seed)
{
	CHECK(wc->byte_len == MSG_SIZE, "message of %u bytes, expected %d", wc->byte_len,
			MSG_SIZE);
	size_t bad = pattern_check(slot(m, i), MSG_SIZE, seed, 0);
	CHECK(bad == SIZE_MAX, "message (seed %u) differs at byte %zu", seed, bad);
}

/* a receive into slot 1 on a request, before it connects */
struct recv_slot {
	struct msgbuf *m;
	void *ctx;
};

static void
recv_slot1(struct rpma_conn_req *req, void *arg)
{
	struct recv_slot *r = arg;
	CHECK_RET(rpma_conn_req_recv(req, r->m->mr, MSG_SIZE, MSG_SIZE, r->ctx));
}

/* send/recv ping-pong */

#define PP_ROUNDS 50
#define SEED_PING(i) (1000u + (i))
#define SEED_PONG(i) (2000u + (i))

void
ping_pong_server(void)
{
	struct rpma_peer *peer = peer_open();
	struct msgbuf m; /* slot 0 receives, slot 1 sends */
	msgbuf_new(peer, 2, &m);
	struct rpma_ep *ep = ep_open(peer);
	struct rpma_conn_req *req = ep_next_req(ep, NULL);
	CHECK_RET(rpma_conn_req_recv(req, m.mr, 0, MSG_SIZE, (void *)0x10));
	struct rpma_conn *conn = server_accept(&req, NULL);
	struct rpma_cq *cq;
	CHECK_RET(rpma_conn_get_cq(conn, &cq));

	/* a pong's SEND completion may come after the next ping's RECV */
	int sends_pending = 0;
	for (unsigned i = 0; i < PP_ROUNDS; i++) {
		struct ibv_wc wc;
		for (;;) {
			cq_expect_success(cq, &wc);
			if (wc.opcode != IBV_WC_SEND)
				break;
			CHECK(wc.wr_id == 0x11 && sends_pending > 0, "a SEND completion too many");
			sends_pending--;
		}
		CHECK(wc.opcode == IBV_WC_RECV && wc.wr_id == 0x10, "completion %s, op_context %#llx",
				wc_opcode_str(wc.opcode), (unsigned long long)wc.wr_id);
		check_msg(&m, 0, &wc, SEED_PING(i));
		/* the next ping finds a buffer: posted before this pong goes */
		CHECK_RET(rpma_recv(conn, m.mr, 0, MSG_SIZE, (void *)0x10));
		pattern_fill(slot(&m, 1), MSG_SIZE, SEED_PONG(i), 0);
		CHECK_RET(rpma_send(conn, m.mr, MSG_SIZE, MSG_SIZE, RPMA_F_COMPLETION_ALWAYS,
				(void *)0x11));
		sends_pending++;
	}
	note("%d pings answered", PP_ROUNDS);

	/* flushes the last receive posted; the last pong may be too */
	conn_close_passive_after_sends(&conn, cq, sends_pending, (void *)0x11);
	CHECK_RET(rpma_ep_shutdown(&ep));
	msgbuf_delete(&m);
	CHECK_RET(rpma_peer_delete(&peer));
}

void
ping_pong_client(void)
{
	struct rpma_peer *peer = peer_open();
	struct msgbuf m; /* slot 0 sends, slot 1 receives */
	msgbuf_new(peer, 2, &m);
	struct rpma_conn *conn = client_connect_prep(peer, NULL, NULL, recv_slot1,
			&(struct recv_slot){&m, (void *)0x20});
	struct rpma_cq *cq;
	CHECK_RET(rpma_conn_get_cq(conn, &cq));

	for (unsigned i = 0; i < PP_ROUNDS; i++) {
		pattern_fill(slot(&m, 0), MSG_SIZE, SEED_PING(i), 0);
		CHECK_RET(rpma_send(conn, m.mr, 0, MSG_SIZE, RPMA_F_COMPLETION_ALWAYS,
				(void *)0x21));
		struct ibv_wc wc;
		expect_send_and_recv(cq, (void *)0x21, (void *)0x20, &wc);
		check_msg(&m, 1, &wc, SEED_PONG(i));
		if (i + 1 < PP_ROUNDS)
			CHECK_RET(rpma_recv(conn, m.mr, MSG_SIZE, MSG_SIZE, (void *)0x20));
	}
	note("%d ping-pongs, every message compared", PP_ROUNDS);

	conn_close_active(&conn);
	msgbuf_delete(&m);
	CHECK_RET(rpma_peer_delete(&peer));
}

/* send_with_imm and write_with_imm: the immediate data arrives in host order */

#define IMM_SEND 0xA1B2C3D4u
#define IMM_WRITE 0x01020304u
#define IMM_EMPTY 0xFFFFFFFEu
#define IMM_REGION 4096
#define IMM_WOFF 128
#define IMM_WLEN 256
#define SEED_IMM_SEND 51
#define SEED_IMM_WRITE 52

static void
check_imm(const struct ibv_wc *wc, enum ibv_wc_opcode opcode, uint32_t imm)
{
	CHECK(wc->opcode == opcode, "completion %s, expected %s", wc_opcode_str(wc->opcode),
			wc_opcode_str(opcode));
	CHECK(wc->wc_flags & IBV_WC_WITH_IMM, "%s without IBV_WC_WITH_IMM",
			wc_opcode_str(opcode));
	CHECK(ntohl(wc->imm_data) == imm, "%s: immediate data %#x, sent %#x",
			wc_opcode_str(opcode), ntohl(wc->imm_data), imm);
}

/*
 * iWARP has no immediate data: the client's calls with it fail at the call,
 * and the connection goes on: the same message without it, the write
 * followed by an empty message, and an empty message arrive (tests.def)
 */
static void
imm_server_iwarp(struct rpma_conn *conn, struct rpma_cq *cq, struct msgbuf *m,
		const char *region)
{
	struct ibv_wc wc;

	(void) conn;
	cq_expect(cq, IBV_WC_RECV, (void *)1, &wc);
	CHECK(!(wc.wc_flags & IBV_WC_WITH_IMM), "a message with immediate data on iWARP");
	check_msg(m, 0, &wc, SEED_IMM_SEND);
	cq_expect(cq, IBV_WC_RECV, (void *)2, &wc);
	CHECK(wc.byte_len == 0, "the message after the write has %u bytes", wc.byte_len);
	size_t bad = pattern_check(region + IMM_WOFF, IMM_WLEN, SEED_IMM_WRITE, 0);
	CHECK(bad == SIZE_MAX, "the write's data differs at byte %zu", bad);
	cq_expect(cq, IBV_WC_RECV, (void *)3, &wc);
	CHECK(wc.byte_len == 0, "the empty message has %u bytes", wc.byte_len);
	note("iWARP: the calls with immediate data failed at the call; the same without it "
			"arrived");
}

void
imm_server(void)
{
	struct rpma_peer *peer = peer_open();
	struct msgbuf m;
	msgbuf_new(peer, 3, &m);
	char *region = buf_new(IMM_REGION);
	struct rpma_mr_local *region_mr;
	CHECK_RET(rpma_mr_reg(peer, region, IMM_REGION, RPMA_MR_USAGE_WRITE_DST, &region_mr));

	struct rpma_ep *ep = ep_open(peer);
	struct rpma_conn_req *req = ep_next_req(ep, NULL);
	for (uintptr_t i = 0; i < 3; i++)
		CHECK_RET(rpma_conn_req_recv(req, m.mr, i * MSG_SIZE, MSG_SIZE, (void *)(i + 1)));
	struct server_desc sd;
	struct rpma_conn_private_data pd;
	server_desc_make(&sd, region_mr, NULL, &pd);
	struct rpma_conn *conn = server_accept(&req, &pd);
	struct rpma_cq *cq;
	CHECK_RET(rpma_conn_get_cq(conn, &cq));

	struct ibv_wc wc;
	if (test_iwarp()) {
		imm_server_iwarp(conn, cq, &m, region);
		goto out;
	}
	cq_expect(cq, IBV_WC_RECV, (void *)1, &wc);
	check_imm(&wc, IBV_WC_RECV, IMM_SEND);
	check_msg(&m, 0, &wc, SEED_IMM_SEND);

	/* a write with immediate takes a receive, but its data goes to the region */
	cq_expect(cq, IBV_WC_RECV_RDMA_WITH_IMM, (void *)2, &wc);
	check_imm(&wc, IBV_WC_RECV_RDMA_WITH_IMM, IMM_WRITE);
	size_t bad = pattern_check(region + IMM_WOFF, IMM_WLEN, SEED_IMM_WRITE, 0);
	CHECK(bad == SIZE_MAX, "write_with_imm data differs at byte %zu", bad);

	cq_expect(cq, IBV_WC_RECV, (void *)3, &wc);
	check_imm(&wc, IBV_WC_RECV, IMM_EMPTY);
	CHECK(wc.byte_len == 0, "empty send_with_imm arrived with %u bytes", wc.byte_len);
	note("send_with_imm %#x, write_with_imm %#x, empty send_with_imm %#x: all arrived",
			IMM_SEND, IMM_WRITE, IMM_EMPTY);

out:
	conn_close_passive(&conn);
	CHECK_RET(rpma_ep_shutdown(&ep));
	CHECK_RET(rpma_mr_dereg(&region_mr));
	free(region);
	msgbuf_delete(&m);
	CHECK_RET(rpma_peer_delete(&peer));
}

/* a call with immediate data on iWARP: refused at the call, as its manual says */
static void
imm_refused(int ret, const char *call)
{
	CHECK(ret == RPMA_E_PROVIDER, "%s on iWARP returned %d (%s), expected RPMA_E_PROVIDER",
			call, ret, rpma_err_2str(ret));
	/* librpma 1.x leaves errno as the provider left it */
	CHECK(on_1x() || errno == EINVAL, "%s on iWARP: errno %s, expected EINVAL", call,
			strerror(errno));
}

/* iWARP: each call with immediate data fails, the same without it goes (imm_server_iwarp()) */
static void
imm_client_iwarp(struct rpma_conn *conn, struct rpma_cq *cq, struct rpma_mr_remote *dst,
		struct rpma_mr_local *src)
{
	imm_refused(rpma_send_with_imm(conn, src, 0, MSG_SIZE, RPMA_F_COMPLETION_ALWAYS,
			IMM_SEND, (void *)0x31), "rpma_send_with_imm()");
	CHECK_RET(rpma_send(conn, src, 0, MSG_SIZE, RPMA_F_COMPLETION_ALWAYS, (void *)0x31));
	cq_expect(cq, IBV_WC_SEND, (void *)0x31, NULL);
	imm_refused(rpma_write_with_imm(conn, dst, IMM_WOFF, src, MSG_SIZE, IMM_WLEN,
			RPMA_F_COMPLETION_ALWAYS, IMM_WRITE, (void *)0x32), "rpma_write_with_imm()");
	CHECK_RET(rpma_write(conn, dst, IMM_WOFF, src, MSG_SIZE, IMM_WLEN,
			RPMA_F_COMPLETION_ALWAYS, (void *)0x32));
	cq_expect(cq, IBV_WC_RDMA_WRITE, (void *)0x32, NULL);
	CHECK_RET(rpma_send(conn, NULL, 0, 0, RPMA_F_COMPLETION_ALWAYS, (void *)0x33));
	cq_expect(cq, IBV_WC_SEND, (void *)0x33, NULL);
	imm_refused(rpma_send_with_imm(conn, NULL, 0, 0, RPMA_F_COMPLETION_ALWAYS, IMM_EMPTY,
			(void *)0x34), "rpma_send_with_imm() of nothing");
	CHECK_RET(rpma_send(conn, NULL, 0, 0, RPMA_F_COMPLETION_ALWAYS, (void *)0x34));
	cq_expect(cq, IBV_WC_SEND, (void *)0x34, NULL);
	cq_expect_empty(cq);
	note("iWARP: rpma_send_with_imm() and rpma_write_with_imm() refused at the call, the "
			"connection kept working");
}

void
imm_client(void)
{
	struct rpma_peer *peer = peer_open();
	struct rpma_conn *conn = client_connect(peer, NULL, NULL);
	struct rpma_mr_remote *dst = server_desc_take(conn, NULL);
	struct rpma_cq *cq;
	CHECK_RET(rpma_conn_get_cq(conn, &cq));
	char *buf = buf_new(MSG_SIZE + IMM_WLEN);
	pattern_fill(buf, MSG_SIZE, SEED_IMM_SEND, 0);
	pattern_fill(buf + MSG_SIZE, IMM_WLEN, SEED_IMM_WRITE, 0);
	struct rpma_mr_local *src;
	CHECK_RET(rpma_mr_reg(peer, buf, MSG_SIZE + IMM_WLEN, RPMA_MR_USAGE_SEND |
			RPMA_MR_USAGE_WRITE_SRC, &src));
	if (test_iwarp()) {
		imm_client_iwarp(conn, cq, dst, src);
		goto out;
	}

	CHECK_RET(rpma_send_with_imm(conn, src, 0, MSG_SIZE, RPMA_F_COMPLETION_ALWAYS, IMM_SEND,
			(void *)0x31));
	cq_expect(cq, IBV_WC_SEND, (void *)0x31, NULL);
	CHECK_RET(rpma_write_with_imm(conn, dst, IMM_WOFF, src, MSG_SIZE, IMM_WLEN,
			RPMA_F_COMPLETION_ALWAYS, IMM_WRITE, (void *)0x32));
	cq_expect(cq, IBV_WC_RDMA_WRITE, (void *)0x32, NULL);
	CHECK_RET(rpma_send_with_imm(conn, NULL, 0, 0, RPMA_F_COMPLETION_ALWAYS, IMM_EMPTY,
			(void *)0x33));
	cq_expect(cq, IBV_WC_SEND, (void *)0x33, NULL);

out:
	conn_close_active(&conn);
	CHECK_RET(rpma_mr_dereg(&src));
	free(buf);
	CHECK_RET(rpma_mr_remote_delete(&dst));
	CHECK_RET(rpma_peer_delete(&peer));
}

/* a separate receive CQ: receives there, everything else on the main CQ */

#define RCQ_MSGS 3
#define SEED_RCQ(i) (3000u + (i))
#define SEED_RCQ_REPLY 3100u

void
rcq_server(void)
{
	struct rpma_peer *peer = peer_open();
	struct msgbuf m; /* slots 0..RCQ_MSGS-1 receive, slot RCQ_MSGS sends */
	msgbuf_new(peer, RCQ_MSGS + 1, &m);
	struct rpma_conn_cfg *cfg;
	CHECK_RET(rpma_conn_cfg_new(&cfg));
	CHECK_RET(rpma_conn_cfg_set_rcq_size(cfg, 8));

	struct rpma_ep *ep = ep_open(peer);
	struct rpma_conn_req *req = ep_next_req(ep, cfg);
	for (uintptr_t i = 0; i < RCQ_MSGS; i++)
		CHECK_RET(rpma_conn_req_recv(req, m.mr, i * MSG_SIZE, MSG_SIZE, (void *)(i + 1)));
	struct rpma_conn *conn = server_accept(&req, NULL);
	struct rpma_cq *cq, *rcq;
	CHECK_RET(rpma_conn_get_cq(conn, &cq));
	CHECK_RET(rpma_conn_get_rcq(conn, &rcq));
	CHECK(rcq != NULL && rcq != cq, "no separate receive CQ with rcq_size 8");

	for (uintptr_t i = 0; i < RCQ_MSGS; i++) {
		struct ibv_wc wc;
		cq_expect(rcq, IBV_WC_RECV, (void *)(i + 1), &wc);
		check_msg(&m, (int)i, &wc, SEED_RCQ(i));
		cq_expect_empty(cq);
	}
	pattern_fill(slot(&m, RCQ_MSGS), MSG_SIZE, SEED_RCQ_REPLY, 0);
	CHECK_RET(rpma_send(conn, m.mr, RCQ_MSGS * MSG_SIZE, MSG_SIZE, RPMA_F_COMPLETION_ALWAYS,
			(void *)0x40));
	cq_expect_empty(rcq);
	note("%d receives on the receive CQ only", RCQ_MSGS);

	/*
	 * the client closes once it has the reply, maybe before this side has
	 * its ACK: the send completes (on the main CQ) or is flushed
	 */
	conn_close_passive_after_sends(&conn, cq, 1, (void *)0x40);
	CHECK_RET(rpma_ep_shutdown(&ep));
	CHECK_RET(rpma_conn_cfg_delete(&cfg));
	msgbuf_delete(&m);
	CHECK_RET(rpma_peer_delete(&peer));
}

void
rcq_client(void)
{
	struct rpma_peer *peer = peer_open();
	struct msgbuf m; /* slot 0 sends, slot 1 receives */
	msgbuf_new(peer, 2, &m);
	struct rpma_conn *conn = client_connect_prep(peer, NULL, NULL, recv_slot1,
			&(struct recv_slot){&m, (void *)0x41});
	struct rpma_cq *cq, *rcq;
	CHECK_RET(rpma_conn_get_cq(conn, &cq));
	CHECK_RET(rpma_conn_get_rcq(conn, &rcq));
	CHECK(rcq == NULL, "a receive CQ with the default rcq_size 0");

	struct ibv_wc wc;
	for (uintptr_t i = 0; i < RCQ_MSGS; i++) {
		pattern_fill(slot(&m, 0), MSG_SIZE, SEED_RCQ(i), 0);
		CHECK_RET(rpma_send(conn, m.mr, 0, MSG_SIZE, RPMA_F_COMPLETION_ALWAYS,
				(void *)(0x50 + i)));
		if (i + 1 < RCQ_MSGS)
			cq_expect(cq, IBV_WC_SEND, (void *)(0x50 + i), NULL);
	}
	/* without a receive CQ the reply completes on the main CQ, maybe before the send */
	expect_send_and_recv(cq, (void *)(0x50 + RCQ_MSGS - 1), (void *)0x41, &wc);
	check_msg(&m, 1, &wc, SEED_RCQ_REPLY);

	conn_close_active(&conn);
	msgbuf_delete(&m);
	CHECK_RET(rpma_peer_delete(&peer));
}

/* a shared RQ for two connections */

#define SRQ_CLIENTS 2
#define SRQ_MSGS 2 /* per client */
#define SRQ_SLOTS (SRQ_CLIENTS * SRQ_MSGS)

/* the pattern of message k of client */
static uint32_t
srq_seed(int client, int k)
{
	return 4000u + (uint32_t)(client * 16 + k);
}

void
srq_server(void)
{
	struct rpma_peer *peer = peer_open();
	struct msgbuf m;
	msgbuf_new(peer, SRQ_SLOTS, &m);
	struct rpma_srq_cfg *scfg;
	struct rpma_srq *srq;
	CHECK_RET(rpma_srq_cfg_new(&scfg));
	CHECK_RET(rpma_srq_cfg_set_rq_size(scfg, 16));
	CHECK_RET(rpma_srq_cfg_set_rcq_size(scfg, 16));
	CHECK_RET(rpma_srq_new(peer, scfg, &srq));
	struct rpma_cq *srq_rcq;
	CHECK_RET(rpma_srq_get_rcq(srq, &srq_rcq));
	CHECK(srq_rcq != NULL, "the shared RQ has no receive CQ");
	struct rpma_conn_cfg *cfg;
	CHECK_RET(rpma_conn_cfg_new(&cfg));
	CHECK_RET(rpma_conn_cfg_set_srq(cfg, srq));
	for (uintptr_t i = 0; i < SRQ_SLOTS; i++)
		CHECK_RET(rpma_srq_recv(srq, m.mr, i * MSG_SIZE, MSG_SIZE, (void *)(i + 1)));

	struct rpma_ep *ep = ep_open(peer);
	struct rpma_conn *conn[SRQ_CLIENTS];
	uint32_t qp_num[SRQ_CLIENTS];
	int client_of[SRQ_CLIENTS];
	for (int c = 0; c < SRQ_CLIENTS; c++) {
		struct rpma_conn_req *req = ep_next_req(ep, cfg);
		struct rpma_conn_private_data pd;
		CHECK_RET(rpma_conn_req_get_private_data(req, &pd));
		CHECK(pd.len >= 1 && *(uint8_t *)pd.ptr < SRQ_CLIENTS, "bad client index");
		client_of[c] = *(uint8_t *)pd.ptr;
		conn[c] = server_accept(&req, NULL);
		CHECK_RET(rpma_conn_get_qp_num(conn[c], &qp_num[c]));
		struct rpma_cq *rcq;
		CHECK_RET(rpma_conn_get_rcq(conn[c], &rcq));
		CHECK(rcq == srq_rcq, "connection %d: receive CQ is not the shared RQ's", c);
	}
	CHECK(client_of[0] != client_of[1], "both connections claim client %d", client_of[0]);

	/* every message once, through the SRQ's CQ, from the connection of its sender */
	bool seen[SRQ_CLIENTS][SRQ_MSGS] = {{false}};
	for (int n = 0; n < SRQ_SLOTS; n++) {
		struct ibv_wc wc;
		cq_expect_success(srq_rcq, &wc);
		CHECK(wc.opcode == IBV_WC_RECV, "completion %s on the SRQ's CQ",
				wc_opcode_str(wc.opcode));
		CHECK(wc.wr_id >= 1 && wc.wr_id <= SRQ_SLOTS, "op_context %#llx",
				(unsigned long long)wc.wr_id);
		int s = (int)wc.wr_id - 1;
		int c = wc.qp_num == qp_num[0] ? 0 : wc.qp_num == qp_num[1] ? 1 : -1;
		CHECK(c >= 0, "receive on QP %u, which is none of ours", wc.qp_num);
		int client = client_of[c];
		uint8_t k = (uint8_t)slot(&m, s)[0];
		CHECK(k < SRQ_MSGS && !seen[client][k], "message %u of client %d again or bad", k,
				client);
		seen[client][k] = true;
		CHECK(wc.byte_len == MSG_SIZE, "message of %u bytes", wc.byte_len);
		size_t bad = pattern_check(slot(&m, s) + 1, MSG_SIZE - 1, srq_seed(client, k), 1);
		CHECK(bad == SIZE_MAX, "message %u of client %d differs at byte %zu", k, client,
				bad + 1);
	}
	for (int c = 0; c < SRQ_CLIENTS; c++) {
		struct rpma_cq *cq;
		CHECK_RET(rpma_conn_get_cq(conn[c], &cq));
		cq_expect_empty(cq);
	}
	cq_expect_empty(srq_rcq);
	note("%d messages from %d clients arrived through the shared RQ", SRQ_SLOTS,
			SRQ_CLIENTS);

	for (int c = 0; c < SRQ_CLIENTS; c++)
		conn_close_passive(&conn[c]);
	CHECK_RET(rpma_ep_shutdown(&ep));
	CHECK_RET(rpma_conn_cfg_delete(&cfg));
	CHECK_RET(rpma_srq_delete(&srq));
	CHECK_RET(rpma_srq_cfg_delete(&scfg));
	msgbuf_delete(&m);
	CHECK_RET(rpma_peer_delete(&peer));
}

void
srq_client(void)
{
	struct rpma_peer *peer = peer_open();
	struct msgbuf m;
	msgbuf_new(peer, 1, &m);
	uint8_t me = (uint8_t)integ_client_index;
	struct rpma_conn_private_data pd = {&me, 1};
	struct rpma_conn *conn = client_connect(peer, NULL, &pd);
	struct rpma_cq *cq;
	CHECK_RET(rpma_conn_get_cq(conn, &cq));

	for (int k = 0; k < SRQ_MSGS; k++) {
		/* byte 0 says which message it is, the rest is the sender's pattern */
		pattern_fill(m.buf, MSG_SIZE, srq_seed(me, k), 0);
		m.buf[0] = (char)k;
		CHECK_RET(rpma_send(conn, m.mr, 0, MSG_SIZE, RPMA_F_COMPLETION_ALWAYS,
				(void *)0x60));
		cq_expect(cq, IBV_WC_SEND, (void *)0x60, NULL);
	}

	conn_close_active(&conn);
	msgbuf_delete(&m);
	CHECK_RET(rpma_peer_delete(&peer));
}

/* a completion channel shared by the CQ and the receive CQ */

#define SEED_SC_MSG 5000u
#define SEED_SC_REPLY 5001u

/* wait on the shared channel; the CQ that fired must be the one expected */
static struct rpma_cq *
shared_wait(struct rpma_conn *conn, int fd, bool want_rcq)
{
	struct rpma_cq *cq = NULL;
	bool is_rcq = !want_rcq;

	CHECK(fd_wait(fd, WAIT_MS), "no event on the shared channel within %d ms", WAIT_MS);
	CHECK_RET(rpma_conn_wait(conn, 0, &cq, &is_rcq));
	CHECK(is_rcq == want_rcq, "rpma_conn_wait(): is_rcq %d, expected %d", is_rcq, want_rcq);
	return cq;
}

/*
 * The client closes once it has the reply, maybe before this side has its
 * ACK: the SEND completes, or the client's close comes first and the SEND
 * is flushed by this side's disconnect. Either way its completion comes
 * through the shared channel, from the main CQ.
 */
static void
shared_close_after_send(struct rpma_conn **conn, int fd, const void *ctx)
{
	struct rpma_cq *cq;
	struct ibv_wc wc;
	int efd;

	CHECK_RET(rpma_conn_get_cq(*conn, &cq));
	CHECK_RET(rpma_conn_get_event_fd(*conn, &efd));
	struct pollfd pfd[2] = {{.fd = fd, .events = POLLIN}, {.fd = efd, .events = POLLIN}};
	CHECK(poll(pfd, 2, WAIT_MS) > 0, "neither the SEND completion nor a connection event "
			"within %d ms", WAIT_MS);
	bool closed = pfd[0].revents == 0;
	if (closed) {
		conn_expect_event(*conn, RPMA_CONN_CLOSED);
		CHECK_RET(rpma_conn_disconnect(*conn));
	}
	CHECK(shared_wait(*conn, fd, false) == cq, "the event came from another CQ");
	CHECK_RET(rpma_cq_get_wc(cq, 1, &wc, NULL));
	CHECK(wc.wr_id == (uintptr_t)ctx && (wc.status == IBV_WC_SUCCESS ||
			(closed && wc.status == IBV_WC_WR_FLUSH_ERR)),
			"send completion %s, op_context %#llx, status %s", wc_opcode_str(wc.opcode),
			(unsigned long long)wc.wr_id, ibv_wc_status_str(wc.status));
	/* an error completion's opcode is undefined */
	CHECK(wc.status != IBV_WC_SUCCESS || wc.opcode == IBV_WC_SEND, "completion %s",
			wc_opcode_str(wc.opcode));
	note("rpma_conn_wait() told the receive CQ and the main CQ apart%s",
			wc.status == IBV_WC_SUCCESS ? "" : "; the SEND was flushed");
	expect_unacked_sends(wc.status == IBV_WC_SUCCESS);
	if (closed)
		CHECK_RET(rpma_conn_delete(conn));
	else
		conn_close_passive(conn);
}

void
shared_channel_server(void)
{
	struct rpma_peer *peer = peer_open();
	struct msgbuf m; /* slot 0 receives, slot 1 sends */
	msgbuf_new(peer, 2, &m);
	struct rpma_conn_cfg *cfg;
	CHECK_RET(rpma_conn_cfg_new(&cfg));
	CHECK_RET(rpma_conn_cfg_set_rcq_size(cfg, 8));
	CHECK_RET(rpma_conn_cfg_set_compl_channel(cfg, true));

	struct rpma_ep *ep = ep_open(peer);
	struct rpma_conn_req *req = ep_next_req(ep, cfg);
	CHECK_RET(rpma_conn_req_recv(req, m.mr, 0, MSG_SIZE, (void *)0x70));
	struct rpma_conn *conn = server_accept(&req, NULL);
	struct rpma_cq *cq, *rcq;
	CHECK_RET(rpma_conn_get_cq(conn, &cq));
	CHECK_RET(rpma_conn_get_rcq(conn, &rcq));
	int fd;
	CHECK_RET(rpma_conn_get_compl_fd(conn, &fd));
	/* a shared channel's events may belong to either CQ: only rpma_conn_wait() */
	CHECK_EQ_RET(rpma_cq_wait(cq), RPMA_E_SHARED_CHANNEL);
	CHECK_EQ_RET(rpma_cq_wait(rcq), RPMA_E_SHARED_CHANNEL);

	struct ibv_wc wc;
	CHECK(shared_wait(conn, fd, true) == rcq, "the event came from another CQ");
	CHECK_RET(rpma_cq_get_wc(rcq, 1, &wc, NULL));
	CHECK(wc.status == IBV_WC_SUCCESS && wc.opcode == IBV_WC_RECV && wc.wr_id == 0x70,
			"receive completion %s status %s", wc_opcode_str(wc.opcode),
			ibv_wc_status_str(wc.status));
	check_msg(&m, 0, &wc, SEED_SC_MSG);
	cq_expect_empty(cq);

	pattern_fill(slot(&m, 1), MSG_SIZE, SEED_SC_REPLY, 0);
	CHECK_RET(rpma_send(conn, m.mr, MSG_SIZE, MSG_SIZE, RPMA_F_COMPLETION_ALWAYS,
			(void *)0x71));
	cq_expect_empty(rcq);
	shared_close_after_send(&conn, fd, (void *)0x71);
	CHECK_RET(rpma_ep_shutdown(&ep));
	CHECK_RET(rpma_conn_cfg_delete(&cfg));
	msgbuf_delete(&m);
	CHECK_RET(rpma_peer_delete(&peer));
}

void
shared_channel_client(void)
{
	struct rpma_peer *peer = peer_open();
	struct msgbuf m; /* slot 0 sends, slot 1 receives */
	msgbuf_new(peer, 2, &m);
	struct rpma_conn *conn = client_connect_prep(peer, NULL, NULL, recv_slot1,
			&(struct recv_slot){&m, (void *)0x72});

	/* this side has no shared channel */
	int fd;
	struct rpma_cq *cq = NULL;
	CHECK_EQ_RET(rpma_conn_get_compl_fd(conn, &fd), RPMA_E_NOT_SHARED_CHNL);
	CHECK_EQ_RET(rpma_conn_wait(conn, 0, &cq, NULL), RPMA_E_NOT_SHARED_CHNL);

	CHECK_RET(rpma_conn_get_cq(conn, &cq));
	pattern_fill(slot(&m, 0), MSG_SIZE, SEED_SC_MSG, 0);
	CHECK_RET(rpma_send(conn, m.mr, 0, MSG_SIZE, RPMA_F_COMPLETION_ALWAYS, (void *)0x73));
	struct ibv_wc wc;
	expect_send_and_recv(cq, (void *)0x73, (void *)0x72, &wc);
	check_msg(&m, 1, &wc, SEED_SC_REPLY);

	conn_close_active(&conn);
	msgbuf_delete(&m);
	CHECK_RET(rpma_peer_delete(&peer));
}

/* rpma_cq_wait(), blocking and not, and poll() on rpma_cq_get_fd() */

#define CW_SIZE 4096
#define CW_SEED 61

void
cq_wait_server(void)
{
	struct rpma_peer *peer = peer_open();
	char *buf = buf_new(CW_SIZE);
	pattern_fill(buf, CW_SIZE, CW_SEED, 0);
	struct rpma_mr_local *mr;
	CHECK_RET(rpma_mr_reg(peer, buf, CW_SIZE, RPMA_MR_USAGE_READ_SRC, &mr));
	struct rpma_ep *ep = ep_open(peer);
	struct rpma_conn_req *req = ep_next_req(ep, NULL);
	struct server_desc sd;
	struct rpma_conn_private_data pd;
	server_desc_make(&sd, mr, NULL, &pd);
	struct rpma_conn *conn = server_accept(&req, &pd);
	conn_close_passive(&conn);
	CHECK_RET(rpma_ep_shutdown(&ep));
	CHECK_RET(rpma_mr_dereg(&mr));
	free(buf);
	CHECK_RET(rpma_peer_delete(&peer));
}

/* poll() on fd with a timeout of 0: is it readable now? */
static bool
fd_ready_now(int fd)
{
	struct pollfd pfd = {.fd = fd, .events = POLLIN};
	int ret = poll(&pfd, 1, 0);
	CHECK(ret >= 0, "poll() failed");
	return ret == 1;
}

/* read the 4 KiB region into dst in n pieces */
static void
cw_post_reads(struct rpma_conn *conn, struct rpma_mr_local *dst, struct rpma_mr_remote *src,
		char *buf, int n)
{
	memset(buf, 0, CW_SIZE);
	size_t piece = CW_SIZE / (size_t)n;
	for (int i = 0; i < n; i++)
		CHECK_RET(rpma_read(conn, dst, i * piece, src, i * piece, piece,
				RPMA_F_COMPLETION_ALWAYS, (void *)(uintptr_t)(0x80 + i)));
}

static void
cw_check_wc(const struct ibv_wc *wc, uintptr_t ctx)
{
	CHECK(wc->status == IBV_WC_SUCCESS && wc->opcode == IBV_WC_RDMA_READ &&
			wc->wr_id == ctx, "completion %s status %s op_context %#llx",
			wc_opcode_str(wc->opcode), ibv_wc_status_str(wc->status),
			(unsigned long long)wc->wr_id);
}

static void
cw_check_data(const char *buf)
{
	size_t bad = pattern_check(buf, CW_SIZE, CW_SEED, 0);
	CHECK(bad == SIZE_MAX, "read data differs at byte %zu", bad);
}

void
cq_wait_client(void)
{
	struct rpma_peer *peer = peer_open();
	struct rpma_conn *conn = client_connect(peer, NULL, NULL);
	struct rpma_mr_remote *src = server_desc_take(conn, NULL);
	char *buf = buf_new(CW_SIZE);
	struct rpma_mr_local *dst;
	CHECK_RET(rpma_mr_reg(peer, buf, CW_SIZE, RPMA_MR_USAGE_READ_DST, &dst));
	struct rpma_cq *cq;
	CHECK_RET(rpma_conn_get_cq(conn, &cq));
	int fd;
	CHECK_RET(rpma_cq_get_fd(cq, &fd));
	struct ibv_wc wc[3];

	/* non-blocking, nothing there: the fd is quiet and nothing waits */
	fd_set_nonblock(fd, true);
	CHECK(!fd_ready_now(fd), "the CQ's fd is readable before any operation");
	CHECK_EQ_RET(rpma_cq_wait(cq), RPMA_E_NO_COMPLETION);
	CHECK_EQ_RET(rpma_cq_get_wc(cq, 1, wc, NULL), RPMA_E_NO_COMPLETION);

	/* one read: poll() wakes up, rpma_cq_wait() takes the event */
	cw_post_reads(conn, dst, src, buf, 1);
	CHECK(fd_wait(fd, WAIT_MS), "poll() on the CQ's fd: no event within %d ms", WAIT_MS);
	CHECK_RET(rpma_cq_wait(cq));
	CHECK_RET(rpma_cq_get_wc(cq, 1, wc, NULL));
	cw_check_wc(&wc[0], 0x80);
	cw_check_data(buf);
	/* the event was consumed and the CQ is empty */
	CHECK_EQ_RET(rpma_cq_wait(cq), RPMA_E_NO_COMPLETION);
	CHECK_EQ_RET(rpma_cq_get_wc(cq, 1, wc, NULL), RPMA_E_NO_COMPLETION);

	/* blocking: rpma_cq_wait() returns once the completion is there */
	fd_set_nonblock(fd, false);
	cw_post_reads(conn, dst, src, buf, 1);
	CHECK_RET(rpma_cq_wait(cq));
	CHECK_RET(rpma_cq_get_wc(cq, 1, wc, NULL));
	cw_check_wc(&wc[0], 0x80);
	cw_check_data(buf);

	/* three at once, taken with num_entries 3 (maybe in several calls) */
	cw_post_reads(conn, dst, src, buf, 3);
	int got_total = 0;
	while (got_total < 3) {
		int got = 0;
		int ret = rpma_cq_get_wc(cq, 3 - got_total, wc + got_total, &got);
		if (ret == RPMA_E_NO_COMPLETION) {
			CHECK_RET(rpma_cq_wait(cq));
			continue;
		}
		CHECK_RET(ret);
		CHECK(got >= 1 && got <= 3 - got_total, "rpma_cq_get_wc() got %d", got);
		got_total += got;
	}
	for (int i = 0; i < 3; i++)
		cw_check_wc(&wc[i], 0x80 + (uintptr_t)i);
	/* the pieces of CW_SIZE / 3 leave the tail unread */
	size_t bad = pattern_check(buf, CW_SIZE / 3 * 3, CW_SEED, 0);
	CHECK(bad == SIZE_MAX, "read data differs at byte %zu", bad);
	note("rpma_cq_wait() non-blocking (RPMA_E_NO_COMPLETION), poll(), blocking: all right");

	conn_close_active(&conn);
	CHECK_RET(rpma_mr_dereg(&dst));
	free(buf);
	CHECK_RET(rpma_mr_remote_delete(&src));
	CHECK_RET(rpma_peer_delete(&peer));
}
