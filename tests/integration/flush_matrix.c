// SPDX-License-Identifier: BSD-3-Clause
/*
 * flush_matrix.c -- what rpma_flush() does for every region a server may
 * offer: each kind of memory (RPMA_TEST_MEMORY, a comma-separated list of
 * devdax, dram, shm and file, the same on both sides), a region for each
 * of the eight usages (the write right with or without each flush type and
 * RPMA_MR_USAGE_READ_SRC), direct write to PMem declared or not, both flush
 * types. The client writes a piece into each cell, flushes it and records
 * what came of it; the server checks every piece. The runner runs it with
 * each side on a library of its choice (LD_LIBRARY_PATH) and compares the
 * rows the client prints ("row CAPS KIND CELLS...") with
 * doc/COMPATIBILITY.md's table (tests/py/test_integration.py).
 *
 * A cell's outcome, one letter:
 *   F  completed as a native FLUSH (IBV_WC_FLUSH), the piece on the server
 *   R  completed as a read after the write (IBV_WC_RDMA_READ), likewise
 *   N  rpma_flush() returned RPMA_E_NOSUPP
 *   E  rpma_flush() returned another error
 *   X  an error completion: the connection is lost (a new one is made)
 *   -  the server's rpma_mr_reg() refused the region
 *   D  completed, but the piece is not on the server
 * The row holds 8 groups of 4 letters, a group per usage (fm_usage[]), in
 * each: visibility and persistent without direct write to PMem, then with.
 */

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "common.h"
#include "tests.h"

#define W RPMA_MR_USAGE_WRITE_DST
#define V RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY
#define P RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT
#define RD RPMA_MR_USAGE_READ_SRC

static const int fm_usage[] = {W, W | V, W | P, W | V | P, W | RD, W | RD | V, W | RD | P,
		W | RD | V | P};
#define FM_USAGES 8
#define FM_CELLS (FM_USAGES * 4)

#define FM_PIECE 4096			/* a cell's piece of its region */
#define FM_REGION (4 * FM_PIECE)	/* a region: the four cells of its usage */
#define FM_SIZE (FM_USAGES * FM_REGION)
#define FM_DESC 21			/* a region's descriptor, as librpma 1.x's */
#define FM_SEED 0x5eed

#define FM_MAGIC 0xf7
enum fm_op { FM_CELLS_OP = 1, FM_VERIFY_OP = 2 };

/* the kinds of memory, at most */
#define FM_KINDS 4

/* the client's private data: what this connection is for */
struct fm_ask {
	uint8_t magic;
	uint8_t op;
	uint8_t direct_write;
	uint8_t kind;		/* which of RPMA_TEST_MEMORY's kinds */
};

/* the server's private data: its peer configuration, its regions, what it found */
struct fm_offer {
	uint8_t magic;
	uint8_t regs_ok;	/* bit u: the region of fm_usage[u] is registered */
	uint8_t mr_len;
	uint8_t pcfg_len;
	uint32_t present;	/* bit c: cell c's piece is there (a verify connection) */
	char pcfg[4];
	char mr[FM_USAGES][FM_DESC];
};
_Static_assert(sizeof(struct fm_offer) <= 196, "the private data an accept may carry");

static size_t
cell_offset(int cell)
{
	return (size_t)(cell / 4) * FM_REGION + (size_t)(cell % 4) * FM_PIECE;
}

static int
cell_of(int usage, int direct_write, enum rpma_flush_type type)
{
	return usage * 4 + direct_write * 2 + (type == RPMA_FLUSH_TYPE_PERSISTENT);
}

/* the server's memory of one kind, and its regions */
struct fm_memory {
	char kind[16];
	char *addr;
	struct pmem_map *pm;	/* devdax */
	int fd;			/* shm, file */
	char path[256];
	struct rpma_mr_local *mr[FM_USAGES];	/* NULL: refused */
};

