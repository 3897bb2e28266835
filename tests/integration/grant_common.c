// SPDX-License-Identifier: BSD-3-Clause
/*
 * grant_common.c -- what both programs of the grant tests share (grant.h):
 * the messages, and the server of the attack tests
 */

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "grant.h"

void
grant_msgbuf_new(struct rpma_peer *peer, struct grant_msgbuf *m)
{
	m->buf = buf_new(2 * GRANT_MSG_SIZE);
	CHECK_RET(rpma_mr_reg(peer, m->buf, 2 * GRANT_MSG_SIZE,
			RPMA_MR_USAGE_SEND | RPMA_MR_USAGE_RECV, &m->mr));
}

void
grant_msgbuf_delete(struct grant_msgbuf *m)
{
	CHECK_RET(rpma_mr_dereg(&m->mr));
	free(m->buf);
}

struct grant_msg *
grant_msg_in(struct grant_msgbuf *m)
{
	return (struct grant_msg *)m->buf;
}

struct grant_msg *
grant_msg_out(struct grant_msgbuf *m)
{
	struct grant_msg *msg = (struct grant_msg *)(m->buf + GRANT_MSG_SIZE);
	memset(msg, 0, sizeof(*msg));
	return msg;
}

struct rpma_conn_cfg *
grant_conn_cfg(void)
{
	static struct rpma_conn_cfg *cfg;

	if (cfg == NULL) {
		CHECK_RET(rpma_conn_cfg_new(&cfg));
		CHECK_RET(rpma_conn_cfg_set_rcq_size(cfg, 4));
		/* room for the client's operations on all its grants at once */
		CHECK_RET(rpma_conn_cfg_set_sq_size(cfg, 2 * GRANT_MAX));
		CHECK_RET(rpma_conn_cfg_set_cq_size(cfg, 2 * GRANT_MAX));
	}
	return cfg;
}

void
grant_recv_prep(struct rpma_conn_req *req, void *msgbuf)
{
	struct grant_msgbuf *m = msgbuf;
	CHECK_RET(rpma_conn_req_recv(req, m->mr, 0, GRANT_MSG_SIZE, m));
}

void
grant_recv_post(struct rpma_conn *conn, struct grant_msgbuf *m)
{
	CHECK_RET(rpma_recv(conn, m->mr, 0, GRANT_MSG_SIZE, m));
}

static struct grant_msg *
msg_checked(struct grant_msgbuf *m, const struct ibv_wc *wc, enum grant_msg_kind kind)
{
	CHECK(wc->status == IBV_WC_SUCCESS && wc->opcode == IBV_WC_RECV &&
			wc->wr_id == (uintptr_t)m, "receive completion %s, status %s",
			wc_opcode_str(wc->opcode), ibv_wc_status_str(wc->status));
	struct grant_msg *msg = grant_msg_in(m);
	CHECK(wc->byte_len == sizeof(*msg) && msg->kind == (uint32_t)kind,
			"message of %u bytes, kind %u, expected kind %d", wc->byte_len, msg->kind,
			kind);
	CHECK(msg->n <= GRANT_MAX || kind != GRANT_MSG_DESCS, "%u descriptors", msg->n);
	return msg;
}

struct grant_msg *
grant_msg_wait(struct rpma_conn *conn, struct grant_msgbuf *m, enum grant_msg_kind kind)
{
	struct rpma_cq *rcq;
	struct ibv_wc wc;

	CHECK_RET(rpma_conn_get_rcq(conn, &rcq));
	CHECK(cq_next_wc(rcq, WAIT_MS, &wc), "no message within %d ms", WAIT_MS);
	return msg_checked(m, &wc, kind);
}

struct grant_msg *
grant_msg_poll(struct rpma_conn *conn, struct grant_msgbuf *m, enum grant_msg_kind kind)
{
	struct rpma_cq *rcq;
	struct ibv_wc wc;

	CHECK_RET(rpma_conn_get_rcq(conn, &rcq));
	int ret = rpma_cq_get_wc(rcq, 1, &wc, NULL);
	if (ret == RPMA_E_NO_COMPLETION)
		return NULL;
	CHECK_RET(ret);
	return msg_checked(m, &wc, kind);
}

void
grant_msg_send(struct rpma_conn *conn, struct grant_msgbuf *m, size_t len)
{
	struct rpma_cq *cq;

	CHECK_RET(rpma_conn_get_cq(conn, &cq));
	CHECK_RET(rpma_send(conn, m->mr, GRANT_MSG_SIZE, len, RPMA_F_COMPLETION_ALWAYS,
			(void *)0x5e4d));
	cq_expect(cq, IBV_WC_SEND, (void *)0x5e4d, NULL);
}

