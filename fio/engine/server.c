// SPDX-License-Identifier: BSD-3-Clause
/*
 * server.c -- the server side of the librpma engines. init maps the
 * memory, registers this job's workspace and starts listening, so that all
 * of fio's server jobs listen before any waits; open_file accepts the
 * client and hands it the workspace's descriptor and the peer configuration
 * (direct_write_to_pmem) in the connection's private data.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "server.h"

static int
map_workspace(struct thread_data *td, struct rpma_fio_server *s)
{
	const char *path = td->files_index ? td->files[0]->file_name : "malloc";
	size_t size = td->o.size;
	size_t first;

	if (rpma_fio_mem_open(path, size, &s->mem))
		return -1;
	if (size == 0)		/* no size=: the clones share the device evenly */
		size = (s->mem.size / td->o.numjobs) & ~(size_t)4095;
	/* with malloc each job allocates its own */
	first = strcmp(path, "malloc") ? size * td->subjob_number : 0;
	if (size == 0 || first + size > s->mem.size) {
		log_err("fio: %s: %s has %zu bytes, job %u needs [%zu, %zu)\n", td->o.name,
				path, s->mem.size, td->subjob_number, first, first + size);
		return -1;
	}
	s->ws = s->mem.base + first;
	s->ws_size = size;
	return 0;
}

static int
listen_on(struct thread_data *td, struct rpma_fio_server *s)
{
	struct rpma_fio_options *o = td->eo;
	struct ibv_context *ibv;
	char port[8];
	int usage = RPMA_MR_USAGE_READ_SRC | RPMA_MR_USAGE_WRITE_DST |
			RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY;
	int ret;

	if (rpma_fio_port(td, port, sizeof(port)))
		return -1;
	if ((ret = rpma_utils_get_ibv_context(o->serverip, RPMA_UTIL_IBV_CONTEXT_LOCAL, &ibv))) {
		rpma_fio_err(td, "rpma_utils_get_ibv_context()", ret);
		return -1;
	}
	if ((ret = rpma_peer_new(ibv, &s->peer))) {
		rpma_fio_err(td, "rpma_peer_new()", ret);
		return -1;
	}
	if (s->mem.pmem)
		usage |= RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT;
	if ((ret = rpma_mr_reg(s->peer, s->ws, s->ws_size, usage, &s->mr))) {
		rpma_fio_err(td, "rpma_mr_reg()", ret);
		return -1;
	}
	if (s->ops->prepare && s->ops->prepare(td, s, &s->engine))
		return -1;
	if ((ret = rpma_ep_listen(s->peer, o->serverip, port, &s->ep))) {
		rpma_fio_err(td, "rpma_ep_listen()", ret);
		return -1;
	}
	log_info("fio: %s: listening on %s:%s, %zu bytes of %s\n", td->o.name, o->serverip,
			port, s->ws_size, s->mem.pmem ? "pmem" : "DRAM");
	return 0;
}

int
rpma_fio_server_init(struct thread_data *td, const struct rpma_fio_server_ops *ops)
{
	struct rpma_fio_options *o = td->eo;
	struct rpma_fio_server *s;

	if (rpma_fio_serverip_check(td))
		return 1;
	s = calloc(1, sizeof(*s));
	if (!s)
		return 1;
	s->ops = ops;
	s->mem.fd = -1;
	s->busy = o->busy_wait_polling;
	td->io_ops_data = s;
	/* what is set up here, cleanup releases; fio calls it on failure too */
	if (map_workspace(td, s) || listen_on(td, s)) {
		if (!td->error)
			td_verror(td, EINVAL, "server set-up");
		return 1;
	}
	return 0;
}

int
rpma_fio_server_setup(struct thread_data *td)
{
	struct rpma_fio_server *s = td->io_ops_data;

	if (!s) {
		log_err("fio: %s: the librpma server engines need create_serialize=0\n",
				td->o.name);
		return 1;
	}
	if (!td->o.size)
		td->o.size = s->ws_size;
	return 0;
}

static int
pdata_fill(struct thread_data *td, struct rpma_fio_server *s, struct rpma_fio_pdata *pd)
{
	struct rpma_fio_options *o = td->eo;
	struct rpma_peer_cfg *pcfg;
	size_t mr_size, pcfg_size;
	int ret;

	if ((ret = rpma_peer_cfg_new(&pcfg)))
		return ret;
	(void) rpma_peer_cfg_set_direct_write_to_pmem(pcfg, o->direct_write_to_pmem);
	if (!(ret = rpma_mr_get_descriptor_size(s->mr, &mr_size)) &&
			!(ret = rpma_peer_cfg_get_descriptor_size(pcfg, &pcfg_size))) {
		if (mr_size + pcfg_size > sizeof(pd->desc)) {
			ret = RPMA_E_INVAL;
		} else {
			pd->mr_desc_size = (uint8_t)mr_size;
			pd->pcfg_desc_size = (uint8_t)pcfg_size;
			if (!(ret = rpma_mr_get_descriptor(s->mr, pd->desc)))
				ret = rpma_peer_cfg_get_descriptor(pcfg, pd->desc + mr_size);
		}
	}
	(void) rpma_peer_cfg_delete(&pcfg);
	if (ret)
		rpma_fio_err(td, "descriptors", ret);
	return ret;
}

