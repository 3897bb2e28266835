/* SPDX-License-Identifier: BSD-3-Clause */
/* crc32c.h -- CRC32C (Castagnoli), the checksum of the log's headers and entries */

#ifndef RPMALOG_CRC32C_H
#define RPMALOG_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/*
 * CRC then LEN bytes of BUF: start with 0 and pass each result on to
 * checksum pieces as one buffer. The CPU's instruction where it has one.
 */
uint32_t crc32c(uint32_t crc, const void *buf, size_t len);

/* the table-driven and the instruction's way, for the tests to compare */
uint32_t crc32c_table(uint32_t crc, const void *buf, size_t len);
uint32_t crc32c_insn(uint32_t crc, const void *buf, size_t len);
int crc32c_insn_usable(void);

#endif /* RPMALOG_CRC32C_H */
