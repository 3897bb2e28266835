// SPDX-License-Identifier: BSD-3-Clause
/*
 * grant_server.c -- the servers of the grant tests (grant.h, grant.c): they
 * grant parts of regions registered for grants (LIBRPMA_1.5), hand the
 * descriptors over in a message and check the memory afterwards.
 */

#include <string.h>

#include "grant.h"
#include "tests.h"

/* grant_ops: a page per usage, on PMem and on DRAM, and a last page never granted */
static const int ops_usages[] = {
	USAGE_GRANT_ALL,
	RPMA_MR_USAGE_WRITE_DST,
	RPMA_MR_USAGE_READ_SRC,
	RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY,
	RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT,
	RPMA_MR_USAGE_WRITE_DST | RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY,
	RPMA_MR_USAGE_WRITE_DST | RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT,
	USAGE_RW,
};
#define OPS_USAGES (sizeof(ops_usages) / sizeof(ops_usages[0]))
#define OPS_PAGES (OPS_USAGES + 1)
#define OPS_SIZE (OPS_PAGES * ATTACK_PAGE)

/* as grant.c */
#define OPS_ATOMIC_OFF 64
#define OPS_SEED_SERVER(i) (300u + (i))
#define OPS_SEED_CLIENT(i) (400u + (i))

/* what the server fills page i of memory k with: grant n's seed, the last page's own */
static uint32_t
ops_seed(int k, unsigned i)
{
	return i < OPS_USAGES ? OPS_SEED_SERVER(k * OPS_USAGES + i) : OPS_SEED_SERVER(100u + k);
}

/* page i of memory k as the client left it: written (with the atomic bytes), or the server's */
static void
ops_check_page(const char *page, int k, unsigned i, bool exercised)
{
	char want[ATTACK_PAGE];
	bool written = exercised && (ops_usages[i] & RPMA_MR_USAGE_WRITE_DST);

	pattern_fill(want, sizeof(want),
			written ? OPS_SEED_CLIENT(k * OPS_USAGES + i) : ops_seed(k, i), 0);
	if (written)
		memcpy(want + OPS_ATOMIC_OFF, "granted!", 8);
	CHECK(memcmp(page, want, sizeof(want)) == 0, "page %u of memory %d holds other bytes", i,
			k);
}

/* the argument checks of the grant calls, on a live connection */
static void
ops_refusals(struct rpma_conn *conn, struct rpma_peer *peer, struct rpma_mr_local *mr)
{
	struct rpma_grant *g = NULL;
	char desc[GRANT_DESC_SIZE];

	CHECK_EQ_RET(rpma_mr_get_descriptor(mr, desc), RPMA_E_INVAL);
	CHECK_EQ_RET(rpma_grant_new(conn, mr, 0, 0, USAGE_RW, &g), RPMA_E_INVAL);
	CHECK_EQ_RET(rpma_grant_new(conn, mr, OPS_SIZE - 1, 2, USAGE_RW, &g), RPMA_E_INVAL);
	CHECK_EQ_RET(rpma_grant_new(conn, mr, 0, ATTACK_PAGE, 0, &g), RPMA_E_INVAL);
	CHECK_EQ_RET(rpma_grant_new(conn, mr, 0, ATTACK_PAGE, RPMA_MR_USAGE_SEND, &g),
			RPMA_E_INVAL);

	/* a region registered as librpma 1.x registers is refused: its own key lets all in */
	char *plain_buf = buf_new(ATTACK_PAGE);
	struct rpma_mr_local *plain;
	CHECK_RET(rpma_mr_reg(peer, plain_buf, ATTACK_PAGE, USAGE_RW, &plain));
	CHECK_EQ_RET(rpma_grant_new(conn, plain, 0, ATTACK_PAGE, USAGE_RW, &g), RPMA_E_INVAL);
	CHECK_RET(rpma_mr_dereg(&plain));
	free(plain_buf);

	/* a usage the region was not registered for */
	struct rpma_mr_local *narrow;
	plain_buf = buf_new(ATTACK_PAGE);
	CHECK_RET(rpma_mr_reg_for_grants(peer, plain_buf, ATTACK_PAGE, RPMA_MR_USAGE_READ_SRC,
			&narrow));
	CHECK_EQ_RET(rpma_grant_new(conn, narrow, 0, ATTACK_PAGE, RPMA_MR_USAGE_WRITE_DST, &g),
			RPMA_E_INVAL);
	CHECK_RET(rpma_mr_dereg(&narrow));
	free(plain_buf);
	CHECK(g == NULL, "a refused grant wrote its handle");
}

