// SPDX-License-Identifier: BSD-3-Clause
/*
 * 06-multiple-connections/client.c -- one of several clients of the same
 * server: send a message, print the answer, disconnect.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "msg.h"

/* the message buffer: one message goes out, one comes in */
#define SEND 0
#define RECV 1

static int
talk(struct rpma_conn *conn, struct rpma_mr_local *mr, struct ping_msg *msgs)
{
	struct ibv_wc wc;

	int ret = rpma_recv(conn, mr, RECV * sizeof(*msgs), sizeof(*msgs), NULL);
	if (ret) {
		print_error("rpma_recv()", ret);
		return ret;
	}
	ret = rpma_send(conn, mr, SEND * sizeof(*msgs), sizeof(*msgs), RPMA_F_COMPLETION_ALWAYS,
			NULL);
	if (ret) {
		print_error("rpma_send()", ret);
		return ret;
	}
	ret = conn_wait_send_and_recv(conn, &wc);
	if (ret)
		return ret;
	if (wc.byte_len != sizeof(*msgs) || msgs[RECV].op != MSG_PONG) {
		fprintf(stderr, "the server's answer is malformed\n");
		return RPMA_E_INVAL;
	}
	print_untrusted("the server answers", msgs[RECV].text, sizeof(msgs[RECV].text));
	return 0;
}

int
main(int argc, char *argv[])
{
	struct client_args args;
	struct rpma_peer *peer;
	struct rpma_mr_local *mr;
	struct rpma_conn *conn;
	int ret, ret2;

	client_args_parse(argc, argv, "Hello server!", &args);

	struct ping_msg *msgs = buffer_alloc(2 * sizeof(*msgs));
	if (msgs == NULL)
		return EXIT_FAILURE;
	msgs[SEND].op = MSG_PING;
	msgs[SEND].seq = 1;
	snprintf(msgs[SEND].text, sizeof(msgs[SEND].text), "%s", args.message);

	ret = peer_open(args.addr, false, &peer);
	if (ret)
		goto err_free;
	ret = rpma_mr_reg(peer, msgs, 2 * sizeof(*msgs), RPMA_MR_USAGE_SEND | RPMA_MR_USAGE_RECV,
			&mr);
	if (ret) {
		print_error("rpma_mr_reg()", ret);
		goto err_peer_delete;
	}
	ret = client_connect(peer, args.addr, args.port, NULL, NULL, &conn);
	if (ret)
		goto err_mr_dereg;
	printf("sending \"%s\"\n", msgs[SEND].text);
	ret = talk(conn, mr, msgs);

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
	free(msgs);
	return ret ? EXIT_FAILURE : EXIT_SUCCESS;
}
