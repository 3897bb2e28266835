// SPDX-License-Identifier: BSD-3-Clause
/*
 * scale.c -- rpma-bench client --scale: many connections at once, lib and
 * raw alternating as everywhere else. The connection set-up rate: open
 * --rate-conns connections one after the other and hold them (connections
 * per second until the last is established), then close them (the
 * teardown rate). The aggregate bandwidth: writes of the first --sizes
 * size, --depth in flight on each of 1, 2, 4 ... (--conns) connections,
 * served round robin by one thread.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"

/* a bandwidth run with no completion for this long has hung */
#define STALL_LIMIT_S 20

struct scale {
	const struct client_opts *o;
	const struct xport *const *x;
	void **ctx;
	const char (*ports)[16];
	struct xconn *conn[MAX_CONNS];
	FILE *csv;
};

/* open n connections that the server holds, one after the other */
static int
open_all(struct scale *s, enum mode m, uint32_t n, uint32_t depth)
{
	struct hello hello = {
		.magic = HELLO_MAGIC, .workload = WL_WRITE, .depth = depth,
		.msg_size = sizeof(struct persist_req), .flags = HELLO_HOLD,
	};

	for (uint32_t i = 0; i < n; i++) {
		if (s->x[m]->connect(s->ctx[m], s->o->addr, s->ports[m], &hello, &s->conn[i])) {
			BENCH_LOG("%s: connection %u of %u failed\n", mode_name(m), i + 1, n);
			while (i > 0)
				(void) s->x[m]->disconnect(&s->conn[--i]);
			return -1;
		}
	}
	return 0;
}

static int
close_all(struct scale *s, enum mode m, uint32_t n)
{
	int ret = 0;

	for (uint32_t i = 0; i < n; i++)
		if (s->x[m]->disconnect(&s->conn[i]))
			ret = -1;
	return ret;
}

/* connections per second: set up (held) and torn down */
static int
setup_rate(struct scale *s, enum mode m, double *up, double *down)
{
	uint32_t n = s->o->rate_conns;
	double t0 = now_s();

	if (open_all(s, m, n, 1))
		return -1;
	double t1 = now_s();
	int ret = close_all(s, m, n);
	double t2 = now_s();
	*up = n / (t1 - t0);
	*down = n / (t2 - t1);
	return ret;
}

/* keep depth writes in flight on each connection until end; count the completions */
static int
write_until(struct scale *s, enum mode m, uint32_t n, double end, uint64_t *done)
{
	const struct xport_ops *ops = s->x[m]->ops;
	const struct client_opts *o = s->o;
	size_t size = o->sizes[0];
	uint64_t posted[MAX_CONNS] = {0}, completed[MAX_CONNS] = {0};
	uint64_t inflight = 0;
	double last_progress = now_s();
	struct ibv_wc wc[16];
	bool posting = true;

	*done = 0;
	while (posting || inflight) {
		if (posting && now_s() >= end)
			posting = false;
		int got_any = 0;
		for (uint32_t i = 0; i < n; i++) {
			while (posting && posted[i] - completed[i] < o->depth) {
				size_t off = (posted[i] % o->depth) * size;
				if (ops->write(s->conn[i], off, off, size, true)) {
					BENCH_LOG("%s: posting a write failed\n", mode_name(m));
					return -1;
				}
				posted[i]++;
				inflight++;
			}
			int got = ops->poll(s->conn[i], wc, 16);
			if (got < 0)
				return -1;
			for (int k = 0; k < got; k++) {
				if (wc[k].status != IBV_WC_SUCCESS) {
					BENCH_LOG("%s: write completion error: %s\n", mode_name(m),
							ibv_wc_status_str(wc[k].status));
					return -1;
				}
			}
			completed[i] += (uint64_t)got;
			inflight -= (uint64_t)got;
			*done += (uint64_t)got;
			got_any += got;
		}
		if (got_any)
			last_progress = now_s();
		else if (now_s() - last_progress > STALL_LIMIT_S) {
			BENCH_LOG("%s: no completion for %d s\n", mode_name(m), STALL_LIMIT_S);
			return -1;
		}
	}
	return 0;
}

/* the aggregate bandwidth of n connections, in op/s */
static int
multi_bw(struct scale *s, enum mode m, uint32_t n, double *ops_s)
{
	uint64_t done;

	if (open_all(s, m, n, s->o->depth))
		return -1;
	double start = now_s();
	int ret = write_until(s, m, n, start + s->o->duration / 4, &done);	/* warm-up */
	start = now_s();
	if (!ret)
		ret = write_until(s, m, n, start + s->o->duration, &done);
	*ops_s = (double)done / (now_s() - start);
	if (close_all(s, m, n))
		ret = -1;
	return ret;
}

