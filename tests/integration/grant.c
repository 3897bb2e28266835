// SPDX-License-Identifier: BSD-3-Clause
/*
 * grant.c -- the clients of the grant tests (grant.h). They use only
 * librpma 1.x's API: a grant's descriptor is a region's to them.
 *
 * grant_ops: every operation through grants of every usage, on PMem and on
 * DRAM: a flush completes or fails at the call (RPMA_E_NOSUPP), never as an
 * error completion; then the server revokes a grant, and its key fails.
 * On librpma 1.x the client takes only the grant of every usage on PMem.
 *
 * grant_attack, plain_attack: client A holds a grant (or, in the plain
 * twin, a region of its own, as librpma 1.x serves it) and works in it;
 * client B has a part of its own and tries A's with its own key, with A's
 * key (stolen), through grants with the key of every registration of the
 * server's (leaked), and with every key of three indexes (guessed), a new
 * connection per try. Through grants, no try may read or change a byte;
 * through plain regions, the stolen key and a guess must read A's bytes:
 * the test sees a leak where there is one.
 */

#include <string.h>

#include "grant.h"
#include "tests.h"

/* what a client of the grant tests holds */
struct grant_client {
	struct rpma_peer *peer;
	struct rpma_conn *conn;
	struct rpma_cq *cq;
	struct grant_msgbuf m;
	char *buf;			/* ATTACK_PAGE bytes to write from and read into */
	struct rpma_mr_local *buf_mr;
};

static void
client_open(struct grant_client *c, char role)
{
	c->peer = peer_open();
	grant_msgbuf_new(c->peer, &c->m);
	c->buf = buf_new(ATTACK_PAGE);
	CHECK_RET(rpma_mr_reg(c->peer, c->buf, ATTACK_PAGE,
			RPMA_MR_USAGE_WRITE_SRC | RPMA_MR_USAGE_READ_DST, &c->buf_mr));
	struct rpma_conn_private_data pd = {&role, 1};
	c->conn = client_connect_prep(c->peer, grant_conn_cfg(), role ? &pd : NULL,
			grant_recv_prep, &c->m);
	grant_hello_send(c->conn, &c->m);
	CHECK_RET(rpma_conn_get_cq(c->conn, &c->cq));
}

static void
client_close(struct grant_client *c)
{
	if (c->conn)
		conn_close_active(&c->conn);
	CHECK_RET(rpma_mr_dereg(&c->buf_mr));
	free(c->buf);
	grant_msgbuf_delete(&c->m);
	CHECK_RET(rpma_peer_delete(&c->peer));
}

static struct rpma_mr_remote *
remote_of(const struct grant_desc *g)
{
	struct rpma_mr_remote *r;
	CHECK_RET(rpma_mr_remote_from_descriptor(g->desc, GRANT_DESC_SIZE, &r));
	return r;
}

/* the next completion on cq, which must be an error (a failed try) */
static void
expect_error(struct rpma_cq *cq, const char *what)
{
	struct ibv_wc wc;
	CHECK(cq_next_wc(cq, WAIT_MS, &wc), "%s: no completion within %d ms", what, WAIT_MS);
	CHECK(wc.status != IBV_WC_SUCCESS, "%s: completed successfully", what);
	note("%s: %s", what, ibv_wc_status_str(wc.status));
}

/*
 * The server had no grant to give: its device binds no type-2 windows
 * (grant_server.c, grants_refused()); nor may this one, of the same kind
 */
static bool
grants_none(const struct grant_msg *in)
{
	if (in->n > 0)
		return false;
	CHECK(!test_windows(), "no grant came, though the device binds windows");
	note("no grant: the device binds no type-2 windows, the server's grants were refused "
			"at the call");
	return true;
}

/* grant_ops */

#define OPS_ATOMIC_OFF 64
static const char ops_atomic[8] = "granted!";

/* the page of grant i as the server fills it, and as the client writes it (grant_server.c) */
#define OPS_SEED_SERVER(i) (300u + (i))
#define OPS_SEED_CLIENT(i) (400u + (i))

