// SPDX-License-Identifier: BSD-3-Clause
/*
 * gpspm_client.c -- fio engine librpma_gpspm_client: the General Purpose
 * Server Persistency Method. After the writes, a flush request message asks
 * the server to persist their range; its response completes them. At the
 * end, a last message tells the server's job to end.
 */

#include <errno.h>
#include <stdlib.h>

#include "client.h"

struct gpspm_client {
	struct rpma_mr_local *mr;
	char *buf;			/* nslots requests, then nslots responses */
	unsigned int nslots;
	struct io_u **inflight;		/* the last write of each request slot's flush */
	unsigned int *free_slots;
	unsigned int nfree;
};

#define REQ_OFF(g, i) ((size_t)(i) * sizeof(struct rpma_fio_gpspm_req))
#define RESP_OFF(g, i) ((g)->nslots * sizeof(struct rpma_fio_gpspm_req) + \
		(size_t)(i) * sizeof(struct rpma_fio_gpspm_resp))

static unsigned int
gpspm_rq_size(struct thread_data *td)
{
	return td->o.iodepth;
}

static int
post_recv(struct thread_data *td, struct rpma_fio_client *c, struct gpspm_client *g,
		unsigned int i)
{
	int ret = rpma_recv(c->conn, g->mr, RESP_OFF(g, i), sizeof(struct rpma_fio_gpspm_resp),
			g->buf + RESP_OFF(g, i));

	if (ret)
		rpma_fio_err(td, "rpma_recv()", ret);
	return ret;
}

static int
gpspm_connected(struct thread_data *td, struct rpma_fio_client *c, void **engine)
{
	struct gpspm_client *g = calloc(1, sizeof(*g));
	unsigned int i;
	int ret;

	if (!g)
		return -1;
	*engine = g;
	g->nslots = td->o.iodepth;
	g->buf = calloc(g->nslots, sizeof(struct rpma_fio_gpspm_req) +
			sizeof(struct rpma_fio_gpspm_resp));
	g->inflight = calloc(g->nslots, sizeof(*g->inflight));
	g->free_slots = calloc(g->nslots, sizeof(*g->free_slots));
	if (!g->buf || !g->inflight || !g->free_slots) {
		td_verror(td, ENOMEM, "calloc");
		return -1;
	}
	ret = rpma_mr_reg(c->peer, g->buf, RESP_OFF(g, g->nslots),
			RPMA_MR_USAGE_SEND | RPMA_MR_USAGE_RECV, &g->mr);
	if (ret) {
		rpma_fio_err(td, "rpma_mr_reg()", ret);
		return -1;
	}
	for (i = 0; i < g->nslots; i++) {
		g->free_slots[g->nfree++] = i;
		if (post_recv(td, c, g, i))
			return -1;
	}
	return 0;
}

static int
send_req(struct thread_data *td, struct rpma_fio_client *c, uint32_t op, unsigned int slot,
		unsigned long long offset, unsigned long long len)
{
	struct gpspm_client *g = c->engine;
	struct rpma_fio_gpspm_req *req = (void *)(g->buf + REQ_OFF(g, slot));
	int ret;

	req->op = op;
	req->slot = slot;
	req->offset = offset;
	req->length = len;
	/* signaled: unsignaled sends alone would never free their queue entries */
	do {
		ret = rpma_send(c->conn, g->mr, REQ_OFF(g, slot), sizeof(*req),
				RPMA_F_COMPLETION_ALWAYS, NULL);
	} while (ret && rpma_fio_client_sq_full(td, c, ret));
	if (ret)
		rpma_fio_err(td, "rpma_send()", ret);
	return ret;
}

static int
gpspm_flush(struct thread_data *td, struct rpma_fio_client *c, struct io_u *last,
		unsigned long long offset, unsigned long long len)
{
	struct gpspm_client *g = c->engine;
	unsigned int slot;

	if (!g->nfree) {	/* cannot happen: a flush covers at least one io_u */
		td_verror(td, EBUSY, "no free GPSPM request slot");
		return -1;
	}
	slot = g->free_slots[--g->nfree];
	g->inflight[slot] = last;
	return send_req(td, c, RPMA_FIO_GPSPM_FLUSH, slot, offset, len);
}

static bool
gpspm_owns_wc(const struct rpma_fio_client *c, uint64_t wr_id)
{
	const struct gpspm_client *g = c->engine;
	uintptr_t first = (uintptr_t)(g->buf + RESP_OFF(g, 0));

	return wr_id >= first && wr_id < (uintptr_t)(g->buf + RESP_OFF(g, g->nslots));
}

/* A response: the bytes are the server's, so the slot is checked. */
static struct io_u *
gpspm_recv_wc(struct thread_data *td, struct rpma_fio_client *c, const struct ibv_wc *wc,
		int *err)
{
	struct gpspm_client *g = c->engine;
	unsigned int r = (unsigned int)((wc->wr_id - (uintptr_t)(g->buf + RESP_OFF(g, 0))) /
			sizeof(struct rpma_fio_gpspm_resp));
	struct rpma_fio_gpspm_resp resp;
	struct io_u *io_u;

	if (r >= g->nslots)
		return NULL;
	resp = *(struct rpma_fio_gpspm_resp *)(void *)(g->buf + RESP_OFF(g, r));
	if (post_recv(td, c, g, r))
		*err = EIO;
	if (wc->byte_len != sizeof(resp) || resp.slot >= g->nslots || !g->inflight[resp.slot]) {
		log_err("fio: %s: a malformed flush response from the server\n", td->o.name);
		*err = EPROTO;
		return NULL;
	}
	io_u = g->inflight[resp.slot];
	g->inflight[resp.slot] = NULL;
	g->free_slots[g->nfree++] = resp.slot;
	if (resp.status)
		*err = resp.status < 4096 ? (int)resp.status : EIO;
	return io_u;
}

/* Tell the server's job to end, and wait until the message has left. */
static void
gpspm_closing(struct thread_data *td, struct rpma_fio_client *c)
{
	struct gpspm_client *g = c->engine;
	struct ibv_wc wc;
	int got;

	if (!g || !g->mr || !g->nfree || td->error)
		return;
	if (send_req(td, c, RPMA_FIO_GPSPM_DONE, g->free_slots[g->nfree - 1], 0, 0))
		return;
	do {
		if (rpma_fio_wait_wc(td, c->conn, c->cq, c->busy, &wc, 1, &got))
			return;
	} while (wc.opcode != IBV_WC_SEND || wc.status != IBV_WC_SUCCESS);
}

static void
gpspm_release(struct thread_data *td, struct rpma_fio_client *c)
{
	struct gpspm_client *g = c->engine;

	(void) td;
	if (!g)
		return;
	if (g->mr)
		(void) rpma_mr_dereg(&g->mr);
	free(g->buf);
	free(g->inflight);
	free(g->free_slots);
	free(g);
	c->engine = NULL;
}

static const struct rpma_fio_client_ops gpspm_ops = {
	.rq_size = gpspm_rq_size,
	.connected = gpspm_connected,
	.flush = gpspm_flush,
	.owns_wc = gpspm_owns_wc,
	.recv_wc = gpspm_recv_wc,
	.closing = gpspm_closing,
	.release = gpspm_release,
};

static int
gpspm_client_init(struct thread_data *td)
{
	return rpma_fio_client_init(td, &gpspm_ops);
}

RPMA_FIO_ENGINE = {
	.name = "librpma_gpspm_client",
	.init = gpspm_client_init,
	RPMA_FIO_CLIENT_HOOKS,
};
