// SPDX-License-Identifier: BSD-3-Clause
/*
 * soak.c -- RPMA_SCALE_SOAK_CONNS connections (16 by default) of mixed
 * traffic for RPMA_SCALE_SECONDS (45 by default): every round, on every
 * connection, a write, an atomic write, a flush, a read back and a message
 * the server checks against its memory and answers; every few rounds one
 * connection is closed and opened again. Both processes take their resident
 * memory and descriptor count once the warm-up is over (every connection
 * reopened at least once) and again at the end, and fail when the
 * descriptors differ or the memory grew by more than SOAK_RSS_SLACK_KIB
 * (SOAK_RSS_SLACK_VALGRIND_KIB under valgrind).
 */

#include <poll.h>
#include <stdlib.h>
#include <string.h>

#include "scale.h"
#include "tests.h"

#define SLOT 4096
#define MSG 64
/* the memory a process may gain between the two counts (KiB) */
#define SOAK_RSS_SLACK_KIB 1024
/*
 * the same under valgrind, whose memcheck holds freed blocks back (20 MB by
 * default, --freelist-vol) and adds its own shadow memory and translated
 * code: there its leak check is what finds a leak
 */
#define SOAK_RSS_SLACK_VALGRIND_KIB (32 * 1024)
/* one connection is closed and reopened every this many rounds */
#define RECONNECT_EVERY 4

#define CTX_ATOMIC ((void *)0xa1)
#define CTX_FLUSH ((void *)0xa2)
#define CTX_READ ((void *)0xa3)
#define CTX_SEND ((void *)0xa4)
#define CTX_RECV ((void *)0xa5)

enum { MSG_MARK = 1, MSG_DONE = 2 };

/* a message: its header, then the pattern of the round */
struct soak_msg {
	uint32_t index;
	uint32_t round;
	uint32_t flags;
	uint32_t pad;
	uint64_t atomic;	/* what the atomic write stored at the slot's end */
};

static uint32_t
soak_conns(void)
{
	return (uint32_t)env_number("RPMA_SCALE_SOAK_CONNS", 16, 1, 1024);
}

static uint64_t
atomic_value(uint32_t index, uint32_t round)
{
	return (uint64_t)round << 32 | index;
}

static void
msg_fill(char *buf, const struct soak_msg *m, bool answer)
{
	pattern_fill(buf, MSG, conn_seed(m->index, m->round) ^ (answer ? 1u : 2u), 0);
	memcpy(buf, m, sizeof(*m));
}

static struct soak_msg
msg_check(const char *buf, uint32_t len, uint32_t index, bool answer)
{
	struct soak_msg m;

	CHECK(len == MSG, "connection %u: a message of %u bytes", index, len);
	memcpy(&m, buf, sizeof(m));
	CHECK(m.index == index, "connection %u got a message of connection %u", index, m.index);
	size_t bad = pattern_check(buf + sizeof(m), MSG - sizeof(m),
			conn_seed(index, m.round) ^ (answer ? 1u : 2u), sizeof(m));
	CHECK(bad == SIZE_MAX, "connection %u: message %u differs at byte %zu", index, m.round,
			bad + sizeof(m));
	return m;
}

/* the slot must hold the round's pattern and, in its last 8 bytes, the atomic value */
static void
slot_check(const char *slot, uint32_t index, uint32_t round, const char *who)
{
	uint64_t v;
	size_t bad = pattern_check(slot, SLOT - 8, conn_seed(index, round), 0);

	CHECK(bad == SIZE_MAX, "connection %u, round %u: %s differs at byte %zu", index, round,
			who, bad);
	memcpy(&v, slot + SLOT - 8, 8);
	CHECK(v == atomic_value(index, round), "connection %u, round %u: %s holds %#llx where"
			" the atomic write stored %#llx", index, round, who, (unsigned long long)v,
			(unsigned long long)atomic_value(index, round));
}

