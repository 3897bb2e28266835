// SPDX-License-Identifier: BSD-3-Clause
/*
 * 15-custom-log-function/client.c -- connect with a hello and disconnect,
 * librpma's notices going to a function of our own (log_print.c).
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "log_print.h"

int
main(int argc, char *argv[])
{
	struct client_args args;
	struct rpma_peer *peer;
	struct rpma_conn *conn;
	int ret, ret2;

	client_args_parse(argc, argv, "Hello server, this is the client!", &args);

	if (log_print_install(RPMA_LOG_LEVEL_NOTICE))
		return EXIT_FAILURE;
	ret = peer_open(args.addr, false, &peer);
	if (ret)
		goto out;

	struct rpma_conn_private_data pdata = {(void *)args.message,
		(uint8_t)(strlen(args.message) + 1)};
	ret = client_connect(peer, args.addr, args.port, NULL, &pdata, &conn);
	if (!ret) {
		printf("connected\n");
		ret = conn_close(&conn, true);
		if (!ret)
			printf("disconnected\n");
	}

	ret2 = rpma_peer_delete(&peer);
	if (ret2)
		print_error("rpma_peer_delete()", ret2);
	ret = ret ? ret : ret2;
out:
	ret2 = log_print_uninstall();
	return ret || ret2 ? EXIT_FAILURE : EXIT_SUCCESS;
}
