/* SPDX-License-Identifier: BSD-3-Clause */
/* replica.h -- a replica's log in its memory: opened, recovered, its header stored */

#ifndef RPMALOGD_REPLICA_H
#define RPMALOGD_REPLICA_H

#include <stdbool.h>

#include "scan.h"

struct replica;

/* what replica_open() finds wrong; each says so on stderr too */
enum replica_error {
	REPLICA_SYSTEM = -10,	/* the path cannot be opened, sized or mapped (a new file: no size) */
	/* and the LAYOUT_ codes: NOT_LOG, OTHER_VERSION, CORRUPT, TOO_SMALL */
};

/*
 * The log in PATH (a devdax device, a file on a DAX file system, an
 * ordinary file), its torn tail cut off. Where PATH holds no log and
 * CREATE is set, a new one: an ordinary file of no bytes is made SIZE
 * bytes first. 0, REPLICA_SYSTEM or a LAYOUT_ code.
 */
int replica_open(const char *path, bool create, uint64_t size, struct replica **rp);

/* unmap and close; *RP becomes NULL */
void replica_close(struct replica **rp);

/* the log's header, as stored, and where its valid entries end */
const struct log_header *replica_header(const struct replica *r);
const struct scan_end *replica_end(const struct replica *r);

/* the memory: its first byte, and whether its stores persist by cache line */
uint8_t *replica_base(const struct replica *r);
bool replica_is_pmem(const struct replica *r);

/*
 * The entries scanned again (writes since the open): with CUT, no writer
 * writing, an end mark after them where torn bytes lie. 0 or LAYOUT_CORRUPT.
 */
int replica_rescan(struct replica *r, bool cut);

/* H stored as the header, in the slot not in use, persisted before it returns */
void replica_store(struct replica *r, const struct log_header *h);

/* LEN bytes at PTR in the log's memory made persistent */
void replica_persist(const struct replica *r, const void *ptr, size_t len);

#endif /* RPMALOGD_REPLICA_H */
