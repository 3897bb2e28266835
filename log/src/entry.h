/* SPDX-License-Identifier: BSD-3-Clause */
/* entry.h -- one entry of the log: its header, its payload, the end mark after it */

#ifndef RPMALOG_ENTRY_H
#define RPMALOG_ENTRY_H

#include <sys/uio.h>

#include "layout.h"

struct log_entry {
	uint64_t index;
	uint64_t epoch;		/* its writer's */
	uint64_t committed;	/* one past the last index its writer knew committed */
	uint32_t length;	/* of the payload */
};

/* the bytes an entry of LENGTH takes in the log: header and padded payload */
static inline uint64_t
entry_size(uint64_t length)
{
	return LAYOUT_ENTRY_HDR + (length + LAYOUT_ALIGN - 1) / LAYOUT_ALIGN * LAYOUT_ALIGN;
}

/*
 * E (its length the sum of IOV's) into DST, its payload gathered from IOV,
 * followed by an end mark, all in ROOM bytes: the bytes to write (entry and
 * mark), or LAYOUT_NO_ROOM. The mark makes whatever lies after the entry
 * from earlier writes unreadable, in the same write.
 */
int64_t entry_encode(uint8_t *dst, uint64_t room, struct log_entry *e,
		const struct iovec *iov, int iovcnt);

/* the whole entry at DST given EPOCH, its checksum made again: its size */
uint64_t entry_restamp(uint8_t *dst, uint64_t epoch);

/* what ends the log: 32 bytes that are no entry */
void entry_mark_end(uint8_t *dst);

/*
 * The entry at SRC, in ROOM bytes, if it is whole and the one expected:
 * index INDEX, epoch within [MIN_EPOCH, MAX_EPOCH], committed within
 * [MIN_COMMITTED, INDEX]. 0 (E filled in) or LAYOUT_BAD_ENTRY.
 */
int entry_check(const uint8_t *src, uint64_t room, uint64_t index, uint64_t min_epoch,
		uint64_t max_epoch, uint64_t min_committed, struct log_entry *e);

#endif /* RPMALOG_ENTRY_H */
