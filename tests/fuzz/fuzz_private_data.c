// SPDX-License-Identifier: BSD-3-Clause
/*
 * fuzz_private_data.c -- the private data rdma_cm hands over from the peer,
 * on both sides, through the library's objects linked with the unit tests'
 * mocks of libibverbs and librdmacm (tests/unit/mocks):
 *
 * - passive: a CONNECT_REQUEST event carrying the input becomes a request
 *   (conn_req_from_cm_event()); rpma_conn_req_get_private_data() gives an
 *   owned copy of exactly min(size, 255) bytes; the request is deleted, or
 *   connected and rpma_conn_get_private_data() gives the same bytes; every
 *   allocation of the request is also made to fail once;
 * - active: a connection learns the input from its ESTABLISHED event.
 *
 * After each scenario every mocked object and heap block it made must be
 * released, and after each input all of them. The peer's flush byte, made
 * for its first connection and kept until rpma_peer_delete(), is made
 * before the scenarios, so that each starts and ends with it.
 */

#include <string.h>

#include "conn_req.h"
#include "fuzz.h"
#include "mocks.h"
#include "peer.h"

#define PDATA_MAX 255	/* rdma_cm's private_data_len is a uint8_t */

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void) argc;
	(void) argv;
	/* a broken assertion inside a mock aborts instead of exit(): a crash with its input */
	FUZZ_CHECK(setenv("CMOCKA_TEST_ABORT", "1", 1) == 0);
	return 0;
}

/* pd is the library's own copy of the len bytes at data */
static void
check_copy(const struct rpma_conn_private_data *pd, const uint8_t *data, uint8_t len)
{
	FUZZ_CHECK(pd->len == len);
	if (len == 0) {
		FUZZ_CHECK(pd->ptr == NULL);
		return;
	}
	FUZZ_CHECK(pd->ptr != NULL && pd->ptr != (const void *)data);
	FUZZ_CHECK(memcmp(pd->ptr, data, len) == 0);
}

/*
 * A CONNECT_REQUEST as rdma_get_cm_event() gives it. The private data points
 * at the fuzz input itself, so a read past its end is caught by ASan.
 * rdma_ack_cm_event() (the mock) frees the event, rdma_destroy_id() the id.
 */
static struct rdma_cm_event *
connect_request(const uint8_t *data, uint8_t len)
{
	struct rdma_cm_event *ev = mock_obj_new(sizeof(*ev));

	ev->event = RDMA_CM_EVENT_CONNECT_REQUEST;
	ev->id = mock_cm_id_new();
	ev->param.conn.private_data = data;
	ev->param.conn.private_data_len = len;
	return ev;
}

/* what is alive now, to compare with after a scenario */
struct live {
	int objects;
	long heap;
};

static struct live
live_now(void)
{
	return (struct live){ mock_live_objects(), mock_heap_live() };
}

static void
check_released(struct live before)
{
	FUZZ_CHECK(mock_live_objects() == before.objects);
	FUZZ_CHECK(mock_heap_live() == before.heap);
	FUZZ_CHECK(mock_unacked_at_destroy() == 0);
}

/* an incoming request with the input, checked; returns how many allocations it made */
static struct rpma_conn_req *
incoming(struct rpma_peer *peer, const uint8_t *data, uint8_t len, int *mallocs)
{
	struct rpma_conn_req *req = NULL;
	struct rpma_conn_private_data pd = { (void *)data, (uint8_t)~len };
	int calls = CALLS(malloc);

	FUZZ_CHECK(conn_req_from_cm_event(peer, connect_request(data, len), NULL, &req) == 0);
	if (mallocs)
		*mallocs = CALLS(malloc) - calls;
	FUZZ_CHECK(req != NULL);
	FUZZ_CHECK(rpma_conn_req_get_private_data(req, &pd) == 0);
	check_copy(&pd, data, len);
	return req;
}

/* the request is refused: its event acknowledged, its id and the copy released */
static void
passive_delete(struct rpma_peer *peer, const uint8_t *data, uint8_t len, int *mallocs)
{
	struct live before = live_now();
	struct rpma_conn_req *req = incoming(peer, data, len, mallocs);

	FUZZ_CHECK(rpma_conn_req_delete(&req) == 0);
	FUZZ_CHECK(req == NULL);
	check_released(before);
}

