// SPDX-License-Identifier: BSD-3-Clause
/*
 * post.c -- the parts of the data path kept out of line: failures, requests
 * that move nothing, and the 8-byte atomic writes.
 */

#include <string.h>

#include "log.h"
#include "post.h"

__attribute__((cold)) int
post_failed(int err, const char *call)
{
	/* libsiw (soft-iWARP) returns the errno negated */
	RPMA_LOG_PROVIDER(err < 0 ? -err : err, call);
	return RPMA_E_PROVIDER;
}

int
post_empty(struct ibv_qp *qp, enum ibv_wr_opcode opcode, int flags, uint32_t imm,
		const void *op_context)
{
	struct ibv_send_wr wr = {
		.wr_id = (uint64_t)(uintptr_t)op_context,
		.opcode = opcode,
		.send_flags = (unsigned)flags & POST_SIGNALED,
		.imm_data = imm,
	};
	return post_send_wr(qp, &wr);
}

int
post_recv_empty(struct ibv_qp *qp, struct ibv_srq *srq, const void *op_context)
{
	struct ibv_recv_wr wr = { .wr_id = (uint64_t)(uintptr_t)op_context };

	return post_recv_wr(qp, srq, &wr);
}

int
post_atomic_write(struct ibv_qp_ex *qpx, const struct rpma_mr_remote *dst, size_t dst_offset,
		const char src[8], int flags, const void *op_context)
{
#ifdef HAVE_IBV_ATOMIC_WRITE
	if (unlikely(!mr_range_ok(dst_offset, RPMA_ATOMIC_WRITE_ALIGNMENT, dst->size)))
		return RPMA_E_INVAL;

	post_qpx_start(qpx, flags, op_context);
	ibv_wr_atomic_write(qpx, dst->rkey, dst->addr + dst_offset, src);
	return post_qpx_complete(qpx);
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