/* valgrind's preloaded objects are in LD_PRELOAD of the process it runs */
static long
rss_slack_kib(void)
{
	const char *preload = getenv("LD_PRELOAD");

	return preload != NULL && strstr(preload, "vgpreload") != NULL ?
			SOAK_RSS_SLACK_VALGRIND_KIB : SOAK_RSS_SLACK_KIB;
}

/* compare the two counts; both sides fail alike */
static void
usage_compare(struct usage warm, struct usage end, uint32_t rounds)
{
	long slack = rss_slack_kib();

	note("after warm-up: RSS %ld KiB, %ld descriptors; at the end (%u rounds): RSS %ld KiB"
			" (%+ld), %ld descriptors (%+ld)", warm.rss_kib, warm.fds, rounds,
			end.rss_kib, end.rss_kib - warm.rss_kib, end.fds, end.fds - warm.fds);
	CHECK(end.fds == warm.fds, "the descriptors went from %ld to %ld", warm.fds, end.fds);
	CHECK(end.rss_kib - warm.rss_kib <= slack,
			"the resident memory grew by %ld KiB (at most %ld allowed)",
			end.rss_kib - warm.rss_kib, slack);
}

static struct rpma_conn_cfg *
soak_cfg(uint32_t sq, uint32_t rq)
{
	struct rpma_conn_cfg *cfg;

	CHECK_RET(rpma_conn_cfg_new(&cfg));
	CHECK_RET(rpma_conn_cfg_set_sq_size(cfg, sq));
	CHECK_RET(rpma_conn_cfg_set_rq_size(cfg, rq));
	CHECK_RET(rpma_conn_cfg_set_cq_size(cfg, sq + rq));
	return cfg;
}

/* --- the server ------------------------------------------------------------ */

struct soak_server {
	uint32_t n;
	char *data;			/* n slots the clients write */
	char *msg;			/* n receive slots, then n send slots */
	struct rpma_mr_local *data_mr, *msg_mr;
	struct rpma_conn_cfg *cfg;
	struct rpma_ep *ep;
	struct rpma_conn **conn;	/* NULL: closed, the client reopens it */
	bool *taken;
	uint32_t *last;			/* the last round of each index */
	uint32_t *pending;		/* answers of each index not completed yet */
	uint32_t marks, dones, open;
	uint32_t closes, flushed;	/* connections closed, answers completed by the flush */
	struct usage warm;
};

/*
 * The client had every answer before it closed, but the acknowledgement
 * of the last one may not have left its QP: an answer still pending
 * completes when the disconnect flushes the server's QP.
 */
static void
soak_close(struct soak_server *s, uint32_t i)
{
	struct rpma_cq *cq;
	struct ibv_wc wc;

	conn_expect_event(s->conn[i], RPMA_CONN_CLOSED);
	/* the client waits for each answer: only the last may lack its acknowledgement */
	CHECK(s->pending[i] <= 1, "connection %u closed with %u answers not acknowledged", i,
			s->pending[i]);
	CHECK_RET(rpma_conn_disconnect(s->conn[i]));
	CHECK_RET(rpma_conn_get_cq(s->conn[i], &cq));
	while (s->pending[i] > 0) {
		CHECK(cq_next_wc(cq, WAIT_MS, &wc), "connection %u: %u answers never completed", i,
				s->pending[i]);
		/* a flushed receive says nothing; its opcode is undefined */
		if (wc.wr_id == (uintptr_t)CTX_RECV && wc.status == IBV_WC_WR_FLUSH_ERR)
			continue;
		CHECK(wc.wr_id == (uintptr_t)CTX_SEND && (wc.status == IBV_WC_SUCCESS ||
				wc.status == IBV_WC_WR_FLUSH_ERR), "connection %u: completion of"
				" %#llx status %s at close", i, (unsigned long long)wc.wr_id,
				ibv_wc_status_str(wc.status));
		s->flushed += wc.status == IBV_WC_WR_FLUSH_ERR;
		s->pending[i]--;
	}
	CHECK_RET(rpma_conn_delete(&s->conn[i]));
	s->taken[i] = false;
	s->open--;
	s->closes++;
}

