// SPDX-License-Identifier: BSD-3-Clause
/* entry.c -- unit tests of log/src/entry.c: entries encoded, gathered, checked */

#include "log_unit.h"

static uint8_t mem[1024], payload[300];

static const struct log_entry E = { .index = 42, .epoch = 7, .committed = 40 };

static int64_t
encode(uint64_t room, uint32_t length)
{
	struct log_entry e = E;
	struct iovec iov = { .iov_base = payload, .iov_len = length };

	fx_payload(payload, sizeof(payload), 1);
	memset(mem, 0xa5, sizeof(mem));
	return entry_encode(mem, room, &e, &iov, 1);
}

static int
check(uint64_t room, struct log_entry *e)
{
	return entry_check(mem, room, E.index, E.epoch, E.epoch, E.committed, e);
}

/* header, payload, zero padding to 8 bytes, then the end mark */
static void
test_entry_encode__layout(void **state)
{
	(void) state;
	uint8_t zeros[LAYOUT_ENTRY_HDR] = {0};
	struct log_entry e;

	assert_int_equal(entry_size(0), 32);
	assert_int_equal(entry_size(1), 40);
	assert_int_equal(entry_size(8), 40);
	assert_int_equal(entry_size(9), 48);
	assert_int_equal(encode(sizeof(mem), 13), 32 + 16 + 32);
	assert_int_equal(layout_get(mem, 8), 42);
	assert_int_equal(layout_get(mem + 8, 8), 7);
	assert_int_equal(layout_get(mem + 16, 8), 40);
	assert_int_equal(layout_get(mem + 24, 4), 13);
	assert_memory_equal(mem + 32, payload, 13);
	assert_memory_equal(mem + 45, zeros, 3);
	assert_memory_equal(mem + 48, zeros, LAYOUT_ENTRY_HDR);
	assert_int_equal(mem[80], 0xa5);
	assert_int_equal(check(sizeof(mem), &e), 0);
	assert_int_equal(e.length, 13);
	assert_int_equal(e.index, 42);
	assert_int_equal(e.epoch, 7);
	assert_int_equal(e.committed, 40);
}

/* a payload gathered from pieces (empty ones too) is the one buffer's bytes */
static void
test_entry_encode__gathered(void **state)
{
	(void) state;
	uint8_t whole[sizeof(mem)];
	struct log_entry e = E;
	struct iovec iov[] = {
		{payload, 5}, {NULL, 0}, {payload + 5, 100}, {payload + 105, 195},
	};

	assert_int_equal(encode(sizeof(mem), 300), 32 + 304 + 32);
	memcpy(whole, mem, sizeof(mem));
	memset(mem, 0xa5, sizeof(mem));
	assert_int_equal(entry_encode(mem, sizeof(mem), &e, iov, 4), 32 + 304 + 32);
	assert_int_equal(e.length, 300);
	assert_memory_equal(mem, whole, sizeof(mem));
	/* no payload at all */
	e = E;
	assert_int_equal(entry_encode(mem, sizeof(mem), &e, NULL, 0), 64);
	assert_int_equal(check(sizeof(mem), &e), 0);
	assert_int_equal(e.length, 0);
}

/* the entry and its mark fit, or nothing is written */
static void
test_entry_encode__no_room(void **state)
{
	(void) state;
	struct log_entry e = E;
	struct iovec huge = { .iov_base = payload, .iov_len = (size_t)UINT32_MAX + 1 };

	assert_int_equal(encode(32 + 16 + 32, 13), 80);
	assert_int_equal(encode(32 + 16 + 31, 13), LAYOUT_NO_ROOM);
	assert_int_equal(mem[0], 0xa5);
	assert_int_equal(encode(31, 0), LAYOUT_NO_ROOM);
	assert_int_equal(encode(0, 0), LAYOUT_NO_ROOM);
	assert_int_equal(entry_encode(mem, UINT64_MAX / 2, &e, &huge, 1), LAYOUT_NO_ROOM);
	assert_int_equal(entry_encode(mem, sizeof(mem), &e, &huge, -1), LAYOUT_NO_ROOM);
	assert_int_equal(mem[0], 0xa5);
}

