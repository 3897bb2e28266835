// SPDX-License-Identifier: BSD-3-Clause
/*
 * mw.c -- type-2 memory windows, what grants are made of. A window bound
 * on a QP serves its key on that QP only (IBTA type 2A and 2B): a request
 * that comes with it on any other QP gets a remote access error, whether
 * its sender guessed the key or stole it.
 *
 * On a device that lets an access through a window reach the whole region
 * under it (rxe, peer.h), the window is bound over a registration of its
 * own range, with the region's access less any remote read or write right,
 * so that registration's key lets no peer in either.
 *
 * A window is revoked by deallocating it, not by an invalidation posted on
 * the QP: the call returns once the device has dropped the key, and needs
 * no slot of the send queue nor a completion the program would see.
 */

#include <pthread.h>
#include <stdlib.h>

#include "fault.h"
#include "log.h"
#include "mw.h"
#include "peer.h"

struct mw {
	struct ibv_mw *ibv_mw;		/* NULL once revoked */
	struct ibv_mr *own_mr;		/* the registration it is bound over, or NULL */
	uint32_t rkey;
	struct mw_set *set;		/* NULL once revoked with its set */
	struct mw *prev, *next;
};

struct mw_set {
	pthread_mutex_t lock;		/* grants are made and deleted from several threads */
	struct mw *head;
};

int
mw_set_new(struct mw_set **set_ptr)
{
	struct mw_set *set = FI_PTR(malloc(sizeof(*set)), ENOMEM);
	if (set == NULL)
		return RPMA_E_NOMEM;

	int err = pthread_mutex_init(&set->lock, NULL);
	if (err) {
		RPMA_LOG_PROVIDER(err, "pthread_mutex_init()");
		free(set);
		return RPMA_E_UNKNOWN;
	}
	set->head = NULL;
	*set_ptr = set;
	return 0;
}

/* deallocate what the window still holds: the window first, which holds the registration */
static int
mw_revoke(struct mw *mw)
{
	if (mw->ibv_mw) {
		int err = ibv_dealloc_mw(mw->ibv_mw);
		if (err) {
			RPMA_LOG_PROVIDER(err, "ibv_dealloc_mw()");
			return RPMA_E_PROVIDER;
		}
		mw->ibv_mw = NULL;
	}
	if (mw->own_mr) {
		int err = ibv_dereg_mr(mw->own_mr);
		if (err) {
			RPMA_LOG_PROVIDER(err, "ibv_dereg_mr()");
			return RPMA_E_PROVIDER;
		}
		mw->own_mr = NULL;
	}
	return 0;
}

/* take the window out of its set (the set's lock held) */
static void
mw_unlink(struct mw *mw)
{
	if (mw->prev)
		mw->prev->next = mw->next;
	else
		mw->set->head = mw->next;
	if (mw->next)
		mw->next->prev = mw->prev;
	mw->set = NULL;
	mw->prev = mw->next = NULL;
}

int
mw_set_delete(struct mw_set **set_ptr)
{
	struct mw_set *set = *set_ptr;
	if (set == NULL)
		return 0;

	int ret = 0;
	(void) pthread_mutex_lock(&set->lock);
	while (set->head) {
		int err = mw_revoke(set->head);
		if (err && ret == 0)
			ret = err;
		mw_unlink(set->head);
	}
	(void) pthread_mutex_unlock(&set->lock);
	(void) pthread_mutex_destroy(&set->lock);
	free(set);
	*set_ptr = NULL;
	return ret;
}

/* post the bind of mw over [range) of target: the key is the window's next one */
static int
mw_post_bind(struct mw *mw, struct ibv_qp *qp, struct ibv_mr *target,
		const struct mw_range *range, int access)
{
	struct ibv_send_wr wr = {
		.opcode = IBV_WR_BIND_MW,
		.bind_mw = {
			.mw = mw->ibv_mw,
			.rkey = ibv_inc_rkey(mw->ibv_mw->rkey),
			.bind_info = {
				.mr = target,
				.addr = range->addr,
				.length = range->length,
				.mw_access_flags = (unsigned)access,
			},
		},
	};
	struct ibv_send_wr *bad_wr;

	int err = FI_ERR(ibv_post_send(qp, &wr, &bad_wr), ENOMEM);
	if (err) {
		err = err < 0 ? -err : err;	/* libsiw negates it */
		if (err == ENOMEM)
			RPMA_LOG_ERROR("the send queue is full: a grant's bind takes a slot of it "
					"until a later signaled completion");
		RPMA_LOG_PROVIDER(err, "ibv_post_send() of a window's bind");
		return RPMA_E_PROVIDER;
	}
	mw->rkey = wr.bind_mw.rkey;
	return 0;
}

int
mw_bind(struct mw_set *set, const struct rpma_peer *peer, struct ibv_qp *qp,
		const struct mw_range *range, int access, struct mw **mw_ptr)
{
	struct mw *mw = FI_PTR(calloc(1, sizeof(*mw)), ENOMEM);
	if (mw == NULL)
		return RPMA_E_NOMEM;

	struct ibv_mr *target = range->mr;
	int ret;
	if (!peer_windows_bounded(peer)) {
		/* never a remote read or write right of its own (iWARP's read destination's) */
		int own_access = range->mr_access & ~(IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE);
		ret = peer_reg_mr(peer, (void *)(uintptr_t)range->addr, (size_t)range->length,
				&own_access, &mw->own_mr);
		if (ret)
			goto err_free;
		target = mw->own_mr;
	}

	errno = 0;
	mw->ibv_mw = FI_PTR(ibv_alloc_mw(peer_pd(peer), IBV_MW_TYPE_2), ENOMEM);
	if (mw->ibv_mw == NULL) {
		RPMA_LOG_PROVIDER(errno ? errno : EIO, "ibv_alloc_mw()");
		ret = RPMA_E_PROVIDER;
		goto err_revoke;
	}

	ret = mw_post_bind(mw, qp, target, range, access);
	if (ret)
		goto err_revoke;

	(void) pthread_mutex_lock(&set->lock);
	mw->set = set;
	mw->next = set->head;
	if (set->head)
		set->head->prev = mw;
	set->head = mw;
	(void) pthread_mutex_unlock(&set->lock);
	*mw_ptr = mw;
	return 0;

err_revoke:
	(void) mw_revoke(mw);
err_free:
	free(mw);
	return ret;
}

uint32_t
mw_rkey(const struct mw *mw)
{
	return mw->rkey;
}

int
mw_delete(struct mw **mw_ptr)
{
	struct mw *mw = *mw_ptr;
	struct mw_set *set = mw->set;

	if (set)
		(void) pthread_mutex_lock(&set->lock);
	int ret = mw_revoke(mw);
	if (ret == 0 && set)
		mw_unlink(mw);
	if (set)
		(void) pthread_mutex_unlock(&set->lock);
	if (ret)
		return ret;

	free(mw);
	*mw_ptr = NULL;
	return 0;
}
