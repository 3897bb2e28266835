// SPDX-License-Identifier: BSD-3-Clause
/*
 * 05-flush-to-persistent/server.c -- expose persistent memory so that the
 * client's rpma_flush(RPMA_FLUSH_TYPE_PERSISTENT) makes its write durable.
 *
 * That takes two things the server tells the client: the region allows a
 * persistent flush (it is true pmem) and the platform puts the NIC's writes
 * into the persistence domain (direct write to pmem, the operator's word:
 * --direct-write-to-pmem). Without them the client flushes to visibility
 * and the server persists the data itself.
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
	print_untrusted("previous value", mem.data, MSG_MAX);

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

	int usage = RPMA_MR_USAGE_READ_SRC | RPMA_MR_USAGE_WRITE_DST |
			RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY;
	if (mem.true_pmem)
		usage |= RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT;
	ret = rpma_mr_reg(peer, mem.data, MEM_DATA_SIZE, usage, &mr);
	if (ret) {
		mem_reg_failed(&mem, "rpma_mr_reg()", ret);
		goto err_pcfg_delete;
	}
	/* the region's and the peer configuration's descriptors */
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
	if (!ret && direct) {
		print_untrusted("new value (persisted by the client's flush)", mem.data,
				MSG_MAX);
	} else if (!ret) {
		/* the fallback: the client flushed to visibility, persisting is ours */
		mem_persist(&mem, mem.data, MSG_MAX);
		print_untrusted(mem.mapped ? "new value (persisted by the server)" :
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
