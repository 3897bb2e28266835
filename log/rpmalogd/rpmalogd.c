// SPDX-License-Identifier: BSD-3-Clause
/*
 * rpmalogd.c -- a replica of the log (doc/LOG.md): it keeps the log in its
 * memory and serves each writer's connection through a grant of the
 * entries, the newest epoch fencing the older writers.
 */

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <librpma.h>

#include "admit.h"
#include "replica.h"

#define USAGE "usage: rpmalogd [--create SIZE[K|M|G]] [--direct-write-to-pmem] " \
	"<addr> <port> <pmem-path>\n"

enum slot_state { SLOT_FREE, SLOT_PENDING, SLOT_SERVING, SLOT_CLOSING };

/* a connection: a writer's, or one being refused */
struct slot {
	enum slot_state state;
	struct proto_hello hello;
	struct rpma_conn *conn;
	struct rpma_grant *grant;
	uint8_t *send, *recv;	/* in the daemon's msg_mr */
	size_t send_off, recv_off;
};

struct daemon {
	struct replica *rep;
	struct rpma_peer *peer;
	struct rpma_ep *ep;
	struct rpma_conn_cfg *cfg;
	struct rpma_peer_cfg *pcfg;
	struct rpma_mr_local *log_mr;	/* the whole memory, for grants only */
	int usage;			/* what a grant carries */
	struct rpma_mr_local *msg_mr;
	uint8_t msgs[ADMIT_MAX][2][PROTO_MAX_SIZE];
	struct slot slots[ADMIT_MAX];
	struct admit admit;
};

static volatile sig_atomic_t stop;

static void
on_signal(int sig)
{
	(void) sig;
	stop = 1;
}

static int
fail(const char *what, int ret)
{
	fprintf(stderr, "rpmalogd: %s: %s\n", what, rpma_err_2str(ret));
	return ret;
}

/* its grant revoked (the window invalidated when it returns), no longer served */
static void
slot_revoke(struct daemon *d, struct slot *s)
{
	if (s->grant)
		(void) rpma_grant_delete(&s->grant);
	admit_remove(&d->admit, s);
}

/* the connection ends */
static void
slot_close(struct daemon *d, struct slot *s)
{
	slot_revoke(d, s);
	if (s->state != SLOT_CLOSING && s->conn)
		(void) rpma_conn_disconnect(s->conn);
	s->state = SLOT_CLOSING;
}

static void
slot_free(struct slot *s)
{
	if (s->grant)
		(void) rpma_grant_delete(&s->grant);
	if (s->conn) {
		(void) rpma_conn_disconnect(s->conn);
		(void) rpma_conn_delete(&s->conn);
	}
	s->state = SLOT_FREE;
}

static int
send_msg(struct slot *s, struct daemon *d, size_t len)
{
	int ret = rpma_send(s->conn, d->msg_mr, s->send_off, len, RPMA_F_COMPLETION_ALWAYS, s);

	if (ret)
		fail("rpma_send()", ret);
	return ret;
}

/* a refusal sent (EPOCH the replica's), and the connection closed once it is */
static void
refuse(struct daemon *d, struct slot *s, uint32_t reason, uint64_t epoch)
{
	struct proto_refuse m = { .reason = reason, .epoch = epoch };

	s->state = SLOT_CLOSING;
	if (send_msg(s, d, proto_refuse_encode(&m, s->send)))
		(void) rpma_conn_disconnect(s->conn);
}

/* a writer fenced: its grant revoked at once, then told why */
static void
fence(struct daemon *d, struct slot *s, uint64_t epoch)
{
	slot_revoke(d, s);
	printf("rpmalogd: writer %llx of epoch %llu fenced\n", (unsigned long long)s->hello.writer,
			(unsigned long long)s->hello.epoch);
	refuse(d, s, PROTO_STALE_EPOCH, epoch);
}

