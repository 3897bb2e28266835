// SPDX-License-Identifier: BSD-3-Clause
/*
 * data.c -- one-sided operations: private data, write + persistent flush
 * into device DAX, read, 16 MiB with many operations in flight, atomic
 * write, and the argument checks (out-of-range offsets, flush not possible).
 */

#include <stdarg.h>
#include <string.h>

#include "common.h"
#include "tests.h"

#define KIB ((size_t)1024)
#define MIB (1024 * KIB)

/* the private data each side sends, and how the other recognizes it */
#define PDATA_CLIENT_LEN 40
#define PDATA_SERVER_LEN 150
#define SEED_PDATA_CLIENT 11
#define SEED_PDATA_SERVER 12

/* at least len bytes of the pattern, then only zeros (rdma_cm pads) */
static void
check_pdata(const struct rpma_conn_private_data *pd, size_t len, uint32_t seed)
{
	CHECK(pd->ptr != NULL && pd->len >= len, "private data of %u bytes, expected >= %zu",
			pd->len, len);
	size_t bad = pattern_check(pd->ptr, len, seed, 0);
	CHECK(bad == SIZE_MAX, "private data differs at byte %zu", bad);
	for (size_t i = len; i < pd->len; i++)
		CHECK(((const char *)pd->ptr)[i] == 0, "private data padding byte %zu is not 0", i);
}

void
connect_pdata_server(void)
{
	struct rpma_peer *peer = peer_open();
	struct rpma_ep *ep = ep_open(peer);
	struct rpma_conn_req *req = ep_next_req(ep, NULL);
	struct rpma_conn_private_data pd;

	CHECK_RET(rpma_conn_req_get_private_data(req, &pd));
	check_pdata(&pd, PDATA_CLIENT_LEN, SEED_PDATA_CLIENT);

	char mine[PDATA_SERVER_LEN];
	pattern_fill(mine, sizeof(mine), SEED_PDATA_SERVER, 0);
	struct rpma_conn_private_data out = {mine, sizeof(mine)};
	struct rpma_conn *conn = server_accept(&req, &out);

	/* the connection keeps what the request got */
	CHECK_RET(rpma_conn_get_private_data(conn, &pd));
	check_pdata(&pd, PDATA_CLIENT_LEN, SEED_PDATA_CLIENT);
	note("got %u bytes of private data, the client's %d first", pd.len, PDATA_CLIENT_LEN);

	conn_close_passive(&conn);
	CHECK_RET(rpma_ep_shutdown(&ep));
	CHECK_RET(rpma_peer_delete(&peer));
}

void
connect_pdata_client(void)
{
	struct rpma_peer *peer = peer_open();
	char mine[PDATA_CLIENT_LEN];
	pattern_fill(mine, sizeof(mine), SEED_PDATA_CLIENT, 0);
	struct rpma_conn_private_data out = {mine, sizeof(mine)};
	struct rpma_conn *conn = client_connect(peer, NULL, &out);

	struct rpma_conn_private_data pd;
	CHECK_RET(rpma_conn_get_private_data(conn, &pd));
	check_pdata(&pd, PDATA_SERVER_LEN, SEED_PDATA_SERVER);
	note("got %u bytes of private data, the server's %d first", pd.len, PDATA_SERVER_LEN);

	conn_close_active(&conn);
	CHECK_RET(rpma_peer_delete(&peer));
}

/* write + persistent flush into device DAX */

#define WF_SIZE (1 * MIB)
#define WF_OFFSET (4 * KIB)
#define WF_CHUNK (64 * KIB)
#define WF_CHUNKS 4
#define WF_SEED 13

