// SPDX-License-Identifier: BSD-3-Clause
/*
 * 12-receive-completion-queue/server.c -- the ping-pong of example 08 with
 * a separate receive completion queue: receives complete on the receive
 * CQ (rpma_conn_get_rcq()), everything else on the main CQ.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "msg.h"

/* the message buffer: one message comes in, one goes out */
#define RECV 0
#define SEND 1

#define RCQ_SIZE 4

/* Check what arrived: the bytes are the client's. */
static int
ping_check(const struct ibv_wc *wc, const struct ping_msg *ping)
{
	if (wc->byte_len != sizeof(*ping) || (ping->op != MSG_PING && ping->op != MSG_QUIT)) {
		fprintf(stderr, "the client sent a malformed message\n");
		return RPMA_E_INVAL;
	}
	return 0;
}

/* the next completion of the receive CQ: only receives come there */
static int
rcq_wait_recv(struct rpma_cq *rcq, struct ibv_wc *wc)
{
	int ret = cq_next_wc(rcq, wc);
	if (!ret && wc->opcode != IBV_WC_RECV) {
		fprintf(stderr, "unexpected completion on the receive CQ: %d\n", wc->opcode);
		ret = RPMA_E_UNKNOWN;
	}
	return ret;
}

static int
serve(struct rpma_conn *conn, struct rpma_mr_local *mr, struct ping_msg *msgs)
{
	struct rpma_cq *rcq;
	struct ibv_wc wc, send_wc;

	int ret = rpma_conn_get_rcq(conn, &rcq);
	if (ret) {
		print_error("rpma_conn_get_rcq()", ret);
		return ret;
	}
	/* the first ping lands in the receive posted before accepting */
	ret = rcq_wait_recv(rcq, &wc);
	while (!ret && !(ret = ping_check(&wc, &msgs[RECV])) && msgs[RECV].op == MSG_PING) {
		uint32_t seq = msgs[RECV].seq;
		char label[32];
		snprintf(label, sizeof(label), "ping #%u", seq);
		print_untrusted(label, msgs[RECV].text, sizeof(msgs[RECV].text));

		/* a receive for the next message before the pong lets the client send it */
		ret = rpma_recv(conn, mr, RECV * sizeof(*msgs), sizeof(*msgs), NULL);
		if (ret) {
			print_error("rpma_recv()", ret);
			break;
		}
		msgs[SEND].op = MSG_PONG;
		msgs[SEND].seq = seq;
		snprintf(msgs[SEND].text, sizeof(msgs[SEND].text), "pong #%u", seq);
		ret = rpma_send(conn, mr, SEND * sizeof(*msgs), sizeof(*msgs),
				RPMA_F_COMPLETION_ALWAYS, NULL);
		if (ret) {
			print_error("rpma_send()", ret);
			break;
		}
		/*
		 * Two queues, so no guessing which completion comes first. The
		 * next message first: after the quit the client closes, and the
		 * last pong's completion, whose acknowledgement may be lost, would
		 * never come (doc/FAILURES.md, "The last message's ACK").
		 */
		ret = rcq_wait_recv(rcq, &wc);
		if (!ret && msgs[RECV].op != MSG_QUIT)
			ret = conn_wait_for(conn, IBV_WC_SEND, &send_wc);
	}
	if (!ret)
		printf("the client said quit\n");
	return ret;
}

int
main(int argc, char *argv[])
{
	struct server_args args;
	struct rpma_peer *peer;
	struct rpma_ep *ep;
	struct rpma_mr_local *mr;
	struct rpma_conn_req *req;
	struct rpma_conn *conn;
	struct rpma_conn_cfg *cfg;
	int ret, ret2;

	server_args_parse(argc, argv, 0, &args);

	/* a receive CQ of RCQ_SIZE entries next to the main CQ */
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
	ret = peer_open(args.addr, true, &peer);
	if (ret)
		goto err_free;
	ret = rpma_mr_reg(peer, msgs, 2 * sizeof(*msgs), RPMA_MR_USAGE_SEND | RPMA_MR_USAGE_RECV,
			&mr);
	if (ret) {
		print_error("rpma_mr_reg()", ret);
		goto err_peer_delete;
	}
	ret = server_listen(peer, args.addr, args.port, &ep);
	if (ret)
		goto err_mr_dereg;

	ret = rpma_ep_next_conn_req(ep, cfg, &req);
	if (ret) {
		print_error("rpma_ep_next_conn_req()", ret);
		goto err_ep_shutdown;
	}
	/* a message that finds no receive posted is lost: post before accepting */
	ret = rpma_conn_req_recv(req, mr, RECV * sizeof(*msgs), sizeof(*msgs), NULL);
	if (ret) {
		print_error("rpma_conn_req_recv()", ret);
		(void) rpma_conn_req_delete(&req);
		goto err_ep_shutdown;
	}
	ret = conn_establish(&req, NULL, &conn);
	if (ret)
		goto err_ep_shutdown;

	ret = serve(conn, mr, msgs);
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
err_free:
	free(msgs);
err_cfg_delete:
	ret2 = rpma_conn_cfg_delete(&cfg);
	if (ret2)
		print_error("rpma_conn_cfg_delete()", ret2);
	ret = ret ? ret : ret2;
	return ret ? EXIT_FAILURE : EXIT_SUCCESS;
}