/* every operation the grant's usage allows, checked; which flushes completed */
static void
ops_exercise(struct grant_client *c, const struct grant_desc *g, unsigned i)
{
	struct rpma_mr_remote *r = remote_of(g);
	size_t size;
	int flush_type;
	CHECK_RET(rpma_mr_remote_get_size(r, &size));
	CHECK(size == ATTACK_PAGE, "grant %u: %zu bytes, expected %d", i, size, ATTACK_PAGE);
	CHECK_RET(rpma_mr_remote_get_flush_type(r, &flush_type));
	CHECK(flush_type == (g->usage & USAGE_FLUSHES), "grant %u: flush type %#x of usage %#x",
			i, flush_type, g->usage);

	struct ibv_wc wc;
	bool written = (g->usage & RPMA_MR_USAGE_WRITE_DST) != 0;
	if (written) {
		pattern_fill(c->buf, ATTACK_PAGE, OPS_SEED_CLIENT(i), 0);
		CHECK_RET(rpma_write(c->conn, r, 0, c->buf_mr, 0, ATTACK_PAGE,
				RPMA_F_COMPLETION_ALWAYS, (void *)0x1));
		cq_expect(c->cq, IBV_WC_RDMA_WRITE, (void *)0x1, NULL);
		CHECK_RET(rpma_atomic_write(c->conn, r, OPS_ATOMIC_OFF, ops_atomic,
				RPMA_F_COMPLETION_ALWAYS, (void *)0x2));
		cq_expect(c->cq, OPCODE_ANY, (void *)0x2, NULL);
	}

	const enum rpma_flush_type types[] = {RPMA_FLUSH_TYPE_VISIBILITY,
			RPMA_FLUSH_TYPE_PERSISTENT};
	for (size_t t = 0; t < 2; t++) {
		bool allowed = types[t] == RPMA_FLUSH_TYPE_VISIBILITY ?
			(g->usage & (USAGE_FLUSHES | RPMA_MR_USAGE_READ_SRC)) != 0 :
			(g->usage & RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT) != 0;
		int ret = rpma_flush(c->conn, r, 0, ATTACK_PAGE, types[t], RPMA_F_COMPLETION_ALWAYS,
				(void *)0x3);
		if (!allowed) {
			CHECK(ret == RPMA_E_NOSUPP, "grant %u (usage %#x): flush type %d returned "
					"%d, expected RPMA_E_NOSUPP", i, g->usage, types[t], ret);
			continue;
		}
		CHECK(ret == 0, "grant %u (usage %#x): flush type %d returned %d (%s)", i,
				g->usage, types[t], ret, rpma_err_2str(ret));
		cq_expect(c->cq, OPCODE_ANY, (void *)0x3, &wc);
		CHECK(WC_IS_FLUSH(wc.opcode), "a flush completed as %s", wc_opcode_str(wc.opcode));
	}

	if (g->usage & RPMA_MR_USAGE_READ_SRC) {
		memset(c->buf, 0, ATTACK_PAGE);
		CHECK_RET(rpma_read(c->conn, c->buf_mr, 0, r, 0, ATTACK_PAGE,
				RPMA_F_COMPLETION_ALWAYS, (void *)0x4));
		cq_expect(c->cq, IBV_WC_RDMA_READ, (void *)0x4, NULL);
		char want[ATTACK_PAGE];
		pattern_fill(want, sizeof(want),
				written ? OPS_SEED_CLIENT(i) : OPS_SEED_SERVER(i), 0);
		if (written)
			memcpy(want + OPS_ATOMIC_OFF, ops_atomic, sizeof(ops_atomic));
		CHECK(memcmp(c->buf, want, sizeof(want)) == 0, "grant %u: read other bytes", i);
	}
	cq_expect_empty(c->cq);
	CHECK_RET(rpma_mr_remote_delete(&r));
}

