/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * 07-atomic-write/log.h -- the log both sides agree on, at the start of
 * the server's region: an 8-byte tail (the number of entries in use),
 * then fixed-size entries.
 */

#ifndef EXAMPLE_LOG_H
#define EXAMPLE_LOG_H 1

#include "mem.h"

#define LOG_TAIL	0	/* uint64_t, RPMA_ATOMIC_WRITE_ALIGNMENT-aligned */
#define LOG_ENTRIES	64	/* the first entry's offset */
#define LOG_ENTRY_SIZE	64
#define LOG_CAPACITY	((MEM_DATA_SIZE - LOG_ENTRIES) / LOG_ENTRY_SIZE)

#endif /* EXAMPLE_LOG_H */
