// SPDX-License-Identifier: BSD-3-Clause
/*
 * 10-send-with-imm/client.c -- send a message with immediate data.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

/* any 32 bits: the receiver gets them in its completion */
#define IMM 0x12345678u

int
main(int argc, char *argv[])
{
	struct client_args args;
	struct rpma_peer *peer;
	struct rpma_mr_local *mr;
	struct rpma_conn *conn;
	struct ibv_wc wc;
	int ret, ret2;

	client_args_parse(argc, argv, "Hello, here is a message with immediate data!", &args);

	char *buf = buffer_alloc(MSG_MAX);
	if (buf == NULL)
		return EXIT_FAILURE;
	strcpy(buf, args.message);

	ret = peer_open(args.addr, false, &peer);
	if (ret)
		goto err_free;
	ret = rpma_mr_reg(peer, buf, MSG_MAX, RPMA_MR_USAGE_SEND, &mr);
	if (ret) {
		print_error("rpma_mr_reg()", ret);
		goto err_peer_delete;
	}
	ret = client_connect(peer, args.addr, args.port, NULL, NULL, &conn);
	if (ret)
		goto err_mr_dereg;

	ret = rpma_send_with_imm(conn, mr, 0, strlen(args.message) + 1,
			RPMA_F_COMPLETION_ALWAYS, IMM, NULL);
	if (ret)
		print_error("rpma_send_with_imm()", ret);
	else
		ret = conn_wait_for(conn, IBV_WC_SEND, &wc);
	if (!ret)
		printf("sent \"%s\" with immediate data 0x%08x\n", args.message, IMM);

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
