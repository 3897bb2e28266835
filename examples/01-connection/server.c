// SPDX-License-Identifier: BSD-3-Clause
/*
 * 01-connection/server.c -- accept one connection, exchanging a hello
 * through the private data, and wait for the client to disconnect.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

static const char HELLO[] = "Hello client, this is the server!";

int
main(int argc, char *argv[])
{
	struct server_args args;
	struct rpma_peer *peer;
	struct rpma_ep *ep;
	struct rpma_conn_req *req;
	struct rpma_conn *conn = NULL;
	struct rpma_conn_private_data pdata;
	int ret;

	server_args_parse(argc, argv, 0, &args);

	if (peer_open(args.addr, true, &peer))
		return EXIT_FAILURE;
	ret = server_listen(peer, args.addr, args.port, &ep);
	if (ret)
		goto err_peer_delete;

	ret = rpma_ep_next_conn_req(ep, NULL, &req);
	if (ret) {
		print_error("rpma_ep_next_conn_req()", ret);
		goto err_ep_shutdown;
	}

	/* the client's hello comes with its connection request */
	ret = rpma_conn_req_get_private_data(req, &pdata);
	if (ret) {
		print_error("rpma_conn_req_get_private_data()", ret);
		(void) rpma_conn_req_delete(&req);
		goto err_ep_shutdown;
	}
	print_untrusted("the client says", pdata.ptr, pdata.len);

	/* and ours goes with the acceptance */
	struct rpma_conn_private_data hello = {(void *)HELLO, sizeof(HELLO)};
	ret = conn_establish(&req, &hello, &conn);
	if (ret)
		goto err_ep_shutdown;
	printf("connected\n");

	ret = conn_wait_closed(conn);
	int ret2 = conn_close(&conn, false);
	if (!ret && !ret2)
		printf("the client disconnected\n");
	ret = ret ? ret : ret2;

err_ep_shutdown:
	ret2 = rpma_ep_shutdown(&ep);
	if (ret2)
		print_error("rpma_ep_shutdown()", ret2);
	ret = ret ? ret : ret2;
err_peer_delete:
	ret2 = rpma_peer_delete(&peer);
	if (ret2)
		print_error("rpma_peer_delete()", ret2);
	ret = ret ? ret : ret2;
	return ret ? EXIT_FAILURE : EXIT_SUCCESS;
}
