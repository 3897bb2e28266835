// SPDX-License-Identifier: BSD-3-Clause
/* peer.c -- unit tests of src/peer.c: device query, protection domain, QP attributes */

#include <errno.h>
#include <stdlib.h>

#include "fixtures.h"
#include "peer.h"

#define DEVICE_CAP_ATOMIC_WRITE (1ULL << 40)
#define DEVICE_CAP_FLUSH_GLOBAL (1ULL << 38)
#define DEVICE_CAP_FLUSH_PERSISTENT (1ULL << 39)

static void
test_peer_new__invalid(void **state)
{
	(void) state;
	struct rpma_peer *peer = (struct rpma_peer *)0x1;

	assert_int_equal(rpma_peer_new(NULL, &peer), RPMA_E_INVAL);
	assert_int_equal(rpma_peer_new(mock_ibv_ctx(), NULL), RPMA_E_INVAL);
	assert_ptr_equal(peer, (struct rpma_peer *)0x1);
	assert_int_equal(CALLS(ibv_alloc_pd), 0);
}

static void
test_peer_new__alloc_fails(void **state)
{
	(void) state;
	struct rpma_peer *peer = NULL;

	MOCK_FAIL(malloc, 0, 0);
	assert_int_equal(rpma_peer_new(mock_ibv_ctx(), &peer), RPMA_E_NOMEM);
	assert_null(peer);
	assert_int_equal(CALLS(ibv_query_device_ex), 0);
}

static void
test_peer_new__query_fails(void **state)
{
	(void) state;
	struct rpma_peer *peer = NULL;

	MOCK_FAIL(ibv_query_device_ex, EIO, 0);
	assert_int_equal(rpma_peer_new(mock_ibv_ctx(), &peer), RPMA_E_PROVIDER);
	assert_int_equal(errno, EIO);
	assert_null(peer);
	assert_int_equal(CALLS(ibv_alloc_pd), 0);
}

static void
test_peer_new__alloc_pd_fails(void **state)
{
	(void) state;
	static const struct { int err; int ret; } map[] = {
		{ENOMEM, RPMA_E_NOMEM},
		{EIO, RPMA_E_PROVIDER},
		{0, RPMA_E_UNKNOWN},	/* failed without saying why */
	};
	struct rpma_peer *peer = NULL;

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
		MOCK_FAIL(ibv_alloc_pd, 0, map[i].err);
		errno = 12345;
		assert_int_equal(rpma_peer_new(mock_ibv_ctx(), &peer), map[i].ret);
		assert_int_equal(errno, map[i].err);
		assert_null(peer);
	}
}

static void
test_peer_new__success(void **state)
{
	(void) state;
	struct rpma_peer *peer = NULL;

	assert_int_equal(rpma_peer_new(mock_ibv_ctx(), &peer), 0);
	assert_non_null(peer);
	assert_ptr_equal(peer_ibv_context(peer), mock_ibv_ctx());
	assert_ptr_equal(peer_pd(peer)->context, mock_ibv_ctx());
	assert_false(peer_native_atomic_write(peer));
	assert_int_equal(rpma_peer_delete(&peer), 0);
	assert_null(peer);
	assert_int_equal(CALLS(ibv_dealloc_pd), 1);
}

static void
test_peer_new__native_atomic_write(void **state)
{
	(void) state;
	mock_device_set_caps_ex(DEVICE_CAP_ATOMIC_WRITE);
	struct rpma_peer *peer = fx_peer();
#ifdef HAVE_IBV_ATOMIC_WRITE
	assert_true(peer_native_atomic_write(peer));
#else
	assert_false(peer_native_atomic_write(peer));
#endif
	assert_int_equal(rpma_peer_delete(&peer), 0);
}

