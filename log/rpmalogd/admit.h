/* SPDX-License-Identifier: BSD-3-Clause */
/* admit.h -- which writers a replica serves: the epoch rule and the fence */

#ifndef RPMALOGD_ADMIT_H
#define RPMALOGD_ADMIT_H

#include <stddef.h>
#include <stdint.h>

#include "proto.h"

#define ADMIT_MAX 16 /* writers' connections served at once, fenced ones included */

struct admit_writer {
	uint64_t epoch, writer;
	void *conn; /* the daemon's, never looked into */
};

/* the replica's epoch (as its header holds it) and the writers it serves */
struct admit {
	uint64_t epoch;
	size_t n;
	struct admit_writer live[ADMIT_MAX];
};

enum admit_verdict {
	ADMIT_REFUSE,		/* answer with a refusal */
	ADMIT_SAME_EPOCH,	/* serve it */
	ADMIT_NEW_EPOCH,	/* persist its epoch in the header first, then serve it */
};

/* what to do with HELLO; *REASON says why where the verdict is ADMIT_REFUSE */
enum admit_verdict admit_judge(const struct admit *a, const struct proto_hello *hello,
		uint32_t *reason);

/*
 * The connections HELLO's writer fences, into FENCED (ADMIT_MAX of them):
 * every writer of an older epoch, and the writer's own earlier connections.
 * Their grants are revoked before it is answered. Returns how many.
 */
size_t admit_fenced(const struct admit *a, const struct proto_hello *hello, void **fenced);

/*
 * HELLO's writer served on CONN (its epoch become the replica's): 0, or -1
 * when ADMIT_MAX connections are served already.
 */
int admit_add(struct admit *a, const struct proto_hello *hello, void *conn);

/* CONN no longer served (it closed, or it was fenced); nothing if unknown */
void admit_remove(struct admit *a, const void *conn);

#endif /* RPMALOGD_ADMIT_H */
