// SPDX-License-Identifier: BSD-3-Clause
/*
 * 15-custom-log-function/server.c -- librpma's log through a function of
 * our own (log_print.c): the notices and errors while it sets up, with an
 * error on purpose (listening twice on one port), then, with the threshold
 * raised to errors, none while it serves one client.
 */

#include <stdio.h>
#include <stdlib.h>

#include "common.h"
#include "log_print.h"

/* A second endpoint on a port already taken: the provider refuses and librpma says why. */
static int
listen_twice(struct rpma_peer *peer, const char *addr, const char *port)
{
	struct rpma_ep *second;
	int before = log_print_count();
	int ret = rpma_ep_listen(peer, addr, port, &second);
	if (ret == 0) {
		fprintf(stderr, "listening twice on %s:%s succeeded\n", addr, port);
		(void) rpma_ep_shutdown(&second);
		return -1;
	}
	if (log_print_count() == before) {
		fprintf(stderr, "listening twice failed (%s) without a log message\n",
				rpma_err_2str(ret));
		return -1;
	}
	printf("listening twice on one port failed as expected: %s\n", rpma_err_2str(ret));
	return 0;
}

/* Accept one client, print its hello and wait until it disconnects. */
static int
serve(struct rpma_ep *ep)
{
	struct rpma_conn_req *req;
	struct rpma_conn *conn;
	struct rpma_conn_private_data pdata;

	int ret = rpma_ep_next_conn_req(ep, NULL, &req);
	if (ret) {
		print_error("rpma_ep_next_conn_req()", ret);
		return ret;
	}
	ret = rpma_conn_req_get_private_data(req, &pdata);
	if (ret) {
		print_error("rpma_conn_req_get_private_data()", ret);
		(void) rpma_conn_req_delete(&req);
		return ret;
	}
	print_untrusted("the client says", pdata.ptr, pdata.len);
	ret = conn_establish(&req, NULL, &conn);
	if (ret)
		return ret;
	ret = conn_wait_closed(conn);
	int ret2 = conn_close(&conn, false);
	return ret ? ret : ret2;
}

int
main(int argc, char *argv[])
{
	struct server_args args;
	struct rpma_peer *peer;
	struct rpma_ep *ep;
	int ret, ret2;

	server_args_parse(argc, argv, 0, &args);

	/* the notices, warnings and errors: setting up says what it does */
	if (log_print_install(RPMA_LOG_LEVEL_NOTICE))
		return EXIT_FAILURE;
	ret = peer_open(args.addr, true, &peer);
	if (ret)
		goto out;
	ret = server_listen(peer, args.addr, args.port, &ep);
	if (ret)
		goto err_peer_delete;
	ret = listen_twice(peer, args.addr, args.port);

	/* the errors alone: a connection that goes well logs nothing */
	if (!ret)
		ret = log_print_threshold(RPMA_LOG_LEVEL_ERROR);
	if (!ret) {
		int before = log_print_count();
		ret = serve(ep);
		if (!ret)
			printf("the client disconnected; log messages meanwhile: %d\n",
					log_print_count() - before);
	}

	ret2 = rpma_ep_shutdown(&ep);
	if (ret2)
		print_error("rpma_ep_shutdown()", ret2);
	ret = ret ? ret : ret2;
err_peer_delete:
	ret2 = rpma_peer_delete(&peer);
	if (ret2)
		print_error("rpma_peer_delete()", ret2);
	ret = ret ? ret : ret2;
out:
	ret2 = log_print_uninstall();
	return ret || ret2 ? EXIT_FAILURE : EXIT_SUCCESS;
}
