// SPDX-License-Identifier: BSD-3-Clause
/*
 * 16-native-flush/server.c -- expose memory that a client flushes with a
 * native RDMA FLUSH where the client's library, both devices and this
 * region allow it.
 *
 * The region has the flush usages and no RPMA_MR_USAGE_READ_SRC: a region
 * the client may read is flushed by a read after the writes, whatever the
 * devices can do. Persistent flush only on true pmem, as in example 05.
 * Where the device refuses a region the rights of a native FLUSH (soft-RoCE
 * grants persistence only on pmem), librpma registers it without them and
 * says so in its descriptor: the client's flush is then a read, never a
 * FLUSH the device would fail.
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
	struct rpma_peer_cfg *pcfg;
	struct rpma_ep *ep;
	struct rpma_mr_local *mr;
	struct rpma_conn *conn;
	struct descs_pdata pd;
	bool direct;
	int ret, ret2;

	server_args_parse(argc, argv, ARGS_PMEM, &args);
	if (mem_open(args.pmem_path, &mem))
		return EXIT_FAILURE;

	ret = peer_open(args.addr, true, &peer);
	if (ret)
		goto err_mem_close;
	ret = mem_peer_cfg(&mem, args.direct_write_to_pmem, &pcfg);
	if (ret)
		goto err_peer_delete;
	ret = rpma_peer_cfg_get_direct_write_to_pmem(pcfg, &direct);
	if (ret) {
		print_error("rpma_peer_cfg_get_direct_write_to_pmem()", ret);
		goto err_pcfg_delete;
	}

	/* no RPMA_MR_USAGE_READ_SRC: the client only writes and flushes */
	int usage = RPMA_MR_USAGE_WRITE_DST | RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY;
	if (mem.true_pmem)
		usage |= RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT;
	ret = rpma_mr_reg(peer, mem.data, MEM_DATA_SIZE, usage, &mr);
	if (ret) {
		mem_reg_failed(&mem, "rpma_mr_reg()", ret);
		goto err_pcfg_delete;
	}
	printf("region: write and flush to %s, no read\n",
			mem.true_pmem ? "visibility or persistence" : "visibility");
	ret = descs_pack(mr, pcfg, &pd);
	if (ret)
		goto err_mr_dereg;
	ret = server_listen(peer, args.addr, args.port, &ep);
	if (ret)
		goto err_mr_dereg;

	struct rpma_conn_private_data pdata = {&pd, sizeof(pd)};
	ret = server_accept(ep, NULL, &pdata, &conn);
	if (ret)
		goto err_ep_shutdown;

	/* the client closes the connection once its flush has completed */
	ret = conn_wait_closed(conn);
	ret2 = conn_close(&conn, false);
	ret = ret ? ret : ret2;
	if (!ret && !direct)
		mem_persist(&mem, mem.data, MSG_MAX);
	if (!ret)
		print_untrusted(direct ? "written (persisted by the client's flush)" :
				mem.mapped ? "written (persisted by the server)" :
				"written (in DRAM)", mem.data, MSG_MAX);

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
err_pcfg_delete:
	ret2 = rpma_peer_cfg_delete(&pcfg);
	if (ret2)
		print_error("rpma_peer_cfg_delete()", ret2);
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
