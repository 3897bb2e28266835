// SPDX-License-Identifier: BSD-3-Clause
/* proto.c -- unit tests of log/src/proto.c: each message both ways, and bytes refused */

#include "log_unit.h"
#include "proto.h"

static const struct proto_welcome W = {
	.size = 1 << 20, .epoch = 9, .first = 10, .committed = 12,
	.committed_end = LAYOUT_ENTRIES + 96, .next = 14, .end = LAYOUT_ENTRIES + 160,
	.last_epoch = 8,
	.grant_size = 21, .pcfg_size = 1, .grant = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,
		13, 14, 15, 16, 17, 18, 19, 20, 21}, .pcfg = {1},
};

static void
test_proto_hello__both_ways(void **state)
{
	(void) state;
	uint8_t buf[56] = {0}; /* as a connection's private data comes: padded */
	struct proto_hello m = { .epoch = 7, .writer = 0x1122334455667788u }, d;

	assert_int_equal(proto_hello_encode(&m, buf), PROTO_HELLO_SIZE);
	assert_memory_equal(buf, "RPLG\1\0\1\0", 8);
	assert_int_equal(proto_kind(buf, sizeof(buf)), PROTO_HELLO);
	assert_int_equal(proto_hello_decode(buf, sizeof(buf), &d), 0);
	assert_int_equal(d.epoch, 7);
	assert_int_equal(d.writer, 0x1122334455667788u);
	assert_int_equal(proto_hello_decode(buf, PROTO_HELLO_SIZE - 1, &d), PROTO_BAD);
	m.epoch = 0;
	proto_hello_encode(&m, buf);
	assert_int_equal(proto_hello_decode(buf, sizeof(buf), &d), PROTO_BAD);
}

static void
test_proto_welcome__both_ways(void **state)
{
	(void) state;
	uint8_t buf[PROTO_WELCOME_SIZE];
	struct proto_welcome d;

	assert_int_equal(proto_welcome_encode(&W, buf), PROTO_WELCOME_SIZE);
	assert_int_equal(proto_kind(buf, sizeof(buf)), PROTO_WELCOME);
	assert_int_equal(proto_welcome_decode(buf, sizeof(buf), &d), 0);
	/* field by field: the struct's padding is no field */
	assert_int_equal(d.size, W.size);
	assert_int_equal(d.epoch, W.epoch);
	assert_int_equal(d.first, W.first);
	assert_int_equal(d.committed, W.committed);
	assert_int_equal(d.committed_end, W.committed_end);
	assert_int_equal(d.next, W.next);
	assert_int_equal(d.end, W.end);
	assert_int_equal(d.last_epoch, W.last_epoch);
	assert_int_equal(d.grant_size, W.grant_size);
	assert_int_equal(d.pcfg_size, W.pcfg_size);
	assert_memory_equal(d.grant, W.grant, PROTO_DESC_MAX);
	assert_memory_equal(d.pcfg, W.pcfg, PROTO_DESC_MAX);
}

/* each field a peer could get wrong, and the decoder says no */
static void
test_proto_welcome__refused(void **state)
{
	(void) state;
	struct {
		size_t at, bytes;
		uint64_t value;
	} bad[] = {
		{8, 8, LAYOUT_MIN_SIZE - 1},		/* size */
		{24, 8, 13},				/* first past committed */
		{40, 8, LAYOUT_ENTRIES - 8},		/* committed_end in the header */
		{40, 8, LAYOUT_ENTRIES + 168},		/* committed past the end */
		{48, 8, 11},				/* next before committed */
		{56, 8, (1 << 20) + 8},			/* end past the log */
		{56, 8, LAYOUT_ENTRIES + 164},		/* unaligned */
		{64, 8, 10},				/* last epoch past the epoch */
		{72, 1, 0},				/* no grant */
		{72, 1, PROTO_DESC_MAX + 1},		/* a grant too long */
		{73, 1, 0},				/* no peer configuration */
		{74 + 21, 1, 0xff},			/* bytes after the grant */
		{0, 4, 0x474c5053u},			/* another magic */
		{4, 2, 2},				/* another version */
		{6, 2, PROTO_HELLO},			/* another kind */
	};
	uint8_t buf[PROTO_WELCOME_SIZE];
	struct proto_welcome d, big = W;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		proto_welcome_encode(&W, buf);
		layout_put(buf + bad[i].at, bad[i].value, (unsigned)bad[i].bytes);
		assert_int_equal(proto_welcome_decode(buf, sizeof(buf), &d), PROTO_BAD);
	}
	proto_welcome_encode(&W, buf);
	assert_int_equal(proto_welcome_decode(buf, sizeof(buf) - 1, &d), PROTO_BAD);
	assert_int_equal(proto_welcome_decode(NULL, sizeof(buf), &d), PROTO_BAD);
	big.grant_size = PROTO_DESC_MAX + 1;
	assert_int_equal(proto_welcome_encode(&big, buf), 0);
}

