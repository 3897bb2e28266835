// SPDX-License-Identifier: BSD-3-Clause
/*
 * probe_device.c -- the cases of rpma-probe that need an RDMA device:
 * regions, requests, connections, endpoints and shared RQs, on their
 * failure paths above all (who owns a handle after a failing call).
 */

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <librpma.h>

#include "probe.h"

/* a port nobody listens on, and the next for the endpoint (RPMA_TEST_PORT) */
static char port_nobody[8];
static char port_ep[8];
#define PORT_NOBODY	port_nobody
#define PORT_EP		port_ep

static void
probe_mr(struct rpma_peer *peer)
{
	static char buf[4096] __attribute__((aligned(4096)));
	struct rpma_mr_local *mr = NULL;
	size_t size = 0;

	OCASE("mr_reg(NULL ptr)", rpma_mr_reg(peer, NULL, 64, RPMA_MR_USAGE_READ_SRC, &mr), mr);
	OCASE("mr_reg(size 0)", rpma_mr_reg(peer, buf, 0, RPMA_MR_USAGE_READ_SRC, &mr), mr);
	OCASE("mr_reg(usage 0)", rpma_mr_reg(peer, buf, 64, 0, &mr), mr);
	OCASE("mr_reg(usage 1<<10)", rpma_mr_reg(peer, buf, 64, 1 << 10, &mr), mr);
	HCASE("mr_reg", rpma_mr_reg(peer, buf, sizeof(buf),
			RPMA_MR_USAGE_READ_SRC | RPMA_MR_USAGE_WRITE_DST, &mr), mr);
	CASE("mr_get_descriptor_size", rpma_mr_get_descriptor_size(mr, &size));
	printf("  size=%zu\n", size);

	HCASE("mr_dereg", rpma_mr_dereg(&mr), mr);
}

/*
 * A peer whose protection domain is busy (a region is still registered):
 * ibv_dealloc_pd() fails. librpma 1.2.0 frees the peer anyway and clears
 * the handle, against its documentation; ours keeps both (COMPATIBILITY.md).
 */
static void
probe_peer_busy(struct ibv_context *ctx)
{
	static char buf[4096] __attribute__((aligned(4096)));
	struct rpma_peer *peer = NULL;
	struct rpma_mr_local *mr = NULL;

	HCASE("peer_new (busy)", rpma_peer_new(ctx, &peer), peer);
	HCASE("mr_reg (busy)", rpma_mr_reg(peer, buf, sizeof(buf), RPMA_MR_USAGE_READ_SRC, &mr),
			mr);
	HCASE("peer_delete(region still registered)", rpma_peer_delete(&peer), peer);
	HCASE("mr_dereg (busy)", rpma_mr_dereg(&mr), mr);
	if (peer)
		HCASE("peer_delete (busy, after dereg)", rpma_peer_delete(&peer), peer);
}

/* a request to nobody: the failures of connect, and who owns the request */
static void
probe_req(struct rpma_peer *peer, const char *addr)
{
	struct rpma_conn_req *req = NULL;
	struct rpma_conn *conn = NULL;
	struct rpma_conn_private_data empty = { .ptr = "x", .len = 0 };
	enum rpma_conn_event event = RPMA_CONN_UNDEFINED;

	OCASE("conn_req_new(NULL addr)", rpma_conn_req_new(peer, NULL, PORT_NOBODY, NULL, &req),
			req);
	HCASE("conn_req_new", rpma_conn_req_new(peer, addr, PORT_NOBODY, NULL, &req), req);
	OCASE("conn_req_connect(pdata len 0): conn", rpma_conn_req_connect(&req, &empty, &conn),
			conn);
	printf("  req=%s\n", req ? "kept" : "NULL");
	if (req == NULL)
		HCASE("conn_req_new (again)", rpma_conn_req_new(peer, addr, PORT_NOBODY, NULL, &req),
				req);
	CASE("conn_req_connect(conn_ptr NULL)", rpma_conn_req_connect(&req, NULL, NULL));
	printf("  req=%s\n", req ? "kept" : "NULL");
	if (req == NULL)
		HCASE("conn_req_new (again)", rpma_conn_req_new(peer, addr, PORT_NOBODY, NULL, &req),
				req);
	HCASE("conn_req_delete", rpma_conn_req_delete(&req), req);

	HCASE("conn_req_new", rpma_conn_req_new(peer, addr, PORT_NOBODY, NULL, &req), req);
	struct rpma_conn_req *req_before = req;
	HCASE("conn_req_connect(nobody listens)", rpma_conn_req_connect(&req, NULL, &conn), conn);
	printf("  req=%s\n", probe_how(req_before, req));
	if (conn == NULL)
		return;
	CASE("conn_next_event", rpma_conn_next_event(conn, &event));
	printf("  event=%s\n", rpma_utils_conn_event_2str(event));

	/* nothing more to come, on non-blocking descriptors */
	struct rpma_cq *cq = NULL;
	int fd = -1;
	CASE("conn_get_event_fd", rpma_conn_get_event_fd(conn, &fd));
	(void) fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	CASE("conn_next_event(no event, non-blocking)", rpma_conn_next_event(conn, &event));
	CASE("conn_get_cq", rpma_conn_get_cq(conn, &cq));
	CASE("cq_get_fd", rpma_cq_get_fd(cq, &fd));
	(void) fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	CASE("cq_wait(no event, non-blocking)", rpma_cq_wait(cq));
	CASE("conn_wait(own channel)", rpma_conn_wait(conn, 0, &cq, NULL));
	CASE("conn_disconnect", rpma_conn_disconnect(conn));
	HCASE("conn_delete", rpma_conn_delete(&conn), conn);
}

