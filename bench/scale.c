// SPDX-License-Identifier: BSD-3-Clause
/*
 * scale.c -- rpma-bench client --scale: many connections at once, lib and
 * raw alternating as everywhere else. The connection set-up rate: open
 * --rate-conns connections one after the other and hold them (connections
 * per second until the last is established), then close them (the
 * teardown rate), in lib also with a grant on each connection (the data
 * reached through it, its descriptor sent in a message) next to the plain
 * lib runs. The aggregate bandwidth: writes of the first --sizes size,
 * --depth in flight on each of 1, 2, 4 ... (--conns) connections, served
 * round robin by one thread.
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

/*
 * Open n connections that the server holds, one after the other; flags:
 * HELLO_GRANT or 0. With mark, each set-up is a phase of that label
 * (count_mark()).
 */
static int
open_all(struct scale *s, enum mode m, uint32_t flags, uint32_t n, uint32_t depth,
		const char *mark)
{
	struct hello hello = {
		.magic = HELLO_MAGIC, .workload = WL_WRITE, .depth = depth,
		.msg_size = sizeof(struct persist_req), .flags = HELLO_HOLD | flags,
	};

	for (uint32_t i = 0; i < n; i++) {
		if (mark)
			count_mark("setup", mark);
		int ret = s->x[m]->connect(s->ctx[m], s->o->addr, s->ports[m], &hello, &s->conn[i]);
		if (mark)
			count_mark("-", mark);
		if (ret) {
			BENCH_LOG("%s: connection %u of %u failed\n", mode_name(m), i + 1, n);
			while (i > 0)
				(void) s->x[m]->disconnect(&s->conn[--i]);
			return -1;
		}
	}
	return 0;
}

/* ... and close them, each teardown a phase of the label mark if given */
static int
close_all(struct scale *s, enum mode m, uint32_t n, const char *mark)
{
	int ret = 0;

	for (uint32_t i = 0; i < n; i++) {
		if (mark)
			count_mark("teardown", mark);
		if (s->x[m]->disconnect(&s->conn[i]))
			ret = -1;
		if (mark)
			count_mark("-", mark);
	}
	return ret;
}

/* connections per second: set up (held) and torn down */
static int
setup_rate(struct scale *s, enum mode m, uint32_t flags, double *up, double *down)
{
	uint32_t n = s->o->rate_conns;
	double t0 = now_s();

	if (open_all(s, m, flags, n, 1, NULL))
		return -1;
	double t1 = now_s();
	int ret = close_all(s, m, n, NULL);
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

	if (open_all(s, m, 0, n, s->o->depth, NULL))
		return -1;
	double start = now_s();
	int ret = write_until(s, m, n, start + s->o->duration / 4, &done);	/* warm-up */
	start = now_s();
	if (!ret)
		ret = write_until(s, m, n, start + s->o->duration, &done);
	*ops_s = (double)done / (now_s() - start);
	if (close_all(s, m, n, NULL))
		ret = -1;
	return ret;
}

/* the median of n values, v left as it is */
static double
median_of(const double *v, int n)
{
	double c[MAX_REPS];

	memcpy(c, v, (size_t)n * sizeof(*v));
	return median(c, (size_t)n);
}

/* the median of one mode's runs: printed, and a row of the CSV */
static void
report_row(struct scale *s, const char *what, const char *mode, uint32_t conns, size_t size,
		const char *unit, const double *runs, double scale_by)
{
	double med = median_of(runs, s->o->reps) * scale_by;

	printf("%s %s conns=%u size=%zu %s=%.2f\n", what, mode, conns, size, unit, med);
	if (s->csv)
		fprintf(s->csv, "%s,%u,%zu,%s,%s,%.3f\n", what, conns, size, mode, unit, med);
}

/* the median of the ratios a/b of the runs made back to back, and their range */
static void
report_ratio(struct scale *s, const char *what, uint32_t conns, const char *name,
		const double *a, const double *b)
{
	double ratio[MAX_REPS];
	int nr = 0;

	for (int r = 0; r < s->o->reps; r++)
		if (b[r] > 0)
			ratio[nr++] = a[r] / b[r];
	if (nr == 0)
		return;
	double mid = median(ratio, (size_t)nr);
	printf("ratio %s %u %s=%.3f\nspread %s %u %s=%.3f..%.3f\n", what, conns, name, mid,
			what, conns, name, ratio[0], ratio[nr - 1]);
}

