// SPDX-License-Identifier: BSD-3-Clause
/* header.c -- the log's header: encoded, checked, read, stored and created */

#include <string.h>

#include "crc32c.h"
#include "entry.h"
#include "header.h"

/*
 * A slot's bytes. The magic, the version and the checksum (of the whole
 * slot) stand where they are in every layout version: a torn slot is told
 * from another version's by its checksum.
 */
enum {
	SLOT_MAGIC = 0, SLOT_VERSION = 8, SLOT_CRC = 12, SLOT_SEQ = 16, SLOT_SIZE = 24,
	SLOT_EPOCH = 32, SLOT_FIRST = 40, SLOT_COMMITTED = 48, SLOT_COMMITTED_END = 56,
};

static uint32_t
slot_crc(const uint8_t *slot)
{
	/* the checksum covers every byte of the slot but its own four */
	return crc32c(crc32c(0, slot, SLOT_CRC), slot + SLOT_SEQ,
			LAYOUT_SLOT_SIZE - SLOT_SEQ);
}

void
header_encode(const struct log_header *h, uint8_t slot[LAYOUT_SLOT_SIZE])
{
	memcpy(slot + SLOT_MAGIC, LAYOUT_MAGIC, sizeof(LAYOUT_MAGIC));
	layout_put(slot + SLOT_VERSION, LAYOUT_VERSION, 4);
	layout_put(slot + SLOT_SEQ, h->seq, 8);
	layout_put(slot + SLOT_SIZE, h->size, 8);
	layout_put(slot + SLOT_EPOCH, h->epoch, 8);
	layout_put(slot + SLOT_FIRST, h->first, 8);
	layout_put(slot + SLOT_COMMITTED, h->committed, 8);
	layout_put(slot + SLOT_COMMITTED_END, h->committed_end, 8);
	layout_put(slot + SLOT_CRC, slot_crc(slot), 4);
}

/* the fields agree with each other and with the memory the log is in */
static int
header_sane(const struct log_header *h, uint64_t mem_size)
{
	uint64_t entries = h->committed - h->first;

	if (h->seq == 0 || h->size < LAYOUT_MIN_SIZE || h->size > mem_size)
		return 0;
	if (h->committed < h->first || h->committed_end < LAYOUT_ENTRIES ||
			h->committed_end > h->size || h->committed_end % LAYOUT_ALIGN)
		return 0;
	/* each committed entry takes at least its header */
	return entries <= (h->committed_end - LAYOUT_ENTRIES) / LAYOUT_ENTRY_HDR &&
			(entries > 0 || h->committed_end == LAYOUT_ENTRIES);
}

int
header_decode(const uint8_t slot[LAYOUT_SLOT_SIZE], uint64_t mem_size, struct log_header *h)
{
	struct log_header d;

	if (memcmp(slot + SLOT_MAGIC, LAYOUT_MAGIC, sizeof(LAYOUT_MAGIC)) != 0)
		return LAYOUT_NOT_LOG;
	if (layout_get(slot + SLOT_CRC, 4) != slot_crc(slot))
		return LAYOUT_CORRUPT;
	if (layout_get(slot + SLOT_VERSION, 4) != LAYOUT_VERSION)
		return LAYOUT_OTHER_VERSION;
	d.seq = layout_get(slot + SLOT_SEQ, 8);
	d.size = layout_get(slot + SLOT_SIZE, 8);
	d.epoch = layout_get(slot + SLOT_EPOCH, 8);
	d.first = layout_get(slot + SLOT_FIRST, 8);
	d.committed = layout_get(slot + SLOT_COMMITTED, 8);
	d.committed_end = layout_get(slot + SLOT_COMMITTED_END, 8);
	if (!header_sane(&d, mem_size))
		return LAYOUT_CORRUPT;
	*h = d;
	return 0;
}

int
header_read(const void *mem, uint64_t mem_size, struct log_header *h, unsigned *slot)
{
	struct log_header s[2];
	int ret[2];

	if (mem_size < LAYOUT_MIN_SIZE)
		return LAYOUT_TOO_SMALL;
	for (unsigned i = 0; i < 2; i++)
		ret[i] = header_decode((const uint8_t *)mem + i * LAYOUT_SLOT_SIZE,
				mem_size, &s[i]);
	/* a newer layout's writer may have stored either slot: neither counts */
	if (ret[0] == LAYOUT_OTHER_VERSION || ret[1] == LAYOUT_OTHER_VERSION)
		return LAYOUT_OTHER_VERSION;
	if (ret[0] == 0 && ret[1] == 0) {
		if (s[0].seq == s[1].seq)
			return LAYOUT_CORRUPT; /* no store makes two slots alike */
		*slot = s[1].seq > s[0].seq;
	} else if (ret[0] == 0 || ret[1] == 0) {
		*slot = ret[0] != 0; /* a torn store leaves the other slot */
	} else {
		return ret[0] == LAYOUT_NOT_LOG && ret[1] == LAYOUT_NOT_LOG ?
				LAYOUT_NOT_LOG : LAYOUT_CORRUPT;
	}
	*h = s[*slot];
	return 0;
}

unsigned
header_store(void *mem, struct log_header *h, unsigned current)
{
	unsigned next = !current;

	h->seq++;
	header_encode(h, (uint8_t *)mem + next * LAYOUT_SLOT_SIZE);
	return next;
}

int
header_create(void *mem, uint64_t mem_size, struct log_header *h)
{
	if (mem_size < LAYOUT_MIN_SIZE)
		return LAYOUT_TOO_SMALL;
	*h = (struct log_header){
		.seq = 1, .size = mem_size, .committed_end = LAYOUT_ENTRIES,
	};
	/* what an earlier log left there is neither a slot nor an entry */
	memset((uint8_t *)mem + LAYOUT_SLOT_SIZE, 0, LAYOUT_SLOT_SIZE);
	entry_mark_end((uint8_t *)mem + LAYOUT_ENTRIES);
	header_encode(h, mem);
	return 0;
}
