// SPDX-License-Identifier: BSD-3-Clause
/*
 * conn_req.c -- a connection request, outgoing (the client resolved the
 * peer's address) or incoming (an endpoint got a CONNECT_REQUEST), with
 * the QP and the CQs the connection will use.
 */

#include <stdlib.h>

#include "fault.h"
#include "conn.h"
#include "conn_cfg.h"
#include "conn_req.h"
#include "cq.h"
#include "info.h"
#include "log.h"
#include "peer.h"
#include "post.h"
#include "private_data.h"
#include "srq.h"

struct rpma_conn_req {
	struct conn_parts parts;
	struct rdma_cm_event *event;	/* incoming: CONNECT_REQUEST, not yet acknowledged */
};

/* the completion channel, the CQs and the QP of parts->id, as cfg says */
static int
req_create_queues(struct conn_parts *parts, const struct rpma_conn_cfg *cfg)
{
	struct ibv_context *ibv_ctx = peer_ibv_context(parts->peer);
	struct rpma_srq *srq = conn_cfg_srq(cfg);
	int ret;

	if (conn_cfg_shared_channel(cfg)) {
		parts->channel = FI_PTR(ibv_create_comp_channel(ibv_ctx), ENOMEM);
		if (parts->channel == NULL) {
			RPMA_LOG_PROVIDER(errno, "ibv_create_comp_channel()");
			return RPMA_E_PROVIDER;
		}
	}

	ret = cq_new(ibv_ctx, conn_cfg_cq_size(cfg), parts->channel, &parts->cq);
	if (ret)
		goto err_release;

	parts->rcq = srq ? srq_rcq(srq) : NULL;
	if (parts->rcq == NULL && conn_cfg_rcq_size(cfg)) {
		ret = cq_new(ibv_ctx, conn_cfg_rcq_size(cfg), parts->channel, &parts->rcq);
		if (ret)
			goto err_release;
		parts->rcq_owned = true;
	}

	struct peer_qp_attr qattr = {
		.cq = cq_ibv_cq(parts->cq),
		.rcq = parts->rcq ? cq_ibv_cq(parts->rcq) : NULL,
		.srq = srq ? srq_ibv_srq(srq) : NULL,
		.sq_size = conn_cfg_sq_size(cfg),
		.rq_size = conn_cfg_rq_size(cfg),
	};
	ret = peer_create_qp(parts->peer, parts->id, &qattr);
	if (ret)
		goto err_release;
	return 0;

err_release:
	(void) conn_parts_release_queues(parts);
	return ret;
}

/* evch: the id's own event channel (outgoing), NULL for an incoming request */
static int
req_alloc(struct rpma_peer *peer, struct rdma_cm_id *id, struct rdma_event_channel *evch,
		const struct rpma_conn_cfg *cfg, struct rpma_conn_req **req_ptr)
{
	struct rpma_conn_req *req = FI_PTR(calloc(1, sizeof(*req)), ENOMEM);
	if (req == NULL)
		return RPMA_E_NOMEM;

	req->parts.peer = peer;
	req->parts.id = id;
	req->parts.evch = evch;
	int ret = req_create_queues(&req->parts, cfg ? cfg : conn_cfg_default());
	if (ret) {
		free(req);
		return ret;
	}

	*req_ptr = req;
	return 0;
}

/*
 * Wait on the id's own channel for the event that ends a resolution: what
 * a synchronous id does inside librdmacm, without the channel it would
 * make and drop (rdma_migrate_id()) on the way to the connection's own.
 */
static int
id_resolved(struct rdma_cm_id *id, enum rdma_cm_event_type expected, const char *call)
{
	struct rdma_cm_event *event;

	if (FI_NEG(rdma_get_cm_event(id->channel, &event), EIO)) {
		RPMA_LOG_PROVIDER(errno, "rdma_get_cm_event()");
		return RPMA_E_PROVIDER;
	}
	enum rdma_cm_event_type type = event->event;
	int status = event->status;
	if (rdma_ack_cm_event(event)) {
		RPMA_LOG_PROVIDER(errno, "rdma_ack_cm_event()");
		return RPMA_E_PROVIDER;
	}
	if (type == expected && status == 0)
		return 0;

	/* the errno a synchronous id gives: the event's status, negated by the kernel */
	int err = status < 0 ? -status : status ? status : EIO;
	RPMA_LOG_ERROR("%s failed: %s (%s)", call, strerror(err), rdma_event_str(type));
	errno = err;
	return RPMA_E_PROVIDER;
}

