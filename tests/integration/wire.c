// SPDX-License-Identifier: BSD-3-Clause
/*
 * wire.c -- two hosts (utils/rxe-vm --hosts 2, run-pair --across-hosts)
 * whose link fails: cut for a while (tc drops everything host 1 sends and
 * receives, neither side's kernel sees a link change), or a whole host
 * stopped (RXE_VM_CONTROL "kill N": no disconnect reaches the peer). The
 * survivor's outcome is asserted exactly: which completion status, which
 * event, within which bound (twohost.h), and the data.
 */

#include <string.h>

#include "common.h"
#include "tests.h"
#include "twohost.h"

#define KIB ((size_t)1024)
#define W_REGION (1024 * KIB)
#define W_OP (16 * KIB)
#define W_PIECES (W_REGION / W_OP)
#define W_QD 8
#define W_SEED 71

/*
 * The cut uses the qdiscs eth0 has from boot (utils/lib.sh, link_install):
 * on rxe (kernel 6.12) a qdisc grafted or removed on eth0 while a QP sends
 * fails one transmission (send_err), and that moves the QP to the error
 * state, every write flushed. Changing netem's loss and adding or removing
 * a filter does not. run-pair --across-hosts clears both when it ends.
 *
 * Everything host 1 sends or receives on eth0 is dropped from now on.
 */
static void
link_cut(void)
{
	shell("tc qdisc change dev eth0 root netem loss 100% && "
		"tc filter add dev eth0 ingress pref 1 matchall action drop");
}

static void
link_restore(void)
{
	shell("tc filter del dev eth0 ingress pref 1 && "
		"tc qdisc change dev eth0 root netem loss 0%");
}

/* --- a link cut for RPMA_TEST_OUTAGE_MS while writes are in flight --- */

static long
outage_ms(void)
{
	return env_number("RPMA_TEST_OUTAGE_MS", 1000, 1, 600000);
}

/* longer than the retry budget on a device that has one: the connection fails */
static bool
outage_fails(void)
{
	return outage_ms() > retry_bound_ms() && !retries_forever();
}

/* accept a connection offering region mr */
static struct rpma_conn *
outage_accept(struct rpma_ep *ep, struct rpma_mr_local *mr, const char *what)
{
	struct rpma_conn_req *req = ep_next_req(ep, NULL);
	struct server_desc sd;
	struct rpma_conn_private_data pd;
	server_desc_make(&sd, mr, NULL, &pd);
	struct rpma_conn *conn = server_accept(&req, &pd);
	note("%s connection established", what);
	return conn;
}

/* the client closes it: within the outage and a retry bound more */
static void
outage_closed(struct rpma_conn **conn, const char *what)
{
	enum rpma_conn_event ev = conn_next_event_within(*conn, 3 * WAIT_MS);
	CHECK(ev == RPMA_CONN_CLOSED, "%s connection: event %s, expected RPMA_CONN_CLOSED", what,
			rpma_utils_conn_event_2str(ev));
	CHECK_RET(rpma_conn_disconnect(*conn));
	CHECK_RET(rpma_conn_delete(conn));
}

void
outage_server(void)
{
	struct rpma_peer *peer = peer_open();
	char *buf = buf_new(W_REGION);
	struct rpma_mr_local *mr;
	CHECK_RET(rpma_mr_reg(peer, buf, W_REGION, RPMA_MR_USAGE_WRITE_DST |
			RPMA_MR_USAGE_READ_SRC | RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY, &mr));
	struct rpma_ep *ep = ep_open(peer);

	struct rpma_conn *first = outage_accept(ep, mr, "the first");
	if (outage_fails()) {
		/*
		 * The client gave up on the first connection while the link
		 * was cut: its disconnect may never come here. The second
		 * connection shows it is back; the first is let go then.
		 */
		struct rpma_conn *second = outage_accept(ep, mr, "the second");
		outage_closed(&second, "the second");
		CHECK_RET(rpma_conn_disconnect(first));
		CHECK_RET(rpma_conn_delete(&first));
	} else {
		outage_closed(&first, "the first");
	}
	size_t bad = pattern_check(buf, W_REGION, W_SEED, 0);
	CHECK(bad == SIZE_MAX, "byte %zu of the region is not what the client wrote", bad);
	note("every byte of the %zu KiB region is what the client wrote", W_REGION / KIB);

	CHECK_RET(rpma_ep_shutdown(&ep));
	CHECK_RET(rpma_mr_dereg(&mr));
	free(buf);
	CHECK_RET(rpma_peer_delete(&peer));
}