/* rpma_mr_dereg() of each region refused while it has the grants counted for it, logged */
static void
ops_dereg_refused(struct rpma_mr_local *mr[2], unsigned counts[2])
{
	char want[64];

	log_keep(RPMA_LOG_LEVEL_ERROR);
	for (int k = 0; k < 2; k++) {
		struct rpma_mr_local *kept = mr[k];
		CHECK_EQ_RET(rpma_mr_dereg(&mr[k]), RPMA_E_INVAL);
		CHECK(mr[k] == kept, "a refused deregistration changed the handle");
		snprintf(want, sizeof(want), "still has %u grant%s", counts[k],
				counts[k] == 1 ? ":" : "s:");
		CHECK(strstr(log_kept(), want) != NULL, "the log does not say \"%s\": %s", want,
				log_kept());
	}
	log_stop();
	note("rpma_mr_dereg() refused: %u and %u grants left on the PMem and DRAM regions",
			counts[0], counts[1]);
}

/*
 * A device without type-2 windows (soft-iWARP): every grant is refused at
 * the call with RPMA_E_NOSUPP, after the arguments were checked; the
 * client is told there are none (grant.c: grants_none())
 */
static void
grants_refused(struct rpma_conn *conn, struct rpma_mr_local *mr, struct grant_msgbuf *m,
		const int *usages, size_t n)
{
	struct rpma_grant *g = NULL;

	CHECK(!test_windows(), "the device binds windows, yet a grant was refused");
	for (size_t i = 0; i < n; i++)
		CHECK_EQ_RET(rpma_grant_new(conn, mr, 0, ATTACK_PAGE, usages[i], &g), RPMA_E_NOSUPP);
	CHECK(g == NULL, "a refused grant wrote its handle");
	struct grant_msg *out = grant_msg_out(m);
	out->kind = GRANT_MSG_DESCS;
	/* told there are none, the client closes at once */
	grant_msg_send_last(conn, m, sizeof(*out));
	note("the device binds no type-2 windows: %zu grants refused with RPMA_E_NOSUPP", n);
}