void
write_flush_server(void)
{
	struct rpma_peer *peer = peer_open();
	void *addr;
	struct pmem_map *pm = pmem_open(WF_SIZE, &addr);

	/* what an earlier run left must not pass for this run's data */
	memset(addr, 0, WF_SIZE);
	pmem_persist(pm, addr, WF_SIZE);

	struct rpma_mr_local *mr;
	CHECK_RET(rpma_mr_reg(peer, addr, WF_SIZE, RPMA_MR_USAGE_WRITE_DST |
			RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT, &mr));
	/* device DAX in this VM: the operator's statement the client relies on */
	struct rpma_peer_cfg *pcfg;
	CHECK_RET(rpma_peer_cfg_new(&pcfg));
	CHECK_RET(rpma_peer_cfg_set_direct_write_to_pmem(pcfg, true));

	struct rpma_ep *ep = ep_open(peer);
	struct rpma_conn_req *req = ep_next_req(ep, NULL);
	struct server_desc sd;
	struct rpma_conn_private_data pd;
	server_desc_make(&sd, mr, pcfg, &pd);
	struct rpma_conn *conn = server_accept(&req, &pd);

	/* the client disconnects only after its flush completed */
	conn_close_passive(&conn);
	const char *p = addr;
	size_t len = WF_CHUNK * WF_CHUNKS;
	size_t bad = pattern_check(p + WF_OFFSET, len, WF_SEED, 0);
	CHECK(bad == SIZE_MAX, "pmem differs from what the client wrote at byte %zu", bad);
	for (size_t i = 0; i < WF_SIZE; i++)
		CHECK(i - WF_OFFSET < len || p[i] == 0, "pmem byte %zu outside the write changed", i);
	note("%zu bytes written into %s and flushed are there", len, getenv("RPMA_TEST_PMEM"));

	CHECK_RET(rpma_ep_shutdown(&ep));
	CHECK_RET(rpma_peer_cfg_delete(&pcfg));
	CHECK_RET(rpma_mr_dereg(&mr));
	pmem_close(&pm);
	CHECK_RET(rpma_peer_delete(&peer));
}

void
write_flush_client(void)
{
	struct rpma_peer *peer = peer_open();
	struct rpma_conn *conn = client_connect(peer, NULL, NULL);
	struct rpma_peer_cfg *pcfg;
	struct rpma_mr_remote *dst = server_desc_take(conn, &pcfg);
	CHECK_RET(rpma_conn_apply_remote_peer_cfg(conn, pcfg));

	size_t len = WF_CHUNK * WF_CHUNKS;
	void *buf = buf_new(len);
	pattern_fill(buf, len, WF_SEED, 0);
	struct rpma_mr_local *src;
	CHECK_RET(rpma_mr_reg(peer, buf, len, RPMA_MR_USAGE_WRITE_SRC, &src));

	struct rpma_cq *cq;
	CHECK_RET(rpma_conn_get_cq(conn, &cq));
	/* the writes report only errors: the flush's completion covers them */
	for (size_t i = 0; i < WF_CHUNKS; i++)
		CHECK_RET(rpma_write(conn, dst, WF_OFFSET + i * WF_CHUNK, src, i * WF_CHUNK,
				WF_CHUNK, RPMA_F_COMPLETION_ON_ERROR, NULL));
	CHECK_RET(rpma_flush(conn, dst, WF_OFFSET, len, RPMA_FLUSH_TYPE_PERSISTENT,
			RPMA_F_COMPLETION_ALWAYS, (void *)0xf1));
	struct ibv_wc wc;
	cq_expect(cq, OPCODE_ANY, (void *)0xf1, &wc);
	cq_expect_empty(cq);
	note("persistent flush completed (%s)", wc_opcode_str(wc.opcode));

	conn_close_active(&conn);
	CHECK_RET(rpma_mr_dereg(&src));
	free(buf);
	CHECK_RET(rpma_mr_remote_delete(&dst));
	CHECK_RET(rpma_peer_cfg_delete(&pcfg));
	CHECK_RET(rpma_peer_delete(&peer));
}

/* a server that serves one region of size bytes and checks nothing but the close */

struct simple_server {
	struct rpma_peer *peer;
	struct rpma_ep *ep;
	struct rpma_conn *conn;
	struct rpma_mr_local *mr;
	void *buf;
};

static void
simple_server_open(struct simple_server *s, size_t size, int usage, uint32_t seed)
{
	s->peer = peer_open();
	s->buf = buf_new(size);
	if (seed)
		pattern_fill(s->buf, size, seed, 0);
	CHECK_RET(rpma_mr_reg(s->peer, s->buf, size, usage, &s->mr));
	s->ep = ep_open(s->peer);
	struct rpma_conn_req *req = ep_next_req(s->ep, NULL);
	struct server_desc sd;
	struct rpma_conn_private_data pd;
	server_desc_make(&sd, s->mr, NULL, &pd);
	s->conn = server_accept(&req, &pd);
}

