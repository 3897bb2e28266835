// SPDX-License-Identifier: BSD-3-Clause
/*
 * 11-write-with-imm/server.c -- learn that a write has arrived, and how
 * long it is, from its immediate data.
 *
 * A plain RDMA write is silent on this side. A write with immediate data
 * consumes a posted receive and completes it with the 32 bits, so the
 * server is woken up exactly when the data is in its memory.
 */

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>

#include "common.h"
#include "mem.h"

/* wait for the write's notice and print what it wrote */
static int
receive(struct rpma_conn *conn, const struct server_mem *mem)
{
	struct ibv_wc wc;

	int ret = conn_wait_for(conn, IBV_WC_RECV_RDMA_WITH_IMM, &wc);
	if (ret)
		return ret;
	/* the client's number: check it before using it as a length */
	uint32_t len = ntohl(wc.imm_data);
	printf("immediate data: %u (the length written)\n", len);
	if (len == 0 || len > MSG_MAX) {
		fprintf(stderr, "the length is out of range (1..%d)\n", MSG_MAX);
		return RPMA_E_INVAL;
	}
	mem_persist(mem, mem->data, len);
	print_untrusted("the client wrote", mem->data, len);
	return 0;
}

int
main(int argc, char *argv[])
{
	struct server_args args;
	struct server_mem mem;
	struct rpma_peer *peer;
	struct rpma_ep *ep;
	struct rpma_mr_local *mr;
	struct rpma_conn_req *req;
	struct rpma_conn *conn;
	struct descs_pdata pd;
	int ret, ret2;

	server_args_parse(argc, argv, ARGS_PMEM, &args);
	if (mem_open(args.pmem_path, &mem))
		return EXIT_FAILURE;

	ret = peer_open(args.addr, true, &peer);
	if (ret)
		goto err_mem_close;
	ret = rpma_mr_reg(peer, mem.data, MEM_DATA_SIZE,
			RPMA_MR_USAGE_WRITE_DST | RPMA_MR_USAGE_RECV, &mr);
	if (ret) {
		mem_reg_failed(&mem, "rpma_mr_reg()", ret);
		goto err_peer_delete;
	}
	ret = descs_pack(mr, NULL, &pd);
	if (ret)
		goto err_mr_dereg;
	ret = server_listen(peer, args.addr, args.port, &ep);
	if (ret)
		goto err_mr_dereg;

	ret = rpma_ep_next_conn_req(ep, NULL, &req);
	if (ret) {
		print_error("rpma_ep_next_conn_req()", ret);
		goto err_ep_shutdown;
	}
	/* the write with immediate data takes a receive but puts nothing in it */
	ret = rpma_conn_req_recv(req, mr, 0, 0, NULL);
	if (ret) {
		print_error("rpma_conn_req_recv()", ret);
		(void) rpma_conn_req_delete(&req);
		goto err_ep_shutdown;
	}
	struct rpma_conn_private_data pdata = {&pd, sizeof(pd)};
	ret = conn_establish(&req, &pdata, &conn);
	if (ret)
		goto err_ep_shutdown;

	ret = receive(conn, &mem);
	if (!ret)
		ret = conn_wait_closed(conn);
	ret2 = conn_close(&conn, false);
	ret = ret ? ret : ret2;

err_ep_shutdown:
	ret2 = rpma_ep_shutdown(&ep);
	if (ret2)
		print_error("rpma_ep_shutdown()", ret2);
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
	return ret ? EXIT_FAILURE : EXIT_SUCCESS;
}
