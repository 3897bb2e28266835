/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * post.h -- the data path: a work request built on the stack from the
 * regions' fields and handed to the provider. The functions are inline so
 * that an operation (rpma_write(), rpma_flush()...) compiles into one
 * function of the library: no call of our own before the provider's, no
 * lock, no allocation, no syscall. What is rare or failing is in post.c.
 *
 * The requests are filled field by field, with only the fields the
 * provider reads for the opcode: an initializer would zero all ~100 bytes.
 * A length is checked first to fit the 32 bits of a scatter entry
 * ((len >> 32) != 0 costs no register across the other checks).
 */

#ifndef RPMA_POST_H
#define RPMA_POST_H

#include "fault.h"
#include "mr.h"

/* RPMA_F_COMPLETION_ALWAYS is ON_ERROR plus the bit of IBV_SEND_SIGNALED */
#define POST_SIGNALED (RPMA_F_COMPLETION_ALWAYS & ~RPMA_F_COMPLETION_ON_ERROR)
_Static_assert(POST_SIGNALED == IBV_SEND_SIGNALED, "flags map to send flags by one mask");

/*
 * Log a failed post (errno = err, or -err where a provider negates it) and
 * return RPMA_E_PROVIDER.
 */
int post_failed(int err, const char *call);

/* Post a request that moves no byte: no scatter entry, no remote address. */
int post_empty(struct ibv_qp *qp, enum ibv_wr_opcode opcode, int flags, uint32_t imm,
		const void *op_context);

/* Post a receive of nothing to a QP's RQ or, with qp NULL, to srq. */
int post_recv_empty(struct ibv_qp *qp, struct ibv_srq *srq, const void *op_context);


/* Post a native ATOMIC WRITE through the extended QP (non-NULL only where supported). */
int post_atomic_write(struct ibv_qp_ex *qpx, const struct rpma_mr_remote *dst,
		size_t dst_offset, const char src[8], int flags, const void *op_context);

static inline int
post_send_wr(struct ibv_qp *qp, struct ibv_send_wr *wr)
{
	struct ibv_send_wr *bad_wr;

	int err = FI_ERR(ibv_post_send(qp, wr, &bad_wr), ENOMEM);
	return likely(err == 0) ? 0 : post_failed(err, "ibv_post_send()");
}

/* hand a receive to a QP's RQ or, with qp NULL, to srq */
static inline int
post_recv_wr(struct ibv_qp *qp, struct ibv_srq *srq, struct ibv_recv_wr *wr)
{
	struct ibv_recv_wr *bad_wr;

	if (qp) {
		int err = FI_ERR(ibv_post_recv(qp, wr, &bad_wr), ENOMEM);
		return likely(err == 0) ? 0 : post_failed(err, "ibv_post_recv()");
	}
	int err = FI_ERR(ibv_post_srq_recv(srq, wr, &bad_wr), ENOMEM);
	return likely(err == 0) ? 0 : post_failed(err, "ibv_post_srq_recv()");
}

/*
 * The ranges of a request: local[local_off, +len) and remote[remote_off,
 * +len) inside their regions, len below 4 GiB (a scatter entry's length).
 * The full check, sums taken without wrap-around: the connection's fast
 * path (conn.c, rdma_op()) decides the common case, offsets and length
 * below 4 GiB, itself and comes here with the rest.
 */
static inline bool
post_ranges_ok(size_t local_off, size_t local_size, size_t remote_off, size_t remote_size,
		size_t len)
{
	return (len >> 32) == 0 && mr_range_ok(local_off, len, local_size) &&
		mr_range_ok(remote_off, len, remote_size);
}

/* [off, +len) inside a region of size bytes, a length of any size (a flush's) */
static inline bool
post_within(size_t off, size_t size, size_t len)
{
	if (likely(((off | len) >> 32) == 0))
		return off + len <= size;
	return mr_range_ok(off, len, size);
}

/* the same for the one range of a scatter entry: len below 4 GiB */
static inline bool
post_range_ok(size_t off, size_t size, size_t len)
{
	if (likely(((off | len) >> 32) == 0))
		return off + len <= size;
	return (len >> 32) == 0 && mr_range_ok(off, len, size);
}

