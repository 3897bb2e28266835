// SPDX-License-Identifier: BSD-3-Clause
/*
 * fsdax.c -- files on a DAX file system (ext4 or xfs mounted -o dax) as
 * the server's persistent memory; the kernel never pins their pages for
 * long, so a device reaches them with on-demand paging (ODP) or not at all.
 *
 * fsdax_reg (everywhere): a file on each DAX file system is refused at the
 * registration (RPMA_E_PROVIDER, errno EOPNOTSUPP, the log naming the
 * cause and the ways out) where the device offers no ODP, and on soft-RoCE
 * whose ODP the library does not use unless RPMA_RXE_ODP=1 (src/peer.c);
 * registered with ODP, as the debug log says, where it does use it.
 *
 * fsdax (label fsdax, where the device offers ODP; RPMA_RXE_ODP=1 on rxe):
 * the client's write, read, atomic write and both flush types into a
 * fresh sparse file the server never touched, and through a grant of it;
 * the server prefetches the first page (rpma_mr_advise()), and after the
 * client is done remounts the file system and finds every byte
 * (fsdax_server.c). Each access starts a page and is one packet long.
 *
 * fsdax_offset (where the device offers ODP; RPMA_RXE_ODP=1 on rxe): writes
 * at an offset within a page, across a page boundary and over three pages
 * (fsdax.h) land where they were written, and read back as written. rxe's
 * ODP of Linux 7.3.4 puts each at the start of its page, which is why the
 * library does not use it unless asked; only the server sees where they
 * are.
 */

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fsdax.h"
#include "grant.h"
#include "tests.h"

/* the log's words for each refusal: its cause, and the ways out */
static const char *const refusal_no_odp[] = {"-o dax", "no on-demand paging",
	"device DAX (devdax)", "a kernel and device with on-demand paging", NULL};
static const char *const refusal_rxe[] = {"-o dax", "start of its page", "RPMA_RXE_ODP=1",
	"device DAX (devdax)", NULL};

/* one registration of a file on a DAX file system, refused (with why) or with ODP */
static void
reg_once(const char *fs, void *addr, const char *const *refusal)
{
	struct rpma_peer *peer = peer_open();
	struct rpma_mr_local *mr = NULL;
	int usage = RPMA_MR_USAGE_WRITE_DST | RPMA_MR_USAGE_READ_SRC |
		RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT;
	log_keep(RPMA_LOG_LEVEL_DEBUG);
	errno = 0;
	int ret = rpma_mr_reg(peer, addr, 4 * FSDAX_PAGE, usage, &mr);
	int err = errno;
	if (refusal == NULL) {
		CHECK_RET(ret);
		CHECK(strstr(log_kept(), "registered with on-demand paging") != NULL,
				"%s: no debug line says the registration used ODP: %s", fs, log_kept());
		CHECK_RET(rpma_mr_dereg(&mr));
	} else {
		CHECK(ret == RPMA_E_PROVIDER && err == EOPNOTSUPP, "%s: rpma_mr_reg() returned %d "
				"(%s), errno %d, expected RPMA_E_PROVIDER with EOPNOTSUPP", fs, ret,
				rpma_err_2str(ret), err);
		CHECK(mr == NULL, "a refused registration wrote its handle");
		for (const char *const *w = refusal; *w; w++)
			CHECK(strstr(log_kept(), *w) != NULL, "%s: the log does not say \"%s\": %s",
					fs, *w, log_kept());
	}
	log_stop();
	CHECK_RET(rpma_peer_delete(&peer));
}

