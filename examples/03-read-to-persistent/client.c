// SPDX-License-Identifier: BSD-3-Clause
/*
 * 03-read-to-persistent/client.c -- offer a message for the server to read
 * into its persistent memory; print what the server held before. The
 * client speaks first ("ready"), as iWARP wants of the side that connected.
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
	struct rpma_mr_local *src_mr, *ready_mr;
	struct rpma_conn *conn;
	struct ibv_wc wc;
	char ready[READY_LEN] = READY_MSG;
	struct rpma_conn_private_data pdata;
	struct descs_pdata pd;
	int ret, ret2;

	client_args_parse(argc, argv, "Hello, persistent memory!", &args);

	char *src = buffer_alloc(MSG_MAX);
	if (src == NULL)
		return EXIT_FAILURE;
	strcpy(src, args.message);

	ret = peer_open(args.addr, false, &peer);
	if (ret)
		goto err_free;
	/* the server reads from here */
	ret = rpma_mr_reg(peer, src, MSG_MAX, RPMA_MR_USAGE_READ_SRC, &src_mr);
	if (ret) {
		print_error("rpma_mr_reg()", ret);
		goto err_peer_delete;
	}
	ret = rpma_mr_reg(peer, ready, READY_LEN, RPMA_MR_USAGE_SEND, &ready_mr);
	if (ret) {
		print_error("rpma_mr_reg()", ret);
		goto err_mr_dereg;
	}
	ret = descs_pack(src_mr, NULL, &pd);
	if (ret)
		goto err_ready_dereg;

	pdata.ptr = &pd;
	pdata.len = sizeof(pd);
	ret = client_connect(peer, args.addr, args.port, NULL, &pdata, &conn);
	if (ret)
		goto err_ready_dereg;

	ret = rpma_conn_get_private_data(conn, &pdata);
	if (ret)
		print_error("rpma_conn_get_private_data()", ret);
	else
		print_untrusted("previous value", pdata.ptr, pdata.len);

	/* the server reads once it has this */
	ret2 = rpma_send(conn, ready_mr, 0, READY_LEN, RPMA_F_COMPLETION_ALWAYS, NULL);
	if (ret2)
		print_error("rpma_send()", ret2);
	else
		ret2 = conn_wait_for(conn, IBV_WC_SEND, &wc);
	ret = ret ? ret : ret2;
	/* the region must stay until the server has read it: it closes then */
	if (!ret2)
		ret2 = conn_wait_closed(conn);
	ret = ret ? ret : ret2;
	if (!ret)
		printf("the server read \"%s\" and closed the connection\n", args.message);
	ret2 = conn_close(&conn, false);
	ret = ret ? ret : ret2;

err_ready_dereg:
	ret2 = rpma_mr_dereg(&ready_mr);
	if (ret2)
		print_error("rpma_mr_dereg()", ret2);
	ret = ret ? ret : ret2;
err_mr_dereg:
	ret2 = rpma_mr_dereg(&src_mr);
	if (ret2)
		print_error("rpma_mr_dereg()", ret2);
	ret = ret ? ret : ret2;
err_peer_delete:
	ret2 = rpma_peer_delete(&peer);
	if (ret2)
		print_error("rpma_peer_delete()", ret2);
	ret = ret ? ret : ret2;
err_free:
	free(src);
	return ret ? EXIT_FAILURE : EXIT_SUCCESS;
}
