/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mocks.h -- the shared mocks of libibverbs, librdmacm and the allocator.
 *
 * Every mocked call succeeds unless a test planned otherwise with
 * MOCK_FAIL(); each call is counted and stamped with a global sequence
 * number so a test can assert what was released and in which order.
 * Objects the mocks hand out are counted while alive: the common teardown
 * asserts that a test released everything it (or the library) acquired.
 */

#ifndef MOCKS_H
#define MOCKS_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#define MOCK_FUNCTIONS(X) \
	X(ibv_create_comp_channel) X(ibv_destroy_comp_channel) \
	X(ibv_create_cq) X(ibv_destroy_cq) X(ibv_req_notify_cq) X(ibv_poll_cq) \
	X(ibv_get_cq_event) X(ibv_ack_cq_events) \
	X(ibv_alloc_pd) X(ibv_dealloc_pd) X(ibv_query_device_ex) \
	X(ibv_reg_mr) X(ibv_dereg_mr) X(ibv_advise_mr) X(ibv_alloc_mw) X(ibv_dealloc_mw) \
	X(ibv_create_srq) X(ibv_destroy_srq) \
	X(ibv_post_send) X(ibv_post_recv) X(ibv_post_srq_recv) X(ibv_modify_qp) \
	X(ibv_qp_to_qp_ex) X(ibv_wr_complete) \
	X(rdma_create_event_channel) X(rdma_destroy_event_channel) \
	X(rdma_create_id) X(rdma_destroy_id) X(rdma_migrate_id) \
	X(rdma_getaddrinfo) X(rdma_freeaddrinfo) \
	X(rdma_resolve_addr) X(rdma_resolve_route) X(rdma_bind_addr) X(rdma_listen) \
	X(rdma_get_cm_event) X(rdma_ack_cm_event) \
	X(rdma_create_qp_ex) X(rdma_destroy_qp) \
	X(rdma_connect) X(rdma_accept) X(rdma_reject) X(rdma_disconnect) \
	X(malloc)

#define MOCK_ENUM(name) MOCK_##name,
enum mock_fn { MOCK_FUNCTIONS(MOCK_ENUM) MOCK_FN_NUM };
#undef MOCK_ENUM

/*
 * Plan the nth call from now (1: the next one) of fn: it returns ret (int
 * functions; pointer functions return NULL) and sets errno to err when
 * err is not 0. For malloc (and calloc) ret is ignored: the allocation fails.
 */
void mock_plan(enum mock_fn fn, int nth, int ret, int err);
#define MOCK_FAIL(fn, ret, err)		mock_plan(MOCK_##fn, 1, (ret), (err))
#define MOCK_FAIL_NTH(fn, n, ret, err)	mock_plan(MOCK_##fn, (n), (ret), (err))

/* how many times fn was called since the setup */
int mock_calls(enum mock_fn fn);
#define CALLS(fn) mock_calls(MOCK_##fn)

/* forget the counts and plans so far (after a fixture was built) */
void mock_calls_reset(void);

/* the sequence number of fn's last call, -1 when not called */
int mock_order(enum mock_fn fn);
#define ORDER(fn) mock_order(MOCK_##fn)

/* the objects the mocks handed out that are still alive, and the heap blocks */
int mock_live_objects(void);
long mock_heap_live(void);
/* the CQ events got and never acknowledged when their CQ was destroyed */
int mock_unacked_at_destroy(void);

/* the fake device: its context has the inline verbs' ops set to the mocks */
struct ibv_context *mock_ibv_ctx(void);

/* what ibv_query_device_ex reports */
void mock_device_set_odp(int capable);
void mock_device_set_caps_ex(uint64_t caps);
void mock_device_set_vendor_id(uint32_t id);
/* the device's transport (IBV_TRANSPORT_IB unless set) */
void mock_device_set_transport(enum ibv_transport_type transport);
/* the device's device_cap_flags (e.g. IBV_DEVICE_MEM_WINDOW_TYPE_2B) */
void mock_device_set_caps(uint64_t caps);

/* queue an event for rdma_get_cm_event (private data is copied) */
struct rdma_cm_event *mock_cm_event_push(enum rdma_cm_event_type type, struct rdma_cm_id *id,
		const void *pdata, uint8_t pdata_len);
