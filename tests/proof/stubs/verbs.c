// SPDX-License-Identifier: BSD-3-Clause
/*
 * verbs.c -- libibverbs for the proofs. The inline verbs of verbs.h (post,
 * notify, query_device_ex, advise_mr, ibv_wr_*) dispatch through the
 * context's ops and the extended QP's function pointers, so the stub
 * device carries the functions below there. Every object is allocated and
 * freed as the real one would be, so that a harness checking for leaks sees
 * the library release what it acquired. Setting things up succeeds, but
 * that a registration may be refused the rights of a native FLUSH (as rxe
 * refuses them on DRAM, and a kernel without FLUSH); posting may fail, as
 * it may on a real device.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "stubs.h"

struct stub_record stub_rec;
struct ibv_mr *stub_last_mr;
int stub_last_access;

static struct verbs_context vctx;
static struct ibv_device device;

void
stub_record_clear(void)
{
	memset(&stub_rec, 0, sizeof(stub_rec));
}

/* a provider's answer to a post: done, or refused for want of room */
static int
post_result(void)
{
	int err = nondet_int();

	__CPROVER_assume(err == 0 || err == ENOMEM);
	return err;
}

static int
op_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad_wr)
{
	(void) qp;
	stub_rec.send_calls++;
	stub_rec.send_wr = *wr;
	if (wr->num_sge > 0)
		stub_rec.send_sge = wr->sg_list[0];
	/* the provider copies inline data out of the caller's memory at once */
	if (wr->send_flags & IBV_SEND_INLINE)
		stub_read((const void *)(uintptr_t)wr->sg_list[0].addr, wr->sg_list[0].length);
	int err = post_result();
	if (err)
		*bad_wr = wr;
	return err;
}

/* a receive posted to target (a QP or an SRQ) */
static int
recv_posted(const void *target, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr)
{
	stub_rec.recv_calls++;
	stub_rec.recv_target = target;
	stub_rec.recv_wr = *wr;
	if (wr->num_sge > 0)
		stub_rec.recv_sge = wr->sg_list[0];
	int err = post_result();
	if (err)
		*bad_wr = wr;
	return err;
}

static int
op_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr)
{
	return recv_posted(qp, wr, bad_wr);
}

static int
op_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr)
{
	return recv_posted(srq, wr, bad_wr);
}

static int
op_req_notify_cq(struct ibv_cq *cq, int solicited_only)
{
	(void) cq;
	(void) solicited_only;
	return 0;
}

static int
op_query_device_ex(struct ibv_context *context, const struct ibv_query_device_ex_input *input,
		struct ibv_device_attr_ex *attr, size_t attr_size)
{
	(void) context;
	(void) input;
	memset(attr, 0, attr_size);
	attr->odp_caps.general_caps = nondet_u64();
	attr->odp_caps.per_transport_caps.rc_odp_caps = nondet_u32();
	attr->device_cap_flags_ex = nondet_u64();
	return 0;
}

static int
op_advise_mr(struct ibv_pd *pd, enum ibv_advise_mr_advice advice, uint32_t flags,
		struct ibv_sge *sg_list, uint32_t num_sges)
{
	(void) pd;
	(void) advice;
	(void) flags;
	stub_rec.advise_calls++;
	stub_rec.advise_sge = sg_list[0];
	stub_rec.advise_num_sge = num_sges;
	int err = nondet_int();
	__CPROVER_assume(err == 0 || err == EOPNOTSUPP || err == EINVAL || err == EFAULT ||
			err == EIO);
	return err;
}

void
stub_read(const void *ptr, size_t len)
{
	size_t i = nondet_size();

	/* one byte at any index below len: so every one of them */
	if (len > 0 && i < len)
		(void) ((const volatile uint8_t *)ptr)[i];
}

struct ibv_context *
stub_device(void)
{
	vctx.sz = sizeof(vctx);
	vctx.context.abi_compat = __VERBS_ABI_IS_EXTENDED;
	vctx.context.device = &device;
	vctx.context.ops.post_send = op_post_send;
	vctx.context.ops.post_recv = op_post_recv;
	vctx.context.ops.post_srq_recv = op_post_srq_recv;
	vctx.context.ops.req_notify_cq = op_req_notify_cq;
	vctx.query_device_ex = op_query_device_ex;
	vctx.advise_mr = op_advise_mr;
	return &vctx.context;
}

const char *
ibv_get_device_name(struct ibv_device *dev)
{
	(void) dev;
	return "stub0";
}

struct ibv_pd *
ibv_alloc_pd(struct ibv_context *context)
{
	struct ibv_pd *pd = malloc(sizeof(*pd));
	__CPROVER_assume(pd != NULL);
	pd->context = context;
	return pd;
}

int
ibv_dealloc_pd(struct ibv_pd *pd)
{
	free(pd);
	return 0;
}

