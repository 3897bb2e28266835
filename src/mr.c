// SPDX-License-Identifier: BSD-3-Clause
/*
 * mr.c -- local and remote memory regions, their descriptors, and the
 * posting of the operations that move bytes between them.
 *
 * The descriptor is 21 bytes, little-endian whatever the host:
 *   0  address   8 bytes
 *   8  length    8 bytes
 *   16 rkey      4 bytes
 *   20 usage     1 byte (RPMA_MR_USAGE_* bits)
 * It comes from the peer, so rpma_mr_remote_from_descriptor() trusts none of it.
 */

#include <arpa/inet.h>
#include <endian.h>
#include <inttypes.h>
#include <stdlib.h>

#include "fault.h"
#include "log.h"
#include "mr.h"
#include "peer.h"

#define DESC_SIZE	21
#define DESC_ADDR	0
#define DESC_LENGTH	8
#define DESC_RKEY	16
#define DESC_USAGE	20

#define USAGE_ALL (RPMA_MR_USAGE_READ_SRC | RPMA_MR_USAGE_READ_DST | \
		RPMA_MR_USAGE_WRITE_SRC | RPMA_MR_USAGE_WRITE_DST | \
		RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY | RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT | \
		RPMA_MR_USAGE_SEND | RPMA_MR_USAGE_RECV)

/* usages under which the NIC writes into local memory */
#define USAGE_LOCAL_WRITE (RPMA_MR_USAGE_READ_DST | RPMA_MR_USAGE_WRITE_DST | \
		RPMA_MR_USAGE_RECV)

struct rpma_mr_local {
	struct ibv_mr *ibv_mr;
	char *addr;
	size_t size;
	uint32_t lkey;
	int usage;
};

struct rpma_mr_remote {
	uint64_t addr;
	uint64_t size;
	uint32_t rkey;
	int usage;
	unsigned flush_types;	/* 1 << RPMA_FLUSH_TYPE_* the region allows */
};

/* the least access each usage needs: the peer gets no right it was not given */
static int
usage_to_access(int usage)
{
	int access = 0;

	if (usage & USAGE_LOCAL_WRITE)
		access |= IBV_ACCESS_LOCAL_WRITE;
	if (usage & RPMA_MR_USAGE_WRITE_DST)
		access |= IBV_ACCESS_REMOTE_WRITE;
	/* a flush without native FLUSH is an RDMA read of the flushed region */
	if (usage & (RPMA_MR_USAGE_READ_SRC | RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY |
			RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT))
		access |= IBV_ACCESS_REMOTE_READ;
	return access;
}

int
rpma_mr_reg(struct rpma_peer *peer, void *ptr, size_t size, int usage,
		struct rpma_mr_local **mr_ptr)
{
	if (peer == NULL || ptr == NULL || size == 0 || mr_ptr == NULL)
		return RPMA_E_INVAL;
	if (usage == 0 || (usage & ~USAGE_ALL))
		return RPMA_E_INVAL;

	struct rpma_mr_local *mr = FI_PTR(malloc(sizeof(*mr)), ENOMEM);
	if (mr == NULL)
		return RPMA_E_NOMEM;

	int ret = peer_reg_mr(peer, ptr, size, usage_to_access(usage), &mr->ibv_mr);
	if (ret) {
		free(mr);
		return ret;
	}

	mr->addr = ptr;
	mr->size = size;
	mr->lkey = mr->ibv_mr->lkey;
	mr->usage = usage;
	*mr_ptr = mr;
	return 0;
}

int
rpma_mr_dereg(struct rpma_mr_local **mr_ptr)
{
	if (mr_ptr == NULL)
		return RPMA_E_INVAL;

	struct rpma_mr_local *mr = *mr_ptr;
	if (mr == NULL)
		return 0;

	int err = ibv_dereg_mr(mr->ibv_mr);
	if (err) {
		RPMA_LOG_PROVIDER(err, "ibv_dereg_mr()");
		return RPMA_E_PROVIDER;
	}

	free(mr);
	*mr_ptr = NULL;
	return 0;
}

