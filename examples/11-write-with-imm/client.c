// SPDX-License-Identifier: BSD-3-Clause
/*
 * 11-write-with-imm/client.c -- write a message into the server's memory
 * with rpma_write_with_imm(); the immediate data tells the server its length.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

int
main(int argc, char *argv[])
{
	struct client_args args;
	struct rpma_peer *peer;
	struct rpma_mr_local *mr;
	struct rpma_mr_remote *remote;
	struct rpma_conn *conn;
	struct ibv_wc wc;
	int ret, ret2;

	client_args_parse(argc, argv, "Hello, this write comes with immediate data!", &args);

	char *buf = buffer_alloc(MSG_MAX);
	if (buf == NULL)
		return EXIT_FAILURE;
	strcpy(buf, args.message);
	uint32_t len = (uint32_t)strlen(args.message) + 1;

	ret = peer_open(args.addr, false, &peer);
	if (ret)
		goto err_free;
	ret = rpma_mr_reg(peer, buf, MSG_MAX, RPMA_MR_USAGE_WRITE_SRC, &mr);
	if (ret) {
		print_error("rpma_mr_reg()", ret);
		goto err_peer_delete;
	}
	ret = client_connect(peer, args.addr, args.port, NULL, NULL, &conn);
	if (ret)
		goto err_mr_dereg;
	ret = descs_unpack(conn, &remote, NULL);
	if (ret)
		goto err_conn_close;

	ret = remote_size_check(remote, MSG_MAX);
	if (!ret) {
		ret = rpma_write_with_imm(conn, remote, 0, mr, 0, len, RPMA_F_COMPLETION_ALWAYS,
				len, NULL);
		if (ret)
			print_error("rpma_write_with_imm()", ret);
	}
	if (!ret)
		ret = conn_wait_for(conn, IBV_WC_RDMA_WRITE, &wc);
	if (!ret)
		printf("wrote \"%s\" with immediate data %u (its length)\n", args.message, len);

	ret2 = rpma_mr_remote_delete(&remote);
	if (ret2)
		print_error("rpma_mr_remote_delete()", ret2);
	ret = ret ? ret : ret2;
err_conn_close:
	ret2 = conn_close(&conn, ret == 0);
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
err_free:
	free(buf);
	return ret ? EXIT_FAILURE : EXIT_SUCCESS;
}
