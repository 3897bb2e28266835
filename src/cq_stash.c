// SPDX-License-Identifier: BSD-3-Clause
/*
 * cq_stash.c -- the completions the library took out of a CQ while it
 * waited there for one of its own (a grant's bind), kept for the program.
 *
 * rpma_cq_get_wc() polls through a pointer of its CQ (cq.c), so the data
 * path pays nothing for the stash: while the stash keeps completions, the
 * pointer is the stash's own ibv_cq, a face whose context has one operation,
 * poll_cq, which ibv_poll_cq() calls as it calls a provider's. It hands out
 * what is kept first, then what the CQ has, and points the pointer back at
 * the CQ once nothing is kept. A lock orders the stash's polls with the
 * waiting ones, so the program gets every completion once, in order.
 */

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cq_stash.h"
#include "fault.h"
#include "log.h"

/* completions polled at once while waiting */
#define TAKE_BATCH 16

struct cq_stash {
	struct ibv_cq face;		/* first: its poll_cq finds the stash from it */
	struct ibv_context face_ctx;	/* the face's: ops.poll_cq only */
	struct ibv_cq *cq;
	struct ibv_cq **polled;		/* where rpma_cq_get_wc() finds the CQ to poll */
	pthread_mutex_t lock;
	struct ibv_wc *wc;		/* a ring of cap entries */
	unsigned head, count, cap;
};

/* the face's poll: what is kept, then the CQ's (under the lock) */
static int
stash_poll(struct ibv_cq *face, int num_entries, struct ibv_wc *wc)
{
	struct cq_stash *stash = (struct cq_stash *)face;
	int got = 0;

	(void) pthread_mutex_lock(&stash->lock);
	while (got < num_entries && stash->count) {
		wc[got++] = stash->wc[stash->head];
		stash->head = (stash->head + 1) % stash->cap;
		stash->count--;
	}
	if (stash->count == 0)
		__atomic_store_n(stash->polled, stash->cq, __ATOMIC_RELEASE);
	if (got < num_entries) {
		int ret = ibv_poll_cq(stash->cq, num_entries - got, wc + got);
		if (ret < 0 && got == 0)
			got = ret;
		else if (ret > 0)
			got += ret;
	}
	(void) pthread_mutex_unlock(&stash->lock);
	return got;
}

int
cq_stash_new(struct ibv_cq *cq, struct ibv_cq **polled, struct cq_stash **stash_ptr)
{
	struct cq_stash *stash = FI_PTR(calloc(1, sizeof(*stash)), ENOMEM);
	if (stash == NULL)
		return RPMA_E_NOMEM;

	int err = pthread_mutex_init(&stash->lock, NULL);
	if (err) {
		RPMA_LOG_PROVIDER(err, "pthread_mutex_init()");
		free(stash);
		return RPMA_E_UNKNOWN;
	}
	stash->face_ctx.ops.poll_cq = stash_poll;
	stash->face.context = &stash->face_ctx;
	stash->cq = cq;
	stash->polled = polled;
	*stash_ptr = stash;
	return 0;
}

void
cq_stash_delete(struct cq_stash **stash_ptr)
{
	struct cq_stash *stash = *stash_ptr;
	if (stash == NULL)
		return;

	__atomic_store_n(stash->polled, stash->cq, __ATOMIC_RELEASE);
	(void) pthread_mutex_destroy(&stash->lock);
	free(stash->wc);
	free(stash);
	*stash_ptr = NULL;
}

bool
cq_stash_holds(struct cq_stash *stash)
{
	(void) pthread_mutex_lock(&stash->lock);
	bool holds = stash->count != 0;
	(void) pthread_mutex_unlock(&stash->lock);
	return holds;
}

