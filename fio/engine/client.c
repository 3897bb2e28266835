// SPDX-License-Identifier: BSD-3-Clause
/*
 * client.c -- the client side of the librpma engines: connects to the
 * server's job on port + the job's clone index, takes the server's region
 * from the connection's private data, and turns fio's io_us into RDMA reads
 * and writes. A write completes when the flush posted after it completes;
 * a batch of writes shares one flush (one per write with sync=1).
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"

static int
conn_cfg_new(struct thread_data *td, const struct rpma_fio_client_ops *ops,
		struct rpma_conn_cfg **cfg)
{
	unsigned int depth = td->o.iodepth;
	/* each write, its flush (or flush message) and a read; the last message */
	uint32_t sq = 2 * depth + 2;
	uint32_t rq = ops->rq_size ? ops->rq_size(td) : 1;
	int ret = rpma_conn_cfg_new(cfg);

	if (ret)
		return ret;
	if ((ret = rpma_conn_cfg_set_sq_size(*cfg, sq)) ||
			(ret = rpma_conn_cfg_set_rq_size(*cfg, rq)) ||
			(ret = rpma_conn_cfg_set_cq_size(*cfg, sq + rq)))
		(void) rpma_conn_cfg_delete(cfg);
	return ret;
}

/* Wait until the server accepts; anything else is fio's ordinary error. */
static int
wait_established(struct thread_data *td, struct rpma_fio_client *c, const char *port)
{
	enum rpma_conn_event ev;
	int ret = rpma_conn_next_event(c->conn, &ev);

	if (ret) {
		rpma_fio_err(td, "rpma_conn_next_event()", ret);
		return -1;
	}
	if (ev != RPMA_CONN_ESTABLISHED) {
		log_err("fio: %s: connecting to %s:%s: %s (is the server's job running?)\n",
				td->o.name, ((struct rpma_fio_options *)td->eo)->serverip, port,
				rpma_utils_conn_event_2str(ev));
		td_verror(td, ECONNREFUSED, "connect");
		/* never established: nothing to disconnect, no event to wait for */
		(void) rpma_conn_delete(&c->conn);
		return -1;
	}
	return 0;
}

/* The server's region and peer configuration; the bytes are the peer's: checked. */
static int
take_private_data(struct thread_data *td, struct rpma_fio_client *c)
{
	struct rpma_fio_options *o = td->eo;
	struct rpma_conn_private_data pdata;
	struct rpma_fio_pdata pd = {0};
	struct rpma_peer_cfg *pcfg;
	bool dwtp = false;
	int flush_types, ret;

	ret = rpma_conn_get_private_data(c->conn, &pdata);
	if (ret == 0 && pdata.len >= 2)
		memcpy(&pd, pdata.ptr, pdata.len < sizeof(pd) ? pdata.len : sizeof(pd));
	if (ret || pdata.len < 2 || pd.mr_desc_size + pd.pcfg_desc_size > pdata.len - 2u) {
		log_err("fio: %s: the server sent no region descriptor: is it a librpma server job?\n",
				td->o.name);
		td_verror(td, EPROTO, "private data");
		return -1;
	}
	ret = rpma_mr_remote_from_descriptor(pd.desc, pd.mr_desc_size, &c->remote);
	if (ret) {
		rpma_fio_err(td, "rpma_mr_remote_from_descriptor()", ret);
		return -1;
	}
	ret = rpma_peer_cfg_from_descriptor(pd.desc + pd.mr_desc_size, pd.pcfg_desc_size, &pcfg);
	if (ret) {
		rpma_fio_err(td, "rpma_peer_cfg_from_descriptor()", ret);
		return -1;
	}
	(void) rpma_peer_cfg_get_direct_write_to_pmem(pcfg, &dwtp);
	/* the client's direct_write_to_pmem=1 states it for a server that does not */
	if (o->direct_write_to_pmem && !dwtp)
		(void) rpma_peer_cfg_set_direct_write_to_pmem(pcfg, true);
	dwtp = dwtp || o->direct_write_to_pmem;
	ret = rpma_conn_apply_remote_peer_cfg(c->conn, pcfg);
	(void) rpma_peer_cfg_delete(&pcfg);
	if (ret) {
		rpma_fio_err(td, "rpma_conn_apply_remote_peer_cfg()", ret);
		return -1;
	}
	(void) rpma_mr_remote_get_size(c->remote, &c->remote_size);
	(void) rpma_mr_remote_get_flush_type(c->remote, &flush_types);
	c->flush_type = dwtp && (flush_types & RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT) ?
			RPMA_FLUSH_TYPE_PERSISTENT : RPMA_FLUSH_TYPE_VISIBILITY;
	if (dwtp && c->flush_type != RPMA_FLUSH_TYPE_PERSISTENT)
		log_info("fio: %s: direct_write_to_pmem but the server's memory is not pmem: "
				"flushing to visibility\n", td->o.name);
	return 0;
}