static void
test_proto_refuse__both_ways(void **state)
{
	(void) state;
	uint8_t buf[PROTO_REFUSE_SIZE];
	struct proto_refuse m = { .reason = PROTO_EPOCH_TAKEN, .epoch = 5 }, d;

	assert_int_equal(proto_refuse_encode(&m, buf), PROTO_REFUSE_SIZE);
	assert_int_equal(proto_refuse_decode(buf, sizeof(buf), &d), 0);
	assert_int_equal(d.reason, PROTO_EPOCH_TAKEN);
	assert_int_equal(d.epoch, 5);
	m.reason = 0;
	proto_refuse_encode(&m, buf);
	assert_int_equal(proto_refuse_decode(buf, sizeof(buf), &d), PROTO_BAD);
	m.reason = PROTO_NO_GRANT + 1;
	proto_refuse_encode(&m, buf);
	assert_int_equal(proto_refuse_decode(buf, sizeof(buf), &d), PROTO_BAD);
}

static void
test_proto_commit__both_ways(void **state)
{
	(void) state;
	uint8_t buf[PROTO_COMMIT_SIZE];
	struct proto_commit m = { .committed = 3, .committed_end = LAYOUT_ENTRIES + 96 }, d;

	assert_int_equal(proto_commit_encode(&m, buf), PROTO_COMMIT_SIZE);
	assert_int_equal(proto_kind(buf, sizeof(buf)), PROTO_COMMIT);
	assert_int_equal(proto_commit_decode(buf, sizeof(buf), &d), 0);
	assert_int_equal(d.committed, 3);
	assert_int_equal(d.committed_end, LAYOUT_ENTRIES + 96);
	assert_int_equal(proto_hello_decode(buf, sizeof(buf), NULL), PROTO_BAD);
	m.committed_end = LAYOUT_ENTRIES - 8;
	proto_commit_encode(&m, buf);
	assert_int_equal(proto_commit_decode(buf, sizeof(buf), &d), PROTO_BAD);
	m.committed_end = LAYOUT_ENTRIES + 4;
	proto_commit_encode(&m, buf);
	assert_int_equal(proto_commit_decode(buf, sizeof(buf), &d), PROTO_BAD);
}

/* fewer bytes than a prefix, or not this protocol's */
static void
test_proto_kind__bad(void **state)
{
	(void) state;
	uint8_t buf[8] = "RPLG\1\0\4";

	assert_int_equal(proto_kind(buf, 8), PROTO_COMMIT);
	assert_int_equal(proto_kind(buf, 7), PROTO_BAD);
	assert_int_equal(proto_kind(NULL, 8), PROTO_BAD);
	buf[0] = 'X';
	assert_int_equal(proto_kind(buf, 8), PROTO_BAD);
	buf[0] = 'R';
	buf[4] = 2;
	assert_int_equal(proto_kind(buf, 8), PROTO_BAD);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		TEST(test_proto_hello__both_ways),
		TEST(test_proto_welcome__both_ways),
		TEST(test_proto_welcome__refused),
		TEST(test_proto_refuse__both_ways),
		TEST(test_proto_commit__both_ways),
		TEST(test_proto_kind__bad),
	};
	return RUN(tests);
}