/* room for a batch more, before it is polled: a completion polled cannot go back */
static int
stash_reserve(struct cq_stash *stash)
{
	if (stash->count + TAKE_BATCH <= stash->cap)
		return 0;

	unsigned cap = stash->cap ? 2 * stash->cap : 2 * TAKE_BATCH;
	struct ibv_wc *wc = FI_PTR(malloc(cap * sizeof(*wc)), ENOMEM);
	if (wc == NULL)
		return RPMA_E_NOMEM;
	for (unsigned i = 0; i < stash->count; i++)
		wc[i] = stash->wc[(stash->head + i) % stash->cap];
	free(stash->wc);
	stash->wc = wc;
	stash->head = 0;
	stash->cap = cap;
	return 0;
}

int
cq_stash_ready(struct cq_stash *stash)
{
	(void) pthread_mutex_lock(&stash->lock);
	int ret = stash_reserve(stash);
	(void) pthread_mutex_unlock(&stash->lock);
	return ret;
}

/* wr_id's completion out of what is kept (another waiter polled it) into *wc: 1, or 0 */
static int
take_kept(struct cq_stash *stash, uint64_t wr_id, struct ibv_wc *wc)
{
	for (unsigned i = 0; i < stash->count; i++) {
		if (stash->wc[(stash->head + i) % stash->cap].wr_id != wr_id)
			continue;
		*wc = stash->wc[(stash->head + i) % stash->cap];
		for (; i + 1 < stash->count; i++)
			stash->wc[(stash->head + i) % stash->cap] =
				stash->wc[(stash->head + i + 1) % stash->cap];
		stash->count--;
		return 1;
	}
	return 0;
}

/* one poll of the CQ: 1 with *wc_out when wr_id's came, the others kept; under the lock */
static int
poll_once(struct cq_stash *stash, uint64_t wr_id, struct ibv_wc *wc_out)
{
	struct ibv_wc wc[TAKE_BATCH];
	int found = 0;

	int ret = stash_reserve(stash);
	if (ret)
		return ret;
	/* from here on the program's polls queue behind the lock, after what is kept */
	__atomic_store_n(stash->polled, &stash->face, __ATOMIC_RELEASE);
	int n = FI_NEG(ibv_poll_cq(stash->cq, TAKE_BATCH, wc), EIO);
	if (n < 0) {
		RPMA_LOG_ERROR("ibv_poll_cq() failed: %d", n);
		return RPMA_E_PROVIDER;
	}
	for (int i = 0; i < n; i++) {
		if (!found && wc[i].wr_id == wr_id) {
			*wc_out = wc[i];
			found = 1;
			continue;
		}
		stash->wc[(stash->head + stash->count) % stash->cap] = wc[i];
		stash->count++;
	}
	return found;
}

/* wr_id's completion, kept or polled now: 1, 0 (not yet) or an error; under the lock */
static int
take_once(struct cq_stash *stash, uint64_t wr_id, struct ibv_wc *wc)
{
	int ret = take_kept(stash, wr_id, wc);
	if (ret == 0)
		ret = poll_once(stash, wr_id, wc);
	if (stash->count == 0)
		__atomic_store_n(stash->polled, stash->cq, __ATOMIC_RELEASE);
	return ret;
}

static unsigned long
elapsed_ms(const struct timespec *since)
{
	struct timespec now;
	(void) clock_gettime(CLOCK_MONOTONIC, &now);
	return (unsigned long)(now.tv_sec - since->tv_sec) * 1000 +
		(unsigned long)((now.tv_nsec - since->tv_nsec) / 1000000);
}

int
cq_stash_take(struct cq_stash *stash, uint64_t wr_id, unsigned timeout_ms, struct ibv_wc *wc)
{
	struct timespec start;
	(void) clock_gettime(CLOCK_MONOTONIC, &start);

	/* a local operation completes in microseconds: spin a while, then nap */
	for (unsigned polls = 0;; polls++) {
		(void) pthread_mutex_lock(&stash->lock);
		int ret = take_once(stash, wr_id, wc);
		(void) pthread_mutex_unlock(&stash->lock);
		if (ret)
			return ret < 0 ? ret : 0;
		if (elapsed_ms(&start) >= timeout_ms)
			return RPMA_E_AGAIN;
		if (polls >= 1000) {
			struct timespec nap = {0, 100 * 1000};
			(void) nanosleep(&nap, NULL);
		}
	}
}