/* a connection with room for W_QD writes and a read of the whole region */
static struct rpma_conn_cfg *
outage_cfg(void)
{
	struct rpma_conn_cfg *cfg;
	CHECK_RET(rpma_conn_cfg_new(&cfg));
	CHECK_RET(rpma_conn_cfg_set_sq_size(cfg, 2 * W_QD));
	CHECK_RET(rpma_conn_cfg_set_cq_size(cfg, 2 * W_QD));
	return cfg;
}

/* flush, read the region back into buf (cleared first) and compare */
static void
read_back_and_compare(struct rpma_conn *conn, struct rpma_cq *cq,
		struct rpma_mr_remote *dst, struct rpma_mr_local *src, char *buf)
{
	CHECK_RET(rpma_flush(conn, dst, 0, W_REGION, RPMA_FLUSH_TYPE_VISIBILITY,
			RPMA_F_COMPLETION_ALWAYS, (void *)0xf1));
	cq_expect(cq, OPCODE_ANY, (void *)0xf1, NULL);
	memset(buf, 0, W_REGION);
	CHECK_RET(rpma_read(conn, src, 0, dst, 0, W_REGION, RPMA_F_COMPLETION_ALWAYS,
			(void *)0xf2));
	cq_expect(cq, IBV_WC_RDMA_READ, (void *)0xf2, NULL);
	size_t bad = pattern_check(buf, W_REGION, W_SEED, 0);
	CHECK(bad == SIZE_MAX, "byte %zu read back differs from what was written", bad);
}

/* write the whole region again, W_QD writes in flight, all must succeed */
static void
write_region(struct rpma_conn *conn, struct rpma_cq *cq, struct rpma_mr_remote *dst,
		struct rpma_mr_local *src)
{
	size_t posted = 0, done = 0;
	while (done < W_PIECES) {
		while (posted < W_PIECES && posted - done < W_QD) {
			size_t off = posted++ * W_OP;
			CHECK_RET(rpma_write(conn, dst, off, src, off, W_OP,
					RPMA_F_COMPLETION_ALWAYS, NULL));
		}
		cq_expect(cq, IBV_WC_RDMA_WRITE, NULL, NULL);
		done++;
	}
}

/*
 * On rxe, whose completer counts its retransmission timeouts: over a cut
 * of several local ACK timeouts, one came about every T = 4.096 us *
 * 2^ACK_TIMEOUT_EXP (at least 0.8 T apart, at most 2 T under the VM's
 * emulation): the timeout of the bound is the one the QP really has.
 * The tc commands that cut and restore the link may take a second under
 * load, and the cut takes effect somewhere inside them: the timeouts were
 * counted over span_ms (from before the cut's commands to after the
 * restore's), the link surely down for the sure_ms between them. Too many
 * for the span, or too few for the sure part, is a timeout other than T.
 */
static void
check_timeouts(long retries, long sure_ms, long span_ms)
{
	const double t = 4.096e-3 * (double)(1L << ACK_TIMEOUT_EXP);
	if (retries < 0 || sure_ms < 4 * t)
		return;
	CHECK(retries > 0, "no retransmission timeout in a %ld ms cut", sure_ms);
	/* the cut lasted between sure_ms and span_ms: so did the gaps, together */
	double gap_min = (double)sure_ms / (double)retries;
	double gap_max = (double)span_ms / (double)retries;
	note("%ld retransmission timeouts in a cut of %ld to %ld ms: one per %.0f to %.0f ms "
			"(T = %.0f ms)", retries, sure_ms, span_ms, gap_min, gap_max, t);
	CHECK(gap_max >= 0.8 * t, "one timeout per %.0f ms at most, T is %.0f ms", gap_max, t);
	CHECK(gap_min <= 2 * t, "one timeout per %.0f ms at least, T is %.0f ms", gap_min, t);
}