void
grant_ops_server(void)
{
	struct rpma_peer *peer = peer_open();
	void *pmem;
	struct pmem_map *pm = pmem_open(OPS_SIZE, &pmem);
	char *dram = buf_new(OPS_SIZE);
	char *mem[2] = {pmem, dram};
	const uint8_t kind[2] = {GRANT_PMEM, GRANT_DRAM};
	struct rpma_mr_local *mr[2];
	for (int m = 0; m < 2; m++) {
		for (unsigned i = 0; i < OPS_PAGES; i++)
			pattern_fill(mem[m] + i * ATTACK_PAGE, ATTACK_PAGE, ops_seed(m, i), 0);
		CHECK_RET(rpma_mr_reg_for_grants(peer, mem[m], OPS_SIZE, USAGE_GRANT_ALL, &mr[m]));
	}
	pmem_persist(pm, pmem, OPS_SIZE);
	struct rpma_peer_cfg *pcfg;
	CHECK_RET(rpma_peer_cfg_new(&pcfg));
	CHECK_RET(rpma_peer_cfg_set_direct_write_to_pmem(pcfg, true));

	struct grant_msgbuf m;
	grant_msgbuf_new(peer, &m);
	struct rpma_ep *ep = ep_open(peer);
	struct rpma_conn_req *req = ep_next_req(ep, grant_conn_cfg());
	grant_recv_prep(req, &m);
	struct rpma_conn *conn = server_accept(&req, NULL);
	grant_hello_wait(conn, &m);
	ops_refusals(conn, peer, mr[0]);
	if (!test_windows()) {
		grants_refused(conn, mr[0], &m, ops_usages, OPS_USAGES);
		conn_close_passive(&conn);
		goto out;
	}

	/* the grants, and their descriptors in one message */
	struct rpma_grant *g[2 * OPS_USAGES];
	struct grant_msg *out = grant_msg_out(&m);
	out->kind = GRANT_MSG_DESCS;
	for (int k = 0; k < 2; k++) {
		for (unsigned i = 0; i < OPS_USAGES; i++) {
			unsigned n = out->n++;
			CHECK_RET(rpma_grant_new(conn, mr[k], i * ATTACK_PAGE, ATTACK_PAGE,
					ops_usages[i], &g[n]));
			size_t size;
			CHECK_RET(rpma_grant_get_descriptor_size(g[n], &size));
			CHECK(size == GRANT_DESC_SIZE, "a grant's descriptor of %zu bytes", size);
			CHECK_RET(rpma_grant_get_descriptor(g[n], out->g[n].desc));
			out->g[n].usage = (uint8_t)ops_usages[i];
			out->g[n].memory = kind[k];
		}
	}
	size_t len;
	CHECK_RET(rpma_peer_cfg_get_descriptor_size(pcfg, &len));
	CHECK_RET(rpma_peer_cfg_get_descriptor(pcfg, out->pcfg));
	out->pcfg_len = (uint8_t)len;
	grant_msg_send(conn, &m, sizeof(*out));

	/* the client's work, page by page; the pages never granted unchanged */
	uint32_t done = grant_msg_wait(conn, &m, GRANT_MSG_DONE)->n;
	for (int k = 0; k < 2; k++) {
		for (unsigned i = 0; i < OPS_PAGES; i++) {
			bool exercised = i < OPS_USAGES && (done & (1u << (k * OPS_USAGES + i)));
			ops_check_page(mem[k] + i * ATTACK_PAGE, k, i, exercised);
		}
	}
	note("every page as the client left it, none outside the grants changed");

	/* a region its grants hold is not deregistered: they would serve memory reused */
	unsigned held[2] = {OPS_USAGES, OPS_USAGES};
	ops_dereg_refused(mr, held);

	/* revoked: the client's next read with its key fails */
	CHECK_RET(rpma_grant_delete(&g[0]));
	CHECK(g[0] == NULL, "rpma_grant_delete() left the handle set");
	held[0]--;
	ops_dereg_refused(mr, held);
	out = grant_msg_out(&m);
	out->kind = GRANT_MSG_REVOKED;
	/* the client breaks the connection with its read through the revoked grant */
	grant_msg_send_last(conn, &m, sizeof(*out));

	/* the connection's end revokes the rest; their handles stay to be deleted */
	conn_close_passive(&conn);
	for (unsigned n = 1; n < 2 * OPS_USAGES; n++) {
		CHECK_RET(rpma_grant_delete(&g[n]));
		CHECK(g[n] == NULL, "rpma_grant_delete() left the handle set");
	}
out:
	CHECK_RET(rpma_ep_shutdown(&ep));
	grant_msgbuf_delete(&m);
	CHECK_RET(rpma_peer_cfg_delete(&pcfg));
	for (int k = 0; k < 2; k++)
		CHECK_RET(rpma_mr_dereg(&mr[k]));
	free(dram);
	pmem_close(&pm);
	CHECK_RET(rpma_peer_delete(&peer));
}

/* grant_rights: a page granted for reading only, another for writing only */

#define RIGHTS_SEED_R 500
#define RIGHTS_SEED_W 501