void
grant_ops_client(void)
{
	struct grant_client c;
	client_open(&c, 0);
	struct grant_msg *in = grant_msg_wait(c.conn, &c.m, GRANT_MSG_DESCS);
	if (grants_none(in)) {
		client_close(&c);
		return;
	}
	struct grant_msg descs = *in;
	struct rpma_peer_cfg *pcfg;
	CHECK_RET(rpma_peer_cfg_from_descriptor(descs.pcfg, descs.pcfg_len, &pcfg));
	CHECK_RET(rpma_conn_apply_remote_peer_cfg(c.conn, pcfg));

	/* librpma 1.x: the grant of every usage on PMem (grant 0), the rest is ours */
	uint32_t done = 0;
	unsigned n = on_1x() ? 1 : descs.n;
	for (unsigned i = 0; i < n; i++) {
		ops_exercise(&c, &descs.g[i], i);
		done |= 1u << i;
	}
	note("%u of %u grants%s: every operation their usage allows completed, every other "
			"flush refused at the call", n, descs.n, on_1x() ? " (on librpma 1.x)" : "");

	struct grant_msg *out = grant_msg_out(&c.m);
	out->kind = GRANT_MSG_DONE;
	out->n = done;
	grant_recv_post(c.conn, &c.m);
	grant_msg_send(c.conn, &c.m, sizeof(*out));

	/* grant 0 is revoked: its key fails, and the connection with it */
	(void) grant_msg_wait(c.conn, &c.m, GRANT_MSG_REVOKED);
	struct rpma_mr_remote *r = remote_of(&descs.g[0]);
	memset(c.buf, 0, ATTACK_PAGE);
	CHECK_RET(rpma_read(c.conn, c.buf_mr, 0, r, 0, ATTACK_PAGE, RPMA_F_COMPLETION_ALWAYS,
			NULL));
	expect_error(c.cq, "a read through the revoked grant");
	for (size_t i = 0; i < ATTACK_PAGE; i++)
		CHECK(c.buf[i] == 0, "the failed read wrote byte %zu", i);

	CHECK_RET(rpma_mr_remote_delete(&r));
	CHECK_RET(rpma_peer_cfg_delete(&pcfg));
	client_close(&c);
}

/* grant_rights: what a grant does not allow is refused by the device, moving no byte */

#define RIGHTS_SEED_R 500
#define RIGHTS_SEED_W 501

/* one connection: the allowed operation of grant ok, then the refused one of grant no */
static bool
rights_round(int round)
{
	struct grant_client c;
	client_open(&c, 0);
	struct grant_msg *in = grant_msg_wait(c.conn, &c.m, GRANT_MSG_DESCS);
	if (grants_none(in)) {
		client_close(&c);
		return false;
	}
	CHECK(in->n == 2, "%u descriptors, expected 2", in->n);
	struct rpma_mr_remote *ro = remote_of(&in->g[0]), *wo = remote_of(&in->g[1]);

	if (round == 0) {
		/* write-only: the write lands, a read is refused and fills nothing */
		pattern_fill(c.buf, ATTACK_PAGE, RIGHTS_SEED_W + 100, 0);
		CHECK_RET(rpma_write(c.conn, wo, 0, c.buf_mr, 0, ATTACK_PAGE,
				RPMA_F_COMPLETION_ALWAYS, (void *)0x1));
		cq_expect(c.cq, IBV_WC_RDMA_WRITE, (void *)0x1, NULL);
		memset(c.buf, ATTACK_SEED_JUNK, ATTACK_PAGE);
		CHECK_RET(rpma_read(c.conn, c.buf_mr, 0, wo, 0, ATTACK_PAGE,
				RPMA_F_COMPLETION_ALWAYS, NULL));
		expect_error(c.cq, "a read through a write-only grant");
		for (size_t i = 0; i < ATTACK_PAGE; i++)
			CHECK((uint8_t)c.buf[i] == ATTACK_SEED_JUNK, "the refused read wrote byte %zu",
					i);
	} else {
		/* read-only: the read gets the server's bytes, a write is refused */
		CHECK_RET(rpma_read(c.conn, c.buf_mr, 0, ro, 0, ATTACK_PAGE,
				RPMA_F_COMPLETION_ALWAYS, (void *)0x2));
		cq_expect(c.cq, IBV_WC_RDMA_READ, (void *)0x2, NULL);
		CHECK(pattern_check(c.buf, ATTACK_PAGE, RIGHTS_SEED_R, 0) == SIZE_MAX,
				"the read-only grant read other bytes");
		memset(c.buf, ATTACK_SEED_JUNK, ATTACK_PAGE);
		CHECK_RET(rpma_write(c.conn, ro, 0, c.buf_mr, 0, ATTACK_PAGE,
				RPMA_F_COMPLETION_ALWAYS, NULL));
		expect_error(c.cq, "a write through a read-only grant");
	}
	CHECK_RET(rpma_mr_remote_delete(&ro));
	CHECK_RET(rpma_mr_remote_delete(&wo));
	client_close(&c);
	return true;
}

void
grant_rights_client(void)
{
	for (int round = 0; round < 2; round++)
		if (!rights_round(round))
			return;
	note("a read through a write-only grant and a write through a read-only one: refused "
			"by the device, their buffers and the server's pages untouched");
}