/* a file on the DAX file system of kind fs (EXT4 or XFS) */
static void
reg_file(const char *fs, bool odp, bool rxe)
{
	char var[32], path[512];
	snprintf(var, sizeof(var), "RPMA_TEST_FSDAX_%s", fs);
	const char *dir = getenv(var);
	CHECK(dir != NULL && *dir != '\0', "%s is not set: run the test through "
			"utils/rxe-vm --fsdax", var);
	snprintf(path, sizeof(path), "%s/fsdax_reg.pmem", dir);
	(void) unlink(path);
	CHECK(setenv("RPMA_TEST_PMEM", path, 1) == 0, "setenv failed");
	void *addr;
	struct pmem_map *pm = pmem_open(4 * FSDAX_PAGE, &addr);
	struct fsdax_mount m;
	fsdax_mount_of(path, &m);

	CHECK(unsetenv("RPMA_RXE_ODP") == 0, "unsetenv failed");
	reg_once(fs, addr, !odp ? refusal_no_odp : rxe ? refusal_rxe : NULL);
	if (odp && rxe) {
		/* asked for, rxe's ODP is used */
		CHECK(setenv("RPMA_RXE_ODP", "1", 1) == 0, "setenv failed");
		reg_once(fs, addr, NULL);
		CHECK(unsetenv("RPMA_RXE_ODP") == 0, "unsetenv failed");
	}
	pmem_close(&pm);
	CHECK(unlink(path) == 0, "unlink %s: %s", path, strerror(errno));
	note("%s (%s on %s, mounted -o dax): %s", path, m.type, m.dev, !odp ?
			"refused at the call: no on-demand paging" : rxe ?
			"refused at the call (rxe's ODP), registered with ODP with RPMA_RXE_ODP=1" :
			"registered with on-demand paging");
}

void
fsdax_reg_client(void)
{
	bool odp = fsdax_device_odp();
	bool rxe = test_rxe();
	reg_file("EXT4", odp, rxe);
	reg_file("XFS", odp, rxe);
}

/* fsdax: the client's side */

/* an atomic write completes as a native ATOMIC WRITE or as the inline write */
#define ATOMIC_WRITE_ANY (-2)

/* the one completion, a success of opcode with op_context ctx (OPCODE_ANY: a flush) */
static void
done(struct rpma_cq *cq, int opcode, uintptr_t ctx)
{
	struct ibv_wc wc;
	cq_expect(cq, opcode < 0 ? OPCODE_ANY : opcode, (void *)ctx, &wc);
	if (opcode == OPCODE_ANY)
		CHECK(WC_IS_FLUSH(wc.opcode), "a flush completed as %s", wc_opcode_str(wc.opcode));
}

/* what a client of the fsdax tests holds */
struct fsdax_client {
	struct rpma_peer *peer;
	struct grant_msgbuf m;
	char *buf;
	struct rpma_mr_local *buf_mr;
	struct rpma_conn *conn;
	struct rpma_cq *cq;
	struct rpma_peer_cfg *pcfg;
	struct rpma_mr_remote *dst;
};

static void
client_open(struct fsdax_client *c)
{
	c->peer = peer_open();
	grant_msgbuf_new(c->peer, &c->m);
	c->buf = buf_new(FSDAX_PIECE_MAX);
	CHECK_RET(rpma_mr_reg(c->peer, c->buf, FSDAX_PIECE_MAX, RPMA_MR_USAGE_WRITE_SRC |
			RPMA_MR_USAGE_READ_DST, &c->buf_mr));
	c->conn = client_connect_prep(c->peer, grant_conn_cfg(), NULL, grant_recv_prep, &c->m);
	grant_hello_send(c->conn, &c->m);
	CHECK_RET(rpma_conn_get_cq(c->conn, &c->cq));
	c->dst = server_desc_take(c->conn, &c->pcfg);
	CHECK_RET(rpma_conn_apply_remote_peer_cfg(c->conn, c->pcfg));
}

/* tell the server the client is done, and go */
static void
client_close(struct fsdax_client *c)
{
	struct grant_msg *out = grant_msg_out(&c->m);
	out->kind = GRANT_MSG_DONE;
	grant_msg_send(c->conn, &c->m, sizeof(*out));
	conn_close_active(&c->conn);
	CHECK_RET(rpma_mr_remote_delete(&c->dst));
	CHECK_RET(rpma_peer_cfg_delete(&c->pcfg));
	CHECK_RET(rpma_mr_dereg(&c->buf_mr));
	free(c->buf);
	grant_msgbuf_delete(&c->m);
	CHECK_RET(rpma_peer_delete(&c->peer));
}

