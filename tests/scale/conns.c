// SPDX-License-Identifier: BSD-3-Clause
/*
 * conns.c -- one server process holds RPMA_SCALE_CONNS connections (128 by
 * default) of one client process at once. The client opens them all, then
 * on every one writes its own pattern into its own slot of the server's
 * region, flushes and reads it back; the server checks each slot after
 * the client closed. Both report the set-up rate and what the held
 * connections cost (descriptors, resident memory).
 */

#include <string.h>

#include "scale.h"
#include "tests.h"

#define SLOT 4096
/* descriptors one connection takes: its event channel and its CQ's channel */
#define FDS_PER_CONN 2
/* the contexts of a connection's completions */
#define CTX_FLUSH ((void *)0xf1)
#define CTX_READ ((void *)0xf2)

static uint32_t
conns_wanted(void)
{
	return (uint32_t)env_number("RPMA_SCALE_CONNS", 128, 1, 65536);
}

/* small queues: a connection has at most three operations in flight */
static struct rpma_conn_cfg *
small_cfg(void)
{
	struct rpma_conn_cfg *cfg;

	CHECK_RET(rpma_conn_cfg_new(&cfg));
	CHECK_RET(rpma_conn_cfg_set_sq_size(cfg, 4));
	CHECK_RET(rpma_conn_cfg_set_rq_size(cfg, 1));
	CHECK_RET(rpma_conn_cfg_set_cq_size(cfg, 4));
	return cfg;
}

static void
note_held(uint32_t n, double secs, struct usage before)
{
	struct usage u = usage_now();
	note("holding %u connections: set up in %.2f s (%.1f per second), %ld descriptors"
			" (%+ld), RSS %ld KiB (%+ld)", n, secs, n / secs, u.fds,
			u.fds - before.fds, u.rss_kib, u.rss_kib - before.rss_kib);
}

void
conns_server(void)
{
	uint32_t n = conns_wanted();
	nofile_raise(n, FDS_PER_CONN);
	struct rpma_peer *peer = peer_open();
	char *mem = buf_new((size_t)n * SLOT);
	struct rpma_mr_local *mr;
	CHECK_RET(rpma_mr_reg(peer, mem, (size_t)n * SLOT, RPMA_MR_USAGE_WRITE_DST |
			RPMA_MR_USAGE_READ_SRC | RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY, &mr));
	struct rpma_conn_cfg *cfg = small_cfg();
	struct rpma_conn **conn = calloc(n, sizeof(*conn));
	bool *taken = calloc(n, sizeof(*taken));
	CHECK(conn != NULL && taken != NULL, "out of memory");
	struct rpma_ep *ep = ep_open(peer);

	struct usage before = usage_now();
	double t0 = 0;
	for (uint32_t k = 0; k < n; k++) {
		struct rpma_conn_req *req = ep_next_req(ep, cfg);
		if (k == 0)
			t0 = now_s();	/* from the first request on: not the client's start */
		struct scale_hello h = hello_take(req, n, SLOT, taken);
		conn[h.index] = accept_start(&req, mr, h.index);
	}
	for (uint32_t i = 0; i < n; i++)
		conn_expect_event(conn[i], RPMA_CONN_ESTABLISHED);
	note_held(n, now_s() - t0, before);

	/* the client closes each connection when its data is back */
	for (uint32_t i = 0; i < n; i++)
		conn_close_passive(&conn[i]);
	for (uint32_t i = 0; i < n; i++) {
		size_t bad = pattern_check(mem + (size_t)i * SLOT, SLOT, conn_seed(i, 0), 0);
		CHECK(bad == SIZE_MAX, "connection %u: the server's slot differs at byte %zu", i,
				bad);
	}
	note("%u slots hold what their connections wrote", n);

	CHECK_RET(rpma_ep_shutdown(&ep));
	free(taken);
	free(conn);
	CHECK_RET(rpma_conn_cfg_delete(&cfg));
	CHECK_RET(rpma_mr_dereg(&mr));
	free(mem);
	CHECK_RET(rpma_peer_delete(&peer));
}