/* RPMA_TEST_MEMORY's kinds into kinds[], their number */
static int
kinds_of_env(char kinds[FM_KINDS][16])
{
	const char *list = env_or("RPMA_TEST_MEMORY", "devdax,dram,shm,file");
	int n = 0;

	for (const char *p = list; *p != '\0'; n++) {
		size_t len = strcspn(p, ",");
		CHECK(n < FM_KINDS && len > 0 && len < 16, "RPMA_TEST_MEMORY=%s: expected up to "
				"%d of devdax, dram, shm and file, comma-separated", list, FM_KINDS);
		memcpy(kinds[n], p, len);
		kinds[n][len] = '\0';
		p += len + (p[len] == ',');
	}
	CHECK(n > 0, "RPMA_TEST_MEMORY is empty");
	return n;
}

/* a MAP_SHARED mapping of a new file in dir */
static void
memory_map_file(struct fm_memory *m, const char *dir)
{
	snprintf(m->path, sizeof(m->path), "%s/rpma-flush-matrix.XXXXXX", dir);
	m->fd = mkstemp(m->path);
	CHECK(m->fd >= 0, "mkstemp(%s): %s", m->path, strerror(errno));
	CHECK(ftruncate(m->fd, FM_SIZE) == 0, "ftruncate(%s): %s", m->path, strerror(errno));
	m->addr = mmap(NULL, FM_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, m->fd, 0);
	CHECK(m->addr != MAP_FAILED, "mmap(%s): %s", m->path, strerror(errno));
}

static void
memory_open(struct fm_memory *m)
{
	m->pm = NULL;
	m->fd = -1;
	if (strcmp(m->kind, "devdax") == 0) {
		m->pm = pmem_open(FM_SIZE, (void **)&m->addr);
		memset(m->addr, 0, FM_SIZE);
		pmem_persist(m->pm, m->addr, FM_SIZE);
	} else if (strcmp(m->kind, "dram") == 0) {
		m->addr = buf_new(FM_SIZE);
	} else if (strcmp(m->kind, "shm") == 0) {
		memory_map_file(m, "/dev/shm");
	} else if (strcmp(m->kind, "file") == 0) {
		/* an ordinary file system: the VM's /var/tmp is the host's, over 9p */
		memory_map_file(m, env_or("RPMA_TEST_FS_DIR", "/var/tmp"));
	} else {
		CHECK(0, "RPMA_TEST_MEMORY=%s: expected devdax, dram, shm or file", m->kind);
	}
}

static void
memory_close(struct fm_memory *m)
{
	if (m->pm != NULL) {
		pmem_close(&m->pm);
	} else if (m->fd >= 0) {
		CHECK(munmap(m->addr, FM_SIZE) == 0, "munmap(): %s", strerror(errno));
		CHECK(close(m->fd) == 0 && unlink(m->path) == 0, "%s: %s", m->path,
				strerror(errno));
	} else {
		free(m->addr);
	}
}

/* which cells hold the piece the client writes into them */
static uint32_t
cells_present(const char *mem)
{
	uint32_t present = 0;

	for (int c = 0; c < FM_CELLS; c++)
		if (pattern_check(mem + cell_offset(c), FM_PIECE, FM_SEED + (uint32_t)c, 0) ==
				SIZE_MAX)
			present |= 1u << c;
	return present;
}

/* register the eight regions in m; a refusal is a cell's outcome, not a failure */
static void
memory_register(struct rpma_peer *peer, struct fm_memory *m)
{
	for (int u = 0; u < FM_USAGES; u++) {
		int ret = rpma_mr_reg(peer, m->addr + (size_t)u * FM_REGION, FM_REGION,
				fm_usage[u], &m->mr[u]);
		if (ret) {
			note("%s: usage 0x%x refused: %s", m->kind, (unsigned)fm_usage[u],
					rpma_err_2str(ret));
			m->mr[u] = NULL;
		}
	}
}

