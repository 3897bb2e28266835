// SPDX-License-Identifier: BSD-3-Clause
/*
 * 14-shared-completion-channel/client.c -- the ping-pong client of example
 * 12 (sends on the main CQ, pongs on a receive CQ) with one completion
 * channel for both CQs: rpma_conn_wait() sleeps until either has a
 * completion and says which one.
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

/*
 * Sleeps on the shared channel until a CQ of conn has a completion, takes
 * it and tells which CQ it came from. rpma_cq_wait() would refuse here
 * (RPMA_E_SHARED_CHANNEL): the channel belongs to the connection.
 */
static int
next_wc(struct rpma_conn *conn, struct ibv_wc *wc, bool *from_rcq)
{
	struct rpma_cq *cq;
	int ret = rpma_conn_wait(conn, 0, &cq, from_rcq);
	if (ret) {
		print_error("rpma_conn_wait()", ret);
		return ret;
	}
	/* the channel said this CQ has something; a later completion may
	 * already be in the other one too, so poll only the one named */
	ret = rpma_cq_get_wc(cq, 1, wc, NULL);
	if (ret == RPMA_E_NO_COMPLETION)
		return next_wc(conn, wc, from_rcq);
	if (ret) {
		print_error("rpma_cq_get_wc()", ret);
		return ret;
	}
	if (wc->status != IBV_WC_SUCCESS) {
		fprintf(stderr, "an operation failed: %s\n", ibv_wc_status_str(wc->status));
		return RPMA_E_UNKNOWN;
	}
	return 0;
}

/* one round: the send's completion and the pong's, in whatever order */
static int
ping(struct rpma_conn *conn, struct rpma_mr_local *mr, struct ping_msg *msgs, uint32_t seq)
{
	int ret = rpma_recv(conn, mr, RECV * sizeof(*msgs), sizeof(*msgs), NULL);
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
	bool sent = false, received = false;
	while (!ret && !(sent && received)) {
		struct ibv_wc wc;
		bool from_rcq;
		ret = next_wc(conn, &wc, &from_rcq);
		if (ret)
			break;
		if (from_rcq && wc.opcode == IBV_WC_RECV) {
			received = true;
		} else if (!from_rcq && wc.opcode == IBV_WC_SEND) {
			sent = true;
		} else {
			fprintf(stderr, "unexpected completion: opcode %d on the %s CQ\n",
					wc.opcode, from_rcq ? "receive" : "main");
			ret = RPMA_E_UNKNOWN;
		}
	}
	if (ret)
		return ret;
	printf("ping #%u: the send completed on the main CQ, the pong on the receive CQ\n",
			seq);
	/* the server's bytes */
	if (msgs[RECV].op != MSG_PONG || msgs[RECV].seq != seq) {
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
	bool from_rcq;

	msgs[SEND].op = MSG_QUIT;
	int ret = rpma_send(conn, mr, SEND * sizeof(*msgs), sizeof(*msgs),
			RPMA_F_COMPLETION_ALWAYS, NULL);
	if (ret) {
		print_error("rpma_send()", ret);
		return ret;
	}
	return next_wc(conn, &wc, &from_rcq);
}

/* a connection configuration: a receive CQ, one channel for both CQs */
static int
cfg_make(struct rpma_conn_cfg **cfg_ptr)
{
	int ret = rpma_conn_cfg_new(cfg_ptr);
	if (ret) {
		print_error("rpma_conn_cfg_new()", ret);
		return ret;
	}
	ret = rpma_conn_cfg_set_rcq_size(*cfg_ptr, RCQ_SIZE);
	if (ret) {
		print_error("rpma_conn_cfg_set_rcq_size()", ret);
	} else if ((ret = rpma_conn_cfg_set_compl_channel(*cfg_ptr, true)) != 0) {
		print_error("rpma_conn_cfg_set_compl_channel()", ret);
	}
	if (ret)
		(void) rpma_conn_cfg_delete(cfg_ptr);
	return ret;
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

	if (cfg_make(&cfg))
		return EXIT_FAILURE;

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
