// SPDX-License-Identifier: BSD-3-Clause
/*
 * server_mem.c -- a server job's memory. A path is mapped whole with
 * libpmem2; page granularity is accepted so that a file on tmpfs serves as
 * DRAM that outlives the job (persisting it is msync), while a devdax
 * device or a DAX file gives true pmem.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fio.h"

#include "server_mem.h"

static int
map_path(const char *path, struct rpma_fio_mem *mem)
{
	struct pmem2_config *cfg;
	enum pmem2_granularity g;

	mem->fd = open(path, O_RDWR);
	if (mem->fd < 0) {
		log_err("fio: %s: %s (a devdax device or an existing file)\n", path,
				strerror(errno));
		return -1;
	}
	if (pmem2_source_from_fd(&mem->src, mem->fd) || pmem2_config_new(&cfg))
		goto err;
	if (pmem2_config_set_required_store_granularity(cfg, PMEM2_GRANULARITY_PAGE) ||
			pmem2_map_new(&mem->map, cfg, mem->src)) {
		(void) pmem2_config_delete(&cfg);
		goto err;
	}
	(void) pmem2_config_delete(&cfg);
	mem->base = pmem2_map_get_address(mem->map);
	mem->size = pmem2_map_get_size(mem->map);
	g = pmem2_map_get_store_granularity(mem->map);
	mem->pmem = g == PMEM2_GRANULARITY_BYTE || g == PMEM2_GRANULARITY_CACHE_LINE;
	mem->persist = pmem2_get_persist_fn(mem->map);
	return 0;

err:
	log_err("fio: %s: %s\n", path, pmem2_errormsg());
	rpma_fio_mem_close(mem);
	return -1;
}

int
rpma_fio_mem_open(const char *path, size_t size, struct rpma_fio_mem *mem)
{
	memset(mem, 0, sizeof(*mem));
	mem->fd = -1;
	if (strcmp(path, "malloc") != 0)
		return map_path(path, mem);
	if (size == 0) {
		log_err("fio: filename=malloc needs size=\n");
		return -1;
	}
	if (posix_memalign(&mem->dram, (size_t)sysconf(_SC_PAGESIZE), size)) {
		log_err("fio: cannot allocate %zu bytes\n", size);
		return -1;
	}
	memset(mem->dram, 0, size);
	mem->base = mem->dram;
	mem->size = size;
	return 0;
}

void
rpma_fio_mem_close(struct rpma_fio_mem *mem)
{
	if (mem->map)
		(void) pmem2_map_delete(&mem->map);
	if (mem->src)
		(void) pmem2_source_delete(&mem->src);
	if (mem->fd >= 0)
		(void) close(mem->fd);
	free(mem->dram);
	memset(mem, 0, sizeof(*mem));
	mem->fd = -1;
}
