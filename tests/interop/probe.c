// SPDX-License-Identifier: BSD-3-Clause
/*
 * probe.c -- rpma-probe: the same sequence of calls on whichever librpma
 * the dynamic linker finds, printing one line per case: the return code,
 * and what a handle holds after the call (NULL, the same value as before,
 * or a new one). Built against librpma 1.x's header and run once on 1.x's
 * library and once on ours (LD_LIBRARY_PATH), the two outputs are compared
 * line by line (run-differential); any difference must be one listed in
 * known-differences and explained in doc/COMPATIBILITY.md.
 *
 * Cases that need an RDMA device run only when RPMA_TEST_IP is set
 * (utils/rxe-vm). The probe never prints addresses, only how a handle
 * changed, so the output does not depend on the run.
 */

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <librpma.h>

#include "probe.h"

char probe_sentinel;

static void
silent_log(enum rpma_log_level level, const char *file_name, const int line_no,
		const char *function_name, const char *message_format, ...)
{
	(void) level; (void) file_name; (void) line_no; (void) function_name;
	(void) message_format;
}

/* what a log function is given: counted and described, never printed as is */
static struct {
	int count;
	int level;
	bool file_ok;		/* "./src/NAME.c", as 1.x names its files */
	bool newline;		/* the message ends with one */
	bool func;		/* a function name is given */
} logged;

static void
recording_log(enum rpma_log_level level, const char *file_name, const int line_no,
		const char *function_name, const char *message_format, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, message_format);
	vsnprintf(msg, sizeof(msg), message_format, ap);
	va_end(ap);
	size_t flen = file_name ? strlen(file_name) : 0;
	logged.count++;
	logged.level = level;
	logged.file_ok = flen > 8 && strncmp(file_name, "./src/", 6) == 0 &&
			strcmp(file_name + flen - 2, ".c") == 0 && line_no > 0;
	logged.newline = strlen(msg) > 0 && msg[strlen(msg) - 1] == '\n';
	logged.func = function_name != NULL && *function_name != '\0';
}

/* the shape of a message a failing call logs */
static void
probe_log(void)
{
	struct ibv_context *ctx;

	(void) rpma_log_set_function(recording_log);
	OCASE("log: utils_get_ibv_context(256.1.1.1)", rpma_utils_get_ibv_context("256.1.1.1",
			RPMA_UTIL_IBV_CONTEXT_LOCAL, &ctx), ctx);
	printf("  messages=%d level=%d file=%s newline=%d function=%d\n", logged.count,
			logged.level, logged.file_ok ? "./src/NAME.c" : "other", logged.newline,
			logged.func);
	(void) rpma_log_set_function(silent_log);
}

