// SPDX-License-Identifier: BSD-3-Clause
/*
 * peer.c -- an RDMA device with a protection domain, and what the device
 * can do: On-Demand Paging and native ATOMIC WRITE.
 */

#include <stdlib.h>

#include "fault.h"
#include "log.h"
#include "peer.h"
#include "utils.h"

/* device_cap_flags_ex bits of the kernel ABI; rdma-core 44 names none of them */
#define DEVICE_CAP_FLUSH_GLOBAL		(1ULL << 38)
#define DEVICE_CAP_FLUSH_PERSISTENT	(1ULL << 39)
#define DEVICE_CAP_ATOMIC_WRITE		(1ULL << 40)

/* an RDMA write of up to this many bytes goes inline (the atomic write fallback) */
#define MAX_INLINE_DATA 8

struct rpma_peer {
	struct ibv_pd *pd;
	bool odp_capable;
	bool native_atomic_write;
};

static int
peer_query(struct ibv_context *ibv_ctx, struct rpma_peer *peer)
{
	struct ibv_device_attr_ex attr;

	int err = FI_ERR(ibv_query_device_ex(ibv_ctx, NULL, &attr), EIO);
	if (err) {
		RPMA_LOG_PROVIDER(err, "ibv_query_device_ex()");
		return RPMA_E_PROVIDER;
	}

	uint64_t caps = attr.device_cap_flags_ex;
	peer->odp_capable = utils_odp_capable(&attr);
#ifdef HAVE_IBV_ATOMIC_WRITE
	peer->native_atomic_write = (caps & DEVICE_CAP_ATOMIC_WRITE) != 0;
#endif
	RPMA_LOG_INFO("device %s: on-demand paging %s, native ATOMIC WRITE %s, "
			"native FLUSH %s (%s)", ibv_get_device_name(ibv_ctx->device),
			peer->odp_capable ? "yes" : "no",
			peer->native_atomic_write ? "yes" : "no",
			(caps & (DEVICE_CAP_FLUSH_GLOBAL | DEVICE_CAP_FLUSH_PERSISTENT)) ?
				"offered by the device" : "no",
			"flush is an RDMA read after the writes");
	return 0;
}

int
rpma_peer_new(struct ibv_context *ibv_ctx, struct rpma_peer **peer_ptr)
{
	if (ibv_ctx == NULL || peer_ptr == NULL)
		return RPMA_E_INVAL;

	struct rpma_peer *peer = FI_PTR(calloc(1, sizeof(*peer)), ENOMEM);
	if (peer == NULL)
		return RPMA_E_NOMEM;

	int ret = peer_query(ibv_ctx, peer);
	if (ret)
		goto err_free;

	errno = 0;
	peer->pd = FI_PTR(ibv_alloc_pd(ibv_ctx), ENOMEM);
	if (peer->pd == NULL) {
		if (errno == 0) {
			RPMA_LOG_ERROR("ibv_alloc_pd() failed without an error code");
			ret = RPMA_E_UNKNOWN;
		} else {
			ret = (errno == ENOMEM) ? RPMA_E_NOMEM : RPMA_E_PROVIDER;
			RPMA_LOG_PROVIDER(errno, "ibv_alloc_pd()");
		}
		goto err_free;
	}

	*peer_ptr = peer;
	return 0;

err_free:
	free(peer);
	return ret;
}

int
rpma_peer_delete(struct rpma_peer **peer_ptr)
{
	if (peer_ptr == NULL)
		return RPMA_E_INVAL;

	struct rpma_peer *peer = *peer_ptr;
	if (peer == NULL)
		return 0;

	int err = ibv_dealloc_pd(peer->pd);
	if (err) {
		RPMA_LOG_PROVIDER(err, "ibv_dealloc_pd()");
		return RPMA_E_PROVIDER;
	}

	free(peer);
	*peer_ptr = NULL;
	return 0;
}

struct ibv_context *
peer_ibv_context(const struct rpma_peer *peer)
{
	return peer->pd->context;
}

struct ibv_pd *
peer_pd(const struct rpma_peer *peer)
{
	return peer->pd;
}

bool
peer_native_atomic_write(const struct rpma_peer *peer)
{
	return peer->native_atomic_write;
}

int
peer_reg_mr(const struct rpma_peer *peer, void *addr, size_t length, int access,
		struct ibv_mr **mr_ptr)
{
	struct ibv_mr *mr = FI_PTR(ibv_reg_mr(peer->pd, addr, length, access), ENOMEM);

	/* memory that cannot be pinned (e.g. FS DAX) may still be reachable with ODP */
	if (mr == NULL && errno == EOPNOTSUPP && peer->odp_capable)
		mr = FI_PTR(ibv_reg_mr(peer->pd, addr, length, access | IBV_ACCESS_ON_DEMAND), ENOMEM);

	if (mr == NULL) {
		int err = errno;
		if (err == EFAULT)
			RPMA_LOG_ERROR("the kernel refused to pin %zu bytes at %p: memory mapped "
					"from an ordinary file (not DAX, not tmpfs) cannot be "
					"registered; use anonymous memory, a tmpfs or hugetlbfs "
					"file, or a DAX device", length, addr);
		RPMA_LOG_PROVIDER(err, "ibv_reg_mr()");
		return RPMA_E_PROVIDER;
	}

	*mr_ptr = mr;
	return 0;
}

static void
qp_attr_native_atomic_write(const struct rpma_peer *peer, struct ibv_qp_init_attr_ex *attr)
{
#ifdef HAVE_IBV_ATOMIC_WRITE
	if (!peer->native_atomic_write)
		return;
	attr->comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	attr->send_ops_flags = IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |
		IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM |
		IBV_QP_EX_WITH_RDMA_READ | IBV_QP_EX_WITH_ATOMIC_WRITE;
#else
	(void) peer;
	(void) attr;
#endif
}

int
peer_create_qp(const struct rpma_peer *peer, struct rdma_cm_id *id,
		const struct peer_qp_attr *qattr)
{
	struct ibv_qp_init_attr_ex attr = {
		.send_cq = qattr->cq,
		.recv_cq = qattr->rcq ? qattr->rcq : qattr->cq,
		.srq = qattr->srq,
		.cap = {
			.max_send_wr = qattr->sq_size,
			.max_recv_wr = qattr->srq ? 0 : qattr->rq_size,
			.max_send_sge = 1,
			.max_recv_sge = 1,
			.max_inline_data = MAX_INLINE_DATA,
		},
		.qp_type = IBV_QPT_RC,
		.sq_sig_all = 0,
		.comp_mask = IBV_QP_INIT_ATTR_PD,
		.pd = peer->pd,
	};
	qp_attr_native_atomic_write(peer, &attr);

	if (FI_NEG(rdma_create_qp_ex(id, &attr), ENOMEM)) {
		RPMA_LOG_PROVIDER(errno, "rdma_create_qp_ex()");
		return RPMA_E_PROVIDER;
	}
	return 0;
}