/* the attack tests */

/* client A: rounds of write, flush, read and compare in its page until told to stop */
static void
attack_victim(bool grants)
{
	struct grant_client c;
	client_open(&c, ROLE_A);
	struct grant_msg *in = grant_msg_wait(c.conn, &c.m, GRANT_MSG_DESCS);
	if (grants && grants_none(in)) {
		client_close(&c);
		return;
	}
	CHECK(in->n == 1, "A got %u descriptors", in->n);
	struct rpma_mr_remote *mine = remote_of(&in->g[0]);
	grant_recv_post(c.conn, &c.m);

	char *want = buf_new(ATTACK_PAGE);
	uint32_t rounds = 0, written = 0;
	pattern_fill(want, ATTACK_PAGE, ATTACK_SEED_A, 0);
	while (grant_msg_poll(c.conn, &c.m, GRANT_MSG_STOP) == NULL) {
		/* through plain regions A only reads: the stolen key must find its bytes */
		if (grants) {
			written++;
			pattern_fill(want, ATTACK_PAGE, ATTACK_SEED_A + written, 0);
			memcpy(c.buf, want, ATTACK_PAGE);
			CHECK_RET(rpma_write(c.conn, mine, 0, c.buf_mr, 0, ATTACK_PAGE,
					RPMA_F_COMPLETION_ON_ERROR, NULL));
			CHECK_RET(rpma_flush(c.conn, mine, 0, ATTACK_PAGE,
					RPMA_FLUSH_TYPE_VISIBILITY, RPMA_F_COMPLETION_ALWAYS,
					(void *)0xf));
			cq_expect(c.cq, OPCODE_ANY, (void *)0xf, NULL);
		}
		memset(c.buf, 0, ATTACK_PAGE);
		CHECK_RET(rpma_read(c.conn, c.buf_mr, 0, mine, 0, ATTACK_PAGE,
				RPMA_F_COMPLETION_ALWAYS, (void *)0x4));
		cq_expect(c.cq, IBV_WC_RDMA_READ, (void *)0x4, NULL);
		CHECK(memcmp(c.buf, want, ATTACK_PAGE) == 0, "A's page changed under it");
		rounds++;
		nap_ms(20);
	}
	note("A worked in its page throughout: %u rounds of %s, every byte as A left it",
			rounds, grants ? "write, flush and read" : "read");

	struct grant_msg *out = grant_msg_out(&c.m);
	out->kind = GRANT_MSG_DONE;
	out->n = written;
	grant_msg_send(c.conn, &c.m, sizeof(*out));
	free(want);
	CHECK_RET(rpma_mr_remote_delete(&mine));
	client_close(&c);
}

/* the descriptor d with its address set to addr and its key to rkey (little-endian) */
static void
desc_forge(struct grant_desc *d, uint64_t addr, uint32_t rkey)
{
	for (int i = 0; i < 8; i++)
		d->desc[i] = (uint8_t)(addr >> (8 * i));
	for (int i = 0; i < 4; i++)
		d->desc[16 + i] = (uint8_t)(rkey >> (8 * i));
}

static uint64_t
desc_addr(const struct grant_desc *d)
{
	uint64_t addr = 0;
	for (int i = 7; i >= 0; i--)
		addr = addr << 8 | d->desc[i];
	return addr;
}

static uint32_t
desc_rkey(const struct grant_desc *d)
{
	uint32_t rkey = 0;
	for (int i = 3; i >= 0; i--)
		rkey = rkey << 8 | d->desc[16 + i];
	return rkey;
}

/*
 * One try of B's (what) on c's connection with target: through grants a
 * write of junk, then a read; through plain regions the read alone.
 * Returns the bytes read of A's (the read completed with A's page): 0 for
 * a try that failed, as each must through grants.
 */