void
grant_hello_send(struct rpma_conn *conn, struct grant_msgbuf *m)
{
	struct grant_msg *out = grant_msg_out(m);
	out->kind = GRANT_MSG_HELLO;
	grant_msg_send(conn, m, sizeof(*out));
}

void
grant_hello_wait(struct rpma_conn *conn, struct grant_msgbuf *m)
{
	(void) grant_msg_wait(conn, m, GRANT_MSG_HELLO);
	grant_recv_post(conn, m);
}

void
grant_msg_send_last(struct rpma_conn *conn, struct grant_msgbuf *m, size_t len)
{
	struct rpma_cq *cq;
	struct ibv_wc wc;

	CHECK_RET(rpma_conn_get_cq(conn, &cq));
	CHECK_RET(rpma_send(conn, m->mr, GRANT_MSG_SIZE, len, RPMA_F_COMPLETION_ALWAYS,
			(void *)0x5e4e));
	CHECK(cq_next_wc(cq, WAIT_MS, &wc), "no completion of the send within %d ms", WAIT_MS);
	/*
	 * An error completion's opcode is undefined: op_context tells. Where the
	 * peer's close came first, the send is flushed, or on soft-iWARP, whose
	 * connection is TCP's, ends as the send in progress: a local QP
	 * operation error
	 */
	bool broken = wc.status == IBV_WC_WR_FLUSH_ERR ||
		(wc.status == IBV_WC_LOC_QP_OP_ERR && test_iwarp());
	CHECK(wc.wr_id == 0x5e4e && (wc.status == IBV_WC_SUCCESS || broken),
			"the last send: op_context %#llx, status %s", (unsigned long long)wc.wr_id,
			ibv_wc_status_str(wc.status));
	if (broken)
		note("the peer closed the connection on receiving the last message before its "
				"acknowledgement came back: its send ended %s",
				ibv_wc_status_str(wc.status));
}

unsigned
grant_registration_keys(uint32_t *keys, unsigned max)
{
	/* rdma(8) lists every registration of the device with its key and its owner */
	FILE *f = popen("rdma resource show mr 2>/dev/null", "r");
	CHECK(f != NULL, "cannot run rdma resource show mr");
	char line[512];
	unsigned n = 0;
	while (fgets(line, sizeof(line), f) != NULL) {
		const char *k = strstr(line, " rkey 0x"), *p = strstr(line, " pid ");
		if (k == NULL || p == NULL || atol(p + 5) != (long)getpid())
			continue;
		CHECK(n < max, "more than %u registrations", max);
		keys[n++] = (uint32_t)strtoul(k + 6, NULL, 16);
	}
	(void) pclose(f);
	return n;
}

/* the server of the attack tests */

struct attack_server {
	const struct attack_pages *pages;
	struct rpma_peer *peer;
	char *mem;			/* A's page, then B's */
	struct rpma_mr_local *mr[2];
	void *handle[2];		/* what pages->give() made for A and for B */
	bool refused;			/* the device gave none: the clients close at once */
	struct grant_desc a_desc;	/* what A got: B gets it too, as if it had stolen it */
};

/* the role a connection request says it has */
static char
req_role(struct rpma_conn_req *req)
{
	struct rpma_conn_private_data pd;
	CHECK_RET(rpma_conn_req_get_private_data(req, &pd));
	CHECK(pd.ptr != NULL && pd.len >= 1, "a connection request without a role");
	return *(const char *)pd.ptr;
}

/*
 * As if they had leaked: a descriptor of A's address with the key of each
 * registration of the server's (the region's, each grant's range, the
 * message buffers'), after B's own and A's; B tries them all
 */
static void
attack_tell_keys(struct attack_server *s, struct grant_msg *out)
{
	uint32_t keys[GRANT_MAX];
	unsigned n = grant_registration_keys(keys, GRANT_MAX - out->n);
	if (n == 0) {
		CHECK(!test_rxe(), "rxe lists no registration of this process");
		note("no registration of this process is listed (rdma resource show mr): "
				"B tries no registration's key");
	}
	for (unsigned i = 0; i < n; i++) {
		struct grant_desc *d = &out->g[out->n++];
		*d = s->a_desc;
		for (int b = 0; b < 4; b++)
			d->desc[16 + b] = (uint8_t)(keys[i] >> (8 * b));
	}
}

/*
 * Once A's (p 0) or B's (p 1) connection is accepted and its hello came:
 * its descriptors. Both are accepted before either is given anything:
 * a request left waiting meanwhile can outlive its connecting side's wait
 * for the accept (soft-iWARP's MPA reply: 10 s), seen under load.
 */