/* write len bytes of seed's pattern at off of dst, and flush them to persistence */
static void
write_persist(struct fsdax_client *c, struct rpma_mr_remote *dst, size_t off, size_t len,
		uint32_t seed)
{
	pattern_fill(c->buf, len, seed, 0);
	CHECK_RET(rpma_write(c->conn, dst, off, c->buf_mr, 0, len, RPMA_F_COMPLETION_ON_ERROR,
			NULL));
	CHECK_RET(rpma_flush(c->conn, dst, off, len, RPMA_FLUSH_TYPE_PERSISTENT,
			RPMA_F_COMPLETION_ALWAYS, (void *)0x1));
	done(c->cq, OPCODE_ANY, 0x1);
}

/* read len bytes at off of dst back: seed's pattern */
static void
read_back(struct fsdax_client *c, size_t off, size_t len, uint32_t seed)
{
	memset(c->buf, 0, len);
	CHECK_RET(rpma_read(c->conn, c->buf_mr, 0, c->dst, off, len, RPMA_F_COMPLETION_ALWAYS,
			(void *)0x5));
	done(c->cq, IBV_WC_RDMA_READ, 0x5);
	CHECK(pattern_check(c->buf, len, seed, 0) == SIZE_MAX, "%zu bytes at %zu read back other",
			len, off);
}

void
fsdax_client(void)
{
	struct fsdax_client c;
	client_open(&c);
	struct grant_msg *in = grant_msg_wait(c.conn, &c.m, GRANT_MSG_DESCS);
	CHECK(in->n == 1, "%u grants, expected 1", in->n);
	struct rpma_mr_remote *granted;
	CHECK_RET(rpma_mr_remote_from_descriptor(in->g[0].desc, GRANT_DESC_SIZE, &granted));

	/* page 0 of the fresh file: written, persisted, read back */
	write_persist(&c, c.dst, 0, FSDAX_LEN, FSDAX_SEED);
	read_back(&c, 0, FSDAX_LEN, FSDAX_SEED);
	/* page 1: 8 bytes atomically, flushed to visibility and to persistence */
	CHECK_RET(rpma_atomic_write(c.conn, c.dst, FSDAX_ATOMIC_OFF, FSDAX_ATOMIC,
			RPMA_F_COMPLETION_ALWAYS, (void *)0x2));
	done(c.cq, ATOMIC_WRITE_ANY, 0x2);
	CHECK_RET(rpma_flush(c.conn, c.dst, FSDAX_ATOMIC_OFF, 8, RPMA_FLUSH_TYPE_VISIBILITY,
			RPMA_F_COMPLETION_ALWAYS, (void *)0x3));
	done(c.cq, OPCODE_ANY, 0x3);
	CHECK_RET(rpma_flush(c.conn, c.dst, FSDAX_ATOMIC_OFF, 8, RPMA_FLUSH_TYPE_PERSISTENT,
			RPMA_F_COMPLETION_ALWAYS, (void *)0x4));
	done(c.cq, OPCODE_ANY, 0x4);
	CHECK_RET(rpma_read(c.conn, c.buf_mr, 0, c.dst, FSDAX_ATOMIC_OFF, 8,
			RPMA_F_COMPLETION_ALWAYS, (void *)0x6));
	done(c.cq, IBV_WC_RDMA_READ, 0x6);
	CHECK(memcmp(c.buf, FSDAX_ATOMIC, 8) == 0, "the atomic write's 8 bytes read back other");
	/* page 2, through the grant */
	write_persist(&c, granted, 0, FSDAX_LEN, FSDAX_SEED_GRANT);
	cq_expect_empty(c.cq);
	note("written, atomically written, flushed to visibility and persistence, read back: "
			"the region and a grant of it, in a file on a DAX file system");
	CHECK_RET(rpma_mr_remote_delete(&granted));
	client_close(&c);
}

void
fsdax_offset_client(void)
{
	struct fsdax_client c;
	client_open(&c);
	for (int i = 0; i < FSDAX_PIECES; i++) {
		size_t off = fsdax_pieces[i].off, len = fsdax_pieces[i].len;
		write_persist(&c, c.dst, off, len, FSDAX_PIECE_SEED(i));
		/* the device reads from where it wrote: the client cannot tell */
		read_back(&c, off, len, FSDAX_PIECE_SEED(i));
		note("%zu bytes written at offset %zu, read back as written", len, off);
	}
	client_close(&c);
}