static size_t
attack_try(struct grant_client *c, const struct grant_desc *target, bool grants,
		const char *what)
{
	struct rpma_mr_remote *r = remote_of(target);
	struct ibv_wc wc;
	memset(c->buf, ATTACK_SEED_JUNK, ATTACK_PAGE);
	if (grants)
		CHECK_RET(rpma_write(c->conn, r, 0, c->buf_mr, 0, 8, RPMA_F_COMPLETION_ON_ERROR,
				(void *)0x77));
	CHECK_RET(rpma_read(c->conn, c->buf_mr, 0, r, 0, ATTACK_PAGE, RPMA_F_COMPLETION_ALWAYS,
			(void *)0x78));
	CHECK(cq_next_wc(c->cq, WAIT_MS, &wc), "%s: no completion within %d ms", what, WAIT_MS);
	CHECK_RET(rpma_mr_remote_delete(&r));
	if (wc.status != IBV_WC_SUCCESS) {
		/* the read's completion comes too (flushed) after a write failed */
		if (wc.wr_id == 0x77)
			CHECK(cq_next_wc(c->cq, WAIT_MS, &wc), "%s: no second completion", what);
		for (size_t i = 0; i < ATTACK_PAGE; i++)
			CHECK((uint8_t)c->buf[i] == ATTACK_SEED_JUNK, "%s: a failed read wrote byte "
					"%zu", what, i);
		return 0;
	}
	CHECK(!grants, "%s completed through grants: A's page was written and read", what);
	CHECK(pattern_check(c->buf, ATTACK_PAGE, ATTACK_SEED_A, 0) == SIZE_MAX,
			"%s read other bytes than A's", what);
	return ATTACK_PAGE;
}

/* a new connection of B's for one try; the server accepts it, grants nothing */
static size_t
attack_try_connected(struct grant_client *c, const struct grant_desc *target, bool grants,
		const char *what)
{
	char role = ROLE_GUESS;
	struct rpma_conn_private_data pd = {&role, 1};
	c->conn = client_connect(c->peer, NULL, &pd);
	CHECK_RET(rpma_conn_get_cq(c->conn, &c->cq));
	size_t got = attack_try(c, target, grants, what);
	conn_close_active(&c->conn);
	return got;
}

/* the attacker's end: its last connection is refused, and A is told to stop */
static void
attack_end(struct grant_client *c)
{
	char role = ROLE_END;
	struct rpma_conn_private_data pd = {&role, 1};
	struct rpma_conn_req *req;
	CHECK_RET(rpma_conn_req_new(c->peer, server_ip(), test_port(), NULL, &req));
	CHECK_RET(rpma_conn_req_connect(&req, &pd, &c->conn));
	enum rpma_conn_event event = conn_next_event_within(c->conn, WAIT_MS);
	CHECK(event == RPMA_CONN_REJECTED, "the last connection: %s, expected it refused",
			rpma_utils_conn_event_2str(event));
	CHECK_RET(rpma_conn_delete(&c->conn));
}

/* the keys B guesses: every key of the index of its own and of the indexes around it */
#define GUESS_INDEXES 3

