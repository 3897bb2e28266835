// SPDX-License-Identifier: BSD-3-Clause
/*
 * client.c -- the active side: for every workload, size and kind (latency
 * at queue depth 1, bandwidth at the configured depth) it runs lib and raw
 * alternately (lib-raw, raw-lib, ...) on fresh connections, so drift of a
 * noisy machine falls on both alike, then reports both and their ratio.
 */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

/* a run with no completion for this long has hung */
#define STALL_LIMIT_S 20

enum call { CALL_WRITE, CALL_READ, CALL_FLUSH, CALL_ATOMIC, CALL_SEND, CALL_RECV, CALL_POLL,
	CALL_COUNT };

static const char *const call_names[CALL_COUNT] = {
	"rpma_write", "rpma_read", "rpma_flush", "rpma_atomic_write", "rpma_send",
	"rpma_recv", "rpma_cq_get_wc",
};

/* one connection running one workload */
struct engine {
	const struct xport_ops *ops;
	struct xconn *c;
	enum workload wl;
	size_t size;
	uint32_t qd;
	bool two_sided;
	char *data;
	char *msg;
	size_t msg_slot;
	uint64_t posted, sq_done, rq_done;
	uint64_t calls[CALL_COUNT];
};

/* what the runs of one mode at one point add up to */
struct acc {
	double *lat;		/* latency samples, ns */
	size_t nlat, cap;
	double lat_cpu;		/* s */
	uint64_t bw_ops;
	double bw_secs, bw_cpu;
	double bw_runs[MAX_REPS];	/* op/s of each run: the median resists drift */
	int nbw;
	double lat_runs[MAX_REPS];	/* p50 of each latency run, ns */
	int nlr;
	const char *flush;
	const char *atomic;
};

