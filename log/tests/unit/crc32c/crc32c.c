// SPDX-License-Identifier: BSD-3-Clause
/* crc32c.c -- unit tests of log/src/crc32c.c: known values, pieces, both ways alike */

#include "log_unit.h"
#include "crc32c.h"

typedef uint32_t (*crc_fn)(uint32_t, const void *, size_t);

/* the ways this CPU can take: the dispatcher, the table, the instruction */
static size_t
ways(crc_fn fns[3])
{
	size_t n = 0;

	fns[n++] = crc32c;
	fns[n++] = crc32c_table;
	if (crc32c_insn_usable())
		fns[n++] = crc32c_insn;
	return n;
}

/* the check value of the CRC catalogues and RFC 3720's examples (B.4) */
static void
test_crc32c__known_values(void **state)
{
	(void) state;
	uint8_t zeros[32] = {0}, ones[32], up[32], down[32];
	crc_fn fns[3];
	size_t n = ways(fns);

	memset(ones, 0xff, sizeof(ones));
	for (int i = 0; i < 32; i++) {
		up[i] = (uint8_t)i;
		down[i] = (uint8_t)(31 - i);
	}
	for (size_t f = 0; f < n; f++) {
		assert_int_equal(fns[f](0, "123456789", 9), 0xe3069283u);
		assert_int_equal(fns[f](0, zeros, 32), 0x8a9136aau);
		assert_int_equal(fns[f](0, ones, 32), 0x62a8ab43u);
		assert_int_equal(fns[f](0, up, 32), 0x46dd794eu);
		assert_int_equal(fns[f](0, down, 32), 0x113fdb5cu);
	}
}

/* nothing to add leaves the CRC as it was */
static void
test_crc32c__empty(void **state)
{
	(void) state;
	crc_fn fns[3];
	size_t n = ways(fns);

	for (size_t f = 0; f < n; f++) {
		assert_int_equal(fns[f](0, NULL, 0), 0);
		assert_int_equal(fns[f](0x12345678u, "x", 0), 0x12345678u);
	}
}

/* a buffer checksummed in two pieces, split anywhere, as in one */
static void
test_crc32c__pieces(void **state)
{
	(void) state;
	uint8_t buf[100];
	crc_fn fns[3];
	size_t n = ways(fns);

	fx_payload(buf, sizeof(buf), 7);
	for (size_t f = 0; f < n; f++) {
		uint32_t whole = fns[f](0, buf, sizeof(buf));

		for (size_t cut = 0; cut <= sizeof(buf); cut++)
			assert_int_equal(fns[f](fns[f](0, buf, cut), buf + cut,
					sizeof(buf) - cut), whole);
	}
}

/* the instruction and the table agree at every length and alignment */
static void
test_crc32c__insn_as_table(void **state)
{
	(void) state;
	uint8_t buf[80];

	if (!crc32c_insn_usable())
		skip();
	fx_payload(buf, sizeof(buf), 3);
	for (size_t start = 0; start < 8; start++)
		for (size_t len = 0; start + len <= sizeof(buf); len++)
			assert_int_equal(crc32c_insn(0xdeadbeefu, buf + start, len),
					crc32c_table(0xdeadbeefu, buf + start, len));
}

/* one changed bit changes the CRC: a torn byte is seen */
static void
test_crc32c__bit_flip(void **state)
{
	(void) state;
	uint8_t buf[64];
	uint32_t whole;

	fx_payload(buf, sizeof(buf), 11);
	whole = crc32c(0, buf, sizeof(buf));
	for (size_t bit = 0; bit < 8 * sizeof(buf); bit++) {
		buf[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		assert_int_not_equal(crc32c(0, buf, sizeof(buf)), whole);
		buf[bit / 8] ^= (uint8_t)(1u << (bit % 8));
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		TEST(test_crc32c__known_values),
		TEST(test_crc32c__empty),
		TEST(test_crc32c__pieces),
		TEST(test_crc32c__insn_as_table),
		TEST(test_crc32c__bit_flip),
	};
	return RUN(tests);
}
