// SPDX-License-Identifier: BSD-3-Clause
/* scan.c -- unit tests of log/src/scan.c: where the valid entries of a log end */

#include "log_unit.h"
#include "scan.h"

/* what a walk saw: each entry's index and whether its payload was its own */
struct seen {
	uint64_t count, indexes[64];
	int payloads_right, stop_at;
};

static int
record(const struct log_entry *e, const uint8_t *payload, void *arg)
{
	struct seen *s = arg;
	uint8_t expected[FX_LOG_SIZE];

	if (s->stop_at >= 0 && s->count == (uint64_t)s->stop_at)
		return 99;
	fx_payload(expected, e->length, e->index);
	s->payloads_right &= memcmp(payload, expected, e->length) == 0;
	s->indexes[s->count++] = e->index;
	return 0;
}

/* LENGTHS' entries appended to a new log from index H->first, epoch 1 */
static uint8_t *
fx_filled(struct log_header *h, uint64_t first, const uint32_t *lengths, size_t n,
		uint64_t *ends)
{
	uint8_t *mem = fx_log(h);
	uint64_t end = LAYOUT_ENTRIES;

	h->first = h->committed = first;
	h->epoch = 1;
	for (size_t i = 0; i < n; i++) {
		fx_append(mem, &end, first + i, 1, first + (i ? i - 1 : 0), lengths[i]);
		ends[i] = end;
	}
	return mem;
}

static const uint32_t LENGTHS[] = { 10, 0, 64, 300, 7 };
#define N (sizeof(LENGTHS) / sizeof(LENGTHS[0]))

static void
test_scan__empty(void **state)
{
	(void) state;
	struct log_header h;
	struct scan_end end;
	struct seen s = { .payloads_right = 1, .stop_at = -1 };
	uint8_t *mem = fx_log(&h);

	assert_int_equal(scan(mem, FX_LOG_SIZE, &h, record, &s, &end), 0);
	assert_int_equal(s.count, 0);
	assert_int_equal(end.next, 0);
	assert_int_equal(end.end, LAYOUT_ENTRIES);
	assert_int_equal(end.last_epoch, 0);
	assert_int_equal(end.committed, 0);
}

/* every entry, in order, with its own payload; the walk ends at the mark */
static void
test_scan__entries(void **state)
{
	(void) state;
	struct log_header h;
	struct scan_end end;
	struct seen s = { .payloads_right = 1, .stop_at = -1 };
	uint64_t ends[N];
	uint8_t *mem = fx_filled(&h, 0, LENGTHS, N, ends);

	assert_int_equal(scan(mem, FX_LOG_SIZE, &h, record, &s, &end), 0);
	assert_int_equal(s.count, N);
	for (uint64_t i = 0; i < N; i++)
		assert_int_equal(s.indexes[i], i);
	assert_true(s.payloads_right);
	assert_int_equal(end.next, N);
	assert_int_equal(end.end, ends[N - 1]);
	assert_int_equal(end.last_epoch, 1);
	assert_int_equal(end.committed, N - 2); /* the last entry's word */
	/* the same without a callback, and a callback that stops it */
	assert_int_equal(scan(mem, FX_LOG_SIZE, &h, NULL, NULL, &end), 0);
	assert_int_equal(end.next, N);
	s = (struct seen){ .payloads_right = 1, .stop_at = 2 };
	assert_int_equal(scan(mem, FX_LOG_SIZE, &h, record, &s, &end), 99);
	assert_int_equal(s.count, 2);
}

/* a log truncated: its first entry has the index the header says */
static void
test_scan__first(void **state)
{
	(void) state;
	struct log_header h;
	struct scan_end end;
	uint64_t ends[N];
	uint8_t *mem = fx_filled(&h, 1000, LENGTHS, N, ends);

	assert_int_equal(scan(mem, FX_LOG_SIZE, &h, NULL, NULL, &end), 0);
	assert_int_equal(end.next, 1000 + N);
	h.first = 0; /* the entries of another numbering are not this log's */
	h.committed = 0;
	assert_int_equal(scan(mem, FX_LOG_SIZE, &h, NULL, NULL, &end), 0);
	assert_int_equal(end.next, 0);
	assert_int_equal(end.end, LAYOUT_ENTRIES);
}

/* the last entry torn at any byte: the log ends before it */
static void
test_scan__torn_tail(void **state)
{
	(void) state;
	struct log_header h;
	struct scan_end end;
	uint64_t ends[N];
	uint8_t *mem = fx_filled(&h, 0, LENGTHS, N, ends);

	for (uint64_t at = ends[N - 2]; at < ends[N - 2] + LAYOUT_ENTRY_HDR + LENGTHS[N - 1];
			at++) {
		mem[at] ^= 0x08;
		assert_int_equal(scan(mem, FX_LOG_SIZE, &h, NULL, NULL, &end), 0);
		assert_int_equal(end.next, N - 1);
		assert_int_equal(end.end, ends[N - 2]);
		mem[at] ^= 0x08;
	}
}