static double
cpu_s(void)
{
	struct rusage ru;
	(void) getrusage(RUSAGE_SELF, &ru);
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
		(double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
}

/* --- one operation --------------------------------------------------------- */

static inline uint64_t
ops_done(const struct engine *e)
{
	if (!e->two_sided)
		return e->sq_done;
	return e->sq_done < e->rq_done ? e->sq_done : e->rq_done;
}

static int
post_op(struct engine *e)
{
	uint32_t slot = (uint32_t)(e->posted % e->qd);
	size_t off = slot * e->size;
	size_t send_off = (e->qd + slot) * e->msg_slot;
	const struct xport_ops *ops = e->ops;
	int ret;

	switch (e->wl) {
	case WL_WRITE:
		e->calls[CALL_WRITE]++;
		ret = ops->write(e->c, off, off, e->size, true);
		break;
	case WL_APM:
	case WL_APM_READ:
		e->calls[CALL_WRITE]++;
		e->calls[CALL_FLUSH]++;
		ret = ops->write(e->c, off, off, e->size, false);
		if (!ret)
			ret = ops->flush(e->c, off, e->size);
		break;
	case WL_GPSPM: {
		struct persist_req req = {.offset = off, .len = e->size};
		memcpy(e->msg + send_off, &req, sizeof(req));
		e->calls[CALL_WRITE]++;
		e->calls[CALL_SEND]++;
		ret = ops->write(e->c, off, off, e->size, false);
		if (!ret)
			ret = ops->send(e->c, send_off, sizeof(req), 0);
		break;
	}
	case WL_READ:
		e->calls[CALL_READ]++;
		ret = ops->read(e->c, off, off, e->size);
		break;
	case WL_ATOMIC:
		e->calls[CALL_ATOMIC]++;
		ret = ops->atomic_write(e->c, off, e->data + off);
		break;
	case WL_SENDRECV:
	default:
		e->calls[CALL_SEND]++;
		ret = ops->send(e->c, send_off, e->size, 0);
		break;
	}
	if (ret) {
		BENCH_LOG("posting %s failed (%d)\n", workload_name(e->wl), ret);
		return -1;
	}
	e->posted++;
	return 0;
}

/* poll once; a received reply gives its slot back at once */
static int
reap(struct engine *e)
{
	struct ibv_wc wc[16];

	e->calls[CALL_POLL]++;
	int n = e->ops->poll(e->c, wc, 16);
	if (n < 0) {
		BENCH_LOG("polling the CQ failed\n");
		return -1;
	}
	for (int i = 0; i < n; i++) {
		if (wc[i].status != IBV_WC_SUCCESS) {
			BENCH_LOG("%s: completion error: %s\n", workload_name(e->wl),
					ibv_wc_status_str(wc[i].status));
			return -1;
		}
		if (wc[i].opcode & IBV_WC_RECV) {
			e->rq_done++;
			e->calls[CALL_RECV]++;
			if (e->ops->recv(e->c, wc[i].wr_id * e->msg_slot, e->msg_slot,
					wc[i].wr_id)) {
				BENCH_LOG("posting a receive failed\n");
				return -1;
			}
		} else {
			e->sq_done++;
		}
	}
	return n;
}

/* reap until every posted operation is done */
static int
drain(struct engine *e, uint64_t upto)
{
	uint64_t empty = 0;
	double stalled_since = 0;

	while (ops_done(e) < upto) {
		int n = reap(e);
		if (n < 0)
			return -1;
		if (n > 0) {
			empty = 0;
			stalled_since = 0;
		} else if ((++empty & 0xfffff) == 0) {
			if (stalled_since == 0) {
				stalled_since = now_s();
			} else if (now_s() - stalled_since > STALL_LIMIT_S) {
				BENCH_LOG("%s: no completion for %d s\n", workload_name(e->wl),
						STALL_LIMIT_S);
				return -1;
			}
		}
	}
	return 0;
}

/* --- runs ------------------------------------------------------------------ */

/* depth 1: time each operation; samples NULL in the warm-up */
static int
run_latency(struct engine *e, uint64_t max_ops, double max_s, struct acc *a)
{
	double end = now_s() + max_s;

	for (uint64_t i = 0; i < max_ops; i++) {
		struct timespec t0, t1;
		(void) clock_gettime(CLOCK_MONOTONIC, &t0);
		if (post_op(e) || drain(e, e->posted))
			return -1;
		(void) clock_gettime(CLOCK_MONOTONIC, &t1);
		double ns = (double)(t1.tv_sec - t0.tv_sec) * 1e9 +
				(double)(t1.tv_nsec - t0.tv_nsec);
		if (a && a->nlat < a->cap)
			a->lat[a->nlat++] = ns;
		if ((double)t1.tv_sec + (double)t1.tv_nsec * 1e-9 > end)
			break;
	}
	return 0;
}

/* depth qd: keep qd operations in flight; returns the seconds taken */
static int
run_bandwidth(struct engine *e, uint64_t max_ops, double max_s, double *secs)
{
	double start = now_s(), end = start + max_s;
	uint64_t target = e->posted + max_ops;
	unsigned loops = 0;

	while (ops_done(e) < target) {
		while (e->posted < target && e->posted - ops_done(e) < e->qd)
			if (post_op(e))
				return -1;
		if (reap(e) < 0)
			return -1;
		/* past the time: post no more, let what is in flight finish */
		if ((++loops & 63) == 0 && target > e->posted && now_s() > end)
			target = e->posted;
		if ((loops & 0xfffff) == 0 && drain(e, ops_done(e) + 1))
			return -1;	/* a stall check now and then */
	}
	*secs = now_s() - start;
	return 0;
}

/* the measured phase on its own, for callgrind's --toggle-collect */
__attribute__((noinline)) int
bench_measured_phase(struct engine *e, bool lat, const struct client_opts *o, struct acc *a,
		double *secs)
{
	if (lat)
		return run_latency(e, o->iters, o->duration, a);
	return run_bandwidth(e, o->iters, o->duration, secs);
}

/* --- one connection -------------------------------------------------------- */

struct client {
	const struct client_opts *o;
	const struct xport *x[MODE_COUNT];
	void *ctx[MODE_COUNT];
	struct bench_mem mem;
	char ports[MODE_COUNT][16];
	uint64_t calls[CALL_COUNT];	/* of the measured phases */
	FILE *csv;
	int done, total;
	bool tty;
};

static void
progress(struct client *cl, enum workload wl, size_t size, bool lat, enum mode m, int rep)
{
	cl->done++;
	if (!cl->tty)
		return;
	printf("\r\033[K[%d/%d] %s %zu B %s %s rep %d", cl->done, cl->total,
			workload_name(wl), size, lat ? "lat qd1" : "bw", mode_name(m), rep + 1);
	fflush(stdout);
}

static int
quit_server(struct engine *e)
{
	/* a zero-length message tells the server to stop answering */
	e->calls[CALL_SEND]++;
	if (e->ops->send(e->c, 0, 0, 0))
		return -1;
	uint64_t want = e->sq_done + 1;
	e->two_sided = false;
	return drain(e, want);
}

static int
run_one(struct client *cl, enum mode m, enum workload wl, size_t size, bool lat, struct acc *a)
{
	const struct client_opts *o = cl->o;
	const struct xport *x = cl->x[m];
	uint32_t qd = lat ? 1 : o->depth;
	struct hello hello = {
		.magic = HELLO_MAGIC,
		.workload = wl,
		.depth = qd,
		.msg_size = (uint32_t)(wl == WL_SENDRECV ? size : sizeof(struct persist_req)),
	};
	struct engine e = {
		.ops = x->ops,
		.wl = wl,
		.size = size,
		.qd = qd,
		.two_sided = workload_messaging(wl),
		.data = cl->mem.data,
		.msg = cl->mem.msg,
		.msg_slot = cl->mem.msg_size,
	};
	double secs = 0;
	int ret = -1;

	if (x->connect(cl->ctx[m], o->addr, cl->ports[m], &hello, &e.c))
		return -1;
	a->flush = (wl == WL_APM || wl == WL_APM_READ) ? x->flush_kind(e.c) : "-";
	a->atomic = wl == WL_ATOMIC ? (x->native_atomic(e.c) ? "native" : "fallback") : "-";
	for (uint32_t i = 0; e.two_sided && i < qd; i++) {
		e.calls[CALL_RECV]++;
		if (e.ops->recv(e.c, i * e.msg_slot, e.msg_slot, i))
			goto out;
	}
	/* warm-up: caches, TLBs, the provider's queues */
	if (lat ? run_latency(&e, o->warmup, o->duration / 4, NULL) :
			run_bandwidth(&e, o->warmup, o->duration / 4, &secs))
		goto out;

	memset(e.calls, 0, sizeof(e.calls));
	uint64_t before = ops_done(&e);
	size_t first = a->nlat;
	double cpu0 = cpu_s();
	if (bench_measured_phase(&e, lat, o, a, &secs))
		goto out;
	double cpu = cpu_s() - cpu0;
	for (int i = 0; i < CALL_COUNT; i++)
		cl->calls[i] += e.calls[i];
	if (lat) {
		a->lat_cpu += cpu;
		if (a->nlat > first && a->nlr < MAX_REPS)
			a->lat_runs[a->nlr++] = median(a->lat + first, a->nlat - first);
	} else {
		a->bw_ops += ops_done(&e) - before;
		a->bw_secs += secs;
		if (secs > 0 && a->nbw < MAX_REPS)
			a->bw_runs[a->nbw++] = (double)(ops_done(&e) - before) / secs;
		a->bw_cpu += cpu;
	}
	ret = e.two_sided ? quit_server(&e) : 0;
out:
	if (x->disconnect(&e.c))
		ret = -1;
	if (ret)
		BENCH_LOG("%s %s %zu B (%s) failed\n", mode_name(m), workload_name(wl), size,
				lat ? "latency" : "bandwidth");
	return ret;
}

/* --- results --------------------------------------------------------------- */

static double
percentile(const double *sorted, size_t n, double q)
{
	size_t i = (size_t)ceil(q * (double)n);
	return sorted[i ? i - 1 : 0];
}

/*
 * The ratios of the runs made back to back (lib and raw of one
 * repetition): their median is the ratio reported, their range how far
 * the machine's drift moved it.
 */
struct paired {
	double median, lo, hi;
};

static struct paired
pair_runs(const double *lib, int nlib, const double *raw, int nraw)
{
	double r[MAX_REPS];
	size_t n = 0;
	struct paired p = {NAN, NAN, NAN};

	for (int i = 0; i < nlib && i < nraw; i++)
		if (raw[i] > 0)
			r[n++] = lib[i] / raw[i];
	if (n) {
		p.median = median(r, n);
		p.lo = r[0];
		p.hi = r[n - 1];
	}
	return p;
}

struct result {
	double min, p50, p99, p999, max, lat_cpu_us;
	double mib_s, ops_s, bw_cpu_us;
	size_t nlat;
	uint64_t bw_ops;
};

static void
summarize(struct acc *a, size_t size, struct result *r)
{
	memset(r, 0, sizeof(*r));
	r->nlat = a->nlat;
	if (a->nlat) {
		qsort(a->lat, a->nlat, sizeof(double), cmp_double);
		r->min = a->lat[0] / 1e3;
		r->p50 = percentile(a->lat, a->nlat, 0.50) / 1e3;
		r->p99 = percentile(a->lat, a->nlat, 0.99) / 1e3;
		r->p999 = percentile(a->lat, a->nlat, 0.999) / 1e3;
		r->max = a->lat[a->nlat - 1] / 1e3;
		r->lat_cpu_us = a->lat_cpu * 1e6 / (double)a->nlat;
	}
	r->bw_ops = a->bw_ops;
	if (a->bw_ops && a->nbw) {
		qsort(a->bw_runs, (size_t)a->nbw, sizeof(double), cmp_double);
		r->ops_s = a->nbw % 2 ? a->bw_runs[a->nbw / 2] :
			(a->bw_runs[a->nbw / 2 - 1] + a->bw_runs[a->nbw / 2]) / 2;
		r->mib_s = r->ops_s * (double)size / (1024.0 * 1024.0);
		r->bw_cpu_us = a->bw_cpu * 1e6 / (double)a->bw_ops;
	}
}

static void
report(struct client *cl, enum workload wl, size_t size, struct acc acc[MODE_COUNT])
{
	struct result r[MODE_COUNT];
	bool have[MODE_COUNT];
	/* before summarize() sorts the bandwidth runs */
	struct paired lat = pair_runs(acc[MODE_LIB].lat_runs, acc[MODE_LIB].nlr,
			acc[MODE_RAW].lat_runs, acc[MODE_RAW].nlr);
	struct paired bw = pair_runs(acc[MODE_LIB].bw_runs, acc[MODE_LIB].nbw,
			acc[MODE_RAW].bw_runs, acc[MODE_RAW].nbw);

	if (cl->tty)
		printf("\r\033[K");
	for (int m = 0; m < MODE_COUNT; m++) {
		have[m] = cl->o->modes[m];
		if (!have[m])
			continue;
		summarize(&acc[m], size, &r[m]);
		printf("%-18s %8zu %s", workload_name(wl), size, mode_name(m));
		if (r[m].nlat)
			printf("  lat us min %.1f p50 %.1f p99 %.1f p99.9 %.1f max %.1f", r[m].min,
					r[m].p50, r[m].p99, r[m].p999, r[m].max);
		if (r[m].bw_ops)
			printf("  bw %.2f MiB/s %.0f op/s", r[m].mib_s, r[m].ops_s);
		printf("  cpu us/op %.2f %.2f\n", r[m].lat_cpu_us, r[m].bw_cpu_us);
		if (cl->csv) {
			fprintf(cl->csv, "%s,%zu,%s,%s,%s,%zu,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,"
					"%u,%llu,%.3f,%.1f,%.3f\n",
					workload_name(wl), size, mode_name(m), acc[m].flush,
					acc[m].atomic, r[m].nlat, r[m].min, r[m].p50, r[m].p99,
					r[m].p999, r[m].max, r[m].lat_cpu_us,
					cl->o->bw ? cl->o->depth : 0,
					(unsigned long long)r[m].bw_ops, r[m].mib_s, r[m].ops_s,
					r[m].bw_cpu_us);
			fflush(cl->csv);
		}
	}
	if (have[MODE_LIB] && have[MODE_RAW]) {
		printf("ratio %s %zu p50_lat_lib/raw=%.3f bw_lib/raw=%.3f\n", workload_name(wl),
				size, lat.median, bw.median);
		printf("spread %s %zu p50_lat_lib/raw=%.3f..%.3f bw_lib/raw=%.3f..%.3f\n",
				workload_name(wl), size, lat.lo, lat.hi, bw.lo, bw.hi);
	}
	fflush(stdout);
}

/* --- the whole comparison -------------------------------------------------- */

static int
run_point(struct client *cl, enum workload wl, size_t size)
{
	const struct client_opts *o = cl->o;
	struct acc acc[MODE_COUNT] = {{0}};
	int ret = 0;

	for (int m = 0; m < MODE_COUNT; m++) {
		acc[m].cap = (size_t)o->reps * o->iters;
		acc[m].lat = o->lat ? malloc(acc[m].cap * sizeof(double)) : NULL;
		if (o->lat && acc[m].lat == NULL)
			ret = -1;
	}
	for (int kind = 0; kind < 2 && !ret; kind++) {
		bool lat = kind == 0;
		if ((lat && !o->lat) || (!lat && !o->bw))
			continue;
		for (int rep = 0; rep < o->reps && !ret; rep++) {
			/* lib first on even repetitions, raw first on odd ones */
			for (int i = 0; i < MODE_COUNT && !ret; i++) {
				enum mode m = (enum mode)((i + rep) % MODE_COUNT);
				if (!o->modes[m])
					continue;
				progress(cl, wl, size, lat, m, rep);
				ret = run_one(cl, m, wl, size, lat, &acc[m]);
			}
		}
	}
	if (!ret)
		report(cl, wl, size, acc);
	for (int m = 0; m < MODE_COUNT; m++)
		free(acc[m].lat);
	return ret;
}

static int
client_mem(struct client *cl)
{
	const struct client_opts *o = cl->o;
	size_t max = 8;

	for (int i = 0; i < o->nsizes; i++)
		max = o->sizes[i] > max ? o->sizes[i] : max;
	uint32_t depth = o->depth > 1 ? o->depth : 1;
	cl->mem.data_size = depth * max;
	cl->mem.msg_size = max < MSG_SLOT_MIN ? MSG_SLOT_MIN : max;
	cl->mem.msg_slots = 2 * depth;	/* receive slots, then send slots */
	cl->mem.data = aligned_alloc(4096, cl->mem.data_size);
	cl->mem.msg = aligned_alloc(4096, cl->mem.msg_size * cl->mem.msg_slots);
	if (cl->mem.data == NULL || cl->mem.msg == NULL) {
		BENCH_LOG("out of memory\n");
		return -1;
	}
	memset(cl->mem.data, 0x5a, cl->mem.data_size);
	memset(cl->mem.msg, 0, cl->mem.msg_size * cl->mem.msg_slots);
	return 0;
}

static void
count_points(struct client *cl)
{
	const struct client_opts *o = cl->o;
	int modes = o->modes[MODE_LIB] + o->modes[MODE_RAW];
	int kinds = o->lat + o->bw;

	for (int wl = 0; wl < WL_COUNT; wl++)
		if (o->workloads[wl])
			cl->total += (wl == WL_ATOMIC ? 1 : o->nsizes) * kinds * o->reps * modes;
}

static void
print_calls(const struct client *cl)
{
	for (int i = 0; i < CALL_COUNT; i++)
		printf("calls %s %llu\n", call_names[i], (unsigned long long)cl->calls[i]);
}

int
client_run(const struct client_opts *o)
{
	struct client cl = {.o = o, .x = {&xport_lib, &xport_raw}, .tty = isatty(1)};
	int ret = -1;

	if (client_mem(&cl))
		goto out_mem;
	for (int m = 0; m < MODE_COUNT; m++) {
		(void) snprintf(cl.ports[m], sizeof(cl.ports[m]), "%d", atoi(o->port) + m);
		if (o->modes[m] && cl.x[m]->client_open(o->addr, &cl.mem, &cl.ctx[m]))
			goto out_close;
	}
	if (o->conn_calls) {
		ret = conn_calls_run(o, cl.x, cl.ctx, (const char (*)[16])cl.ports);
		goto out_close;
	}
	if (o->scale) {
		ret = scale_run(o, cl.x, cl.ctx, (const char (*)[16])cl.ports);
		goto out_close;
	}
	if (o->csv_path) {
		cl.csv = fopen(o->csv_path, "w");
		if (cl.csv == NULL) {
			perror(o->csv_path);
			goto out_close;
		}
		fprintf(cl.csv, "workload,size,mode,flush,atomic,lat_samples,lat_min_us,"
				"lat_p50_us,lat_p99_us,lat_p999_us,lat_max_us,lat_cpu_us_per_op,"
				"bw_depth,bw_ops,bw_mib_s,bw_ops_s,bw_cpu_us_per_op\n");
	}
	count_points(&cl);
	ret = 0;
	for (int wl = 0; wl < WL_COUNT && !ret; wl++) {
		if (!o->workloads[wl])
			continue;
		for (int i = 0; i < o->nsizes && !ret; i++) {
			/* an atomic write is 8 bytes, whatever the sizes */
			if (wl == WL_ATOMIC && i > 0)
				break;
			ret = run_point(&cl, (enum workload)wl, wl == WL_ATOMIC ? 8 : o->sizes[i]);
		}
	}
	if (!ret && o->print_calls)
		print_calls(&cl);
	if (cl.csv && fclose(cl.csv)) {
		perror(o->csv_path);
		ret = -1;
	}
out_close:
	for (int m = 0; m < MODE_COUNT; m++)
		if (cl.ctx[m])
			cl.x[m]->close(&cl.ctx[m]);
out_mem:
	free(cl.mem.data);
	free(cl.mem.msg);
	return ret;
}
