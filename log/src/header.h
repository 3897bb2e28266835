/* SPDX-License-Identifier: BSD-3-Clause */
/* header.h -- the log's header: two slots, the newer valid one counts */

#ifndef RPMALOG_HEADER_H
#define RPMALOG_HEADER_H

#include "layout.h"

struct log_header {
	uint64_t seq;		/* the newer slot has the greater one */
	uint64_t size;		/* the log's memory, header included */
	uint64_t epoch;		/* the newest writer's epoch the replica accepted */
	uint64_t first;		/* the index of the entry at LAYOUT_ENTRIES */
	uint64_t committed;	/* one past the last index known committed */
	uint64_t committed_end;	/* where that committed entry ends */
};

/* H into a slot's 64 bytes, with its checksum */
void header_encode(const struct log_header *h, uint8_t slot[LAYOUT_SLOT_SIZE]);

/* a slot of a log in MEM_SIZE bytes into H: 0 or a LAYOUT_ code */
int header_decode(const uint8_t slot[LAYOUT_SLOT_SIZE], uint64_t mem_size,
		struct log_header *h);

/* the header of the log in MEM: 0 (*SLOT says which slot holds it) or a LAYOUT_ code */
int header_read(const void *mem, uint64_t mem_size, struct log_header *h, unsigned *slot);

/*
 * H, its seq made the next, into the slot other than CURRENT: it returns
 * the slot written, whose 64 bytes the caller persists.
 */
unsigned header_store(void *mem, struct log_header *h, unsigned current);

/* a new, empty log in MEM: its header in slot 0 and H, or LAYOUT_TOO_SMALL */
int header_create(void *mem, uint64_t mem_size, struct log_header *h);

#endif /* RPMALOG_HEADER_H */
