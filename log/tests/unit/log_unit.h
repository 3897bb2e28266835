/* SPDX-License-Identifier: BSD-3-Clause */
/* log_unit.h -- what the log's unit tests share: cmocka, and a log in memory */

#ifndef LOG_UNIT_H
#define LOG_UNIT_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "entry.h"
#include "header.h"

#define TEST(f) cmocka_unit_test(f)
/* the group is named after the program, as its XML report names it */
#define RUN(tests) cmocka_run_group_tests_name(UNIT_NAME, tests, NULL, NULL)

#define FX_LOG_SIZE (64 * 1024)

/* a log's memory, filled with what no log writes, then a new log in it */
static inline uint8_t *
fx_log(struct log_header *h)
{
	static uint8_t mem[FX_LOG_SIZE] __attribute__((aligned(8)));

	memset(mem, 0xa5, sizeof(mem));
	assert_int_equal(header_create(mem, sizeof(mem), h), 0);
	return mem;
}

/* payload K of LENGTH bytes, each telling its entry and place */
static inline void
fx_payload(uint8_t *buf, uint32_t length, uint64_t k)
{
	for (uint32_t i = 0; i < length; i++)
		buf[i] = (uint8_t)(k * 31 + i);
}

/*
 * Entry INDEX (of epoch EPOCH, committed COMMITTED, fx_payload's LENGTH
 * bytes) appended at *END of MEM: *END moves past it.
 */
static inline void
fx_append(uint8_t *mem, uint64_t *end, uint64_t index, uint64_t epoch, uint64_t committed,
		uint32_t length)
{
	static uint8_t buf[FX_LOG_SIZE];
	struct log_entry e = { .index = index, .epoch = epoch, .committed = committed };
	struct iovec iov = { .iov_base = buf, .iov_len = length };

	fx_payload(buf, length, index);
	assert_int_equal(entry_encode(mem + *end, FX_LOG_SIZE - *end, &e, &iov, 1),
			entry_size(length) + LAYOUT_ENTRY_HDR);
	*end += entry_size(length);
}

#endif /* LOG_UNIT_H */