static void
probe_ep(struct rpma_peer *peer, const char *addr)
{
	struct rpma_ep *ep = NULL;
	struct rpma_conn_req *req = NULL;
	int fd = -1;

	OCASE("ep_listen(NULL addr)", rpma_ep_listen(peer, NULL, PORT_EP, &ep), ep);
	HCASE("ep_listen", rpma_ep_listen(peer, addr, PORT_EP, &ep), ep);
	CASE("ep_get_fd", rpma_ep_get_fd(ep, &fd));
	(void) fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	OCASE("ep_next_conn_req(no request yet)", rpma_ep_next_conn_req(ep, NULL, &req), req);
	CASE("ep_next_conn_req(NULL req_ptr)", rpma_ep_next_conn_req(ep, NULL, NULL));
	HCASE("ep_shutdown", rpma_ep_shutdown(&ep), ep);
}

/* a shared RQ deleted while a request's QP still uses it */
static void
probe_srq(struct rpma_peer *peer, const char *addr)
{
	struct rpma_srq *srq = NULL;
	struct rpma_cq *rcq = NULL;
	struct rpma_conn_cfg *cfg = NULL;
	struct rpma_conn_req *req = NULL;

	OCASE("srq_new(NULL peer)", rpma_srq_new(NULL, NULL, &srq), srq);
	HCASE("srq_new", rpma_srq_new(peer, NULL, &srq), srq);
	CASE("srq_get_rcq", rpma_srq_get_rcq(srq, &rcq));
	printf("  rcq=%s\n", rcq ? "set" : "NULL");
	HCASE("srq_delete", rpma_srq_delete(&srq), srq);

	HCASE("srq_new", rpma_srq_new(peer, NULL, &srq), srq);
	(void) rpma_conn_cfg_new(&cfg);
	CASE("conn_cfg_set_srq", rpma_conn_cfg_set_srq(cfg, srq));
	HCASE("conn_req_new(with srq)", rpma_conn_req_new(peer, addr, PORT_NOBODY, cfg, &req),
			req);
	HCASE("conn_req_delete", rpma_conn_req_delete(&req), req);
	HCASE("srq_delete", rpma_srq_delete(&srq), srq);
	(void) rpma_conn_cfg_delete(&cfg);
}

void
probe_device(const char *addr)
{
	const char *port = getenv("RPMA_TEST_PORT");
	int first = port ? atoi(port) : 0;
	if (first <= 0 || first >= 65535) {
		fprintf(stderr, "rpma-probe: RPMA_TEST_PORT is not a port: the runner gives two\n");
		exit(2);
	}
	snprintf(port_nobody, sizeof(port_nobody), "%d", first);
	snprintf(port_ep, sizeof(port_ep), "%d", first + 1);
	struct ibv_context *ctx = NULL;
	struct rpma_peer *peer = NULL;

	HCASE("utils_get_ibv_context", rpma_utils_get_ibv_context(addr,
			RPMA_UTIL_IBV_CONTEXT_LOCAL, &ctx), ctx);
	HCASE("peer_new", rpma_peer_new(ctx, &peer), peer);
	probe_mr(peer);
	probe_req(peer, addr);
	probe_ep(peer, addr);
	probe_srq(peer, addr);
	HCASE("peer_delete", rpma_peer_delete(&peer), peer);
	probe_peer_busy(ctx);
}