static struct ibv_mr *
reg_mr(struct ibv_pd *pd, void *addr, size_t length, int access)
{
	if ((access & (IBV_ACCESS_FLUSH_GLOBAL | IBV_ACCESS_FLUSH_PERSISTENT)) && nondet_bool()) {
		errno = nondet_bool() ? EINVAL : EOPNOTSUPP;
		return NULL;
	}

	struct ibv_mr *mr = malloc(sizeof(*mr));
	__CPROVER_assume(mr != NULL);
	mr->context = pd->context;
	mr->pd = pd;
	mr->addr = addr;
	mr->length = length;
	mr->lkey = nondet_u32();
	mr->rkey = nondet_u32();
	stub_last_mr = mr;
	stub_last_access = access;
	return mr;
}

/* verbs.h makes ibv_reg_mr a macro that calls either of these */
struct ibv_mr *
(ibv_reg_mr)(struct ibv_pd *pd, void *addr, size_t length, int access)
{
	return reg_mr(pd, addr, length, access);
}

struct ibv_mr *
ibv_reg_mr_iova2(struct ibv_pd *pd, void *addr, size_t length, uint64_t iova,
		unsigned int access)
{
	(void) iova;
	return reg_mr(pd, addr, length, (int)access);
}

int
ibv_dereg_mr(struct ibv_mr *mr)
{
	free(mr);
	return 0;
}

struct ibv_comp_channel *
ibv_create_comp_channel(struct ibv_context *context)
{
	struct ibv_comp_channel *ch = malloc(sizeof(*ch));
	__CPROVER_assume(ch != NULL);
	ch->context = context;
	ch->fd = 3;
	return ch;
}

int
ibv_destroy_comp_channel(struct ibv_comp_channel *channel)
{
	free(channel);
	return 0;
}

struct ibv_cq *
ibv_create_cq(struct ibv_context *context, int cqe, void *cq_context,
		struct ibv_comp_channel *channel, int comp_vector)
{
	(void) comp_vector;
	struct ibv_cq *cq = malloc(sizeof(*cq));
	__CPROVER_assume(cq != NULL);
	cq->context = context;
	cq->channel = channel;
	cq->cq_context = cq_context;
	cq->cqe = cqe;
	return cq;
}

int
ibv_destroy_cq(struct ibv_cq *cq)
{
	free(cq);
	return 0;
}

void
ibv_ack_cq_events(struct ibv_cq *cq, unsigned int nevents)
{
	(void) cq;
	(void) nevents;
}

struct ibv_srq *
ibv_create_srq(struct ibv_pd *pd, struct ibv_srq_init_attr *srq_init_attr)
{
	(void) srq_init_attr;
	struct ibv_srq *srq = malloc(sizeof(*srq));
	__CPROVER_assume(srq != NULL);
	srq->context = pd->context;
	srq->pd = pd;
	return srq;
}

int
ibv_destroy_srq(struct ibv_srq *srq)
{
	free(srq);
	return 0;
}

/* the extended QP: native ATOMIC WRITE and FLUSH go through its function pointers */

static void
qpx_wr_start(struct ibv_qp_ex *qpx)
{
	(void) qpx;
}

static void
qpx_wr_atomic_write(struct ibv_qp_ex *qpx, uint32_t rkey, uint64_t remote_addr,
		const void *atomic_wr)
{
	(void) qpx;
	stub_rec.atomic_calls++;
	stub_rec.atomic_rkey = rkey;
	stub_rec.atomic_addr = remote_addr;
	/* the provider copies the 8 bytes out of the caller's memory at once */
	stub_read(atomic_wr, 8);
}

static void
qpx_wr_flush(struct ibv_qp_ex *qpx, uint32_t rkey, uint64_t remote_addr, size_t len,
		uint8_t type, uint8_t level)
{
	(void) qpx;
	stub_rec.flush_calls++;
	stub_rec.flush_rkey = rkey;
	stub_rec.flush_addr = remote_addr;
	stub_rec.flush_len = len;
	stub_rec.flush_type = type;
	stub_rec.flush_level = level;
}

static int
qpx_wr_complete(struct ibv_qp_ex *qpx)
{
	(void) qpx;
	stub_rec.complete_calls++;
	return post_result();
}

struct ibv_qp *
stub_qp_new(struct ibv_pd *pd)
{
	struct ibv_qp_ex *qpx = malloc(sizeof(*qpx));
	__CPROVER_assume(qpx != NULL);
	memset(qpx, 0, sizeof(*qpx));
	qpx->qp_base.context = pd->context;
	qpx->qp_base.pd = pd;
	qpx->qp_base.qp_type = IBV_QPT_RC;
	qpx->wr_start = qpx_wr_start;
	qpx->wr_atomic_write = qpx_wr_atomic_write;
	qpx->wr_flush = qpx_wr_flush;
	qpx->wr_complete = qpx_wr_complete;
	return &qpx->qp_base;
}

struct ibv_qp_ex *
ibv_qp_to_qp_ex(struct ibv_qp *qp)
{
	return (struct ibv_qp_ex *)qp;
}
