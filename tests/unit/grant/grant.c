// SPDX-License-Identifier: BSD-3-Clause
/* grant.c -- unit tests of src/grant.c: a grant's checks, its window, its descriptor, its end */

#include <errno.h>
#include <stdlib.h>

#include "fixtures.h"
#include "mr.h"

#define RXE_VENDOR_ID 0xffffff
#define CAP_FLUSH_GLOBAL (1ULL << 38)
#define RIGHTS_FLUSH_GLOBAL (1 << 8)	/* IBV_ACCESS_FLUSH_GLOBAL */
#define RW (RPMA_MR_USAGE_READ_SRC | RPMA_MR_USAGE_WRITE_DST)
#define VIS RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY
#define PAGE 4096

static char buf[4 * PAGE];

/* a peer whose device binds type-2 windows, a connection and a region for grants */
struct grant_fx {
	struct rpma_peer *peer;
	struct rpma_conn *conn;
	struct rpma_mr_local *mr;
};

static void
fx_open(struct grant_fx *fx, uint32_t vendor, int usage)
{
	mock_device_set_caps(IBV_DEVICE_MEM_WINDOW | IBV_DEVICE_MEM_WINDOW_TYPE_2B);
	mock_device_set_vendor_id(vendor);
	fx->peer = fx_peer();
	fx->conn = fx_conn(fx->peer, NULL);
	assert_int_equal(rpma_mr_reg_for_grants(fx->peer, buf, sizeof(buf), usage, &fx->mr), 0);
	mock_calls_reset();
}

static void
fx_close(struct grant_fx *fx)
{
	assert_int_equal(rpma_conn_delete(&fx->conn), 0);
	assert_int_equal(rpma_mr_dereg(&fx->mr), 0);
	assert_int_equal(rpma_peer_delete(&fx->peer), 0);
}

static uint64_t
desc_u64(const uint8_t *d)
{
	uint64_t v;
	memcpy(&v, d, sizeof(v));
	return le64toh(v);
}

static uint32_t
desc_u32(const uint8_t *d)
{
	uint32_t v;
	memcpy(&v, d, sizeof(v));
	return le32toh(v);
}