/* FLUSH: served (rights granted) in every build, posted only where rdma-core has it */
static void
test_peer_new__flush_caps(void **state)
{
	(void) state;
	static const struct { uint64_t caps; unsigned flush; } map[] = {
		{0, 0},
		{DEVICE_CAP_FLUSH_GLOBAL, PEER_FLUSH_GLOBAL},
		{DEVICE_CAP_FLUSH_PERSISTENT, PEER_FLUSH_PERSISTENT},
		{DEVICE_CAP_FLUSH_GLOBAL | DEVICE_CAP_FLUSH_PERSISTENT | DEVICE_CAP_ATOMIC_WRITE,
			PEER_FLUSH_GLOBAL | PEER_FLUSH_PERSISTENT},
	};

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
		mock_device_set_caps_ex(map[i].caps);
		struct rpma_peer *peer = fx_peer();
		assert_int_equal(peer_flush_caps(peer), map[i].flush);
#ifdef HAVE_IBV_FLUSH
		assert_int_equal(peer_native_flush(peer), map[i].flush);
#else
		assert_int_equal(peer_native_flush(peer), 0);
#endif
		assert_int_equal(rpma_peer_delete(&peer), 0);
	}
}

#define RXE_VENDOR_ID 0xffffff
#define CAPS_ALL (DEVICE_CAP_ATOMIC_WRITE | DEVICE_CAP_FLUSH_GLOBAL | DEVICE_CAP_FLUSH_PERSISTENT)
#define RXE_ENV "RPMA_RXE_NATIVE"

/*
 * soft-RoCE: no native ATOMIC WRITE and no native FLUSH invited unless
 * RPMA_RXE_NATIVE is "1"; FLUSH served and posted as anywhere; another
 * vendor's device ignores the variable
 */
static void
test_peer_new__rxe(void **state)
{
	(void) state;
	static const struct { uint32_t vendor; const char *env; bool native; } map[] = {
		{RXE_VENDOR_ID, NULL, false},
		{RXE_VENDOR_ID, "0", false},
		{RXE_VENDOR_ID, "", false},
		{RXE_VENDOR_ID, "11", false},
		{RXE_VENDOR_ID, "1", true},
		{0x02c9, NULL, true},
		{0x02c9, "0", true},
	};
	bool atomic = false;
	unsigned flush = 0;
#ifdef HAVE_IBV_ATOMIC_WRITE
	atomic = true;
#endif
#ifdef HAVE_IBV_FLUSH
	flush = PEER_FLUSH_GLOBAL | PEER_FLUSH_PERSISTENT;
#endif

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
		if (map[i].env)
			assert_int_equal(setenv(RXE_ENV, map[i].env, 1), 0);
		else
			assert_int_equal(unsetenv(RXE_ENV), 0);
		mock_device_set_vendor_id(map[i].vendor);
		mock_device_set_caps_ex(CAPS_ALL);
		struct rpma_peer *peer = fx_peer();
		assert_int_equal(peer_native_atomic_write(peer), map[i].native && atomic);
		assert_int_equal(peer_invites_native_flush(peer), map[i].native);
		assert_int_equal(peer_flush_caps(peer), PEER_FLUSH_GLOBAL | PEER_FLUSH_PERSISTENT);
		assert_int_equal(peer_native_flush(peer), flush);
		assert_int_equal(rpma_peer_delete(&peer), 0);
	}
	assert_int_equal(unsetenv(RXE_ENV), 0);
}

/* a QP of a peer posting FLUSH natively can post it through the extended QP */
static void
test_peer_create_qp__native_flush(void **state)
{
	(void) state;
	mock_device_set_caps_ex(DEVICE_CAP_FLUSH_GLOBAL);
	struct rpma_peer *peer = fx_peer();
	struct rdma_cm_id *id = mock_cm_id_new();
	struct ibv_cq *cq = mock_ibv_cq_new();
	struct peer_qp_attr qa = { .cq = cq, .sq_size = 5, .rq_size = 6 };

	assert_int_equal(peer_create_qp(peer, id, &qa), 0);
	struct ibv_qp_init_attr_ex *a = &mock_rec.qp_attr;
#ifdef HAVE_IBV_FLUSH
	assert_true(a->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS);
	assert_true(a->send_ops_flags & IBV_QP_EX_WITH_FLUSH);
	assert_false(a->send_ops_flags & IBV_QP_EX_WITH_ATOMIC_WRITE);
	/* the operations posted with ibv_post_send() stay allowed */
	assert_true(a->send_ops_flags & IBV_QP_EX_WITH_RDMA_READ);
	assert_true(a->send_ops_flags & IBV_QP_EX_WITH_SEND_WITH_IMM);
#else
	assert_int_equal(a->comp_mask, IBV_QP_INIT_ATTR_PD);
#endif
	rdma_destroy_qp(id);
	assert_int_equal(rdma_destroy_id(id), 0);
	assert_int_equal(ibv_destroy_cq(cq), 0);
	assert_int_equal(rpma_peer_delete(&peer), 0);
}