static void
simple_server_close(struct simple_server *s)
{
	if (s->conn)
		conn_close_passive(&s->conn);
	CHECK_RET(rpma_ep_shutdown(&s->ep));
	CHECK_RET(rpma_mr_dereg(&s->mr));
	free(s->buf);
	CHECK_RET(rpma_peer_delete(&s->peer));
}

/* read of a server pattern */

#define RD_SIZE (256 * KIB)
#define RD_CHUNK (64 * KIB)
#define RD_SEED 21

void
read_server(void)
{
	struct simple_server s;
	simple_server_open(&s, RD_SIZE, RPMA_MR_USAGE_READ_SRC, RD_SEED);
	simple_server_close(&s);
}

/* what the library logged while read_dst_reg() listened, as one string */
static char read_dst_log[1024];

static void
read_dst_log_fn(enum rpma_log_level level, const char *file_name, const int line_no,
		const char *function_name, const char *message_format, ...)
{
	va_list ap;
	size_t used = strlen(read_dst_log);

	(void) level;
	(void) file_name;
	(void) line_no;
	(void) function_name;
	va_start(ap, message_format);
	(void) vsnprintf(read_dst_log + used, sizeof(read_dst_log) - used, message_format, ap);
	va_end(ap);
}

/*
 * Register the read's destination listening to the library's debug log:
 * on iWARP it gets the remote write right, as librpma 1.x gives it, and
 * says so (src/mr_access.c); elsewhere it does not. (On librpma 1.x the log is
 * its own: not looked at.)
 */
static struct rpma_mr_local *
read_dst_reg(struct rpma_peer *peer, void *buf, size_t size)
{
	struct rpma_mr_local *dst;
	enum rpma_log_level saved;

	if (on_1x()) {
		CHECK_RET(rpma_mr_reg(peer, buf, size, RPMA_MR_USAGE_READ_DST, &dst));
		return dst;
	}
	read_dst_log[0] = '\0';
	CHECK_RET(rpma_log_get_threshold(RPMA_LOG_THRESHOLD, &saved));
	CHECK_RET(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_LEVEL_DEBUG));
	CHECK_RET(rpma_log_set_function(read_dst_log_fn));
	int ret = rpma_mr_reg(peer, buf, size, RPMA_MR_USAGE_READ_DST, &dst);
	CHECK_RET(rpma_log_set_function(RPMA_LOG_USE_DEFAULT_FUNCTION));
	CHECK_RET(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, saved));
	CHECK_RET(ret);

	bool said = strstr(read_dst_log, "IBV_ACCESS_REMOTE_WRITE") != NULL;
	bool iwarp = test_iwarp();
	CHECK(said == iwarp, "the debug log %s the remote write right of a read's destination "
			"on %s", said ? "names" : "does not name", iwarp ? "iWARP" : "InfiniBand/RoCE");
	if (iwarp)
		note("iWARP: the read's destination registered with remote write, the debug "
				"log says");
	return dst;
}

void
read_client(void)
{
	struct rpma_peer *peer = peer_open();
	struct rpma_conn *conn = client_connect(peer, NULL, NULL);
	struct rpma_mr_remote *src = server_desc_take(conn, NULL);
	size_t size;
	CHECK_RET(rpma_mr_remote_get_size(src, &size));
	CHECK(size == RD_SIZE, "remote region of %zu bytes, expected %zu", size, RD_SIZE);

	void *buf = buf_new(RD_SIZE);
	struct rpma_mr_local *dst = read_dst_reg(peer, buf, RD_SIZE);
	struct rpma_cq *cq;
	CHECK_RET(rpma_conn_get_cq(conn, &cq));

	/* backwards, so a read landing in the wrong place shows */
	for (size_t i = RD_SIZE / RD_CHUNK; i-- > 0;)
		CHECK_RET(rpma_read(conn, dst, i * RD_CHUNK, src, i * RD_CHUNK, RD_CHUNK,
				RPMA_F_COMPLETION_ALWAYS, (void *)(i + 1)));
	for (size_t i = RD_SIZE / RD_CHUNK; i-- > 0;)
		cq_expect(cq, IBV_WC_RDMA_READ, (void *)(i + 1), NULL);
	size_t bad = pattern_check(buf, RD_SIZE, RD_SEED, 0);
	CHECK(bad == SIZE_MAX, "read data differs from the server's at byte %zu", bad);
	note("read %zu bytes of the server's pattern", RD_SIZE);

	conn_close_active(&conn);
	CHECK_RET(rpma_mr_dereg(&dst));
	free(buf);
	CHECK_RET(rpma_mr_remote_delete(&src));
	CHECK_RET(rpma_peer_delete(&peer));
}