static int
connect_server(struct thread_data *td, struct rpma_fio_client *c)
{
	struct rpma_fio_options *o = td->eo;
	struct ibv_context *ibv;
	struct rpma_conn_cfg *cfg;
	struct rpma_conn_req *req;
	char port[8];
	int ret;

	if (rpma_fio_port(td, port, sizeof(port)))
		return -1;
	ret = rpma_utils_get_ibv_context(o->serverip, RPMA_UTIL_IBV_CONTEXT_REMOTE, &ibv);
	if (ret) {
		rpma_fio_err(td, "rpma_utils_get_ibv_context()", ret);
		return -1;
	}
	if ((ret = rpma_peer_new(ibv, &c->peer))) {
		rpma_fio_err(td, "rpma_peer_new()", ret);
		return -1;
	}
	if ((ret = conn_cfg_new(td, c->ops, &cfg))) {
		rpma_fio_err(td, "rpma_conn_cfg_new()", ret);
		return -1;
	}
	ret = rpma_conn_req_new(c->peer, o->serverip, port, cfg, &req);
	(void) rpma_conn_cfg_delete(&cfg);
	if (ret) {
		rpma_fio_err(td, "rpma_conn_req_new()", ret);
		return -1;
	}
	if ((ret = rpma_conn_req_connect(&req, NULL, &c->conn))) {
		rpma_fio_err(td, "rpma_conn_req_connect()", ret);
		return -1;
	}
	if (wait_established(td, c, port) || take_private_data(td, c))
		return -1;
	if ((ret = rpma_conn_get_cq(c->conn, &c->cq))) {
		rpma_fio_err(td, "rpma_conn_get_cq()", ret);
		return -1;
	}
	return c->ops->connected ? c->ops->connected(td, c, &c->engine) : 0;
}

int
rpma_fio_client_init(struct thread_data *td, const struct rpma_fio_client_ops *ops)
{
	struct rpma_fio_options *o = td->eo;
	struct rpma_fio_client *c;
	unsigned int depth = td->o.iodepth;

	if (rpma_fio_serverip_check(td))
		return 1;
	c = calloc(1, sizeof(*c));
	if (!c)
		return 1;
	c->ops = ops;
	c->depth = depth;
	c->busy = o->busy_wait_polling;
	c->queued = calloc(depth, sizeof(*c->queued));
	c->writes = calloc(depth, sizeof(*c->writes));
	c->done = calloc(depth, sizeof(*c->done));
	td->io_ops_data = c;
	if (!c->queued || !c->writes || !c->done) {
		td_verror(td, ENOMEM, "calloc");
		return 1;
	}
	/* the rest of the set-up is undone by cleanup, which fio calls on failure */
	return connect_server(td, c) ? 1 : 0;
}

int
rpma_fio_client_post_init(struct thread_data *td)
{
	struct rpma_fio_client *c = td->io_ops_data;
	int ret = rpma_mr_reg(c->peer, td->orig_buffer, td->orig_buffer_size,
			RPMA_MR_USAGE_READ_DST | RPMA_MR_USAGE_WRITE_SRC, &c->local);

	if (ret) {
		rpma_fio_err(td, "rpma_mr_reg()", ret);
		return 1;
	}
	return 0;
}

