// SPDX-License-Identifier: BSD-3-Clause
/*
 * fsdax_server.c -- the servers of the fsdax tests (fsdax.c): their memory
 * is a fresh sparse file on a DAX file system, registered with on-demand
 * paging; fsdax grants a page of it and checks what the client persisted
 * in the mapping and again after the file system was mounted anew,
 * fsdax_offset checks where the client's bytes landed.
 */

#include <string.h>
#include <unistd.h>

#include "fsdax.h"
#include "grant.h"
#include "tests.h"

/* what a server of the fsdax tests holds */
struct fsdax_server {
	const char *path;
	struct fsdax_mount m;
	struct pmem_map *pm;
	char *mem;
	struct rpma_peer *peer;
	struct rpma_mr_local *mr;
	struct rpma_peer_cfg *pcfg;
	struct grant_msgbuf msg;
	struct rpma_ep *ep;
};

/* the region registered with ODP, as the debug log says, and its first page prefetched */
static void
fsdax_reg(struct fsdax_server *s)
{
	int usage = RPMA_MR_USAGE_WRITE_DST | RPMA_MR_USAGE_READ_SRC |
		RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY | RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT;

	log_keep(RPMA_LOG_LEVEL_DEBUG);
	CHECK_RET(rpma_mr_reg(s->peer, s->mem, FSDAX_SIZE, usage, &s->mr));
	CHECK(strstr(log_kept(), "registered with on-demand paging") != NULL,
			"no debug line says the registration used ODP: %s", log_kept());
	log_stop();
	/*
	 * Before the first remote write, the first page prefetched for writing:
	 * done where the device does it, else refused at the call with
	 * RPMA_E_NOSUPP (rpma_mr_advise(3)), as the device itself answers
	 */
	int err = fsdax_raw_advise(s->mem, FSDAX_PAGE);
	int ret = rpma_mr_advise(s->mr, 0, FSDAX_PAGE, IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE,
			IBV_ADVISE_MR_FLAG_FLUSH);
	if (err == 0) {
		CHECK_RET(ret);
		note("rpma_mr_advise(): the first page prefetched for writing");
	} else {
		CHECK(ret == RPMA_E_NOSUPP && (err == EOPNOTSUPP || err == ENOTSUP),
				"rpma_mr_advise() returned %d (%s) where the device answers %s", ret,
				rpma_err_2str(ret), strerror(err));
		note("rpma_mr_advise(): RPMA_E_NOSUPP at the call, as the device answers %s",
				strerror(err));
	}
}

/* a fresh sparse file on a DAX file system, registered, and an endpoint */
static void
server_open(struct fsdax_server *s)
{
	s->path = getenv("RPMA_TEST_PMEM");
	CHECK(s->path != NULL, "RPMA_TEST_PMEM is not set (run-pair --pmem-fs)");
	(void) unlink(s->path);
	void *addr;
	s->pm = pmem_open(FSDAX_SIZE, &addr);
	s->mem = addr;
	fsdax_mount_of(s->path, &s->m);
	CHECK(fsdax_device_odp(), "the device offers no on-demand paging: a file on a DAX file "
			"system cannot be registered (integration_fsdax_reg shows it)");
	s->peer = peer_open();
	fsdax_reg(s);
	CHECK_RET(rpma_peer_cfg_new(&s->pcfg));
	CHECK_RET(rpma_peer_cfg_set_direct_write_to_pmem(s->pcfg, true));
	grant_msgbuf_new(s->peer, &s->msg);
	s->ep = ep_open(s->peer);
}

/* the connection of the client, with the region's descriptor */
static struct rpma_conn *
server_connect(struct fsdax_server *s)
{
	struct server_desc sd;
	struct rpma_conn_private_data pdata;
	server_desc_make(&sd, s->mr, s->pcfg, &pdata);
	struct rpma_conn_req *req = ep_next_req(s->ep, grant_conn_cfg());
	grant_recv_prep(req, &s->msg);
	struct rpma_conn *conn = server_accept(&req, &pdata);
	grant_hello_wait(conn, &s->msg);
	return conn;
}