/* the welcome: the replica's log, the grant, its peer configuration */
static int
welcome(struct daemon *d, struct slot *s)
{
	const struct log_header *h = replica_header(d->rep);
	const struct scan_end *e = replica_end(d->rep);
	struct proto_welcome m = {
		.size = h->size, .epoch = h->epoch, .first = h->first, .committed = h->committed,
		.committed_end = h->committed_end, .next = e->next, .end = e->end,
		.last_epoch = e->last_epoch,
	};
	size_t gsize, psize;
	int ret = rpma_grant_get_descriptor_size(s->grant, &gsize);

	if (!ret)
		ret = rpma_peer_cfg_get_descriptor_size(d->pcfg, &psize);
	if (!ret && (gsize > PROTO_DESC_MAX || psize > PROTO_DESC_MAX))
		ret = RPMA_E_NOSUPP;
	if (!ret)
		ret = rpma_grant_get_descriptor(s->grant, m.grant);
	if (!ret)
		ret = rpma_peer_cfg_get_descriptor(d->pcfg, m.pcfg);
	if (ret)
		return fail("the welcome's descriptors", ret);
	m.grant_size = (uint8_t)gsize;
	m.pcfg_size = (uint8_t)psize;
	return send_msg(s, d, proto_welcome_encode(&m, s->send));
}

/* a writer's connection is up: admitted by its epoch or refused */
static void
admit_writer(struct daemon *d, struct slot *s)
{
	uint32_t reason;
	void *fenced[ADMIT_MAX];
	enum admit_verdict v = admit_judge(&d->admit, &s->hello, &reason);
	const struct log_header *h = replica_header(d->rep);
	size_t n;
	int ret;

	if (v == ADMIT_REFUSE) {
		fprintf(stderr, "rpmalogd: a writer of epoch %llu refused (the replica's: %llu)\n",
				(unsigned long long)s->hello.epoch,
				(unsigned long long)d->admit.epoch);
		refuse(d, s, reason, d->admit.epoch);
		return;
	}
	if (v == ADMIT_NEW_EPOCH) {
		struct log_header next = *h;

		next.epoch = s->hello.epoch; /* persisted before any answer */
		replica_store(d->rep, &next);
		/* from now on, even if this writer is refused a grant */
		d->admit.epoch = next.epoch;
	}
	/* the fenced writers' grants are revoked before the newcomer hears a word */
	n = admit_fenced(&d->admit, &s->hello, fenced);
	for (size_t i = 0; i < n; i++)
		fence(d, fenced[i], s->hello.epoch);
	if (replica_rescan(d->rep, true)) {
		fprintf(stderr, "rpmalogd: the log's committed entries no longer check\n");
		stop = 1;
		return;
	}
	ret = rpma_grant_new(s->conn, d->log_mr, LAYOUT_ENTRIES, h->size - LAYOUT_ENTRIES,
			d->usage, &s->grant);
	if (ret) {
		fail("rpma_grant_new()", ret);
		refuse(d, s, PROTO_NO_GRANT, d->admit.epoch);
		return;
	}
	if (welcome(d, s) || admit_add(&d->admit, &s->hello, s)) {
		slot_close(d, s);
		return;
	}
	s->state = SLOT_SERVING;
	printf("rpmalogd: writer %llx of epoch %llu served (log: entries %llu to %llu)\n",
			(unsigned long long)s->hello.writer, (unsigned long long)s->hello.epoch,
			(unsigned long long)h->first, (unsigned long long)replica_end(d->rep)->next);
}

/* the writer's commit point, stored where its entries check */
static void
commit(struct daemon *d, struct slot *s, const struct proto_commit *c)
{
	struct log_header h = *replica_header(d->rep);
	const struct scan_end *e = replica_end(d->rep);

	if (s->state != SLOT_SERVING || s->hello.epoch != d->admit.epoch ||
			c->committed <= h.committed)
		return;
	if (replica_rescan(d->rep, false) || e->next < c->committed || e->end < c->committed_end) {
		fprintf(stderr, "rpmalogd: a commit point past the valid entries ignored\n");
		return;
	}
	h.committed = c->committed;
	h.committed_end = c->committed_end;
	replica_store(d->rep, &h);
}

static void
on_completion(struct daemon *d, struct slot *s)
{
	struct rpma_cq *cq;
	struct ibv_wc wc;
	int n;

	if (rpma_conn_get_cq(s->conn, &cq) || rpma_cq_wait(cq))
		return;
	while (rpma_cq_get_wc(cq, 1, &wc, &n) == 0 && n == 1) {
		struct proto_commit c;

		if (wc.status != IBV_WC_SUCCESS) {
			slot_close(d, s);
			return;
		}
		if (wc.opcode == IBV_WC_SEND && s->state == SLOT_CLOSING)
			(void) rpma_conn_disconnect(s->conn);
		if (wc.opcode != IBV_WC_RECV)
			continue;
		if (proto_commit_decode(s->recv, wc.byte_len, &c) == 0)
			commit(d, s, &c);
		if (rpma_recv(s->conn, d->msg_mr, s->recv_off, PROTO_MAX_SIZE, s))
			slot_close(d, s);
	}
}

