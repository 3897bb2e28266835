// SPDX-License-Identifier: BSD-3-Clause
/*
 * 02-read-to-volatile/server.c -- put a message into the server's memory,
 * expose it for reading and wait until the client has read it and gone.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "mem.h"

static const char MESSAGE[] = "Hello client, this was read from the server's memory!";

int
main(int argc, char *argv[])
{
	struct server_args args;
	struct server_mem mem;
	struct rpma_peer *peer;
	struct rpma_ep *ep;
	struct rpma_mr_local *mr;
	struct rpma_conn *conn;
	struct descs_pdata pd;
	int ret, ret2;

	server_args_parse(argc, argv, ARGS_PMEM, &args);
	if (mem_open(args.pmem_path, &mem))
		return EXIT_FAILURE;
	memcpy(mem.data, MESSAGE, sizeof(MESSAGE));

	ret = peer_open(args.addr, true, &peer);
	if (ret)
		goto err_mem_close;

	/* the client may only read this memory */
	ret = rpma_mr_reg(peer, mem.data, MEM_DATA_SIZE, RPMA_MR_USAGE_READ_SRC, &mr);
	if (ret) {
		mem_reg_failed(&mem, "rpma_mr_reg()", ret);
		goto err_peer_delete;
	}
	ret = descs_pack(mr, NULL, &pd);
	if (ret)
		goto err_mr_dereg;

	ret = server_listen(peer, args.addr, args.port, &ep);
	if (ret)
		goto err_mr_dereg;

	/* the descriptor of the region travels in the private data */
	struct rpma_conn_private_data pdata = {&pd, sizeof(pd)};
	ret = server_accept(ep, NULL, &pdata, &conn);
	if (ret)
		goto err_ep_shutdown;
	printf("exposed: \"%s\"\n", MESSAGE);

	ret = conn_wait_closed(conn);
	ret2 = conn_close(&conn, false);
	ret = ret ? ret : ret2;
	if (!ret)
		printf("the client disconnected\n");

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
err_mem_close:
	mem_close(&mem);
	return ret ? EXIT_FAILURE : EXIT_SUCCESS;
}
