// SPDX-License-Identifier: BSD-3-Clause
/*
 * ibverbs.c -- libibverbs mocked. The inline verbs (post, poll, notify,
 * query_device_ex, advise_mr, ibv_wr_*) dispatch through the context's ops
 * and the extended QP's function pointers: the fake context and QPs carry
 * the functions below there.
 */

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "mocks.h"

#define CQ_EVENTS_MAX 64
#define WC_QUEUED_MAX 64

struct mock_cq {
	struct ibv_cq cq;	/* first: what the library sees */
	int got;		/* events got from the channel */
	int acked;
};

static struct verbs_context vctx;
static struct ibv_device device;
static int odp_capable;
static uint64_t caps_ex;
static uint64_t caps;
static uint32_t vendor_id;
static int next_fd;
static int next_key;
static struct ibv_cq *cq_events[CQ_EVENTS_MAX];
static int cq_events_head, cq_events_tail;
/* the completions the device has for any CQ, in order */
static struct ibv_wc wc_queued[WC_QUEUED_MAX];
static int wc_queued_count;
/* what a signaled bind completes with: a status, or MOCK_BIND_NEVER, MOCK_BIND_HELD */
static int bind_outcome;
static uint64_t bind_held_wr_id;
static bool bind_held;

/* an int verb: 0, or what the test planned */
#define PLANNED_INT(fn) \
	do { \
		struct mock_plan_hit hit_; \
		if (mock_call(MOCK_##fn, &hit_)) { \
			if (hit_.err) \
				errno = hit_.err; \
			return hit_.ret; \
		} \
	} while (0)

/* a verb returning an object: NULL with errno when the test planned so */
#define PLANNED_NULL(fn) \
	do { \
		struct mock_plan_hit hit_; \
		if (mock_call(MOCK_##fn, &hit_)) { \
			if (hit_.err) \
				errno = hit_.err; \
			return NULL; \
		} \
	} while (0)

static int
op_poll_cq(struct ibv_cq *cq, int num_entries, struct ibv_wc *wc)
{
	struct mock_plan_hit hit;

	(void) cq;
	if (!mock_call(MOCK_ibv_poll_cq, &hit)) {
		/* what the device completed (mock_wc_push(), signaled binds), else nothing */
		int n = wc_queued_count < num_entries ? wc_queued_count : num_entries;
		memcpy(wc, wc_queued, (size_t)n * sizeof(*wc));
		memmove(wc_queued, wc_queued + n, (size_t)(wc_queued_count - n) * sizeof(*wc));
		wc_queued_count -= n;
		return n;
	}
	for (int i = 0; i < hit.ret && i < num_entries; i++) {
		memset(&wc[i], 0, sizeof(wc[i]));
		wc[i].wr_id = 1000 + (uint64_t)i;
		wc[i].status = IBV_WC_SUCCESS;
	}
	return hit.ret;
}

static int
op_req_notify_cq(struct ibv_cq *cq, int solicited_only)
{
	(void) cq;
	assert_int_equal(solicited_only, 0);
	PLANNED_INT(ibv_req_notify_cq);
	return 0;
}

void
mock_wc_push(const struct ibv_wc *wc)
{
	assert_true(wc_queued_count < WC_QUEUED_MAX);
	wc_queued[wc_queued_count++] = *wc;
}

void
mock_bind_set_outcome(int outcome)
{
	bind_outcome = outcome;
}

/* a signaled bind completes as the test said */
static void
bind_complete(const struct ibv_send_wr *wr)
{
	if (wr->opcode != IBV_WR_BIND_MW || !(wr->send_flags & IBV_SEND_SIGNALED))
		return;
	if (bind_outcome == MOCK_BIND_NEVER)
		return;
	if (bind_outcome == MOCK_BIND_HELD) {
		bind_held = true;
		bind_held_wr_id = wr->wr_id;
		return;
	}
	struct ibv_wc wc = {.wr_id = wr->wr_id, .status = (enum ibv_wc_status)bind_outcome,
		.opcode = IBV_WC_BIND_MW};
	mock_wc_push(&wc);
}

static int
op_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad_wr)
{
	(void) qp;
	mock_rec.send_wr = *wr;
	if (wr->num_sge > 0)
		mock_rec.send_sge = wr->sg_list[0];
	assert_null(wr->next);
	PLANNED_INT(ibv_post_send);
	(void) bad_wr;
	bind_complete(wr);
	return 0;
}

/* the error state flushes a held bind */
int
ibv_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask)
{
	(void) qp;
	mock_rec.qp_state = attr->qp_state;
	assert_int_equal(attr_mask, IBV_QP_STATE);
	PLANNED_INT(ibv_modify_qp);
	if (attr->qp_state == IBV_QPS_ERR && bind_held) {
		struct ibv_wc wc = {.wr_id = bind_held_wr_id, .status = IBV_WC_WR_FLUSH_ERR};
		mock_wc_push(&wc);
		bind_held = false;
	}
	return 0;
}