static void
soak_accept(struct soak_server *s)
{
	struct rpma_conn_req *req = NULL;

	CHECK_RET(rpma_ep_next_conn_req(s->ep, s->cfg, &req));
	struct rpma_conn_private_data pd;
	uint32_t i;
	CHECK_RET(rpma_conn_req_get_private_data(req, &pd));
	CHECK(pd.ptr != NULL && pd.len >= sizeof(struct scale_hello), "a request without hello");
	memcpy(&i, (const char *)pd.ptr + offsetof(struct scale_hello, index), sizeof(i));
	/* the client reopens a connection whose close the server has not seen yet */
	if (i < s->n && s->conn[i] != NULL)
		soak_close(s, i);
	i = hello_take(req, s->n, SLOT, s->taken).index;
	CHECK_RET(rpma_conn_req_recv(req, s->msg_mr, (size_t)i * MSG, MSG, CTX_RECV));
	s->conn[i] = accept_start(&req, s->data_mr, i);
	conn_expect_event(s->conn[i], RPMA_CONN_ESTABLISHED);
	s->open++;
}

/* a message: the slot must hold what it says, then the answer */
static void
server_answer(struct soak_server *s, uint32_t i, const struct ibv_wc *wc)
{
	struct soak_msg m = msg_check(s->msg + (size_t)i * MSG, wc->byte_len, i, false);

	CHECK(m.round > s->last[i] || (m.round == 0 && s->last[i] == 0),
			"connection %u: round %u after round %u", i, m.round, s->last[i]);
	s->last[i] = m.round;
	CHECK(m.atomic == atomic_value(i, m.round), "connection %u: a bad atomic value", i);
	slot_check(s->data + (size_t)i * SLOT, i, m.round, "the server's slot");
	CHECK_RET(rpma_recv(s->conn[i], s->msg_mr, (size_t)i * MSG, MSG, CTX_RECV));
	msg_fill(s->msg + (size_t)(s->n + i) * MSG, &m, true);
	CHECK_RET(rpma_send(s->conn[i], s->msg_mr, (size_t)(s->n + i) * MSG, MSG,
			RPMA_F_COMPLETION_ALWAYS, CTX_SEND));
	s->pending[i]++;
	s->marks += (m.flags & MSG_MARK) != 0;
	s->dones += (m.flags & MSG_DONE) != 0;
	if ((m.flags & MSG_MARK) && s->marks == s->n)
		s->warm = usage_now();
	if ((m.flags & MSG_DONE) && s->dones == s->n)
		usage_compare(s->warm, usage_now(), m.round);
}

/* every completion waiting on connection i */
static void
server_drain(struct soak_server *s, uint32_t i)
{
	struct rpma_cq *cq;
	struct ibv_wc wc;
	int ret;

	CHECK_RET(rpma_conn_get_cq(s->conn[i], &cq));
	while ((ret = rpma_cq_get_wc(cq, 1, &wc, NULL)) == 0) {
		CHECK(wc.status == IBV_WC_SUCCESS, "connection %u: completion %s status %s", i,
				wc_opcode_str(wc.opcode), ibv_wc_status_str(wc.status));
		if (wc.opcode == IBV_WC_SEND) {
			CHECK(wc.wr_id == (uintptr_t)CTX_SEND && s->pending[i] > 0,
					"connection %u: a send nobody posted", i);
			s->pending[i]--;
		} else {
			CHECK(wc.opcode == IBV_WC_RECV && wc.wr_id == (uintptr_t)CTX_RECV,
					"connection %u: completion %s", i, wc_opcode_str(wc.opcode));
			server_answer(s, i, &wc);
		}
	}
	CHECK(ret == RPMA_E_NO_COMPLETION, "rpma_cq_get_wc(): %s", rpma_err_2str(ret));
}