/* resolve the peer's address and a route to it, each within timeout_ms */
static int
id_resolve(struct rdma_cm_id *id, const char *addr, const char *port, int timeout_ms)
{
	struct rdma_addrinfo *rai;

	int ret = info_new(addr, port, false, &rai);
	if (ret)
		return ret;

	if (FI_NEG(rdma_resolve_addr(id, rai->ai_src_addr, rai->ai_dst_addr, timeout_ms), ETIMEDOUT)) {
		RPMA_LOG_PROVIDER(errno, "rdma_resolve_addr()");
		ret = RPMA_E_PROVIDER;
	} else {
		ret = id_resolved(id, RDMA_CM_EVENT_ADDR_RESOLVED, "rdma_resolve_addr()");
	}
	if (ret == 0) {
		if (FI_NEG(rdma_resolve_route(id, timeout_ms), ETIMEDOUT)) {
			RPMA_LOG_PROVIDER(errno, "rdma_resolve_route()");
			ret = RPMA_E_PROVIDER;
		} else {
			ret = id_resolved(id, RDMA_CM_EVENT_ROUTE_RESOLVED, "rdma_resolve_route()");
		}
	}

	int err = errno;
	info_delete(&rai);
	errno = err;
	return ret;
}

int
rpma_conn_req_new(struct rpma_peer *peer, const char *addr, const char *port,
		const struct rpma_conn_cfg *cfg, struct rpma_conn_req **req_ptr)
{
	struct rdma_event_channel *evch;
	struct rdma_cm_id *id;

	if (peer == NULL || addr == NULL || port == NULL || req_ptr == NULL)
		return RPMA_E_INVAL;
	if (cfg == NULL)
		cfg = conn_cfg_default();

	/* the id is made on the connection's own event channel from the start */
	evch = FI_PTR(rdma_create_event_channel(), ENOMEM);
	if (evch == NULL) {
		RPMA_LOG_PROVIDER(errno, "rdma_create_event_channel()");
		return RPMA_E_PROVIDER;
	}
	if (FI_NEG(rdma_create_id(evch, &id, NULL, RDMA_PS_TCP), ENOMEM)) {
		RPMA_LOG_PROVIDER(errno, "rdma_create_id()");
		rdma_destroy_event_channel(evch);
		return RPMA_E_PROVIDER;
	}

	int ret = id_resolve(id, addr, port, conn_cfg_timeout(cfg));
	if (ret == 0)
		ret = req_alloc(peer, id, evch, cfg, req_ptr);
	if (ret) {
		int err = errno;
		(void) rdma_destroy_id(id);
		rdma_destroy_event_channel(evch);
		errno = err;
	}
	return ret;
}

/* refuse the peer: reject, acknowledge the request event and drop the id */
static int
event_reject(struct rdma_cm_event *event)
{
	struct rdma_cm_id *id = event->id;
	int ret = 0;

	if (FI_NEG(rdma_reject(id, NULL, 0), EIO)) {
		RPMA_LOG_PROVIDER(errno, "rdma_reject()");
		ret = RPMA_E_PROVIDER;
	}
	if (rdma_ack_cm_event(event)) {
		RPMA_LOG_PROVIDER(errno, "rdma_ack_cm_event()");
		ret = RPMA_E_PROVIDER;
	}
	if (rdma_destroy_id(id)) {
		RPMA_LOG_PROVIDER(errno, "rdma_destroy_id()");
		ret = RPMA_E_PROVIDER;
	}
	return ret;
}

/*
 * Release a request that will not become a connection. An incoming one is
 * rejected: through its event if it still holds it, by hand otherwise.
 */
static int
req_destroy(struct rpma_conn_req *req, bool passive)
{
	struct conn_parts *parts = &req->parts;
	int ret = conn_parts_release_queues(parts);

	if (req->event) {
		if (event_reject(req->event))
			ret = RPMA_E_PROVIDER;
	} else {
		if (passive)
			(void) FI_NEG(rdma_reject(parts->id, NULL, 0), EIO);
		if (rdma_destroy_id(parts->id)) {
			RPMA_LOG_PROVIDER(errno, "rdma_destroy_id()");
			ret = RPMA_E_PROVIDER;
		}
	}
	if (parts->evch)
		rdma_destroy_event_channel(parts->evch);

	private_data_delete(&parts->data);
	free(req);
	return ret;
}

int
conn_req_from_cm_event(struct rpma_peer *peer, struct rdma_cm_event *event,
		const struct rpma_conn_cfg *cfg, struct rpma_conn_req **req_ptr)
{
	struct rpma_conn_req *req;

	int ret = req_alloc(peer, event->id, NULL, cfg, &req);
	if (ret) {
		(void) event_reject(event);
		return ret;
	}

	req->event = event;
	ret = private_data_store(event->param.conn.private_data,
			event->param.conn.private_data_len, &req->parts.data);
	if (ret) {
		(void) req_destroy(req, true);
		return ret;
	}

	*req_ptr = req;
	return 0;
}