static void
test_grant_new__invalid(void **state)
{
	(void) state;
	struct grant_fx fx;
	fx_open(&fx, 0, RW);
	struct rpma_grant *g = (struct rpma_grant *)0x1;
	size_t size = sizeof(buf);

	assert_int_equal(rpma_grant_new(NULL, fx.mr, 0, PAGE, RW, &g), RPMA_E_INVAL);
	assert_int_equal(rpma_grant_new(fx.conn, NULL, 0, PAGE, RW, &g), RPMA_E_INVAL);
	assert_int_equal(rpma_grant_new(fx.conn, fx.mr, 0, PAGE, RW, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_grant_new(fx.conn, fx.mr, 0, 0, RW, &g), RPMA_E_INVAL);
	assert_int_equal(rpma_grant_new(fx.conn, fx.mr, size, 1, RW, &g), RPMA_E_INVAL);
	assert_int_equal(rpma_grant_new(fx.conn, fx.mr, 1, size, RW, &g), RPMA_E_INVAL);
	assert_int_equal(rpma_grant_new(fx.conn, fx.mr, SIZE_MAX, 2, RW, &g), RPMA_E_INVAL);
	/* no usage, a local one, one the region was not registered for */
	assert_int_equal(rpma_grant_new(fx.conn, fx.mr, 0, PAGE, 0, &g), RPMA_E_INVAL);
	assert_int_equal(rpma_grant_new(fx.conn, fx.mr, 0, PAGE, RPMA_MR_USAGE_SEND, &g),
			RPMA_E_INVAL);
	assert_int_equal(rpma_grant_new(fx.conn, fx.mr, 0, PAGE, RW | VIS, &g), RPMA_E_INVAL);
	assert_ptr_equal(g, (struct rpma_grant *)0x1);
	assert_int_equal(CALLS(ibv_alloc_mw), 0);
	assert_int_equal(CALLS(ibv_post_send), 0);
	fx_close(&fx);
}

/* a region registered as librpma 1.x registers has a key every peer may use */
static void
test_grant_new__plain_region(void **state)
{
	(void) state;
	struct grant_fx fx;
	fx_open(&fx, 0, RW);
	struct rpma_mr_local *plain = fx_mr(fx.peer, buf, PAGE, RW);
	struct rpma_grant *g = NULL;

	assert_int_equal(rpma_grant_new(fx.conn, plain, 0, PAGE, RW, &g), RPMA_E_INVAL);
	assert_non_null(strstr(mock_rec.log_last, "rpma_mr_reg_for_grants()"));
	assert_null(g);
	assert_int_equal(CALLS(ibv_alloc_mw), 0);
	assert_int_equal(rpma_mr_dereg(&plain), 0);
	fx_close(&fx);
}

/* a region of another peer: another protection domain */
static void
test_grant_new__other_peer(void **state)
{
	(void) state;
	struct grant_fx fx;
	fx_open(&fx, 0, RW);
	struct rpma_peer *other = fx_peer();
	struct rpma_mr_local *mr;
	struct rpma_grant *g = NULL;

	assert_int_equal(rpma_mr_reg_for_grants(other, buf, PAGE, RW, &mr), 0);
	assert_int_equal(rpma_grant_new(fx.conn, mr, 0, PAGE, RW, &g), RPMA_E_INVAL);
	assert_non_null(strstr(mock_rec.log_last, "different peers"));
	assert_null(g);
	assert_int_equal(rpma_mr_dereg(&mr), 0);
	assert_int_equal(rpma_peer_delete(&other), 0);
	fx_close(&fx);
}

/* a device without type-2 windows: a clear error, no weaker grant */
static void
test_grant_new__no_windows(void **state)
{
	(void) state;
	mock_device_set_caps(IBV_DEVICE_MEM_WINDOW);	/* type 1 only */
	struct rpma_peer *peer = fx_peer();
	struct rpma_conn *conn = fx_conn(peer, NULL);
	struct rpma_mr_local *mr;
	struct rpma_grant *g = NULL;

	assert_int_equal(rpma_mr_reg_for_grants(peer, buf, PAGE, RW, &mr), 0);
	assert_int_equal(mock_rec.reg_access[CALLS(ibv_reg_mr) - 1] & IBV_ACCESS_MW_BIND, 0);
	/* the arguments first */
	assert_int_equal(rpma_grant_new(conn, mr, 0, PAGE, 0, &g), RPMA_E_INVAL);
	assert_int_equal(rpma_grant_new(conn, mr, 0, 2 * PAGE, RW, &g), RPMA_E_INVAL);
	assert_int_equal(rpma_grant_new(conn, mr, 0, PAGE, RW, &g), RPMA_E_NOSUPP);
	assert_non_null(strstr(mock_rec.log_last, "IBV_DEVICE_MEM_WINDOW_TYPE_2A or _2B"));
	assert_null(g);
	assert_int_equal(CALLS(ibv_alloc_mw), 0);
	assert_int_equal(rpma_mr_dereg(&mr), 0);
	assert_int_equal(rpma_conn_delete(&conn), 0);
	assert_int_equal(rpma_peer_delete(&peer), 0);
}

/* a type-2 window bound over the range of the region, with the usage's rights */
static void
test_grant_new__binds_window(void **state)
{
	(void) state;
	struct grant_fx fx;
	fx_open(&fx, 0, RW);
	struct rpma_grant *g = NULL;

	assert_int_equal(rpma_grant_new(fx.conn, fx.mr, PAGE, 2 * PAGE, RW, &g), 0);
	assert_non_null(g);
	assert_int_equal(mock_rec.mw.type, IBV_MW_TYPE_2);
	assert_int_equal(CALLS(ibv_reg_mr), 0);	/* the device bounds its windows */
	const struct ibv_send_wr *wr = &mock_rec.send_wr;
	assert_int_equal(wr->opcode, IBV_WR_BIND_MW);
	/* signaled, and its completion taken: the grant exists once the window is bound */
	assert_int_equal(wr->send_flags, IBV_SEND_SIGNALED);
	struct rpma_cq *cq;
	struct ibv_wc wc;
	assert_int_equal(rpma_conn_get_cq(fx.conn, &cq), 0);
	assert_int_equal(rpma_cq_get_wc(cq, 1, &wc, NULL), RPMA_E_NO_COMPLETION);
	assert_ptr_equal(wr->bind_mw.bind_info.mr, fx.mr->ibv_mr);
	assert_int_equal(wr->bind_mw.bind_info.addr, (uintptr_t)(buf + PAGE));
	assert_int_equal(wr->bind_mw.bind_info.length, 2 * PAGE);
	assert_int_equal(wr->bind_mw.bind_info.mw_access_flags,
			IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE);
	assert_int_equal(wr->bind_mw.rkey, ibv_inc_rkey(wr->bind_mw.mw->rkey));

	/* its descriptor: the range and the bound key, in a region descriptor's format */
	uint8_t desc[FX_DESC_SIZE];
	size_t size = 0;
	assert_int_equal(rpma_grant_get_descriptor_size(g, &size), 0);
	assert_int_equal(size, FX_DESC_SIZE);
	assert_int_equal(rpma_grant_get_descriptor(g, desc), 0);
	assert_int_equal(desc_u64(desc), (uintptr_t)(buf + PAGE));
	assert_int_equal(desc_u64(desc + 8), 2 * PAGE);
	assert_int_equal(desc_u32(desc + 16), wr->bind_mw.rkey);
	assert_int_equal(desc[20], RW);
	struct rpma_mr_remote *remote;
	assert_int_equal(rpma_mr_remote_from_descriptor(desc, size, &remote), 0);
	assert_int_equal(rpma_mr_remote_delete(&remote), 0);

	assert_int_equal(rpma_grant_delete(&g), 0);
	assert_null(g);
	assert_int_equal(mock_rec.mw.deallocs, 1);
	fx_close(&fx);
}

/* a flush usage: the read right of a flush by a read, and the FLUSH rights the region has */
static void
test_grant_new__flush_rights(void **state)
{
	(void) state;
	mock_device_set_caps_ex(CAP_FLUSH_GLOBAL);
	struct grant_fx fx;
	fx_open(&fx, 0, RPMA_MR_USAGE_WRITE_DST | VIS);
	struct rpma_grant *g = NULL;
	uint8_t desc[FX_DESC_SIZE];

	assert_int_equal(rpma_grant_new(fx.conn, fx.mr, 0, PAGE, VIS, &g), 0);
	assert_int_equal(mock_rec.send_wr.bind_mw.bind_info.mw_access_flags,
			IBV_ACCESS_REMOTE_READ | RIGHTS_FLUSH_GLOBAL);
	/* the device offers the FLUSH: the descriptor leaves the client free to post one */
	assert_int_equal(rpma_grant_get_descriptor(g, desc), 0);
	assert_int_equal(desc[20], VIS);
	assert_int_equal(rpma_grant_delete(&g), 0);

	/* a write usage alone: no read right */
	assert_int_equal(rpma_grant_new(fx.conn, fx.mr, 0, PAGE, RPMA_MR_USAGE_WRITE_DST, &g), 0);
	assert_int_equal(mock_rec.send_wr.bind_mw.bind_info.mw_access_flags,
			IBV_ACCESS_REMOTE_WRITE);
	assert_int_equal(rpma_grant_delete(&g), 0);
	fx_close(&fx);
}

/*
 * rxe lets an access through a window reach its whole region: the window
 * is bound over a registration of its own range, gone with the window
 */
static void
test_grant_new__rxe_own_registration(void **state)
{
	(void) state;
	struct grant_fx fx;
	fx_open(&fx, RXE_VENDOR_ID, RW | VIS);
	struct rpma_grant *g = NULL;
	uint8_t desc[FX_DESC_SIZE];

	assert_int_equal(rpma_grant_new(fx.conn, fx.mr, PAGE, PAGE, RW, &g), 0);
	assert_int_equal(CALLS(ibv_reg_mr), 1);
	assert_ptr_equal(mock_rec.reg_addr, buf + PAGE);
	assert_int_equal(mock_rec.reg_length, PAGE);
	/* what a window needs of it, no remote right of its own (FLUSH's neither) */
	assert_int_equal(mock_rec.reg_access[0], IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND);
	assert_ptr_not_equal(mock_rec.send_wr.bind_mw.bind_info.mr, fx.mr->ibv_mr);
	assert_int_equal(mock_rec.send_wr.bind_mw.bind_info.mr->length, PAGE);

	/* rxe fails a native FLUSH sent again: a flush usage's descriptor asks for a read */
	struct rpma_grant *f = NULL;
	assert_int_equal(rpma_grant_new(fx.conn, fx.mr, 0, PAGE, VIS, &f), 0);
	assert_int_equal(rpma_grant_get_descriptor(f, desc), 0);
	assert_int_equal(desc[20], VIS | RPMA_MR_USAGE_READ_SRC);

	assert_int_equal(rpma_grant_delete(&g), 0);
	assert_int_equal(rpma_grant_delete(&f), 0);
	/* the window goes before the registration it holds */
	assert_true(ORDER(ibv_dealloc_mw) < ORDER(ibv_dereg_mr));
	assert_int_equal(CALLS(ibv_dereg_mr), 2);
	fx_close(&fx);
}

/* every failure half-way leaves nothing behind */
static void
test_grant_new__failures(void **state)
{
	(void) state;
	static const struct { enum mock_fn fn; int nth; int ret; int err; int want; } map[] = {
		{MOCK_malloc, 1, 0, 0, RPMA_E_NOMEM},		/* the set of windows */
		{MOCK_malloc, 2, 0, 0, RPMA_E_NOMEM},		/* the grant */
		{MOCK_malloc, 3, 0, 0, RPMA_E_NOMEM},		/* the window */
		{MOCK_malloc, 4, 0, 0, RPMA_E_NOMEM},		/* the set's slots */
		{MOCK_malloc, 5, 0, 0, RPMA_E_NOMEM},		/* the CQ's stash */
		{MOCK_malloc, 6, 0, 0, RPMA_E_NOMEM},		/* the stash's room */
		{MOCK_ibv_reg_mr, 1, 0, EFAULT, RPMA_E_PROVIDER},	/* its own registration */
		{MOCK_ibv_alloc_mw, 1, 0, ENOMEM, RPMA_E_PROVIDER},
		{MOCK_ibv_post_send, 1, ENOMEM, 0, RPMA_E_PROVIDER},	/* the send queue is full */
		{MOCK_ibv_post_send, 1, -EINVAL, 0, RPMA_E_PROVIDER},	/* libsiw's negated errno */
	};
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
		struct grant_fx fx;
		fx_open(&fx, RXE_VENDOR_ID, RW);
		struct rpma_grant *g = NULL;
		long heap = mock_heap_live();
		int objects = mock_live_objects();

		mock_plan(map[i].fn, map[i].nth, map[i].ret, map[i].err);
		assert_int_equal(rpma_grant_new(fx.conn, fx.mr, 0, PAGE, RW, &g), map[i].want);
		assert_null(g);
		/* the set stays for the next grant, made at most once */
		if (i == 0)
			assert_int_equal(mock_heap_live(), heap);
		assert_int_equal(mock_live_objects(), objects);
		assert_int_equal(mock_rec.mw.allocs, mock_rec.mw.deallocs);
		assert_int_equal(fx.mr->windows, 0);
		fx_close(&fx);
	}
}