/* 16 MiB (by default) with QD operations in flight, compared by checksum */

#define BULK_OP (64 * KIB)
#define BULK_QD 16
#define BULK_SEED 31

/*
 * RPMA_TEST_BULK_MIB: utils/fault-sweep moves less, since every operation
 * and poll of the loop is a point it fails in turn, and 16 MiB repeats the
 * same few states over two thousand points. At least 1 MiB: QD in flight.
 */
static size_t
bulk_size(void)
{
	return (size_t)env_number("RPMA_TEST_BULK_MIB", 16, 1, 1024) * MIB;
}

static struct rpma_conn_cfg *
bulk_cfg(void)
{
	struct rpma_conn_cfg *cfg;
	CHECK_RET(rpma_conn_cfg_new(&cfg));
	CHECK_RET(rpma_conn_cfg_set_sq_size(cfg, 2 * BULK_QD));
	CHECK_RET(rpma_conn_cfg_set_cq_size(cfg, 2 * BULK_QD));
	CHECK_RET(rpma_conn_cfg_set_rq_size(cfg, 2));
	return cfg;
}

void
bulk_server(void)
{
	struct rpma_peer *peer = peer_open();
	const size_t size = bulk_size();
	char *buf = buf_new(size);
	uint64_t msg[2] = {0, 0}; /* [0] received checksum, [1] the verdict sent */
	struct rpma_mr_local *mr, *msg_mr;
	CHECK_RET(rpma_mr_reg(peer, buf, size, RPMA_MR_USAGE_WRITE_DST |
			RPMA_MR_USAGE_READ_SRC | RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY, &mr));
	CHECK_RET(rpma_mr_reg(peer, msg, sizeof(msg), RPMA_MR_USAGE_RECV | RPMA_MR_USAGE_SEND,
			&msg_mr));

	struct rpma_conn_cfg *cfg = bulk_cfg();
	struct rpma_ep *ep = ep_open(peer);
	struct rpma_conn_req *req = ep_next_req(ep, cfg);
	CHECK_RET(rpma_conn_req_recv(req, msg_mr, 0, sizeof(msg[0]), (void *)0x1));
	struct server_desc sd;
	struct rpma_conn_private_data pd;
	server_desc_make(&sd, mr, NULL, &pd);
	struct rpma_conn *conn = server_accept(&req, &pd);
	struct rpma_cq *cq;
	CHECK_RET(rpma_conn_get_cq(conn, &cq));

	/* the client's checksum comes after its writes and flush */
	struct ibv_wc wc;
	cq_expect(cq, IBV_WC_RECV, (void *)0x1, &wc);
	CHECK(wc.byte_len == sizeof(msg[0]), "message of %u bytes", wc.byte_len);
	uint64_t sum = checksum(buf, size);
	CHECK(sum == msg[0], "checksum of %zu MiB here %#llx, the client's %#llx",
			size / MIB, (unsigned long long)sum, (unsigned long long)msg[0]);
	size_t bad = pattern_check(buf, size, BULK_SEED, 0);
	CHECK(bad == SIZE_MAX, "%zu MiB differ from the client's pattern at byte %zu",
			size / MIB, bad);
	note("%zu MiB arrived, checksum %#llx matches", size / MIB, (unsigned long long)sum);

	/* tell the client, which then reads everything back */
	msg[1] = sum;
	CHECK_RET(rpma_send(conn, msg_mr, sizeof(msg[0]), sizeof(msg[1]),
			RPMA_F_COMPLETION_ALWAYS, (void *)0x2));
	conn_close_passive_after_sends(&conn, cq, 1, (void *)0x2);
	CHECK_RET(rpma_ep_shutdown(&ep));
	CHECK_RET(rpma_conn_cfg_delete(&cfg));
	CHECK_RET(rpma_mr_dereg(&msg_mr));
	CHECK_RET(rpma_mr_dereg(&mr));
	free(buf);
	CHECK_RET(rpma_peer_delete(&peer));
}

