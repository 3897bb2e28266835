// SPDX-License-Identifier: BSD-3-Clause
/*
 * 04-write-to-persistent/server.c -- expose persistent memory to the
 * client's writes; when the client is gone, persist what it wrote.
 */

#include <stdio.h>
#include <stdlib.h>

#include "common.h"
#include "mem.h"

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
	print_untrusted("previous value", mem.data, MSG_MAX);

	ret = peer_open(args.addr, true, &peer);
	if (ret)
		goto err_mem_close;
	/*
	 * The client reads the previous value, writes the new one and flushes
	 * it to visibility: the flush tells it the write has landed here.
	 */
	ret = rpma_mr_reg(peer, mem.data, MEM_DATA_SIZE, RPMA_MR_USAGE_READ_SRC |
			RPMA_MR_USAGE_WRITE_DST | RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY, &mr);
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

	struct rpma_conn_private_data pdata = {&pd, sizeof(pd)};
	ret = server_accept(ep, NULL, &pdata, &conn);
	if (ret)
		goto err_ep_shutdown;

	/* the client closes the connection once its write is visible here */
	ret = conn_wait_closed(conn);
	ret2 = conn_close(&conn, false);
	ret = ret ? ret : ret2;
	if (!ret) {
		mem_persist(&mem, mem.data, MSG_MAX);
		print_untrusted(mem.mapped ? "new value (persisted)" :
				"new value (in DRAM)", mem.data, MSG_MAX);
	}

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