/* a bind the device fails: rpma_grant_new() says so, the program's CQ shows nothing */
static void
test_grant_new__bind_fails(void **state)
{
	(void) state;
	struct grant_fx fx;
	fx_open(&fx, 0, RW);
	struct rpma_grant *g = NULL;
	struct rpma_cq *cq;
	struct ibv_wc wc;
	assert_int_equal(rpma_conn_get_cq(fx.conn, &cq), 0);

	mock_bind_set_outcome(IBV_WC_MW_BIND_ERR);
	assert_int_equal(rpma_grant_new(fx.conn, fx.mr, 0, PAGE, RW, &g), RPMA_E_PROVIDER);
	assert_null(g);
	assert_non_null(strstr(mock_rec.log_last, "the bind of a grant's window failed"));
	assert_int_equal(rpma_cq_get_wc(cq, 1, &wc, NULL), RPMA_E_NO_COMPLETION);
	assert_int_equal(mock_rec.mw.deallocs, 1);
	assert_int_equal(fx.mr->windows, 0);

	/* stuck behind the QP's requests: flushed by the error state */
	mock_bind_set_outcome(MOCK_BIND_HELD);
	assert_int_equal(rpma_grant_new(fx.conn, fx.mr, 0, PAGE, RW, &g), RPMA_E_PROVIDER);
	assert_int_equal(mock_rec.qp_state, IBV_QPS_ERR);
	assert_int_equal(rpma_cq_get_wc(cq, 1, &wc, NULL), RPMA_E_NO_COMPLETION);
	assert_int_equal(mock_rec.mw.deallocs, 2);
	assert_int_equal(fx.mr->windows, 0);
	fx_close(&fx);
}

