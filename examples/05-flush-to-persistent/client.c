// SPDX-License-Identifier: BSD-3-Clause
/*
 * 05-flush-to-persistent/client.c -- write a message into the server's
 * persistent memory and flush it to persistence where the server allows it,
 * to visibility otherwise; say which.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

/* the local buffer: what was there, then what goes there */
#define PREVIOUS 0
#define MESSAGE MSG_MAX

static int
read_previous(struct rpma_conn *conn, struct rpma_mr_local *mr, struct rpma_mr_remote *remote,
		const char *buf)
{
	struct ibv_wc wc;

	int ret = rpma_read(conn, mr, PREVIOUS, remote, 0, MSG_MAX, RPMA_F_COMPLETION_ALWAYS,
			NULL);
	if (ret) {
		print_error("rpma_read()", ret);
		return ret;
	}
	ret = conn_wait_for(conn, IBV_WC_RDMA_READ, &wc);
	if (!ret)
		print_untrusted("previous value", buf + PREVIOUS, MSG_MAX);
	return ret;
}

static int
write_and_flush(struct rpma_conn *conn, struct rpma_mr_local *mr, struct rpma_mr_remote *remote,
		size_t len, enum rpma_flush_type type)
{
	struct ibv_wc wc;

	int ret = rpma_write(conn, remote, 0, mr, MESSAGE, len, RPMA_F_COMPLETION_ON_ERROR,
			NULL);
	if (ret) {
		print_error("rpma_write()", ret);
		return ret;
	}
	/* its completion says the write before it is persistent (or visible) */
	ret = rpma_flush(conn, remote, 0, len, type, RPMA_F_COMPLETION_ALWAYS, NULL);
	if (ret) {
		print_error("rpma_flush()", ret);
		return ret;
	}
	return conn_next_wc(conn, &wc);
}

/* apply the server's configuration, pick the flush type, read, write, flush */
static int
run(struct rpma_conn *conn, struct rpma_mr_local *mr, struct rpma_mr_remote *remote,
		const struct rpma_peer_cfg *pcfg, const char *buf, const char *message)
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
		ret = read_previous(conn, mr, remote, buf);
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

	client_args_parse(argc, argv, "Hello, persistent memory!", &args);

	char *buf = buffer_alloc(2 * MSG_MAX);
	if (buf == NULL)
		return EXIT_FAILURE;
	strcpy(buf + MESSAGE, args.message);

	ret = peer_open(args.addr, false, &peer);
	if (ret)
		goto err_free;
	ret = rpma_mr_reg(peer, buf, 2 * MSG_MAX, RPMA_MR_USAGE_READ_DST |
			RPMA_MR_USAGE_WRITE_SRC, &mr);
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

	ret = run(conn, mr, remote, pcfg, buf, args.message);

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
