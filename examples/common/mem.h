/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mem.h -- a server's memory: persistent memory mapped with libpmem2 from
 * a file or a devdax device, or DRAM when no path is given.
 *
 * A mapped file starts with a header page holding a signature; the data
 * area after it keeps its contents from one run to the next.
 */

#ifndef EXAMPLES_MEM_H
#define EXAMPLES_MEM_H 1

#include <stdbool.h>
#include <stddef.h>

#include <libpmem2.h>
#include <librpma.h>

/* the part of the memory the examples use and register */
#define MEM_DATA_SIZE 4096

struct server_mem {
	char *data;		/* MEM_DATA_SIZE bytes, page-aligned */
	bool mapped;		/* from a file or a device, through libpmem2 */
	bool true_pmem;		/* byte or cache-line store granularity */
	bool previous;		/* the data area holds what an earlier run left */

	/* owned, for mem_close() */
	void *dram;
	int fd;
	struct pmem2_source *src;
	struct pmem2_map *map;
	pmem2_persist_fn persist;
};

/* Map path (NULL: allocate DRAM) and say on stdout what memory it is. */
int mem_open(const char *path, struct server_mem *mem);

/*
 * Say that call (registering the memory) failed with ret; where the memory
 * is a file the kernel would not pin (a DAX file system without on-demand
 * paging), say why and what to use instead. Call it first: it reads errno.
 */
void mem_reg_failed(const struct server_mem *mem, const char *call, int ret);

/* Make len bytes at ptr persistent (nothing to do for DRAM). */
void mem_persist(const struct server_mem *mem, const void *ptr, size_t len);

/* Release the memory. */
void mem_close(struct server_mem *mem);

/*
 * A peer configuration that declares direct write to PMem only when the
 * operator asked for it and the memory is true pmem; says which it is.
 */
int mem_peer_cfg(const struct server_mem *mem, bool requested, struct rpma_peer_cfg **pcfg_ptr);

#endif /* EXAMPLES_MEM_H */
