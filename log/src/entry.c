// SPDX-License-Identifier: BSD-3-Clause
/* entry.c -- an entry encoded for the log, and checked where it is read */

#include <string.h>

#include "crc32c.h"
#include "entry.h"

/* an entry header's bytes; its checksum, last, covers the others and the payload */
enum { ENTRY_INDEX = 0, ENTRY_EPOCH = 8, ENTRY_COMMITTED = 16, ENTRY_LENGTH = 24,
	ENTRY_CRC = 28 };

int64_t
entry_encode(uint8_t *dst, uint64_t room, struct log_entry *e, const struct iovec *iov,
		int iovcnt)
{
	uint64_t length = 0, size;
	uint8_t *p = dst + LAYOUT_ENTRY_HDR;
	uint32_t crc;

	if (iovcnt < 0)
		return LAYOUT_NO_ROOM;
	for (int i = 0; i < iovcnt; i++)
		length += iov[i].iov_len;
	size = entry_size(length);
	if (length > UINT32_MAX || room < LAYOUT_ENTRY_HDR || size > room - LAYOUT_ENTRY_HDR)
		return LAYOUT_NO_ROOM;
	e->length = (uint32_t)length;
	layout_put(dst + ENTRY_INDEX, e->index, 8);
	layout_put(dst + ENTRY_EPOCH, e->epoch, 8);
	layout_put(dst + ENTRY_COMMITTED, e->committed, 8);
	layout_put(dst + ENTRY_LENGTH, e->length, 4);
	crc = crc32c(0, dst, ENTRY_CRC);
	for (int i = 0; i < iovcnt; i++) {
		if (iov[i].iov_len == 0)
			continue; /* its base may be NULL */
		memcpy(p, iov[i].iov_base, iov[i].iov_len);
		crc = crc32c(crc, p, iov[i].iov_len);
		p += iov[i].iov_len;
	}
	layout_put(dst + ENTRY_CRC, crc, 4);
	memset(p, 0, size - LAYOUT_ENTRY_HDR - length);
	entry_mark_end(dst + size);
	return (int64_t)(size + LAYOUT_ENTRY_HDR);
}

uint64_t
entry_restamp(uint8_t *dst, uint64_t epoch)
{
	uint32_t length = (uint32_t)layout_get(dst + ENTRY_LENGTH, 4);

	layout_put(dst + ENTRY_EPOCH, epoch, 8);
	layout_put(dst + ENTRY_CRC, crc32c(crc32c(0, dst, ENTRY_CRC), dst + LAYOUT_ENTRY_HDR,
			length), 4);
	return entry_size(length);
}

void
entry_mark_end(uint8_t *dst)
{
	/* zeros check as no entry: the checksum of 28 zero bytes is not zero */
	memset(dst, 0, LAYOUT_ENTRY_HDR);
}

int
entry_check(const uint8_t *src, uint64_t room, uint64_t index, uint64_t min_epoch,
		uint64_t max_epoch, uint64_t min_committed, struct log_entry *e)
{
	struct log_entry d;

	if (room < LAYOUT_ENTRY_HDR)
		return LAYOUT_BAD_ENTRY;
	d.index = layout_get(src + ENTRY_INDEX, 8);
	d.epoch = layout_get(src + ENTRY_EPOCH, 8);
	d.committed = layout_get(src + ENTRY_COMMITTED, 8);
	d.length = (uint32_t)layout_get(src + ENTRY_LENGTH, 4);
	if (d.index != index || d.epoch < min_epoch || d.epoch > max_epoch ||
			d.committed < min_committed || d.committed > index ||
			entry_size(d.length) > room)
		return LAYOUT_BAD_ENTRY;
	if (crc32c(crc32c(0, src, ENTRY_CRC), src + LAYOUT_ENTRY_HDR, d.length) !=
			layout_get(src + ENTRY_CRC, 4))
		return LAYOUT_BAD_ENTRY;
	*e = d;
	return 0;
}
