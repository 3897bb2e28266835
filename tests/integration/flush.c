// SPDX-License-Identifier: BSD-3-Clause
/*
 * flush.c -- how rpma_flush() reaches the server's memory: a native FLUSH
 * (completion IBV_WC_FLUSH) where the build and the device have it, a read
 * after the writes (IBV_WC_RDMA_READ) otherwise and for a region the
 * client may read, for both flush types, on device DAX and on DRAM; the
 * server checks every byte. With run-pair's --server-env/--client-env the
 * same test runs each side on another library (librpma 1.x, a build
 * without native FLUSH): RPMA_TEST_FLUSH on the client, or RPMA_TEST_1X,
 * says what to expect.
 */

#include <string.h>

#include <infiniband/verbs.h>

#include "common.h"
#include "tests.h"

#define FT_SIZE (64 * 1024)
#define FT_PIECE (16 * 1024)
#define FT_SEED 31

/* the regions the server offers, in the order of its descriptors */
enum ft_region {
	FT_PMEM,	/* device DAX: both flush types */
	FT_DRAM,	/* DRAM: visibility */
	FT_READABLE,	/* DRAM the client may read: flushed by a read */
	FT_REGIONS
};

static const int ft_usage[FT_REGIONS] = {
	RPMA_MR_USAGE_WRITE_DST | RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT |
		RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY,
	RPMA_MR_USAGE_WRITE_DST | RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY,
	RPMA_MR_USAGE_WRITE_DST | RPMA_MR_USAGE_READ_SRC | RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY,
};

#define FT_DESC 32
/* where a region descriptor (librpma 1.x's layout) holds its usage */
#define DESC_USAGE 20

/* the server's private data: three region descriptors and its peer configuration */
struct ft_desc {
	uint8_t mr_len;
	uint8_t pcfg_len;
	char mr[FT_REGIONS][FT_DESC];
	char pcfg[8];
};

/* what each client piece is: region, offset, flush type */
struct ft_piece {
	enum ft_region region;
	size_t offset;
	enum rpma_flush_type type;
};

static const struct ft_piece ft_pieces[] = {
	{FT_PMEM, 0, RPMA_FLUSH_TYPE_PERSISTENT},
	{FT_PMEM, FT_PIECE, RPMA_FLUSH_TYPE_VISIBILITY},
	{FT_DRAM, FT_PIECE, RPMA_FLUSH_TYPE_VISIBILITY},
	{FT_READABLE, 2 * FT_PIECE, RPMA_FLUSH_TYPE_VISIBILITY},
};
#define FT_PIECES (sizeof(ft_pieces) / sizeof(ft_pieces[0]))

static uint32_t
piece_seed(size_t i)
{
	return FT_SEED + (uint32_t)i;
}

