// SPDX-License-Identifier: BSD-3-Clause
/*
 * 02-read-to-volatile/client.c -- read the server's message into local
 * DRAM with rpma_read() and print it.
 */

#include <stdio.h>
#include <stdlib.h>

#include "common.h"

int
main(int argc, char *argv[])
{
	struct client_args args;
	struct rpma_peer *peer;
	struct rpma_mr_local *dst_mr;
	struct rpma_mr_remote *src_mr;
	struct rpma_conn *conn;
	struct ibv_wc wc;
	int ret, ret2;

	client_args_parse(argc, argv, NULL, &args);

	char *dst = buffer_alloc(MSG_MAX);
	if (dst == NULL)
		return EXIT_FAILURE;
	ret = peer_open(args.addr, false, &peer);
	if (ret)
		goto err_free;

	/* the read lands here */
	ret = rpma_mr_reg(peer, dst, MSG_MAX, RPMA_MR_USAGE_READ_DST, &dst_mr);
	if (ret) {
		print_error("rpma_mr_reg()", ret);
		goto err_peer_delete;
	}

	ret = client_connect(peer, args.addr, args.port, NULL, NULL, &conn);
	if (ret)
		goto err_mr_dereg;

	ret = descs_unpack(conn, &src_mr, NULL);
	if (ret)
		goto err_conn_close;
	ret = remote_size_check(src_mr, MSG_MAX);
	if (ret)
		goto err_remote_delete;

	ret = rpma_read(conn, dst_mr, 0, src_mr, 0, MSG_MAX, RPMA_F_COMPLETION_ALWAYS, NULL);
	if (ret) {
		print_error("rpma_read()", ret);
		goto err_remote_delete;
	}
	/* the data is in dst once the read's completion has come */
	ret = conn_wait_for(conn, IBV_WC_RDMA_READ, &wc);
	if (!ret)
		print_untrusted("read from the server", dst, MSG_MAX);

err_remote_delete:
	ret2 = rpma_mr_remote_delete(&src_mr);
	if (ret2)
		print_error("rpma_mr_remote_delete()", ret2);
	ret = ret ? ret : ret2;
err_conn_close:
	ret2 = conn_close(&conn, ret == 0);
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
err_free:
	free(dst);
	return ret ? EXIT_FAILURE : EXIT_SUCCESS;
}
