// SPDX-License-Identifier: BSD-3-Clause
/* rdmacm.c -- librdmacm mocked: ids, event channels, events, address resolution */

#include <errno.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <string.h>

#include "mocks.h"

#define CM_EVENTS_MAX 16

struct mock_cm_event {
	struct rdma_cm_event event;	/* first: what the library sees */
	uint8_t pdata[256];
};

static struct rdma_cm_event *cm_events[CM_EVENTS_MAX];
static int cm_events_head, cm_events_tail;
static struct ibv_context *id_verbs;
static int next_fd = 200;
static struct sockaddr_in src_addr, dst_addr;
/* the event that ends the last resolution on an id with a channel, got first */
static struct rdma_cm_event *resolved;
/* planned: the next resolution event of this error type comes with this status */
static enum rdma_cm_event_type resolve_error;
static int resolve_status;

/* an rdmacm call: 0, or -1 (or what the test planned) with errno */
#define PLANNED_INT(fn) \
	do { \
		struct mock_plan_hit hit_; \
		if (mock_call(MOCK_##fn, &hit_)) { \
			if (hit_.err) \
				errno = hit_.err; \
			return hit_.ret; \
		} \
	} while (0)

#define PLANNED_NULL(fn) \
	do { \
		struct mock_plan_hit hit_; \
		if (mock_call(MOCK_##fn, &hit_)) { \
			if (hit_.err) \
				errno = hit_.err; \
			return NULL; \
		} \
	} while (0)

void
mock_rdmacm_reset(void)
{
	/* events a failed test left queued */
	while (cm_events_head < cm_events_tail)
		cm_events[cm_events_head++] = NULL;
	cm_events_head = cm_events_tail = 0;
	resolved = NULL;
	resolve_status = 0;
	id_verbs = mock_ibv_ctx();
}

void
mock_cm_id_set_verbs(struct ibv_context *verbs)
{
	id_verbs = verbs;
}

struct rdma_cm_event *
mock_cm_event_push(enum rdma_cm_event_type type, struct rdma_cm_id *id,
		const void *pdata, uint8_t pdata_len)
{
	struct mock_cm_event *ev = mock_obj_new(sizeof(*ev));

	assert_true(cm_events_tail < CM_EVENTS_MAX);
	ev->event.event = type;
	ev->event.id = id;
	if (pdata) {
		memcpy(ev->pdata, pdata, pdata_len);
		ev->event.param.conn.private_data = ev->pdata;
	}
	ev->event.param.conn.private_data_len = pdata_len;
	cm_events[cm_events_tail++] = &ev->event;
	return &ev->event;
}

void
mock_cm_resolve_fail(enum rdma_cm_event_type error, int status)
{
	resolve_error = error;
	resolve_status = status;
}

/* an asynchronous resolution ends in an event on the id's channel */
static void
resolution_event(struct rdma_cm_id *id, enum rdma_cm_event_type ok,
		enum rdma_cm_event_type error)
{
	if (id->channel == NULL)
		return;
	assert_null(resolved);
	struct mock_cm_event *ev = mock_obj_new(sizeof(*ev));
	bool fail = resolve_status && resolve_error == error;
	ev->event.event = fail ? error : ok;
	ev->event.status = fail ? resolve_status : 0;
	ev->event.id = id;
	if (fail)
		resolve_status = 0;
	resolved = &ev->event;
}

struct rdma_event_channel *
rdma_create_event_channel(void)
{
	PLANNED_NULL(rdma_create_event_channel);
	struct rdma_event_channel *ch = mock_obj_new(sizeof(*ch));
	ch->fd = next_fd++;
	return ch;
}

void
rdma_destroy_event_channel(struct rdma_event_channel *channel)
{
	struct mock_plan_hit hit;

	(void) mock_call(MOCK_rdma_destroy_event_channel, &hit);
	mock_obj_free(channel);
}

struct rdma_cm_id *
mock_cm_id_new(void)
{
	struct rdma_cm_id *id = mock_obj_new(sizeof(*id));
	id->verbs = id_verbs;
	id->ps = RDMA_PS_TCP;
	return id;
}

int
rdma_create_id(struct rdma_event_channel *channel, struct rdma_cm_id **id, void *context,
		enum rdma_port_space ps)
{
	PLANNED_INT(rdma_create_id);
	assert_int_equal(ps, RDMA_PS_TCP);
	*id = mock_cm_id_new();
	(*id)->channel = channel;
	(*id)->context = context;
	return 0;
}

int
rdma_destroy_id(struct rdma_cm_id *id)
{
	PLANNED_INT(rdma_destroy_id);
	/* librdmacm leaves a QP still attached to the id leaked */
	assert_null(id->qp);
	/* an event not got goes with its id */
	if (resolved && resolved->id == id) {
		mock_obj_free(resolved);
		resolved = NULL;
	}
	mock_obj_free(id);
	return 0;
}

int
rdma_migrate_id(struct rdma_cm_id *id, struct rdma_event_channel *channel)
{
	PLANNED_INT(rdma_migrate_id);
	id->channel = channel;
	return 0;
}

int
rdma_getaddrinfo(const char *node, const char *service, const struct rdma_addrinfo *hints,
		struct rdma_addrinfo **res)
{
	assert_non_null(node);
	(void) service;
	mock_rec.hints = *hints;
	PLANNED_INT(rdma_getaddrinfo);
	struct rdma_addrinfo *rai = mock_obj_new(sizeof(*rai));
	rai->ai_src_addr = (struct sockaddr *)&src_addr;
	rai->ai_dst_addr = (struct sockaddr *)&dst_addr;
	*res = rai;
	return 0;
}

void
rdma_freeaddrinfo(struct rdma_addrinfo *res)
{
	struct mock_plan_hit hit;

	(void) mock_call(MOCK_rdma_freeaddrinfo, &hit);
	mock_obj_free(res);
}

int
rdma_resolve_addr(struct rdma_cm_id *id, struct sockaddr *src, struct sockaddr *dst,
		int timeout_ms)
{
	(void) id;
	assert_ptr_equal(src, &src_addr);
	assert_ptr_equal(dst, &dst_addr);
	mock_rec.resolve_timeout = mock_rec.resolve_addr_timeout = timeout_ms;
	PLANNED_INT(rdma_resolve_addr);
	resolution_event(id, RDMA_CM_EVENT_ADDR_RESOLVED, RDMA_CM_EVENT_ADDR_ERROR);
	return 0;
}

int
rdma_resolve_route(struct rdma_cm_id *id, int timeout_ms)
{
	(void) id;
	mock_rec.resolve_timeout = mock_rec.resolve_route_timeout = timeout_ms;
	PLANNED_INT(rdma_resolve_route);
	resolution_event(id, RDMA_CM_EVENT_ROUTE_RESOLVED, RDMA_CM_EVENT_ROUTE_ERROR);
	return 0;
}

int
rdma_bind_addr(struct rdma_cm_id *id, struct sockaddr *addr)
{
	(void) id;
	assert_ptr_equal(addr, &src_addr);
	PLANNED_INT(rdma_bind_addr);
	return 0;
}

int
rdma_listen(struct rdma_cm_id *id, int backlog)
{
	(void) id;
	mock_rec.listen_backlog = backlog;
	PLANNED_INT(rdma_listen);
	return 0;
}

int
rdma_get_cm_event(struct rdma_event_channel *channel, struct rdma_cm_event **event)
{
	assert_non_null(channel);
	PLANNED_INT(rdma_get_cm_event);
	if (resolved && resolved->id->channel == channel) {
		*event = resolved;
		resolved = NULL;
		return 0;
	}
	if (cm_events_head == cm_events_tail) {
		errno = EAGAIN;
		return -1;
	}
	*event = cm_events[cm_events_head++];
	return 0;
}

int
rdma_ack_cm_event(struct rdma_cm_event *event)
{
	PLANNED_INT(rdma_ack_cm_event);
	mock_obj_free(event);
	return 0;
}

const char *
rdma_event_str(enum rdma_cm_event_type event)
{
	(void) event;
	return "MOCK_EVENT";
}

int
rdma_create_qp_ex(struct rdma_cm_id *id, struct ibv_qp_init_attr_ex *qp_init_attr)
{
	mock_rec.qp_attr = *qp_init_attr;
	PLANNED_INT(rdma_create_qp_ex);
	assert_null(id->qp);
	id->qp = mock_qp_new(qp_init_attr);
	return 0;
}

void
rdma_destroy_qp(struct rdma_cm_id *id)
{
	struct mock_plan_hit hit;

	(void) mock_call(MOCK_rdma_destroy_qp, &hit);
	mock_qp_free(id->qp);
	id->qp = NULL;
}

/* the parameters and the bytes of their private data, which may not outlive the call */
static void
record_conn_param(const struct rdma_conn_param *param)
{
	mock_rec.conn_param = *param;
	memset(mock_rec.conn_pdata, 0, sizeof(mock_rec.conn_pdata));
	if (param->private_data)
		memcpy(mock_rec.conn_pdata, param->private_data, param->private_data_len);
}

int
rdma_connect(struct rdma_cm_id *id, struct rdma_conn_param *conn_param)
{
	(void) id;
	record_conn_param(conn_param);
	PLANNED_INT(rdma_connect);
	return 0;
}

int
rdma_accept(struct rdma_cm_id *id, struct rdma_conn_param *conn_param)
{
	(void) id;
	record_conn_param(conn_param);
	PLANNED_INT(rdma_accept);
	return 0;
}

int
rdma_reject(struct rdma_cm_id *id, const void *private_data, uint8_t private_data_len)
{
	(void) id;
	/* librdmacm copies private_data_len bytes from private_data */
	if (private_data == NULL)
		assert_int_equal(private_data_len, 0);
	PLANNED_INT(rdma_reject);
	return 0;
}

int
rdma_disconnect(struct rdma_cm_id *id)
{
	(void) id;
	PLANNED_INT(rdma_disconnect);
	return 0;
}
