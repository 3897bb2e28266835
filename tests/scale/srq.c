// SPDX-License-Identifier: BSD-3-Clause
/*
 * srq.c -- one shared receive queue serves RPMA_SCALE_SRQ_CONNS
 * connections (32 by default). Every connection sends SRQ_ROUNDS
 * messages, one at a time; the server takes each from the shared RQ's
 * CQ, finds its connection by the QP number, checks it is the next
 * message of that connection, gives the buffer back to the shared RQ and
 * answers on that connection, and the client checks each answer.
 */

#include <string.h>

#include "scale.h"
#include "tests.h"

#define MSG 64
#define SRQ_ROUNDS 8
#define CTX_SEND ((void *)0x5e)
#define CTX_RECV ((void *)0x5f)

/* a message: who sends it, which round, then the pattern of both */
struct srq_msg {
	uint32_t index;
	uint32_t round;
};

static uint32_t
srq_conns(void)
{
	return (uint32_t)env_number("RPMA_SCALE_SRQ_CONNS", 32, 1, 4096);
}

/* the seed of a message: the client's question or the server's answer */
static uint32_t
msg_seed(uint32_t index, uint32_t round, bool answer)
{
	return conn_seed(index, round) ^ (answer ? 0xa5a5a5a5u : 0);
}

static void
msg_fill(char *buf, uint32_t index, uint32_t round, bool answer)
{
	struct srq_msg m = {index, round};
	pattern_fill(buf, MSG, msg_seed(index, round, answer), 0);
	memcpy(buf, &m, sizeof(m));
}

/* the message in buf must be round of index (its header too) */
static void
msg_check(const char *buf, uint32_t len, uint32_t index, uint32_t round, bool answer)
{
	struct srq_msg m;

	CHECK(len == MSG, "connection %u: a message of %u bytes", index, len);
	memcpy(&m, buf, sizeof(m));
	CHECK(m.index == index && m.round == round,
			"connection %u expected message %u, got message %u of connection %u", index,
			round, m.round, m.index);
	size_t bad = pattern_check(buf + sizeof(m), MSG - sizeof(m),
			msg_seed(index, round, answer), sizeof(m));
	CHECK(bad == SIZE_MAX, "connection %u, message %u differs at byte %zu", index, round,
			bad + sizeof(m));
}

struct srq_server {
	uint32_t n;
	char *buf;		/* n receive slots, then n send slots */
	struct rpma_mr_local *mr;
	struct rpma_srq *srq;
	struct rpma_cq *rcq;
	struct rpma_conn **conn;
	uint32_t *qp_num;	/* of conn[i] */
	uint32_t *next;		/* the round connection i sends next */
};

static uint32_t
conn_of_qp(const struct srq_server *s, uint32_t qp_num)
{
	for (uint32_t i = 0; i < s->n; i++)
		if (s->qp_num[i] == qp_num)
			return i;
	fail_at(__FILE__, __LINE__, "a message on QP %u, which is none of ours", qp_num);
}

/* one message from the shared RQ: check it, recycle the slot, answer */
static void
serve_one(struct srq_server *s)
{
	struct ibv_wc wc;

	cq_expect_success(s->rcq, &wc);
	CHECK(wc.opcode == IBV_WC_RECV, "completion %s on the shared RQ's CQ",
			wc_opcode_str(wc.opcode));
	CHECK(wc.wr_id < s->n, "op_context %#llx", (unsigned long long)wc.wr_id);
	size_t slot = (size_t)wc.wr_id;
	uint32_t i = conn_of_qp(s, wc.qp_num);
	msg_check(s->buf + slot * MSG, wc.byte_len, i, s->next[i], false);
	CHECK_RET(rpma_srq_recv(s->srq, s->mr, slot * MSG, MSG, (void *)(uintptr_t)slot));
	char *answer = s->buf + (size_t)(s->n + i) * MSG;
	msg_fill(answer, i, s->next[i], true);
	CHECK_RET(rpma_send(s->conn[i], s->mr, (size_t)(s->n + i) * MSG, MSG,
			RPMA_F_COMPLETION_ALWAYS, CTX_SEND));
	s->next[i]++;
}

static void
server_accept_all(struct srq_server *s, struct rpma_ep *ep, struct rpma_conn_cfg *cfg)
{
	bool *taken = calloc(s->n, sizeof(*taken));
	CHECK(taken != NULL, "out of memory");
	for (uint32_t k = 0; k < s->n; k++) {
		struct rpma_conn_req *req = ep_next_req(ep, cfg);
		uint32_t i = hello_take(req, s->n, MSG, taken).index;
		s->conn[i] = accept_start(&req, s->mr, i);
	}
	for (uint32_t i = 0; i < s->n; i++) {
		struct rpma_cq *rcq;
		conn_expect_event(s->conn[i], RPMA_CONN_ESTABLISHED);
		CHECK_RET(rpma_conn_get_qp_num(s->conn[i], &s->qp_num[i]));
		CHECK_RET(rpma_conn_get_rcq(s->conn[i], &rcq));
		CHECK(rcq == s->rcq, "connection %u: its receive CQ is not the shared RQ's", i);
	}
	free(taken);
}

