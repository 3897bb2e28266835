// SPDX-License-Identifier: BSD-3-Clause
/*
 * common.c -- workload names and the server's memory, mapped with libpmem2
 * from a devdax / file given by the user or from a fresh /dev/shm file.
 */

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <libpmem2.h>

#include "bench.h"

static const char *const workload_names[WL_COUNT] = {
	[WL_WRITE] = "write",
	[WL_APM] = "write+flush-apm",
	[WL_GPSPM] = "write+flush-gpspm",
	[WL_READ] = "read",
	[WL_ATOMIC] = "atomic-write",
	[WL_SENDRECV] = "send-recv",
	[WL_APM_READ] = "write+flush-apm-read",
};

const char *
workload_name(enum workload wl)
{
	return workload_names[wl];
}

int
workload_from_name(const char *name)
{
	for (int wl = 0; wl < WL_COUNT; wl++)
		if (strcmp(name, workload_names[wl]) == 0)
			return wl;
	/* short aliases */
	if (strcmp(name, "apm") == 0)
		return WL_APM;
	if (strcmp(name, "apm-read") == 0)
		return WL_APM_READ;
	if (strcmp(name, "gpspm") == 0)
		return WL_GPSPM;
	if (strcmp(name, "atomic") == 0)
		return WL_ATOMIC;
	if (strcmp(name, "sendrecv") == 0)
		return WL_SENDRECV;
	return -1;
}

static bool count_marks;

void
count_marks_on(void)
{
	count_marks = true;
}

void
count_mark(const char *phase, const char *label)
{
	char buf[64];

	if (!count_marks)
		return;
	int len = snprintf(buf, sizeof(buf), COUNT_MARK_PREFIX "%s %s", phase, label);
	/* fd -1: EBADF, by design; the call is the mark */
	if (len > 0 && write(-1, buf, (size_t)len) >= 0)
		BENCH_LOG("the phase mark was written somewhere\n");
}

double
now_s(void)
{
	struct timespec ts;
	(void) clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

double
median(double *v, size_t n)
{
	qsort(v, n, sizeof(double), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

const char *
mode_name(enum mode mode)
{
	return mode == MODE_LIB ? "lib" : "raw";
}

bool
device_native_atomic_write(struct ibv_context *ctx)
{
#ifdef HAVE_IBV_ATOMIC_WRITE
	struct ibv_device_attr_ex attr;

	if (ibv_query_device_ex(ctx, NULL, &attr))
		return false;
	return (attr.device_cap_flags_ex & BENCH_CAP_ATOMIC_WRITE) != 0;
#else
	(void) ctx;
	return false;
#endif
}

unsigned
device_flush_caps(struct ibv_context *ctx)
{
	struct ibv_device_attr_ex attr;

	if (ibv_query_device_ex(ctx, NULL, &attr))
		return 0;
	return ((attr.device_cap_flags_ex & BENCH_CAP_FLUSH_GLOBAL) ? BENCH_FLUSH_GLOBAL : 0) |
		((attr.device_cap_flags_ex & BENCH_CAP_FLUSH_PERSISTENT) ?
			BENCH_FLUSH_PERSISTENT : 0);
}

unsigned
device_native_flush(struct ibv_context *ctx)
{
#ifdef HAVE_IBV_FLUSH
	return device_flush_caps(ctx);
#else
	(void) ctx;
	return 0;
#endif
}

/* a /dev/shm file of size bytes, already unlinked: gone when closed */
static int
shm_file(size_t size)
{
	char path[] = "/dev/shm/rpma-bench.XXXXXX";
	int fd = mkstemp(path);

	if (fd < 0) {
		perror("mkstemp(/dev/shm/rpma-bench.XXXXXX)");
		return -1;
	}
	(void) unlink(path);
	if (ftruncate(fd, (off_t)size)) {
		perror("ftruncate()");
		(void) close(fd);
		return -1;
	}
	return fd;
}

struct pmem_state {
	int fd;
	struct pmem2_source *src;
	struct pmem2_map *map;
};

static struct pmem_state pmem_state = {.fd = -1};

static int
map_fd(int fd, size_t min_size, struct bench_mem *mem)
{
	struct pmem2_config *cfg;
	size_t size;

	if (pmem2_source_from_fd(&pmem_state.src, fd)) {
		BENCH_LOG("pmem2_source_from_fd(): %s\n", pmem2_errormsg());
		return -1;
	}
	if (pmem2_source_size(pmem_state.src, &size) || size < min_size) {
		BENCH_LOG("the memory is %zu bytes, %zu needed\n", size, min_size);
		goto err_source;
	}
	if (pmem2_config_new(&cfg))
		goto err_source;
	/* page granularity accepts DRAM files too (persist is msync there) */
	if (pmem2_config_set_required_store_granularity(cfg, PMEM2_GRANULARITY_PAGE) ||
			pmem2_map_new(&pmem_state.map, cfg, pmem_state.src)) {
		BENCH_LOG("pmem2_map_new(): %s\n", pmem2_errormsg());
		(void) pmem2_config_delete(&cfg);
		goto err_source;
	}
	(void) pmem2_config_delete(&cfg);

	mem->data = pmem2_map_get_address(pmem_state.map);
	mem->data_size = min_size;
	mem->pmem = pmem2_map_get_store_granularity(pmem_state.map) != PMEM2_GRANULARITY_PAGE;
	mem->persist = pmem2_get_persist_fn(pmem_state.map);
	return 0;

err_source:
	(void) pmem2_source_delete(&pmem_state.src);
	return -1;
}

int
pmem_open(const char *path, size_t min_size, struct bench_mem *mem)
{
	int fd = path ? open(path, O_RDWR) : shm_file(min_size);

	if (fd < 0) {
		if (path)
			perror(path);
		return -1;
	}
	if (map_fd(fd, min_size, mem)) {
		(void) close(fd);
		return -1;
	}
	pmem_state.fd = fd;
	return 0;
}

void
pmem_close(struct bench_mem *mem)
{
	if (pmem_state.map)
		(void) pmem2_map_delete(&pmem_state.map);
	if (pmem_state.src)
		(void) pmem2_source_delete(&pmem_state.src);
	if (pmem_state.fd >= 0)
		(void) close(pmem_state.fd);
	pmem_state.fd = -1;
	mem->data = NULL;
}

int
hello_parse(const void *pd, size_t len, const struct bench_mem *mem, uint32_t flags,
		struct hello *hello)
{
	/* the client's bytes: check every field before use */
	if (pd == NULL || len < sizeof(*hello)) {
		BENCH_LOG("a connection request without a hello\n");
		return -1;
	}
	memcpy(hello, pd, sizeof(*hello));
	if (hello->magic != HELLO_MAGIC || hello->workload >= WL_COUNT ||
			hello->depth == 0 || hello->depth > MAX_DEPTH ||
			hello->msg_size > mem->msg_size || (hello->flags & ~flags) ||
			((hello->flags & (HELLO_HOLD | HELLO_GRANT)) &&
			 workload_messaging(hello->workload))) {
		BENCH_LOG("a connection request with a bad hello\n");
		return -1;
	}
	return 0;
}
