// SPDX-License-Identifier: BSD-3-Clause
/*
 * conn_private_data.c -- where a connection takes the peer's private data
 * (conn_req.c, conn.c) and hands its own to rdma_cm.
 *
 * Proven for every length rdma_cm can report (0 to 255) and every content,
 * on both sides, with the peer's bytes in a buffer of exactly that length
 * (or none at all):
 * - server: a CONNECT_REQUEST becomes a request (conn_req_from_cm_event())
 *   whose rpma_conn_req_get_private_data() is a copy of exactly the
 *   reported length and bytes; accepted (rpma_conn_req_connect()), the
 *   connection keeps that copy, and its ESTABLISHED event changes nothing;
 * - client: a connection made by rpma_conn_req_new() and
 *   rpma_conn_req_connect() has no private data until its ESTABLISHED
 *   event, then a copy of exactly what that event reports;
 * - the stored length is thus never above what rdma_cm delivered: on
 *   InfiniBand and RoCE at most 56 bytes from the client and 196 from the
 *   server, in any case at most 255;
 * - the private data this side sends (1 to 255 bytes, in a buffer of
 *   exactly that length) is handed to rdma_accept() or rdma_connect()
 *   whole, with its length, and nothing beyond it is read; a length of 0 or
 *   no bytes is RPMA_E_INVAL, nothing handed over;
 * - no read or write outside an object, no undefined behaviour, and, once
 *   the connection and the peer are deleted, no leak.
 */

#include <stdlib.h>

#include "fixtures.h"

/* len bytes a peer sent, in an object of exactly that length */
static uint8_t *
peer_bytes(uint8_t len)
{
	uint8_t *buf = malloc(len);

	__CPROVER_assume(buf != NULL);
	return buf;
}

/* pdata is a copy of the len bytes at bytes (none when bytes is NULL or len 0) */
static void
check_copy(const struct rpma_conn_private_data *pdata, const uint8_t *bytes, uint8_t len)
{
	size_t i = nondet_size();

	if (bytes == NULL || len == 0) {
		__CPROVER_assert(pdata->ptr == NULL && pdata->len == 0,
				"no private data received reads as none");
		return;
	}
	__CPROVER_assert(pdata->len == len, "the stored length is the length rdma_cm reported");
	__CPROVER_assert(pdata->ptr != bytes && __CPROVER_OBJECT_SIZE(pdata->ptr) == len,
			"the private data is the library's own copy, of exactly that length");
	if (i < len)
		__CPROVER_assert(((const uint8_t *)pdata->ptr)[i] == bytes[i],
				"the copy holds the bytes rdma_cm delivered");
}

/* what this side sends: any length, in a buffer of exactly that length or none */
static struct rpma_conn_private_data *
own_bytes(struct rpma_conn_private_data *pdata)
{
	pdata->len = nondet_u8();
	pdata->ptr = nondet_bool() ? malloc(pdata->len) : NULL;
	return pdata;
}

/* the request a server gets from a CONNECT_REQUEST carrying bytes (or none) */
static struct rpma_conn_req *
incoming(struct rpma_peer *peer, const uint8_t *bytes, uint8_t len)
{
	struct rpma_conn_req *req = NULL;
	struct rdma_cm_event *ev = calloc(1, sizeof(*ev));

	__CPROVER_assume(ev != NULL);
	ev->event = RDMA_CM_EVENT_CONNECT_REQUEST;
	ev->id = stub_cm_id_new();
	ev->param.conn.private_data = bytes;
	ev->param.conn.private_data_len = len;
	/* an allocation may fail: the event is then rejected and released */
	if (conn_req_from_cm_event(peer, ev, NULL, &req) != 0)
		return NULL;
	return req;
}

/* a server accepts, a client connects; the ESTABLISHED event carries est_bytes */
static void
accept_or_connect(struct rpma_conn_req *req, bool server, const uint8_t *bytes,
		const uint8_t *est_bytes, uint8_t len)
{
	struct rpma_conn_private_data got, sent, *send = nondet_bool() ? own_bytes(&sent) : NULL;
	struct rpma_conn *conn = NULL;
	enum rpma_conn_event event;
	bool refused = send && (send->ptr == NULL || send->len == 0);

	stub_record_clear();
	int ret = rpma_conn_req_connect(&req, send, &conn);
	if (refused) {
		WITNESS("private data without bytes is sent");
		__CPROVER_assert(ret == RPMA_E_INVAL && stub_rec.conn_calls == 0,
				"private data without bytes is refused, nothing handed to rdma_cm");
	}
	if (ret == 0) {
		__CPROVER_assert(stub_rec.conn_calls == 1 &&
				stub_rec.conn_pdata_len == (send ? send->len : 0),
				"rdma_cm is handed this side's private data with its length");

		stub_cm_event_next(RDMA_CM_EVENT_ESTABLISHED, est_bytes, len);
		ret = rpma_conn_next_event(conn, &event);
		__CPROVER_assert(ret == 0 ? event == RPMA_CONN_ESTABLISHED : ret == RPMA_E_NOMEM,
				"ESTABLISHED is the event, or the copy's allocation failed");
		__CPROVER_assert(rpma_conn_get_private_data(conn, &got) == 0,
				"the connection is read");
		/* a server keeps the request's; a connection without any takes ESTABLISHED's */
		if (server && bytes != NULL && len != 0) {
			WITNESS("a server connects with the client's private data");
			check_copy(&got, bytes, len);
		} else if (ret == 0) {
			if (!server && est_bytes != NULL && len != 0)
				WITNESS("a client connects with the server's private data");
			check_copy(&got, est_bytes, len);
		} else
			check_copy(&got, NULL, 0);
		__CPROVER_assert(rpma_conn_delete(&conn) == 0, "the connection is deleted");
	}
	__CPROVER_assert(req == NULL, "the request is consumed");
	if (send)
		free(send->ptr);
}

int
main(void)
{
	struct rpma_peer *peer = fixture_peer();
	struct rpma_conn_req *req = NULL;
	struct rpma_conn_private_data got;
	uint8_t len = nondet_u8();
	uint8_t *buf = peer_bytes(len), *est_buf = peer_bytes(len);
	const uint8_t *bytes = nondet_bool() ? buf : NULL;
	const uint8_t *est_bytes = nondet_bool() ? est_buf : NULL;
	bool server = nondet_bool();

	if (server) {
		req = incoming(peer, bytes, len);
	} else {
		__CPROVER_assume(rpma_conn_req_new(peer, "192.0.2.1", "7204", NULL, &req) == 0);
		/* the client's ESTABLISHED carries the server's answer */
		est_bytes = bytes;
	}

	if (req) {
		__CPROVER_assert(rpma_conn_req_get_private_data(req, &got) == 0,
				"the request is read");
		check_copy(&got, server ? bytes : NULL, len);
		accept_or_connect(req, server, bytes, est_bytes, len);
	}

	__CPROVER_assert(rpma_peer_delete(&peer) == 0, "the peer is deleted");
	free(buf);
	free(est_buf);
	return 0;
}
