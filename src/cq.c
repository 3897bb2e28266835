// SPDX-License-Identifier: BSD-3-Clause
/*
 * cq.c -- a completion queue and, unless shared, its completion channel.
 *
 * Acknowledging events takes a mutex inside libibverbs, so events are
 * acknowledged in batches; ibv_destroy_cq() waits for every event to be
 * acknowledged, so cq_delete() acknowledges the rest first. Several threads
 * may wait on one CQ (as in librpma 1.x): the count of events not yet
 * acknowledged is an atomic, and a batch is claimed whole by exchanging it
 * with 0, so every event is acknowledged exactly once, without a lock.
 */

#include <stdatomic.h>
#include <stdlib.h>

#include "fault.h"
#include "cq.h"
#include "cq_stash.h"
#include "log.h"

#define ACK_BATCH 16

struct rpma_cq {
	/* what rpma_cq_get_wc() polls: ibv_cq, or its stash's face (cq_stash.c) */
	struct ibv_cq *polled;
	struct ibv_cq *ibv_cq;
	struct ibv_comp_channel *channel;
	bool own_channel;
	atomic_uint unacked;	/* events got and not yet acknowledged */
	struct cq_stash *stash;	/* from the first cq_take() on (atomic) */
};

int
cq_new(struct ibv_context *ibv_ctx, uint32_t size, struct ibv_comp_channel *shared,
		struct rpma_cq **cq_ptr)
{
	int ret = RPMA_E_PROVIDER;
	struct rpma_cq *cq = FI_PTR(calloc(1, sizeof(*cq)), ENOMEM);
	if (cq == NULL)
		return RPMA_E_NOMEM;

	cq->own_channel = (shared == NULL);
	cq->channel = shared;
	if (cq->own_channel) {
		cq->channel = FI_PTR(ibv_create_comp_channel(ibv_ctx), ENOMEM);
		if (cq->channel == NULL) {
			RPMA_LOG_PROVIDER(errno, "ibv_create_comp_channel()");
			goto err_free;
		}
	}

	cq->ibv_cq = FI_PTR(ibv_create_cq(ibv_ctx, (int)size, cq, cq->channel, 0), ENOMEM);
	if (cq->ibv_cq == NULL) {
		RPMA_LOG_PROVIDER(errno, "ibv_create_cq()");
		goto err_destroy_channel;
	}

	int err = FI_ERR(ibv_req_notify_cq(cq->ibv_cq, 0), EIO);
	if (err) {
		RPMA_LOG_PROVIDER(err, "ibv_req_notify_cq()");
		goto err_destroy_cq;
	}

	cq->polled = cq->ibv_cq;
	*cq_ptr = cq;
	return 0;

err_destroy_cq:
	(void) ibv_destroy_cq(cq->ibv_cq);
err_destroy_channel:
	if (cq->own_channel)
		(void) ibv_destroy_comp_channel(cq->channel);
err_free:
	free(cq);
	return ret;
}

int
cq_delete(struct rpma_cq **cq_ptr)
{
	struct rpma_cq *cq = *cq_ptr;
	int ret = 0;

	if (cq == NULL)
		return 0;

	unsigned unacked = atomic_load(&cq->unacked);
	if (unacked)
		ibv_ack_cq_events(cq->ibv_cq, unacked);
	cq_stash_delete(&cq->stash);

	int err = ibv_destroy_cq(cq->ibv_cq);
	if (err) {
		RPMA_LOG_PROVIDER(err, "ibv_destroy_cq()");
		ret = RPMA_E_PROVIDER;
	}

	if (cq->own_channel && ibv_destroy_comp_channel(cq->channel)) {
		RPMA_LOG_PROVIDER(errno, "ibv_destroy_comp_channel()");
		ret = RPMA_E_PROVIDER;
	}

	free(cq);
	*cq_ptr = NULL;
	return ret;
}

struct ibv_cq *
cq_ibv_cq(const struct rpma_cq *cq)
{
	return cq->ibv_cq;
}

bool
cq_holds_kept(const struct rpma_cq *cq)
{
	struct cq_stash *stash = __atomic_load_n(&cq->stash, __ATOMIC_ACQUIRE);
	return stash && cq_stash_holds(stash);
}