/*
 * Move bulk_size() bytes in BULK_OP operations, at most BULK_QD in flight;
 * op_context is the operation's index + 1, and completions must come in order.
 */
static void
bulk_move(struct rpma_conn *conn, struct rpma_cq *cq, struct rpma_mr_local *local,
		struct rpma_mr_remote *remote, bool write)
{
	const size_t ops = bulk_size() / BULK_OP;
	size_t posted = 0, done = 0, max_inflight = 0;

	while (done < ops) {
		while (posted < ops && posted - done < BULK_QD) {
			size_t off = posted * BULK_OP;
			void *ctx = (void *)(posted + 1);
			if (write)
				CHECK_RET(rpma_write(conn, remote, off, local, off, BULK_OP,
						RPMA_F_COMPLETION_ALWAYS, ctx));
			else
				CHECK_RET(rpma_read(conn, local, off, remote, off, BULK_OP,
						RPMA_F_COMPLETION_ALWAYS, ctx));
			posted++;
		}
		if (posted - done > max_inflight)
			max_inflight = posted - done;
		cq_expect(cq, write ? IBV_WC_RDMA_WRITE : IBV_WC_RDMA_READ,
				(void *)(done + 1), NULL);
		done++;
	}
	CHECK(max_inflight == BULK_QD, "at most %zu operations were in flight", max_inflight);
}

/* the receive of the server's verdict, msg[1], posted before connecting */
static void
bulk_prep(struct rpma_conn_req *req, void *msg_mr)
{
	CHECK_RET(rpma_conn_req_recv(req, msg_mr, sizeof(uint64_t), sizeof(uint64_t),
			(void *)0x3));
}

void
bulk_client(void)
{
	struct rpma_peer *peer = peer_open();
	struct rpma_conn_cfg *cfg = bulk_cfg();
	uint64_t msg[2] = {0, 0}; /* [0] the checksum sent, [1] the server's verdict */
	struct rpma_mr_local *msg_mr;
	CHECK_RET(rpma_mr_reg(peer, msg, sizeof(msg), RPMA_MR_USAGE_RECV | RPMA_MR_USAGE_SEND,
			&msg_mr));
	struct rpma_conn *conn = client_connect_prep(peer, cfg, NULL, bulk_prep, msg_mr);
	struct rpma_mr_remote *remote = server_desc_take(conn, NULL);
	struct rpma_cq *cq;
	CHECK_RET(rpma_conn_get_cq(conn, &cq));

	const size_t size = bulk_size();
	char *buf = buf_new(size);
	pattern_fill(buf, size, BULK_SEED, 0);
	uint64_t sum = checksum(buf, size);
	struct rpma_mr_local *local;
	CHECK_RET(rpma_mr_reg(peer, buf, size, RPMA_MR_USAGE_WRITE_SRC |
			RPMA_MR_USAGE_READ_DST, &local));

	bulk_move(conn, cq, local, remote, true);
	CHECK_RET(rpma_flush(conn, remote, 0, size, RPMA_FLUSH_TYPE_VISIBILITY,
			RPMA_F_COMPLETION_ALWAYS, (void *)0xf1));
	cq_expect(cq, OPCODE_ANY, (void *)0xf1, NULL);
	msg[0] = sum;
	CHECK_RET(rpma_send(conn, msg_mr, 0, sizeof(msg[0]), RPMA_F_COMPLETION_ALWAYS,
			(void *)0x4));
	struct ibv_wc wc;
	expect_send_and_recv(cq, (void *)0x4, (void *)0x3, &wc);
	CHECK(wc.byte_len == sizeof(msg[1]) && msg[1] == sum,
			"the server's verdict %#llx, expected %#llx", (unsigned long long)msg[1],
			(unsigned long long)sum);

	/* and back: a different local buffer content proves the reads moved it */
	memset(buf, 0, size);
	bulk_move(conn, cq, local, remote, false);
	uint64_t back = checksum(buf, size);
	CHECK(back == sum, "checksum of the %zu MiB read back %#llx, written %#llx",
			size / MIB, (unsigned long long)back, (unsigned long long)sum);
	note("%zu MiB written and read back with %d in flight, checksum %#llx",
			size / MIB, BULK_QD, (unsigned long long)sum);

	conn_close_active(&conn);
	CHECK_RET(rpma_mr_dereg(&local));
	free(buf);
	CHECK_RET(rpma_mr_dereg(&msg_mr));
	CHECK_RET(rpma_mr_remote_delete(&remote));
	CHECK_RET(rpma_conn_cfg_delete(&cfg));
	CHECK_RET(rpma_peer_delete(&peer));
}

