/* SPDX-License-Identifier: BSD-3-Clause */
/* scan.h -- the walk over a log's entries that finds where its valid ones end */

#ifndef RPMALOG_SCAN_H
#define RPMALOG_SCAN_H

#include "entry.h"
#include "header.h"

/* where the valid entries end */
struct scan_end {
	uint64_t next;		/* the index after the last valid entry */
	uint64_t end;		/* where it ends: the next entry's place */
	uint64_t last_epoch;	/* the last valid entry's epoch, 0 if there is none */
	uint64_t committed;	/* the greatest committed point the header or an entry tells */
};

/* called with each valid entry and its payload; nonzero stops the walk */
typedef int (*scan_fn)(const struct log_entry *e, const uint8_t *payload, void *arg);

/*
 * The entries of the log H heads, in the first LEN bytes of MEM, up to the
 * first that does not check (torn, stale or never written): FN (if not
 * NULL) called on each, *END said. 0, FN's nonzero, or LAYOUT_CORRUPT where
 * an entry the header says committed does not check.
 */
int scan(const void *mem, uint64_t len, const struct log_header *h, scan_fn fn, void *arg,
		struct scan_end *end);

#endif /* RPMALOG_SCAN_H */
