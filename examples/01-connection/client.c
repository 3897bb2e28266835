// SPDX-License-Identifier: BSD-3-Clause
/*
 * 01-connection/client.c -- connect with a hello in the private data,
 * print the server's hello and disconnect.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

int
main(int argc, char *argv[])
{
	struct client_args args;
	struct rpma_peer *peer;
	struct rpma_conn *conn;
	struct rpma_conn_private_data pdata;

	client_args_parse(argc, argv, "Hello server, this is the client!", &args);

	if (peer_open(args.addr, false, &peer))
		return EXIT_FAILURE;

	/* private data: at most 255 bytes; the NUL goes too, so the server gets a string */
	pdata.ptr = (void *)args.message;
	pdata.len = (uint8_t)(strlen(args.message) + 1);
	int ret = client_connect(peer, args.addr, args.port, NULL, &pdata, &conn);
	if (ret)
		goto err_peer_delete;
	printf("connected\n");

	ret = rpma_conn_get_private_data(conn, &pdata);
	if (ret)
		print_error("rpma_conn_get_private_data()", ret);
	else
		print_untrusted("the server says", pdata.ptr, pdata.len);

	int ret2 = conn_close(&conn, ret == 0);
	if (!ret2)
		printf("disconnected\n");
	ret = ret ? ret : ret2;

err_peer_delete:
	ret2 = rpma_peer_delete(&peer);
	if (ret2)
		print_error("rpma_peer_delete()", ret2);
	ret = ret ? ret : ret2;
	return ret ? EXIT_FAILURE : EXIT_SUCCESS;
}
