// SPDX-License-Identifier: BSD-3-Clause
/*
 * 07-atomic-write/server.c -- hold a log the client appends to; when the
 * client is gone, print the entries the tail says are there.
 */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "log.h"
#include "mem.h"

/* the tail was written by the peer: trust it only within the capacity */
static int
log_print(const struct server_mem *mem)
{
	uint64_t tail;

	memcpy(&tail, mem->data + LOG_TAIL, sizeof(tail));
	if (tail > LOG_CAPACITY) {
		fprintf(stderr, "the log's tail %" PRIu64 " is past its capacity %d\n", tail,
				LOG_CAPACITY);
		return RPMA_E_INVAL;
	}
	mem_persist(mem, mem->data, LOG_ENTRIES + tail * LOG_ENTRY_SIZE);
	printf("log tail: %" PRIu64 " entries\n", tail);
	for (uint64_t i = 0; i < tail; i++) {
		char label[32];
		snprintf(label, sizeof(label), "log entry %" PRIu64, i);
		print_untrusted(label, mem->data + LOG_ENTRIES + i * LOG_ENTRY_SIZE,
				LOG_ENTRY_SIZE);
	}
	return 0;
}

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
	int ret, ret2;

	server_args_parse(argc, argv, ARGS_PMEM, &args);
	if (mem_open(args.pmem_path, &mem))
		return EXIT_FAILURE;
	/* every run starts an empty log */
	memset(mem.data, 0, LOG_ENTRIES);
	mem_persist(&mem, mem.data, LOG_ENTRIES);

	ret = peer_open(args.addr, true, &peer);
	if (ret)
		goto err_mem_close;
	ret = mem_peer_cfg(&mem, args.direct_write_to_pmem, &pcfg);
	if (ret)
		goto err_peer_delete;
	int usage = RPMA_MR_USAGE_READ_SRC | RPMA_MR_USAGE_WRITE_DST |
			RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY;
	if (mem.true_pmem)
		usage |= RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT;
	ret = rpma_mr_reg(peer, mem.data, MEM_DATA_SIZE, usage, &mr);
	if (ret) {
		mem_reg_failed(&mem, "rpma_mr_reg()", ret);
		goto err_pcfg_delete;
	}
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
	ret = conn_wait_closed(conn);
	ret2 = conn_close(&conn, false);
	ret = ret ? ret : ret2;
	if (!ret)
		ret = log_print(&mem);

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
