// SPDX-License-Identifier: BSD-3-Clause
/*
 * cfg_threads.c -- rpma-cfg-threads: threads share one rpma_conn_cfg, one
 * rpma_srq_cfg and one rpma_peer_cfg, and set and read every field at once,
 * as librpma 1.x allows. Run under valgrind --tool=helgrind and --tool=drd
 * (no suppressions) it fails on any race the configuration objects have;
 * alone it checks that every value read is one some thread wrote. Needs no
 * RDMA device.
 */

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include <librpma.h>

#define NTHREADS	4
#define ROUNDS		200

struct shared {
	struct rpma_conn_cfg *conn;
	struct rpma_srq_cfg *srq;
	struct rpma_peer_cfg *peer;
	struct rpma_srq *srqs[NTHREADS + 1];	/* fake handles: only stored and read */
};

static struct shared S;
static unsigned Failed;

#define CHECK(cond) do { \
	if (!(cond)) { \
		fprintf(stderr, "rpma-cfg-threads: line %d: %s\n", __LINE__, #cond); \
		__atomic_fetch_add(&Failed, 1, __ATOMIC_SEQ_CST); \
		return NULL; \
	} \
} while (0)

/* thread t writes 1000 * (t + 1) + field; a reader sees a default or one of those */
static bool
written(uint32_t v, uint32_t field, uint32_t dflt)
{
	return v == dflt || (v % 1000 == field && v / 1000 >= 1 && v / 1000 <= NTHREADS);
}

static void *
worker(void *arg)
{
	unsigned t = (unsigned)(uintptr_t)arg;
	uint32_t base = 1000 * (t + 1), v;
	struct rpma_srq *srq;
	int timeout;
	bool b;
	unsigned char desc;

	for (unsigned r = 0; r < ROUNDS; r++) {
		CHECK(rpma_conn_cfg_set_timeout(S.conn, (int)base + 1) == 0);
		CHECK(rpma_conn_cfg_set_cq_size(S.conn, base + 2) == 0);
		CHECK(rpma_conn_cfg_set_rcq_size(S.conn, base + 3) == 0);
		CHECK(rpma_conn_cfg_set_sq_size(S.conn, base + 4) == 0);
		CHECK(rpma_conn_cfg_set_rq_size(S.conn, base + 5) == 0);
		CHECK(rpma_conn_cfg_set_compl_channel(S.conn, t % 2) == 0);
		CHECK(rpma_conn_cfg_set_srq(S.conn, S.srqs[t + 1]) == 0);
		CHECK(rpma_srq_cfg_set_rq_size(S.srq, base + 6) == 0);
		CHECK(rpma_srq_cfg_set_rcq_size(S.srq, base + 7) == 0);
		CHECK(rpma_peer_cfg_set_direct_write_to_pmem(S.peer, t % 2) == 0);

		CHECK(rpma_conn_cfg_get_timeout(S.conn, &timeout) == 0);
		CHECK(written((uint32_t)timeout, 1, 1000));
		CHECK(rpma_conn_cfg_get_cq_size(S.conn, &v) == 0 && written(v, 2, 10));
		CHECK(rpma_conn_cfg_get_rcq_size(S.conn, &v) == 0 && written(v, 3, 0));
		CHECK(rpma_conn_cfg_get_sq_size(S.conn, &v) == 0 && written(v, 4, 10));
		CHECK(rpma_conn_cfg_get_rq_size(S.conn, &v) == 0 && written(v, 5, 10));
		CHECK(rpma_conn_cfg_get_compl_channel(S.conn, &b) == 0);
		CHECK(rpma_conn_cfg_get_srq(S.conn, &srq) == 0);
		CHECK(srq == NULL || (srq >= S.srqs[1] && srq <= S.srqs[NTHREADS]));
		CHECK(rpma_srq_cfg_get_rq_size(S.srq, &v) == 0 && written(v, 6, 100));
		CHECK(rpma_srq_cfg_get_rcq_size(S.srq, &v) == 0 && written(v, 7, 100));
		CHECK(rpma_peer_cfg_get_direct_write_to_pmem(S.peer, &b) == 0);
		CHECK(rpma_peer_cfg_get_descriptor(S.peer, &desc) == 0 && desc <= 1);
	}
	return NULL;
}

int
main(void)
{
	pthread_t tids[NTHREADS];
	static char fake[NTHREADS + 1];

	for (unsigned i = 0; i <= NTHREADS; i++)
		S.srqs[i] = (struct rpma_srq *)&fake[i];
	S.srqs[0] = NULL;
	if (rpma_conn_cfg_new(&S.conn) || rpma_srq_cfg_new(&S.srq) ||
			rpma_peer_cfg_new(&S.peer)) {
		fprintf(stderr, "rpma-cfg-threads: cannot create the configurations\n");
		return 1;
	}
	for (unsigned t = 0; t < NTHREADS; t++)
		if (pthread_create(&tids[t], NULL, worker, (void *)(uintptr_t)t)) {
			fprintf(stderr, "rpma-cfg-threads: pthread_create failed\n");
			return 1;
		}
	for (unsigned t = 0; t < NTHREADS; t++)
		(void) pthread_join(tids[t], NULL);

	uint32_t v = 0;
	if (rpma_conn_cfg_get_cq_size(S.conn, &v) || !written(v, 2, 0) || v == 0)
		Failed++;
	(void) rpma_peer_cfg_delete(&S.peer);
	(void) rpma_srq_cfg_delete(&S.srq);
	(void) rpma_conn_cfg_delete(&S.conn);
	if (Failed) {
		fprintf(stderr, "rpma-cfg-threads: %u checks failed\n", Failed);
		return 1;
	}
	printf("rpma-cfg-threads: PASS\n");
	return 0;
}
