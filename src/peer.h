/* SPDX-License-Identifier: BSD-3-Clause */
/* peer.h -- what the peer (device and protection domain) offers the other modules */

#ifndef RPMA_PEER_H
#define RPMA_PEER_H

#include <rdma/rdma_cma.h>

#include "rpma.h"

struct ibv_context *peer_ibv_context(const struct rpma_peer *peer);
struct ibv_pd *peer_pd(const struct rpma_peer *peer);

/* whether QPs of this peer post ATOMIC WRITE natively */
bool peer_native_atomic_write(const struct rpma_peer *peer);

/* Register memory; retries with ODP where the device offers it and pinning is refused. */
int peer_reg_mr(const struct rpma_peer *peer, void *addr, size_t length, int access,
		struct ibv_mr **mr_ptr);

/* the queue sizes and the queues a new QP is built from */
struct peer_qp_attr {
	struct ibv_cq *cq;
	struct ibv_cq *rcq;	/* NULL: receives complete on cq */
	struct ibv_srq *srq;	/* NULL: the QP has its own RQ */
	uint32_t sq_size;
	uint32_t rq_size;
};

/* Create the RC QP of id (rdma_create_qp_ex). */
int peer_create_qp(const struct rpma_peer *peer, struct rdma_cm_id *id,
		const struct peer_qp_attr *attr);

#endif /* RPMA_PEER_H */
