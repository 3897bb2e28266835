/* SPDX-License-Identifier: BSD-3-Clause */
/* link.h -- a writer's connection to one replica: its grant, its stage, its answers */

#ifndef RPMALOG_LINK_H
#define RPMALOG_LINK_H

#include <stdbool.h>

#include <librpma.h>

#include "librpmalog.h"
#include "proto.h"

struct link {
	const char *replica;		/* "addr:port", the caller's */
	struct rpma_peer *peer;
	struct rpma_conn *conn;
	struct rpma_cq *cq;		/* the connection's, and its fd */
	int cq_fd;
	struct rpma_mr_local *msg_mr;
	uint8_t msg[2][PROTO_MAX_SIZE];	/* the receive's, the send's */
	struct rpma_mr_remote *entries;	/* the grant: its offset 0 is LAYOUT_ENTRIES */
	struct rpma_mr_local *stage_mr;	/* the writer's stage, registered here */
	struct proto_welcome w;		/* what the replica said of its log */
	enum rpma_flush_type flush;
	bool live;			/* it counts */
	bool posted;			/* a flush's completion awaited */
};

/*
 * Connect to L->replica with HELLO and take its welcome, within TIMEOUT_MS:
 * 0, RPMALOG_E_FENCED (it refused the epoch), RPMALOG_E_NO_PERSIST (it
 * cannot persist and FLAGS do not accept visibility), or another code.
 */
int link_open(struct link *l, const struct proto_hello *hello, int flags, int timeout_ms);

/* the writer's stage (SIZE bytes at BUF) registered with the replica's device */
int link_stage(struct link *l, void *buf, size_t size);

/* the stage's first LEN bytes written at OFFSET of the log and flushed */
int link_post(struct link *l, uint64_t offset, size_t len);

/* the posted flush: 1 completed, 0 not yet, or a code (RPMALOG_E_FENCED: refused) */
int link_poll(struct link *l);

/* the commit point sent, its completion awaited within TIMEOUT_MS */
int link_commit(struct link *l, const struct proto_commit *c, int timeout_ms);

/* LEN bytes at OFFSET of the log read into DST (SIZE bytes), within TIMEOUT_MS */
int link_read(struct link *l, void *dst, size_t size, uint64_t offset, size_t len,
		int timeout_ms);

/* LEN bytes at OFFSET of the log read into the stage, within TIMEOUT_MS */
int link_read_stage(struct link *l, uint64_t offset, size_t len, int timeout_ms);

/* the stage's first LEN bytes written at OFFSET and flushed, within TIMEOUT_MS */
int link_put(struct link *l, uint64_t offset, size_t len, int timeout_ms);

/* disconnect and free what it holds; it counts no more */
void link_close(struct link *l);

#endif /* RPMALOG_LINK_H */
