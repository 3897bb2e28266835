// SPDX-License-Identifier: BSD-3-Clause
/*
 * 09-flush-to-persistent-gpspm/client.c -- write a message into the
 * server's memory, then send a flush request and wait for its answer.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "msg.h"

/* the local buffer: the previous value, the message, the request, the answer */
struct local {
	char previous[MSG_MAX];
	char message[MSG_MAX];
	struct flush_req req;
	struct flush_resp resp;
};

#define OFF(field) offsetof(struct local, field)

static int
read_previous(struct rpma_conn *conn, struct rpma_mr_local *mr, struct rpma_mr_remote *remote,
		const struct local *l)
{
	struct ibv_wc wc;

	int ret = rpma_read(conn, mr, OFF(previous), remote, 0, MSG_MAX,
			RPMA_F_COMPLETION_ALWAYS, NULL);
	if (ret) {
		print_error("rpma_read()", ret);
		return ret;
	}
	ret = conn_wait_for(conn, IBV_WC_RDMA_READ, &wc);
	if (!ret)
		print_untrusted("previous value", l->previous, MSG_MAX);
	return ret;
}

static int
write_and_request_flush(struct rpma_conn *conn, struct rpma_mr_local *mr,
		struct rpma_mr_remote *remote, struct local *l, size_t len)
{
	struct ibv_wc wc;

	int ret = rpma_recv(conn, mr, OFF(resp), sizeof(l->resp), NULL);
	if (ret) {
		print_error("rpma_recv()", ret);
		return ret;
	}
	/*
	 * On one connection the server sees the write before the request that
	 * follows it, so the write needs no completion of its own.
	 */
	ret = rpma_write(conn, remote, 0, mr, OFF(message), len, RPMA_F_COMPLETION_ON_ERROR,
			NULL);
	if (ret) {
		print_error("rpma_write()", ret);
		return ret;
	}
	l->req.offset = 0;
	l->req.length = len;
	ret = rpma_send(conn, mr, OFF(req), sizeof(l->req), RPMA_F_COMPLETION_ALWAYS, NULL);
	if (ret) {
		print_error("rpma_send()", ret);
		return ret;
	}
	ret = conn_wait_send_and_recv(conn, &wc);
	if (ret)
		return ret;
	if (wc.byte_len != sizeof(l->resp) || l->resp.status != 0) {
		fprintf(stderr, "the server did not persist the data (status %d)\n",
				(int)l->resp.status);
		return RPMA_E_UNKNOWN;
	}
	return 0;
}

int
main(int argc, char *argv[])
{
	struct client_args args;
	struct rpma_peer *peer;
	struct rpma_mr_local *mr;
	struct rpma_mr_remote *remote;
	struct rpma_conn *conn;
	int ret, ret2;

	client_args_parse(argc, argv, "Hello, persistent memory!", &args);

	struct local *l = buffer_alloc(sizeof(*l));
	if (l == NULL)
		return EXIT_FAILURE;
	strcpy(l->message, args.message);
	size_t len = strlen(args.message) + 1;

	ret = peer_open(args.addr, false, &peer);
	if (ret)
		goto err_free;
	ret = rpma_mr_reg(peer, l, sizeof(*l), RPMA_MR_USAGE_READ_DST | RPMA_MR_USAGE_WRITE_SRC |
			RPMA_MR_USAGE_SEND | RPMA_MR_USAGE_RECV, &mr);
	if (ret) {
		print_error("rpma_mr_reg()", ret);
		goto err_peer_delete;
	}
	ret = client_connect(peer, args.addr, args.port, NULL, NULL, &conn);
	if (ret)
		goto err_mr_dereg;
	ret = descs_unpack(conn, &remote, NULL);
	if (ret)
		goto err_conn_close;

	ret = remote_size_check(remote, MSG_MAX);
	if (!ret)
		ret = read_previous(conn, mr, remote, l);
	if (!ret)
		ret = write_and_request_flush(conn, mr, remote, l, len);
	if (!ret)
		printf("wrote \"%s\"; the server persisted %zu bytes at offset 0\n",
				args.message, len);

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
	free(l);
	return ret ? EXIT_FAILURE : EXIT_SUCCESS;
}
