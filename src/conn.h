/* SPDX-License-Identifier: BSD-3-Clause */
/* conn.h -- how a connection request turns into a connection */

#ifndef RPMA_CONN_H
#define RPMA_CONN_H

#include <rdma/rdma_cma.h>

#include "rpma.h"

/* everything a connection is made of; the connection owns it all once created */
struct conn_parts {
	struct rpma_peer *peer;
	struct rdma_cm_id *id;			/* with its QP */
	struct rdma_event_channel *evch;	/* the id's own event channel */
	struct ibv_comp_channel *channel;	/* shared by cq and rcq, or NULL */
	struct rpma_cq *cq;
	struct rpma_cq *rcq;			/* NULL when none */
	bool rcq_owned;				/* false: the shared RQ's CQ */
	bool passive;				/* accepted from an endpoint */
	struct rpma_conn_private_data data;	/* what the peer sent, if known yet */
};

/* Build a connection from parts; on failure the caller still owns parts. */
int conn_new(struct conn_parts *parts, struct rpma_conn **conn_ptr);

/* the connection's QP, the peer it was made on, and its main CQ (the QP's send CQ) */
struct ibv_qp *conn_qp(const struct rpma_conn *conn);
struct rpma_peer *conn_peer(const struct rpma_conn *conn);
struct rpma_cq *conn_cq(const struct rpma_conn *conn);

struct mw_set;

/*
 * The set of the windows of the connection's grants (mw_set.h), made at
 * the first call; rpma_conn_delete() closes it.
 */
int conn_windows(struct rpma_conn *conn, struct mw_set **set_ptr);

/* Release the QP, the CQs and the shared channel of parts (not the id); NULL-safe. */
int conn_parts_release_queues(struct conn_parts *parts);

#endif /* RPMA_CONN_H */
