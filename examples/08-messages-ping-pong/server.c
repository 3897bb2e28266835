// SPDX-License-Identifier: BSD-3-Clause
/*
 * 08-messages-ping-pong/server.c -- answer each ping with a pong, using
 * rpma_recv() and rpma_send(), until the client says quit.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "msg.h"

/* the message buffer: one message comes in, one goes out */
#define RECV 0
#define SEND 1

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

/*
 * The next message's receive completion. The completions of the pongs sent
 * before it are taken on the way, whenever they come: a pong's completion
 * needs the client's acknowledgement, and the client may close as soon as it
 * has the last pong and has said quit. Should that last acknowledgement be
 * lost, the pong is sent again to a client that no longer answers, and its
 * completion never comes on soft-RoCE (doc/FAILURES.md, "The last message's ACK").
 * The next message itself tells that the client has the pong.
 */
static int
next_message(struct rpma_conn *conn, struct ibv_wc *wc, unsigned *pongs_pending)
{
	for (;;) {
		int ret = conn_next_wc(conn, wc);
		if (ret)
			return ret;
		if (wc->opcode == IBV_WC_RECV)
			return 0;
		if (wc->opcode != IBV_WC_SEND || *pongs_pending == 0) {
			fprintf(stderr, "unexpected completion: opcode %d\n", wc->opcode);
			return RPMA_E_UNKNOWN;
		}
		(*pongs_pending)--;
	}
}

static int
serve(struct rpma_conn *conn, struct rpma_mr_local *mr, struct ping_msg *msgs)
{
	struct ibv_wc wc;
	unsigned pongs_pending = 0;

	/* the first ping lands in the receive posted before accepting */
	int ret = next_message(conn, &wc, &pongs_pending);
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
		/*
		 * The previous pong's send may not have completed yet, but the
		 * client has it (it sent this ping after it): should that pong go
		 * out again, the client takes it for a duplicate and drops its bytes.
		 */
		msgs[SEND].op = MSG_PONG;
		msgs[SEND].seq = seq;
		snprintf(msgs[SEND].text, sizeof(msgs[SEND].text), "pong #%u", seq);
		ret = rpma_send(conn, mr, SEND * sizeof(*msgs), sizeof(*msgs),
				RPMA_F_COMPLETION_ALWAYS, NULL);
		if (ret) {
			print_error("rpma_send()", ret);
			break;
		}
		pongs_pending++;
		ret = next_message(conn, &wc, &pongs_pending);
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
	int ret, ret2;

	server_args_parse(argc, argv, 0, &args);

	struct ping_msg *msgs = buffer_alloc(2 * sizeof(*msgs));
	if (msgs == NULL)
		return EXIT_FAILURE;
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

	ret = rpma_ep_next_conn_req(ep, NULL, &req);
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
	return ret ? EXIT_FAILURE : EXIT_SUCCESS;
}