void
grant_rights_server(void)
{
	static const int usages[2] = {RPMA_MR_USAGE_READ_SRC, RPMA_MR_USAGE_WRITE_DST};
	struct rpma_peer *peer = peer_open();
	char *mem = buf_new(2 * ATTACK_PAGE);
	struct rpma_mr_local *mr;
	pattern_fill(mem, ATTACK_PAGE, RIGHTS_SEED_R, 0);
	pattern_fill(mem + ATTACK_PAGE, ATTACK_PAGE, RIGHTS_SEED_W, 0);
	CHECK_RET(rpma_mr_reg_for_grants(peer, mem, 2 * ATTACK_PAGE, USAGE_RW, &mr));
	struct grant_msgbuf m;
	grant_msgbuf_new(peer, &m);
	struct rpma_ep *ep = ep_open(peer);

	/* a connection for each refusal: the first breaks it */
	for (int round = 0; round < 2; round++) {
		struct rpma_conn_req *req = ep_next_req(ep, grant_conn_cfg());
		grant_recv_prep(req, &m);
		struct rpma_conn *conn = server_accept(&req, NULL);
		grant_hello_wait(conn, &m);
		if (!test_windows()) {
			grants_refused(conn, mr, &m, usages, 2);
			conn_close_passive(&conn);
			goto out;
		}
		struct rpma_grant *g[2];
		struct grant_msg *out = grant_msg_out(&m);
		out->kind = GRANT_MSG_DESCS;
		for (int i = 0; i < 2; i++) {
			CHECK_RET(rpma_grant_new(conn, mr, (size_t)i * ATTACK_PAGE, ATTACK_PAGE,
					usages[i], &g[i]));
			CHECK_RET(rpma_grant_get_descriptor(g[i], out->g[i].desc));
			out->g[i].usage = (uint8_t)usages[i];
			out->n++;
		}
		grant_msg_send_last(conn, &m, sizeof(*out));
		conn_close_passive(&conn);
		for (int i = 0; i < 2; i++)
			CHECK_RET(rpma_grant_delete(&g[i]));
	}
	/* the write through the write-only grant landed; the refused one moved no byte */
	CHECK(pattern_check(mem, ATTACK_PAGE, RIGHTS_SEED_R, 0) == SIZE_MAX,
			"the page granted for reading only changed");
	CHECK(pattern_check(mem + ATTACK_PAGE, ATTACK_PAGE, RIGHTS_SEED_W + 100, 0) == SIZE_MAX,
			"the page granted for writing only does not hold what the client wrote");
	note("the read-only page as it was, the write-only page as the client wrote it");
out:
	CHECK_RET(rpma_ep_shutdown(&ep));
	grant_msgbuf_delete(&m);
	CHECK_RET(rpma_mr_dereg(&mr));
	free(mem);
	CHECK_RET(rpma_peer_delete(&peer));
}

/* grant_attack: one region for grants, a grant of a page per client */

static void
grant_pages_reg(struct rpma_peer *peer, char *mem, int usage, struct rpma_mr_local *mr[2])
{
	CHECK_RET(rpma_mr_reg_for_grants(peer, mem, 2 * ATTACK_PAGE, usage, &mr[0]));
	mr[1] = NULL;
}

/* true with the descriptor in desc; false where the device has no windows */
static bool
grant_pages_give(struct rpma_conn *conn, struct rpma_mr_local *mr[2], int p, int usage,
		void **handle, uint8_t *desc)
{
	struct rpma_grant *g = NULL;
	int ret = rpma_grant_new(conn, mr[0], (size_t)p * ATTACK_PAGE, ATTACK_PAGE, usage, &g);
	if (ret == RPMA_E_NOSUPP && !test_windows()) {
		note("the device binds no type-2 windows: the grant refused with RPMA_E_NOSUPP");
		*handle = NULL;
		return false;
	}
	CHECK_RET(ret);
	CHECK_RET(rpma_grant_get_descriptor(g, desc));
	*handle = g;
	return true;
}

/* after its connection's end: the grant was revoked with it, the handle goes now */
static void
grant_pages_take_back(void **handle)
{
	struct rpma_grant *g = *handle;
	if (g == NULL)
		return;	/* refused */
	CHECK_RET(rpma_grant_delete(&g));
	CHECK(g == NULL, "rpma_grant_delete() left the handle set");
	*handle = NULL;
}

void
grant_attack_server(void)
{
	static const struct attack_pages grants = {
		grant_pages_reg, grant_pages_give, grant_pages_take_back, true,
	};
	attack_server(&grants);
}