int
mr_dereg_always(struct rpma_mr_local **mr_ptr)
{
	int ret = rpma_mr_dereg(mr_ptr);

	/* the library's own regions go with the object that owns them, whatever the provider says */
	free(*mr_ptr);
	*mr_ptr = NULL;
	return ret;
}

int
rpma_mr_get_ptr(const struct rpma_mr_local *mr, void **ptr)
{
	if (mr == NULL || ptr == NULL)
		return RPMA_E_INVAL;

	*ptr = mr->addr;
	return 0;
}

int
rpma_mr_get_size(const struct rpma_mr_local *mr, size_t *size)
{
	if (mr == NULL || size == NULL)
		return RPMA_E_INVAL;

	*size = mr->size;
	return 0;
}

int
rpma_mr_get_descriptor_size(const struct rpma_mr_local *mr, size_t *desc_size)
{
	if (mr == NULL || desc_size == NULL)
		return RPMA_E_INVAL;

	*desc_size = DESC_SIZE;
	return 0;
}

int
rpma_mr_get_descriptor(const struct rpma_mr_local *mr, void *desc)
{
	if (mr == NULL || desc == NULL)
		return RPMA_E_INVAL;

	uint8_t *d = desc;
	uint64_t addr = htole64((uint64_t)(uintptr_t)mr->addr);
	uint64_t length = htole64((uint64_t)mr->size);
	uint32_t rkey = htole32(mr->ibv_mr->rkey);

	memcpy(d + DESC_ADDR, &addr, sizeof(addr));
	memcpy(d + DESC_LENGTH, &length, sizeof(length));
	memcpy(d + DESC_RKEY, &rkey, sizeof(rkey));
	d[DESC_USAGE] = (uint8_t)mr->usage;
	return 0;
}

/* a descriptor no librpma peer could have written: no usage, empty or wrapping range */
static bool
remote_valid(const struct rpma_mr_remote *mr)
{
	if (mr->usage == 0 || (mr->usage & ~USAGE_ALL)) {
		RPMA_LOG_ERROR("remote memory descriptor: unknown usage 0x%x", mr->usage);
		return false;
	}
	if (mr->size == 0 || mr->addr + mr->size < mr->addr || mr->size > SIZE_MAX) {
		RPMA_LOG_ERROR("remote memory descriptor: impossible range 0x%" PRIx64
				" + 0x%" PRIx64, mr->addr, mr->size);
		return false;
	}
	return true;
}

/* a flush reads the region: visibility needs remote read, persistence its own usage bit */
static unsigned
remote_flush_types(int usage)
{
	unsigned types = 0;

	if (usage & (RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY | RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT |
			RPMA_MR_USAGE_READ_SRC))
		types |= 1u << RPMA_FLUSH_TYPE_VISIBILITY;
	if (usage & RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT)
		types |= 1u << RPMA_FLUSH_TYPE_PERSISTENT;
	return types;
}

int
rpma_mr_remote_from_descriptor(const void *desc, size_t desc_size,
		struct rpma_mr_remote **mr_ptr)
{
	struct rpma_mr_remote tmp;
	uint64_t addr, length;
	uint32_t rkey;

	if (desc == NULL || mr_ptr == NULL)
		return RPMA_E_INVAL;
	if (desc_size != DESC_SIZE) {
		RPMA_LOG_ERROR("remote memory descriptor of %zu bytes, expected %d",
				desc_size, DESC_SIZE);
		return RPMA_E_INVAL;
	}

