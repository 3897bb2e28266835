/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * server_mem.h -- a server job's memory: fio's filename=malloc (DRAM), or a
 * device-DAX device or an existing file mapped with libpmem2.
 */

#ifndef RPMA_FIO_SERVER_MEM_H
#define RPMA_FIO_SERVER_MEM_H

#include <stdbool.h>
#include <stddef.h>

#include <libpmem2.h>

struct rpma_fio_mem {
	char *base;			/* the whole mapping (or the allocation) */
	size_t size;
	bool pmem;			/* byte or cache-line granularity: true pmem */
	pmem2_persist_fn persist;	/* NULL for DRAM */
	void *dram;
	int fd;
	struct pmem2_source *src;
	struct pmem2_map *map;
};

/* Map path ("malloc": allocate size bytes); log_err says why not. */
int rpma_fio_mem_open(const char *path, size_t size, struct rpma_fio_mem *mem);
void rpma_fio_mem_close(struct rpma_fio_mem *mem);

#endif