/* no completion ever: the window stays, holding its region, until the connection goes */
static void
test_grant_new__bind_lost(void **state)
{
	(void) state;
	struct grant_fx fx;
	fx_open(&fx, 0, RW);
	struct rpma_grant *g = NULL;

	mock_bind_set_outcome(MOCK_BIND_NEVER);
	assert_int_equal(rpma_grant_new(fx.conn, fx.mr, 0, PAGE, RW, &g), RPMA_E_PROVIDER);
	assert_null(g);
	assert_int_equal(mock_rec.mw.deallocs, 0);
	assert_int_equal(rpma_mr_dereg(&fx.mr), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_delete(&fx.conn), 0);
	assert_int_equal(mock_rec.mw.deallocs, 1);
	assert_int_equal(rpma_mr_dereg(&fx.mr), 0);
	assert_int_equal(rpma_peer_delete(&fx.peer), 0);
}

/* a region with live grants is not deregistered: it would go on serving memory reused */
static void
test_mr_dereg__granted(void **state)
{
	(void) state;
	struct grant_fx fx;
	fx_open(&fx, RXE_VENDOR_ID, RW);
	struct rpma_grant *g[2] = {NULL, NULL};
	struct rpma_mr_local *mr = fx.mr;

	for (int i = 0; i < 2; i++)
		assert_int_equal(rpma_grant_new(fx.conn, fx.mr, (size_t)i * PAGE, PAGE, RW, &g[i]),
				0);
	int dereg = CALLS(ibv_dereg_mr);
	assert_int_equal(rpma_mr_dereg(&fx.mr), RPMA_E_INVAL);
	assert_ptr_equal(fx.mr, mr);
	assert_non_null(strstr(mock_rec.log_last, "still has 2 grants"));
	assert_int_equal(CALLS(ibv_dereg_mr), dereg);
	/* the grants are as they were */
	uint8_t desc[FX_DESC_SIZE];
	assert_int_equal(rpma_grant_get_descriptor(g[0], desc), 0);
	assert_int_equal(mock_rec.mw.deallocs, 0);

	assert_int_equal(rpma_grant_delete(&g[0]), 0);
	assert_int_equal(rpma_mr_dereg(&fx.mr), RPMA_E_INVAL);
	assert_non_null(strstr(mock_rec.log_last, "still has 1 grant:"));
	/* the connection's end revokes the other */
	assert_int_equal(rpma_conn_delete(&fx.conn), 0);
	assert_int_equal(rpma_mr_dereg(&fx.mr), 0);
	assert_null(fx.mr);
	assert_int_equal(rpma_grant_delete(&g[1]), 0);
	assert_int_equal(rpma_peer_delete(&fx.peer), 0);
}