/* atomic write: native or emulated, the 8 bytes must land */

#define AW_SIZE (4 * KIB)
#define AW_OFFSET 64
static const char aw_value[8] = {'A', 't', 'o', 'm', 'i', 'c', '!', 0x7f};

void
atomic_write_server(void)
{
	struct simple_server s;
	simple_server_open(&s, AW_SIZE, RPMA_MR_USAGE_WRITE_DST | RPMA_MR_USAGE_READ_SRC |
			RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY, 0);
	conn_close_passive(&s.conn);
	const char *p = s.buf;
	CHECK(memcmp(p + AW_OFFSET, aw_value, 8) == 0, "the atomic write's 8 bytes are not here");
	for (size_t i = 0; i < AW_SIZE; i++)
		CHECK(i - AW_OFFSET < 8 || p[i] == 0, "byte %zu outside the atomic write changed", i);
	note("the 8 bytes of the atomic write landed, nothing else changed");
	simple_server_close(&s);
}

void
atomic_write_client(void)
{
	struct rpma_peer *peer = peer_open();
	struct rpma_conn *conn = client_connect(peer, NULL, NULL);
	struct rpma_mr_remote *dst = server_desc_take(conn, NULL);
	struct rpma_cq *cq;
	CHECK_RET(rpma_conn_get_cq(conn, &cq));

	/*
	 * Only aligned, in-range 8 bytes. librpma 1.x checks the alignment
	 * alone: it posts an out-of-range one, which fails on the peer's NIC
	 * and breaks the connection (doc/COMPATIBILITY.md).
	 */
	CHECK_EQ_RET(rpma_atomic_write(conn, dst, AW_OFFSET + 4, aw_value,
			RPMA_F_COMPLETION_ALWAYS, NULL), RPMA_E_INVAL);
	if (!on_1x())
		CHECK_EQ_RET(rpma_atomic_write(conn, dst, AW_SIZE, aw_value,
				RPMA_F_COMPLETION_ALWAYS, NULL), RPMA_E_INVAL);

	CHECK_RET(rpma_atomic_write(conn, dst, AW_OFFSET, aw_value, RPMA_F_COMPLETION_ALWAYS,
			(void *)0xa7));
	struct ibv_wc wc;
	cq_expect(cq, OPCODE_ANY, (void *)0xa7, &wc);
	CHECK(wc.opcode == IBV_WC_ATOMIC_WRITE || wc.opcode == IBV_WC_RDMA_WRITE,
			"atomic write completed as %s (%d)", wc_opcode_str(wc.opcode), wc.opcode);
	/* librpma 1.x posts it natively by its version and build */
	if (!on_1x()) {
		bool native = lib_native_atomic_write();
		CHECK(wc.opcode == (native ? IBV_WC_ATOMIC_WRITE : IBV_WC_RDMA_WRITE),
				"atomic write completed as %s", wc_opcode_str(wc.opcode));
	}
	note("atomic write completion opcode: %s (%s)", wc_opcode_str(wc.opcode),
			wc.opcode == IBV_WC_ATOMIC_WRITE ? "native" : "fallback");

	/* read back around it: the 8 bytes and their untouched neighbours */
	char *back = buf_new(24);
	struct rpma_mr_local *back_mr;
	CHECK_RET(rpma_mr_reg(peer, back, 24, RPMA_MR_USAGE_READ_DST, &back_mr));
	CHECK_RET(rpma_read(conn, back_mr, 0, dst, AW_OFFSET - 8, 24, RPMA_F_COMPLETION_ALWAYS,
			(void *)0xa8));
	cq_expect(cq, IBV_WC_RDMA_READ, (void *)0xa8, NULL);
	static const char zeros[8];
	CHECK(memcmp(back, zeros, 8) == 0 && memcmp(back + 8, aw_value, 8) == 0 &&
			memcmp(back + 16, zeros, 8) == 0, "read back: the atomic write did not land");

	conn_close_active(&conn);
	CHECK_RET(rpma_mr_dereg(&back_mr));
	free(back);
	CHECK_RET(rpma_mr_remote_delete(&dst));
	CHECK_RET(rpma_peer_delete(&peer));
}

