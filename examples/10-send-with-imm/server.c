// SPDX-License-Identifier: BSD-3-Clause
/*
 * 10-send-with-imm/server.c -- receive a message that carries immediate
 * data: 32 bits delivered in the receive's completion, next to the message.
 */

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>

#include "common.h"

/* print the message and its immediate data, checking what the client sent */
static int
receive(struct rpma_conn *conn, const char *buf)
{
	struct ibv_wc wc;

	int ret = conn_wait_for(conn, IBV_WC_RECV, &wc);
	if (ret)
		return ret;
	print_untrusted("received", buf, wc.byte_len < MSG_MAX ? wc.byte_len : MSG_MAX);
	if (!(wc.wc_flags & IBV_WC_WITH_IMM)) {
		fprintf(stderr, "the message came without immediate data\n");
		return RPMA_E_INVAL;
	}
	/* the verbs give it in network byte order; rpma_send_with_imm() took host order */
	printf("immediate data: 0x%08x\n", ntohl(wc.imm_data));
	return 0;
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

	char *buf = buffer_alloc(MSG_MAX);
	if (buf == NULL)
		return EXIT_FAILURE;
	ret = peer_open(args.addr, true, &peer);
	if (ret)
		goto err_free;
	ret = rpma_mr_reg(peer, buf, MSG_MAX, RPMA_MR_USAGE_RECV, &mr);
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
	/* the receive must be there before the client can send */
	ret = rpma_conn_req_recv(req, mr, 0, MSG_MAX, NULL);
	if (ret) {
		print_error("rpma_conn_req_recv()", ret);
		(void) rpma_conn_req_delete(&req);
		goto err_ep_shutdown;
	}
	ret = conn_establish(&req, NULL, &conn);
	if (ret)
		goto err_ep_shutdown;

	ret = receive(conn, buf);
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
	free(buf);
	return ret ? EXIT_FAILURE : EXIT_SUCCESS;
}
