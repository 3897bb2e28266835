// SPDX-License-Identifier: BSD-3-Clause
/* mr_desc.c -- unit tests of src/mr_desc.c: the descriptor's bytes, both ways */

#include <stdint.h>
#include <string.h>

#include "fixtures.h"
#include "mr_desc.h"

static const uint8_t known[MR_DESC_SIZE] = {
	0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01,	/* address, little-endian */
	0x18, 0x17, 0x16, 0x15, 0x14, 0x13, 0x12, 0x11,	/* length */
	0x24, 0x23, 0x22, 0x21,				/* rkey */
	0x85,						/* usage */
};

/* each field at its offset, little-endian whatever the host, nothing past the end */
static void
test_mr_desc_write__layout(void **state)
{
	(void) state;
	uint8_t desc[MR_DESC_SIZE + 1];

	assert_int_equal(MR_DESC_SIZE, FX_DESC_SIZE);
	memset(desc, 0xee, sizeof(desc));
	mr_desc_write(desc, 0x0102030405060708ULL, 0x1112131415161718ULL, 0x21222324, 0x85);
	assert_memory_equal(desc, known, MR_DESC_SIZE);
	assert_int_equal(desc[MR_DESC_SIZE], 0xee);
}

static void
test_mr_desc_read__fields(void **state)
{
	(void) state;
	struct mr_desc d;

	mr_desc_read(known, &d);
	assert_int_equal(d.addr, 0x0102030405060708ULL);
	assert_int_equal(d.length, 0x1112131415161718ULL);
	assert_int_equal(d.rkey, 0x21222324);
	assert_int_equal(d.usage, 0x85);
}

/* what the writer puts, the reader gets: the extremes of each field too */
static void
test_mr_desc__round_trip(void **state)
{
	(void) state;
	static const struct mr_desc cases[] = {
		{0, 0, 0, 0},
		{UINT64_MAX, UINT64_MAX, UINT32_MAX, 0xff},
		{0x7f00dead0000ULL, 4096, 0x1234, 0x01},
	};
	uint8_t desc[MR_DESC_SIZE], fx[FX_DESC_SIZE];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct mr_desc d;

		mr_desc_write(desc, cases[i].addr, cases[i].length, cases[i].rkey, cases[i].usage);
		fx_desc(fx, cases[i].addr, cases[i].length, cases[i].rkey, (uint8_t)cases[i].usage);
		assert_memory_equal(desc, fx, MR_DESC_SIZE);
		mr_desc_read(desc, &d);
		assert_int_equal(d.addr, cases[i].addr);
		assert_int_equal(d.length, cases[i].length);
		assert_int_equal(d.rkey, cases[i].rkey);
		assert_int_equal(d.usage, cases[i].usage);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		TEST(test_mr_desc_write__layout),
		TEST(test_mr_desc_read__fields),
		TEST(test_mr_desc__round_trip),
	};
	return RUN(tests);
}