static void
memory_deregister(struct fm_memory *m)
{
	for (int u = 0; u < FM_USAGES; u++)
		if (m->mr[u] != NULL)
			CHECK_RET(rpma_mr_dereg(&m->mr[u]));
}

/* the offer of one connection: the regions and a peer configuration as asked */
static void
offer_make(struct fm_offer *o, struct rpma_mr_local *mr[], const struct fm_ask *ask)
{
	struct rpma_peer_cfg *pcfg;
	size_t len;

	memset(o, 0, sizeof(*o));
	o->magic = FM_MAGIC;
	for (int u = 0; u < FM_USAGES; u++) {
		if (mr[u] == NULL)
			continue;
		CHECK_RET(rpma_mr_get_descriptor_size(mr[u], &len));
		CHECK(len <= FM_DESC, "a region descriptor of %zu bytes", len);
		CHECK_RET(rpma_mr_get_descriptor(mr[u], o->mr[u]));
		o->mr_len = (uint8_t)len;
		o->regs_ok |= (uint8_t)(1u << u);
	}
	CHECK_RET(rpma_peer_cfg_new(&pcfg));
	CHECK_RET(rpma_peer_cfg_set_direct_write_to_pmem(pcfg, ask->direct_write != 0));
	CHECK_RET(rpma_peer_cfg_get_descriptor_size(pcfg, &len));
	CHECK(len <= sizeof(o->pcfg), "a peer configuration descriptor of %zu bytes", len);
	CHECK_RET(rpma_peer_cfg_get_descriptor(pcfg, o->pcfg));
	o->pcfg_len = (uint8_t)len;
	CHECK_RET(rpma_peer_cfg_delete(&pcfg));
}

/* what a connection request asks for, of kinds kinds of memory */
static struct fm_ask
ask_of(const struct rpma_conn_req *req, int kinds)
{
	struct rpma_conn_private_data pd;
	struct fm_ask ask;

	CHECK_RET(rpma_conn_req_get_private_data(req, &pd));
	CHECK(pd.ptr != NULL && pd.len >= sizeof(ask), "a request with %u bytes of private data",
			pd.len);
	memcpy(&ask, pd.ptr, sizeof(ask));
	CHECK(ask.magic == FM_MAGIC && (ask.op == FM_CELLS_OP || ask.op == FM_VERIFY_OP) &&
			ask.kind < kinds, "a request the client did not make");
	return ask;
}

void
flush_matrix_server(void)
{
	char kinds[FM_KINDS][16];
	int n = kinds_of_env(kinds);
	struct fm_memory m[FM_KINDS];
	struct rpma_peer *peer = peer_open();

	for (int k = 0; k < n; k++) {
		memcpy(m[k].kind, kinds[k], sizeof(m[k].kind));
		memory_open(&m[k]);
		memory_register(peer, &m[k]);
	}

	/* until every kind is verified, which the client asks for last */
	struct rpma_ep *ep = ep_open(peer);
	int conns = 0;
	for (int verified = 0; verified < n; conns++) {
		struct rpma_conn_req *req = ep_next_req(ep, NULL);
		struct fm_ask ask = ask_of(req, n);
		struct fm_memory *mem = &m[ask.kind];
		struct fm_offer offer;
		offer_make(&offer, mem->mr, &ask);
		if (ask.op == FM_VERIFY_OP) {
			offer.present = cells_present(mem->addr);
			verified++;
		}
		struct rpma_conn_private_data pd = {&offer, sizeof(offer)};
		struct rpma_conn *conn = server_accept(&req, &pd);
		conn_close_passive(&conn);
	}
	note("%d connections served", conns);

	CHECK_RET(rpma_ep_shutdown(&ep));
	for (int k = 0; k < n; k++) {
		memory_deregister(&m[k]);
		memory_close(&m[k]);
	}
	CHECK_RET(rpma_peer_delete(&peer));
}