/* whole entries that are no longer the log's: an older epoch after a newer,
 * a writer newer than the header knows, a committed point going back */
static void
test_scan__stale(void **state)
{
	(void) state;
	struct log_header h;
	struct scan_end end;
	uint64_t at = LAYOUT_ENTRIES;
	uint8_t *mem = fx_log(&h);

	h.epoch = 5;
	fx_append(mem, &at, 0, 3, 0, 8);
	fx_append(mem, &at, 1, 4, 1, 8);
	fx_append(mem, &at, 2, 2, 1, 8);	/* older than the entry before */
	assert_int_equal(scan(mem, FX_LOG_SIZE, &h, NULL, NULL, &end), 0);
	assert_int_equal(end.next, 2);
	assert_int_equal(end.last_epoch, 4);
	at = end.end;
	fx_append(mem, &at, 2, 6, 1, 8);	/* newer than the header */
	assert_int_equal(scan(mem, FX_LOG_SIZE, &h, NULL, NULL, &end), 0);
	assert_int_equal(end.next, 2);
	at = end.end;
	fx_append(mem, &at, 2, 5, 0, 8);	/* committed going back */
	assert_int_equal(scan(mem, FX_LOG_SIZE, &h, NULL, NULL, &end), 0);
	assert_int_equal(end.next, 2);
	at = end.end;
	fx_append(mem, &at, 2, 5, 2, 8);
	assert_int_equal(scan(mem, FX_LOG_SIZE, &h, NULL, NULL, &end), 0);
	assert_int_equal(end.next, 3);
	assert_int_equal(end.last_epoch, 5);
}

/* an entry the header says committed that does not check: damage, not a tail */
static void
test_scan__committed_lost(void **state)
{
	(void) state;
	struct log_header h;
	struct scan_end end;
	uint64_t ends[N];
	uint8_t *mem = fx_filled(&h, 0, LENGTHS, N, ends);

	h.committed = 3;
	h.committed_end = ends[2];
	assert_int_equal(scan(mem, FX_LOG_SIZE, &h, NULL, NULL, &end), 0);
	assert_int_equal(end.committed, 3);
	mem[ends[1] + 40] ^= 1; /* in entry 2's payload */
	assert_int_equal(scan(mem, FX_LOG_SIZE, &h, NULL, NULL, &end), LAYOUT_CORRUPT);
	mem[ends[1] + 40] ^= 1;
	h.committed_end = ends[3]; /* where no committed entry ends */
	assert_int_equal(scan(mem, FX_LOG_SIZE, &h, NULL, NULL, &end), LAYOUT_CORRUPT);
}

/* a part of the log read: the walk stays in it and judges only what it holds */
static void
test_scan__part(void **state)
{
	(void) state;
	struct log_header h;
	struct scan_end end;
	uint64_t ends[N];
	uint8_t *mem = fx_filled(&h, 0, LENGTHS, N, ends);

	h.committed = N;
	h.committed_end = ends[N - 1];
	assert_int_equal(scan(mem, ends[2], &h, NULL, NULL, &end), 0);
	assert_int_equal(end.next, 3);
	assert_int_equal(end.end, ends[2]);
	assert_int_equal(end.committed, N); /* the header's word */
	assert_int_equal(scan(mem, ends[2] - 1, &h, NULL, NULL, &end), 0);
	assert_int_equal(end.next, 2);
	assert_int_equal(scan(mem, FX_LOG_SIZE, &h, NULL, NULL, &end), 0);
	assert_int_equal(end.next, N);
}

/* a log filled up: the last entry and its mark reach no further than its end */
static void
test_scan__full(void **state)
{
	(void) state;
	struct log_header h;
	struct scan_end end;
	uint8_t *mem = fx_log(&h);
	uint64_t at = LAYOUT_ENTRIES, n = 0;
	struct log_entry e = {0};
	struct iovec iov = { .iov_base = mem, .iov_len = 1000 };

	for (; at + entry_size(1000) + LAYOUT_ENTRY_HDR <= FX_LOG_SIZE; n++)
		fx_append(mem, &at, n, 0, 0, 1000);
	e.index = n;
	assert_int_equal(entry_encode(mem + at, FX_LOG_SIZE - at, &e, &iov, 1), LAYOUT_NO_ROOM);
	assert_int_equal(scan(mem, FX_LOG_SIZE, &h, NULL, NULL, &end), 0);
	assert_int_equal(end.next, n);
	assert_int_equal(end.end, at);
	assert_true(n > 50);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		TEST(test_scan__empty),
		TEST(test_scan__entries),
		TEST(test_scan__first),
		TEST(test_scan__torn_tail),
		TEST(test_scan__stale),
		TEST(test_scan__committed_lost),
		TEST(test_scan__part),
		TEST(test_scan__full),
	};
	return RUN(tests);
}
