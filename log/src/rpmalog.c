// SPDX-License-Identifier: BSD-3-Clause
/* rpmalog.c -- the writer of a replicated log: opened on its replicas, appended to */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "entry.h"
#include "link.h"
#include "scan.h"

#define STAGE_MIN (64 * 1024)

struct rpmalog {
	enum rpmalog_policy policy;
	struct proto_hello hello;		/* the epoch, and this writer's number */
	int flags;
	int timeout_ms;
	unsigned n, quorum;
	uint64_t size, first, next, end;	/* the log as the live replicas hold it */
	uint8_t *stage;				/* an entry and its end mark, encoded */
	size_t stage_size;
	int failed;				/* why an append failed under "all" */
	struct link links[];
};

static uint64_t
now_ms(void)
{
	struct timespec t;

	(void) clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}

static unsigned
live(const struct rpmalog *log)
{
	unsigned n = 0;

	for (unsigned i = 0; i < log->n; i++)
		n += log->links[i].live;
	return n;
}

/* a replica that failed counts no more: with "all" the log does not go on */
static void
left_behind(struct rpmalog *log, struct link *l)
{
	fprintf(stderr, "rpmalog: %s: left behind\n", l->replica);
	link_close(l);
	if (log->policy == RPMALOG_POLICY_ALL && !log->failed)
		log->failed = RPMALOG_E_REPLICA;
}

/* a stage of at least SIZE bytes, registered with every live replica's device */
static int
staged(struct rpmalog *log, size_t size)
{
	size_t want = log->stage_size ? log->stage_size : STAGE_MIN;
	uint8_t *stage;

	if (size <= log->stage_size)
		return 0;
	while (want < size)
		want *= 2;
	stage = aligned_alloc(4096, want);
	if (stage == NULL)
		return RPMALOG_E_NOMEM;
	for (unsigned i = 0; i < log->n; i++)
		if (log->links[i].live && link_stage(&log->links[i], stage, want))
			left_behind(log, &log->links[i]);
	free(log->stage);
	log->stage = stage;
	log->stage_size = want;
	return 0;
}

/* the newest log of the welcomes: the latest last epoch, then the longest */
static const struct proto_welcome *
newest(const struct rpmalog *log)
{
	const struct proto_welcome *best = NULL;

	for (unsigned i = 0; i < log->n; i++) {
		const struct proto_welcome *w = &log->links[i].w;

		if (log->links[i].live && (best == NULL || w->last_epoch > best->last_epoch ||
				(w->last_epoch == best->last_epoch && w->end > best->end)))
			best = w;
	}
	return best;
}

static bool
alike(const struct proto_welcome *a, const struct proto_welcome *b)
{
	return a->end == b->end && a->next == b->next && a->last_epoch == b->last_epoch &&
			a->first == b->first;
}

/*
 * L made to hold the log of SRC, a replica that holds the newest: every
 * entry copied through the stage (whatever L held there, a shorter log or
 * an older writer's tail, is overwritten), an end mark after them.
 */
static int
caught_up(struct rpmalog *log, struct link *src, struct link *l)
{
	size_t chunk = log->stage_size - LAYOUT_ENTRY_HDR;
	int ret = 0;

	if (l->w.size < log->end + LAYOUT_ENTRY_HDR || l->w.first != log->first)
		return RPMALOG_E_FULL;
	for (uint64_t at = LAYOUT_ENTRIES; at < log->end && !ret; at += chunk) {
		size_t len = log->end - at < chunk ? (size_t)(log->end - at) : chunk;

		ret = link_read_stage(src, at, len, log->timeout_ms);
		if (!ret)
			ret = link_put(l, at, len, log->timeout_ms);
	}
	if (!ret) {
		entry_mark_end(log->stage);
		ret = link_put(l, log->end, LAYOUT_ENTRY_HDR, log->timeout_ms);
	}
	if (!ret) {
		l->w.next = log->next;
		l->w.end = log->end;
		l->w.last_epoch = src->w.last_epoch;
	}
	return ret;
}

/*
 * The entries from FROM (the newest log's committed end) on, rewritten at
 * this writer's epoch on every replica that counts. A writer fenced before
 * them may have left a longer tail of an older epoch elsewhere: a later
 * writer, preferring the latest last epoch, then takes this log, so no
 * reader sees two entries at one index.
 */