/* the median of each mode's runs and of the ratios of the runs made back to back */
static void
report(struct scale *s, const char *what, uint32_t conns, size_t size, const char *unit,
		double runs[MODE_COUNT][MAX_REPS], double scale_by)
{
	const struct client_opts *o = s->o;
	double ratio[MAX_REPS];
	int nr = 0;

	if (o->modes[MODE_LIB] && o->modes[MODE_RAW])
		for (int r = 0; r < o->reps; r++)
			if (runs[MODE_RAW][r] > 0)
				ratio[nr++] = runs[MODE_LIB][r] / runs[MODE_RAW][r];
	for (int m = 0; m < MODE_COUNT; m++) {
		if (!o->modes[m])
			continue;
		double med = median(runs[m], (size_t)o->reps) * scale_by;
		printf("%s %s conns=%u size=%zu %s=%.2f\n", what, mode_name(m), conns, size, unit,
				med);
		if (s->csv)
			fprintf(s->csv, "%s,%u,%zu,%s,%s,%.3f\n", what, conns, size, mode_name(m),
					unit, med);
	}
	if (nr) {
		double mid = median(ratio, (size_t)nr);
		printf("ratio %s %u lib/raw=%.3f\nspread %s %u lib/raw=%.3f..%.3f\n", what, conns,
				mid, what, conns, ratio[0], ratio[nr - 1]);
	}
	fflush(stdout);
}

/*
 * What one connection costs, counted by the tools that read the marks: in
 * each mode one connection opened and closed first (what happens once per
 * process is not a connection's), then n opened one after the other, each
 * set-up marked, and closed, each teardown marked.
 */
int
conn_calls_run(const struct client_opts *o, const struct xport *const x[MODE_COUNT],
		void *ctx[MODE_COUNT], const char ports[MODE_COUNT][16])
{
	struct scale s = {.o = o, .x = x, .ctx = ctx, .ports = ports};
	uint32_t n = o->conn_calls;
	struct hello hello = {
		.magic = HELLO_MAGIC, .workload = WL_WRITE, .depth = 1,
		.msg_size = sizeof(struct persist_req), .flags = HELLO_HOLD,
	};

	count_marks_on();
	for (int m = 0; m < MODE_COUNT; m++) {
		if (!o->modes[m])
			continue;
		if (open_all(&s, (enum mode)m, 1, 1) || close_all(&s, (enum mode)m, 1))
			return -1;
		for (uint32_t i = 0; i < n; i++) {
			count_mark("setup", (enum mode)m);
			int ret = x[m]->connect(ctx[m], o->addr, ports[m], &hello, &s.conn[i]);
			count_mark("-", (enum mode)m);
			if (ret) {
				BENCH_LOG("%s: connection %u failed\n", mode_name((enum mode)m), i + 1);
				(void) close_all(&s, (enum mode)m, i);
				return -1;
			}
		}
		int ret = 0;
		for (uint32_t i = 0; i < n; i++) {
			count_mark("teardown", (enum mode)m);
			if (x[m]->disconnect(&s.conn[i]))
				ret = -1;
			count_mark("-", (enum mode)m);
		}
		if (ret)
			return -1;
		printf("conn-calls %s %u connections marked\n", mode_name((enum mode)m), n);
	}
	return 0;
}

int
scale_run(const struct client_opts *o, const struct xport *const x[MODE_COUNT],
		void *ctx[MODE_COUNT], const char ports[MODE_COUNT][16])
{
	struct scale s = {.o = o, .x = x, .ctx = ctx, .ports = ports};
	double up[MODE_COUNT][MAX_REPS], down[MODE_COUNT][MAX_REPS];
	double bw[MODE_COUNT][MAX_REPS];
	int ret = 0;

	if (o->csv_path) {
		s.csv = fopen(o->csv_path, "w");
		if (s.csv == NULL) {
			perror(o->csv_path);
			return -1;
		}
		fprintf(s.csv, "measure,conns,size,mode,unit,median\n");
	}
	/* lib first on even repetitions, raw first on odd ones */
	for (int r = 0; r < o->reps && !ret; r++)
		for (int i = 0; i < MODE_COUNT && !ret; i++) {
			enum mode m = (enum mode)((i + r) % MODE_COUNT);
			if (o->modes[m])
				ret = setup_rate(&s, m, &up[m][r], &down[m][r]);
		}
	if (!ret) {
		report(&s, "setup", o->rate_conns, 0, "conn/s", up, 1);
		report(&s, "teardown", o->rate_conns, 0, "conn/s", down, 1);
	}
	for (int k = 0; k < o->nconns && !ret; k++) {
		for (int r = 0; r < o->reps && !ret; r++)
			for (int i = 0; i < MODE_COUNT && !ret; i++) {
				enum mode m = (enum mode)((i + r) % MODE_COUNT);
				if (o->modes[m])
					ret = multi_bw(&s, m, o->conns[k], &bw[m][r]);
			}
		if (!ret)
			report(&s, "multi-bw", o->conns[k], o->sizes[0], "MiB/s", bw,
					(double)o->sizes[0] / (1024.0 * 1024.0));
	}
	if (s.csv && fclose(s.csv)) {
		perror(o->csv_path);
		ret = -1;
	}
	return ret;
}
