// SPDX-License-Identifier: BSD-3-Clause
/*
 * 03-read-to-persistent/server.c -- read the client's message straight
 * into persistent memory with rpma_read() and persist it there.
 *
 * The server is the one reading here: its persistent memory is the read's
 * destination. It tells the client what the memory held before (the
 * message of an earlier run) in the private data, and reads once the
 * client says it is ready: on iWARP the side that accepted may not act
 * before the other's first message.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "mem.h"

/* once the client is ready, read its message into mem.data and persist it */
static int
read_and_persist(struct rpma_conn *conn, struct rpma_mr_local *dst_mr,
		struct rpma_mr_remote *src_mr, const struct server_mem *mem)
{
	struct ibv_wc wc;

	int ret = remote_size_check(src_mr, MSG_MAX);
	if (ret)
		return ret;
	ret = conn_wait_for(conn, IBV_WC_RECV, &wc);
	if (ret)
		return ret;
	ret = rpma_read(conn, dst_mr, 0, src_mr, 0, MSG_MAX, RPMA_F_COMPLETION_ALWAYS, NULL);
	if (ret) {
		print_error("rpma_read()", ret);
		return ret;
	}
	ret = conn_wait_for(conn, IBV_WC_RDMA_READ, &wc);
	if (ret)
		return ret;

	/* the read put the bytes into the memory, persisting them is the CPU's job */
	mem_persist(mem, mem->data, MSG_MAX);
	print_untrusted(mem->mapped ? "new value (read and persisted)" :
			"new value (read into DRAM)", mem->data, MSG_MAX);
	return 0;
}

int
main(int argc, char *argv[])
{
	struct server_args args;
	struct server_mem mem;
	struct rpma_peer *peer;
	struct rpma_ep *ep;
	struct rpma_mr_local *dst_mr, *ready_mr;
	struct rpma_mr_remote *src_mr;
	struct rpma_conn_req *req;
	struct rpma_conn *conn;
	struct rpma_conn_private_data pdata;
	char previous[MSG_MAX];
	char ready[READY_LEN];
	int ret, ret2;

	server_args_parse(argc, argv, ARGS_PMEM, &args);
	if (mem_open(args.pmem_path, &mem))
		return EXIT_FAILURE;
	memcpy(previous, mem.data, MSG_MAX);
	previous[MSG_MAX - 1] = '\0';
	print_untrusted("previous value", previous, MSG_MAX);

	ret = peer_open(args.addr, true, &peer);
	if (ret)
		goto err_mem_close;
	ret = rpma_mr_reg(peer, mem.data, MEM_DATA_SIZE, RPMA_MR_USAGE_READ_DST, &dst_mr);
	if (ret) {
		mem_reg_failed(&mem, "rpma_mr_reg()", ret);
		goto err_peer_delete;
	}
	ret = rpma_mr_reg(peer, ready, READY_LEN, RPMA_MR_USAGE_RECV, &ready_mr);
	if (ret) {
		print_error("rpma_mr_reg()", ret);
		goto err_mr_dereg;
	}
	ret = server_listen(peer, args.addr, args.port, &ep);
	if (ret)
		goto err_ready_dereg;

	ret = rpma_ep_next_conn_req(ep, NULL, &req);
	if (ret) {
		print_error("rpma_ep_next_conn_req()", ret);
		goto err_ep_shutdown;
	}
	/* the client's region descriptor comes with its request */
	ret = rpma_conn_req_get_private_data(req, &pdata);
	if (ret)
		print_error("rpma_conn_req_get_private_data()", ret);
	else
		ret = descs_unpack_pdata(&pdata, &src_mr, NULL);
	if (ret) {
		(void) rpma_conn_req_delete(&req);
		goto err_ep_shutdown;
	}
	/* for the client's "ready", posted before the connection can carry it */
	ret = rpma_conn_req_recv(req, ready_mr, 0, READY_LEN, NULL);
	if (ret) {
		print_error("rpma_conn_req_recv()", ret);
		(void) rpma_conn_req_delete(&req);
		goto err_remote_delete;
	}

	pdata.ptr = previous;
	pdata.len = (uint8_t)(strlen(previous) + 1);
	ret = conn_establish(&req, &pdata, &conn);
	if (ret)
		goto err_remote_delete;

	ret = read_and_persist(conn, dst_mr, src_mr, &mem);
	/* the client waits for the server to close */
	ret2 = conn_close(&conn, ret == 0);
	ret = ret ? ret : ret2;

err_remote_delete:
	ret2 = rpma_mr_remote_delete(&src_mr);
	if (ret2)
		print_error("rpma_mr_remote_delete()", ret2);
	ret = ret ? ret : ret2;
err_ep_shutdown:
	ret2 = rpma_ep_shutdown(&ep);
	if (ret2)
		print_error("rpma_ep_shutdown()", ret2);
	ret = ret ? ret : ret2;
err_ready_dereg:
	ret2 = rpma_mr_dereg(&ready_mr);
	if (ret2)
		print_error("rpma_mr_dereg()", ret2);
	ret = ret ? ret : ret2;
err_mr_dereg:
	ret2 = rpma_mr_dereg(&dst_mr);
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