/* The remote region is the job's file: its size is known once connected. */
int
rpma_fio_client_setup(struct thread_data *td)
{
	struct rpma_fio_client *c = td->io_ops_data;
	unsigned int i;

	if (!c) {
		log_err("fio: %s: the librpma client engines need create_serialize=0\n",
				td->o.name);
		return 1;
	}
	if (!td->o.size)
		td->o.size = c->remote_size;
	if (td->o.size > c->remote_size) {
		log_err("fio: %s: size=%llu exceeds the server's region (%zu bytes)\n",
				td->o.name, (unsigned long long)td->o.size, c->remote_size);
		return 1;
	}
	for (i = 0; i < td->o.nr_files; i++) {
		td->files[i]->real_file_size = c->remote_size;
		fio_file_set_size_known(td->files[i]);
	}
	return 0;
}

int
rpma_fio_client_open_file(struct thread_data *td, struct fio_file *f)
{
	(void) td;
	(void) f;
	return 0;
}

int
rpma_fio_client_close_file(struct thread_data *td, struct fio_file *f)
{
	(void) td;
	(void) f;
	return 0;
}

size_t
rpma_fio_client_buf_offset(struct thread_data *td, const struct io_u *io_u)
{
	return (size_t)((char *)io_u->buf - td->orig_buffer);
}

enum fio_q_status
rpma_fio_client_queue(struct thread_data *td, struct io_u *io_u)
{
	struct rpma_fio_client *c = td->io_ops_data;

	fio_ro_check(td, io_u);
	if (io_u->ddir == DDIR_SYNC || io_u->ddir == DDIR_DATASYNC)
		return FIO_Q_COMPLETED;	/* every write is flushed already */
	if (io_u->ddir != DDIR_READ && io_u->ddir != DDIR_WRITE) {
		io_u->error = EINVAL;
		return FIO_Q_COMPLETED;
	}
	if (c->nqueued == c->depth)
		return FIO_Q_BUSY;
	c->queued[c->nqueued++] = io_u;
	return FIO_Q_QUEUED;
}

static void take_wc(struct thread_data *td, struct rpma_fio_client *c, const struct ibv_wc *wc);

/*
 * The send queue fills when completions come late (rxe acknowledges
 * lazily): on ENOMEM take what has completed, and the caller retries.
 */
bool
rpma_fio_client_sq_full(struct thread_data *td, struct rpma_fio_client *c, int ret)
{
	struct ibv_wc wc[16];
	int got, i;

	if (ret != RPMA_E_PROVIDER || errno != ENOMEM)
		return false;
	if (rpma_fio_wait_wc(td, c->conn, c->cq, c->busy, wc, 16, &got))
		return false;
	for (i = 0; i < got; i++)
		take_wc(td, c, &wc[i]);
	return true;
}

static int
post_read(struct thread_data *td, struct rpma_fio_client *c, struct io_u *io_u)
{
	int ret;

	do {
		ret = rpma_read(c->conn, c->local, rpma_fio_client_buf_offset(td, io_u), c->remote,
				io_u->offset, io_u->xfer_buflen, RPMA_F_COMPLETION_ALWAYS, io_u);
	} while (ret && rpma_fio_client_sq_full(td, c, ret));
	if (ret)
		rpma_fio_err(td, "rpma_read()", ret);
	return ret;
}

static int
post_write(struct thread_data *td, struct rpma_fio_client *c, struct io_u *io_u)
{
	int ret;

	do {
		ret = rpma_write(c->conn, c->remote, io_u->offset, c->local,
				rpma_fio_client_buf_offset(td, io_u), io_u->xfer_buflen,
				RPMA_F_COMPLETION_ON_ERROR, NULL);
	} while (ret && rpma_fio_client_sq_full(td, c, ret));
	if (ret) {
		rpma_fio_err(td, "rpma_write()", ret);
		return ret;
	}
	c->writes[(c->whead + c->wcount++) % c->depth] = io_u;
	return 0;
}

/* Posts the queued io_us in order; writes share one flush, after the last. */
int
rpma_fio_client_commit(struct thread_data *td)
{
	struct rpma_fio_client *c = td->io_ops_data;
	unsigned long long lo = ~0ULL, hi = 0;
	struct io_u *last = NULL;
	unsigned int i;

	for (i = 0; i < c->nqueued; i++) {
		struct io_u *io_u = c->queued[i];

		if (io_u->ddir == DDIR_READ) {
			if (post_read(td, c, io_u))
				return -1;
			continue;
		}
		if (post_write(td, c, io_u))
			return -1;
		lo = io_u->offset < lo ? io_u->offset : lo;
		hi = io_u->offset + io_u->xfer_buflen > hi ? io_u->offset + io_u->xfer_buflen : hi;
		last = io_u;
		if (td->o.sync_io) {
			if (c->ops->flush(td, c, last, lo, hi - lo))
				return -1;
			lo = ~0ULL, hi = 0, last = NULL;
		}
	}
	if (last && c->ops->flush(td, c, last, lo, hi - lo))
		return -1;
	c->nqueued = 0;
	return 0;
}