static int
accept_client(struct thread_data *td, struct rpma_fio_server *s)
{
	struct rpma_conn_private_data pdata;
	struct rpma_fio_pdata pd = {0};
	struct rpma_conn_cfg *cfg;
	struct rpma_conn_req *req;
	enum rpma_conn_event ev;
	uint32_t sq = s->ops->sq_size ? s->ops->sq_size(td) : 1;
	uint32_t rq = s->ops->rq_size ? s->ops->rq_size(td) : 1;
	int fd, ret;

	if (pdata_fill(td, s, &pd))
		return -1;
	if ((ret = rpma_conn_cfg_new(&cfg)) || (ret = rpma_conn_cfg_set_sq_size(cfg, sq)) ||
			(ret = rpma_conn_cfg_set_rq_size(cfg, rq)) ||
			(ret = rpma_conn_cfg_set_cq_size(cfg, sq + rq))) {
		rpma_fio_err(td, "rpma_conn_cfg_*()", ret);
		(void) rpma_conn_cfg_delete(&cfg);
		return -1;
	}
	/* the client may take long to come: fio may stop the job meanwhile */
	if ((ret = rpma_ep_get_fd(s->ep, &fd)) == 0 && rpma_fio_wait_fd(td, fd)) {
		(void) rpma_conn_cfg_delete(&cfg);
		return -1;
	}
	ret = rpma_ep_next_conn_req(s->ep, cfg, &req);
	(void) rpma_conn_cfg_delete(&cfg);
	if (ret) {
		rpma_fio_err(td, "rpma_ep_next_conn_req()", ret);
		return -1;
	}
	if (s->ops->accepting && s->ops->accepting(td, s, req)) {
		(void) rpma_conn_req_delete(&req);
		return -1;
	}
	pdata.ptr = &pd;
	pdata.len = (uint8_t)(2 + pd.mr_desc_size + pd.pcfg_desc_size);
	if ((ret = rpma_conn_req_connect(&req, &pdata, &s->conn))) {
		rpma_fio_err(td, "rpma_conn_req_connect()", ret);
		return -1;
	}
	if ((ret = rpma_conn_next_event(s->conn, &ev)) || ev != RPMA_CONN_ESTABLISHED) {
		log_err("fio: %s: the client did not connect (%s)\n", td->o.name,
				ret ? rpma_err_2str(ret) : rpma_utils_conn_event_2str(ev));
		td_verror(td, ECONNABORTED, "accept");
		(void) rpma_conn_delete(&s->conn);
		return -1;
	}
	if ((ret = rpma_conn_get_cq(s->conn, &s->cq))) {
		rpma_fio_err(td, "rpma_conn_get_cq()", ret);
		return -1;
	}
	return 0;
}

/* fio opens the job's one file once the job runs: the client is taken here */
int
rpma_fio_server_open_file(struct thread_data *td, struct fio_file *f)
{
	struct rpma_fio_server *s = td->io_ops_data;

	(void) f;
	if (s->conn)
		return 0;
	return accept_client(td, s) ? 1 : 0;
}

int
rpma_fio_server_close_file(struct thread_data *td, struct fio_file *f)
{
	(void) td;
	(void) f;
	return 0;
}

enum fio_q_status
rpma_fio_server_end(struct thread_data *td, struct io_u *io_u, bool closed)
{
	struct rpma_fio_server *s = td->io_ops_data;

	(void) io_u;
	s->closed = closed;
	td->done = 1;
	return FIO_Q_COMPLETED;
}

void
rpma_fio_server_cleanup(struct thread_data *td)
{
	struct rpma_fio_server *s = td->io_ops_data;

	if (!s)
		return;
	if (s->conn)
		rpma_fio_disconnect(&s->conn, s->closed);
	if (s->ep)
		(void) rpma_ep_shutdown(&s->ep);
	if (s->ops->release)
		s->ops->release(td, s);
	if (s->mr)
		(void) rpma_mr_dereg(&s->mr);
	if (s->peer)
		(void) rpma_peer_delete(&s->peer);
	rpma_fio_mem_close(&s->mem);
	free(s);
	td->io_ops_data = NULL;
}
