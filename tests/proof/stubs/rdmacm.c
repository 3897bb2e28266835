// SPDX-License-Identifier: BSD-3-Clause
/*
 * rdmacm.c -- librdmacm for the proofs: ids, event channels, one event at
 * a time, address resolution and connecting. The private data of an event
 * is the buffer the harness gives, of exactly the length the event reports,
 * so that a read past it is a failed pointer check; the private data handed
 * to rdma_connect() or rdma_accept() is read whole, as rdma_cm copies it.
 * A resolution (address, route) always succeeds: its event comes next, as
 * on an id with an event channel, before the one the harness gives.
 */

#include <errno.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "stubs.h"

static struct {
	enum rdma_cm_event_type type;
	const void *pdata;
	uint8_t len;
} next_event;

static struct sockaddr_in src_addr, dst_addr;

/* the event of a resolution started and not yet taken */
static bool resolving;
static enum rdma_cm_event_type resolved;

void
stub_cm_event_next(enum rdma_cm_event_type type, const void *pdata, uint8_t len)
{
	next_event.type = type;
	next_event.pdata = pdata;
	next_event.len = len;
}

struct rdma_cm_id *
stub_cm_id_new(void)
{
	struct rdma_cm_id *id = calloc(1, sizeof(*id));
	__CPROVER_assume(id != NULL);
	id->verbs = stub_device();
	id->ps = RDMA_PS_TCP;
	id->qp_type = IBV_QPT_RC;
	return id;
}

struct rdma_event_channel *
rdma_create_event_channel(void)
{
	struct rdma_event_channel *ch = malloc(sizeof(*ch));
	__CPROVER_assume(ch != NULL);
	ch->fd = 4;
	return ch;
}

void
rdma_destroy_event_channel(struct rdma_event_channel *channel)
{
	free(channel);
}

int
rdma_create_id(struct rdma_event_channel *channel, struct rdma_cm_id **id, void *context,
		enum rdma_port_space ps)
{
	(void) ps;
	*id = stub_cm_id_new();
	(*id)->channel = channel;
	(*id)->context = context;
	return 0;
}

int
rdma_destroy_id(struct rdma_cm_id *id)
{
	free(id);
	return 0;
}

int
rdma_migrate_id(struct rdma_cm_id *id, struct rdma_event_channel *channel)
{
	id->channel = channel;
	return 0;
}

int
rdma_getaddrinfo(const char *node, const char *service, const struct rdma_addrinfo *hints,
		struct rdma_addrinfo **res)
{
	(void) node;
	(void) service;
	(void) hints;
	struct rdma_addrinfo *rai = calloc(1, sizeof(*rai));
	__CPROVER_assume(rai != NULL);
	rai->ai_src_addr = (struct sockaddr *)&src_addr;
	rai->ai_dst_addr = (struct sockaddr *)&dst_addr;
	*res = rai;
	return 0;
}

void
rdma_freeaddrinfo(struct rdma_addrinfo *res)
{
	free(res);
}

int
rdma_resolve_addr(struct rdma_cm_id *id, struct sockaddr *src, struct sockaddr *dst,
		int timeout_ms)
{
	(void) id;
	(void) src;
	(void) dst;
	(void) timeout_ms;
	resolving = true;
	resolved = RDMA_CM_EVENT_ADDR_RESOLVED;
	return 0;
}

int
rdma_resolve_route(struct rdma_cm_id *id, int timeout_ms)
{
	(void) id;
	(void) timeout_ms;
	resolving = true;
	resolved = RDMA_CM_EVENT_ROUTE_RESOLVED;
	return 0;
}

int
rdma_get_cm_event(struct rdma_event_channel *channel, struct rdma_cm_event **event)
{
	(void) channel;
	struct rdma_cm_event *ev = calloc(1, sizeof(*ev));
	__CPROVER_assume(ev != NULL);
	if (resolving) {
		ev->event = resolved;
		resolving = false;
	} else {
		ev->event = next_event.type;
		ev->param.conn.private_data = next_event.pdata;
		ev->param.conn.private_data_len = next_event.len;
	}
	*event = ev;
	return 0;
}

int
rdma_ack_cm_event(struct rdma_cm_event *event)
{
	free(event);
	return 0;
}

const char *
rdma_event_str(enum rdma_cm_event_type event)
{
	(void) event;
	return "stub event";
}

int
rdma_create_qp_ex(struct rdma_cm_id *id, struct ibv_qp_init_attr_ex *qp_init_attr)
{
	id->qp = stub_qp_new(qp_init_attr->pd);
	return 0;
}

void
rdma_destroy_qp(struct rdma_cm_id *id)
{
	free((struct ibv_qp_ex *)id->qp);
	id->qp = NULL;
}

/* rdma_cm copies the private data into its request as the call is made */
static int
conn_param_read(const struct rdma_conn_param *param)
{
	stub_rec.conn_calls++;
	stub_rec.conn_pdata_len = param->private_data_len;
	stub_read(param->private_data, param->private_data_len);
	return 0;
}

int
rdma_connect(struct rdma_cm_id *id, struct rdma_conn_param *conn_param)
{
	(void) id;
	return conn_param_read(conn_param);
}

int
rdma_accept(struct rdma_cm_id *id, struct rdma_conn_param *conn_param)
{
	(void) id;
	return conn_param_read(conn_param);
}

int
rdma_reject(struct rdma_cm_id *id, const void *private_data, uint8_t private_data_len)
{
	(void) id;
	(void) private_data;
	(void) private_data_len;
	return 0;
}

int
rdma_disconnect(struct rdma_cm_id *id)
{
	(void) id;
	return 0;
}