/* the next resolution on an id with a channel whose error event is error ends in it, with status */
void mock_cm_resolve_fail(enum rdma_cm_event_type error, int status);
/* queue an event of cq for ibv_get_cq_event */
void mock_cq_event_push(struct ibv_cq *cq);
/* a CQ created by the mock, to be destroyed by ibv_destroy_cq */
struct ibv_cq *mock_ibv_cq_new(void);
/* a completion the device has: polled from any CQ after those queued before */
void mock_wc_push(const struct ibv_wc *wc);
/*
 * What a signaled bind (a grant's) completes with: an ibv_wc_status
 * (IBV_WC_SUCCESS unless set), no completion ever (MOCK_BIND_NEVER), or
 * none until ibv_modify_qp() moves the QP to the error state, which
 * flushes it (MOCK_BIND_HELD)
 */
#define MOCK_BIND_NEVER (-1)
#define MOCK_BIND_HELD (-2)
void mock_bind_set_outcome(int outcome);
/* an id as rdma_create_id makes it, for incoming requests */
struct rdma_cm_id *mock_cm_id_new(void);

/* what the last calls got */
struct mock_record {
	struct ibv_send_wr send_wr;	/* the last ibv_post_send, sg_list copied */
	struct ibv_sge send_sge;
	struct ibv_recv_wr recv_wr;	/* the last ibv_post_recv or _srq_recv */
	struct ibv_sge recv_sge;
	void *recv_target;		/* the qp or srq of it */
	int reg_access[4];		/* the access flags of the first registrations */
	void *reg_addr;
	size_t reg_length;
	int cq_size;			/* of the last ibv_create_cq */
	struct ibv_comp_channel *cq_channel;
	int acked;			/* events acknowledged in all */
	int ack_calls_nevents[8];	/* nevents of the first ibv_ack_cq_events */
	struct ibv_qp_init_attr_ex qp_attr;	/* of the last rdma_create_qp_ex */
	struct rdma_conn_param conn_param;	/* of rdma_connect or rdma_accept */
	uint8_t conn_pdata[256];	/* the private data it pointed at, copied */
	struct rdma_addrinfo hints;	/* of the last rdma_getaddrinfo */
	int resolve_timeout;		/* of the last rdma_resolve_addr or _route */
	int resolve_addr_timeout;
	int resolve_route_timeout;
	int listen_backlog;
	struct { uint32_t rkey; uint64_t addr; uint64_t value; uint64_t wr_id;
		unsigned flags; } atomic;	/* the last ibv_wr_atomic_write */
	struct { uint32_t rkey; uint64_t addr; size_t len; uint8_t type; uint8_t level;
		uint64_t wr_id; unsigned flags; int calls; } flush;	/* ibv_wr_flush */
	struct { enum ibv_advise_mr_advice advice; uint32_t flags; struct ibv_sge sge;
		uint32_t num_sge; } advise;
	struct ibv_srq_init_attr srq_attr;
	enum ibv_qp_state qp_state;	/* of the last ibv_modify_qp */
	struct { enum ibv_mw_type type; int allocs; int deallocs; } mw;	/* ibv_alloc_mw */
	int log_count;			/* messages the library logged */
	char log_last[512];
	char log_prev[512];		/* the one before it */
	int syslog_count;		/* messages the default function sent to syslog */
	int syslog_priority;		/* of the last one */
	char syslog_last[256];
};
extern struct mock_record mock_rec;

/* the cmocka group setup and teardown every test file uses */
int mock_setup(void **state);
int mock_teardown(void **state);

#define TEST(f) cmocka_unit_test_setup_teardown(f, mock_setup, mock_teardown)
/* the group is named after the test program (UNIT_NAME, from CMake): with
 * CMOCKA_XML_FILE=DIR/%g.xml each program reports its cases to a file of its own */
#define RUN(tests) cmocka_run_group_tests_name(UNIT_NAME, tests, NULL, NULL)

#endif /* MOCKS_H */

/* the mock files share these; tests use the few that give them more control */
struct mock_plan_hit { int ret; int err; };
/* count and stamp a call of fn; true with *hit filled when a failure was planned */
int mock_call(enum mock_fn fn, struct mock_plan_hit *hit);
void *mock_obj_new(size_t size);
void mock_obj_free(void *obj);
/* free every object still alive (after a test made a destroy call fail) */
void mock_release_all(void);
struct ibv_qp *mock_qp_new(struct ibv_qp_init_attr_ex *attr);
void mock_qp_free(struct ibv_qp *qp);
void mock_plans_clear(void);
void mock_ibverbs_reset(void);
void mock_rdmacm_reset(void);
/* the verbs context rdma_create_id gives its ids (NULL: no device found) */
void mock_cm_id_set_verbs(struct ibv_context *verbs);
extern int unacked_at_destroy;
