// SPDX-License-Identifier: BSD-3-Clause
/* header.c -- unit tests of log/src/header.c: slots encoded, checked, chosen, created */

#include "log_unit.h"
#include "crc32c.h"

static const struct log_header H = {
	.seq = 5, .size = FX_LOG_SIZE, .epoch = 9, .first = 100, .committed = 103,
	.committed_end = LAYOUT_ENTRIES + 3 * 48,
};

/* a slot's checksum made again after a test changed its bytes */
static void
reseal(uint8_t *slot)
{
	layout_put(slot + 12, crc32c(crc32c(0, slot, 12), slot + 16, LAYOUT_SLOT_SIZE - 16), 4);
}

static void
assert_header_equal(const struct log_header *a, const struct log_header *b)
{
	assert_memory_equal(a, b, sizeof(*a));
}

static void
test_header_encode__round_trip(void **state)
{
	(void) state;
	uint8_t slot[LAYOUT_SLOT_SIZE];
	struct log_header h;

	header_encode(&H, slot);
	assert_memory_equal(slot, "RPMALOG\0", 8);
	assert_int_equal(layout_get(slot + 8, 4), LAYOUT_VERSION);
	assert_int_equal(layout_get(slot + 32, 8), 9); /* little-endian, at its place */
	assert_int_equal(header_decode(slot, FX_LOG_SIZE, &h), 0);
	assert_header_equal(&h, &H);
}

/* any byte torn: the magic's says no log, any other's a damaged slot */
static void
test_header_decode__torn_byte(void **state)
{
	(void) state;
	uint8_t slot[LAYOUT_SLOT_SIZE];
	struct log_header h = {0};

	header_encode(&H, slot);
	for (size_t i = 0; i < LAYOUT_SLOT_SIZE; i++) {
		slot[i] ^= 0x10;
		assert_int_equal(header_decode(slot, FX_LOG_SIZE, &h),
				i < 8 ? LAYOUT_NOT_LOG : LAYOUT_CORRUPT);
		slot[i] ^= 0x10;
	}
	assert_int_equal(h.seq, 0); /* untouched when it fails */
}

/* another version whole (its checksum right) is told apart from a torn one */
static void
test_header_decode__other_version(void **state)
{
	(void) state;
	uint8_t slot[LAYOUT_SLOT_SIZE];
	struct log_header h;

	header_encode(&H, slot);
	layout_put(slot + 8, LAYOUT_VERSION + 1, 4);
	reseal(slot);
	assert_int_equal(header_decode(slot, FX_LOG_SIZE, &h), LAYOUT_OTHER_VERSION);
	layout_put(slot + 8, 0, 4);
	reseal(slot);
	assert_int_equal(header_decode(slot, FX_LOG_SIZE, &h), LAYOUT_OTHER_VERSION);
}

/* fields that cannot be, each with a right checksum */
static void
test_header_decode__insane(void **state)
{
	(void) state;
	struct {
		size_t at;
		uint64_t value;
	} bad[] = {
		{16, 0},			/* seq */
		{24, LAYOUT_MIN_SIZE - 1},	/* size: too small for a log */
		{24, FX_LOG_SIZE + 8},		/* larger than the memory */
		{40, 104},			/* first past committed */
		{56, LAYOUT_ENTRIES - 8},	/* committed_end in the header */
		{56, FX_LOG_SIZE + 8},		/* past the log */
		{56, LAYOUT_ENTRIES + 3 * 48 + 4}, /* unaligned */
		{56, LAYOUT_ENTRIES + 2 * LAYOUT_ENTRY_HDR}, /* 3 entries in 2 headers' room */
	};
	uint8_t slot[LAYOUT_SLOT_SIZE];
	struct log_header h, empty = H;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		header_encode(&H, slot);
		layout_put(slot + bad[i].at, bad[i].value, 8);
		reseal(slot);
		assert_int_equal(header_decode(slot, FX_LOG_SIZE, &h), LAYOUT_CORRUPT);
	}
	/* nothing committed ends where the entries begin */
	empty.committed = empty.first;
	header_encode(&empty, slot);
	assert_int_equal(header_decode(slot, FX_LOG_SIZE, &h), LAYOUT_CORRUPT);
	empty.committed_end = LAYOUT_ENTRIES;
	header_encode(&empty, slot);
	assert_int_equal(header_decode(slot, FX_LOG_SIZE, &h), 0);
	/* a log made on a larger memory is read on no smaller one */
	header_encode(&H, slot);
	assert_int_equal(header_decode(slot, FX_LOG_SIZE - 8, &h), LAYOUT_CORRUPT);
}