static int
restamped(struct rpmalog *log, struct link *src, uint64_t from)
{
	size_t len = (size_t)(log->end - from);
	int ret = len ? staged(log, len + LAYOUT_ENTRY_HDR) : 0;

	if (len == 0 || ret)
		return ret;
	/* zeroed: valgrind cannot see the device fill it */
	memset(log->stage, 0, len);
	ret = link_read_stage(src, from, len, log->timeout_ms);
	for (uint8_t *p = log->stage; !ret && p < log->stage + len; )
		p += entry_restamp(p, log->hello.epoch);
	entry_mark_end(log->stage + len);
	for (unsigned i = 0; i < log->n && !ret; i++)
		if (log->links[i].live &&
				link_put(&log->links[i], from, len + LAYOUT_ENTRY_HDR, log->timeout_ms))
			left_behind(log, &log->links[i]);
	return ret;
}

/*
 * The newest log taken as the log: a quorum holds it, or will once the
 * replicas behind it are caught up from one that holds it (a replica that
 * cannot be is left behind), and its tail past the committed end is this
 * writer's then. All of it counts as committed.
 */
static int
recovered(struct rpmalog *log)
{
	const struct proto_welcome *b = newest(log);
	struct link *src = NULL;

	log->size = b->size;
	log->first = b->first;
	log->next = b->next;
	log->end = b->end;
	for (unsigned i = 0; i < log->n && src == NULL; i++)
		if (log->links[i].live && alike(&log->links[i].w, b))
			src = &log->links[i];
	for (unsigned i = 0; i < log->n; i++) {
		struct link *l = &log->links[i];

		if (l->live && !alike(&l->w, b) && caught_up(log, src, l))
			left_behind(log, l);
	}
	if (live(log) < log->quorum)
		return RPMALOG_E_DIVERGED;
	return restamped(log, src, b->committed_end) || live(log) < log->quorum ?
			RPMALOG_E_QUORUM : 0;
}

int
rpmalog_open(const char *const *replicas, unsigned n, enum rpmalog_policy policy,
		uint64_t epoch, int flags, struct rpmalog **log_ptr)
{
	struct rpmalog *log;
	int ret = 0, why = RPMALOG_E_QUORUM;

	if (replicas == NULL || n == 0 || epoch == 0 || log_ptr == NULL ||
			(policy != RPMALOG_POLICY_ALL && policy != RPMALOG_POLICY_MAJORITY) ||
			(flags & ~RPMALOG_ACCEPT_VISIBILITY))
		return RPMALOG_E_INVAL;
	log = calloc(1, sizeof(*log) + n * sizeof(log->links[0]));
	if (log == NULL)
		return RPMALOG_E_NOMEM;
	*log = (struct rpmalog){ .policy = policy, .hello.epoch = epoch, .flags = flags,
		.timeout_ms = 5000, .n = n, .quorum = policy == RPMALOG_POLICY_ALL ? n : n / 2 + 1 };
	/* two writers of one epoch are told apart by this number */
	if (getrandom(&log->hello.writer, sizeof(log->hello.writer), 0) != sizeof(uint64_t))
		log->hello.writer = now_ms() ^ (uintptr_t)log;
	for (unsigned i = 0; i < n; i++) {
		log->links[i].replica = replicas[i];
		ret = link_open(&log->links[i], &log->hello, flags, log->timeout_ms);
		/* a fence or a refused persistence says more than a missing quorum */
		if (ret == RPMALOG_E_FENCED || ret == RPMALOG_E_NO_PERSIST)
			why = ret;
		if (ret)
			link_close(&log->links[i]);
	}
	ret = live(log) < log->quorum ? why : staged(log, STAGE_MIN);
	if (!ret)
		ret = recovered(log);
	if (ret) {
		log->end = 0; /* no commit point to tell: nothing was taken */
		(void) rpmalog_close(&log);
		return ret;
	}
	*log_ptr = log;
	return 0;
}

int
rpmalog_set_timeout(struct rpmalog *log, int timeout_ms)
{
	if (log == NULL || timeout_ms <= 0)
		return RPMALOG_E_INVAL;
	log->timeout_ms = timeout_ms;
	return 0;
}