static void
record_recv(void *target, struct ibv_recv_wr *wr)
{
	mock_rec.recv_target = target;
	mock_rec.recv_wr = *wr;
	if (wr->num_sge > 0)
		mock_rec.recv_sge = wr->sg_list[0];
	assert_null(wr->next);
}

static int
op_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr)
{
	(void) bad_wr;
	record_recv(qp, wr);
	PLANNED_INT(ibv_post_recv);
	return 0;
}

static int
op_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr)
{
	(void) bad_wr;
	record_recv(srq, wr);
	PLANNED_INT(ibv_post_srq_recv);
	return 0;
}

static int
op_query_device_ex(struct ibv_context *context, const struct ibv_query_device_ex_input *input,
		struct ibv_device_attr_ex *attr, size_t attr_size)
{
	(void) context;
	(void) input;
	PLANNED_INT(ibv_query_device_ex);
	memset(attr, 0, attr_size);
	if (odp_capable) {
		attr->odp_caps.general_caps = IBV_ODP_SUPPORT;
		attr->odp_caps.per_transport_caps.rc_odp_caps =
			IBV_ODP_SUPPORT_WRITE | IBV_ODP_SUPPORT_READ;
	}
	attr->device_cap_flags_ex = caps_ex;
	attr->orig_attr.device_cap_flags = (unsigned)caps;
	attr->orig_attr.vendor_id = vendor_id;
	return 0;
}

static int
op_advise_mr(struct ibv_pd *pd, enum ibv_advise_mr_advice advice, uint32_t flags,
		struct ibv_sge *sg_list, uint32_t num_sges)
{
	(void) pd;
	mock_rec.advise.advice = advice;
	mock_rec.advise.flags = flags;
	mock_rec.advise.sge = sg_list[0];
	mock_rec.advise.num_sge = num_sges;
	PLANNED_INT(ibv_advise_mr);
	return 0;
}

static struct ibv_mw *
op_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type)
{
	mock_rec.mw.type = type;
	PLANNED_NULL(ibv_alloc_mw);
	struct ibv_mw *mw = mock_obj_new(sizeof(*mw));
	mw->context = pd->context;
	mw->pd = pd;
	mw->type = type;
	mw->rkey = 0x3000 + (uint32_t)next_key++ * 0x100;
	mock_rec.mw.allocs++;
	return mw;
}

static int
op_dealloc_mw(struct ibv_mw *mw)
{
	PLANNED_INT(ibv_dealloc_mw);
	mock_rec.mw.deallocs++;
	mock_obj_free(mw);
	return 0;
}

void
mock_ibverbs_reset(void)
{
	memset(&vctx, 0, sizeof(vctx));
	vctx.sz = sizeof(vctx);
	vctx.context.abi_compat = __VERBS_ABI_IS_EXTENDED;
	vctx.context.device = &device;
	vctx.context.ops.poll_cq = op_poll_cq;
	vctx.context.ops.req_notify_cq = op_req_notify_cq;
	vctx.context.ops.post_send = op_post_send;
	vctx.context.ops.post_recv = op_post_recv;
	vctx.context.ops.post_srq_recv = op_post_srq_recv;
	vctx.query_device_ex = op_query_device_ex;
	vctx.advise_mr = op_advise_mr;
	vctx.context.ops.alloc_mw = op_alloc_mw;
	vctx.context.ops.dealloc_mw = op_dealloc_mw;
	odp_capable = 0;
	caps_ex = 0;
	caps = 0;
	device.transport_type = IBV_TRANSPORT_IB;
	vendor_id = 0;
	next_fd = 100;
	next_key = 0;
	cq_events_head = cq_events_tail = 0;
	wc_queued_count = 0;
	bind_outcome = IBV_WC_SUCCESS;
	bind_held = false;
}

struct ibv_context *
mock_ibv_ctx(void)
{
	return &vctx.context;
}

void
mock_device_set_odp(int capable)
{
	odp_capable = capable;
}

void
mock_device_set_caps_ex(uint64_t caps)
{
	caps_ex = caps;
}

