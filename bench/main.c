// SPDX-License-Identifier: BSD-3-Clause
/*
 * main.c -- rpma-bench: librpma against raw verbs, same program, same
 * connection set-up, same memory. Command line parsing only.
 */

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#define DEFAULT_PORT "7204"
#define DEFAULT_SIZES "8,64,512,4K,64K,1M"
#define MAX_SIZE (1u << 20)

static void
usage(FILE *f)
{
	fprintf(f,
"Usage: rpma-bench server [--addr IP] [--port P] [--pmem PATH] [--max-size SIZE] [--once]\n"
"                         [--marks]\n"
"       rpma-bench client [--addr IP] [--port P] [OPTIONS]\n"
"\n"
"Compares librpma (\"lib\") with the same operations posted with raw verbs\n"
"(\"raw\") on an equally set-up connection. The server listens in both modes\n"
"at once: lib on PORT, raw on PORT+1 (default %s). IP defaults to\n"
"$RPMA_TEST_IP. The server maps its memory with libpmem2 from --pmem PATH\n"
"(a devdax or a file; true pmem declares direct write to pmem, so the\n"
"appliance flush is persistent) or from a /dev/shm file.\n"
"\n"
"Client options:\n"
"  --workloads LIST  comma-separated, or all (default): write,\n"
"                    write+flush-apm (apm), write+flush-gpspm (gpspm), read,\n"
"                    atomic-write (atomic, 8 B only), send-recv (sendrecv),\n"
"                    write+flush-apm-read (apm-read: the apm flush on a region\n"
"                    the client may read, so a read after the writes even\n"
"                    where apm posts a native FLUSH)\n"
"  --sizes LIST      block sizes, 8 B to 1M, K/M suffixes (default %s)\n"
"  --depth N         queue depth of the bandwidth runs (default 16, max %d)\n"
"  --iters N         measured operations per run, at most (default 10000)\n"
"  --warmup N        warm-up operations per run, at most (default 100)\n"
"  --duration S      seconds per run, at most (default 0.1); warm-up S/4\n"
"  --reps N          runs per mode and point, lib and raw alternating (default 8,\n"
"                    max 100); latency pools the samples of all runs, bandwidth\n"
"                    is the median of the runs; a ratio is the median of the\n"
"                    ratios of the runs made back to back (their range: the\n"
"                    \"spread\" line)\n"
"  --modes LIST      lib,raw (default) or one of them\n"
"  --lat-only, --bw-only  only the latency (depth 1) or bandwidth runs\n"
"  --csv FILE        write one CSV row per workload, size and mode to FILE\n"
"  --calls           print how often each library call ran while measured\n"
"  --scale           instead of the workloads: the connection set-up rate (open\n"
"                    --rate-conns connections, held, one after the other; then\n"
"                    close them) and the aggregate bandwidth of writes of the\n"
"                    first --sizes size, --depth in flight on each of --conns\n"
"                    connections; prints \"setup|teardown|multi-bw MODE conns=N\n"
"                    size=S UNIT=X\" and \"ratio MEASURE N lib/raw=X\". With\n"
"                    lib, also lib connections with a grant each (the data\n"
"                    through a grant bound on the connection, its descriptor in\n"
"                    a message), the runs next to the plain lib ones:\n"
"                    \"setup-grant|teardown-grant lib ...\" and \"ratio\n"
"                    setup-grant N grant/plain=X\"\n"
"  --rate-conns N    connections of a set-up rate run (default 32, max %d)\n"
"  --conns LIST      connection counts of the bandwidth runs (default\n"
"                    1,2,4,8,16,32,64)\n"
"  --conn-calls N    instead of the workloads: open one connection and close\n"
"                    it, then open N one after the other and close them, in\n"
"                    each mode (and with lib, again with a grant each, marked\n"
"                    \"" GRANT_LABEL "\"), marking each set-up and teardown for the\n"
"                    tools that count its calls (utils/bench --conn-calls)\n"
"  --no-grant        no connections with a grant in --scale and --conn-calls\n"
"                    (for a server whose device binds no type-2 memory windows)\n"
"\n"
"Server option --marks: mark each accept and each close of a held\n"
"connection the same way. A mark is write(-1, \"" COUNT_MARK_PREFIX "PHASE LABEL\"),\n"
"which fails with EBADF; LABEL is the mode, or \"" GRANT_LABEL "\"; PHASE \"-\" ends a\n"
"phase, \"" COUNT_RENAME " PHASE\" renames the one going on (an accept found to be one\n"
"with a grant).\n"
"\n"
"Prints per workload and size: latency (min, p50, p99, p99.9, max in us),\n"
"bandwidth (MiB/s, op/s), client CPU time per operation, and\n"
"  ratio WORKLOAD SIZE p50_lat_lib/raw=X bw_lib/raw=Y\n",
		DEFAULT_PORT, DEFAULT_SIZES, MAX_DEPTH, MAX_CONNS);
}

