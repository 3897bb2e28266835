// SPDX-License-Identifier: BSD-3-Clause
/*
 * 13-messages-ping-pong-with-srq/server.c -- the ping-pong of example 08,
 * received through a shared receive queue (SRQ).
 *
 * Receive buffers go to the SRQ (rpma_srq_recv()), not to a connection,
 * and their completions come on the SRQ's receive CQ; every connection
 * made with a configuration naming the SRQ draws from the same buffers,
 * so a server with many connections needs buffers for the busy ones only.
 * The completion's qp_num tells which connection a message came on.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "msg.h"

/* the message buffer: one message comes in, one goes out */
#define RECV 0
#define SEND 1

#define SRQ_SIZE 4

struct server {
	struct rpma_peer *peer;
	struct rpma_srq *srq;
	struct rpma_cq *srq_rcq;
	struct rpma_conn_cfg *cfg;
	struct rpma_mr_local *mr;
	struct ping_msg *msgs;
};

/* the next receive completion of the SRQ's receive CQ, checked */
static int
srq_wait_ping(struct server *s, struct ibv_wc *wc)
{
	int ret = cq_next_wc(s->srq_rcq, wc);
	if (ret)
		return ret;
	/* the bytes are the client's */
	const struct ping_msg *ping = &s->msgs[RECV];
	if (wc->opcode != IBV_WC_RECV || wc->byte_len != sizeof(*ping) ||
			(ping->op != MSG_PING && ping->op != MSG_QUIT)) {
		fprintf(stderr, "the client sent a malformed message\n");
		return RPMA_E_INVAL;
	}
	return 0;
}

static int
serve(struct server *s, struct rpma_conn *conn)
{
	struct ping_msg *msgs = s->msgs;
	struct ibv_wc wc, send_wc;
	uint32_t qp_num;

	int ret = rpma_conn_get_qp_num(conn, &qp_num);
	if (ret) {
		print_error("rpma_conn_get_qp_num()", ret);
		return ret;
	}
	/* the first ping lands in the buffer posted to the SRQ before accepting */
	ret = srq_wait_ping(s, &wc);
	while (!ret && msgs[RECV].op == MSG_PING) {
		uint32_t seq = msgs[RECV].seq;
		printf("ping on the connection with QP %s: ",
				wc.qp_num == qp_num ? "as expected" : "unknown");
		print_untrusted("text", msgs[RECV].text, sizeof(msgs[RECV].text));

		ret = rpma_srq_recv(s->srq, s->mr, RECV * sizeof(*msgs), sizeof(*msgs), NULL);
		if (ret) {
			print_error("rpma_srq_recv()", ret);
			break;
		}
		msgs[SEND].op = MSG_PONG;
		msgs[SEND].seq = seq;
		snprintf(msgs[SEND].text, sizeof(msgs[SEND].text), "pong #%u", seq);
		ret = rpma_send(conn, s->mr, SEND * sizeof(*msgs), sizeof(*msgs),
				RPMA_F_COMPLETION_ALWAYS, NULL);
		if (ret) {
			print_error("rpma_send()", ret);
			break;
		}
		/*
		 * Sends complete on the connection's CQ, receives on the SRQ's.
		 * The next message first: after the quit the client closes, and
		 * the last pong's completion, whose acknowledgement may be lost,
		 * would never come (doc/FAILURES.md, "The last message's ACK").
		 */
		ret = srq_wait_ping(s, &wc);
		if (!ret && msgs[RECV].op != MSG_QUIT)
			ret = conn_wait_for(conn, IBV_WC_SEND, &send_wc);
	}
	if (!ret)
		printf("the client said quit\n");
	return ret;
}

