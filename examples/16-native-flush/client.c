// SPDX-License-Identifier: BSD-3-Clause
/*
 * 16-native-flush/client.c -- write a message into the server's memory,
 * flush it, and say which flush the library posted: its completion's
 * opcode is IBV_WC_FLUSH for a native RDMA FLUSH, IBV_WC_RDMA_READ for a
 * read after the write.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

/* IBV_WC_FLUSH of rdma-core 45 and later (its value is the kernel's) */
#define WC_FLUSH 8

static void
print_flush(const struct ibv_wc *wc)
{
	if ((int)wc->opcode == WC_FLUSH)
		printf("the flush completed as IBV_WC_FLUSH: a native RDMA FLUSH\n");
	else if (wc->opcode == IBV_WC_RDMA_READ)
		printf("the flush completed as IBV_WC_RDMA_READ: a read after the write\n");
	else
		printf("the flush completed with opcode %d\n", (int)wc->opcode);
}

static int
write_and_flush(struct rpma_conn *conn, struct rpma_mr_local *mr, struct rpma_mr_remote *remote,
		size_t len, enum rpma_flush_type type)
{
	struct ibv_wc wc;

	int ret = rpma_write(conn, remote, 0, mr, 0, len, RPMA_F_COMPLETION_ON_ERROR, NULL);
	if (ret) {
		print_error("rpma_write()", ret);
		return ret;
	}
	ret = rpma_flush(conn, remote, 0, len, type, RPMA_F_COMPLETION_ALWAYS, NULL);
	if (ret) {
		print_error("rpma_flush()", ret);
		return ret;
	}
	ret = conn_next_wc(conn, &wc);
	if (!ret)
		print_flush(&wc);
	return ret;
}

/* apply the server's configuration, pick the flush type, write, flush */
static int
run(struct rpma_conn *conn, struct rpma_mr_local *mr, struct rpma_mr_remote *remote,
		const struct rpma_peer_cfg *pcfg, const char *message)
{
	enum rpma_flush_type type;

	if (pcfg) {
		int ret = rpma_conn_apply_remote_peer_cfg(conn, pcfg);
		if (ret) {
			print_error("rpma_conn_apply_remote_peer_cfg()", ret);
			return ret;
		}
	}
	int ret = remote_size_check(remote, MSG_MAX);
	if (!ret)
		ret = flush_type_choose(remote, pcfg, &type);
	if (!ret)
		ret = write_and_flush(conn, mr, remote, strlen(message) + 1, type);
	if (!ret)
		printf("wrote \"%s\" and flushed it to %s\n", message,
				type == RPMA_FLUSH_TYPE_PERSISTENT ? "persistence" : "visibility");
	return ret;
}

int
main(int argc, char *argv[])
{
	struct client_args args;
	struct rpma_peer *peer;
	struct rpma_peer_cfg *pcfg;
	struct rpma_mr_local *mr;
	struct rpma_mr_remote *remote;
	struct rpma_conn *conn;
	int ret, ret2;

	client_args_parse(argc, argv, "Hello, native flush!", &args);

	char *buf = buffer_alloc(MSG_MAX);
	if (buf == NULL)
		return EXIT_FAILURE;
	strcpy(buf, args.message);

	ret = peer_open(args.addr, false, &peer);
	if (ret)
		goto err_free;
	ret = rpma_mr_reg(peer, buf, MSG_MAX, RPMA_MR_USAGE_WRITE_SRC, &mr);
	if (ret) {
		print_error("rpma_mr_reg()", ret);
		goto err_peer_delete;
	}
	ret = client_connect(peer, args.addr, args.port, NULL, NULL, &conn);
	if (ret)
		goto err_mr_dereg;
	ret = descs_unpack(conn, &remote, &pcfg);
	if (ret)
		goto err_conn_close;

	ret = run(conn, mr, remote, pcfg, args.message);

	if (pcfg) {
		ret2 = rpma_peer_cfg_delete(&pcfg);
		if (ret2)
			print_error("rpma_peer_cfg_delete()", ret2);
		ret = ret ? ret : ret2;
	}
	ret2 = rpma_mr_remote_delete(&remote);
	if (ret2)
		print_error("rpma_mr_remote_delete()", ret2);
	ret = ret ? ret : ret2;
err_conn_close:
	ret2 = conn_close(&conn, ret == 0);
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