/* every live replica's flush awaited until the deadline; the late ones left behind */
static int
awaited(struct rpmalog *log)
{
	uint64_t deadline = now_ms() + (uint64_t)log->timeout_ms;
	unsigned pending;
	int why = RPMALOG_E_QUORUM;

	do {
		pending = 0;
		for (unsigned i = 0; i < log->n; i++) {
			struct link *l = &log->links[i];
			int ret = l->live && l->posted ? link_poll(l) : 1;

			pending += ret == 0;
			if (ret < 0) {
				why = ret == RPMALOG_E_FENCED ? ret : why;
				left_behind(log, l);
				if (ret == RPMALOG_E_FENCED && log->failed)
					log->failed = ret;
			}
		}
	} while (pending && now_ms() < deadline);
	for (unsigned i = 0; i < log->n; i++)
		if (log->links[i].live && log->links[i].posted)
			left_behind(log, &log->links[i]);
	if (log->failed)
		return log->failed;
	return live(log) < log->quorum ? why : 0;
}

int
rpmalog_appendv(struct rpmalog *log, const struct iovec *iov, int iovcnt, uint64_t *index)
{
	struct log_entry e;
	uint64_t length = 0;
	int64_t bytes;
	int ret;

	if (log == NULL || index == NULL || iovcnt < 0 || (iov == NULL && iovcnt > 0))
		return RPMALOG_E_INVAL;
	if (log->failed || live(log) < log->quorum)
		return log->failed ? log->failed : RPMALOG_E_QUORUM;
	/* summed piece by piece below the length field's limit: the sum never wraps */
	for (int i = 0; i < iovcnt && length <= UINT32_MAX; i++) {
		if (iov[i].iov_base == NULL && iov[i].iov_len > 0)
			return RPMALOG_E_INVAL;
		length += iov[i].iov_len > UINT32_MAX ? (uint64_t)UINT32_MAX + 1 : iov[i].iov_len;
	}
	if (length > UINT32_MAX || log->end + entry_size(length) + LAYOUT_ENTRY_HDR > log->size)
		return RPMALOG_E_FULL;
	ret = staged(log, entry_size(length) + LAYOUT_ENTRY_HDR);
	if (ret || live(log) < log->quorum)
		return ret ? ret : RPMALOG_E_QUORUM;
	/* the entries before it are durable on a quorum: its header says so */
	e = (struct log_entry){ .index = log->next, .epoch = log->hello.epoch, .committed = log->next };
	bytes = entry_encode(log->stage, log->stage_size, &e, iov, iovcnt);
	for (unsigned i = 0; i < log->n; i++)
		if (log->links[i].live && link_post(&log->links[i], log->end, (size_t)bytes))
			left_behind(log, &log->links[i]);
	ret = awaited(log);
	if (ret)
		return ret;
	*index = log->next++;
	log->end += entry_size(length);
	return 0;
}

int
rpmalog_append(struct rpmalog *log, const void *buf, size_t len, uint64_t *index)
{
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };

	if (buf == NULL && len > 0)
		return RPMALOG_E_INVAL;
	return rpmalog_appendv(log, &iov, 1, index);
}

int
rpmalog_rejoin(struct rpmalog *log, unsigned *rejoined)
{
	struct link *src = NULL;
	unsigned n = 0;

	if (log == NULL || rejoined == NULL)
		return RPMALOG_E_INVAL;
	if (log->failed)
		return log->failed;
	for (unsigned i = 0; i < log->n && src == NULL; i++)
		if (log->links[i].live)
			src = &log->links[i];
	for (unsigned i = 0; i < log->n && src; i++) {
		struct link *l = &log->links[i];

		if (l->live)
			continue;
		link_close(l);
		*l = (struct link){ .replica = l->replica };
		/* the same writer again: the replica fences its earlier connection */
		if (link_open(l, &log->hello, log->flags, log->timeout_ms) ||
				link_stage(l, log->stage, log->stage_size) ||
				caught_up(log, src, l))
			link_close(l);
		else
			n++;
	}
	*rejoined = n;
	return 0;
}

int
rpmalog_tell(const struct rpmalog *log, uint64_t *first, uint64_t *next)
{
	if (log == NULL || first == NULL || next == NULL)
		return RPMALOG_E_INVAL;
	*first = log->first;
	*next = log->next;
	return 0;
}