/* the SRQ with its receive CQ, and a connection configuration naming it */
static int
srq_setup(struct server *s)
{
	struct rpma_srq_cfg *srq_cfg;

	int ret = rpma_srq_cfg_new(&srq_cfg);
	if (ret) {
		print_error("rpma_srq_cfg_new()", ret);
		return ret;
	}
	ret = rpma_srq_cfg_set_rq_size(srq_cfg, SRQ_SIZE);
	if (!ret)
		ret = rpma_srq_cfg_set_rcq_size(srq_cfg, SRQ_SIZE);
	if (ret)
		print_error("setting the SRQ's sizes", ret);
	if (!ret && (ret = rpma_srq_new(s->peer, srq_cfg, &s->srq)))
		print_error("rpma_srq_new()", ret);
	int ret2 = rpma_srq_cfg_delete(&srq_cfg);
	if (ret2)
		print_error("rpma_srq_cfg_delete()", ret2);
	if (ret || ret2)
		goto err_srq_delete;

	ret = rpma_srq_get_rcq(s->srq, &s->srq_rcq);
	if (ret) {
		print_error("rpma_srq_get_rcq()", ret);
		goto err_srq_delete;
	}
	ret = rpma_conn_cfg_new(&s->cfg);
	if (ret) {
		print_error("rpma_conn_cfg_new()", ret);
		goto err_srq_delete;
	}
	ret = rpma_conn_cfg_set_srq(s->cfg, s->srq);
	if (ret) {
		print_error("rpma_conn_cfg_set_srq()", ret);
		(void) rpma_conn_cfg_delete(&s->cfg);
		goto err_srq_delete;
	}
	return 0;

err_srq_delete:
	if (s->srq)
		(void) rpma_srq_delete(&s->srq);
	return ret ? ret : ret2;
}

static int
srq_teardown(struct server *s)
{
	int ret = rpma_conn_cfg_delete(&s->cfg);
	if (ret)
		print_error("rpma_conn_cfg_delete()", ret);
	int ret2 = rpma_srq_delete(&s->srq);
	if (ret2)
		print_error("rpma_srq_delete()", ret2);
	return ret ? ret : ret2;
}

/* listen, post the first buffer to the SRQ, accept one client and serve it */
static int
run(struct server *s, const struct server_args *args)
{
	struct rpma_ep *ep;
	struct rpma_conn *conn;

	int ret = server_listen(s->peer, args->addr, args->port, &ep);
	if (ret)
		return ret;
	ret = rpma_srq_recv(s->srq, s->mr, RECV * sizeof(*s->msgs), sizeof(*s->msgs), NULL);
	if (ret)
		print_error("rpma_srq_recv()", ret);
	if (!ret)
		ret = server_accept(ep, s->cfg, NULL, &conn);
	if (!ret) {
		ret = serve(s, conn);
		if (!ret)
			ret = conn_wait_closed(conn);
		int ret2 = conn_close(&conn, false);
		ret = ret ? ret : ret2;
	}
	int ret2 = rpma_ep_shutdown(&ep);
	if (ret2)
		print_error("rpma_ep_shutdown()", ret2);
	return ret ? ret : ret2;
}

int
main(int argc, char *argv[])
{
	struct server_args args;
	struct server s = {0};
	int ret, ret2;

	server_args_parse(argc, argv, 0, &args);

	s.msgs = buffer_alloc(2 * sizeof(*s.msgs));
	if (s.msgs == NULL)
		return EXIT_FAILURE;
	ret = peer_open(args.addr, true, &s.peer);
	if (ret)
		goto err_free;
	ret = rpma_mr_reg(s.peer, s.msgs, 2 * sizeof(*s.msgs),
			RPMA_MR_USAGE_SEND | RPMA_MR_USAGE_RECV, &s.mr);
	if (ret) {
		print_error("rpma_mr_reg()", ret);
		goto err_peer_delete;
	}
	ret = srq_setup(&s);
	if (ret)
		goto err_mr_dereg;

	ret = run(&s, &args);

	ret2 = srq_teardown(&s);
	ret = ret ? ret : ret2;
err_mr_dereg:
	ret2 = rpma_mr_dereg(&s.mr);
	if (ret2)
		print_error("rpma_mr_dereg()", ret2);
	ret = ret ? ret : ret2;
err_peer_delete:
	ret2 = rpma_peer_delete(&s.peer);
	if (ret2)
		print_error("rpma_peer_delete()", ret2);
	ret = ret ? ret : ret2;
err_free:
	free(s.msgs);
	return ret ? EXIT_FAILURE : EXIT_SUCCESS;
}
