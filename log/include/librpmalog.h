/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * librpmalog.h -- a log replicated to the persistent memory of several
 * replicas (rpmalogd), appended to by one writer at a time (doc/LOG.md).
 */

#ifndef LIBRPMALOG_H
#define LIBRPMALOG_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* what fails, each a negative code; rpmalog_err_2str() names it */
#define RPMALOG_E_INVAL		(-1)	/* a bad argument */
#define RPMALOG_E_NOMEM		(-2)	/* out of memory */
#define RPMALOG_E_PROVIDER	(-3)	/* librpma or the RDMA device failed (its log says) */
#define RPMALOG_E_QUORUM	(-4)	/* fewer replicas answered than the policy needs */
#define RPMALOG_E_FENCED	(-5)	/* a writer of a newer (or the same) epoch has the log */
#define RPMALOG_E_REPLICA	(-6)	/* a replica failed under the policy "all" */
#define RPMALOG_E_PROTOCOL	(-7)	/* a replica answered what no replica says */
#define RPMALOG_E_FULL		(-8)	/* no room in the log for the entry */
#define RPMALOG_E_DIVERGED	(-9)	/* too few replicas hold the newest log alike */
#define RPMALOG_E_NO_PERSIST	(-10)	/* a replica cannot persist, and visibility was refused */

/* on how many replicas an append is durable before it returns */
enum rpmalog_policy {
	RPMALOG_POLICY_ALL,		/* every replica, or the append fails */
	RPMALOG_POLICY_MAJORITY,	/* more than half; the others are left behind */
};

/* rpmalog_open()'s flags */
#define RPMALOG_ACCEPT_VISIBILITY (1 << 0) /* a replica without persistence counts, visible */

struct rpmalog;

/*
 * Open the log held by the N replicas ("addr:port" each) as its writer of
 * EPOCH (greater than zero; its term, that the application or its
 * coordinator gives): each replica that accepts it fences every writer of
 * an older epoch before it answers. The policy's replicas must answer and
 * hold the newest log alike.
 */
int rpmalog_open(const char *const *replicas, unsigned n, enum rpmalog_policy policy,
		uint64_t epoch, int flags, struct rpmalog **log_ptr);

/* How long an operation waits for a replica (milliseconds, > 0; default 5000). */
int rpmalog_set_timeout(struct rpmalog *log, int timeout_ms);

/*
 * Append LEN bytes at BUF as one entry, posted to every replica at once;
 * returns once it is durable on the policy's replicas, its index in *INDEX.
 * A writer fenced by a newer one fails: RPMALOG_E_FENCED where a replica's
 * notice came first, else RPMALOG_E_REPLICA (its grant gone) or
 * RPMALOG_E_QUORUM; none of its bytes is in the newer writer's log.
 */
int rpmalog_append(struct rpmalog *log, const void *buf, size_t len, uint64_t *index);

/* Append the IOVCNT pieces of IOV as one entry, as rpmalog_append(). */
int rpmalog_appendv(struct rpmalog *log, const struct iovec *iov, int iovcnt,
		uint64_t *index);

/* The first index of the log, and one past its last committed entry. */
int rpmalog_tell(const struct rpmalog *log, uint64_t *first, uint64_t *next);

/* called by rpmalog_walk() on each entry; nonzero stops the walk and is returned */
typedef int rpmalog_walk_fn(uint64_t index, const void *data, size_t len, void *arg);

/* Read the committed entries from FROM on, from an up-to-date replica, in order. */
int rpmalog_walk(struct rpmalog *log, uint64_t from, rpmalog_walk_fn *fn, void *arg);

/*
 * Connect again to each replica that counts no more (back from a crash, or
 * a new one at its address), bring it to the log from one that counts and
 * count it again: *REJOINED says how many. Appends go on before and after.
 */
int rpmalog_rejoin(struct rpmalog *log, unsigned *rejoined);

/* How many replicas count now (*LIVE) of the log's (*ALL). */
int rpmalog_replicas(const struct rpmalog *log, unsigned *live, unsigned *all);

/*
 * Tell the replicas how far the log is committed and close it; *LOG_PTR
 * becomes NULL.
 */
int rpmalog_close(struct rpmalog **log_ptr);

/* A constant string describing an RPMALOG_E_* code. */
const char *rpmalog_err_2str(int ret);

#ifdef __cplusplus
}
#endif

#endif /* LIBRPMALOG_H */
