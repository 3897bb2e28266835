// SPDX-License-Identifier: BSD-3-Clause
/*
 * cm_id_race.c -- plain librdmacm, no librpma: 4 threads, each with its
 * own event channel, create and destroy an rdma_cm_id 200 times at once.
 * Nothing is shared between the threads but librdmacm's own table from
 * kernel handles to ids, so any race helgrind reports here is inside
 * librdmacm.
 *
 * The kernel hands a freed id's handle to the next id it creates, and
 * rdma_destroy_id() clears the table's entry without the lock that
 * rdma_create_id() takes to set it: one thread clears the slot another
 * thread has just set. tests/integration/threads/helgrind.supp says why
 * librpma's tests suppress it.
 *
 * Usage: rpma-verbs-cm-id-race
 * Needs an RDMA device (utils/rxe-vm). Exits 0 when every call succeeded.
 */

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <rdma/rdma_cma.h>

#define THREADS 4
#define ROUNDS 200

struct worker {
	pthread_t thread;
	pthread_barrier_t *start;
	struct rdma_event_channel *ch;
	int failed_errno;
};

static void *
churn(void *arg)
{
	struct worker *w = arg;
	struct rdma_cm_id *id;

	pthread_barrier_wait(w->start);
	for (unsigned i = 0; i < ROUNDS; i++) {
		if (rdma_create_id(w->ch, &id, NULL, RDMA_PS_TCP)) {
			w->failed_errno = errno;
			return NULL;
		}
		if (rdma_destroy_id(id)) {
			w->failed_errno = errno;
			return NULL;
		}
	}
	return NULL;
}

int
main(void)
{
	struct worker w[THREADS];
	pthread_barrier_t start;
	int ret = 0;

	pthread_barrier_init(&start, NULL, THREADS);
	for (unsigned t = 0; t < THREADS; t++) {
		w[t] = (struct worker){.start = &start};
		w[t].ch = rdma_create_event_channel();
		if (!w[t].ch) {
			fprintf(stderr, "verbs-cm-id-race: rdma_create_event_channel: %s\n",
				strerror(errno));
			return 1;
		}
	}
	for (unsigned t = 0; t < THREADS; t++)
		if (pthread_create(&w[t].thread, NULL, churn, &w[t])) {
			fprintf(stderr, "verbs-cm-id-race: pthread_create failed\n");
			return 1;
		}
	for (unsigned t = 0; t < THREADS; t++) {
		pthread_join(w[t].thread, NULL);
		if (w[t].failed_errno) {
			fprintf(stderr, "verbs-cm-id-race: thread %u: %s\n", t,
				strerror(w[t].failed_errno));
			ret = 1;
		}
		rdma_destroy_event_channel(w[t].ch);
	}
	pthread_barrier_destroy(&start);
	if (!ret)
		printf("verbs-cm-id-race: %d threads x %d ids created and destroyed\n",
			THREADS, ROUNDS);
	return ret;
}
