/* SPDX-License-Identifier: BSD-3-Clause */
/* proto.h -- what a writer and a replica say to each other, byte for byte */

#ifndef RPMALOG_PROTO_H
#define RPMALOG_PROTO_H

#include <stddef.h>
#include <stdint.h>

/*
 * The writer's hello travels in the private data of its connection; the
 * replica answers in a message once the connection is up, since the grant
 * it carries is bound on that connection.
 */
enum proto_kind {
	PROTO_HELLO = 1,	/* writer: who it is */
	PROTO_WELCOME = 2,	/* replica: its log, and the grant of its entries */
	PROTO_REFUSE = 3,	/* replica: why not */
	PROTO_COMMIT = 4,	/* writer: how far the log is committed */
};

/* why a replica refuses a writer */
enum proto_reason {
	PROTO_STALE_EPOCH = 1,	/* it accepted a newer epoch */
	PROTO_EPOCH_TAKEN = 2,	/* another writer of this epoch is connected */
	PROTO_NO_GRANT = 3,	/* its device binds no grant */
};

#define PROTO_HELLO_SIZE 24
#define PROTO_DESC_MAX 32	/* room for a grant's or a peer's descriptor */
#define PROTO_WELCOME_SIZE (8 + 8 * 8 + 2 + 2 * PROTO_DESC_MAX)
#define PROTO_REFUSE_SIZE 24
#define PROTO_COMMIT_SIZE 24
#define PROTO_MAX_SIZE PROTO_WELCOME_SIZE

#define PROTO_BAD (-1)	/* not a message of this protocol's version, or not whole */

struct proto_hello {
	uint64_t epoch;		/* the writer's term */
	uint64_t writer;	/* tells two writers of one epoch apart */
};

struct proto_welcome {
	/* the replica's header */
	uint64_t size, epoch, first, committed, committed_end;
	/* where its valid entries end: the next index, its place, the last epoch */
	uint64_t next, end, last_epoch;
	/* the grant of [LAYOUT_ENTRIES, size), and the replica's peer configuration */
	uint8_t grant_size, pcfg_size;
	uint8_t grant[PROTO_DESC_MAX], pcfg[PROTO_DESC_MAX];
};

struct proto_refuse {
	uint32_t reason;	/* enum proto_reason */
	uint64_t epoch;		/* the replica's */
};

struct proto_commit {
	uint64_t committed, committed_end;
};

/* each message into BUF (its *_SIZE bytes): the bytes written, 0 for a descriptor too long */
size_t proto_hello_encode(const struct proto_hello *m, uint8_t *buf);
size_t proto_welcome_encode(const struct proto_welcome *m, uint8_t *buf);
size_t proto_refuse_encode(const struct proto_refuse *m, uint8_t *buf);
size_t proto_commit_encode(const struct proto_commit *m, uint8_t *buf);

/* the kind of the LEN bytes at BUF, or PROTO_BAD */
int proto_kind(const uint8_t *buf, size_t len);

/* a message of its kind decoded from LEN bytes, checked: 0 or PROTO_BAD */
int proto_hello_decode(const uint8_t *buf, size_t len, struct proto_hello *m);
int proto_welcome_decode(const uint8_t *buf, size_t len, struct proto_welcome *m);
int proto_refuse_decode(const uint8_t *buf, size_t len, struct proto_refuse *m);
int proto_commit_decode(const uint8_t *buf, size_t len, struct proto_commit *m);

#endif /* RPMALOG_PROTO_H */