/* the client's end of one connection */
struct fm_conn {
	struct rpma_conn *conn;
	struct rpma_cq *cq;
	struct fm_offer offer;
	struct rpma_mr_remote *dst[FM_USAGES];
	struct rpma_peer_cfg *pcfg;
};

static void
fm_connect(struct rpma_peer *peer, enum fm_op op, int kind, int direct_write,
		struct fm_conn *c)
{
	struct fm_ask ask = {FM_MAGIC, (uint8_t)op, (uint8_t)direct_write, (uint8_t)kind};
	struct rpma_conn_private_data pd = {&ask, sizeof(ask)};
	c->conn = client_connect(peer, NULL, &pd);
	CHECK_RET(rpma_conn_get_cq(c->conn, &c->cq));

	CHECK_RET(rpma_conn_get_private_data(c->conn, &pd));
	CHECK(pd.ptr != NULL && pd.len >= sizeof(c->offer), "private data of %u bytes", pd.len);
	memcpy(&c->offer, pd.ptr, sizeof(c->offer));
	CHECK(c->offer.magic == FM_MAGIC && c->offer.mr_len <= FM_DESC &&
			c->offer.pcfg_len <= sizeof(c->offer.pcfg), "malformed offer");
	for (int u = 0; u < FM_USAGES; u++) {
		c->dst[u] = NULL;
		if (c->offer.regs_ok & (1u << u))
			CHECK_RET(rpma_mr_remote_from_descriptor(c->offer.mr[u], c->offer.mr_len,
					&c->dst[u]));
	}
	CHECK_RET(rpma_peer_cfg_from_descriptor(c->offer.pcfg, c->offer.pcfg_len, &c->pcfg));
	CHECK_RET(rpma_conn_apply_remote_peer_cfg(c->conn, c->pcfg));
}

/* close a connection whose QP may be in the error state: take what comes back */
static void
fm_close(struct fm_conn *c)
{
	struct ibv_wc wc;

	CHECK_RET(rpma_conn_disconnect(c->conn));
	while (cq_next_wc(c->cq, 0, &wc))
		;
	enum rpma_conn_event ev = conn_next_event_within(c->conn, WAIT_MS);
	CHECK(ev == RPMA_CONN_CLOSED || ev == RPMA_CONN_LOST, "connection event %s on close",
			rpma_utils_conn_event_2str(ev));
	CHECK_RET(rpma_conn_delete(&c->conn));
	for (int u = 0; u < FM_USAGES; u++)
		CHECK_RET(rpma_mr_remote_delete(&c->dst[u]));
	CHECK_RET(rpma_peer_cfg_delete(&c->pcfg));
}

/* the next completion, which must come within the wait */
static void
fm_wc(struct fm_conn *c, struct ibv_wc *wc)
{
	CHECK(cq_next_wc(c->cq, WAIT_MS, wc), "no completion in %d ms", WAIT_MS);
}

/* write a cell's piece and flush it: the cell's letter */
static char
fm_cell(struct fm_conn *c, struct rpma_mr_local *src, char *buf, int usage, int dw,
		enum rpma_flush_type type)
{
	int cell = cell_of(usage, dw, type);
	size_t off = cell_offset(cell) % FM_REGION;
	struct rpma_mr_remote *dst = c->dst[usage];
	struct ibv_wc wc;