static void
on_event(struct daemon *d, struct slot *s)
{
	enum rpma_conn_event ev;

	if (rpma_conn_next_event(s->conn, &ev))
		ev = RPMA_CONN_LOST;
	if (ev == RPMA_CONN_ESTABLISHED && s->state == SLOT_PENDING) {
		admit_writer(d, s);
		return;
	}
	slot_close(d, s);
	slot_free(s);
}

/* a connection request: a hello, a free slot, its receive posted, accepted */
static void
on_request(struct daemon *d)
{
	struct rpma_conn_req *req;
	struct rpma_conn_private_data pdata;
	struct slot *s = NULL;

	if (rpma_ep_next_conn_req(d->ep, d->cfg, &req))
		return;
	for (size_t i = 0; i < ADMIT_MAX && s == NULL; i++)
		if (d->slots[i].state == SLOT_FREE)
			s = &d->slots[i];
	if (s == NULL || rpma_conn_req_get_private_data(req, &pdata) ||
			proto_hello_decode(pdata.ptr, pdata.len, &s->hello) ||
			rpma_conn_req_recv(req, d->msg_mr, s->recv_off, PROTO_MAX_SIZE, s)) {
		fprintf(stderr, "rpmalogd: a connection refused: %s\n",
				s ? "not a writer's hello" : "too many connections");
		(void) rpma_conn_req_delete(&req);
		return;
	}
	if (rpma_conn_req_connect(&req, NULL, &s->conn))
		return;
	s->state = SLOT_PENDING;
}

/* every connection's fds and the endpoint's, polled; each ready one served */
static void
serve(struct daemon *d)
{
	struct pollfd fds[1 + 2 * ADMIT_MAX];
	struct slot *of[1 + 2 * ADMIT_MAX];
	nfds_t n = 1;

	(void) rpma_ep_get_fd(d->ep, &fds[0].fd);
	fds[0].events = POLLIN;
	for (size_t i = 0; i < ADMIT_MAX; i++) {
		struct slot *s = &d->slots[i];
		struct rpma_cq *cq;

		if (s->state == SLOT_FREE)
			continue;
		(void) rpma_conn_get_event_fd(s->conn, &fds[n].fd);
		of[n++] = s;
		(void) rpma_conn_get_cq(s->conn, &cq);
		(void) rpma_cq_get_fd(cq, &fds[n].fd);
		of[n++] = s;
	}
	for (nfds_t i = 0; i < n; i++) {
		fds[i].events = POLLIN;
		fds[i].revents = 0;
	}
	if (poll(fds, n, -1) <= 0)
		return;
	if (fds[0].revents)
		on_request(d);
	for (nfds_t i = 1; i < n; i++) {
		if (!fds[i].revents || of[i]->state == SLOT_FREE)
			continue;
		if (i % 2)
			on_event(d, of[i]);
		else
			on_completion(d, of[i]);
	}
}

/* the peer, the endpoint, the memory registered for grants, the messages' buffers */
static int
setup(struct daemon *d, const char *addr, const char *port, bool direct)
{
	struct ibv_context *ctx;
	const struct log_header *h = replica_header(d->rep);
	int ret = rpma_utils_get_ibv_context(addr, RPMA_UTIL_IBV_CONTEXT_LOCAL, &ctx);

	if (ret || (ret = rpma_peer_new(ctx, &d->peer)))
		return fail("the RDMA device of the address", ret);
	d->usage = RPMA_MR_USAGE_READ_SRC | RPMA_MR_USAGE_WRITE_DST |
			RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY;
	if (replica_is_pmem(d->rep))
		d->usage |= RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT;
	ret = rpma_mr_reg_for_grants(d->peer, replica_base(d->rep), h->size, d->usage,
			&d->log_mr);
	if (ret)
		return fail("rpma_mr_reg_for_grants() of the log", ret);
	ret = rpma_mr_reg(d->peer, d->msgs, sizeof(d->msgs),
			RPMA_MR_USAGE_SEND | RPMA_MR_USAGE_RECV, &d->msg_mr);
	if (!ret)
		ret = rpma_peer_cfg_new(&d->pcfg);
	/* direct write to PMem only where the memory is and the operator says so */
	if (!ret)
		ret = rpma_peer_cfg_set_direct_write_to_pmem(d->pcfg,
				direct && replica_is_pmem(d->rep));
	if (!ret)
		ret = rpma_conn_cfg_new(&d->cfg);
	if (!ret)
		ret = rpma_conn_cfg_set_rq_size(d->cfg, 2);
	if (ret)
		return fail("the messages' set-up", ret);
	for (size_t i = 0; i < ADMIT_MAX; i++) {
		d->slots[i].send_off = (size_t)(d->msgs[i][0] - (uint8_t *)d->msgs);
		d->slots[i].recv_off = (size_t)(d->msgs[i][1] - (uint8_t *)d->msgs);
		d->slots[i].send = d->msgs[i][0];
		d->slots[i].recv = d->msgs[i][1];
	}
	ret = rpma_ep_listen(d->peer, addr, port, &d->ep);
	if (ret)
		return fail("rpma_ep_listen()", ret);
	return 0;
}