int
rpma_conn_req_delete(struct rpma_conn_req **req_ptr)
{
	if (req_ptr == NULL)
		return RPMA_E_INVAL;

	struct rpma_conn_req *req = *req_ptr;
	if (req == NULL)
		return 0;

	*req_ptr = NULL;
	return req_destroy(req, req->event != NULL);
}

/*
 * Give the id an event channel of its own, so the connection's events have
 * their fd: an incoming request's id is on its endpoint's channel (an
 * outgoing one was made on its own).
 */
static int
req_own_event_channel(struct rpma_conn_req *req)
{
	struct conn_parts *parts = &req->parts;

	if (parts->evch)
		return 0;

	/* rdma_migrate_id() waits until every event of the id is acknowledged */
	if (req->event) {
		struct rdma_cm_event *event = req->event;
		req->event = NULL;
		if (rdma_ack_cm_event(event)) {
			RPMA_LOG_PROVIDER(errno, "rdma_ack_cm_event()");
			return RPMA_E_PROVIDER;
		}
	}

	parts->evch = FI_PTR(rdma_create_event_channel(), ENOMEM);
	if (parts->evch == NULL) {
		RPMA_LOG_PROVIDER(errno, "rdma_create_event_channel()");
		return RPMA_E_PROVIDER;
	}
	if (FI_NEG(rdma_migrate_id(parts->id, parts->evch), EIO)) {
		RPMA_LOG_PROVIDER(errno, "rdma_migrate_id()");
		return RPMA_E_PROVIDER;
	}
	return 0;
}

/* connect (active) or accept (passive) on an id that already is the connection's */
static int
id_connect(struct rdma_cm_id *id, bool passive, const struct rpma_conn_private_data *pdata)
{
	struct rdma_conn_param param = {
		.private_data = pdata ? pdata->ptr : NULL,
		.private_data_len = pdata ? pdata->len : 0,
		.responder_resources = RDMA_MAX_RESP_RES,
		.initiator_depth = RDMA_MAX_INIT_DEPTH,
		.flow_control = 1,
		.retry_count = RPMA_CONN_RETRY_COUNT,
		.rnr_retry_count = 7,
	};

	if (passive ? FI_NEG(rdma_accept(id, &param), EIO) :
			FI_NEG(rdma_connect(id, &param), EIO)) {
		RPMA_LOG_PROVIDER(errno, passive ? "rdma_accept()" : "rdma_connect()");
		return RPMA_E_PROVIDER;
	}
	return 0;
}

int
rpma_conn_req_connect(struct rpma_conn_req **req_ptr,
		const struct rpma_conn_private_data *pdata, struct rpma_conn **conn_ptr)
{
	struct rpma_conn *conn;

	if (req_ptr == NULL || *req_ptr == NULL)
		return RPMA_E_INVAL;
	/*
	 * From here on the request is consumed on every failure, invalid
	 * arguments included, as librpma 1.x documents and does: a 1.x program
	 * never deletes a request it passed here.
	 */
	if (conn_ptr == NULL || (pdata != NULL && (pdata->len == 0 || pdata->ptr == NULL))) {
		(void) rpma_conn_req_delete(req_ptr);
		return RPMA_E_INVAL;
	}

	struct rpma_conn_req *req = *req_ptr;
	struct rdma_cm_id *id = req->parts.id;
	bool passive = (req->event != NULL);
	*req_ptr = NULL;
	req->parts.passive = passive;

	int ret = req_own_event_channel(req);
	if (ret == 0)
		ret = conn_new(&req->parts, &conn);
	if (ret) {
		(void) req_destroy(req, passive);
		return ret;
	}
	free(req);

	ret = id_connect(id, passive, pdata);
	if (ret) {
		if (passive)
			(void) FI_NEG(rdma_reject(id, NULL, 0), EIO);
		(void) rpma_conn_delete(&conn);
		return ret;
	}

	*conn_ptr = conn;
	return 0;
}

int
rpma_conn_req_recv(struct rpma_conn_req *req, struct rpma_mr_local *dst, size_t offset,
		size_t len, const void *op_context)
{
	if (req == NULL || dst == NULL)
		return RPMA_E_INVAL;

	return post_recv(req->parts.id->qp, NULL, dst, offset, len, op_context);
}

int
rpma_conn_req_get_private_data(const struct rpma_conn_req *req,
		struct rpma_conn_private_data *pdata)
{
	if (req == NULL || pdata == NULL)
		return RPMA_E_INVAL;

	*pdata = req->parts.data;
	return 0;
}
