// SPDX-License-Identifier: BSD-3-Clause
/*
 * common.c -- error reporting and waiting for completions, for the clients
 * and the servers alike.
 */

#include <errno.h>
#include <poll.h>
#include <time.h>

#include "rpma_fio.h"

void
rpma_fio_err(struct thread_data *td, const char *call, int ret)
{
	int err = ret == RPMA_E_PROVIDER && errno ? errno : EIO;

	log_err("fio: %s: %s: %s%s%s\n", td->o.name, call, rpma_err_2str(ret),
			ret == RPMA_E_PROVIDER ? ": " : "",
			ret == RPMA_E_PROVIDER ? strerror(errno) : "");
	td_verror(td, err, call);
}

/* Is the connection over? Reads one pending connection event, if any. */
static bool
conn_ended(struct thread_data *td, struct rpma_conn *conn, int timeout_ms)
{
	struct pollfd pfd = {.events = POLLIN};
	enum rpma_conn_event ev;

	if (rpma_conn_get_event_fd(conn, &pfd.fd) || poll(&pfd, 1, timeout_ms) <= 0)
		return false;
	if (rpma_conn_next_event(conn, &ev))
		return true;
	if (ev == RPMA_CONN_ESTABLISHED)
		return false;
	dprint(FD_IO, "%s: connection event %s\n", td->o.name, rpma_utils_conn_event_2str(ev));
	return true;
}

/* fio was told to stop (a signal, another job's error): stop waiting */
static bool
stopped(struct thread_data *td)
{
	if (!td->terminate)
		return false;
	td_verror(td, EINTR, "terminated while waiting");
	return true;
}

static long long
ms_since(const struct timespec *start)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - start->tv_sec) * 1000LL + (now.tv_nsec - start->tv_nsec) / 1000000;
}

/*
 * fio also sets terminate when a time-based job's time is up, and then
 * waits for what is in flight: completions still due come within
 * milliseconds, so only a wait of seconds is given up.
 */
#define TERMINATE_GRACE_MS 3000

static bool
stopped_waiting(struct thread_data *td, const struct timespec *start)
{
	return td->terminate && ms_since(start) > TERMINATE_GRACE_MS && stopped(td);
}

int
rpma_fio_wait_fd(struct thread_data *td, int fd)
{
	struct pollfd pfd = {.fd = fd, .events = POLLIN};
	int ret;

	/* a second at a time, to notice fio stopping */
	while ((ret = poll(&pfd, 1, 1000)) <= 0) {
		if (ret < 0 && errno != EINTR) {
			td_verror(td, errno, "poll");
			return -1;
		}
		if (stopped(td))
			return -1;
	}
	return 0;
}

/* 0: a completion may be there; 1: the connection ended; -1: failed */
static int
wait_channel(struct thread_data *td, struct rpma_conn *conn, struct rpma_cq *cq,
		const struct timespec *start)
{
	struct pollfd pfd[2] = {{.events = POLLIN}, {.events = POLLIN}};
	int ret;

	if ((ret = rpma_cq_get_fd(cq, &pfd[0].fd)) ||
			(ret = rpma_conn_get_event_fd(conn, &pfd[1].fd))) {
		rpma_fio_err(td, "rpma_cq_get_fd()", ret);
		return -1;
	}
	/* a second at a time, to notice fio stopping */
	while ((ret = poll(pfd, 2, 1000)) <= 0) {
		if ((ret < 0 && errno != EINTR) || stopped_waiting(td, start)) {
			if (!td->error)
				td_verror(td, errno, "poll");
			return -1;
		}
	}
	if (pfd[0].revents) {
		ret = rpma_cq_wait(cq);
		if (ret && ret != RPMA_E_NO_COMPLETION) {
			rpma_fio_err(td, "rpma_cq_wait()", ret);
			return -1;
		}
		return 0;
	}
	return conn_ended(td, conn, 0) ? 1 : 0;
}

int
rpma_fio_wait_wc(struct thread_data *td, struct rpma_conn *conn, struct rpma_cq *cq,
		bool busy, struct ibv_wc *wc, int max, int *got)
{
	unsigned long spins = 0;
	struct timespec start;

	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		int ret = rpma_cq_get_wc(cq, max, wc, got);
		if (ret == 0)
			return 0;
		if (ret != RPMA_E_NO_COMPLETION) {
			rpma_fio_err(td, "rpma_cq_get_wc()", ret);
			return -1;
		}
		if (!busy) {
			if ((ret = wait_channel(td, conn, cq, &start)))
				return ret;
		} else if (++spins % 4096 == 0) {
			if (conn_ended(td, conn, 0))
				return 1;
			if (stopped_waiting(td, &start))
				return -1;
		}
	}
}

void
rpma_fio_disconnect(struct rpma_conn **conn, bool closed)
{
	struct pollfd pfd = {.events = POLLIN};
	enum rpma_conn_event ev;

	/*
	 * The peer's closing has its event, ours gets one: wait for it, but not
	 * forever, should the peer have vanished without a word.
	 */
	if (!closed && rpma_conn_disconnect(*conn) == 0 &&
			rpma_conn_get_event_fd(*conn, &pfd.fd) == 0 && poll(&pfd, 1, 5000) > 0)
		(void) rpma_conn_next_event(*conn, &ev);
	(void) rpma_conn_delete(conn);
}
