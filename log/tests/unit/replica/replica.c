// SPDX-License-Identifier: BSD-3-Clause
/* replica.c -- unit tests of log/rpmalogd/replica.c: a log in a file, made, kept, recovered */

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "log_unit.h"
#include "crc32c.h"
#include "replica.h"

#define SIZE (64 * 1024)

static char dir[64], path[96];

static int
setup(void **state)
{
	(void) state;
	const char *tmp = getenv("TMPDIR");

	snprintf(dir, sizeof(dir), "%s/rpmalog-XXXXXX", tmp ? tmp : "/tmp");
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/log", dir);
	return 0;
}

static int
teardown(void **state)
{
	(void) state;
	(void) unlink(path);
	return rmdir(dir);
}

#define RTEST(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

/* a byte of the file (at OFFSET) changed while no replica has it open */
static void
file_xor(uint64_t offset, uint8_t bits)
{
	int fd = open(path, O_RDWR);
	uint8_t b;

	assert_true(fd >= 0);
	assert_int_equal(pread(fd, &b, 1, (off_t)offset), 1);
	b ^= bits;
	assert_int_equal(pwrite(fd, &b, 1, (off_t)offset), 1);
	assert_int_equal(close(fd), 0);
}

static struct replica *
opened(bool create)
{
	struct replica *r = NULL;

	assert_int_equal(replica_open(path, create, SIZE, &r), 0);
	assert_non_null(r);
	return r;
}

/* N entries of epoch 1 appended at the end, persisted; their ends into ENDS */
static void
appended(struct replica *r, unsigned n, uint64_t *ends)
{
	uint64_t end = replica_end(r)->end;

	for (unsigned i = 0; i < n; i++) {
		fx_append(replica_base(r), &end, replica_end(r)->next + i, 0, 0, 100 + i);
		ends[i] = end;
	}
	replica_persist(r, replica_base(r), SIZE);
}

static void
test_replica_open__create(void **state)
{
	(void) state;
	struct replica *r = opened(true);

	assert_int_equal(replica_header(r)->seq, 1);
	assert_int_equal(replica_header(r)->size, SIZE);
	assert_int_equal(replica_end(r)->next, 0);
	assert_int_equal(replica_end(r)->end, LAYOUT_ENTRIES);
	assert_false(replica_is_pmem(r)); /* an ordinary file */
	replica_close(&r);
	assert_null(r);
	/* opened again, without creating: the same log */
	r = opened(false);
	assert_int_equal(replica_header(r)->seq, 1);
	replica_close(&r);
	/* creating where a log is keeps it */
	r = opened(true);
	assert_int_equal(replica_header(r)->seq, 1);
	replica_close(&r);
	replica_close(&r); /* a closed one again: nothing */
}

/* what is no log, no file, a file of no size, too small a file */
static void
test_replica_open__refused(void **state)
{
	(void) state;
	struct replica *r = NULL;
	int fd;

	assert_int_equal(replica_open(path, false, SIZE, &r), REPLICA_SYSTEM);
	assert_int_equal(replica_open(path, true, 0, &r), REPLICA_SYSTEM);
	assert_null(r);
	fd = open(path, O_RDWR);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, SIZE), 0);
	assert_int_equal(close(fd), 0);
	assert_int_equal(replica_open(path, false, SIZE, &r), LAYOUT_NOT_LOG);
	assert_null(r);
	fd = open(path, O_RDWR);
	assert_int_equal(ftruncate(fd, LAYOUT_MIN_SIZE - 8), 0);
	assert_int_equal(close(fd), 0);
	assert_int_equal(replica_open(path, true, SIZE, &r), LAYOUT_TOO_SMALL);
	assert_null(r);
}

/* a torn last entry is cut off, and stays cut */
static void
test_replica_open__torn_tail(void **state)
{
	(void) state;
	struct replica *r = opened(true);
	uint64_t ends[3];
	uint8_t mark[LAYOUT_ENTRY_HDR] = {0};

	appended(r, 3, ends);
	replica_close(&r);
	r = opened(false);
	assert_int_equal(replica_end(r)->next, 3);
	assert_int_equal(replica_end(r)->end, ends[2]);
	replica_close(&r);
	file_xor(ends[1] + 50, 0x04);
	r = opened(false);
	assert_int_equal(replica_end(r)->next, 2);
	assert_int_equal(replica_end(r)->end, ends[1]);
	assert_memory_equal(replica_base(r) + ends[1], mark, sizeof(mark));
	replica_close(&r);
	file_xor(ends[1] + 50, 0x04); /* the torn byte back: the mark keeps it out */
	r = opened(false);
	assert_int_equal(replica_end(r)->next, 2);
	replica_close(&r);
}

/* a header stored goes to the other slot and is what the next open reads */
static void
test_replica_store__kept(void **state)
{
	(void) state;
	struct replica *r = opened(true);
	struct log_header h = *replica_header(r);

	h.epoch = 5;
	h.seq = 77; /* not the caller's to say */
	replica_store(r, &h);
	assert_int_equal(replica_header(r)->seq, 2);
	replica_close(&r);
	r = opened(false);
	assert_int_equal(replica_header(r)->epoch, 5);
	assert_int_equal(replica_header(r)->seq, 2);
	h = *replica_header(r);
	h.epoch = 6;
	replica_store(r, &h);
	replica_close(&r);
	/* the newer slot torn: the one before it counts */
	file_xor(20, 0x01);
	r = opened(false);
	assert_int_equal(replica_header(r)->epoch, 5);
	replica_close(&r);
}

/* a committed entry that does not check, and another layout: refused, left as they are */
static void
test_replica_open__damaged(void **state)
{
	(void) state;
	struct replica *r = opened(true);
	struct log_header h = *replica_header(r);
	uint64_t ends[2];
	uint8_t slot[LAYOUT_SLOT_SIZE];
	int fd;

	appended(r, 2, ends);
	h.committed = 2;
	h.committed_end = ends[1];
	replica_store(r, &h);
	replica_close(&r);
	file_xor(LAYOUT_ENTRIES + 40, 0x80);
	assert_int_equal(replica_open(path, true, SIZE, &r), LAYOUT_CORRUPT);
	assert_null(r);
	file_xor(LAYOUT_ENTRIES + 40, 0x80);
	r = opened(false);
	assert_int_equal(replica_end(r)->next, 2);
	replica_close(&r);
	/* slot 1 (the newer) of layout version 2, its checksum right */
	fd = open(path, O_RDWR);
	assert_int_equal(pread(fd, slot, sizeof(slot), LAYOUT_SLOT_SIZE), sizeof(slot));
	layout_put(slot + 8, 2, 4);
	layout_put(slot + 12, crc32c(crc32c(0, slot, 12), slot + 16, LAYOUT_SLOT_SIZE - 16), 4);
	assert_int_equal(pwrite(fd, slot, sizeof(slot), LAYOUT_SLOT_SIZE), sizeof(slot));
	assert_int_equal(close(fd), 0);
	assert_int_equal(replica_open(path, true, SIZE, &r), LAYOUT_OTHER_VERSION);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		RTEST(test_replica_open__create),
		RTEST(test_replica_open__refused),
		RTEST(test_replica_open__torn_tail),
		RTEST(test_replica_store__kept),
		RTEST(test_replica_open__damaged),
	};
	return RUN(tests);
}
