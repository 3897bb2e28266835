// SPDX-License-Identifier: BSD-3-Clause
/*
 * 09-flush-to-persistent-gpspm/server.c -- persistence the general-purpose
 * way: the client writes, then asks in a message to persist a range; the
 * server persists it with libpmem2 and answers.
 *
 * This works on any platform, with or without direct write to pmem, since
 * the CPU that persists is the server's own. The request's offset and
 * length come from the peer, so they are checked against the region.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "common.h"
#include "mem.h"
#include "msg.h"

struct msgs {
	struct flush_req req;
	struct flush_resp resp;
};

/* 0 when [offset, offset + length) lies inside the region, written to avoid overflow */
static int
range_check(const struct flush_req *req)
{
	if (req->length == 0 || req->length > MEM_DATA_SIZE ||
			req->offset > MEM_DATA_SIZE - req->length)
		return EINVAL;
	return 0;
}

/* take one flush request, persist the range and answer */
static int
serve(struct rpma_conn *conn, struct rpma_mr_local *msg_mr, struct msgs *m,
		const struct server_mem *mem)
{
	struct ibv_wc wc;

	int ret = conn_wait_for(conn, IBV_WC_RECV, &wc);
	if (ret)
		return ret;
	if (wc.byte_len != sizeof(m->req)) {
		fprintf(stderr, "the client sent a malformed request\n");
		m->resp.status = EPROTO;
	} else {
		m->resp.status = range_check(&m->req);
	}

	if (m->resp.status == 0) {
		/* the client's write came before its request on the same connection */
		mem_persist(mem, mem->data + m->req.offset, m->req.length);
		printf("%s %llu bytes at offset %llu on request\n",
				mem->mapped ? "persisted" : "(DRAM: nothing to persist)",
				(unsigned long long)m->req.length,
				(unsigned long long)m->req.offset);
		print_untrusted("new value", mem->data, MSG_MAX);
	} else {
		fprintf(stderr, "refused to persist: the range is outside the region\n");
	}

	/*
	 * No completion asked for: the answer completes when the client's
	 * acknowledgement comes, and the client closes as soon as it has the
	 * answer. Should that last acknowledgement be lost, the answer is sent
	 * again to a client that no longer replies, and on soft-RoCE its
	 * completion never comes (doc/FAILURES.md, "The last message's ACK").
	 * The client's CLOSED, which main() waits for, ends the exchange.
	 */
	ret = rpma_send(conn, msg_mr, sizeof(m->req), sizeof(m->resp),
			RPMA_F_COMPLETION_ON_ERROR, NULL);
	if (ret)
		print_error("rpma_send()", ret);
	return ret;
}

int
main(int argc, char *argv[])
{
	struct server_args args;
	struct server_mem mem;
	struct rpma_peer *peer;
	struct rpma_ep *ep;
	struct rpma_mr_local *mr, *msg_mr;
	struct rpma_conn_req *req;
	struct rpma_conn *conn;
	struct descs_pdata pd;
	int ret, ret2;

	server_args_parse(argc, argv, ARGS_PMEM, &args);
	struct msgs *m = buffer_alloc(sizeof(*m));
	if (m == NULL)
		return EXIT_FAILURE;
	if (mem_open(args.pmem_path, &mem)) {
		free(m);
		return EXIT_FAILURE;
	}
	print_untrusted("previous value", mem.data, MSG_MAX);

	ret = peer_open(args.addr, true, &peer);
	if (ret)
		goto err_mem_close;
	ret = rpma_mr_reg(peer, mem.data, MEM_DATA_SIZE,
			RPMA_MR_USAGE_READ_SRC | RPMA_MR_USAGE_WRITE_DST, &mr);
	if (ret) {
		mem_reg_failed(&mem, "rpma_mr_reg()", ret);
		goto err_peer_delete;
	}
	ret = rpma_mr_reg(peer, m, sizeof(*m), RPMA_MR_USAGE_SEND | RPMA_MR_USAGE_RECV, &msg_mr);
	if (ret) {
		print_error("rpma_mr_reg()", ret);
		goto err_mr_dereg;
	}
	ret = descs_pack(mr, NULL, &pd);
	if (ret)
		goto err_msg_mr_dereg;
	ret = server_listen(peer, args.addr, args.port, &ep);
	if (ret)
		goto err_msg_mr_dereg;

	ret = rpma_ep_next_conn_req(ep, NULL, &req);
	if (ret) {
		print_error("rpma_ep_next_conn_req()", ret);
		goto err_ep_shutdown;
	}
	ret = rpma_conn_req_recv(req, msg_mr, 0, sizeof(m->req), NULL);
	if (ret) {
		print_error("rpma_conn_req_recv()", ret);
		(void) rpma_conn_req_delete(&req);
		goto err_ep_shutdown;
	}
	struct rpma_conn_private_data pdata = {&pd, sizeof(pd)};
	ret = conn_establish(&req, &pdata, &conn);
	if (ret)
		goto err_ep_shutdown;

	ret = serve(conn, msg_mr, m, &mem);
	if (!ret)
		ret = conn_wait_closed(conn);
	ret2 = conn_close(&conn, false);
	ret = ret ? ret : ret2;

err_ep_shutdown:
	ret2 = rpma_ep_shutdown(&ep);
	if (ret2)
		print_error("rpma_ep_shutdown()", ret2);
	ret = ret ? ret : ret2;
err_msg_mr_dereg:
	ret2 = rpma_mr_dereg(&msg_mr);
	if (ret2)
		print_error("rpma_mr_dereg()", ret2);
	ret = ret ? ret : ret2;
err_mr_dereg:
	ret2 = rpma_mr_dereg(&mr);
	if (ret2)
		print_error("rpma_mr_dereg()", ret2);
	ret = ret ? ret : ret2;
err_peer_delete:
	ret2 = rpma_peer_delete(&peer);
	if (ret2)
		print_error("rpma_peer_delete()", ret2);
	ret = ret ? ret : ret2;
err_mem_close:
	mem_close(&mem);
	free(m);
	return ret ? EXIT_FAILURE : EXIT_SUCCESS;
}