/* configuration objects: NULL arguments, defaults, round trips */
static void
probe_cfg(void)
{
	struct rpma_conn_cfg *cfg = NULL;
	struct rpma_srq_cfg *scfg = NULL;
	struct rpma_peer_cfg *pcfg = NULL;
	uint32_t u = 7;
	int i = 7;
	bool b = true;
	struct rpma_srq *srq = (struct rpma_srq *)&u;

	CASE("conn_cfg_new(NULL)", rpma_conn_cfg_new(NULL));
	CASE("conn_cfg_delete(NULL)", rpma_conn_cfg_delete(NULL));
	HCASE("conn_cfg_delete(&NULL)", rpma_conn_cfg_delete(&cfg), cfg);
	HCASE("conn_cfg_new", rpma_conn_cfg_new(&cfg), cfg);
	CASE("conn_cfg_get_timeout", rpma_conn_cfg_get_timeout(cfg, &i));
	printf("  timeout=%d\n", i);
	CASE("conn_cfg_set_timeout(-1)", rpma_conn_cfg_set_timeout(cfg, -1));
	CASE("conn_cfg_get_cq_size", rpma_conn_cfg_get_cq_size(cfg, &u));
	printf("  cq_size=%u\n", u);
	CASE("conn_cfg_get_rcq_size", rpma_conn_cfg_get_rcq_size(cfg, &u));
	printf("  rcq_size=%u\n", u);
	CASE("conn_cfg_get_sq_size", rpma_conn_cfg_get_sq_size(cfg, &u));
	printf("  sq_size=%u\n", u);
	CASE("conn_cfg_get_rq_size", rpma_conn_cfg_get_rq_size(cfg, &u));
	printf("  rq_size=%u\n", u);
	CASE("conn_cfg_get_compl_channel", rpma_conn_cfg_get_compl_channel(cfg, &b));
	printf("  shared=%d\n", b);
	CASE("conn_cfg_get_srq", rpma_conn_cfg_get_srq(cfg, &srq));
	printf("  srq=%s\n", srq ? "set" : "NULL");
	CASE("conn_cfg_set_cq_size(NULL)", rpma_conn_cfg_set_cq_size(NULL, 1));
	CASE("conn_cfg_get_cq_size(cfg, NULL)", rpma_conn_cfg_get_cq_size(cfg, NULL));
	CASE("conn_cfg_set_cq_size(0)", rpma_conn_cfg_set_cq_size(cfg, 0));
	CASE("conn_cfg_set_srq(NULL)", rpma_conn_cfg_set_srq(cfg, NULL));
	HCASE("conn_cfg_delete", rpma_conn_cfg_delete(&cfg), cfg);

	CASE("srq_cfg_new(NULL)", rpma_srq_cfg_new(NULL));
	HCASE("srq_cfg_delete(&NULL)", rpma_srq_cfg_delete(&scfg), scfg);
	HCASE("srq_cfg_new", rpma_srq_cfg_new(&scfg), scfg);
	CASE("srq_cfg_get_rq_size", rpma_srq_cfg_get_rq_size(scfg, &u));
	printf("  rq_size=%u\n", u);
	CASE("srq_cfg_get_rcq_size", rpma_srq_cfg_get_rcq_size(scfg, &u));
	printf("  rcq_size=%u\n", u);
	CASE("srq_cfg_set_rcq_size(0)", rpma_srq_cfg_set_rcq_size(scfg, 0));
	HCASE("srq_cfg_delete", rpma_srq_cfg_delete(&scfg), scfg);

	CASE("peer_cfg_new(NULL)", rpma_peer_cfg_new(NULL));
	HCASE("peer_cfg_delete(&NULL)", rpma_peer_cfg_delete(&pcfg), pcfg);
	HCASE("peer_cfg_new", rpma_peer_cfg_new(&pcfg), pcfg);
	CASE("peer_cfg_get_direct_write_to_pmem", rpma_peer_cfg_get_direct_write_to_pmem(pcfg, &b));
	printf("  direct=%d\n", b);
	size_t size = 99;
	CASE("peer_cfg_get_descriptor_size", rpma_peer_cfg_get_descriptor_size(pcfg, &size));
	printf("  size=%zu\n", size);
	HCASE("peer_cfg_delete", rpma_peer_cfg_delete(&pcfg), pcfg);
}

/* descriptors a peer sends: sizes and values */
static void
probe_descriptors(void)
{
	static const unsigned char bytes[] = { 0, 1, 2, 0xff };
	static const size_t sizes[] = { 0, 1, 2, 8 };
	struct rpma_peer_cfg *pcfg;
	char name[64];

	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		for (size_t v = 0; v < sizeof(bytes) / sizeof(bytes[0]); v++) {
			unsigned char desc[8] = { bytes[v] };
			bool b = false;
			snprintf(name, sizeof(name), "peer_cfg_from_descriptor(0x%x, %zu)",
					bytes[v], sizes[s]);
			OCASE(name, rpma_peer_cfg_from_descriptor(desc, sizes[s], &pcfg), pcfg);
			if (pcfg) {
				(void) rpma_peer_cfg_get_direct_write_to_pmem(pcfg, &b);
				printf("  direct=%d\n", b);
				(void) rpma_peer_cfg_delete(&pcfg);
			}
		}
	}
	OCASE("peer_cfg_from_descriptor(NULL)", rpma_peer_cfg_from_descriptor(NULL, 1, &pcfg),
			pcfg);

	/* a region descriptor: 8 address, 8 size, 4 rkey, 1 usage, little endian */
	static const unsigned char usages[] = { 0, 1, 0x20, 0x40, 0xff };
	static const size_t msizes[] = { 20, 21, 22, 64 };
	for (size_t s = 0; s < sizeof(msizes) / sizeof(msizes[0]); s++) {
		for (size_t u = 0; u < sizeof(usages) / sizeof(usages[0]); u++) {
			unsigned char desc[64] = { 0 };
			struct rpma_mr_remote *mr;
			desc[8] = 0x10;		/* size 16 */
			desc[20] = usages[u];
			snprintf(name, sizeof(name), "mr_remote_from_descriptor(0x%x, %zu)",
					usages[u], msizes[s]);
			OCASE(name, rpma_mr_remote_from_descriptor(desc, msizes[s], &mr), mr);
			if (mr) {
				size_t size = 0;
				int flush = -1;
				(void) rpma_mr_remote_get_size(mr, &size);
				(void) rpma_mr_remote_get_flush_type(mr, &flush);
				printf("  size=%zu flush_type=%d\n", size, flush);
				printf("  delete ret=%d\n", rpma_mr_remote_delete(&mr));
			}
		}
	}
	/* contents no region has: an empty one, one that wraps around */
	static const struct { const char *name; uint64_t addr, size; } odd[] = {
		{ "mr_remote_from_descriptor(size 0)", 0x1000, 0 },
		{ "mr_remote_from_descriptor(wraps)", UINT64_MAX - 7, 16 },
	};
	for (size_t i = 0; i < sizeof(odd) / sizeof(odd[0]); i++) {
		unsigned char desc[21] = { 0 };
		struct rpma_mr_remote *mr;
		for (int b = 0; b < 8; b++) {
			desc[b] = (unsigned char)(odd[i].addr >> (8 * b));
			desc[8 + b] = (unsigned char)(odd[i].size >> (8 * b));
		}
		desc[20] = 0x1;
		OCASE(odd[i].name, rpma_mr_remote_from_descriptor(desc, sizeof(desc), &mr), mr);
		if (mr)
			(void) rpma_mr_remote_delete(&mr);
	}

	struct rpma_mr_remote *mr = NULL;
	CASE("mr_remote_delete(NULL)", rpma_mr_remote_delete(NULL));
	HCASE("mr_remote_delete(&NULL)", rpma_mr_remote_delete(&mr), mr);
}

