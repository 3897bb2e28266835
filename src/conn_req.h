/* SPDX-License-Identifier: BSD-3-Clause */
/* conn_req.h -- what the connection request offers the endpoint */

#ifndef RPMA_CONN_REQ_H
#define RPMA_CONN_REQ_H

#include <rdma/rdma_cma.h>

#include "rpma.h"

/*
 * How often the transport retransmits before an operation fails: 7 as
 * librpma 1.x (which rxe reads as no limit); a build may choose another
 */
#ifndef RPMA_CONN_RETRY_COUNT
#define RPMA_CONN_RETRY_COUNT 7
#endif

/*
 * Make an incoming request of a CONNECT_REQUEST event; the request keeps
 * the event until it is connected or deleted. On failure the event is
 * acknowledged and the peer rejected.
 */
int conn_req_from_cm_event(struct rpma_peer *peer, struct rdma_cm_event *event,
		const struct rpma_conn_cfg *cfg, struct rpma_conn_req **req_ptr);

#endif /* RPMA_CONN_REQ_H */
