/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mr.h -- what memory regions offer the data path: posting an operation
 * between a local and a remote region after checking both ranges.
 */

#ifndef RPMA_MR_H
#define RPMA_MR_H

#include "rpma.h"

/* off and len lie inside a region of size bytes, without overflow */
static inline bool
mr_range_ok(size_t off, size_t len, size_t size)
{
	return off <= size && len <= size - off;
}

/* Deregister and free the region even when deregistration fails (returns the failure). */
int mr_dereg_always(struct rpma_mr_local **mr_ptr);

/* Post an RDMA read of remote src into local dst (either may be NULL for 0 bytes). */
int mr_post_read(struct ibv_qp *qp, struct rpma_mr_local *dst, size_t dst_offset,
		const struct rpma_mr_remote *src, size_t src_offset, size_t len,
		int flags, const void *op_context);

/* Post an RDMA write of local src into remote dst (either may be NULL for 0 bytes). */
int mr_post_write(struct ibv_qp *qp, struct rpma_mr_remote *dst, size_t dst_offset,
		const struct rpma_mr_local *src, size_t src_offset, size_t len,
		int flags, const void *op_context);

/* The same with immediate data (imm in network byte order). */
int mr_post_write_imm(struct ibv_qp *qp, struct rpma_mr_remote *dst, size_t dst_offset,
		const struct rpma_mr_local *src, size_t src_offset, size_t len,
		int flags, uint32_t imm, const void *op_context);

/* Post an 8-byte write of src, carried inline: the ATOMIC WRITE fallback. */
int mr_post_write_inline8(struct ibv_qp *qp, struct rpma_mr_remote *dst, size_t dst_offset,
		const char src[8], int flags, const void *op_context);

/* Post a native ATOMIC WRITE through the extended QP (qpx non-NULL only where supported). */
int mr_post_atomic_write(struct ibv_qp_ex *qpx, struct rpma_mr_remote *dst, size_t dst_offset,
		const char src[8], int flags, const void *op_context);

/* Post a send (opcode IBV_WR_SEND or _WITH_IMM; imm in network order). */
int mr_post_send(struct ibv_qp *qp, const struct rpma_mr_local *src, size_t offset,
		size_t len, int flags, enum ibv_wr_opcode opcode, uint32_t imm,
		const void *op_context);

/* Post a receive to a QP's RQ or, with qp NULL, to srq. */
int mr_post_recv(struct ibv_qp *qp, struct ibv_srq *srq, struct rpma_mr_local *dst,
		size_t offset, size_t len, const void *op_context);

/*
 * Check src[src_offset, +len) lies in src, then read a few of its bytes
 * (as many as dst holds) into dst: the flush's read after the writes.
 */
int mr_post_read_within(struct ibv_qp *qp, struct rpma_mr_local *dst,
		const struct rpma_mr_remote *src, size_t src_offset, size_t len,
		int flags, const void *op_context);

/* the flush types (1 << RPMA_FLUSH_TYPE_*) the remote region allows */
unsigned mr_remote_flush_types(const struct rpma_mr_remote *mr);

#endif /* RPMA_MR_H */