/* the median of each mode's runs and of the ratios of the runs made back to back */
static void
report(struct scale *s, const char *what, uint32_t conns, size_t size, const char *unit,
		double runs[MODE_COUNT][MAX_REPS], double scale_by)
{
	const struct client_opts *o = s->o;

	for (int m = 0; m < MODE_COUNT; m++)
		if (o->modes[m])
			report_row(s, what, mode_name((enum mode)m), conns, size, unit, runs[m],
					scale_by);
	if (o->modes[MODE_LIB] && o->modes[MODE_RAW])
		report_ratio(s, what, conns, "lib/raw", runs[MODE_LIB], runs[MODE_RAW]);
	fflush(stdout);
}

/* lib connections with a grant each against the plain lib ones of the same repetitions */
static void
report_grant(struct scale *s, const char *what, const double *grant, const double *plain)
{
	report_row(s, what, mode_name(MODE_LIB), s->o->rate_conns, 0, "conn/s", grant, 1);
	report_ratio(s, what, s->o->rate_conns, "grant/plain", grant, plain);
	fflush(stdout);
}

/*
 * What one connection costs, counted by the tools that read the marks: in
 * each mode, and in lib again with a grant each, one connection opened and
 * closed first (what happens once per process is not a connection's),
 * then n opened one after the other, each set-up marked, and closed, each
 * teardown marked.
 */
int
conn_calls_run(const struct client_opts *o, const struct xport *const x[MODE_COUNT],
		void *ctx[MODE_COUNT], const char ports[MODE_COUNT][16])
{
	struct scale s = {.o = o, .x = x, .ctx = ctx, .ports = ports};
	uint32_t n = o->conn_calls;

	count_marks_on();
	for (int i = 0; i <= MODE_COUNT; i++) {
		/* the modes, then lib with a grant */
		enum mode m = i < MODE_COUNT ? (enum mode)i : MODE_LIB;
		uint32_t flags = i < MODE_COUNT ? 0 : HELLO_GRANT;
		const char *label = flags ? GRANT_LABEL : mode_name(m);
		if (!o->modes[m] || (flags && !o->grants))
			continue;
		if (open_all(&s, m, flags, 1, 1, NULL) || close_all(&s, m, 1, NULL) ||
				open_all(&s, m, flags, n, 1, label) || close_all(&s, m, n, label))
			return -1;
		printf("conn-calls %s %u connections marked\n", label, n);
	}
	return 0;
}

/*
 * The set-up runs of one repetition: lib between raw and lib with a grant
 * each, the order turned from one repetition to the next, so that both
 * pairs are made back to back and neither side of a pair always goes first.
 */
static const struct setup_run {
	enum mode m;
	uint32_t flags;
} setup_order[] = {{MODE_LIB, HELLO_GRANT}, {MODE_LIB, 0}, {MODE_RAW, 0}};

#define SETUP_RUNS (int)(sizeof(setup_order) / sizeof(setup_order[0]))

int
scale_run(const struct client_opts *o, const struct xport *const x[MODE_COUNT],
		void *ctx[MODE_COUNT], const char ports[MODE_COUNT][16])
{
	struct scale s = {.o = o, .x = x, .ctx = ctx, .ports = ports};
	double up[MODE_COUNT][MAX_REPS], down[MODE_COUNT][MAX_REPS];
	double grant_up[MAX_REPS], grant_down[MAX_REPS];
	double bw[MODE_COUNT][MAX_REPS];
	bool grants = o->grants && o->modes[MODE_LIB];
	int ret = 0;

	if (o->csv_path) {
		s.csv = fopen(o->csv_path, "w");
		if (s.csv == NULL) {
			perror(o->csv_path);
			return -1;
		}
		fprintf(s.csv, "measure,conns,size,mode,unit,median\n");
	}
	for (int r = 0; r < o->reps && !ret; r++)
		for (int i = 0; i < SETUP_RUNS && !ret; i++) {
			const struct setup_run *run = &setup_order[r % 2 ? SETUP_RUNS - 1 - i : i];
			enum mode m = run->m;
			if (!o->modes[m] || (run->flags && !grants))
				continue;
			ret = run->flags ?
				setup_rate(&s, m, run->flags, &grant_up[r], &grant_down[r]) :
				setup_rate(&s, m, 0, &up[m][r], &down[m][r]);
		}
	if (!ret) {
		report(&s, "setup", o->rate_conns, 0, "conn/s", up, 1);
		report(&s, "teardown", o->rate_conns, 0, "conn/s", down, 1);
	}
	if (!ret && grants) {
		report_grant(&s, "setup-grant", grant_up, up[MODE_LIB]);
		report_grant(&s, "teardown-grant", grant_down, down[MODE_LIB]);
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