static void
mark_done(struct rpma_fio_client *c, struct io_u *io_u, int err)
{
	io_u->error = err;
	c->done[c->ndone++] = io_u;
}

/* The flush after last completed: so did every write posted up to last. */
static void
writes_done(struct rpma_fio_client *c, struct io_u *last, int err)
{
	while (c->wcount) {
		struct io_u *io_u = c->writes[c->whead];

		c->whead = (c->whead + 1) % c->depth;
		c->wcount--;
		mark_done(c, io_u, err);
		if (io_u == last)
			break;
	}
}

static void
take_wc(struct thread_data *td, struct rpma_fio_client *c, const struct ibv_wc *wc)
{
	struct io_u *io_u = (struct io_u *)(uintptr_t)wc->wr_id;
	int err = wc->status == IBV_WC_SUCCESS ? 0 : EIO;

	if (err)
		log_err("fio: %s: completion error: %s\n", td->o.name,
				ibv_wc_status_str(wc->status));
	if (c->ops->owns_wc && c->ops->owns_wc(c, wc->wr_id)) {
		/* a failed receive: the connection is gone, and with it every write */
		io_u = err ? NULL : c->ops->recv_wc(td, c, wc, &err);
		if (io_u || err)
			writes_done(c, io_u, err);
	} else if (io_u && io_u->ddir == DDIR_READ) {
		mark_done(c, io_u, err);
	} else if (io_u) {
		writes_done(c, io_u, err);
	} else if (err) {
		/* an unsignaled write or message failed: the QP is lost, so is every write */
		writes_done(c, NULL, err);
	}
}

int
rpma_fio_client_getevents(struct thread_data *td, unsigned int min, unsigned int max,
		const struct timespec *t)
{
	struct rpma_fio_client *c = td->io_ops_data;
	struct ibv_wc wc[16];
	int got, i;

	(void) t;
	/* what fio took by event() last time goes */
	memmove(c->done, c->done + c->nreturned, (c->ndone - c->nreturned) * sizeof(*c->done));
	c->ndone -= c->nreturned;
	c->nreturned = 0;

	/* min 0: take what is there, without waiting */
	if (min == 0 && rpma_cq_get_wc(c->cq, 16, wc, &got) == 0) {
		for (i = 0; i < got; i++)
			take_wc(td, c, &wc[i]);
	}
	while (c->ndone < min) {
		int ret = rpma_fio_wait_wc(td, c->conn, c->cq, c->busy, wc, 16, &got);

		if (ret) {
			c->closed = ret == 1;
			if (c->closed)
				td_verror(td, ECONNRESET, "the server closed the connection");
			return -1;
		}
		for (i = 0; i < got; i++)
			take_wc(td, c, &wc[i]);
	}
	c->nreturned = c->ndone < max ? c->ndone : max;
	return (int)c->nreturned;
}

struct io_u *
rpma_fio_client_event(struct thread_data *td, int event)
{
	struct rpma_fio_client *c = td->io_ops_data;

	return c->done[event];
}

void
rpma_fio_client_cleanup(struct thread_data *td)
{
	struct rpma_fio_client *c = td->io_ops_data;

	if (!c)
		return;
	if (c->conn) {
		if (c->ops->closing)
			c->ops->closing(td, c);
		rpma_fio_disconnect(&c->conn, c->closed);
	}
	if (c->ops->release)
		c->ops->release(td, c);
	else
		free(c->engine);
	if (c->local)
		(void) rpma_mr_dereg(&c->local);
	if (c->remote)
		(void) rpma_mr_remote_delete(&c->remote);
	if (c->peer)
		(void) rpma_peer_delete(&c->peer);
	free(c->queued);
	free(c->writes);
	free(c->done);
	free(c);
	td->io_ops_data = NULL;
}