/* wait for the listener, a connection's event or a completion; act on it */
static void
server_step(struct soak_server *s, struct pollfd *pfd, uint32_t *who)
{
	nfds_t nfds = 0;
	int fd;

	CHECK_RET(rpma_ep_get_fd(s->ep, &pfd[nfds].fd));
	pfd[nfds].events = POLLIN;
	who[nfds++] = UINT32_MAX;
	for (uint32_t i = 0; i < s->n; i++) {
		if (s->conn[i] == NULL)
			continue;
		server_drain(s, i);
		struct rpma_cq *cq;
		CHECK_RET(rpma_conn_get_event_fd(s->conn[i], &fd));
		pfd[nfds] = (struct pollfd){.fd = fd, .events = POLLIN};
		who[nfds++] = i;
		CHECK_RET(rpma_conn_get_cq(s->conn[i], &cq));
		CHECK_RET(rpma_cq_get_fd(cq, &fd));
		pfd[nfds] = (struct pollfd){.fd = fd, .events = POLLIN};
		who[nfds++] = i | 0x80000000u;
	}
	int ready = poll(pfd, nfds, WAIT_MS);
	CHECK(ready > 0, "nothing happened for %d ms", WAIT_MS);
	for (nfds_t k = 0; k < nfds; k++) {
		uint32_t i = who[k] & 0x7fffffffu;
		if (!(pfd[k].revents & POLLIN))
			continue;
		if (who[k] == UINT32_MAX) {
			/* it may have reopened a connection: the fds above are stale */
			soak_accept(s);
			return;
		} else if (who[k] & 0x80000000u) {
			struct rpma_cq *cq;
			if (s->conn[i] == NULL)
				continue;
			CHECK_RET(rpma_conn_get_cq(s->conn[i], &cq));
			int ret = rpma_cq_wait(cq);	/* takes the event, arms the CQ again */
			CHECK(ret == 0 || ret == RPMA_E_NO_COMPLETION, "rpma_cq_wait(): %s",
					rpma_err_2str(ret));
			server_drain(s, i);
		} else if (s->conn[i] != NULL) {
			server_drain(s, i);
			soak_close(s, i);	/* the client closed it */
		}
	}
}

void
soak_server(void)
{
	struct soak_server s = {.n = soak_conns()};
	struct rpma_peer *peer = peer_open();
	s.data = buf_new((size_t)s.n * SLOT);
	s.msg = buf_new(2 * (size_t)s.n * MSG);
	CHECK_RET(rpma_mr_reg(peer, s.data, (size_t)s.n * SLOT, RPMA_MR_USAGE_WRITE_DST |
			RPMA_MR_USAGE_READ_SRC | RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY, &s.data_mr));
	CHECK_RET(rpma_mr_reg(peer, s.msg, 2 * (size_t)s.n * MSG,
			RPMA_MR_USAGE_SEND | RPMA_MR_USAGE_RECV, &s.msg_mr));
	s.cfg = soak_cfg(4, 2);
	s.conn = calloc(s.n, sizeof(*s.conn));
	s.taken = calloc(s.n, sizeof(*s.taken));
	s.last = calloc(s.n, sizeof(*s.last));
	s.pending = calloc(s.n, sizeof(*s.pending));
	struct pollfd *pfd = calloc(2 * (size_t)s.n + 1, sizeof(*pfd));
	uint32_t *who = calloc(2 * (size_t)s.n + 1, sizeof(*who));
	CHECK(s.conn && s.taken && s.last && s.pending && pfd && who, "out of memory");
	s.ep = ep_open(peer);

	/* until every connection said it is done and closed */
	while (s.dones < s.n || s.open > 0)
		server_step(&s, pfd, who);
	note("served %u connections to the end, %u closed, %u answers acknowledged only by the"
			" flush at close", s.n, s.closes, s.flushed);

	CHECK_RET(rpma_ep_shutdown(&s.ep));
	free(who);
	free(pfd);
	free(s.pending);
	free(s.last);
	free(s.taken);
	free(s.conn);
	CHECK_RET(rpma_conn_cfg_delete(&s.cfg));
	CHECK_RET(rpma_mr_dereg(&s.msg_mr));
	CHECK_RET(rpma_mr_dereg(&s.data_mr));
	free(s.msg);
	free(s.data);
	CHECK_RET(rpma_peer_delete(&peer));
}