/* a byte torn anywhere in the entry, header or payload, and it does not check */
static void
test_entry_check__torn_byte(void **state)
{
	(void) state;
	struct log_entry e;

	encode(sizeof(mem), 300);
	for (size_t i = 0; i < 32 + 300; i++) {
		mem[i] ^= 0x40;
		assert_int_equal(check(sizeof(mem), &e), LAYOUT_BAD_ENTRY);
		mem[i] ^= 0x40;
	}
	/* the padding is not part of it */
	mem[32 + 301] ^= 0x40;
	assert_int_equal(check(sizeof(mem), &e), 0);
}

/* a whole entry, but not the one expected where it lies */
static void
test_entry_check__unexpected(void **state)
{
	(void) state;
	struct log_entry e;

	encode(sizeof(mem), 13);
	assert_int_equal(entry_check(mem, sizeof(mem), 41, 7, 7, 40, &e), LAYOUT_BAD_ENTRY);
	assert_int_equal(entry_check(mem, sizeof(mem), 43, 7, 7, 40, &e), LAYOUT_BAD_ENTRY);
	assert_int_equal(entry_check(mem, sizeof(mem), 42, 8, 9, 40, &e), LAYOUT_BAD_ENTRY);
	assert_int_equal(entry_check(mem, sizeof(mem), 42, 1, 6, 40, &e), LAYOUT_BAD_ENTRY);
	assert_int_equal(entry_check(mem, sizeof(mem), 42, 7, 7, 41, &e), LAYOUT_BAD_ENTRY);
	assert_int_equal(entry_check(mem, sizeof(mem), 42, 0, 9, 0, &e), 0);
	/* longer than the room it lies in */
	assert_int_equal(check(47, &e), LAYOUT_BAD_ENTRY);
	assert_int_equal(check(48, &e), 0);
	assert_int_equal(check(31, &e), LAYOUT_BAD_ENTRY);
}

/* a committed point past the entry's own index was never written */
static void
test_entry_check__committed_ahead(void **state)
{
	(void) state;
	struct log_entry e = E, d;

	e.committed = 43;
	assert_int_equal(entry_encode(mem, sizeof(mem), &e, NULL, 0), 64);
	assert_int_equal(check(sizeof(mem), &d), LAYOUT_BAD_ENTRY);
	e.committed = 42;
	assert_int_equal(entry_encode(mem, sizeof(mem), &e, NULL, 0), 64);
	assert_int_equal(check(sizeof(mem), &d), 0);
}

/* an entry given a newer epoch checks at it, and only at it, its bytes the same */
static void
test_entry_restamp__newer(void **state)
{
	(void) state;
	struct log_entry e;

	encode(sizeof(mem), 300);
	assert_int_equal(entry_restamp(mem, 9), 32 + 304);
	assert_int_equal(entry_check(mem, sizeof(mem), 42, 9, 9, 40, &e), 0);
	assert_int_equal(e.epoch, 9);
	assert_int_equal(e.length, 300);
	assert_memory_equal(mem + 32, payload, 300);
	assert_int_equal(check(sizeof(mem), &e), LAYOUT_BAD_ENTRY); /* not at 7 any more */
}

/* the end mark is no entry, even where entry 0 of epoch 0 is expected */
static void
test_entry_mark_end__no_entry(void **state)
{
	(void) state;
	struct log_entry e;

	memset(mem, 0xa5, sizeof(mem));
	entry_mark_end(mem);
	assert_int_equal(mem[LAYOUT_ENTRY_HDR], 0xa5);
	assert_int_equal(entry_check(mem, sizeof(mem), 0, 0, 0, 0, &e), LAYOUT_BAD_ENTRY);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		TEST(test_entry_encode__layout),
		TEST(test_entry_encode__gathered),
		TEST(test_entry_encode__no_room),
		TEST(test_entry_check__torn_byte),
		TEST(test_entry_check__unexpected),
		TEST(test_entry_check__committed_ahead),
		TEST(test_entry_restamp__newer),
		TEST(test_entry_mark_end__no_entry),
	};
	return RUN(tests);
}
