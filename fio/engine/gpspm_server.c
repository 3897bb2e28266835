// SPDX-License-Identifier: BSD-3-Clause
/*
 * gpspm_server.c -- fio engine librpma_gpspm_server: the General Purpose
 * Server Persistency Method. Each io_u of the job serves one flush request
 * of the client: the range is persisted through libpmem2 (nothing to do on
 * DRAM) and a response goes back. The job ends when the client says so or
 * disconnects; up to iodepth requests may be in flight.
 */

#include <errno.h>
#include <stdlib.h>

#include "server.h"

struct gpspm_server {
	struct rpma_mr_local *mr;
	char *buf;			/* nreq requests, then nresp responses */
	unsigned int nreq, nresp, next_resp;
	unsigned int sq, unpolled;	/* responses posted whose completion is not taken */
	struct ibv_wc *stash;		/* requests taken while waiting for a free entry */
	unsigned int stash_head, nstash;
};

#define REQ_SIZE sizeof(struct rpma_fio_gpspm_req)
#define RESP_SIZE sizeof(struct rpma_fio_gpspm_resp)
#define RESP_OFF(g, i) ((g)->nreq * REQ_SIZE + (size_t)(i) * RESP_SIZE)

/*
 * A response's send completion may come after the client's next request
 * (rxe acknowledges lazily): room for two responses per request slot, and
 * respond() waits for a free entry when even that is not enough.
 */
static uint32_t
gpspm_sq_size(struct thread_data *td)
{
	return 2 * td->o.iodepth;
}

static uint32_t
gpspm_rq_size(struct thread_data *td)
{
	return td->o.iodepth;
}

static int
gpspm_prepare(struct thread_data *td, struct rpma_fio_server *s, void **engine)
{
	struct gpspm_server *g = calloc(1, sizeof(*g));
	int ret;

	if (!g)
		return -1;
	*engine = g;
	g->nreq = td->o.iodepth;
	/*
	 * One more response buffer than send-queue entries: when one is reused,
	 * the send that used it last has completed, or the queue would be full.
	 */
	g->sq = gpspm_sq_size(td);
	g->nresp = g->sq + 1;
	g->buf = calloc(1, RESP_OFF(g, g->nresp));
	g->stash = calloc(g->nreq, sizeof(*g->stash));
	if (!g->buf || !g->stash) {
		td_verror(td, ENOMEM, "calloc");
		return -1;
	}
	ret = rpma_mr_reg(s->peer, g->buf, RESP_OFF(g, g->nresp),
			RPMA_MR_USAGE_SEND | RPMA_MR_USAGE_RECV, &g->mr);
	if (ret)
		rpma_fio_err(td, "rpma_mr_reg()", ret);
	return ret ? -1 : 0;
}

static int
gpspm_accepting(struct thread_data *td, struct rpma_fio_server *s, struct rpma_conn_req *req)
{
	struct gpspm_server *g = s->engine;
	unsigned int i;
	int ret;

	for (i = 0; i < g->nreq; i++) {
		ret = rpma_conn_req_recv(req, g->mr, i * REQ_SIZE, REQ_SIZE, g->buf + i * REQ_SIZE);
		if (ret) {
			rpma_fio_err(td, "rpma_conn_req_recv()", ret);
			return -1;
		}
	}
	return 0;
}

static void
gpspm_release(struct thread_data *td, struct rpma_fio_server *s)
{
	struct gpspm_server *g = s->engine;

	(void) td;
	if (!g)
		return;
	if (g->mr)
		(void) rpma_mr_dereg(&g->mr);
	free(g->buf);
	free(g->stash);
	free(g);
	s->engine = NULL;
}

/* Persist what the request names, if it lies in the workspace: its bytes are the client's. */
static uint32_t
persist(struct rpma_fio_server *s, const struct rpma_fio_gpspm_req *req)
{
	if (req->offset > s->ws_size || req->length > s->ws_size - req->offset)
		return EINVAL;
	if (s->mem.persist)
		s->mem.persist(s->ws + req->offset, req->length);
	return 0;
}

/* Take completions until a send-queue entry is free; requests wait in the stash. */
static int
wait_free_entry(struct thread_data *td, struct rpma_fio_server *s)
{
	struct gpspm_server *g = s->engine;
	struct ibv_wc wc;
	int got;

	while (g->unpolled >= g->sq) {
		if (rpma_fio_wait_wc(td, s->conn, s->cq, s->busy, &wc, 1, &got) ||
				wc.status != IBV_WC_SUCCESS || g->nstash == g->nreq)
			return -1;
		if (wc.opcode == IBV_WC_RECV)
			g->stash[(g->stash_head + g->nstash++) % g->nreq] = wc;
		else
			g->unpolled--;
	}
	return 0;
}