/* the request is accepted: the connection keeps the copy, later events do not replace it */
static void
passive_connect(struct rpma_peer *peer, const uint8_t *data, uint8_t len)
{
	struct live before = live_now();
	struct rpma_conn_req *req = incoming(peer, data, len, NULL);
	struct rpma_conn *conn = NULL;
	struct rpma_conn_private_data pd;
	enum rpma_conn_event event;

	FUZZ_CHECK(rpma_conn_req_connect(&req, NULL, &conn) == 0);
	FUZZ_CHECK(req == NULL && conn != NULL);
	FUZZ_CHECK(rpma_conn_get_private_data(conn, &pd) == 0);
	check_copy(&pd, data, len);

	/* the passive side's ESTABLISHED carries nothing of its own */
	(void) mock_cm_event_push(RDMA_CM_EVENT_ESTABLISHED, NULL, NULL, 0);
	FUZZ_CHECK(rpma_conn_next_event(conn, &event) == 0);
	FUZZ_CHECK(event == RPMA_CONN_ESTABLISHED);
	FUZZ_CHECK(rpma_conn_get_private_data(conn, &pd) == 0);
	check_copy(&pd, data, len);

	FUZZ_CHECK(rpma_conn_disconnect(conn) == 0);
	FUZZ_CHECK(rpma_conn_delete(&conn) == 0);
	FUZZ_CHECK(conn == NULL);
	check_released(before);
}

/* the nth allocation of the request fails: nothing made, the event acknowledged */
static void
passive_nomem(struct rpma_peer *peer, const uint8_t *data, uint8_t len, int nth)
{
	struct live before = live_now();
	struct rpma_conn_req *req = NULL;

	MOCK_FAIL_NTH(malloc, nth, 0, 0);
	int ret = conn_req_from_cm_event(peer, connect_request(data, len), NULL, &req);
	mock_plans_clear();
	FUZZ_CHECK(ret == RPMA_E_NOMEM);
	FUZZ_CHECK(req == NULL);
	check_released(before);
}

/* the active side: the server's private data arrives with ESTABLISHED */
static void
active(struct rpma_peer *peer, const uint8_t *data, uint8_t len)
{
	struct live before = live_now();
	struct rpma_conn_req *req = NULL;
	struct rpma_conn *conn = NULL;
	struct rpma_conn_private_data pd;
	enum rpma_conn_event event;

	FUZZ_CHECK(rpma_conn_req_new(peer, "192.0.2.1", "7204", NULL, &req) == 0);
	FUZZ_CHECK(rpma_conn_req_get_private_data(req, &pd) == 0);
	FUZZ_CHECK(pd.ptr == NULL && pd.len == 0);
	FUZZ_CHECK(rpma_conn_req_connect(&req, NULL, &conn) == 0);

	(void) mock_cm_event_push(RDMA_CM_EVENT_ESTABLISHED, NULL, data, len);
	FUZZ_CHECK(rpma_conn_next_event(conn, &event) == 0);
	FUZZ_CHECK(event == RPMA_CONN_ESTABLISHED);
	FUZZ_CHECK(rpma_conn_get_private_data(conn, &pd) == 0);
	check_copy(&pd, data, len);

	FUZZ_CHECK(rpma_conn_disconnect(conn) == 0);
	FUZZ_CHECK(rpma_conn_delete(&conn) == 0);
	check_released(before);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t len = size > PDATA_MAX ? PDATA_MAX : (uint8_t)size;
	struct rpma_peer *peer = NULL;
	int mallocs = 0;

	(void) mock_setup(NULL);	/* fresh mocks; the library logs into mock_rec */
	FUZZ_CHECK(rpma_peer_new(mock_ibv_ctx(), &peer) == 0);
	struct ibv_sge flush_dst = {0};
	FUZZ_CHECK(peer_flush_dst_get(peer, &flush_dst) == 0 && flush_dst.addr != 0);
	peer_flush_dst_put(peer);

	passive_delete(peer, data, len, &mallocs);
	for (int nth = 1; nth <= mallocs; nth++)
		passive_nomem(peer, data, len, nth);
	passive_connect(peer, data, len);
	active(peer, data, len);

	FUZZ_CHECK(rpma_peer_delete(&peer) == 0);
	FUZZ_CHECK(mock_live_objects() == 0);
	FUZZ_CHECK(mock_heap_live() == 0);
	return 0;
}
