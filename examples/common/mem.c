// SPDX-License-Identifier: BSD-3-Clause
/*
 * mem.c -- mapping a server's memory with libpmem2.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"
#include "mem.h"

/* the header page, then the data area */
#define HEADER_SIZE 4096
#define FILE_SIZE (HEADER_SIZE + MEM_DATA_SIZE)

static const char SIGNATURE[16] = "RPMA-EXAMPLES-1";

static void
print_pmem2_error(const char *what)
{
	fprintf(stderr, "%s failed: %s\n", what, pmem2_errormsg());
}

/*
 * A file made or grown here outlives a power cut only once the file system
 * has written its inode and its directory's entry: what the data's page
 * faults make it write (MAP_SYNC) is the data's blocks alone.
 */
static int
sync_new_file(const char *path, int fd)
{
	char dir[4096];
	const char *slash = strrchr(path, '/');
	int len = slash ? (int)(slash - path) : 1;

	snprintf(dir, sizeof(dir), "%.*s", len ? len : 1, slash ? path : ".");
	int dfd = open(dir, O_RDONLY | O_DIRECTORY);
	int ret = fsync(fd) || dfd < 0 || fsync(dfd) ? -1 : 0;
	if (dfd >= 0)
		(void) close(dfd);
	return ret;
}

/* an ordinary file is created or grown to FILE_SIZE; a device is taken as it is */
static int
open_path(const char *path)
{
	struct stat st;

	int fd = open(path, O_RDWR | O_CREAT, 0600);
	if (fd < 0) {
		perror(path);
		return -1;
	}
	if (fstat(fd, &st)) {
		perror(path);
		goto err_close;
	}
	if (S_ISREG(st.st_mode) && st.st_size < FILE_SIZE &&
			(ftruncate(fd, FILE_SIZE) || sync_new_file(path, fd))) {
		perror(path);
		goto err_close;
	}
	return fd;

err_close:
	(void) close(fd);
	return -1;
}

static int
map_path(const char *path, struct server_mem *mem)
{
	struct pmem2_config *cfg;
	size_t size;

	mem->fd = open_path(path);
	if (mem->fd < 0)
		return -1;
	if (pmem2_source_from_fd(&mem->src, mem->fd)) {
		print_pmem2_error("pmem2_source_from_fd()");
		goto err_close;
	}
	if (pmem2_source_size(mem->src, &size)) {
		print_pmem2_error("pmem2_source_size()");
		goto err_source;
	}
	if (size < FILE_SIZE) {
		fprintf(stderr, "%s: %zu bytes, the examples need %d\n", path, size, FILE_SIZE);
		goto err_source;
	}
	if (pmem2_config_new(&cfg)) {
		print_pmem2_error("pmem2_config_new()");
		goto err_source;
	}
	/* the coarsest granularity accepts any memory: a non-DAX file too */
	if (pmem2_config_set_required_store_granularity(cfg, PMEM2_GRANULARITY_PAGE)) {
		print_pmem2_error("pmem2_config_set_required_store_granularity()");
		goto err_config;
	}
	if (pmem2_map_new(&mem->map, cfg, mem->src)) {
		print_pmem2_error("pmem2_map_new()");
		goto err_config;
	}
	(void) pmem2_config_delete(&cfg);
	return 0;

err_config:
	(void) pmem2_config_delete(&cfg);
err_source:
	(void) pmem2_source_delete(&mem->src);
err_close:
	(void) close(mem->fd);
	return -1;
}

void
mem_reg_failed(const struct server_mem *mem, const char *call, int ret)
{
	int err = errno;
	struct stat st;

	print_error(call, ret);
	if (ret != RPMA_E_PROVIDER || err != EOPNOTSUPP || !mem->mapped ||
			fstat(mem->fd, &st) || !S_ISREG(st.st_mode))
		return;
	fprintf(stderr, "the memory is a file on a DAX file system (mounted -o dax): the "
			"kernel does not pin its pages for the RDMA device, which would need "
			"on-demand paging to reach them, and has none the library uses (the log "
			"above says why). Give the server a device DAX namespace (/dev/daxX.Y) "
			"instead, or run it on an RDMA device with on-demand paging.\n");
}

/* Data is valid only once the signature is persistent, so it is written last. */
static void
check_header(const char *path, struct server_mem *mem, char *base)
{
	if (memcmp(base, SIGNATURE, sizeof(SIGNATURE)) == 0) {
		mem->previous = true;
		printf("%s holds data of an earlier run\n", path);
		return;
	}
	memset(mem->data, 0, MEM_DATA_SIZE);
	mem->persist(mem->data, MEM_DATA_SIZE);
	memcpy(base, SIGNATURE, sizeof(SIGNATURE));
	mem->persist(base, sizeof(SIGNATURE));
	printf("%s had no data of an earlier run: initialized it\n", path);
}

int
mem_open(const char *path, struct server_mem *mem)
{
	memset(mem, 0, sizeof(*mem));
	mem->fd = -1;

	if (path == NULL) {
		mem->dram = buffer_alloc(MEM_DATA_SIZE);
		if (mem->dram == NULL)
			return -1;
		mem->data = mem->dram;
		printf("memory: DRAM (no <pmem-path> given): nothing outlives this run\n");
		return 0;
	}

	if (map_path(path, mem))
		return -1;
	char *base = pmem2_map_get_address(mem->map);
	enum pmem2_granularity g = pmem2_map_get_store_granularity(mem->map);
	mem->mapped = true;
	mem->true_pmem = g == PMEM2_GRANULARITY_BYTE || g == PMEM2_GRANULARITY_CACHE_LINE;
	mem->persist = pmem2_get_persist_fn(mem->map);
	mem->data = base + HEADER_SIZE;
	printf("memory: %s mapped with libpmem2, %s\n", path,
			mem->true_pmem ? "true persistent memory (byte or cache-line granularity)" :
			"page granularity (not pmem: persisted with msync)");
	check_header(path, mem, base);
	return 0;
}

void
mem_persist(const struct server_mem *mem, const void *ptr, size_t len)
{
	if (mem->mapped)
		mem->persist(ptr, len);
}

void
mem_close(struct server_mem *mem)
{
	if (mem->mapped) {
		if (pmem2_map_delete(&mem->map))
			print_pmem2_error("pmem2_map_delete()");
		(void) pmem2_source_delete(&mem->src);
		(void) close(mem->fd);
	}
	free(mem->dram);
	memset(mem, 0, sizeof(*mem));
}

int
mem_peer_cfg(const struct server_mem *mem, bool requested, struct rpma_peer_cfg **pcfg_ptr)
{
	bool direct = requested && mem->true_pmem;

	int ret = rpma_peer_cfg_new(pcfg_ptr);
	if (ret) {
		print_error("rpma_peer_cfg_new()", ret);
		return ret;
	}
	ret = rpma_peer_cfg_set_direct_write_to_pmem(*pcfg_ptr, direct);
	if (ret) {
		print_error("rpma_peer_cfg_set_direct_write_to_pmem()", ret);
		(void) rpma_peer_cfg_delete(pcfg_ptr);
		return ret;
	}
	if (direct)
		printf("direct write to pmem: declared (--direct-write-to-pmem, true pmem)\n");
	else if (requested)
		printf("direct write to pmem: not declared: the memory is not true pmem\n");
	else
		printf("direct write to pmem: not declared (no --direct-write-to-pmem)\n");
	return 0;
}