void
mock_device_set_transport(enum ibv_transport_type transport)
{
	device.transport_type = transport;
}

void
mock_device_set_caps(uint64_t c)
{
	caps = c;
}

void
mock_device_set_vendor_id(uint32_t id)
{
	vendor_id = id;
}

const char *
ibv_get_device_name(struct ibv_device *dev)
{
	assert_ptr_equal(dev, &device);
	return "mock0";
}

/* the strings of libibverbs for the statuses the library names */
const char *
ibv_wc_status_str(enum ibv_wc_status status)
{
	switch (status) {
	case IBV_WC_SUCCESS: return "success";
	case IBV_WC_WR_FLUSH_ERR: return "Work Request Flushed Error";
	case IBV_WC_MW_BIND_ERR: return "memory bind operation error";
	default: return "unknown";
	}
}

int
ibv_query_device(struct ibv_context *context, struct ibv_device_attr *device_attr)
{
	(void) context;
	(void) device_attr;
	fail_msg("the legacy ibv_query_device() must not be reached");
	return EOPNOTSUPP;
}

struct ibv_comp_channel *
ibv_create_comp_channel(struct ibv_context *context)
{
	PLANNED_NULL(ibv_create_comp_channel);
	struct ibv_comp_channel *ch = mock_obj_new(sizeof(*ch));
	ch->context = context;
	ch->fd = next_fd++;
	return ch;
}

int
ibv_destroy_comp_channel(struct ibv_comp_channel *channel)
{
	PLANNED_INT(ibv_destroy_comp_channel);
	mock_obj_free(channel);
	return 0;
}

struct ibv_cq *
mock_ibv_cq_new(void)
{
	struct mock_cq *mcq = mock_obj_new(sizeof(*mcq));
	mcq->cq.context = mock_ibv_ctx();
	return &mcq->cq;
}

struct ibv_cq *
ibv_create_cq(struct ibv_context *context, int cqe, void *cq_context,
		struct ibv_comp_channel *channel, int comp_vector)
{
	assert_int_equal(comp_vector, 0);
	mock_rec.cq_size = cqe;
	mock_rec.cq_channel = channel;
	PLANNED_NULL(ibv_create_cq);
	struct ibv_cq *cq = mock_ibv_cq_new();
	cq->context = context;
	cq->channel = channel;
	cq->cq_context = cq_context;
	cq->cqe = cqe;
	return cq;
}

int
ibv_destroy_cq(struct ibv_cq *cq)
{
	struct mock_cq *mcq = (struct mock_cq *)cq;

	PLANNED_INT(ibv_destroy_cq);
	/* the real call would wait forever for these acknowledgements */
	unacked_at_destroy += mcq->got - mcq->acked;
	mock_obj_free(mcq);
	return 0;
}

void
mock_cq_event_push(struct ibv_cq *cq)
{
	assert_true(cq_events_tail < CQ_EVENTS_MAX);
	cq_events[cq_events_tail++] = cq;
}

int
ibv_get_cq_event(struct ibv_comp_channel *channel, struct ibv_cq **cq, void **cq_context)
{
	PLANNED_INT(ibv_get_cq_event);
	if (cq_events_head == cq_events_tail) {
		errno = EAGAIN;	/* as on a non-blocking channel */
		return -1;
	}
	struct mock_cq *mcq = (struct mock_cq *)cq_events[cq_events_head++];
	assert_ptr_equal(mcq->cq.channel, channel);
	mcq->got++;
	*cq = &mcq->cq;
	*cq_context = mcq->cq.cq_context;
	return 0;
}

void
ibv_ack_cq_events(struct ibv_cq *cq, unsigned int nevents)
{
	struct mock_cq *mcq = (struct mock_cq *)cq;
	struct mock_plan_hit hit;

	int n = mock_calls(MOCK_ibv_ack_cq_events);
	if (n < 8)
		mock_rec.ack_calls_nevents[n] = (int)nevents;
	(void) mock_call(MOCK_ibv_ack_cq_events, &hit);
	mcq->acked += (int)nevents;
	mock_rec.acked += (int)nevents;
	assert_true(mcq->acked <= mcq->got);
}

struct ibv_pd *
ibv_alloc_pd(struct ibv_context *context)
{
	PLANNED_NULL(ibv_alloc_pd);
	struct ibv_pd *pd = mock_obj_new(sizeof(*pd));
	pd->context = context;
	return pd;
}

int
ibv_dealloc_pd(struct ibv_pd *pd)
{
	PLANNED_INT(ibv_dealloc_pd);
	mock_obj_free(pd);
	return 0;
}

