// SPDX-License-Identifier: BSD-3-Clause
/*
 * 17-grants/client.c -- one of several clients of a server that keeps each
 * in its own part of one region: write a message into the part granted,
 * flush it, read it back; then try the part next to it with the grant's
 * key, which the device refuses.
 *
 * It uses librpma 1.x's calls only: a grant's descriptor is a region's to
 * a client.
 */

#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "msg.h"

/* the local buffer: the server's message, what goes into the part, what comes back */
#define RECV 0
#define MESSAGE MSG_MAX
#define READ_BACK (2 * MSG_MAX)
#define PROBE (3 * MSG_MAX)
#define BUF_SIZE (4 * MSG_MAX)

_Static_assert(sizeof(struct grant_msg) <= MSG_MAX, "the server's message fits its place");

/*
 * Connect with a receive posted: the server sends its message as soon as
 * the connection is established and its grant bound.
 */
static int
connect_to_receive(struct rpma_peer *peer, const struct client_args *args,
		struct rpma_mr_local *mr, struct rpma_conn **conn_ptr)
{
	struct rpma_conn_req *req;

	int ret = rpma_conn_req_new(peer, args->addr, args->port, NULL, &req);
	if (ret) {
		print_error("rpma_conn_req_new()", ret);
		return ret;
	}
	ret = rpma_conn_req_recv(req, mr, RECV, sizeof(struct grant_msg), NULL);
	if (ret) {
		print_error("rpma_conn_req_recv()", ret);
		(void) rpma_conn_req_delete(&req);
		return ret;
	}
	ret = conn_establish(&req, NULL, conn_ptr);
	if (ret)
		fprintf(stderr, "cannot connect to %s:%s\n", args->addr, args->port);
	return ret;
}

/*
 * Wait for the server's message or for the end of the connection, whichever
 * comes first: a server that cannot grant (on a device that binds no type-2
 * memory windows) closes the connection without a word.
 */
static int
msg_wait(struct rpma_conn *conn, struct ibv_wc *wc)
{
	struct pollfd fds[2] = {{.events = POLLIN}, {.events = POLLIN}};
	enum rpma_conn_event event;
	struct rpma_cq *cq;

	int ret = rpma_conn_get_cq(conn, &cq);
	if (!ret)
		ret = rpma_cq_get_fd(cq, &fds[0].fd);
	if (!ret)
		ret = rpma_conn_get_event_fd(conn, &fds[1].fd);
	if (ret) {
		print_error("getting the connection's fds", ret);
		return ret;
	}
	while ((ret = rpma_cq_get_wc(cq, 1, wc, NULL)) == RPMA_E_NO_COMPLETION) {
		if (poll(fds, 2, -1) < 0) {
			perror("poll()");
			return RPMA_E_UNKNOWN;
		}
		if (fds[0].revents) {
			/* take the CQ's event, which re-arms it, then poll the CQ again */
			ret = rpma_cq_wait(cq);
			if (ret) {
				print_error("rpma_cq_wait()", ret);
				return ret;
			}
		} else if (fds[1].revents) {
			ret = rpma_conn_next_event(conn, &event);
			if (ret) {
				print_error("rpma_conn_next_event()", ret);
				return ret;
			}
			fprintf(stderr, "the server ended the connection before it granted a part "
					"(%s)\n", rpma_utils_conn_event_2str(event));
			return RPMA_E_UNKNOWN;
		}
	}
	if (ret) {
		print_error("rpma_cq_get_wc()", ret);
		return ret;
	}
	if (wc->status != IBV_WC_SUCCESS || wc->opcode != IBV_WC_RECV) {
		fprintf(stderr, "the server's message did not come: %s\n",
				ibv_wc_status_str(wc->status));
		return RPMA_E_UNKNOWN;
	}
	return 0;
}

/* the server's message: which part, its grant and the peer configuration */
static int
grant_receive(struct rpma_conn *conn, const char *buf, struct grant_msg *msg,
		struct rpma_mr_remote **part_ptr, struct rpma_peer_cfg **pcfg_ptr)
{
	struct ibv_wc wc;

