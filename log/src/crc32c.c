// SPDX-License-Identifier: BSD-3-Clause
/* crc32c.c -- CRC32C over a buffer, by the CPU's instruction or by a table */

#include <pthread.h>
#include <string.h>

#include "crc32c.h"

#define CRC32C_POLY 0x82f63b78u /* Castagnoli's polynomial, bits reflected */

static uint32_t table[256];
static pthread_once_t table_once = PTHREAD_ONCE_INIT;

static void
table_fill(void)
{
	for (uint32_t b = 0; b < 256; b++) {
		uint32_t r = b;

		for (int k = 0; k < 8; k++)
			r = (r >> 1) ^ (CRC32C_POLY & (0u - (r & 1u)));
		table[b] = r;
	}
}

uint32_t
crc32c_table(uint32_t crc, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	(void) pthread_once(&table_once, table_fill);
	crc = ~crc;
	while (len--)
		crc = table[(crc ^ *p++) & 0xffu] ^ (crc >> 8);
	return ~crc;
}

#if defined(__x86_64__)
/* SSE 4.2's crc32 computes this very CRC, 8 bytes an instruction */
__attribute__((target("sse4.2"))) uint32_t
crc32c_insn(uint32_t crc, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	uint64_t c = ~crc;

	for (; len >= 8; len -= 8, p += 8) {
		uint64_t word;

		memcpy(&word, p, sizeof(word));
		c = __builtin_ia32_crc32di(c, word);
	}
	while (len--)
		c = __builtin_ia32_crc32qi((uint32_t)c, *p++);
	return ~(uint32_t)c;
}

int
crc32c_insn_usable(void)
{
	return __builtin_cpu_supports("sse4.2");
}
#else
uint32_t
crc32c_insn(uint32_t crc, const void *buf, size_t len)
{
	return crc32c_table(crc, buf, len);
}

int
crc32c_insn_usable(void)
{
	return 0;
}
#endif

uint32_t
crc32c(uint32_t crc, const void *buf, size_t len)
{
	static int insn = -1;

	/* a race here only computes the same answer twice */
	if (__atomic_load_n(&insn, __ATOMIC_RELAXED) < 0)
		__atomic_store_n(&insn, crc32c_insn_usable(), __ATOMIC_RELAXED);
	if (__atomic_load_n(&insn, __ATOMIC_RELAXED))
		return crc32c_insn(crc, buf, len);
	return crc32c_table(crc, buf, len);
}
