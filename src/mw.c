// SPDX-License-Identifier: BSD-3-Clause
/*
 * mw.c -- a type-2 memory window, what a grant is made of. A window bound
 * on a QP serves its key on that QP only (IBTA type 2A and 2B): a request
 * that comes with it on any other QP gets a remote access error, whether
 * its sender guessed the key or stole it.
 *
 * On a device that lets an access through a window reach the whole region
 * under it (rxe, peer.h), the window is bound over a registration of its
 * own range, with no remote right of its own: its key lets no peer in.
 *
 * The bind is posted signaled and waited for (cq_take()): the grant exists
 * only once its window is bound, a bind that fails is the caller's error,
 * and a revocation never overtakes the bind it revokes (a window
 * deallocated before its bind ran fails the bind, and with it the QP).
 * A window is revoked by deallocating it, not by an invalidation posted on
 * the QP: the call returns once the device has dropped the key.
 */

#include <stdlib.h>

#include "cq.h"
#include "fault.h"
#include "log.h"
#include "mw.h"
#include "peer.h"

/* how long a bind may wait behind the QP's requests, then after moving it to the error state */
#define BIND_WAIT_MS	10000
#define FLUSH_WAIT_MS	5000

struct mw {
	struct ibv_mw *ibv_mw;		/* NULL once revoked */
	struct ibv_mr *own_mr;		/* the registration it is bound over, or NULL */
	unsigned *windows;		/* the region's count, NULL once released */
	uint32_t rkey;
	bool in_flight;			/* a bind posted whose completion never came */
};

int
mw_new(const struct rpma_peer *peer, const struct mw_range *range, struct mw **mw_ptr)
{
	struct mw *mw = FI_PTR(calloc(1, sizeof(*mw)), ENOMEM);
	if (mw == NULL)
		return RPMA_E_NOMEM;

	int ret;
	if (!peer_windows_bounded(peer)) {
		/*
		 * What a window needs of the registration it is bound over: the right
		 * to bind it, and the local write right a writable window needs (IBTA
		 * C10-74). No remote right, FLUSH's included: rxe checks a FLUSH that
		 * comes through a window against the window's rights alone.
		 */
		int own_access = range->mr_access & (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND);
		ret = peer_reg_mr(peer, (void *)(uintptr_t)range->addr, (size_t)range->length,
				&own_access, &mw->own_mr);
		if (ret)
			goto err_free;
	}

	errno = 0;
	mw->ibv_mw = FI_PTR(ibv_alloc_mw(peer_pd(peer), IBV_MW_TYPE_2), ENOMEM);
	if (mw->ibv_mw == NULL) {
		RPMA_LOG_PROVIDER(errno ? errno : EIO, "ibv_alloc_mw()");
		ret = RPMA_E_PROVIDER;
		goto err_revoke;
	}

	mw->windows = range->windows;
	__atomic_add_fetch(mw->windows, 1, __ATOMIC_RELAXED);
	*mw_ptr = mw;
	return 0;

err_revoke:
	(void) mw_revoke(mw);
err_free:
	free(mw);
	return ret;
}

/* post the bind of mw over [range) of its target, signaled: the key is the window's next one */
static int
mw_post_bind(struct mw *mw, struct ibv_qp *qp, const struct mw_range *range, int access,
		uint32_t *rkey)
{
	struct ibv_send_wr wr = {
		.wr_id = (uint64_t)(uintptr_t)mw,
		.opcode = IBV_WR_BIND_MW,
		.send_flags = IBV_SEND_SIGNALED,
		.bind_mw = {
			.mw = mw->ibv_mw,
			.rkey = ibv_inc_rkey(mw->ibv_mw->rkey),
			.bind_info = {
				.mr = mw->own_mr ? mw->own_mr : range->mr,
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
			RPMA_LOG_ERROR("the send queue is full: a grant's bind needs a slot of it");
		RPMA_LOG_PROVIDER(err, "ibv_post_send() of a window's bind");
		return RPMA_E_PROVIDER;
	}
	*rkey = wr.bind_mw.rkey;
	return 0;
}

/*
 * The bind waited BIND_WAIT_MS behind the QP's requests (a peer that never
 * posts the receive a send of the QP waits for holds it for ever): the QP
 * goes to the error state, which flushes the bind, and the program learns
 * from its own requests' completions that the connection is broken.
 */
static int
mw_bind_give_up(struct mw *mw, struct ibv_qp *qp, struct rpma_cq *cq, struct ibv_wc *wc)
{
	RPMA_LOG_ERROR("the bind of a grant's window did not complete within %d ms, behind the "
			"requests posted before it: the connection is moved to the error state",
			BIND_WAIT_MS);
	struct ibv_qp_attr attr = {.qp_state = IBV_QPS_ERR};
	int err = FI_ERR(ibv_modify_qp(qp, &attr, IBV_QP_STATE), EINVAL);
	if (err) {
		RPMA_LOG_PROVIDER(err, "ibv_modify_qp() to the error state");
		return RPMA_E_PROVIDER;
	}
	return cq_take(cq, (uint64_t)(uintptr_t)mw, FLUSH_WAIT_MS, wc);
}

int
mw_bind(struct mw *mw, struct ibv_qp *qp, struct rpma_cq *cq, const struct mw_range *range,
		int access)
{
	struct ibv_wc wc;
	uint32_t rkey;

	int ret = cq_take_ready(cq);
	if (ret)
		return ret;
	ret = mw_post_bind(mw, qp, range, access, &rkey);
	if (ret)
		return ret;

	mw->in_flight = true;
	ret = cq_take(cq, (uint64_t)(uintptr_t)mw, BIND_WAIT_MS, &wc);
	if (ret == RPMA_E_AGAIN)
		ret = mw_bind_give_up(mw, qp, cq, &wc);
	if (ret) {
		RPMA_LOG_ERROR("no completion of a grant's bind: its window stays allocated "
				"until the connection is deleted");
		return RPMA_E_PROVIDER;
	}
	mw->in_flight = false;

	if (wc.status != IBV_WC_SUCCESS) {
		RPMA_LOG_ERROR("the bind of a grant's window failed: %s (vendor error 0x%x); "
				"the connection is in the error state",
				ibv_wc_status_str(wc.status), wc.vendor_err);
		return RPMA_E_PROVIDER;
	}
	mw->rkey = rkey;
	return 0;
}

bool
mw_in_flight(const struct mw *mw)
{
	return mw->in_flight;
}

uint32_t
mw_rkey(const struct mw *mw)
{
	return mw->rkey;
}

/* what the window holds goes: the window first, which holds the registration */
int
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
	if (mw->windows) {
		__atomic_sub_fetch(mw->windows, 1, __ATOMIC_RELEASE);
		mw->windows = NULL;
	}
	return 0;
}

void
mw_free(struct mw *mw)
{
	free(mw);
}