	int ret = msg_wait(conn, &wc);
	if (ret)
		return ret;
	/* the server's bytes */
	if (wc.byte_len != sizeof(*msg)) {
		fprintf(stderr, "the server's message is malformed\n");
		return RPMA_E_INVAL;
	}
	memcpy(msg, buf + RECV, sizeof(*msg));
	if (msg->part >= msg->parts) {
		fprintf(stderr, "the server's message is malformed\n");
		return RPMA_E_INVAL;
	}
	struct rpma_conn_private_data descs = {&msg->descs, sizeof(msg->descs)};
	return descs_unpack_pdata(&descs, part_ptr, pcfg_ptr);
}

static int
write_flush_read(struct rpma_conn *conn, struct rpma_mr_local *mr, struct rpma_mr_remote *part,
		size_t len, enum rpma_flush_type type, const char *buf)
{
	struct ibv_wc wc;

	int ret = rpma_write(conn, part, 0, mr, MESSAGE, len, RPMA_F_COMPLETION_ON_ERROR, NULL);
	if (ret) {
		print_error("rpma_write()", ret);
		return ret;
	}
	ret = rpma_flush(conn, part, 0, len, type, RPMA_F_COMPLETION_ALWAYS, NULL);
	if (ret) {
		print_error("rpma_flush()", ret);
		return ret;
	}
	ret = conn_next_wc(conn, &wc);
	if (ret)
		return ret;
	printf("wrote \"%s\" at offset 0 of my part and flushed it to %s\n", buf + MESSAGE,
			type == RPMA_FLUSH_TYPE_PERSISTENT ? "persistence" : "visibility");

	ret = rpma_read(conn, mr, READ_BACK, part, 0, len, RPMA_F_COMPLETION_ALWAYS, NULL);
	if (ret) {
		print_error("rpma_read()", ret);
		return ret;
	}
	ret = conn_wait_for(conn, IBV_WC_RDMA_READ, &wc);
	if (!ret)
		print_untrusted("read back", buf + READ_BACK, len);
	return ret;
}

/*
 * A descriptor like the grant's, of another part: the grant's key at
 * another address. A descriptor starts with the address of its first byte,
 * 8 bytes little-endian (librpma 1.x's format).
 */
static int
neighbour_forge(const struct grant_msg *msg, size_t part_size, bool before,
		struct rpma_mr_remote **other_ptr)
{
	unsigned char desc[sizeof(msg->descs.descs)];
	uint64_t addr = 0;

	memcpy(desc, msg->descs.descs, sizeof(desc));
	for (int i = 7; i >= 0; i--)
		addr = addr << 8 | desc[i];
	addr = before ? addr - part_size : addr + part_size;
	for (int i = 0; i < 8; i++)
		desc[i] = (unsigned char)(addr >> (8 * i));

	int ret = rpma_mr_remote_from_descriptor(desc, msg->descs.mr_desc_size, other_ptr);
	if (ret)
		print_error("rpma_mr_remote_from_descriptor()", ret);
	return ret;
}

/*
 * Read the part next to ours (the one before, for the last part) with our
 * grant's key: the device serves the key only within the grant, so the
 * read must end in a remote access error and bring no byte. Like any
 * failed operation, it breaks the connection.
 */