static struct ibv_mr *
reg_mr(struct ibv_pd *pd, void *addr, size_t length, int access)
{
	int n = mock_calls(MOCK_ibv_reg_mr);
	if (n < 4)
		mock_rec.reg_access[n] = access;
	mock_rec.reg_addr = addr;
	mock_rec.reg_length = length;
	PLANNED_NULL(ibv_reg_mr);
	struct ibv_mr *mr = mock_obj_new(sizeof(*mr));
	mr->context = pd->context;
	mr->pd = pd;
	mr->addr = addr;
	mr->length = length;
	mr->lkey = 0x1000 + (uint32_t)next_key;
	mr->rkey = 0x2000 + (uint32_t)next_key++;
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
	assert_int_equal(iova, (uintptr_t)addr);
	return reg_mr(pd, addr, length, (int)access);
}

int
ibv_dereg_mr(struct ibv_mr *mr)
{
	PLANNED_INT(ibv_dereg_mr);
	mock_obj_free(mr);
	return 0;
}

struct ibv_srq *
ibv_create_srq(struct ibv_pd *pd, struct ibv_srq_init_attr *srq_init_attr)
{
	mock_rec.srq_attr = *srq_init_attr;
	PLANNED_NULL(ibv_create_srq);
	struct ibv_srq *srq = mock_obj_new(sizeof(*srq));
	srq->context = pd->context;
	srq->pd = pd;
	return srq;
}

int
ibv_destroy_srq(struct ibv_srq *srq)
{
	PLANNED_INT(ibv_destroy_srq);
	mock_obj_free(srq);
	return 0;
}

/* the extended QP: ATOMIC WRITE and FLUSH go through its function pointers */

static void
qpx_wr_start(struct ibv_qp_ex *qpx)
{
	(void) qpx;
	memset(&mock_rec.atomic, 0, sizeof(mock_rec.atomic));
}

static void
qpx_wr_atomic_write(struct ibv_qp_ex *qpx, uint32_t rkey, uint64_t remote_addr,
		const void *atomic_wr)
{
	mock_rec.atomic.rkey = rkey;
	mock_rec.atomic.addr = remote_addr;
	memcpy(&mock_rec.atomic.value, atomic_wr, 8);
	mock_rec.atomic.wr_id = qpx->wr_id;
	mock_rec.atomic.flags = qpx->wr_flags;
}

#ifdef HAVE_IBV_FLUSH
static void
qpx_wr_flush(struct ibv_qp_ex *qpx, uint32_t rkey, uint64_t remote_addr, size_t len,
		uint8_t type, uint8_t level)
{
	mock_rec.flush.rkey = rkey;
	mock_rec.flush.addr = remote_addr;
	mock_rec.flush.len = len;
	mock_rec.flush.type = type;
	mock_rec.flush.level = level;
	mock_rec.flush.wr_id = qpx->wr_id;
	mock_rec.flush.flags = qpx->wr_flags;
	mock_rec.flush.calls++;
}
#endif

static int
qpx_wr_complete(struct ibv_qp_ex *qpx)
{
	(void) qpx;
	PLANNED_INT(ibv_wr_complete);
	return 0;
}

struct ibv_qp *
mock_qp_new(struct ibv_qp_init_attr_ex *attr)
{
	struct ibv_qp_ex *qpx = mock_obj_new(sizeof(*qpx));

	qpx->qp_base.context = attr->pd->context;
	qpx->qp_base.pd = attr->pd;
	qpx->qp_base.send_cq = attr->send_cq;
	qpx->qp_base.recv_cq = attr->recv_cq;
	qpx->qp_base.srq = attr->srq;
	qpx->qp_base.qp_num = 0x123;
	qpx->qp_base.qp_type = attr->qp_type;
	qpx->wr_start = qpx_wr_start;
	qpx->wr_atomic_write = qpx_wr_atomic_write;
#ifdef HAVE_IBV_FLUSH
	qpx->wr_flush = qpx_wr_flush;
#endif
	qpx->wr_complete = qpx_wr_complete;
	return &qpx->qp_base;
}

void
mock_qp_free(struct ibv_qp *qp)
{
	mock_obj_free((struct ibv_qp_ex *)qp);
}

struct ibv_qp_ex *
ibv_qp_to_qp_ex(struct ibv_qp *qp)
{
	PLANNED_NULL(ibv_qp_to_qp_ex);
	return (struct ibv_qp_ex *)qp;
}