static void
test_peer_delete__invalid(void **state)
{
	(void) state;
	struct rpma_peer *peer = NULL;

	assert_int_equal(rpma_peer_delete(NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_peer_delete(&peer), 0);
	assert_int_equal(CALLS(ibv_dealloc_pd), 0);
}

static void
test_peer_delete__dealloc_fails(void **state)
{
	(void) state;
	struct rpma_peer *peer = fx_peer();

	MOCK_FAIL(ibv_dealloc_pd, EBUSY, 0);
	assert_int_equal(rpma_peer_delete(&peer), RPMA_E_PROVIDER);
	assert_int_equal(errno, EBUSY);
	/* kept, so the caller can release what still uses it and retry */
	assert_non_null(peer);
	assert_int_equal(rpma_peer_delete(&peer), 0);
	assert_null(peer);
}

/* the flush byte: registered once for every connection of the peer, kept until its end */
static void
test_peer_flush_dst__shared(void **state)
{
	(void) state;
	struct rpma_peer *peer = fx_peer();
	struct ibv_sge a = {0}, b = {0};

	mock_calls_reset();
	assert_int_equal(peer_flush_dst_get(peer, &a), 0);
	assert_int_equal(peer_flush_dst_get(peer, &b), 0);
	assert_int_not_equal(a.addr, 0);
	assert_memory_equal(&a, &b, sizeof(a));
	/* a read's destination: the device writes it */
	assert_int_equal(mock_rec.reg_access[0], IBV_ACCESS_LOCAL_WRITE);
	assert_int_equal(CALLS(ibv_reg_mr), 1);
	peer_flush_dst_put(peer);
	peer_flush_dst_put(peer);
	/* no connection holds it: kept for the next one */
	memset(&b, 0, sizeof(b));
	assert_int_equal(peer_flush_dst_get(peer, &b), 0);
	assert_memory_equal(&a, &b, sizeof(a));
	assert_int_equal(CALLS(ibv_reg_mr), 1);
	peer_flush_dst_put(peer);
	assert_int_equal(CALLS(ibv_dereg_mr), 0);
	assert_int_equal(rpma_peer_delete(&peer), 0);
	assert_int_equal(CALLS(ibv_dereg_mr), 1);
	assert_true(ORDER(ibv_dereg_mr) < ORDER(ibv_dealloc_pd));
}

/* on iWARP the byte a flush reads into is remotely writable, as every read's destination */
static void
test_peer_flush_dst__iwarp(void **state)
{
	(void) state;
	mock_device_set_transport(IBV_TRANSPORT_IWARP);
	struct rpma_peer *peer = fx_peer();
	struct ibv_sge dst;

	mock_calls_reset();
	assert_int_equal(peer_read_dst_access(peer), IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	assert_int_equal(peer_flush_dst_get(peer, &dst), 0);
	assert_int_equal(mock_rec.reg_access[0], IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	peer_flush_dst_put(peer);
	assert_int_equal(rpma_peer_delete(&peer), 0);
}

/* a failed registration holds nothing: the next connection tries again */
static void
test_peer_flush_dst__reg_fails(void **state)
{
	(void) state;
	struct rpma_peer *peer = fx_peer();
	struct ibv_sge dst = {0};

	MOCK_FAIL(ibv_reg_mr, 0, EFAULT);
	assert_int_equal(peer_flush_dst_get(peer, &dst), RPMA_E_PROVIDER);
	assert_int_equal(errno, EFAULT);
	assert_int_equal(dst.addr, 0);
	assert_int_equal(peer_flush_dst_get(peer, &dst), 0);
	assert_int_not_equal(dst.addr, 0);
	peer_flush_dst_put(peer);
	assert_int_equal(rpma_peer_delete(&peer), 0);
}

/* a connection still holds the byte: the peer's deletion leaves it (the PD is busy) */
static void
test_peer_flush_dst__held_at_delete(void **state)
{
	(void) state;
	struct rpma_peer *peer = fx_peer();
	struct ibv_sge dst;

	assert_int_equal(peer_flush_dst_get(peer, &dst), 0);
	mock_calls_reset();
	MOCK_FAIL(ibv_dealloc_pd, EBUSY, 0);
	assert_int_equal(rpma_peer_delete(&peer), RPMA_E_PROVIDER);
	assert_int_equal(CALLS(ibv_dereg_mr), 0);
	assert_non_null(peer);
	peer_flush_dst_put(peer);
	assert_int_equal(rpma_peer_delete(&peer), 0);
	assert_int_equal(CALLS(ibv_dereg_mr), 1);
}

/* the byte's deregistration fails: reported, the peer kept; the next try goes on */
static void
test_peer_flush_dst__dereg_fails(void **state)
{
	(void) state;
	struct rpma_peer *peer = fx_peer();
	struct ibv_sge dst;

	assert_int_equal(peer_flush_dst_get(peer, &dst), 0);
	peer_flush_dst_put(peer);
	mock_calls_reset();
	MOCK_FAIL(ibv_dereg_mr, EBUSY, 0);
	assert_int_equal(rpma_peer_delete(&peer), RPMA_E_PROVIDER);
	assert_int_equal(errno, EBUSY);
	assert_non_null(peer);
	assert_int_equal(CALLS(ibv_dealloc_pd), 0);
	assert_int_equal(rpma_peer_delete(&peer), 0);
	assert_null(peer);
	mock_release_all();	/* the registration the provider kept */
}

static void
test_peer_create_qp__attributes(void **state)
{
	(void) state;
	mock_device_set_caps_ex(DEVICE_CAP_ATOMIC_WRITE);
	struct rpma_peer *peer = fx_peer();
	struct rdma_cm_id *id = mock_cm_id_new();
	struct ibv_cq *cq = mock_ibv_cq_new(), *rcq = mock_ibv_cq_new();
	struct peer_qp_attr qa = { .cq = cq, .rcq = rcq, .sq_size = 5, .rq_size = 6 };

	assert_int_equal(peer_create_qp(peer, id, &qa), 0);
	assert_non_null(id->qp);
	struct ibv_qp_init_attr_ex *a = &mock_rec.qp_attr;
	assert_ptr_equal(a->send_cq, cq);
	assert_ptr_equal(a->recv_cq, rcq);
	assert_int_equal(a->cap.max_send_wr, 5);
	assert_int_equal(a->cap.max_recv_wr, 6);
	/* room for the 8 bytes of the ATOMIC WRITE fallback */
	assert_true(a->cap.max_inline_data >= 8);
	assert_int_equal(a->cap.max_inline_data, 8);
	assert_ptr_equal(a->pd, peer_pd(peer));
	assert_null(a->srq);
	assert_int_equal(a->qp_type, IBV_QPT_RC);
	assert_int_equal(a->cap.max_send_sge, 1);
	assert_int_equal(a->cap.max_recv_sge, 1);
	/* only what the caller asks for completes */
	assert_int_equal(a->sq_sig_all, 0);
#ifdef HAVE_IBV_ATOMIC_WRITE
	assert_int_equal(a->comp_mask, IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS);
	/* every operation the library posts, through the extended QP or not */
	assert_int_equal(a->send_ops_flags, IBV_QP_EX_WITH_RDMA_WRITE |
			IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM | IBV_QP_EX_WITH_SEND |
			IBV_QP_EX_WITH_SEND_WITH_IMM | IBV_QP_EX_WITH_RDMA_READ |
			IBV_QP_EX_WITH_ATOMIC_WRITE);
#else
	assert_int_equal(a->comp_mask, IBV_QP_INIT_ATTR_PD);
#endif
	rdma_destroy_qp(id);

	MOCK_FAIL(rdma_create_qp_ex, -1, ENOMEM);
	assert_int_equal(peer_create_qp(peer, id, &qa), RPMA_E_PROVIDER);
	assert_int_equal(errno, ENOMEM);
	assert_null(id->qp);
	assert_int_equal(rdma_destroy_id(id), 0);
	assert_int_equal(ibv_destroy_cq(cq), 0);
	assert_int_equal(ibv_destroy_cq(rcq), 0);
	assert_int_equal(rpma_peer_delete(&peer), 0);
}

static void
test_peer_create_qp__no_native_atomic(void **state)
{
	(void) state;
	struct rpma_peer *peer = fx_peer();
	struct rdma_cm_id *id = mock_cm_id_new();
	struct ibv_cq *cq = mock_ibv_cq_new();
	struct peer_qp_attr qa = { .cq = cq, .sq_size = 5, .rq_size = 6 };

	assert_int_equal(peer_create_qp(peer, id, &qa), 0);
	assert_ptr_equal(mock_rec.qp_attr.recv_cq, cq);
	assert_int_equal(mock_rec.qp_attr.comp_mask, IBV_QP_INIT_ATTR_PD);
	assert_int_equal(mock_rec.qp_attr.send_ops_flags, 0);
	rdma_destroy_qp(id);
	assert_int_equal(rdma_destroy_id(id), 0);
	assert_int_equal(ibv_destroy_cq(cq), 0);
	assert_int_equal(rpma_peer_delete(&peer), 0);
}

/* where the QP lists its operations, a grant's bind is one of them */
static void
test_peer_create_qp__bind_listed(void **state)
{
	(void) state;
	mock_device_set_caps(IBV_DEVICE_MEM_WINDOW_TYPE_2B);
	mock_device_set_caps_ex(DEVICE_CAP_ATOMIC_WRITE);
	struct rpma_peer *peer = fx_peer();
	struct rdma_cm_id *id = mock_cm_id_new();
	struct ibv_cq *cq = mock_ibv_cq_new();
	struct peer_qp_attr qa = { .cq = cq, .sq_size = 5, .rq_size = 6 };

	assert_true(peer_windows(peer));
	assert_int_equal(peer_create_qp(peer, id, &qa), 0);
#ifdef HAVE_IBV_ATOMIC_WRITE
	assert_true(mock_rec.qp_attr.send_ops_flags & IBV_QP_EX_WITH_BIND_MW);
#else
	assert_int_equal(mock_rec.qp_attr.send_ops_flags, 0);
#endif
	rdma_destroy_qp(id);
	assert_int_equal(rdma_destroy_id(id), 0);
	assert_int_equal(ibv_destroy_cq(cq), 0);
	assert_int_equal(rpma_peer_delete(&peer), 0);
}

/* type-2 windows, of either kind; rxe's reach past their range (peer.h) */
static void
test_peer_new__windows(void **state)
{
	(void) state;
	static const struct { uint64_t caps; uint32_t vendor; bool windows; bool bounded; } map[] = {
		{0, 0, false, true},
		{IBV_DEVICE_MEM_WINDOW, 0, false, true},
		{IBV_DEVICE_MEM_WINDOW_TYPE_2A, 0, true, true},
		{IBV_DEVICE_MEM_WINDOW_TYPE_2B, 0x15b3, true, true},
		{IBV_DEVICE_MEM_WINDOW | IBV_DEVICE_MEM_WINDOW_TYPE_2B, 0xffffff, true, false},
	};
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
		mock_device_set_caps(map[i].caps);
		mock_device_set_vendor_id(map[i].vendor);
		struct rpma_peer *peer = fx_peer();
		assert_int_equal(peer_windows(peer), map[i].windows);
		assert_int_equal(peer_windows_bounded(peer), map[i].bounded);
		assert_int_equal(rpma_peer_delete(&peer), 0);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		TEST(test_peer_new__invalid),
		TEST(test_peer_new__alloc_fails),
		TEST(test_peer_new__query_fails),
		TEST(test_peer_new__alloc_pd_fails),
		TEST(test_peer_new__success),
		TEST(test_peer_new__native_atomic_write),
		TEST(test_peer_new__flush_caps),
		TEST(test_peer_new__rxe),
		TEST(test_peer_create_qp__native_flush),
		TEST(test_peer_delete__invalid),
		TEST(test_peer_delete__dealloc_fails),
		TEST(test_peer_flush_dst__shared),
		TEST(test_peer_flush_dst__iwarp),
		TEST(test_peer_flush_dst__reg_fails),
		TEST(test_peer_flush_dst__held_at_delete),
		TEST(test_peer_flush_dst__dereg_fails),
		TEST(test_peer_create_qp__attributes),
		TEST(test_peer_create_qp__no_native_atomic),
		TEST(test_peer_create_qp__bind_listed),
		TEST(test_peer_new__windows),
	};
	return RUN(tests);
}