/* a new log: slot 0, nothing in it, over whatever was there */
static void
test_header_create__empty(void **state)
{
	(void) state;
	struct log_header h, r;
	uint8_t *mem = fx_log(&h);
	uint8_t zeros[LAYOUT_SLOT_SIZE] = {0};
	unsigned slot = 7;

	assert_int_equal(h.seq, 1);
	assert_int_equal(h.size, FX_LOG_SIZE);
	assert_int_equal(h.epoch, 0);
	assert_int_equal(h.first, 0);
	assert_int_equal(h.committed, 0);
	assert_int_equal(h.committed_end, LAYOUT_ENTRIES);
	assert_memory_equal(mem + LAYOUT_SLOT_SIZE, zeros, LAYOUT_SLOT_SIZE);
	assert_memory_equal(mem + LAYOUT_ENTRIES, zeros, LAYOUT_ENTRY_HDR);
	assert_int_equal(mem[LAYOUT_ENTRIES + LAYOUT_ENTRY_HDR], 0xa5); /* no more is written */
	assert_int_equal(header_read(mem, FX_LOG_SIZE, &r, &slot), 0);
	assert_int_equal(slot, 0);
	assert_header_equal(&r, &h);
	assert_int_equal(header_create(mem, LAYOUT_MIN_SIZE - 1, &r), LAYOUT_TOO_SMALL);
	assert_int_equal(header_create(mem, LAYOUT_MIN_SIZE, &r), 0);
}

/* each store goes to the other slot, and the newer counts */
static void
test_header_store__alternates(void **state)
{
	(void) state;
	struct log_header h, r;
	uint8_t *mem = fx_log(&h);
	unsigned slot = 0;

	for (unsigned k = 0; k < 4; k++) {
		h.epoch = 10 + k;
		slot = header_store(mem, &h, slot);
		assert_int_equal(slot, (k + 1) % 2);
		assert_int_equal(h.seq, 2 + k);
		assert_int_equal(header_read(mem, FX_LOG_SIZE, &r, &slot), 0);
		assert_int_equal(slot, (k + 1) % 2);
		assert_header_equal(&r, &h);
	}
}

/* a store torn anywhere leaves the slot before it */
static void
test_header_read__torn_store(void **state)
{
	(void) state;
	struct log_header h, before, r;
	uint8_t *mem = fx_log(&h);
	unsigned slot = 0, newest;

	h.epoch = 3;
	slot = header_store(mem, &h, slot);
	before = h;
	h.epoch = 4;
	newest = header_store(mem, &h, slot);
	for (size_t i = 0; i < LAYOUT_SLOT_SIZE; i++) {
		mem[newest * LAYOUT_SLOT_SIZE + i] ^= 0x01;
		assert_int_equal(header_read(mem, FX_LOG_SIZE, &r, &slot), 0);
		assert_int_equal(slot, !newest);
		assert_header_equal(&r, &before);
		mem[newest * LAYOUT_SLOT_SIZE + i] ^= 0x01;
	}
	assert_int_equal(header_read(mem, FX_LOG_SIZE, &r, &slot), 0);
	assert_header_equal(&r, &h);
	/* the very first store over the zeroed slot, torn after the magic */
	mem = fx_log(&h);
	h.epoch = 1;
	header_store(mem, &h, 0);
	memset(mem + LAYOUT_SLOT_SIZE + 8, 0, LAYOUT_SLOT_SIZE - 8);
	assert_int_equal(header_read(mem, FX_LOG_SIZE, &r, &slot), 0);
	assert_int_equal(slot, 0);
	assert_int_equal(r.seq, 1);
}

/* what is no log, a damaged one, another version, and too little memory */
static void
test_header_read__refused(void **state)
{
	(void) state;
	struct log_header h, r;
	uint8_t *mem = fx_log(&h);
	unsigned slot;

	header_store(mem, &h, 0);
	mem[3] ^= 1;
	mem[LAYOUT_SLOT_SIZE + 20] ^= 1;
	assert_int_equal(header_read(mem, FX_LOG_SIZE, &r, &slot), LAYOUT_CORRUPT);
	memset(mem, 0, 2 * LAYOUT_SLOT_SIZE);
	assert_int_equal(header_read(mem, FX_LOG_SIZE, &r, &slot), LAYOUT_NOT_LOG);
	assert_int_equal(header_read(mem, LAYOUT_MIN_SIZE - 1, &r, &slot), LAYOUT_TOO_SMALL);
	/* two slots of one seq: no store writes them */
	mem = fx_log(&h);
	memcpy(mem + LAYOUT_SLOT_SIZE, mem, LAYOUT_SLOT_SIZE);
	assert_int_equal(header_read(mem, FX_LOG_SIZE, &r, &slot), LAYOUT_CORRUPT);
	/* a newer layout in either slot, beside a valid one */
	for (unsigned s = 0; s < 2; s++) {
		mem = fx_log(&h);
		header_store(mem, &h, 0);
		layout_put(mem + s * LAYOUT_SLOT_SIZE + 8, 2, 4);
		reseal(mem + s * LAYOUT_SLOT_SIZE);
		assert_int_equal(header_read(mem, FX_LOG_SIZE, &r, &slot), LAYOUT_OTHER_VERSION);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		TEST(test_header_encode__round_trip),
		TEST(test_header_decode__torn_byte),
		TEST(test_header_decode__other_version),
		TEST(test_header_decode__insane),
		TEST(test_header_create__empty),
		TEST(test_header_store__alternates),
		TEST(test_header_read__torn_store),
		TEST(test_header_read__refused),
	};
	return RUN(tests);
}
