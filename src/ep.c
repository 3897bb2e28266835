// SPDX-License-Identifier: BSD-3-Clause
/* ep.c -- a listening endpoint and the connection requests it receives */

#include <stdlib.h>

#include "fault.h"
#include "conn_req.h"
#include "info.h"
#include "log.h"

struct rpma_ep {
	struct rpma_peer *peer;
	struct rdma_event_channel *evch;
	struct rdma_cm_id *id;
};

/* bind id to addr:port and listen */
static int
id_listen(struct rdma_cm_id *id, const char *addr, const char *port)
{
	struct rdma_addrinfo *rai;

	int ret = info_new(addr, port, true, &rai);
	if (ret)
		return ret;

	if (FI_NEG(rdma_bind_addr(id, rai->ai_src_addr), EADDRINUSE)) {
		RPMA_LOG_PROVIDER(errno, "rdma_bind_addr()");
		ret = RPMA_E_PROVIDER;
	} else if (FI_NEG(rdma_listen(id, 0), EIO)) {
		RPMA_LOG_PROVIDER(errno, "rdma_listen()");
		ret = RPMA_E_PROVIDER;
	}

	int err = errno;
	info_delete(&rai);
	errno = err;
	return ret;
}

int
rpma_ep_listen(struct rpma_peer *peer, const char *addr, const char *port,
		struct rpma_ep **ep_ptr)
{
	if (peer == NULL || addr == NULL || port == NULL || ep_ptr == NULL)
		return RPMA_E_INVAL;

	int ret = RPMA_E_PROVIDER;
	struct rpma_ep *ep = FI_PTR(calloc(1, sizeof(*ep)), ENOMEM);
	if (ep == NULL)
		return RPMA_E_NOMEM;

	ep->peer = peer;
	ep->evch = FI_PTR(rdma_create_event_channel(), ENOMEM);
	if (ep->evch == NULL) {
		RPMA_LOG_PROVIDER(errno, "rdma_create_event_channel()");
		goto err_free;
	}

	if (FI_NEG(rdma_create_id(ep->evch, &ep->id, NULL, RDMA_PS_TCP), ENOMEM)) {
		RPMA_LOG_PROVIDER(errno, "rdma_create_id()");
		goto err_destroy_channel;
	}

	ret = id_listen(ep->id, addr, port);
	if (ret)
		goto err_destroy_id;

	RPMA_LOG_NOTICE("waiting for incoming connections on %s:%s", addr, port);
	*ep_ptr = ep;
	return 0;

err_destroy_id:
	(void) rdma_destroy_id(ep->id);
err_destroy_channel:
	rdma_destroy_event_channel(ep->evch);
err_free:
	free(ep);
	return ret;
}

int
rpma_ep_shutdown(struct rpma_ep **ep_ptr)
{
	if (ep_ptr == NULL)
		return RPMA_E_INVAL;

	struct rpma_ep *ep = *ep_ptr;
	if (ep == NULL)
		return 0;

	if (rdma_destroy_id(ep->id)) {
		RPMA_LOG_PROVIDER(errno, "rdma_destroy_id()");
		return RPMA_E_PROVIDER;
	}
	rdma_destroy_event_channel(ep->evch);
	free(ep);
	*ep_ptr = NULL;
	return 0;
}

int
rpma_ep_get_fd(const struct rpma_ep *ep, int *fd)
{
	if (ep == NULL || fd == NULL)
		return RPMA_E_INVAL;

	*fd = ep->evch->fd;
	return 0;
}

int
rpma_ep_next_conn_req(struct rpma_ep *ep, const struct rpma_conn_cfg *cfg,
		struct rpma_conn_req **req_ptr)
{
	struct rdma_cm_event *event;

	if (ep == NULL || req_ptr == NULL)
		return RPMA_E_INVAL;

	if (FI_NEG(rdma_get_cm_event(ep->evch, &event), EIO)) {
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			return RPMA_E_NO_EVENT;
		RPMA_LOG_PROVIDER(errno, "rdma_get_cm_event()");
		return RPMA_E_PROVIDER;
	}

	if (event->event != RDMA_CM_EVENT_CONNECT_REQUEST) {
		RPMA_LOG_ERROR("unexpected event on the endpoint: %s", rdma_event_str(event->event));
		if (rdma_ack_cm_event(event)) {
			RPMA_LOG_PROVIDER(errno, "rdma_ack_cm_event()");
			return RPMA_E_PROVIDER;
		}
		return RPMA_E_INVAL;
	}

	return conn_req_from_cm_event(ep->peer, event, cfg, req_ptr);
}