void
flush_types_server(void)
{
	struct rpma_peer *peer = peer_open();
	char *mem[FT_REGIONS];
	struct pmem_map *pm = pmem_open(FT_SIZE, (void **)&mem[FT_PMEM]);
	memset(mem[FT_PMEM], 0, FT_SIZE);
	pmem_persist(pm, mem[FT_PMEM], FT_SIZE);
	mem[FT_DRAM] = buf_new(FT_SIZE);
	mem[FT_READABLE] = buf_new(FT_SIZE);

	struct rpma_mr_local *mr[FT_REGIONS];
	struct ft_desc d;
	memset(&d, 0, sizeof(d));
	for (int r = 0; r < FT_REGIONS; r++) {
		size_t len;
		CHECK_RET(rpma_mr_reg(peer, mem[r], FT_SIZE, ft_usage[r], &mr[r]));
		CHECK_RET(rpma_mr_get_descriptor_size(mr[r], &len));
		CHECK(len <= FT_DESC, "MR descriptor of %zu bytes", len);
		CHECK_RET(rpma_mr_get_descriptor(mr[r], d.mr[r]));
		d.mr_len = (uint8_t)len;
	}
	/* device DAX: the operator's statement that makes a persistent flush possible */
	struct rpma_peer_cfg *pcfg;
	size_t len;
	CHECK_RET(rpma_peer_cfg_new(&pcfg));
	CHECK_RET(rpma_peer_cfg_set_direct_write_to_pmem(pcfg, true));
	CHECK_RET(rpma_peer_cfg_get_descriptor_size(pcfg, &len));
	CHECK(len <= sizeof(d.pcfg), "peer cfg descriptor of %zu bytes", len);
	CHECK_RET(rpma_peer_cfg_get_descriptor(pcfg, d.pcfg));
	d.pcfg_len = (uint8_t)len;
	/* rxe fails a native FLUSH sent again: every region asks for a read */
	if (!on_1x() && rxe_holds_native()) {
		for (int r = 0; r < FT_REGIONS; r++)
			CHECK(d.mr[r][DESC_USAGE] & RPMA_MR_USAGE_READ_SRC,
					"region %d's descriptor on rxe without READ_SRC", r);
		note("on rxe every region's descriptor shows RPMA_MR_USAGE_READ_SRC");
	}

	struct rpma_ep *ep = ep_open(peer);
	struct rpma_conn_req *req = ep_next_req(ep, NULL);
	struct rpma_conn_private_data pd = {&d, sizeof(d)};
	struct rpma_conn *conn = server_accept(&req, &pd);
	/* the client disconnects only after its last flush completed */
	conn_close_passive(&conn);

	for (size_t i = 0; i < FT_PIECES; i++) {
		const struct ft_piece *p = &ft_pieces[i];
		size_t bad = pattern_check(mem[p->region] + p->offset, FT_PIECE, piece_seed(i), 0);
		CHECK(bad == SIZE_MAX, "piece %zu differs from what the client wrote at byte %zu",
				i, bad);
	}
	note("the %zu pieces written and flushed are there", FT_PIECES);

	CHECK_RET(rpma_ep_shutdown(&ep));
	CHECK_RET(rpma_peer_cfg_delete(&pcfg));
	for (int r = 0; r < FT_REGIONS; r++)
		CHECK_RET(rpma_mr_dereg(&mr[r]));
	free(mem[FT_DRAM]);
	free(mem[FT_READABLE]);
	pmem_close(&pm);
	CHECK_RET(rpma_peer_delete(&peer));
}

/*
 * The completion a flush of a region whose descriptor does not show
 * RPMA_MR_USAGE_READ_SRC must give: RPMA_TEST_FLUSH=native|read|any, or by
 * default native where this build and the device have FLUSH. librpma 1.x
 * posts a native FLUSH or not by its version (1.2 never, 1.3 where it
 * can): on 1.x any, the server's check of the data decides.
 */
static int
expected_flush_opcode(struct rpma_peer *peer)
{
	const char *want = env_or("RPMA_TEST_FLUSH", "");
	if (strcmp(want, "native") == 0)
		return WC_FLUSH;
	if (strcmp(want, "read") == 0)
		return IBV_WC_RDMA_READ;
	if (strcmp(want, "any") == 0)
		return OPCODE_ANY;
	CHECK(*want == '\0', "RPMA_TEST_FLUSH=%s: expected native, read or any", want);
	if (on_1x())
		return OPCODE_ANY;
	(void) peer;
#ifdef HAVE_IBV_FLUSH
	struct ibv_device_attr_ex attr;
	test_device_attr(&attr);
	if ((attr.device_cap_flags_ex & CAP_FLUSH) == CAP_FLUSH)
		return WC_FLUSH;
#endif
	return IBV_WC_RDMA_READ;
}

/*
 * A region whose descriptor shows RPMA_MR_USAGE_READ_SRC (the client may
 * read it, or the server's library asks for a read, as ours on rxe) is
 * flushed by a read, by every library but 1.3 (want is then OPCODE_ANY).
 */