static void
teardown(struct daemon *d)
{
	for (size_t i = 0; i < ADMIT_MAX; i++)
		if (d->slots[i].state != SLOT_FREE)
			slot_free(&d->slots[i]);
	if (d->ep)
		(void) rpma_ep_shutdown(&d->ep);
	if (d->cfg)
		(void) rpma_conn_cfg_delete(&d->cfg);
	if (d->pcfg)
		(void) rpma_peer_cfg_delete(&d->pcfg);
	if (d->msg_mr)
		(void) rpma_mr_dereg(&d->msg_mr);
	if (d->log_mr)
		(void) rpma_mr_dereg(&d->log_mr);
	if (d->peer)
		(void) rpma_peer_delete(&d->peer);
	replica_close(&d->rep);
}

/* SIZE with an optional binary suffix (K, M, G) in *BYTES; -1 if it is none */
static int
parse_size(const char *text, uint64_t *bytes)
{
	static const char suffixes[] = "KMG";
	char *end;
	const char *suffix;

	errno = 0;
	*bytes = strtoull(text, &end, 0);
	if (errno || end == text || text[0] == '-')
		return -1;
	if (*end == '\0')
		return 0;
	suffix = strchr(suffixes, *end);
	if (suffix == NULL || end[1] != '\0' ||
			*bytes > (UINT64_MAX >> (10 * (suffix - suffixes + 1))))
		return -1;
	*bytes <<= 10 * (suffix - suffixes + 1);
	return 0;
}

int
main(int argc, char *argv[])
{
	static struct daemon d;
	struct sigaction sa = { .sa_handler = on_signal };
	uint64_t size = 0;
	bool create = false, direct = false;
	int i = 1, ret;

	for (; i < argc && argv[i][0] == '-'; i++) {
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
			fputs(USAGE, stdout);
			return 0;
		} else if (strcmp(argv[i], "--create") == 0 && i + 1 < argc) {
			create = true;
			if (parse_size(argv[++i], &size)) {
				fprintf(stderr, "rpmalogd: --create %s: not a size\n", argv[i]);
				return 2;
			}
		} else if (strcmp(argv[i], "--direct-write-to-pmem") == 0) {
			direct = true;
		} else {
			fputs(USAGE, stderr);
			return 2;
		}
	}
	if (argc - i != 3) {
		fputs(USAGE, stderr);
		return 2;
	}
	/* a line at a time: whoever starts it waits for "listening on" */
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (replica_open(argv[i + 2], create, size, &d.rep))
		return 1;
	d.admit.epoch = replica_header(d.rep)->epoch;
	/* SIGINT and SIGTERM end the poll: the replica closes cleanly */
	(void) sigaction(SIGINT, &sa, NULL);
	(void) sigaction(SIGTERM, &sa, NULL);
	ret = setup(&d, argv[i], argv[i + 1], direct);
	if (ret == 0) {
		printf("rpmalogd (pid %d): %s: %llu entries, epoch %llu; listening on %s:%s\n",
				(int)getpid(), argv[i + 2],
				(unsigned long long)(replica_end(d.rep)->next - replica_header(d.rep)->first),
				(unsigned long long)d.admit.epoch, argv[i], argv[i + 1]);
		while (!stop)
			serve(&d);
	}
	teardown(&d);
	return ret ? 1 : 0;
}