void
outage_client(void)
{
	struct rpma_peer *peer = peer_open();
	struct rpma_conn_cfg *cfg = outage_cfg();
	char *buf = buf_new(W_REGION);
	struct rpma_mr_local *src;
	CHECK_RET(rpma_mr_reg(peer, buf, W_REGION, RPMA_MR_USAGE_WRITE_SRC |
			RPMA_MR_USAGE_READ_DST, &src));
	struct rpma_conn *conn = client_connect(peer, cfg, NULL);
	struct rpma_mr_remote *dst = server_desc_take(conn, NULL);
	struct rpma_cq *cq;
	CHECK_RET(rpma_conn_get_cq(conn, &cq));
	pattern_fill(buf, W_REGION, W_SEED, 0);

	/*
	 * The region three times over, W_QD writes in flight; the link is cut
	 * after one pass and restored outage_ms later.
	 */
	const size_t total = 3 * W_PIECES;
	const long outage = outage_ms(), bound = retry_bound_ms();
	size_t posted = 0, done = 0;
	long t_cut = 0, t_restored = 0, t_error = 0, t_resumed = 0;
	long t_before_cut = 0, t_before_restore = 0;
	long retries_at_cut = -1, retries = -1;
	enum ibv_wc_status error = IBV_WC_SUCCESS;
	while (done < total && error == IBV_WC_SUCCESS) {
		while (posted < total && posted - done < W_QD) {
			size_t off = (posted++ % W_PIECES) * W_OP;
			CHECK_RET(rpma_write(conn, dst, off, src, off, W_OP,
					RPMA_F_COMPLETION_ALWAYS, NULL));
		}
		if (t_cut == 0 && done == W_PIECES) {
			t_before_cut = now_ms();
			retries_at_cut = rxe_counter("completer_retry_err");
			link_cut();
			t_cut = now_ms();
			note("link cut with %zu writes in flight, for %ld ms (retry bound %ld ms; "
					"the cut's commands took %ld ms)", posted - done, outage,
					bound, t_cut - t_before_cut);
		}
		if (t_cut != 0 && t_restored == 0 && now_ms() - t_cut >= outage) {
			t_before_restore = now_ms();
			link_restore();
			if (retries_at_cut >= 0)
				retries = rxe_counter("completer_retry_err") - retries_at_cut;
			t_restored = now_ms();
			note("link restored after %ld ms (the restore's commands took %ld ms)",
					t_restored - t_cut, t_restored - t_before_restore);
		}
		struct ibv_wc wc;
		if (!cq_next_wc(cq, 50, &wc)) {
			CHECK(t_cut == 0 || now_ms() - t_cut < outage + bound + slack_ms() + WAIT_MS,
					"no completion for %ld ms since the cut", now_ms() - t_cut);
			continue;
		}
		done++;
		if (wc.status != IBV_WC_SUCCESS) {
			error = wc.status;
			t_error = now_ms();
		} else if (t_restored != 0 && t_resumed == 0) {
			t_resumed = now_ms();
		}
	}

	if (!outage_fails()) {
		CHECK(error == IBV_WC_SUCCESS, "a write failed with %s after a %ld ms outage",
				ibv_wc_status_str(error), outage);
		CHECK(t_resumed != 0, "the writes completed before the link came back");
		note("%zu writes completed, the first %ld ms after the link came back%s", done,
				t_resumed - t_restored, outage > bound ?
				" (rxe retries without limit)" : "");
		read_back_and_compare(conn, cq, dst, src, buf);
		note("the region read back is what was written");
		conn_close_active(&conn);
		check_timeouts(retries, t_before_restore - t_cut, t_restored - t_before_cut);
	} else {
		CHECK(error == IBV_WC_RETRY_EXC_ERR, "the first failed write: %s, expected %s",
				ibv_wc_status_str(error), ibv_wc_status_str(IBV_WC_RETRY_EXC_ERR));
		long took = t_error - t_cut;
		note("%s %ld ms after the cut (bound %ld ms + %ld ms slack)",
				ibv_wc_status_str(error), took, bound, slack_ms());
		CHECK(took <= bound + slack_ms(), "the error came %ld ms after the cut, bound %ld ms",
				took, bound);
		conn_give_up(&conn, cq);
		CHECK_RET(rpma_mr_remote_delete(&dst));
		if (t_restored == 0) {
			long left = outage - (now_ms() - t_cut);
			nap_ms(left > 0 ? (int)left : 0);
			link_restore();
			note("link restored after %ld ms", now_ms() - t_cut);
		}
		/* the link is back: a new connection works, everything written anew */
		conn = client_connect(peer, cfg, NULL);
		dst = server_desc_take(conn, NULL);
		CHECK_RET(rpma_conn_get_cq(conn, &cq));
		write_region(conn, cq, dst, src);
		read_back_and_compare(conn, cq, dst, src, buf);
		note("connected again, the region written and read back");
		conn_close_active(&conn);
	}

	CHECK_RET(rpma_mr_remote_delete(&dst));
	CHECK_RET(rpma_mr_dereg(&src));
	free(buf);
	CHECK_RET(rpma_conn_cfg_delete(&cfg));
	CHECK_RET(rpma_peer_delete(&peer));
}

