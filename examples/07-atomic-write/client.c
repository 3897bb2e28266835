// SPDX-License-Identifier: BSD-3-Clause
/*
 * 07-atomic-write/client.c -- append entries to the server's log: write
 * the entry, flush it, then publish it by storing the new tail with an
 * 8-byte rpma_atomic_write() and flushing that.
 *
 * The order is the point: the tail moves only after the entry is in place,
 * and an 8-byte atomic store is never seen torn, so a reader (or the
 * server after a crash, with a persistent flush) sees either the old log
 * or the new one, never a tail pointing at garbage.
 */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "log.h"

#define ENTRIES 3

/* the local buffer: the tail read and written, then the entry */
struct local {
	uint64_t tail;
	char entry[LOG_ENTRY_SIZE];
};

static int
flush_and_wait(struct rpma_conn *conn, struct rpma_mr_remote *remote, size_t offset, size_t len,
		enum rpma_flush_type type)
{
	struct ibv_wc wc;

	int ret = rpma_flush(conn, remote, offset, len, type, RPMA_F_COMPLETION_ALWAYS, NULL);
	if (ret) {
		print_error("rpma_flush()", ret);
		return ret;
	}
	return conn_next_wc(conn, &wc);
}

static int
read_tail(struct rpma_conn *conn, struct rpma_mr_local *mr, struct rpma_mr_remote *remote,
		struct local *l)
{
	struct ibv_wc wc;

	int ret = rpma_read(conn, mr, offsetof(struct local, tail), remote, LOG_TAIL,
			sizeof(l->tail), RPMA_F_COMPLETION_ALWAYS, NULL);
	if (ret) {
		print_error("rpma_read()", ret);
		return ret;
	}
	ret = conn_wait_for(conn, IBV_WC_RDMA_READ, &wc);
	if (!ret && l->tail > LOG_CAPACITY - ENTRIES) {
		fprintf(stderr, "the log has no room for %d entries\n", ENTRIES);
		ret = RPMA_E_INVAL;
	}
	return ret;
}

/* write the entry at the tail, then publish it with the new tail */
static int
append(struct rpma_conn *conn, struct rpma_mr_local *mr, struct rpma_mr_remote *remote,
		struct local *l, enum rpma_flush_type type)
{
	size_t entry_offset = LOG_ENTRIES + l->tail * LOG_ENTRY_SIZE;

	int ret = rpma_write(conn, remote, entry_offset, mr, offsetof(struct local, entry),
			LOG_ENTRY_SIZE, RPMA_F_COMPLETION_ON_ERROR, NULL);
	if (ret) {
		print_error("rpma_write()", ret);
		return ret;
	}
	ret = flush_and_wait(conn, remote, entry_offset, LOG_ENTRY_SIZE, type);
	if (ret)
		return ret;

	char tail[RPMA_ATOMIC_WRITE_ALIGNMENT];
	uint64_t new_tail = l->tail + 1;
	memcpy(tail, &new_tail, sizeof(tail));
	ret = rpma_atomic_write(conn, remote, LOG_TAIL, tail, RPMA_F_COMPLETION_ON_ERROR, NULL);
	if (ret) {
		print_error("rpma_atomic_write()", ret);
		return ret;
	}
	ret = flush_and_wait(conn, remote, LOG_TAIL, sizeof(tail), type);
	if (!ret)
		l->tail = new_tail;
	return ret;
}

static int
run(struct rpma_conn *conn, struct rpma_mr_local *mr, struct rpma_mr_remote *remote,
		const struct rpma_peer_cfg *pcfg, struct local *l, const char *message)
{
	enum rpma_flush_type type;
	int ret = 0;

	if (pcfg && (ret = rpma_conn_apply_remote_peer_cfg(conn, pcfg)))
		print_error("rpma_conn_apply_remote_peer_cfg()", ret);
	if (!ret)
		ret = remote_size_check(remote, MEM_DATA_SIZE);
	if (!ret)
		ret = flush_type_choose(remote, pcfg, &type);
	if (!ret)
		ret = read_tail(conn, mr, remote, l);
	for (int i = 1; !ret && i <= ENTRIES; i++) {
		snprintf(l->entry, sizeof(l->entry), "%s #%d", message, i);
		ret = append(conn, mr, remote, l, type);
		if (!ret)
			printf("appended \"%s\", the tail is now %" PRIu64 "\n", l->entry,
					l->tail);
	}
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

	client_args_parse(argc, argv, "log entry", &args);

	struct local *l = buffer_alloc(sizeof(*l));
	if (l == NULL)
		return EXIT_FAILURE;
	ret = peer_open(args.addr, false, &peer);
	if (ret)
		goto err_free;
	ret = rpma_mr_reg(peer, l, sizeof(*l), RPMA_MR_USAGE_READ_DST | RPMA_MR_USAGE_WRITE_SRC,
			&mr);
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

	ret = run(conn, mr, remote, pcfg, l, args.message);

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
	free(l);
	return ret ? EXIT_FAILURE : EXIT_SUCCESS;
}