static void
attack_thief(bool grants)
{
	struct grant_client c;
	client_open(&c, ROLE_B);
	struct grant_msg *in = grant_msg_wait(c.conn, &c.m, GRANT_MSG_DESCS);
	if (grants && grants_none(in)) {
		client_close(&c);
		return;
	}
	CHECK(in->n >= 2 && (grants || in->n == 2), "B got %u descriptors", in->n);
	struct grant_desc own = in->g[0], stolen = in->g[1];
	/* through grants: A's address with the key of each of the server's registrations */
	struct grant_msg keys = *in;

	/* B's own part works through B's connection */
	struct rpma_mr_remote *r = remote_of(&own);
	pattern_fill(c.buf, ATTACK_PAGE, ATTACK_SEED_B + 1, 0);
	CHECK_RET(rpma_write(c.conn, r, 0, c.buf_mr, 0, ATTACK_PAGE, RPMA_F_COMPLETION_ON_ERROR,
			NULL));
	CHECK_RET(rpma_read(c.conn, c.buf_mr, 0, r, 0, ATTACK_PAGE, RPMA_F_COMPLETION_ALWAYS,
			(void *)0xb));
	cq_expect(c.cq, IBV_WC_RDMA_READ, (void *)0xb, NULL);
	CHECK(pattern_check(c.buf, ATTACK_PAGE, ATTACK_SEED_B + 1, 0) == SIZE_MAX,
			"B's own page did not keep what B wrote");
	CHECK_RET(rpma_mr_remote_delete(&r));

	/* its own key at A's address, on its own connection: outside its part */
	struct grant_desc forged = own;
	desc_forge(&forged, desc_addr(&stolen), desc_rkey(&own));
	size_t leaked = attack_try(&c, &forged, grants, "B's own key at A's address");
	CHECK(leaked == 0, "B's own key read A's page");
	conn_close_active(&c.conn);

	/* A's exact key and address */
	size_t stolen_got = attack_try_connected(&c, &stolen, grants, "A's stolen key");
	note("the stolen key: %zu bytes of A's read", stolen_got);

	/* the keys of the region and of each grant's range registration, leaked */
	for (unsigned k = 2; k < keys.n; k++) {
		size_t got = attack_try_connected(&c, &keys.g[k], grants, "a registration's key");
		CHECK(got == 0, "the server's registration key %#x read A's page",
				desc_rkey(&keys.g[k]));
	}
	if (keys.n > 2)
		note("the keys of the server's %u registrations (the region's, the grants' "
				"ranges', the messages'): 0 bytes of A's read or changed", keys.n - 2);

	/*
	 * soft-iWARP draws each key's index at random among 2^24, its key byte
	 * 0: the indexes around B's own hold nothing to find. The stolen key
	 * shows the leak of plain regions there (tests.def, IWARP).
	 */
	if (test_iwarp()) {
		attack_end(&c);
		CHECK(stolen_got == (grants ? 0 : ATTACK_PAGE), "on iWARP the stolen key read %zu "
				"bytes of A's", stolen_got);
		note("iWARP: plain regions, the stolen key read A's page; keys are drawn at "
				"random there, no guessing");
		client_close(&c);
		return;
	}

	/* guessing: every key of GUESS_INDEXES indexes around B's own */
	uint32_t base = (desc_rkey(&own) >> 8) - GUESS_INDEXES / 2;
	uint32_t a_index = desc_rkey(&stolen) >> 8;
	CHECK(a_index >= base && a_index < base + GUESS_INDEXES,
			"A's key %#x lies outside the indexes guessed (%#x and on)",
			desc_rkey(&stolen), base);
	unsigned tries = 0, hits = 0;
	long start = now_ms();
	for (uint32_t index = base; index < base + GUESS_INDEXES && !(hits && !grants); index++) {
		for (uint32_t key = 0; key < 256; key++) {
			struct grant_desc guess = stolen;
			desc_forge(&guess, desc_addr(&stolen), index << 8 | key);
			tries++;
			if (attack_try_connected(&c, &guess, grants, "a guessed key")) {
				hits++;
				/* one leak found is proof enough of the plain regions' */
				if (!grants)
					break;
			}
		}
	}
	double secs = (double)(now_ms() - start) / 1000;
	attack_end(&c);

	if (grants) {
		CHECK(stolen_got == 0 && hits == 0, "through grants: stolen key %zu bytes, "
				"%u guesses hit", stolen_got, hits);
		note("through grants: 0 bytes of A's read or changed with B's own key, A's "
				"stolen key, or %u guessed keys (%.1f s), A's among them", tries, secs);
	} else {
		CHECK(stolen_got == ATTACK_PAGE && hits == 1,
				"through plain regions the test saw no leak: stolen %zu bytes, %u hits",
				stolen_got, hits);
		note("through plain regions (librpma 1.x's way): the stolen key read A's page, "
				"and guessing found A's key after %u tries in %.1f s", tries, secs);
	}
	client_close(&c);
}

static void
attack_client(bool grants)
{
	CHECK(integ_client_index == ATTACK_A || integ_client_index == ATTACK_B,
			"the attack tests have two clients (run-pair --clients 2)");
	if (integ_client_index == ATTACK_A)
		attack_victim(grants);
	else
		attack_thief(grants);
}

/* plain_attack's server: a region per page, registered as librpma 1.x programs do */

static void
plain_pages_reg(struct rpma_peer *peer, char *mem, int usage, struct rpma_mr_local *mr[2])
{
	for (int p = 0; p < 2; p++)
		CHECK_RET(rpma_mr_reg(peer, mem + p * ATTACK_PAGE, ATTACK_PAGE, usage, &mr[p]));
}

static bool
plain_pages_give(struct rpma_conn *conn, struct rpma_mr_local *mr[2], int p, int usage,
		void **handle, uint8_t *desc)
{
	(void) conn;
	(void) usage;
	CHECK_RET(rpma_mr_get_descriptor(mr[p], desc));
	*handle = NULL;
	return true;
}

void
plain_attack_server(void)
{
	static const struct attack_pages plain = {plain_pages_reg, plain_pages_give, NULL, false};
	attack_server(&plain);
}

void
grant_attack_client(void)
{
	attack_client(true);
}

void
plain_attack_client(void)
{
	attack_client(false);
}
