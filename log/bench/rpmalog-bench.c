// SPDX-License-Identifier: BSD-3-Clause
/*
 * rpmalog-bench.c -- what an append costs: rpmalog-bench REPLICA... (three,
 * each "addr:port" of an rpmalogd).
 *
 * The replicas' logs take 160 MiB at least: the appends fill their first
 * 128 MiB, the raw writes go above.
 *
 * For 64 B, 4 KiB and 64 KiB, in one run: one write and one flush to one
 * replica, waited for (the floor: "raw"); an append to 1, 2 and 3 replicas
 * (all of them, posted at once); and the same bytes written and flushed to
 * the replicas one after another ("seq", librpmem's way). Each line: the
 * median and the 99th percentile of a call's latency, and calls a second.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <librpmalog.h>

#include "entry.h"
#include "link.h"

#define ITERS 300
#define WARMUP 20
#define RAW_AT (128u << 20)	/* past what the appends fill */
#define RAW_SPAN (16u << 20)

static const char *const *replicas;
static uint64_t epoch;
static uint8_t *buf;
static double lat[ITERS];

static double
now_us(void)
{
	struct timespec t;

	(void) clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static int
by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void
report(const char *what, unsigned n, size_t size, double total_us)
{
	qsort(lat, ITERS, sizeof(lat[0]), by_value);
	printf("%-6s replicas %u size %6zu  median %8.1f us  p99 %8.1f us  %9.0f /s\n", what, n,
			size, lat[ITERS / 2], lat[ITERS * 99 / 100], ITERS * 1e6 / total_us);
}

/* N links to the first N replicas, each with the stage registered */
static int
links_open(struct link *l, unsigned n, size_t stage)
{
	struct proto_hello hello = { .epoch = ++epoch };

	hello.writer = hello.epoch; /* one writer an epoch */
	for (unsigned i = 0; i < n; i++) {
		l[i] = (struct link){ .replica = replicas[i] };
		if (link_open(&l[i], &hello, RPMALOG_ACCEPT_VISIBILITY, 5000) ||
				link_stage(&l[i], buf, stage))
			return 1;
	}
	return 0;
}

/* one write and one flush at a time to each of N replicas in turn (N 1: the floor) */
static int
bench_links(const char *what, unsigned n, size_t size)
{
	struct link l[3];
	uint64_t at = RAW_AT;
	double start = 0;

	if (links_open(l, n, 1 << 20))
		return 1;
	for (int k = -WARMUP; k < ITERS; k++) {
		double t0 = now_us();

		if (k == 0)
			start = t0;
		for (unsigned i = 0; i < n; i++) {
			int ret;

			if (link_post(&l[i], at, size))
				return 1;
			while ((ret = link_poll(&l[i])) == 0)
				;
			if (ret < 0)
				return 1;
		}
		if (k >= 0)
			lat[k] = now_us() - t0;
		at = at + 2 * size < RAW_AT + RAW_SPAN ? at + size : RAW_AT;
	}
	report(what, n, size, now_us() - start);
	for (unsigned i = 0; i < n; i++)
		link_close(&l[i]);
	return 0;
}

static int
bench_log(unsigned n, size_t size)
{
	struct rpmalog *log;
	uint64_t index;
	double start = 0;

	if (rpmalog_open(replicas, n, RPMALOG_POLICY_ALL, ++epoch, RPMALOG_ACCEPT_VISIBILITY,
			&log))
		return 1;
	for (int k = -WARMUP; k < ITERS; k++) {
		double t0 = now_us();

		if (k == 0)
			start = t0;
		if (rpmalog_append(log, buf, size, &index))
			return 1;
		if (k >= 0)
			lat[k] = now_us() - t0;
	}
	report("append", n, size, now_us() - start);
	return rpmalog_close(&log) != 0;
}

int
main(int argc, char *argv[])
{
	static const size_t sizes[] = { 64, 4096, 65536 };

	if (argc != 4) {
		fprintf(stderr, "usage: rpmalog-bench REPLICA REPLICA REPLICA\n");
		return 2;
	}
	replicas = (const char *const *)&argv[1];
	buf = aligned_alloc(4096, 1 << 20);
	if (buf == NULL)
		return 1;
	memset(buf, 0x5a, 1 << 20);
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		if (bench_links("raw", 1, sizes[s]))
			return 1;
		for (unsigned n = 1; n <= 3; n++)
			if (bench_log(n, sizes[s]))
				return 1;
		if (bench_links("seq", 3, sizes[s]))
			return 1;
	}
	free(buf);
	return 0;
}