/* --- the client ------------------------------------------------------------ */

struct soak_client {
	uint32_t n;
	struct rpma_peer *peer;
	struct rpma_conn_cfg *cfg;
	char *data;		/* per connection: the slot to write, then the one read back */
	char *msg;		/* per connection: a send slot, then a receive slot */
	struct rpma_mr_local *data_mr, *msg_mr;
	struct rpma_conn **conn;
	struct rpma_mr_remote **rmr;
};

static char *
src_slot(struct soak_client *c, uint32_t i)
{
	return c->data + 2 * (size_t)i * SLOT;
}

static void
client_open(struct soak_client *c, uint32_t i)
{
	struct scale_hello h = {SCALE_MAGIC, i, c->n, SLOT};

	c->conn[i] = conn_open(c->peer, c->cfg, &h);
	c->rmr[i] = reply_take(c->conn[i], i);
	CHECK_RET(rpma_recv(c->conn[i], c->msg_mr, (2 * (size_t)i + 1) * MSG, MSG, CTX_RECV));
}

static void
client_close(struct soak_client *c, uint32_t i)
{
	CHECK_RET(rpma_mr_remote_delete(&c->rmr[i]));
	conn_close_active(&c->conn[i]);
}

/* post a round's operations on connection i */
static void
round_post(struct soak_client *c, uint32_t i, uint32_t round, uint32_t flags)
{
	size_t off = (size_t)i * SLOT;
	struct soak_msg m = {i, round, flags, 0, atomic_value(i, round)};
	char atomic[8];

	pattern_fill(src_slot(c, i), SLOT, conn_seed(i, round), 0);
	memcpy(atomic, &m.atomic, 8);
	CHECK_RET(rpma_write(c->conn[i], c->rmr[i], off, c->data_mr, 2 * off, SLOT,
			RPMA_F_COMPLETION_ON_ERROR, NULL));
	CHECK_RET(rpma_atomic_write(c->conn[i], c->rmr[i], off + SLOT - 8, atomic,
			RPMA_F_COMPLETION_ALWAYS, CTX_ATOMIC));
	CHECK_RET(rpma_flush(c->conn[i], c->rmr[i], off, SLOT, RPMA_FLUSH_TYPE_VISIBILITY,
			RPMA_F_COMPLETION_ALWAYS, CTX_FLUSH));
	CHECK_RET(rpma_read(c->conn[i], c->data_mr, 2 * off + SLOT, c->rmr[i], off, SLOT,
			RPMA_F_COMPLETION_ALWAYS, CTX_READ));
	msg_fill(c->msg + 2 * (size_t)i * MSG, &m, false);
	CHECK_RET(rpma_send(c->conn[i], c->msg_mr, 2 * (size_t)i * MSG, MSG,
			RPMA_F_COMPLETION_ALWAYS, CTX_SEND));
}

