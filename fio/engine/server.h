/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * server.h -- the server side both server engines share: the job's
 * workspace, listening on port + the job's clone index, and accepting the
 * one client the job serves.
 */

#ifndef RPMA_FIO_SERVER_H
#define RPMA_FIO_SERVER_H

#include "rpma_fio.h"
#include "server_mem.h"

struct rpma_fio_server;

struct rpma_fio_server_ops {
	/* queue sizes the engine needs */
	uint32_t (*sq_size)(struct thread_data *td);
	uint32_t (*rq_size)(struct thread_data *td);
	/* once the peer exists; may keep its state in *engine */
	int (*prepare)(struct thread_data *td, struct rpma_fio_server *s, void **engine);
	/* a client is at the door: what must be in place before accepting */
	int (*accepting)(struct thread_data *td, struct rpma_fio_server *s,
			struct rpma_conn_req *req);
	/* release *engine */
	void (*release)(struct thread_data *td, struct rpma_fio_server *s);
};

struct rpma_fio_server {
	const struct rpma_fio_server_ops *ops;
	void *engine;
	struct rpma_fio_mem mem;
	char *ws;			/* this job's workspace in mem */
	size_t ws_size;
	struct rpma_peer *peer;
	struct rpma_mr_local *mr;
	struct rpma_ep *ep;
	struct rpma_conn *conn;
	struct rpma_cq *cq;
	bool busy;
	bool closed;			/* the client's disconnection was seen */
};

int rpma_fio_server_init(struct thread_data *td, const struct rpma_fio_server_ops *ops);
int rpma_fio_server_setup(struct thread_data *td);
int rpma_fio_server_open_file(struct thread_data *td, struct fio_file *f);
int rpma_fio_server_close_file(struct thread_data *td, struct fio_file *f);
void rpma_fio_server_cleanup(struct thread_data *td);

/* The client is gone (closed: its disconnection was seen) or said so: the job ends. */
enum fio_q_status rpma_fio_server_end(struct thread_data *td, struct io_u *io_u, bool closed);

/* The ioengine_ops fields both server engines share. */
#define RPMA_FIO_SERVER_HOOKS \
	.version = FIO_IOOPS_VERSION, \
	.setup = rpma_fio_server_setup, \
	.open_file = rpma_fio_server_open_file, \
	.close_file = rpma_fio_server_close_file, \
	.cleanup = rpma_fio_server_cleanup, \
	.options = rpma_fio_options, \
	.option_struct_size = sizeof(struct rpma_fio_options)

#endif