/* the CQ's stash, made at the first call (by one of the threads that call at once) */
static int
cq_stash(struct rpma_cq *cq, struct cq_stash **stash_ptr)
{
	struct cq_stash *stash = __atomic_load_n(&cq->stash, __ATOMIC_ACQUIRE);
	if (stash) {
		*stash_ptr = stash;
		return 0;
	}

	int ret = cq_stash_new(cq->ibv_cq, &cq->polled, &stash);
	if (ret)
		return ret;
	struct cq_stash *none = NULL;
	if (!__atomic_compare_exchange_n(&cq->stash, &none, stash, false, __ATOMIC_ACQ_REL,
			__ATOMIC_ACQUIRE)) {
		cq_stash_delete(&stash);
		stash = none;
	}
	*stash_ptr = stash;
	return 0;
}

int
cq_take_ready(struct rpma_cq *cq)
{
	struct cq_stash *stash;
	int ret = cq_stash(cq, &stash);
	if (ret)
		return ret;
	return cq_stash_ready(stash);
}

int
cq_take(struct rpma_cq *cq, uint64_t wr_id, unsigned timeout_ms, struct ibv_wc *wc)
{
	struct cq_stash *stash;
	int ret = cq_stash(cq, &stash);
	if (ret)
		return ret;
	return cq_stash_take(stash, wr_id, timeout_ms, wc);
}

int
cq_event_got(struct rpma_cq *cq)
{
	/* the event is counted before any thread can claim it for acknowledgement */
	if (atomic_fetch_add_explicit(&cq->unacked, 1, memory_order_relaxed) + 1 >= ACK_BATCH) {
		/* whoever exchanges first takes the batch; a late one takes what is left */
		unsigned batch = atomic_exchange_explicit(&cq->unacked, 0, memory_order_relaxed);
		if (batch)
			ibv_ack_cq_events(cq->ibv_cq, batch);
	}

	int err = FI_ERR(ibv_req_notify_cq(cq->ibv_cq, 0), EIO);
	if (err) {
		RPMA_LOG_PROVIDER(err, "ibv_req_notify_cq()");
		return RPMA_E_PROVIDER;
	}
	return 0;
}

int
rpma_cq_get_fd(const struct rpma_cq *cq, int *fd)
{
	if (cq == NULL || fd == NULL)
		return RPMA_E_INVAL;

	*fd = cq->channel->fd;
	return 0;
}

int
rpma_cq_wait(struct rpma_cq *cq)
{
	struct ibv_cq *ev_cq;
	void *ev_ctx;

	if (cq == NULL)
		return RPMA_E_INVAL;

	/* on a shared channel the event may belong to the other CQ: rpma_conn_wait() */
	if (!cq->own_channel)
		return RPMA_E_SHARED_CHANNEL;
	/* completions cq_take() kept came with events the program may have had */
	if (cq_holds_kept(cq))
		return 0;

	/* fails with EAGAIN on a non-blocking fd, which means no completion yet */
	if (FI_NEG(ibv_get_cq_event(cq->channel, &ev_cq, &ev_ctx), EIO))
		return RPMA_E_NO_COMPLETION;

	return cq_event_got(cq);
}

/* a failed poll: logged, and RPMA_E_PROVIDER */
__attribute__((noinline, cold)) static int
poll_failed(int ret)
{
	RPMA_LOG_ERROR("ibv_poll_cq() failed: %d", ret);
	return RPMA_E_PROVIDER;
}

/* rpma_cq_get_wc() without a count to fill: one entry only */
__attribute__((noinline, cold)) static int
get_wc_uncounted(struct rpma_cq *cq, int num_entries, struct ibv_wc *wc)
{
	if (num_entries != 1)
		return RPMA_E_INVAL;

	int ret = FI_NEG(ibv_poll_cq(__atomic_load_n(&cq->polled, __ATOMIC_RELAXED), 1, wc), EIO);
	if (ret < 0)
		return poll_failed(ret);
	return ret ? 0 : RPMA_E_NO_COMPLETION;
}

int
rpma_cq_get_wc(struct rpma_cq *cq, int num_entries, struct ibv_wc *wc, int *num_entries_got)
{
	if (unlikely(cq == NULL || wc == NULL))
		return RPMA_E_INVAL;
	if (unlikely(num_entries_got == NULL))
		return get_wc_uncounted(cq, num_entries, wc);
	if (unlikely(num_entries < 1))
		return RPMA_E_INVAL;

	/* the stash's completions come first, at no cost here: see cq_stash.c */
	struct ibv_cq *polled = __atomic_load_n(&cq->polled, __ATOMIC_RELAXED);
	int ret = FI_NEG(ibv_poll_cq(polled, num_entries, wc), EIO);
	if (unlikely(ret < 0))
		return poll_failed(ret);
	/* 0 too: a caller reading the count after NO_COMPLETION reads no garbage */
	*num_entries_got = ret;
	return ret ? 0 : RPMA_E_NO_COMPLETION;
}