/* the round's five completions on connection i, in any order; then its data */
static void
round_check(struct soak_client *c, uint32_t i, uint32_t round)
{
	static const void *const ctx[] = {CTX_ATOMIC, CTX_FLUSH, CTX_READ, CTX_SEND, CTX_RECV};
	unsigned seen = 0;
	struct rpma_cq *cq;
	struct ibv_wc wc, recv_wc = {0};

	CHECK_RET(rpma_conn_get_cq(c->conn[i], &cq));
	while (seen != 0x1f) {
		cq_expect_success(cq, &wc);
		unsigned k = 0;
		while (k < 5 && wc.wr_id != (uintptr_t)ctx[k])
			k++;
		CHECK(k < 5 && !(seen & (1u << k)), "connection %u: completion %s, op_context"
				" %#llx, unexpected", i, wc_opcode_str(wc.opcode),
				(unsigned long long)wc.wr_id);
		seen |= 1u << k;
		if (wc.wr_id == (uintptr_t)CTX_RECV)
			recv_wc = wc;
	}
	slot_check(src_slot(c, i) + SLOT, i, round, "what was read back");
	struct soak_msg m = msg_check(c->msg + (2 * (size_t)i + 1) * MSG, recv_wc.byte_len, i,
			true);
	CHECK(m.round == round, "connection %u: the answer of round %u in round %u", i, m.round,
			round);
	CHECK_RET(rpma_recv(c->conn[i], c->msg_mr, (2 * (size_t)i + 1) * MSG, MSG, CTX_RECV));
}

void
soak_client(void)
{
	struct soak_client c = {.n = soak_conns()};
	double secs = (double)env_number("RPMA_SCALE_SECONDS", 45, 1, 86400);
	c.peer = client_peer_open();
	c.data = buf_new(2 * (size_t)c.n * SLOT);
	c.msg = buf_new(2 * (size_t)c.n * MSG);
	CHECK_RET(rpma_mr_reg(c.peer, c.data, 2 * (size_t)c.n * SLOT,
			RPMA_MR_USAGE_WRITE_SRC | RPMA_MR_USAGE_READ_DST, &c.data_mr));
	CHECK_RET(rpma_mr_reg(c.peer, c.msg, 2 * (size_t)c.n * MSG,
			RPMA_MR_USAGE_SEND | RPMA_MR_USAGE_RECV, &c.msg_mr));
	c.cfg = soak_cfg(8, 2);
	c.conn = calloc(c.n, sizeof(*c.conn));
	c.rmr = calloc(c.n, sizeof(*c.rmr));
	CHECK(c.conn && c.rmr, "out of memory");
	for (uint32_t i = 0; i < c.n; i++)
		client_open(&c, i);

	double start = now_s(), warm_until = start + secs / 10, end = start + secs;
	uint32_t reopened = 0, round = 0;
	bool warm = false;
	struct usage warm_usage = {0, 0};
	for (bool done = false; !done; round++) {
		/* the mark once every connection was reopened; the end after the time */
		uint32_t flags = 0;
		if (!warm && reopened >= c.n && now_s() >= warm_until)
			flags = MSG_MARK;
		else if (warm && now_s() >= end)
			flags = MSG_DONE;
		for (uint32_t i = 0; i < c.n; i++)
			round_post(&c, i, round, flags);
		for (uint32_t i = 0; i < c.n; i++)
			round_check(&c, i, round);
		if (flags == MSG_MARK) {
			warm = true;
			warm_usage = usage_now();
		} else if (flags == MSG_DONE) {
			usage_compare(warm_usage, usage_now(), round);
			done = true;
		} else if (round % RECONNECT_EVERY == RECONNECT_EVERY - 1) {
			uint32_t i = reopened++ % c.n;
			client_close(&c, i);
			client_open(&c, i);
		}
	}
	note("%u rounds on %u connections in %.0f s, %u connections reopened", round, c.n,
			now_s() - start, reopened);

	for (uint32_t i = 0; i < c.n; i++)
		client_close(&c, i);
	free(c.rmr);
	free(c.conn);
	CHECK_RET(rpma_conn_cfg_delete(&c.cfg));
	CHECK_RET(rpma_mr_dereg(&c.msg_mr));
	CHECK_RET(rpma_mr_dereg(&c.data_mr));
	free(c.msg);
	free(c.data);
	CHECK_RET(rpma_peer_delete(&c.peer));
}