static int
respond(struct thread_data *td, struct rpma_fio_server *s, uint32_t slot, uint32_t status)
{
	struct gpspm_server *g = s->engine;
	unsigned int i = g->next_resp;
	struct rpma_fio_gpspm_resp *resp = (void *)(g->buf + RESP_OFF(g, i));
	int ret;

	if (wait_free_entry(td, s))
		return -1;

	g->next_resp = (i + 1) % g->nresp;
	resp->slot = slot;
	resp->status = status;
	ret = rpma_send(s->conn, g->mr, RESP_OFF(g, i), RESP_SIZE, RPMA_F_COMPLETION_ALWAYS,
			NULL);
	if (ret)
		rpma_fio_err(td, "rpma_send()", ret);
	else
		g->unpolled++;
	return ret;
}

/* Serves one request; 1: the client is done; -1: failed. */
static int
serve(struct thread_data *td, struct rpma_fio_server *s, const struct ibv_wc *wc)
{
	struct gpspm_server *g = s->engine;
	char *slot = (char *)(uintptr_t)wc->wr_id;
	struct rpma_fio_gpspm_req req = {0};
	int ret;

	if (slot < g->buf || slot >= g->buf + g->nreq * REQ_SIZE)
		return 0;	/* not a receive */
	if (wc->byte_len == REQ_SIZE)
		req = *(struct rpma_fio_gpspm_req *)(void *)slot;
	if (req.op == RPMA_FIO_GPSPM_DONE)
		return 1;
	if (req.op != RPMA_FIO_GPSPM_FLUSH) {
		log_err("fio: %s: a malformed request from the client\n", td->o.name);
		td_verror(td, EPROTO, "request");
		return -1;
	}
	if ((ret = rpma_recv(s->conn, g->mr, (size_t)(slot - g->buf), REQ_SIZE, slot))) {
		rpma_fio_err(td, "rpma_recv()", ret);
		return -1;
	}
	return respond(td, s, req.slot, persist(s, &req)) ? -1 : 0;
}

/*
 * The next request's completion, the stash's first: 0; 1 the client closed
 * the connection; 2 its receives were flushed (it is gone); -1 failed
 */
static int
next_request(struct thread_data *td, struct rpma_fio_server *s, struct ibv_wc *wc)
{
	struct gpspm_server *g = s->engine;
	int got, ret;

	if (g->nstash) {
		*wc = g->stash[g->stash_head];
		g->stash_head = (g->stash_head + 1) % g->nreq;
		g->nstash--;
		return 0;
	}
	for (;;) {
		ret = rpma_fio_wait_wc(td, s->conn, s->cq, s->busy, wc, 1, &got);
		if (ret)
			return ret;
		/* an error completion: the client is gone, its receives flushed */
		if (wc->status != IBV_WC_SUCCESS)
			return 2;
		if (wc->opcode == IBV_WC_RECV)
			return 0;
		g->unpolled--;
	}
}

static enum fio_q_status
gpspm_server_queue(struct thread_data *td, struct io_u *io_u)
{
	struct rpma_fio_server *s = td->io_ops_data;
	struct ibv_wc wc;
	int ret = next_request(td, s, &wc);

	if (ret > 0)
		return rpma_fio_server_end(td, io_u, ret == 1);
	if (ret == 0)
		ret = serve(td, s, &wc);
	if (ret == 1)
		return rpma_fio_server_end(td, io_u, false);
	if (ret < 0)
		io_u->error = td->error ? td->error : EIO;
	return FIO_Q_COMPLETED;
}

/* every io_u completes in queue(): there is never anything to reap */
static int
gpspm_server_getevents(struct thread_data *td, unsigned int min, unsigned int max,
		const struct timespec *t)
{
	(void) td;
	(void) min;
	(void) max;
	(void) t;
	return 0;
}

static struct io_u *
gpspm_server_event(struct thread_data *td, int event)
{
	(void) td;
	(void) event;
	return NULL;
}

static const struct rpma_fio_server_ops gpspm_ops = {
	.sq_size = gpspm_sq_size,
	.rq_size = gpspm_rq_size,
	.prepare = gpspm_prepare,
	.accepting = gpspm_accepting,
	.release = gpspm_release,
};

static int
gpspm_server_init(struct thread_data *td)
{
	return rpma_fio_server_init(td, &gpspm_ops);
}

RPMA_FIO_ENGINE = {
	.name = "librpma_gpspm_server",
	/* not FIO_SYNCIO: fio would cap iodepth, the number of requests in flight, at 1 */
	.flags = FIO_DISKLESSIO | FIO_NOEXTEND | FIO_NODISKUTIL,
	.init = gpspm_server_init,
	.queue = gpspm_server_queue,
	.getevents = gpspm_server_getevents,
	.event = gpspm_server_event,
	RPMA_FIO_SERVER_HOOKS,
};