/* everything but the mapping goes */
static void
server_release(struct fsdax_server *s)
{
	CHECK_RET(rpma_ep_shutdown(&s->ep));
	grant_msgbuf_delete(&s->msg);
	CHECK_RET(rpma_peer_cfg_delete(&s->pcfg));
	CHECK_RET(rpma_mr_dereg(&s->mr));
	CHECK_RET(rpma_peer_delete(&s->peer));
}

/* what the client persisted: page 0, the atomic write, the granted page */
static void
fsdax_check(const char *mem, const char *when)
{
	CHECK(pattern_check(mem, FSDAX_LEN, FSDAX_SEED, 0) == SIZE_MAX, "%s: page 0 does not "
			"hold what the client wrote", when);
	CHECK(memcmp(mem + FSDAX_ATOMIC_OFF, FSDAX_ATOMIC, 8) == 0, "%s: no atomic write", when);
	CHECK(pattern_check(mem + FSDAX_GRANT_OFF, FSDAX_LEN, FSDAX_SEED_GRANT, 0) == SIZE_MAX,
			"%s: the granted page does not hold what the client wrote", when);
}

void
fsdax_server(void)
{
	struct fsdax_server s;
	server_open(&s);
	struct rpma_mr_local *gmr;
	CHECK_RET(rpma_mr_reg_for_grants(s.peer, s.mem + FSDAX_GRANT_OFF, FSDAX_PAGE,
			RPMA_MR_USAGE_WRITE_DST | RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT, &gmr));
	struct rpma_conn *conn = server_connect(&s);
	struct rpma_grant *grant;
	CHECK_RET(rpma_grant_new(conn, gmr, 0, FSDAX_PAGE, RPMA_MR_USAGE_WRITE_DST |
			RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT, &grant));
	struct grant_msg *out = grant_msg_out(&s.msg);
	out->kind = GRANT_MSG_DESCS;
	out->n = 1;
	CHECK_RET(rpma_grant_get_descriptor(grant, out->g[0].desc));
	grant_msg_send(conn, &s.msg, sizeof(*out));
	(void) grant_msg_wait(conn, &s.msg, GRANT_MSG_DONE);
	conn_close_passive(&conn);
	CHECK_RET(rpma_grant_delete(&grant));
	CHECK_RET(rpma_mr_dereg(&gmr));
	server_release(&s);
	fsdax_check(s.mem, "in the mapping");
	pmem_close(&s.pm);

	/* what the file system keeps: mounted anew, the file read from the start */
	fsdax_remount(&s.m);
	void *addr;
	s.pm = pmem_open(FSDAX_SIZE, &addr);
	fsdax_check(addr, "after the remount");
	pmem_close(&s.pm);
	CHECK(unlink(s.path) == 0, "unlink %s: %s", s.path, strerror(errno));
	note("%s (%s, -o dax): registered with ODP; what the client persisted there and "
			"through the grant is in the file after a remount", s.path, s.m.type);
}

void
fsdax_offset_server(void)
{
	struct fsdax_server s;
	server_open(&s);
	struct rpma_conn *conn = server_connect(&s);
	(void) grant_msg_wait(conn, &s.msg, GRANT_MSG_DONE);
	conn_close_passive(&conn);
	server_release(&s);

	for (int i = 0; i < FSDAX_PIECES; i++) {
		size_t off = fsdax_pieces[i].off, len = fsdax_pieces[i].len;
		uint32_t seed = FSDAX_PIECE_SEED(i);
		const char *page = s.mem + (off & ~(size_t)(FSDAX_PAGE - 1));
		bool at_start = pattern_check(page, len < FSDAX_PAGE ? len : FSDAX_PAGE, seed, 0) ==
			SIZE_MAX;
		CHECK(pattern_check(s.mem + off, len, seed, 0) == SIZE_MAX, "the %zu bytes written "
				"at offset %zu are not there%s", len, off, at_start ?
				": they begin at the start of their page (rxe's on-demand paging "
				"of Linux 7.3.4, doc/HARDWARE.md)" : "");
		note("the %zu bytes written at offset %zu are there", len, off);
	}
	pmem_close(&s.pm);
	CHECK(unlink(s.path) == 0, "unlink %s: %s", s.path, strerror(errno));
}