	const uint8_t *d = desc;
	memcpy(&addr, d + DESC_ADDR, sizeof(addr));
	memcpy(&length, d + DESC_LENGTH, sizeof(length));
	memcpy(&rkey, d + DESC_RKEY, sizeof(rkey));
	tmp.addr = le64toh(addr);
	tmp.size = le64toh(length);
	tmp.rkey = le32toh(rkey);
	tmp.usage = d[DESC_USAGE];
	if (!remote_valid(&tmp))
		return RPMA_E_NOSUPP;
	tmp.flush_types = remote_flush_types(tmp.usage);

	struct rpma_mr_remote *mr = FI_PTR(malloc(sizeof(*mr)), ENOMEM);
	if (mr == NULL)
		return RPMA_E_NOMEM;

	*mr = tmp;
	*mr_ptr = mr;
	return 0;
}

int
rpma_mr_remote_get_size(const struct rpma_mr_remote *mr, size_t *size)
{
	if (mr == NULL || size == NULL)
		return RPMA_E_INVAL;

	*size = (size_t)mr->size;
	return 0;
}

int
rpma_mr_remote_get_flush_type(const struct rpma_mr_remote *mr, int *flush_type)
{
	if (mr == NULL || flush_type == NULL)
		return RPMA_E_INVAL;

	*flush_type = mr->usage &
		(RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY | RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT);
	return 0;
}

int
rpma_mr_remote_delete(struct rpma_mr_remote **mr_ptr)
{
	if (mr_ptr == NULL)
		return RPMA_E_INVAL;

	free(*mr_ptr);
	*mr_ptr = NULL;
	return 0;
}

static int
advise_args_valid(const struct rpma_mr_local *mr, size_t offset, size_t len, int advice,
		uint32_t flags)
{
	if (!mr_range_ok(offset, len, mr->size))
		return 0;
	if (flags & ~(uint32_t)IBV_ADVISE_MR_FLAG_FLUSH)
		return 0;
	switch (advice) {
	case IBV_ADVISE_MR_ADVICE_PREFETCH:
	case IBV_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT:
		return 1;
	case IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE:
		return (mr->usage & USAGE_LOCAL_WRITE) != 0;
	default:
		return 0;
	}
}

int
rpma_mr_advise(struct rpma_mr_local *mr, size_t offset, size_t len, int advice,
		uint32_t flags)
{
	if (mr == NULL || !advise_args_valid(mr, offset, len, advice, flags))
		return RPMA_E_INVAL;
	if (len > UINT32_MAX)
		return RPMA_E_INVAL;

	struct ibv_sge sge = {
		.addr = (uint64_t)(uintptr_t)(mr->addr + offset),
		.length = (uint32_t)len,
		.lkey = mr->lkey,
	};

	int err = FI_ERR(ibv_advise_mr(mr->ibv_mr->pd, (enum ibv_advise_mr_advice)advice, flags,
			&sge, 1), EIO);
	if (err == 0)
		return 0;

	RPMA_LOG_PROVIDER(err, "ibv_advise_mr()");
	if (err == EOPNOTSUPP || err == ENOTSUP)
		return RPMA_E_NOSUPP;
	if (err == EINVAL || err == EFAULT)
		return RPMA_E_INVAL;
	return RPMA_E_PROVIDER;
}

/* data path: no lock, no allocation, no syscall of our own */

static inline int
post_send(struct ibv_qp *qp, struct ibv_send_wr *wr)
{
	struct ibv_send_wr *bad_wr;

	int err = FI_ERR(ibv_post_send(qp, wr, &bad_wr), ENOMEM);
	if (unlikely(err)) {
		RPMA_LOG_PROVIDER(err, "ibv_post_send()");
		return RPMA_E_PROVIDER;
	}
	return 0;
}

static inline unsigned
send_flags(int flags)
{
	/* an unsignaled work request still completes when it fails */
	return (flags & RPMA_F_COMPLETION_ALWAYS & ~RPMA_F_COMPLETION_ON_ERROR) ?
		IBV_SEND_SIGNALED : 0;
}