/* write, flush and read back on every connection, all in flight at once */
static void
io_all(uint32_t n, struct rpma_conn **conn, struct rpma_mr_remote **rmr,
		struct rpma_mr_local *mr)
{
	for (uint32_t i = 0; i < n; i++) {
		size_t off = (size_t)i * SLOT;
		CHECK_RET(rpma_write(conn[i], rmr[i], off, mr, off, SLOT,
				RPMA_F_COMPLETION_ON_ERROR, NULL));
		CHECK_RET(rpma_flush(conn[i], rmr[i], off, SLOT, RPMA_FLUSH_TYPE_VISIBILITY,
				RPMA_F_COMPLETION_ALWAYS, CTX_FLUSH));
		/* into the second half of the local region */
		CHECK_RET(rpma_read(conn[i], mr, (size_t)n * SLOT + off, rmr[i], off, SLOT,
				RPMA_F_COMPLETION_ALWAYS, CTX_READ));
	}
	for (uint32_t i = 0; i < n; i++) {
		struct rpma_cq *cq;
		struct ibv_wc wc;
		CHECK_RET(rpma_conn_get_cq(conn[i], &cq));
		cq_expect(cq, OPCODE_ANY, CTX_FLUSH, &wc);
		CHECK(WC_IS_FLUSH(wc.opcode), "connection %u: the flush completed as %s", i,
				wc_opcode_str(wc.opcode));
		cq_expect(cq, IBV_WC_RDMA_READ, CTX_READ, NULL);
		cq_expect_empty(cq);
	}
}

void
conns_client(void)
{
	uint32_t n = conns_wanted();
	nofile_raise(n, FDS_PER_CONN);
	struct rpma_peer *peer = client_peer_open();
	/* the data to write, then what is read back */
	char *mem = buf_new(2 * (size_t)n * SLOT);
	struct rpma_mr_local *mr;
	CHECK_RET(rpma_mr_reg(peer, mem, 2 * (size_t)n * SLOT,
			RPMA_MR_USAGE_WRITE_SRC | RPMA_MR_USAGE_READ_DST, &mr));
	for (uint32_t i = 0; i < n; i++)
		pattern_fill(mem + (size_t)i * SLOT, SLOT, conn_seed(i, 0), 0);
	struct rpma_conn_cfg *cfg = small_cfg();
	struct rpma_conn **conn = calloc(n, sizeof(*conn));
	struct rpma_mr_remote **rmr = calloc(n, sizeof(*rmr));
	CHECK(conn != NULL && rmr != NULL, "out of memory");

	struct usage before = usage_now();
	double t0 = now_s();
	for (uint32_t i = 0; i < n; i++) {
		struct scale_hello h = {SCALE_MAGIC, i, n, SLOT};
		conn[i] = conn_open(peer, cfg, &h);
		rmr[i] = reply_take(conn[i], i);
	}
	note_held(n, now_s() - t0, before);

	io_all(n, conn, rmr, mr);
	for (uint32_t i = 0; i < n; i++) {
		char *back = mem + (size_t)(n + i) * SLOT;
		size_t bad = pattern_check(back, SLOT, conn_seed(i, 0), 0);
		CHECK(bad == SIZE_MAX, "connection %u: what was read back differs at byte %zu", i,
				bad);
	}
	note("%u connections wrote, flushed and read back their slots", n);

	for (uint32_t i = 0; i < n; i++) {
		CHECK_RET(rpma_mr_remote_delete(&rmr[i]));
		conn_close_active(&conn[i]);
	}
	free(rmr);
	free(conn);
	CHECK_RET(rpma_conn_cfg_delete(&cfg));
	CHECK_RET(rpma_mr_dereg(&mr));
	free(mem);
	CHECK_RET(rpma_peer_delete(&peer));
}
