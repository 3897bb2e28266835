/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fx_window.h -- what the tests of windows (mw.c, mw_set.c) bind them on:
 * a peer whose device binds type-2 windows, a QP of its with its send CQ,
 * and a region over buf
 */

#ifndef FX_WINDOW_H
#define FX_WINDOW_H

#include "cq.h"
#include "fixtures.h"
#include "mw.h"
#include "peer.h"

struct fx_window {
	struct rpma_peer *peer;
	struct ibv_qp *qp;
	struct rpma_cq *cq;
	struct ibv_mr *mr;
	unsigned windows;	/* the region's count */
	struct mw_range range;	/* [off, +len) of the region */
};

static inline void
fx_window_open(struct fx_window *fx, uint32_t vendor, char *buf, size_t size, int access,
		size_t off, size_t len)
{
	mock_device_set_caps(IBV_DEVICE_MEM_WINDOW_TYPE_2B);
	mock_device_set_vendor_id(vendor);
	fx->peer = fx_peer();
	struct ibv_qp_init_attr_ex attr = {.pd = peer_pd(fx->peer), .qp_type = IBV_QPT_RC};
	fx->qp = mock_qp_new(&attr);
	assert_int_equal(cq_new(mock_ibv_ctx(), 8, NULL, &fx->cq), 0);
	fx->mr = ibv_reg_mr(peer_pd(fx->peer), buf, size, access);
	fx->windows = 0;
	fx->range = (struct mw_range){fx->mr, access, (uintptr_t)(buf + off), len, &fx->windows};
	mock_calls_reset();
}

static inline void
fx_window_close(struct fx_window *fx)
{
	assert_int_equal(ibv_dereg_mr(fx->mr), 0);
	assert_int_equal(cq_delete(&fx->cq), 0);
	mock_qp_free(fx->qp);
	assert_int_equal(rpma_peer_delete(&fx->peer), 0);
}

#endif /* FX_WINDOW_H */