/* out-of-range offsets and a persistent flush the peer cannot take */

#define INV_SIZE (4 * KIB)
#define INV_SEED 41

void
inval_offsets_server(void)
{
	struct simple_server s;
	simple_server_open(&s, INV_SIZE, RPMA_MR_USAGE_WRITE_DST | RPMA_MR_USAGE_READ_SRC |
			RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY | RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT, 0);
	conn_close_passive(&s.conn);
	/* the one valid write after all the refused ones */
	const char *p = s.buf;
	size_t bad = pattern_check(p + INV_SIZE - 8, 8, INV_SEED, 0);
	CHECK(bad == SIZE_MAX, "the last 8 bytes are not what the client wrote");
	for (size_t i = 0; i < INV_SIZE - 8; i++)
		CHECK(p[i] == 0, "byte %zu changed: a refused operation went through", i);
	simple_server_close(&s);
}

/* the last 8 bytes of the remote region, written and flushed to visibility */
static void
write_last8(struct rpma_conn *conn, struct rpma_cq *cq, struct rpma_mr_remote *dst,
		struct rpma_mr_local *src)
{
	CHECK_RET(rpma_write(conn, dst, INV_SIZE - 8, src, INV_SIZE - 8, 8,
			RPMA_F_COMPLETION_ALWAYS, (void *)0x1));
	cq_expect(cq, IBV_WC_RDMA_WRITE, (void *)0x1, NULL);
	CHECK_RET(rpma_flush(conn, dst, INV_SIZE - 8, 8, RPMA_FLUSH_TYPE_VISIBILITY,
			RPMA_F_COMPLETION_ALWAYS, (void *)0x2));
	cq_expect(cq, OPCODE_ANY, (void *)0x2, NULL);
	cq_expect_empty(cq);
}

void
inval_offsets_client(void)
{
	struct rpma_peer *peer = peer_open();
	struct rpma_conn *conn = client_connect(peer, NULL, NULL);
	struct rpma_mr_remote *dst = server_desc_take(conn, NULL);
	struct rpma_cq *cq;
	CHECK_RET(rpma_conn_get_cq(conn, &cq));
	char *buf = buf_new(INV_SIZE);
	pattern_fill(buf + INV_SIZE - 8, 8, INV_SEED, 0);
	struct rpma_mr_local *src;
	CHECK_RET(rpma_mr_reg(peer, buf, INV_SIZE, RPMA_MR_USAGE_WRITE_SRC |
			RPMA_MR_USAGE_READ_DST | RPMA_MR_USAGE_SEND | RPMA_MR_USAGE_RECV, &src));
	const int F = RPMA_F_COMPLETION_ALWAYS;
	const size_t S = INV_SIZE;

	/* the remote side out of range: past the end, straddling it, wrapping around */
	CHECK_EQ_RET(rpma_write(conn, dst, S, src, 0, 1, F, NULL), RPMA_E_INVAL);
	CHECK_EQ_RET(rpma_write(conn, dst, S - 100, src, 0, 200, F, NULL), RPMA_E_INVAL);
	CHECK_EQ_RET(rpma_write(conn, dst, SIZE_MAX - 1, src, 0, 8, F, NULL), RPMA_E_INVAL);
	CHECK_EQ_RET(rpma_write_with_imm(conn, dst, S - 4, src, 0, 8, F, 7, NULL), RPMA_E_INVAL);
	CHECK_EQ_RET(rpma_read(conn, src, 0, dst, S, 1, F, NULL), RPMA_E_INVAL);
	CHECK_EQ_RET(rpma_read(conn, src, 0, dst, S - 100, 200, F, NULL), RPMA_E_INVAL);
	CHECK_EQ_RET(rpma_flush(conn, dst, S, 1, RPMA_FLUSH_TYPE_VISIBILITY, F, NULL),
			RPMA_E_INVAL);
	CHECK_EQ_RET(rpma_flush(conn, dst, 0, 2 * S, RPMA_FLUSH_TYPE_VISIBILITY, F, NULL),
			RPMA_E_INVAL);
	CHECK_EQ_RET(rpma_atomic_write(conn, dst, S, buf, F, NULL), RPMA_E_INVAL);
	/* the local side out of range */
	CHECK_EQ_RET(rpma_write(conn, dst, 0, src, S, 1, F, NULL), RPMA_E_INVAL);
	CHECK_EQ_RET(rpma_write(conn, dst, 0, src, S - 100, 200, F, NULL), RPMA_E_INVAL);
	CHECK_EQ_RET(rpma_read(conn, src, S - 4, dst, 0, 8, F, NULL), RPMA_E_INVAL);
	CHECK_EQ_RET(rpma_send(conn, src, S - 100, 200, F, NULL), RPMA_E_INVAL);
	CHECK_EQ_RET(rpma_send_with_imm(conn, src, S, 1, F, 7, NULL), RPMA_E_INVAL);
	CHECK_EQ_RET(rpma_recv(conn, src, S - 100, 200, NULL), RPMA_E_INVAL);
	CHECK_EQ_RET(rpma_recv(conn, src, SIZE_MAX, 2, NULL), RPMA_E_INVAL);
	/* nothing was posted, and the connection still works */
	cq_expect_empty(cq);
	write_last8(conn, cq, dst, src);
	note("17 out-of-range operations refused with RPMA_E_INVAL, the connection works");

	conn_close_active(&conn);
	CHECK_RET(rpma_mr_dereg(&src));
	free(buf);
	CHECK_RET(rpma_mr_remote_delete(&dst));
	CHECK_RET(rpma_peer_delete(&peer));
}