static int
neighbour_try(struct rpma_conn *conn, struct rpma_mr_local *mr, const struct grant_msg *msg,
		size_t part_size, const char *buf)
{
	bool before = msg->parts > 1 && msg->part + 1 == msg->parts;
	const char *which = msg->parts == 1 ? "the bytes after my part" :
			before ? "the previous part" : "the next part";
	struct rpma_mr_remote *other;
	struct rpma_cq *cq;
	struct ibv_wc wc;

	int ret = neighbour_forge(msg, part_size, before, &other);
	if (ret)
		return ret;
	ret = rpma_read(conn, mr, PROBE, other, 0, MSG_MAX, RPMA_F_COMPLETION_ALWAYS, NULL);
	if (ret)
		print_error("rpma_read()", ret);
	if (!ret && (ret = rpma_conn_get_cq(conn, &cq)))
		print_error("rpma_conn_get_cq()", ret);
	if (!ret)
		ret = cq_next_wc_any(cq, &wc);
	(void) rpma_mr_remote_delete(&other);
	if (ret)
		return ret;

	bool untouched = true;
	for (size_t i = 0; i < MSG_MAX; i++)
		untouched = untouched && buf[PROBE + i] == 0;
	if (wc.status == IBV_WC_REM_ACCESS_ERR && untouched) {
		printf("%s, with my grant's key: refused (%s), no byte read\n", which,
				ibv_wc_status_str(wc.status));
		return 0;
	}
	if (wc.status == IBV_WC_SUCCESS) {
		fprintf(stderr, "%s, with my grant's key: read: the grant kept nothing out\n",
				which);
		print_untrusted("what came", buf + PROBE, MSG_MAX);
	} else {
		fprintf(stderr, "%s, with my grant's key: %s, %s\n", which,
				ibv_wc_status_str(wc.status),
				untouched ? "expected a remote access error" : "yet bytes came");
	}
	return RPMA_E_UNKNOWN;
}

static int
run(struct rpma_conn *conn, struct rpma_mr_local *mr, const struct grant_msg *msg,
		struct rpma_mr_remote *part, const struct rpma_peer_cfg *pcfg, const char *buf)
{
	enum rpma_flush_type type;
	size_t part_size;

	if (pcfg) {
		int ret = rpma_conn_apply_remote_peer_cfg(conn, pcfg);
		if (ret) {
			print_error("rpma_conn_apply_remote_peer_cfg()", ret);
			return ret;
		}
	}
	int ret = rpma_mr_remote_get_size(part, &part_size);
	if (ret) {
		print_error("rpma_mr_remote_get_size()", ret);
		return ret;
	}
	printf("granted: part #%u of %u, %zu bytes\n", msg->part + 1, msg->parts, part_size);
	ret = remote_size_check(part, MSG_MAX);
	if (!ret)
		ret = flush_type_choose(part, pcfg, &type);
	if (!ret)
		ret = write_flush_read(conn, mr, part, strlen(buf + MESSAGE) + 1, type, buf);
	if (!ret)
		ret = neighbour_try(conn, mr, msg, part_size, buf);
	return ret;
}

int
main(int argc, char *argv[])
{
	struct client_args args;
	struct rpma_peer *peer;
	struct rpma_peer_cfg *pcfg;
	struct rpma_mr_local *mr;
	struct rpma_mr_remote *part;
	struct rpma_conn *conn;
	struct grant_msg msg;
	int ret, ret2;

	client_args_parse(argc, argv, "Hello, my own part!", &args);

	char *buf = buffer_alloc(BUF_SIZE);
	if (buf == NULL)
		return EXIT_FAILURE;
	strcpy(buf + MESSAGE, args.message);

	ret = peer_open(args.addr, false, &peer);
	if (ret)
		goto err_free;
	ret = rpma_mr_reg(peer, buf, BUF_SIZE, RPMA_MR_USAGE_RECV | RPMA_MR_USAGE_WRITE_SRC |
			RPMA_MR_USAGE_READ_DST, &mr);
	if (ret) {
		print_error("rpma_mr_reg()", ret);
		goto err_peer_delete;
	}
	ret = connect_to_receive(peer, &args, mr, &conn);
	if (ret)
		goto err_mr_dereg;
	ret = grant_receive(conn, buf, &msg, &part, &pcfg);
	if (ret)
		goto err_conn_close;

	ret = run(conn, mr, &msg, part, pcfg, buf);

	if (pcfg) {
		ret2 = rpma_peer_cfg_delete(&pcfg);
		if (ret2)
			print_error("rpma_peer_cfg_delete()", ret2);
		ret = ret ? ret : ret2;
	}
	ret2 = rpma_mr_remote_delete(&part);
	if (ret2)
		print_error("rpma_mr_remote_delete()", ret2);
	ret = ret ? ret : ret2;
err_conn_close:
	/* the refused read broke the connection: nothing more to wait for on it */
	ret2 = conn_close(&conn, false);
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
