/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * client.h -- the client side both client engines share: the connection to
 * the server's region and fio's queue, commit and reap of io_us. An engine
 * says how written data is made durable (a FLUSH, or a message) and takes
 * the completions of its messages.
 */

#ifndef RPMA_FIO_CLIENT_H
#define RPMA_FIO_CLIENT_H

#include "rpma_fio.h"

struct rpma_fio_client;

struct rpma_fio_client_ops {
	/* receive-queue entries the engine needs */
	unsigned int (*rq_size)(struct thread_data *td);
	/* after the connection is up; may keep its state in *engine */
	int (*connected)(struct thread_data *td, struct rpma_fio_client *c, void **engine);
	/* make the writes up to last visible/durable in [offset, offset + len) */
	int (*flush)(struct thread_data *td, struct rpma_fio_client *c, struct io_u *last,
			unsigned long long offset, unsigned long long len);
	/* is a completion's op_context one of the engine's receives? */
	bool (*owns_wc)(const struct rpma_fio_client *c, uint64_t wr_id);
	/* a receive completed: the last write io_u it completes (NULL: none) */
	struct io_u *(*recv_wc)(struct thread_data *td, struct rpma_fio_client *c,
			const struct ibv_wc *wc, int *err);
	/* before disconnecting */
	void (*closing)(struct thread_data *td, struct rpma_fio_client *c);
	/* after disconnecting: release *engine (default: free it) */
	void (*release)(struct thread_data *td, struct rpma_fio_client *c);
};

struct rpma_fio_client {
	const struct rpma_fio_client_ops *ops;
	void *engine;				/* the engine's own state */
	struct rpma_peer *peer;
	struct rpma_conn *conn;
	struct rpma_cq *cq;
	struct rpma_mr_remote *remote;
	size_t remote_size;
	enum rpma_flush_type flush_type;
	struct rpma_mr_local *local;		/* fio's io buffers */
	bool busy;
	bool closed;				/* the server's disconnection was seen */

	unsigned int depth;
	struct io_u **queued;			/* queued, not posted yet */
	unsigned int nqueued;
	struct io_u **writes;			/* posted writes, waiting for their flush (FIFO) */
	unsigned int whead, wcount;
	struct io_u **done;			/* completed, handed to fio by event() */
	unsigned int ndone, nreturned;
};

/* fio's hooks, shared by both client engines */
int rpma_fio_client_init(struct thread_data *td, const struct rpma_fio_client_ops *ops);
int rpma_fio_client_post_init(struct thread_data *td);
int rpma_fio_client_setup(struct thread_data *td);
int rpma_fio_client_open_file(struct thread_data *td, struct fio_file *f);
int rpma_fio_client_close_file(struct thread_data *td, struct fio_file *f);
enum fio_q_status rpma_fio_client_queue(struct thread_data *td, struct io_u *io_u);
int rpma_fio_client_commit(struct thread_data *td);
int rpma_fio_client_getevents(struct thread_data *td, unsigned int min, unsigned int max,
		const struct timespec *t);
struct io_u *rpma_fio_client_event(struct thread_data *td, int event);
void rpma_fio_client_cleanup(struct thread_data *td);

/* The ioengine_ops fields both client engines share. */
#define RPMA_FIO_CLIENT_HOOKS \
	.version = FIO_IOOPS_VERSION, \
	.flags = FIO_DISKLESSIO | FIO_NOEXTEND, \
	.post_init = rpma_fio_client_post_init, \
	.setup = rpma_fio_client_setup, \
	.open_file = rpma_fio_client_open_file, \
	.close_file = rpma_fio_client_close_file, \
	.queue = rpma_fio_client_queue, \
	.commit = rpma_fio_client_commit, \
	.getevents = rpma_fio_client_getevents, \
	.event = rpma_fio_client_event, \
	.cleanup = rpma_fio_client_cleanup, \
	.options = rpma_fio_options, \
	.option_struct_size = sizeof(struct rpma_fio_options)

/* ret is a post's ENOMEM: completions were taken, retry the post (true). */
bool rpma_fio_client_sq_full(struct thread_data *td, struct rpma_fio_client *c, int ret);

/* Offset of io_u's buffer in the registered fio buffers. */
size_t rpma_fio_client_buf_offset(struct thread_data *td, const struct io_u *io_u);

#endif