/* a window that cannot be deallocated keeps its grant: the call may be made again */
static void
test_grant_delete__fails(void **state)
{
	(void) state;
	struct grant_fx fx;
	fx_open(&fx, 0, RW);
	struct rpma_grant *g = NULL;

	assert_int_equal(rpma_grant_delete(NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_grant_delete(&g), 0);
	assert_int_equal(rpma_grant_new(fx.conn, fx.mr, 0, PAGE, RW, &g), 0);
	MOCK_FAIL(ibv_dealloc_mw, EBUSY, 0);
	assert_int_equal(rpma_grant_delete(&g), RPMA_E_PROVIDER);
	assert_int_equal(errno, EBUSY);
	assert_non_null(g);
	assert_int_equal(rpma_grant_delete(&g), 0);
	assert_null(g);
	fx_close(&fx);
}

/* the connection's end revokes its grants; their handles stay the program's */
static void
test_grant__ends_with_connection(void **state)
{
	(void) state;
	struct grant_fx fx;
	fx_open(&fx, RXE_VENDOR_ID, RW);
	struct rpma_grant *g[3] = {NULL, NULL, NULL};

	for (int i = 0; i < 3; i++)
		assert_int_equal(rpma_grant_new(fx.conn, fx.mr, (size_t)i * PAGE, PAGE, RW, &g[i]),
				0);
	assert_int_equal(rpma_grant_delete(&g[1]), 0);
	assert_int_equal(mock_rec.mw.deallocs, 1);
	assert_int_equal(rpma_conn_delete(&fx.conn), 0);
	assert_int_equal(mock_rec.mw.deallocs, 3);
	/* before the QP: a bound window holds it */
	assert_true(ORDER(ibv_dealloc_mw) < ORDER(rdma_destroy_qp));
	assert_int_equal(CALLS(ibv_dereg_mr), 3);

	/* revoked already: deleting frees the handle only */
	assert_int_equal(rpma_grant_delete(&g[0]), 0);
	assert_int_equal(rpma_grant_delete(&g[2]), 0);
	assert_int_equal(mock_rec.mw.deallocs, 3);
	assert_int_equal(rpma_mr_dereg(&fx.mr), 0);
	assert_int_equal(rpma_peer_delete(&fx.peer), 0);
}

/* a window the connection's end could not revoke is revoked by the grant's delete */
static void
test_grant__connection_end_fails(void **state)
{
	(void) state;
	struct grant_fx fx;
	fx_open(&fx, 0, RW);
	struct rpma_grant *g = NULL;

	assert_int_equal(rpma_grant_new(fx.conn, fx.mr, 0, PAGE, RW, &g), 0);
	MOCK_FAIL(ibv_dealloc_mw, EIO, 0);
	assert_int_equal(rpma_conn_delete(&fx.conn), RPMA_E_PROVIDER);
	assert_null(fx.conn);
	assert_int_equal(rpma_grant_delete(&g), 0);
	assert_int_equal(mock_rec.mw.deallocs, 1);
	assert_int_equal(rpma_mr_dereg(&fx.mr), 0);
	assert_int_equal(rpma_peer_delete(&fx.peer), 0);
}

static void
test_grant_get_descriptor__invalid(void **state)
{
	(void) state;
	struct grant_fx fx;
	fx_open(&fx, 0, RW);
	struct rpma_grant *g = NULL;
	uint8_t desc[FX_DESC_SIZE];
	size_t size = 7;

	assert_int_equal(rpma_grant_new(fx.conn, fx.mr, 0, PAGE, RW, &g), 0);
	assert_int_equal(rpma_grant_get_descriptor(NULL, desc), RPMA_E_INVAL);
	assert_int_equal(rpma_grant_get_descriptor(g, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_grant_get_descriptor_size(NULL, &size), RPMA_E_INVAL);
	assert_int_equal(rpma_grant_get_descriptor_size(g, NULL), RPMA_E_INVAL);
	assert_int_equal(size, 7);
	assert_int_equal(rpma_grant_delete(&g), 0);
	fx_close(&fx);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		TEST(test_grant_new__invalid),
		TEST(test_grant_new__plain_region),
		TEST(test_grant_new__other_peer),
		TEST(test_grant_new__no_windows),
		TEST(test_grant_new__binds_window),
		TEST(test_grant_new__flush_rights),
		TEST(test_grant_new__rxe_own_registration),
		TEST(test_grant_new__failures),
		TEST(test_grant_new__bind_fails),
		TEST(test_grant_new__bind_lost),
		TEST(test_mr_dereg__granted),
		TEST(test_grant_delete__fails),
		TEST(test_grant__ends_with_connection),
		TEST(test_grant__connection_end_fails),
		TEST(test_grant_get_descriptor__invalid),
	};
	return RUN(tests);
}
