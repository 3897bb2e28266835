// SPDX-License-Identifier: BSD-3-Clause
/*
 * 12-receive-completion-queue/client.c -- the ping-pong client of example
 * 08 with a separate receive CQ: pongs complete there, sends on the main CQ.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "msg.h"

/* the message buffer: one message goes out, one comes in */
#define SEND 0
#define RECV 1

#define RCQ_SIZE 4

/* one round: post the receive for the pong, send the ping, wait for both */
static int
ping(struct rpma_conn *conn, struct rpma_mr_local *mr, struct ping_msg *msgs, uint32_t seq)
{
	struct rpma_cq *rcq;
	struct ibv_wc wc;

	int ret = rpma_conn_get_rcq(conn, &rcq);
	if (ret) {
		print_error("rpma_conn_get_rcq()", ret);
		return ret;
	}
	ret = rpma_recv(conn, mr, RECV * sizeof(*msgs), sizeof(*msgs), NULL);
	if (ret) {
		print_error("rpma_recv()", ret);
		return ret;
	}
	msgs[SEND].op = MSG_PING;
	msgs[SEND].seq = seq;
	ret = rpma_send(conn, mr, SEND * sizeof(*msgs), sizeof(*msgs), RPMA_F_COMPLETION_ALWAYS,
			NULL);
	if (ret) {
		print_error("rpma_send()", ret);
		return ret;
	}
	/* the send completes on the main CQ, the receive on the receive CQ */
	ret = conn_wait_for(conn, IBV_WC_SEND, &wc);
	if (!ret)
		ret = cq_next_wc(rcq, &wc);
	if (ret)
		return ret;
	if (wc.opcode != IBV_WC_RECV) {
		fprintf(stderr, "unexpected completion on the receive CQ: %d\n", wc.opcode);
		return RPMA_E_UNKNOWN;
	}
	/* the server's bytes */
	if (wc.byte_len != sizeof(*msgs) || msgs[RECV].op != MSG_PONG ||
			msgs[RECV].seq != seq) {
		fprintf(stderr, "the server's answer to ping #%u is wrong\n", seq);
		return RPMA_E_INVAL;
	}
	print_untrusted("the server answers", msgs[RECV].text, sizeof(msgs[RECV].text));
	return 0;
}

static int
quit(struct rpma_conn *conn, struct rpma_mr_local *mr, struct ping_msg *msgs)
{
	struct ibv_wc wc;

	msgs[SEND].op = MSG_QUIT;
	int ret = rpma_send(conn, mr, SEND * sizeof(*msgs), sizeof(*msgs),
			RPMA_F_COMPLETION_ALWAYS, NULL);
	if (ret) {
		print_error("rpma_send()", ret);
		return ret;
	}
	return conn_wait_for(conn, IBV_WC_SEND, &wc);
}

int
main(int argc, char *argv[])
{
	struct client_args args;
	struct rpma_peer *peer;
	struct rpma_mr_local *mr;
	struct rpma_conn *conn;
	struct rpma_conn_cfg *cfg;
	int ret, ret2;

	client_args_parse(argc, argv, "ping", &args);

	ret = rpma_conn_cfg_new(&cfg);
	if (ret) {
		print_error("rpma_conn_cfg_new()", ret);
		return EXIT_FAILURE;
	}
	ret = rpma_conn_cfg_set_rcq_size(cfg, RCQ_SIZE);
	if (ret) {
		print_error("rpma_conn_cfg_set_rcq_size()", ret);
		goto err_cfg_delete;
	}

	struct ping_msg *msgs = buffer_alloc(2 * sizeof(*msgs));
	if (msgs == NULL) {
		ret = RPMA_E_NOMEM;
		goto err_cfg_delete;
	}
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
	ret = client_connect(peer, args.addr, args.port, cfg, NULL, &conn);
	if (ret)
		goto err_mr_dereg;

	for (uint32_t seq = 1; !ret && seq <= PING_ROUNDS; seq++) {
		printf("ping #%u: \"%s\"\n", seq, msgs[SEND].text);
		ret = ping(conn, mr, msgs, seq);
	}
	if (!ret)
		ret = quit(conn, mr, msgs);
	if (!ret)
		printf("sent quit\n");

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
err_cfg_delete:
	ret2 = rpma_conn_cfg_delete(&cfg);
	if (ret2)
		print_error("rpma_conn_cfg_delete()", ret2);
	ret = ret ? ret : ret2;
	return ret ? EXIT_FAILURE : EXIT_SUCCESS;
}
