/* SPDX-License-Identifier: BSD-3-Clause */
/* layout.h -- the log's bytes in persistent memory (doc/LOG.md), shared by its codecs */

#ifndef RPMALOG_LAYOUT_H
#define RPMALOG_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#define LAYOUT_MAGIC "RPMALOG"		/* 8 bytes with its NUL */
#define LAYOUT_VERSION 1u
#define LAYOUT_SLOT_SIZE 64u		/* each of the header's two slots */
#define LAYOUT_ENTRIES 4096u		/* where the first entry starts */
#define LAYOUT_ENTRY_HDR 32u		/* an entry's header, before its payload */
#define LAYOUT_ALIGN 8u			/* every entry starts 8-byte aligned */

/* what a codec finds wrong, each a different answer to a user */
#define LAYOUT_NOT_LOG (-1)		/* no magic: not a log */
#define LAYOUT_OTHER_VERSION (-2)	/* a log of another layout version */
#define LAYOUT_CORRUPT (-3)		/* a log whose header or committed entries are damaged */
#define LAYOUT_TOO_SMALL (-4)		/* the memory cannot hold a header and one entry */
#define LAYOUT_NO_ROOM (-5)		/* the entry does not fit where it is to go */
#define LAYOUT_BAD_ENTRY (-6)		/* not the expected entry: torn, stale or never written */

/* the smallest memory a log can live in: its header, one empty entry, the end mark */
#define LAYOUT_MIN_SIZE (LAYOUT_ENTRIES + 2 * LAYOUT_ENTRY_HDR)

/*
 * Stores and loads of N-byte fields, byte by byte: the layout is
 * little-endian on every host and its fields need not be aligned in the
 * caller's buffer.
 */
static inline void
layout_put(uint8_t *p, uint64_t v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline uint64_t
layout_get(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

#endif /* RPMALOG_LAYOUT_H */