/* one scatter entry: local[offset, +len) */
static inline void
post_sge(struct ibv_sge *sge, const struct rpma_mr_local *local, size_t offset, size_t len)
{
	sge->addr = (uint64_t)(uintptr_t)(local->addr + offset);
	sge->length = (uint32_t)len;
	sge->lkey = local->lkey;
}

/*
 * The fields every send-queue request of one scatter entry needs; imm_data
 * is read for the _WITH_IMM opcodes only (set by their callers).
 */
static inline void
post_one(struct ibv_send_wr *wr, struct ibv_sge *sge, enum ibv_wr_opcode opcode, int flags,
		const void *op_context)
{
	wr->wr_id = (uint64_t)(uintptr_t)op_context;
	wr->next = NULL;
	wr->sg_list = sge;
	wr->num_sge = 1;
	wr->opcode = opcode;
	wr->send_flags = (unsigned)flags & POST_SIGNALED;
}

/* an RDMA read or write of local[local_offset, +len) with remote[remote_offset, +len) */
static inline int
post_rdma_valid(struct ibv_qp *qp, enum ibv_wr_opcode opcode,
		const struct rpma_mr_local *local, size_t local_offset,
		const struct rpma_mr_remote *remote, size_t remote_offset, size_t len,
		int flags, uint32_t imm, const void *op_context)
{
	struct ibv_sge sge;
	struct ibv_send_wr wr;

	post_sge(&sge, local, local_offset, len);
	post_one(&wr, &sge, opcode, flags, op_context);
	if (opcode == IBV_WR_RDMA_WRITE_WITH_IMM)
		wr.imm_data = imm;
	wr.wr.rdma.remote_addr = remote->addr + remote_offset;
	wr.wr.rdma.rkey = remote->rkey;
	return post_send_wr(qp, &wr);
}

/* the same after checking both ranges (imm in network byte order) */
static inline int
post_rdma(struct ibv_qp *qp, enum ibv_wr_opcode opcode,
		const struct rpma_mr_local *local, size_t local_offset,
		const struct rpma_mr_remote *remote, size_t remote_offset, size_t len,
		int flags, uint32_t imm, const void *op_context)
{
	if (unlikely(!post_ranges_ok(local_offset, local->size, remote_offset,
			(size_t)remote->size, len)))
		return RPMA_E_INVAL;

	return post_rdma_valid(qp, opcode, local, local_offset, remote, remote_offset, len,
			flags, imm, op_context);
}

/*
 * Read one byte of src[src_offset, +len) into the byte dst describes (an
 * entry built once, when the connection was: the flush's), after checking
 * that range; an empty range reads the byte before its end (a remote
 * region is never empty). The read completes only after the writes posted
 * before it on the connection are placed: its completion makes them
 * visible.
 */
static inline int
post_read_within(struct ibv_qp *qp, const struct ibv_sge *dst,
		const struct rpma_mr_remote *src, size_t src_offset, size_t len,
		int flags, const void *op_context)
{
	if (unlikely(!post_within(src_offset, (size_t)src->size, len)))
		return RPMA_E_INVAL;

	/* src_offset <= size: one less where it is the end */
	size_t at = src_offset + (src_offset < src->size) - 1;
	struct ibv_send_wr wr;

	/* the provider only reads the entry */
	post_one(&wr, (struct ibv_sge *)dst, IBV_WR_RDMA_READ, flags, op_context);
	wr.wr.rdma.remote_addr = src->addr + at;
	wr.wr.rdma.rkey = src->rkey;
	return post_send_wr(qp, &wr);
}

/* a send (opcode IBV_WR_SEND or _WITH_IMM, imm in network order) of src[offset, +len) */
static inline int
post_msg_valid(struct ibv_qp *qp, enum ibv_wr_opcode opcode, const struct rpma_mr_local *src,
		size_t offset, size_t len, int flags, uint32_t imm, const void *op_context)
{
	struct ibv_sge sge;
	struct ibv_send_wr wr;

	post_sge(&sge, src, offset, len);
	post_one(&wr, &sge, opcode, flags, op_context);
	if (opcode == IBV_WR_SEND_WITH_IMM)
		wr.imm_data = imm;
	return post_send_wr(qp, &wr);
}