int
rpmalog_replicas(const struct rpmalog *log, unsigned *live_n, unsigned *all)
{
	if (log == NULL || live_n == NULL || all == NULL)
		return RPMALOG_E_INVAL;
	*live_n = live(log);
	*all = log->n;
	return 0;
}

struct walk {
	uint64_t from;
	rpmalog_walk_fn *fn;
	void *arg;
};

static int
walked(const struct log_entry *e, const uint8_t *payload, void *arg)
{
	struct walk *w = arg;

	return e->index < w->from ? 0 : w->fn(e->index, payload, e->length, w->arg);
}

int
rpmalog_walk(struct rpmalog *log, uint64_t from, rpmalog_walk_fn *fn, void *arg)
{
	struct log_header h;
	struct scan_end end;
	struct walk w = { from, fn, arg };
	struct link *l = NULL;
	uint8_t *buf;
	int ret;

	if (log == NULL || fn == NULL)
		return RPMALOG_E_INVAL;
	for (unsigned i = 0; i < log->n && l == NULL; i++)
		if (log->links[i].live)
			l = &log->links[i];
	if (l == NULL)
		return RPMALOG_E_QUORUM;
	buf = aligned_alloc(4096, (log->end + 4095) / 4096 * 4096);
	if (buf == NULL)
		return RPMALOG_E_NOMEM;
	/* zeroed: valgrind cannot see the device fill it */
	memset(buf, 0, log->end);
	ret = log->end == LAYOUT_ENTRIES ? 0 : link_read(l, buf + LAYOUT_ENTRIES,
			log->end - LAYOUT_ENTRIES, LAYOUT_ENTRIES, log->end - LAYOUT_ENTRIES,
			log->timeout_ms);
	/* only what is committed: the walk ends where the writer's log does */
	h = (struct log_header){ .size = log->end, .epoch = log->hello.epoch, .first = log->first,
		.committed = log->first, .committed_end = LAYOUT_ENTRIES };
	if (!ret)
		ret = scan(buf, log->end, &h, walked, &w, &end);
	if (!ret && end.next != log->next) {
		fprintf(stderr, "rpmalog: %s: entries %llu to %llu do not check\n", l->replica,
				(unsigned long long)end.next, (unsigned long long)log->next);
		ret = RPMALOG_E_PROTOCOL;
	}
	free(buf);
	return ret;
}

int
rpmalog_close(struct rpmalog **log_ptr)
{
	struct rpmalog *log;
	struct proto_commit c;
	int ret = 0;

	if (log_ptr == NULL || *log_ptr == NULL)
		return RPMALOG_E_INVAL;
	log = *log_ptr;
	c = (struct proto_commit){ .committed = log->next, .committed_end = log->end };
	for (unsigned i = 0; i < log->n; i++) {
		struct link *l = &log->links[i];

		if (l->live && !log->failed && log->end && link_commit(l, &c, log->timeout_ms))
			ret = RPMALOG_E_REPLICA;
		link_close(l);
	}
	free(log->stage);
	free(log);
	*log_ptr = NULL;
	return ret;
}

const char *
rpmalog_err_2str(int ret)
{
	static const char *const text[] = {
		[-RPMALOG_E_INVAL] = "a bad argument",
		[-RPMALOG_E_NOMEM] = "out of memory",
		[-RPMALOG_E_PROVIDER] = "librpma or the RDMA device failed",
		[-RPMALOG_E_QUORUM] = "fewer replicas than the policy needs",
		[-RPMALOG_E_FENCED] = "a writer of a newer epoch has the log",
		[-RPMALOG_E_REPLICA] = "a replica failed",
		[-RPMALOG_E_PROTOCOL] = "a replica answered what no replica says",
		[-RPMALOG_E_FULL] = "no room in the log",
		[-RPMALOG_E_DIVERGED] = "too few replicas hold the newest log",
		[-RPMALOG_E_NO_PERSIST] = "a replica cannot persist",
	};

	if (ret == 0)
		return "success";
	if (ret > 0 || -ret >= (int)(sizeof(text) / sizeof(text[0])))
		return "an unknown error";
	return text[-ret];
}