static int
parse_size(const char *s, size_t *out)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);

	if (errno || end == s)
		return -1;
	if (*end == 'K' || *end == 'k')
		v <<= 10, end++;
	else if (*end == 'M' || *end == 'm')
		v <<= 20, end++;
	if (*end == 'B' || *end == 'b')
		end++;
	if (*end != '\0' || v < 8 || v > MAX_SIZE)
		return -1;
	*out = (size_t)v;
	return 0;
}

static int
parse_sizes(char *list, struct client_opts *o)
{
	o->nsizes = 0;
	for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
		if (o->nsizes == (int)(sizeof(o->sizes) / sizeof(o->sizes[0])) ||
				parse_size(tok, &o->sizes[o->nsizes])) {
			fprintf(stderr, "rpma-bench: bad size '%s' (8 to 1M)\n", tok);
			return -1;
		}
		o->nsizes++;
	}
	return o->nsizes ? 0 : -1;
}

static int
parse_conns(char *list, struct client_opts *o)
{
	o->nconns = 0;
	for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
		char *end;
		unsigned long n = strtoul(tok, &end, 10);
		if (o->nconns == (int)(sizeof(o->conns) / sizeof(o->conns[0])) || *end != '\0' ||
				n < 1 || n > MAX_CONNS) {
			fprintf(stderr, "rpma-bench: bad connection count '%s' (1 to %d)\n", tok,
					MAX_CONNS);
			return -1;
		}
		o->conns[o->nconns++] = (uint32_t)n;
	}
	return o->nconns ? 0 : -1;
}

static int
parse_workloads(char *list, struct client_opts *o)
{
	memset(o->workloads, 0, sizeof(o->workloads));
	for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
		if (strcmp(tok, "all") == 0) {
			for (int wl = 0; wl < WL_COUNT; wl++)
				o->workloads[wl] = true;
			continue;
		}
		int wl = workload_from_name(tok);
		if (wl < 0) {
			fprintf(stderr, "rpma-bench: unknown workload '%s'\n", tok);
			return -1;
		}
		o->workloads[wl] = true;
	}
	return 0;
}

static int
parse_modes(char *list, struct client_opts *o)
{
	memset(o->modes, 0, sizeof(o->modes));
	for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
		if (strcmp(tok, "lib") == 0) {
			o->modes[MODE_LIB] = true;
		} else if (strcmp(tok, "raw") == 0) {
			o->modes[MODE_RAW] = true;
		} else {
			fprintf(stderr, "rpma-bench: unknown mode '%s'\n", tok);
			return -1;
		}
	}
	return 0;
}

static int
parse_number(const char *s, double min, double max, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);

	if (errno || end == s || *end != '\0' || v < min || v > max) {
		fprintf(stderr, "rpma-bench: '%s' is not a number in [%g, %g]\n", s, min, max);
		return -1;
	}
	*out = v;
	return 0;
}

enum { OPT_WORKLOADS = 256, OPT_SIZES, OPT_DEPTH, OPT_ITERS, OPT_WARMUP, OPT_DURATION,
	OPT_REPS, OPT_MODES, OPT_LAT_ONLY, OPT_BW_ONLY, OPT_CSV, OPT_CALLS, OPT_PMEM,
	OPT_MAX_SIZE, OPT_ONCE, OPT_SCALE, OPT_RATE_CONNS, OPT_CONNS, OPT_CONN_CALLS,
	OPT_MARKS, OPT_NO_GRANT };

static const struct option long_opts[] = {
	{"addr", required_argument, NULL, 'a'},
	{"port", required_argument, NULL, 'p'},
	{"help", no_argument, NULL, 'h'},
	{"workloads", required_argument, NULL, OPT_WORKLOADS},
	{"sizes", required_argument, NULL, OPT_SIZES},
	{"depth", required_argument, NULL, OPT_DEPTH},
	{"iters", required_argument, NULL, OPT_ITERS},
	{"warmup", required_argument, NULL, OPT_WARMUP},
	{"duration", required_argument, NULL, OPT_DURATION},
	{"reps", required_argument, NULL, OPT_REPS},
	{"modes", required_argument, NULL, OPT_MODES},
	{"lat-only", no_argument, NULL, OPT_LAT_ONLY},
	{"bw-only", no_argument, NULL, OPT_BW_ONLY},
	{"csv", required_argument, NULL, OPT_CSV},
	{"calls", no_argument, NULL, OPT_CALLS},
	{"pmem", required_argument, NULL, OPT_PMEM},
	{"max-size", required_argument, NULL, OPT_MAX_SIZE},
	{"once", no_argument, NULL, OPT_ONCE},
	{"scale", no_argument, NULL, OPT_SCALE},
	{"rate-conns", required_argument, NULL, OPT_RATE_CONNS},
	{"conns", required_argument, NULL, OPT_CONNS},
	{"conn-calls", required_argument, NULL, OPT_CONN_CALLS},
	{"marks", no_argument, NULL, OPT_MARKS},
	{"no-grant", no_argument, NULL, OPT_NO_GRANT},
	{NULL, 0, NULL, 0},
};

