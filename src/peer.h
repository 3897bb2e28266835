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

/* placement types of a FLUSH, as bits (the values of rdma-core's IBV_FLUSH_*) */
#define PEER_FLUSH_GLOBAL	(1u << 0)
#define PEER_FLUSH_PERSISTENT	(1u << 1)

/* a region's rights to be flushed (the kernel ABI's, as rdma-core's IBV_ACCESS_FLUSH_*) */
#define PEER_ACCESS_FLUSH_GLOBAL	(1 << 8)
#define PEER_ACCESS_FLUSH_PERSISTENT	(1 << 9)

/* the FLUSH placement types the device serves (what regions are given rights for) */
unsigned peer_flush_caps(const struct rpma_peer *peer);

/* the FLUSH placement types QPs of this peer post natively (0 in a build without FLUSH) */
unsigned peer_native_flush(const struct rpma_peer *peer);

/*
 * Whether the descriptors of this peer's regions leave a peer free to post
 * a native FLUSH; if not (rxe, src/peer.c), a flush usage's descriptor
 * shows RPMA_MR_USAGE_READ_SRC, which this library flushes by a read.
 */
bool peer_invites_native_flush(const struct rpma_peer *peer);

/*
 * The access memory an RDMA READ's response lands in needs: local write,
 * and on iWARP remote write too, as the response is placed there like an
 * RDMA WRITE (iWARP hardware checks it; librpma 1.x grants it the same way).
 */
int peer_read_dst_access(const struct rpma_peer *peer);

/* whether the device binds type-2 memory windows, which grants are (mw.c) */
bool peer_windows(const struct rpma_peer *peer);

/*
 * Whether the device refuses an access through a window outside the
 * window's range. rxe does not: it checks the range of the window's region
 * only (check_rkey() in the kernel's rxe_resp.c), so on rxe a window is
 * bound over a registration of its own range (mw.c).
 */
bool peer_windows_bounded(const struct rpma_peer *peer);

/*
 * The scatter entry a read-after-write flush on a connection of the peer
 * reads into: one byte for all of them (flush.c), registered when the first
 * connection asks for it and kept, once no connection holds it, until
 * rpma_peer_delete() (as a raw verbs program keeps one per protection
 * domain). Every successful get is matched by one put, when the connection
 * is gone.
 */
int peer_flush_dst_get(struct rpma_peer *peer, struct ibv_sge *sge);
void peer_flush_dst_put(struct rpma_peer *peer);

/*
 * Register memory with *access; retries with ODP where the device offers it
 * and pinning is refused, and without flush rights where those are refused:
 * *access becomes the access granted, with IBV_ACCESS_ON_DEMAND where the
 * registration needed ODP.
 */
int peer_reg_mr(const struct rpma_peer *peer, void *addr, size_t length, int *access,
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