	pattern_fill(buf, FM_PIECE, FM_SEED + (uint32_t)cell, 0);
	CHECK_RET(rpma_write(c->conn, dst, off, src, 0, FM_PIECE, RPMA_F_COMPLETION_ALWAYS,
			(void *)1));
	int ret = rpma_flush(c->conn, dst, off, FM_PIECE, type, RPMA_F_COMPLETION_ALWAYS,
			(void *)2);
	fm_wc(c, &wc);
	CHECK(wc.wr_id == 1 && wc.status == IBV_WC_SUCCESS, "cell %d: the write ended %s",
			cell, ibv_wc_status_str(wc.status));
	if (ret) {
		note("cell %d: rpma_flush() returned %s", cell, rpma_err_2str(ret));
		return ret == RPMA_E_NOSUPP ? 'N' : 'E';
	}
	fm_wc(c, &wc);
	CHECK(wc.wr_id == 2, "cell %d: a completion of another request", cell);
	if (wc.status != IBV_WC_SUCCESS) {
		note("cell %d: the flush ended %s", cell, ibv_wc_status_str(wc.status));
		return 'X';
	}
	if (wc.opcode == WC_FLUSH)
		return 'F';
	CHECK(wc.opcode == IBV_WC_RDMA_READ, "cell %d: a flush completed as %s", cell,
			wc_opcode_str(wc.opcode));
	return 'R';
}

/* every cell of one declaration of direct write to PMem, a new connection after an X */
static void
fm_cells(struct rpma_peer *peer, int kind, int dw, struct rpma_mr_local *src, char *buf,
		char cells[FM_CELLS])
{
	static const enum rpma_flush_type types[] = {RPMA_FLUSH_TYPE_VISIBILITY,
			RPMA_FLUSH_TYPE_PERSISTENT};
	struct fm_conn c;
	bool open = false;

	for (int u = 0; u < FM_USAGES; u++) {
		for (int t = 0; t < 2; t++) {
			if (!open)
				fm_connect(peer, FM_CELLS_OP, kind, dw, &c);
			open = true;
			char *cell = &cells[cell_of(u, dw, types[t])];
			*cell = c.dst[u] == NULL ? '-' : fm_cell(&c, src, buf, u, dw, types[t]);
			if (*cell == 'X') {
				fm_close(&c);
				open = false;
			}
		}
	}
	if (open)
		fm_close(&c);
}

/* whether the device serves FLUSH of both placements, as the client sees it */
static bool
device_flush(void)
{
	struct ibv_device_attr_ex attr;
	test_device_attr(&attr);
	return (attr.device_cap_flags_ex & CAP_FLUSH) == CAP_FLUSH;
}

/* "row CAPS KIND CELLS...": the device's FLUSH, the kind of memory, the outcomes */
static void
row_write(bool flush, const char *kind, const char cells[FM_CELLS])
{
	char row[FM_USAGES * 5 + 1];

	for (int u = 0; u < FM_USAGES; u++)
		snprintf(row + u * 5, 6, " %.4s", cells + u * 4);
	note("row %s %s%s", flush ? "flush" : "noflush", kind, row);
}

/* every cell of one kind of memory, then the server's check of them */
static void
fm_kind(struct rpma_peer *peer, int kind, struct rpma_mr_local *src, char *buf,
		char cells[FM_CELLS])
{
	for (int dw = 0; dw < 2; dw++)
		fm_cells(peer, kind, dw, src, buf, cells);

	struct fm_conn c;
	fm_connect(peer, FM_VERIFY_OP, kind, 0, &c);
	for (int cell = 0; cell < FM_CELLS; cell++) {
		bool done = cells[cell] == 'F' || cells[cell] == 'R';
		if (done && !(c.offer.present & (1u << cell)))
			cells[cell] = 'D';
	}
	fm_close(&c);
}

void
flush_matrix_client(void)
{
	char kinds[FM_KINDS][16];
	int n = kinds_of_env(kinds);
	struct rpma_peer *peer = peer_open();
	char *buf = buf_new(FM_PIECE);
	struct rpma_mr_local *src;
	CHECK_RET(rpma_mr_reg(peer, buf, FM_PIECE, RPMA_MR_USAGE_WRITE_SRC, &src));

	bool flush = device_flush();
	for (int k = 0; k < n; k++) {
		char cells[FM_CELLS];
		fm_kind(peer, k, src, buf, cells);
		row_write(flush, kinds[k], cells);
	}

	CHECK_RET(rpma_mr_dereg(&src));
	free(buf);
	CHECK_RET(rpma_peer_delete(&peer));
}