void
flush_nosupp_server(void)
{
	inval_offsets_server();
}

void
flush_nosupp_client(void)
{
	struct rpma_peer *peer = peer_open();
	struct rpma_conn *conn = client_connect(peer, NULL, NULL);
	struct rpma_mr_remote *dst = server_desc_take(conn, NULL);
	struct rpma_cq *cq;
	CHECK_RET(rpma_conn_get_cq(conn, &cq));
	char *buf = buf_new(INV_SIZE);
	pattern_fill(buf + INV_SIZE - 8, 8, INV_SEED, 0);
	struct rpma_mr_local *src;
	CHECK_RET(rpma_mr_reg(peer, buf, INV_SIZE, RPMA_MR_USAGE_WRITE_SRC, &src));

	int flush_type;
	CHECK_RET(rpma_mr_remote_get_flush_type(dst, &flush_type));
	CHECK(flush_type & RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT,
			"the server's region does not allow a persistent flush");

	/* no peer configuration applied: the peer did not declare direct write to PMem */
	CHECK_EQ_RET(rpma_flush(conn, dst, 0, 8, RPMA_FLUSH_TYPE_PERSISTENT,
			RPMA_F_COMPLETION_ALWAYS, NULL), RPMA_E_NOSUPP);
	/* nor after a configuration that says it cannot */
	struct rpma_peer_cfg *pcfg;
	CHECK_RET(rpma_peer_cfg_new(&pcfg));
	CHECK_RET(rpma_peer_cfg_set_direct_write_to_pmem(pcfg, false));
	CHECK_RET(rpma_conn_apply_remote_peer_cfg(conn, pcfg));
	CHECK_EQ_RET(rpma_flush(conn, dst, 0, 8, RPMA_FLUSH_TYPE_PERSISTENT,
			RPMA_F_COMPLETION_ALWAYS, NULL), RPMA_E_NOSUPP);
	cq_expect_empty(cq);
	/* a flush to visibility still works */
	write_last8(conn, cq, dst, src);
	note("persistent flush refused with RPMA_E_NOSUPP, visibility flush works");

	conn_close_active(&conn);
	CHECK_RET(rpma_peer_cfg_delete(&pcfg));
	CHECK_RET(rpma_mr_dereg(&src));
	free(buf);
	CHECK_RET(rpma_mr_remote_delete(&dst));
	CHECK_RET(rpma_peer_delete(&peer));
}