/*
 * Post an RDMA read or write between local[local_offset, +len) and
 * remote[remote_offset, +len), both ranges checked first; local NULL (and
 * so remote NULL, as the caller checked) moves nothing. The work request
 * is filled field by field: the provider reads only these fields.
 */
static inline int
post_rdma(struct ibv_qp *qp, enum ibv_wr_opcode opcode,
		const struct rpma_mr_local *local, size_t local_offset,
		const struct rpma_mr_remote *remote, size_t remote_offset, size_t len,
		int flags, uint32_t imm, const void *op_context)
{
	struct ibv_sge sge;
	struct ibv_send_wr wr;

	wr.num_sge = 0;
	wr.wr.rdma.remote_addr = 0;
	wr.wr.rdma.rkey = 0;
	if (local) {
		if (unlikely(!mr_range_ok(local_offset, len, local->size) ||
				!mr_range_ok(remote_offset, len, remote->size) ||
				len > UINT32_MAX))
			return RPMA_E_INVAL;
		sge.addr = (uint64_t)(uintptr_t)(local->addr + local_offset);
		sge.length = (uint32_t)len;
		sge.lkey = local->lkey;
		wr.num_sge = 1;
		wr.wr.rdma.remote_addr = remote->addr + remote_offset;
		wr.wr.rdma.rkey = remote->rkey;
	}
	wr.wr_id = (uint64_t)(uintptr_t)op_context;
	wr.next = NULL;
	wr.sg_list = &sge;
	wr.opcode = opcode;
	wr.send_flags = send_flags(flags);
	wr.imm_data = imm;
	return post_send(qp, &wr);
}

int
mr_post_read(struct ibv_qp *qp, struct rpma_mr_local *dst, size_t dst_offset,
		const struct rpma_mr_remote *src, size_t src_offset, size_t len,
		int flags, const void *op_context)
{
	return post_rdma(qp, IBV_WR_RDMA_READ, dst, dst_offset, src, src_offset, len, flags, 0,
			op_context);
}

int
mr_post_write(struct ibv_qp *qp, struct rpma_mr_remote *dst, size_t dst_offset,
		const struct rpma_mr_local *src, size_t src_offset, size_t len,
		int flags, const void *op_context)
{
	return post_rdma(qp, IBV_WR_RDMA_WRITE, src, src_offset, dst, dst_offset, len, flags, 0,
			op_context);
}

int
mr_post_write_imm(struct ibv_qp *qp, struct rpma_mr_remote *dst, size_t dst_offset,
		const struct rpma_mr_local *src, size_t src_offset, size_t len,
		int flags, uint32_t imm, const void *op_context)
{
	return post_rdma(qp, IBV_WR_RDMA_WRITE_WITH_IMM, src, src_offset, dst, dst_offset, len,
			flags, imm, op_context);
}

int
mr_post_write_inline8(struct ibv_qp *qp, struct rpma_mr_remote *dst, size_t dst_offset,
		const char src[8], int flags, const void *op_context)
{
	if (unlikely(!mr_range_ok(dst_offset, RPMA_ATOMIC_WRITE_ALIGNMENT, dst->size)))
		return RPMA_E_INVAL;

	struct ibv_sge sge = {
		.addr = (uint64_t)(uintptr_t)src,
		.length = RPMA_ATOMIC_WRITE_ALIGNMENT,
	};
	struct ibv_send_wr wr = {
		.wr_id = (uint64_t)(uintptr_t)op_context,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE,
		.send_flags = send_flags(flags) | IBV_SEND_INLINE,
		.wr.rdma.remote_addr = dst->addr + dst_offset,
		.wr.rdma.rkey = dst->rkey,
	};
	return post_send(qp, &wr);
}