/* what needs no object: strings, thresholds, NULL handles */
static void
probe_plain(void)
{
	for (int e = -100011; e <= 1; e += (e < -100000 || e >= 0 ? 1 : 100000))
		printf("err_2str(%d) %s\n", e, rpma_err_2str(e));
	for (int ev = -1; ev <= 5; ev++)
		printf("conn_event_2str(%d) %s\n", ev,
				rpma_utils_conn_event_2str((enum rpma_conn_event)ev));

	enum rpma_log_level level = RPMA_LOG_LEVEL_DEBUG;
	CASE("log_get_threshold(MAX)", rpma_log_get_threshold(RPMA_LOG_THRESHOLD_MAX, &level));
	CASE("log_set_threshold(DEBUG+1)", rpma_log_set_threshold(RPMA_LOG_THRESHOLD,
			(enum rpma_log_level)(RPMA_LOG_LEVEL_DEBUG + 1)));
	CASE("log_set_threshold(DISABLED)", rpma_log_set_threshold(RPMA_LOG_THRESHOLD_AUX,
			RPMA_LOG_DISABLED));

	struct ibv_context *ctx = NULL;
	OCASE("utils_get_ibv_context(NULL)", rpma_utils_get_ibv_context(NULL,
			RPMA_UTIL_IBV_CONTEXT_LOCAL, &ctx), ctx);
	OCASE("utils_get_ibv_context(type 2)", rpma_utils_get_ibv_context("127.0.0.1",
			(enum rpma_util_ibv_context_type)2, &ctx), ctx);
	OCASE("utils_get_ibv_context(256.1.1.1)", rpma_utils_get_ibv_context("256.1.1.1",
			RPMA_UTIL_IBV_CONTEXT_LOCAL, &ctx), ctx);

	struct rpma_peer *peer = NULL;
	struct rpma_mr_local *mr = NULL;
	struct rpma_conn *conn = NULL;
	struct rpma_conn_req *req = NULL;
	struct rpma_ep *ep = NULL;
	struct rpma_srq *srq = NULL;
	OCASE("peer_new(NULL ctx)", rpma_peer_new(NULL, &peer), peer);
	CASE("peer_delete(NULL)", rpma_peer_delete(NULL));
	HCASE("peer_delete(&NULL)", rpma_peer_delete(&peer), peer);
	CASE("mr_dereg(NULL)", rpma_mr_dereg(NULL));
	HCASE("mr_dereg(&NULL)", rpma_mr_dereg(&mr), mr);
	CASE("conn_delete(NULL)", rpma_conn_delete(NULL));
	HCASE("conn_delete(&NULL)", rpma_conn_delete(&conn), conn);
	CASE("conn_req_delete(NULL)", rpma_conn_req_delete(NULL));
	HCASE("conn_req_delete(&NULL)", rpma_conn_req_delete(&req), req);
	OCASE("conn_req_connect(&NULL)", rpma_conn_req_connect(&req, NULL, &conn), conn);
	CASE("ep_shutdown(NULL)", rpma_ep_shutdown(NULL));
	HCASE("ep_shutdown(&NULL)", rpma_ep_shutdown(&ep), ep);
	CASE("srq_delete(NULL)", rpma_srq_delete(NULL));
	HCASE("srq_delete(&NULL)", rpma_srq_delete(&srq), srq);
}

int
main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	(void) rpma_log_set_function(silent_log);
	probe_plain();
	probe_log();
	probe_cfg();
	probe_descriptors();
	const char *ip = getenv("RPMA_TEST_IP");
	if (ip && *ip) {
		probe_device(ip);
	}
	return 0;
}