static int
region_flush_opcode(int want, const char *desc)
{
	if (want != OPCODE_ANY && (desc[DESC_USAGE] & RPMA_MR_USAGE_READ_SRC))
		return IBV_WC_RDMA_READ;
	return want;
}

void
flush_types_client(void)
{
	struct rpma_peer *peer = peer_open();
	int want = expected_flush_opcode(peer);
	struct rpma_conn *conn = client_connect(peer, NULL, NULL);

	struct rpma_conn_private_data pdata;
	struct ft_desc d;
	CHECK_RET(rpma_conn_get_private_data(conn, &pdata));
	CHECK(pdata.ptr != NULL && pdata.len >= sizeof(d), "private data of %u bytes", pdata.len);
	memcpy(&d, pdata.ptr, sizeof(d));
	CHECK(d.mr_len <= FT_DESC && d.pcfg_len <= sizeof(d.pcfg), "malformed descriptors");
	struct rpma_mr_remote *dst[FT_REGIONS];
	for (int r = 0; r < FT_REGIONS; r++)
		CHECK_RET(rpma_mr_remote_from_descriptor(d.mr[r], d.mr_len, &dst[r]));
	struct rpma_peer_cfg *pcfg;
	CHECK_RET(rpma_peer_cfg_from_descriptor(d.pcfg, d.pcfg_len, &pcfg));
	CHECK_RET(rpma_conn_apply_remote_peer_cfg(conn, pcfg));

	char *buf = buf_new(FT_PIECE * FT_PIECES);
	struct rpma_mr_local *src;
	CHECK_RET(rpma_mr_reg(peer, buf, FT_PIECE * FT_PIECES, RPMA_MR_USAGE_WRITE_SRC, &src));
	struct rpma_cq *cq;
	CHECK_RET(rpma_conn_get_cq(conn, &cq));

	for (size_t i = 0; i < FT_PIECES; i++) {
		const struct ft_piece *p = &ft_pieces[i];
		pattern_fill(buf + i * FT_PIECE, FT_PIECE, piece_seed(i), 0);
		CHECK_RET(rpma_write(conn, dst[p->region], p->offset, src, i * FT_PIECE, FT_PIECE,
				RPMA_F_COMPLETION_ON_ERROR, NULL));
		CHECK_RET(rpma_flush(conn, dst[p->region], p->offset, FT_PIECE, p->type,
				RPMA_F_COMPLETION_ALWAYS, (void *)(i + 1)));
		struct ibv_wc wc;
		cq_expect(cq, region_flush_opcode(want, d.mr[p->region]), (void *)(i + 1), &wc);
		note("%s flush of the %s region: %s",
				p->type == RPMA_FLUSH_TYPE_PERSISTENT ? "persistent" : "visibility",
				p->region == FT_PMEM ? "devdax" :
				p->region == FT_DRAM ? "DRAM" : "readable DRAM",
				wc_opcode_str(wc.opcode));
	}
	/*
	 * An empty range: a flush still, of nothing. Inside the region, as
	 * librpma 1.2 reads 8 bytes at the offset (at the end, past it).
	 */
	CHECK_RET(rpma_flush(conn, dst[FT_PMEM], FT_PIECE, 0, RPMA_FLUSH_TYPE_VISIBILITY,
			RPMA_F_COMPLETION_ALWAYS, (void *)0xe0));
	cq_expect(cq, region_flush_opcode(want, d.mr[FT_PMEM]), (void *)0xe0, NULL);
	cq_expect_empty(cq);

	conn_close_active(&conn);
	CHECK_RET(rpma_mr_dereg(&src));
	free(buf);
	for (int r = 0; r < FT_REGIONS; r++)
		CHECK_RET(rpma_mr_remote_delete(&dst[r]));
	CHECK_RET(rpma_peer_cfg_delete(&pcfg));
	CHECK_RET(rpma_peer_delete(&peer));
}