void
srq_server(void)
{
	struct srq_server s = {.n = srq_conns()};
	struct rpma_peer *peer = peer_open();
	s.buf = buf_new(2 * (size_t)s.n * MSG);
	CHECK_RET(rpma_mr_reg(peer, s.buf, 2 * (size_t)s.n * MSG,
			RPMA_MR_USAGE_SEND | RPMA_MR_USAGE_RECV, &s.mr));
	struct rpma_srq_cfg *scfg;
	CHECK_RET(rpma_srq_cfg_new(&scfg));
	CHECK_RET(rpma_srq_cfg_set_rq_size(scfg, s.n));
	CHECK_RET(rpma_srq_cfg_set_rcq_size(scfg, s.n));
	CHECK_RET(rpma_srq_new(peer, scfg, &s.srq));
	CHECK_RET(rpma_srq_get_rcq(s.srq, &s.rcq));
	CHECK(s.rcq != NULL, "the shared RQ has no receive CQ");
	/* one receive per connection: each has one message in flight at most */
	for (uintptr_t slot = 0; slot < s.n; slot++)
		CHECK_RET(rpma_srq_recv(s.srq, s.mr, slot * MSG, MSG, (void *)slot));
	struct rpma_conn_cfg *cfg;
	CHECK_RET(rpma_conn_cfg_new(&cfg));
	CHECK_RET(rpma_conn_cfg_set_srq(cfg, s.srq));
	CHECK_RET(rpma_conn_cfg_set_sq_size(cfg, SRQ_ROUNDS));
	CHECK_RET(rpma_conn_cfg_set_cq_size(cfg, SRQ_ROUNDS));
	s.conn = calloc(s.n, sizeof(*s.conn));
	s.qp_num = calloc(s.n, sizeof(*s.qp_num));
	s.next = calloc(s.n, sizeof(*s.next));
	CHECK(s.conn != NULL && s.qp_num != NULL && s.next != NULL, "out of memory");
	struct rpma_ep *ep = ep_open(peer);
	server_accept_all(&s, ep, cfg);

	for (uint32_t k = 0; k < s.n * SRQ_ROUNDS; k++)
		serve_one(&s);
	for (uint32_t i = 0; i < s.n; i++) {
		CHECK(s.next[i] == SRQ_ROUNDS, "connection %u sent %u messages", i, s.next[i]);
		struct rpma_cq *cq;
		CHECK_RET(rpma_conn_get_cq(s.conn[i], &cq));
		for (int r = 0; r < SRQ_ROUNDS; r++)
			cq_expect(cq, IBV_WC_SEND, CTX_SEND, NULL);
		cq_expect_empty(cq);
	}
	cq_expect_empty(s.rcq);
	note("%u messages of %u connections came through one shared RQ, each answered",
			s.n * SRQ_ROUNDS, s.n);

	for (uint32_t i = 0; i < s.n; i++)
		conn_close_passive(&s.conn[i]);
	CHECK_RET(rpma_ep_shutdown(&ep));
	free(s.next);
	free(s.qp_num);
	free(s.conn);
	CHECK_RET(rpma_conn_cfg_delete(&cfg));
	CHECK_RET(rpma_srq_delete(&s.srq));
	CHECK_RET(rpma_srq_cfg_delete(&scfg));
	CHECK_RET(rpma_mr_dereg(&s.mr));
	free(s.buf);
	CHECK_RET(rpma_peer_delete(&peer));
}

void
srq_client(void)
{
	uint32_t n = srq_conns();
	struct rpma_peer *peer = client_peer_open();
	/* per connection: a send slot, then a receive slot */
	char *buf = buf_new(2 * (size_t)n * MSG);
	struct rpma_mr_local *mr;
	CHECK_RET(rpma_mr_reg(peer, buf, 2 * (size_t)n * MSG,
			RPMA_MR_USAGE_SEND | RPMA_MR_USAGE_RECV, &mr));
	struct rpma_conn **conn = calloc(n, sizeof(*conn));
	CHECK(conn != NULL, "out of memory");
	for (uint32_t i = 0; i < n; i++) {
		struct scale_hello h = {SCALE_MAGIC, i, n, MSG};
		conn[i] = conn_open(peer, NULL, &h);
		struct rpma_mr_remote *rmr = reply_take(conn[i], i);
		CHECK_RET(rpma_mr_remote_delete(&rmr));
	}

	for (uint32_t round = 0; round < SRQ_ROUNDS; round++) {
		for (uint32_t i = 0; i < n; i++) {
			size_t off = 2 * (size_t)i * MSG;
			CHECK_RET(rpma_recv(conn[i], mr, off + MSG, MSG, CTX_RECV));
			msg_fill(buf + off, i, round, false);
			CHECK_RET(rpma_send(conn[i], mr, off, MSG, RPMA_F_COMPLETION_ALWAYS,
					CTX_SEND));
		}
		for (uint32_t i = 0; i < n; i++) {
			struct rpma_cq *cq;
			struct ibv_wc wc;
			CHECK_RET(rpma_conn_get_cq(conn[i], &cq));
			expect_send_and_recv(cq, CTX_SEND, CTX_RECV, &wc);
			msg_check(buf + (2 * (size_t)i + 1) * MSG, wc.byte_len, i, round, true);
		}
	}
	note("%u connections: %d messages each sent and answered", n, SRQ_ROUNDS);

	for (uint32_t i = 0; i < n; i++)
		conn_close_active(&conn[i]);
	free(conn);
	CHECK_RET(rpma_mr_dereg(&mr));
	free(buf);
	CHECK_RET(rpma_peer_delete(&peer));
}