struct server_opts {
	const char *pmem;
	size_t max_size;
	bool once;
};

/* one option; returns -1 on a bad value */
static int
parse_opt(int c, struct client_opts *o, struct server_opts *s)
{
	double v;

	switch (c) {
	case 'a': o->addr = optarg; return 0;
	case 'p': o->port = optarg; return 0;
	case OPT_WORKLOADS: return parse_workloads(optarg, o);
	case OPT_SIZES: return parse_sizes(optarg, o);
	case OPT_MODES: return parse_modes(optarg, o);
	case OPT_LAT_ONLY: o->bw = false; return 0;
	case OPT_BW_ONLY: o->lat = false; return 0;
	case OPT_CSV: o->csv_path = optarg; return 0;
	case OPT_CALLS: o->print_calls = true; return 0;
	case OPT_PMEM: s->pmem = optarg; return 0;
	case OPT_ONCE: s->once = true; return 0;
	case OPT_MAX_SIZE: return parse_size(optarg, &s->max_size);
	case OPT_SCALE: o->scale = true; return 0;
	case OPT_CONNS: return parse_conns(optarg, o);
	case OPT_MARKS: count_marks_on(); return 0;
	case OPT_NO_GRANT: o->grants = false; return 0;
	case OPT_CONN_CALLS:
		if (parse_number(optarg, 1, MAX_CONNS, &v))
			return -1;
		o->conn_calls = (uint32_t)v;
		return 0;
	case OPT_RATE_CONNS:
		if (parse_number(optarg, 1, MAX_CONNS, &v))
			return -1;
		o->rate_conns = (uint32_t)v;
		return 0;
	case OPT_DEPTH:
		if (parse_number(optarg, 1, MAX_DEPTH, &v))
			return -1;
		o->depth = (uint32_t)v;
		return 0;
	case OPT_ITERS:
		if (parse_number(optarg, 1, 1e8, &v))
			return -1;
		o->iters = (uint64_t)v;
		return 0;
	case OPT_WARMUP:
		if (parse_number(optarg, 0, 1e8, &v))
			return -1;
		o->warmup = (uint64_t)v;
		return 0;
	case OPT_DURATION:
		return parse_number(optarg, 0.001, 3600, &o->duration);
	case OPT_REPS:
		if (parse_number(optarg, 1, MAX_REPS, &v))
			return -1;
		o->reps = (int)v;
		return 0;
	default:
		return -1;
	}
}

int
main(int argc, char *argv[])
{
	char sizes[] = DEFAULT_SIZES, all[] = "all", conns[] = "1,2,4,8,16,32,64";
	struct client_opts o = {
		.addr = getenv("RPMA_TEST_IP"), .port = DEFAULT_PORT, .depth = 16,
		.iters = 10000, .warmup = 100, .duration = 0.1, .reps = 8,
		.modes = {true, true}, .lat = true, .bw = true, .rate_conns = 32,
		.grants = true,
	};
	struct server_opts s = {.max_size = MAX_SIZE};
	int c;

	if (argc < 2 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	bool server = strcmp(argv[1], "server") == 0;
	if (!server && strcmp(argv[1], "client") != 0) {
		usage(stderr);
		return 2;
	}
	(void) parse_sizes(sizes, &o);
	(void) parse_workloads(all, &o);
	(void) parse_conns(conns, &o);
	optind = 2;
	while ((c = getopt_long(argc, argv, "a:p:h", long_opts, NULL)) != -1) {
		if (c == 'h') {
			usage(stdout);
			return 0;
		}
		if (parse_opt(c, &o, &s)) {
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc || o.addr == NULL || (!o.lat && !o.bw) ||
			(!o.modes[MODE_LIB] && !o.modes[MODE_RAW])) {
		fprintf(stderr, "rpma-bench: %s\n", o.addr == NULL ?
				"no address: --addr IP or RPMA_TEST_IP" : "bad arguments");
		return 2;
	}
	if (server)
		return server_run(o.addr, o.port, s.pmem, s.max_size, s.once) ? 1 : 0;
	for (int i = 0; i < o.nsizes; i++) {
		if (o.sizes[i] > s.max_size) {
			fprintf(stderr, "rpma-bench: size %zu above 1M\n", o.sizes[i]);
			return 2;
		}
	}
	return client_run(&o) ? 1 : 0;
}