/* the same after checking the range */
static inline int
post_msg(struct ibv_qp *qp, enum ibv_wr_opcode opcode, const struct rpma_mr_local *src,
		size_t offset, size_t len, int flags, uint32_t imm, const void *op_context)
{
	if (unlikely(!post_range_ok(offset, src->size, len)))
		return RPMA_E_INVAL;

	return post_msg_valid(qp, opcode, src, offset, len, flags, imm, op_context);
}

/* a receive into dst[offset, +len) posted to a QP's RQ or, with qp NULL, to srq */
static inline int
post_recv(struct ibv_qp *qp, struct ibv_srq *srq, const struct rpma_mr_local *dst,
		size_t offset, size_t len, const void *op_context)
{
	if (unlikely(!post_range_ok(offset, dst->size, len)))
		return RPMA_E_INVAL;

	struct ibv_sge sge;
	struct ibv_recv_wr wr;

	post_sge(&sge, dst, offset, len);
	wr.wr_id = (uint64_t)(uintptr_t)op_context;
	wr.next = NULL;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	return post_recv_wr(qp, srq, &wr);
}

/* An 8-byte write of src, carried inline: the ATOMIC WRITE fallback (dst_offset aligned). */
static inline int
post_write_inline8(struct ibv_qp *qp, const struct rpma_mr_remote *dst, size_t dst_offset,
		const char src[8], int flags, const void *op_context)
{
	size_t size = (size_t)dst->size;

	if (unlikely(size < RPMA_ATOMIC_WRITE_ALIGNMENT ||
			dst_offset > size - RPMA_ATOMIC_WRITE_ALIGNMENT))
		return RPMA_E_INVAL;

	struct ibv_sge sge;
	struct ibv_send_wr wr;

	sge.addr = (uint64_t)(uintptr_t)src;
	sge.length = RPMA_ATOMIC_WRITE_ALIGNMENT;
	post_one(&wr, &sge, IBV_WR_RDMA_WRITE, flags, op_context);
	wr.send_flags |= IBV_SEND_INLINE;
	wr.wr.rdma.remote_addr = dst->addr + dst_offset;
	wr.wr.rdma.rkey = dst->rkey;
	return post_send_wr(qp, &wr);
}

#if defined(HAVE_IBV_ATOMIC_WRITE) || defined(HAVE_IBV_FLUSH)
/* a request on the extended QP: open it, then (after its ibv_wr_*()) post it */
static inline void
post_qpx_start(struct ibv_qp_ex *qpx, int flags, const void *op_context)
{
	ibv_wr_start(qpx);
	qpx->wr_id = (uint64_t)(uintptr_t)op_context;
	qpx->wr_flags = (unsigned)flags & POST_SIGNALED;
}

static inline int
post_qpx_complete(struct ibv_qp_ex *qpx)
{
	int err = FI_ERR(ibv_wr_complete(qpx), ENOMEM);
	return likely(err == 0) ? 0 : post_failed(err, "ibv_wr_complete()");
}
#endif

#ifdef HAVE_IBV_FLUSH
/*
 * A native FLUSH of dst[dst_offset, +len) with placement place (IBV_FLUSH_*)
 * through the extended QP, after checking that range.
 */
static inline int
post_flush(struct ibv_qp_ex *qpx, const struct rpma_mr_remote *dst, size_t dst_offset,
		size_t len, unsigned place, int flags, const void *op_context)
{
	if (unlikely(!mr_range_ok(dst_offset, len, dst->size)))
		return RPMA_E_INVAL;

	post_qpx_start(qpx, flags, op_context);
	ibv_wr_flush(qpx, dst->rkey, dst->addr + dst_offset, len, (uint8_t)place,
			IBV_FLUSH_RANGE);
	return post_qpx_complete(qpx);
}
#endif

#endif /* RPMA_POST_H */
