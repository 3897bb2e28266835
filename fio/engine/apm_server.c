// SPDX-License-Identifier: BSD-3-Clause
/*
 * apm_server.c -- fio engine librpma_apm_server: serves one client's APM
 * writes, reads and flushes, which need nothing of the server's CPU; the
 * job waits for the client to disconnect and ends.
 */

#include <errno.h>

#include "server.h"

static enum fio_q_status
apm_server_queue(struct thread_data *td, struct io_u *io_u)
{
	struct rpma_fio_server *s = td->io_ops_data;
	enum rpma_conn_event ev = RPMA_CONN_ESTABLISHED;
	int fd, ret = rpma_conn_get_event_fd(s->conn, &fd);

	while (ret == 0 && ev == RPMA_CONN_ESTABLISHED) {
		if (rpma_fio_wait_fd(td, fd)) {
			io_u->error = td->error;
			return FIO_Q_COMPLETED;
		}
		ret = rpma_conn_next_event(s->conn, &ev);
	}
	if (ret) {
		rpma_fio_err(td, "rpma_conn_next_event()", ret);
		io_u->error = td->error;
		return FIO_Q_COMPLETED;
	}
	return rpma_fio_server_end(td, io_u, true);
}

static const struct rpma_fio_server_ops apm_ops = {0};

static int
apm_server_init(struct thread_data *td)
{
	return rpma_fio_server_init(td, &apm_ops);
}

RPMA_FIO_ENGINE = {
	.name = "librpma_apm_server",
	.flags = FIO_SYNCIO | FIO_DISKLESSIO | FIO_NOEXTEND | FIO_NODISKUTIL,
	.init = apm_server_init,
	.queue = apm_server_queue,
	RPMA_FIO_SERVER_HOOKS,
};
