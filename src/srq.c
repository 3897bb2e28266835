// SPDX-License-Identifier: BSD-3-Clause
/* srq.c -- a shared receive queue and its optional shared receive CQ */

#include <stdlib.h>

#include "fault.h"
#include "cq.h"
#include "log.h"
#include "peer.h"
#include "post.h"
#include "srq.h"
#include "srq_cfg.h"

struct rpma_srq {
	struct ibv_srq *ibv_srq;
	struct rpma_cq *rcq;
};

int
rpma_srq_new(struct rpma_peer *peer, struct rpma_srq_cfg *cfg, struct rpma_srq **srq_ptr)
{
	if (peer == NULL || srq_ptr == NULL)
		return RPMA_E_INVAL;
	if (cfg == NULL)
		cfg = (struct rpma_srq_cfg *)srq_cfg_default();

	struct rpma_srq *srq = FI_PTR(calloc(1, sizeof(*srq)), ENOMEM);
	if (srq == NULL)
		return RPMA_E_NOMEM;

	struct ibv_srq_init_attr attr = {
		.attr = { .max_wr = srq_cfg_rq_size(cfg), .max_sge = 1 },
	};
	int ret = RPMA_E_PROVIDER;
	srq->ibv_srq = FI_PTR(ibv_create_srq(peer_pd(peer), &attr), ENOMEM);
	if (srq->ibv_srq == NULL) {
		RPMA_LOG_PROVIDER(errno, "ibv_create_srq()");
		goto err_free;
	}

	uint32_t rcq_size = srq_cfg_rcq_size(cfg);
	if (rcq_size) {
		ret = cq_new(peer_ibv_context(peer), rcq_size, NULL, &srq->rcq);
		if (ret)
			goto err_destroy_srq;
	}

	*srq_ptr = srq;
	return 0;

err_destroy_srq:
	(void) ibv_destroy_srq(srq->ibv_srq);
err_free:
	free(srq);
	return ret;
}

int
rpma_srq_delete(struct rpma_srq **srq_ptr)
{
	if (srq_ptr == NULL)
		return RPMA_E_INVAL;

	struct rpma_srq *srq = *srq_ptr;
	if (srq == NULL)
		return 0;

	int ret = cq_delete(&srq->rcq);
	int err = ibv_destroy_srq(srq->ibv_srq);
	if (err) {
		RPMA_LOG_PROVIDER(err, "ibv_destroy_srq()");
		ret = RPMA_E_PROVIDER;
	}

	free(srq);
	*srq_ptr = NULL;
	return ret;
}

int
rpma_srq_recv(struct rpma_srq *srq, struct rpma_mr_local *dst, size_t offset, size_t len,
		const void *op_context)
{
	if (unlikely(srq == NULL || (dst == NULL && (offset || len))))
		return RPMA_E_INVAL;

	if (unlikely(dst == NULL))
		return post_recv_empty(NULL, srq->ibv_srq, op_context);
	return post_recv(NULL, srq->ibv_srq, dst, offset, len, op_context);
}

int
rpma_srq_get_rcq(const struct rpma_srq *srq, struct rpma_cq **rcq_ptr)
{
	if (srq == NULL || rcq_ptr == NULL)
		return RPMA_E_INVAL;

	*rcq_ptr = srq->rcq;
	return 0;
}

struct ibv_srq *
srq_ibv_srq(const struct rpma_srq *srq)
{
	return srq->ibv_srq;
}

struct rpma_cq *
srq_rcq(const struct rpma_srq *srq)
{
	return srq->rcq;
}
