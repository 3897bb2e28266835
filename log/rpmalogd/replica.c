// SPDX-License-Identifier: BSD-3-Clause
/* replica.c -- the log's memory mapped with libpmem2, its header and tail kept sound */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libpmem2.h>

#include "replica.h"

struct replica {
	uint8_t *base;
	uint64_t size;
	bool pmem;
	struct log_header h;
	unsigned slot;
	struct scan_end end;

	int fd;
	struct pmem2_source *src;
	struct pmem2_map *map;
	pmem2_persist_fn persist;
};

static const char *const WHY[] = {
	[-LAYOUT_NOT_LOG] = "holds no log (start with --create to make one)",
	[-LAYOUT_OTHER_VERSION] = "holds a log of another layout version",
	[-LAYOUT_CORRUPT] = "holds a damaged log: a header or a committed entry does not check",
	[-LAYOUT_TOO_SMALL] = "is too small for a log",
};

/* a call failed: the system's reason, or libpmem2's for its own calls */
static int
failed(const char *path, const char *what, bool pmem2)
{
	fprintf(stderr, "rpmalogd: %s: %s: %s\n", path, what,
			pmem2 ? pmem2_errormsg() : strerror(errno));
	return REPLICA_SYSTEM;
}

/* a new ordinary file is given its size, its inode and its name made durable */
static int
file_sized(const char *path, int fd, uint64_t size)
{
	struct stat st;

	if (fstat(fd, &st))
		return failed(path, "fstat()", false);
	if (!S_ISREG(st.st_mode) || st.st_size != 0)
		return 0;
	if (size == 0) {
		fprintf(stderr, "rpmalogd: %s: a new file needs a size\n", path);
		return REPLICA_SYSTEM;
	}
	if (ftruncate(fd, (off_t)size) || fsync(fd))
		return failed(path, "ftruncate()", false);
	return 0;
}

static int
map(struct replica *r, const char *path)
{
	struct pmem2_config *cfg = NULL;
	size_t size;
	int ret = REPLICA_SYSTEM;

	if (pmem2_source_from_fd(&r->src, r->fd) || pmem2_source_size(r->src, &size))
		return failed(path, "pmem2_source_from_fd()", true);
	/* the coarsest granularity accepts any memory: an ordinary file too */
	if (pmem2_config_new(&cfg) ||
			pmem2_config_set_required_store_granularity(cfg, PMEM2_GRANULARITY_PAGE) ||
			pmem2_map_new(&r->map, cfg, r->src))
		ret = failed(path, "pmem2_map_new()", true);
	else
		ret = 0;
	if (cfg)
		(void) pmem2_config_delete(&cfg);
	if (ret)
		return ret;
	r->base = pmem2_map_get_address(r->map);
	r->size = size;
	r->pmem = pmem2_map_get_store_granularity(r->map) != PMEM2_GRANULARITY_PAGE;
	r->persist = pmem2_get_persist_fn(r->map);
	return 0;
}

/* the header read, or a new log made where CREATE says so */
static int
header_found(struct replica *r, bool create)
{
	int ret = header_read(r->base, r->size, &r->h, &r->slot);

	if (ret == LAYOUT_NOT_LOG && create) {
		ret = header_create(r->base, r->size, &r->h);
		r->slot = 0;
		if (ret == 0)
			r->persist(r->base, LAYOUT_ENTRIES + LAYOUT_ENTRY_HDR);
	}
	return ret;
}

int
replica_rescan(struct replica *r, bool cut)
{
	static const uint8_t mark[LAYOUT_ENTRY_HDR];
	uint8_t *at;
	int ret = scan(r->base, r->size, &r->h, NULL, NULL, &r->end);

	if (ret || !cut)
		return ret;
	at = r->base + r->end.end;
	if (r->end.end + LAYOUT_ENTRY_HDR <= r->h.size && memcmp(at, mark, sizeof(mark))) {
		entry_mark_end(at);
		r->persist(at, LAYOUT_ENTRY_HDR);
	}
	return 0;
}

int
replica_open(const char *path, bool create, uint64_t size, struct replica **rp)
{
	struct replica *r = calloc(1, sizeof(*r));
	int ret;

	if (r == NULL)
		return failed(path, "calloc()", false);
	r->fd = open(path, O_RDWR | (create ? O_CREAT : 0), 0600);
	if (r->fd < 0) {
		ret = failed(path, "open()", false);
		free(r);
		return ret;
	}
	ret = file_sized(path, r->fd, size);
	if (ret == 0)
		ret = map(r, path);
	if (ret == 0)
		ret = header_found(r, create);
	if (ret == 0)
		ret = replica_rescan(r, true);
	if (ret) {
		if (ret != REPLICA_SYSTEM)
			fprintf(stderr, "rpmalogd: %s %s\n", path, WHY[-ret]);
		replica_close(&r);
		return ret;
	}
	*rp = r;
	return 0;
}

void
replica_close(struct replica **rp)
{
	struct replica *r = *rp;

	if (r == NULL)
		return;
	if (r->map)
		(void) pmem2_map_delete(&r->map);
	if (r->src)
		(void) pmem2_source_delete(&r->src);
	(void) close(r->fd);
	free(r);
	*rp = NULL;
}

const struct log_header *
replica_header(const struct replica *r)
{
	return &r->h;
}

const struct scan_end *
replica_end(const struct replica *r)
{
	return &r->end;
}

uint8_t *
replica_base(const struct replica *r)
{
	return r->base;
}

bool
replica_is_pmem(const struct replica *r)
{
	return r->pmem;
}

void
replica_store(struct replica *r, const struct log_header *h)
{
	uint64_t seq = r->h.seq;

	r->h = *h;
	r->h.seq = seq; /* the slots' order is the replica's own */
	r->slot = header_store(r->base, &r->h, r->slot);
	r->persist(r->base + r->slot * LAYOUT_SLOT_SIZE, LAYOUT_SLOT_SIZE);
}

void
replica_persist(const struct replica *r, const void *ptr, size_t len)
{
	r->persist(ptr, len);
}