static void
attack_give(struct attack_server *s, struct rpma_conn *conn, struct grant_msgbuf *m, int p)
{
	grant_hello_wait(conn, m);
	struct grant_msg *out = grant_msg_out(m);
	out->kind = GRANT_MSG_DESCS;
	out->g[0].usage = ATTACK_USAGE;
	if (!s->pages->give(conn, s->mr, p, ATTACK_USAGE, &s->handle[p], out->g[0].desc)) {
		/* none to give: the client is told so, and closes at once (grant.c) */
		s->refused = true;
		grant_msg_send_last(conn, m, sizeof(*out));
		return;
	}
	out->n++;
	if (p == 0) {
		s->a_desc = out->g[0];
		grant_msg_send(conn, m, sizeof(*out));
		return;
	}
	out->g[out->n++] = s->a_desc;
	if (s->pages->tell_keys)
		attack_tell_keys(s, out);
	/* B breaks this connection on its own once it has the message */
	grant_msg_send_last(conn, m, sizeof(*out));
}

/* B's tries, a connection each, until its last connection, which is refused */
static unsigned
attack_serve_tries(struct rpma_ep *ep)
{
	unsigned tries = 0;

	for (;;) {
		struct rpma_conn_req *req = ep_next_req(ep, NULL);
		char role = req_role(req);
		if (role == ROLE_END) {
			CHECK_RET(rpma_conn_req_delete(&req));
			return tries;
		}
		CHECK(role == ROLE_GUESS, "a connection of role '%c' during the tries", role);
		struct rpma_conn *conn = server_accept(&req, NULL);
		conn_close_passive(&conn);
		tries++;
	}
}

void
attack_server(const struct attack_pages *pages)
{
	struct attack_server s = {.pages = pages, .peer = peer_open()};
	s.mem = buf_new(2 * ATTACK_PAGE);
	pattern_fill(s.mem, ATTACK_PAGE, ATTACK_SEED_A, 0);
	pattern_fill(s.mem + ATTACK_PAGE, ATTACK_PAGE, ATTACK_SEED_B, 0);
	pages->reg(s.peer, s.mem, ATTACK_USAGE, s.mr);

	/* both clients start at once: take both requests, then serve A first */
	struct rpma_ep *ep = ep_open(s.peer);
	struct rpma_conn_req *req[2] = {NULL, NULL};
	for (int i = 0; i < 2; i++) {
		struct rpma_conn_req *r = ep_next_req(ep, grant_conn_cfg());
		char role = req_role(r);
		CHECK((role == ROLE_A || role == ROLE_B) && req[role == ROLE_B] == NULL,
				"a first connection of role '%c'", role);
		req[role == ROLE_B] = r;
	}
	struct grant_msgbuf ma, mb;
	grant_msgbuf_new(s.peer, &ma);
	grant_msgbuf_new(s.peer, &mb);
	grant_recv_prep(req[0], &ma);
	grant_recv_prep(req[1], &mb);
	struct rpma_conn *a = server_accept(&req[0], NULL);
	struct rpma_conn *b = server_accept(&req[1], NULL);
	attack_give(&s, a, &ma, 0);
	attack_give(&s, b, &mb, 1);

	/* B leaves its first connection after its own key failed outside its page */
	conn_close_passive(&b);
	if (pages->take_back)
		pages->take_back(&s.handle[1]);
	if (s.refused) {
		conn_close_passive(&a);
		goto out;
	}
	unsigned tries = attack_serve_tries(ep);

	/* A is served throughout: it stops now, and says what it wrote last */
	struct grant_msg *out = grant_msg_out(&ma);
	out->kind = GRANT_MSG_STOP;
	grant_msg_send(a, &ma, sizeof(*out));
	uint32_t written = grant_msg_wait(a, &ma, GRANT_MSG_DONE)->n;
	CHECK(pattern_check(s.mem, ATTACK_PAGE, ATTACK_SEED_A + written, 0) == SIZE_MAX,
			"A's page does not hold what A wrote last");
	CHECK(pattern_check(s.mem + ATTACK_PAGE, ATTACK_PAGE, ATTACK_SEED_B + 1, 0) == SIZE_MAX,
			"B's page does not hold what B wrote");
	note("served %u connections of B's tries; A's page holds what A wrote last "
			"(round %u), B's what B wrote", tries, written);

	conn_close_passive(&a);
out:
	if (pages->take_back)
		pages->take_back(&s.handle[0]);
	CHECK_RET(rpma_ep_shutdown(&ep));
	grant_msgbuf_delete(&ma);
	grant_msgbuf_delete(&mb);
	for (int p = 0; p < 2; p++)
		if (s.mr[p])
			CHECK_RET(rpma_mr_dereg(&s.mr[p]));
	free(s.mem);
	CHECK_RET(rpma_peer_delete(&s.peer));
}