/* --- the client's RTU, the handshake's last message, lost --- */

#define RTU_SIZE (64 * KIB)
#define RTU_SEED 73

/*
 * Drop every RTU this host receives: RoCE v2 (UDP port 4791) to QP 1 (the
 * BTH's destination QP, bytes 5 to 7 after the UDP header), a CM MAD whose
 * attribute is ConnectRTU (0x0014, at byte 16 of the MAD after BTH and
 * DETH). In place before any connection.
 */
static void
rtu_drop(void)
{
	shell("tc filter add dev eth0 ingress pref 2 protocol ip u32 "
		"match ip protocol 17 0xff match ip dport 4791 0xffff "
		"match u32 0x00000001 0x00ffffff at 32 match u16 0x0014 0xffff at 64 "
		"action drop");
}

void
rtu_lost_server(void)
{
	struct rpma_peer *peer = peer_open();
	char *buf = buf_new(RTU_SIZE);
	struct rpma_mr_local *mr;
	CHECK_RET(rpma_mr_reg(peer, buf, RTU_SIZE, RPMA_MR_USAGE_WRITE_DST |
			RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY, &mr));
	rtu_drop();
	struct rpma_ep *ep = ep_open(peer);

	/* no RTU comes: the client's disconnect ends the handshake */
	struct rpma_conn_req *req = ep_next_req(ep, NULL);
	struct server_desc sd;
	struct rpma_conn_private_data pd;
	server_desc_make(&sd, mr, NULL, &pd);
	struct rpma_conn *conn = server_accept(&req, &pd);
	long t = now_ms();
	conn_close_passive(&conn);
	note("ESTABLISHED, then CLOSED %ld ms later", now_ms() - t);
	shell("tc -s filter show dev eth0 ingress pref 2 | grep -q 'dropped [1-9]'");
	size_t bad = pattern_check(buf, RTU_SIZE, RTU_SEED, 0);
	CHECK(bad == SIZE_MAX, "byte %zu of the region is not what the client wrote", bad);
	note("the RTU was dropped, and every byte the client wrote is here");

	CHECK_RET(rpma_ep_shutdown(&ep));
	CHECK_RET(rpma_mr_dereg(&mr));
	free(buf);
	CHECK_RET(rpma_peer_delete(&peer));
}

void
rtu_lost_client(void)
{
	struct rpma_peer *peer = peer_open();
	char *buf = buf_new(RTU_SIZE);
	struct rpma_mr_local *src;
	CHECK_RET(rpma_mr_reg(peer, buf, RTU_SIZE, RPMA_MR_USAGE_WRITE_SRC, &src));
	pattern_fill(buf, RTU_SIZE, RTU_SEED, 0);

	/* up here when the REP came; a write and a flush need nothing more of the server */
	struct rpma_conn *conn = client_connect(peer, NULL, NULL);
	struct rpma_mr_remote *dst = server_desc_take(conn, NULL);
	struct rpma_cq *cq;
	CHECK_RET(rpma_conn_get_cq(conn, &cq));
	CHECK_RET(rpma_write(conn, dst, 0, src, 0, RTU_SIZE, RPMA_F_COMPLETION_ON_ERROR, NULL));
	CHECK_RET(rpma_flush(conn, dst, 0, RTU_SIZE, RPMA_FLUSH_TYPE_VISIBILITY,
			RPMA_F_COMPLETION_ALWAYS, (void *)0xf1));
	cq_expect(cq, OPCODE_ANY, (void *)0xf1, NULL);
	conn_close_active(&conn);

	CHECK_RET(rpma_mr_remote_delete(&dst));
	CHECK_RET(rpma_mr_dereg(&src));
	free(buf);
	CHECK_RET(rpma_peer_delete(&peer));
}