int
mr_post_atomic_write(struct ibv_qp_ex *qpx, struct rpma_mr_remote *dst, size_t dst_offset,
		const char src[8], int flags, const void *op_context)
{
#ifdef HAVE_IBV_ATOMIC_WRITE
	if (unlikely(!mr_range_ok(dst_offset, RPMA_ATOMIC_WRITE_ALIGNMENT, dst->size)))
		return RPMA_E_INVAL;

	ibv_wr_start(qpx);
	qpx->wr_id = (uint64_t)(uintptr_t)op_context;
	qpx->wr_flags = send_flags(flags);
	ibv_wr_atomic_write(qpx, dst->rkey, dst->addr + dst_offset, src);
	int err = FI_ERR(ibv_wr_complete(qpx), ENOMEM);
	if (unlikely(err)) {
		RPMA_LOG_PROVIDER(err, "ibv_wr_complete()");
		return RPMA_E_PROVIDER;
	}
	return 0;
#else
	(void) qpx;
	(void) dst;
	(void) dst_offset;
	(void) src;
	(void) flags;
	(void) op_context;
	return RPMA_E_NOSUPP;
#endif
}

int
mr_post_send(struct ibv_qp *qp, const struct rpma_mr_local *src, size_t offset,
		size_t len, int flags, enum ibv_wr_opcode opcode, uint32_t imm,
		const void *op_context)
{
	struct ibv_sge sge;
	struct ibv_send_wr wr = {
		.wr_id = (uint64_t)(uintptr_t)op_context,
		.opcode = opcode,
		.send_flags = send_flags(flags),
		.imm_data = imm,
	};

	if (src) {
		if (unlikely(!mr_range_ok(offset, len, src->size) || len > UINT32_MAX))
			return RPMA_E_INVAL;
		sge.addr = (uint64_t)(uintptr_t)(src->addr + offset);
		sge.length = (uint32_t)len;
		sge.lkey = src->lkey;
		wr.sg_list = &sge;
		wr.num_sge = 1;
	}
	return post_send(qp, &wr);
}

int
mr_post_recv(struct ibv_qp *qp, struct ibv_srq *srq, struct rpma_mr_local *dst,
		size_t offset, size_t len, const void *op_context)
{
	struct ibv_sge sge;
	struct ibv_recv_wr *bad_wr;
	struct ibv_recv_wr wr = {
		.wr_id = (uint64_t)(uintptr_t)op_context,
	};

	if (dst) {
		if (unlikely(!mr_range_ok(offset, len, dst->size) || len > UINT32_MAX))
			return RPMA_E_INVAL;
		sge.addr = (uint64_t)(uintptr_t)(dst->addr + offset);
		sge.length = (uint32_t)len;
		sge.lkey = dst->lkey;
		wr.sg_list = &sge;
		wr.num_sge = 1;
	}

	int err = qp ? FI_ERR(ibv_post_recv(qp, &wr, &bad_wr), ENOMEM) :
		FI_ERR(ibv_post_srq_recv(srq, &wr, &bad_wr), ENOMEM);
	if (unlikely(err)) {
		RPMA_LOG_PROVIDER(err, qp ? "ibv_post_recv()" : "ibv_post_srq_recv()");
		return RPMA_E_PROVIDER;
	}
	return 0;
}

int
mr_post_read_within(struct ibv_qp *qp, struct rpma_mr_local *dst,
		const struct rpma_mr_remote *src, size_t src_offset, size_t len,
		int flags, const void *op_context)
{
	if (unlikely(!mr_range_ok(src_offset, len, src->size)))
		return RPMA_E_INVAL;

	/* as much as dst holds, from src_offset, backed off where src ends */
	size_t read_len = src->size < dst->size ? src->size : dst->size;
	size_t offset = src_offset <= src->size - read_len ? src_offset : src->size - read_len;

	return mr_post_read(qp, dst, 0, src, offset, read_len, flags, op_context);
}

unsigned
mr_remote_flush_types(const struct rpma_mr_remote *mr)
{
	return mr->flush_types;
}
