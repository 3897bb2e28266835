// SPDX-License-Identifier: BSD-3-Clause
/* mr_remote.c -- unit tests of src/mr_remote.c: a remote region from its descriptor */

#include <stdint.h>
#include <string.h>

#include "fixtures.h"
#include "mr.h"
#include "peer.h"

#define VIS RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY
#define PERS RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT

/* how each flush type reaches a remote region where a native FLUSH can be posted */
static void
test_mr_remote__flush_place(void **state)
{
	(void) state;
	static const struct { int usage; uint8_t pers; uint8_t vis; } map[] = {
		{VIS, 0, PEER_FLUSH_GLOBAL},
		{PERS, PEER_FLUSH_PERSISTENT, PEER_FLUSH_PERSISTENT},
		{VIS | PERS, PEER_FLUSH_PERSISTENT, PEER_FLUSH_GLOBAL},
		/* a region the client may read is flushed by a read, whoever serves it */
		{VIS | PERS | RPMA_MR_USAGE_READ_SRC, 0, 0},
		{RPMA_MR_USAGE_READ_SRC, 0, 0},
		{RPMA_MR_USAGE_WRITE_DST, 0, 0},
	};

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
		struct rpma_mr_remote *mr = fx_mr_remote(0x1000, 64, 0x42, map[i].usage);
		assert_int_equal(mr->flush_place[RPMA_FLUSH_TYPE_PERSISTENT], map[i].pers);
		assert_int_equal(mr->flush_place[RPMA_FLUSH_TYPE_VISIBILITY], map[i].vis);
		assert_int_equal(rpma_mr_remote_delete(&mr), 0);
	}
}

static void
test_mr_remote_from_descriptor__invalid(void **state)
{
	(void) state;
	uint8_t desc[FX_DESC_SIZE + 1];
	struct rpma_mr_remote *mr = (struct rpma_mr_remote *)0x1;

	fx_desc(desc, 0x1000, 100, 7, RPMA_MR_USAGE_READ_SRC);
	assert_int_equal(rpma_mr_remote_from_descriptor(NULL, FX_DESC_SIZE, &mr), RPMA_E_INVAL);
	assert_int_equal(rpma_mr_remote_from_descriptor(desc, FX_DESC_SIZE, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_mr_remote_from_descriptor(desc, FX_DESC_SIZE - 1, &mr),
			RPMA_E_INVAL);
	assert_int_equal(rpma_mr_remote_from_descriptor(desc, 0, &mr), RPMA_E_INVAL);
	assert_ptr_equal(mr, (struct rpma_mr_remote *)0x1);
}

/* a longer buffer (private data, padded) holds the descriptor in its first bytes */
static void
test_mr_remote_from_descriptor__longer_buffer(void **state)
{
	(void) state;
	uint8_t desc[FX_DESC_SIZE + 35];
	struct rpma_mr_remote *mr = NULL;
	size_t size;

	memset(desc, 0xff, sizeof(desc));
	fx_desc(desc, 0x1000, 100, 7, RPMA_MR_USAGE_READ_SRC);
	assert_int_equal(rpma_mr_remote_from_descriptor(desc, sizeof(desc), &mr), 0);
	assert_int_equal(rpma_mr_remote_get_size(mr, &size), 0);
	assert_int_equal(size, 100);
	assert_int_equal(rpma_mr_remote_delete(&mr), 0);
}

/*
 * bytes no librpma peer could have sent are refused; the usage byte has
 * no unknown bit (all 8 are RPMA_MR_USAGE_*), so only 0 is impossible
 */
static void
test_mr_remote_from_descriptor__corrupted(void **state)
{
	(void) state;
	static const struct { uint64_t addr, size; uint8_t usage; } bad[] = {
		{0x1000, 100, 0},			/* no usage */
		{0x1000, 0, RPMA_MR_USAGE_READ_SRC},	/* empty */
		{UINT64_MAX - 10, 100, RPMA_MR_USAGE_READ_SRC},	/* wraps */
		{1, UINT64_MAX, RPMA_MR_USAGE_WRITE_DST},	/* wraps */
	};
	struct rpma_mr_remote *mr = (struct rpma_mr_remote *)0x1;
	uint8_t desc[FX_DESC_SIZE];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		fx_desc(desc, bad[i].addr, bad[i].size, 7, bad[i].usage);
		assert_int_equal(rpma_mr_remote_from_descriptor(desc, sizeof(desc), &mr),
				RPMA_E_NOSUPP);
		assert_ptr_equal(mr, (struct rpma_mr_remote *)0x1);
	}
	assert_int_equal(CALLS(malloc), 0);
}

/* ranges that end at the top of the address space do not wrap: accepted */
static void
test_mr_remote_from_descriptor__top_of_space(void **state)
{
	(void) state;
	static const struct { uint64_t addr, size; } edge[] = {
		{0, UINT64_MAX},
		{UINT64_MAX - 100, 100},
	};
	uint8_t desc[FX_DESC_SIZE];

	for (size_t i = 0; i < sizeof(edge) / sizeof(edge[0]); i++) {
		struct rpma_mr_remote *mr = NULL;
		size_t size = 0;

		fx_desc(desc, edge[i].addr, edge[i].size, 7, RPMA_MR_USAGE_READ_SRC);
		assert_int_equal(rpma_mr_remote_from_descriptor(desc, sizeof(desc), &mr), 0);
		assert_int_equal(rpma_mr_remote_get_size(mr, &size), 0);
		assert_int_equal(size, edge[i].size);
		assert_int_equal(rpma_mr_remote_delete(&mr), 0);
	}
}

static void
test_mr_remote_from_descriptor__alloc_fails(void **state)
{
	(void) state;
	uint8_t desc[FX_DESC_SIZE];
	struct rpma_mr_remote *mr = NULL;

	fx_desc(desc, 0x1000, 100, 7, RPMA_MR_USAGE_READ_SRC);
	MOCK_FAIL(malloc, 0, 0);
	assert_int_equal(rpma_mr_remote_from_descriptor(desc, sizeof(desc), &mr), RPMA_E_NOMEM);
	assert_null(mr);
}

/* the largest range that does not wrap is accepted */
static void
test_mr_remote_from_descriptor__edge(void **state)
{
	(void) state;
	struct rpma_mr_remote *mr = fx_mr_remote(UINT64_MAX - 100, 100,
			0xabcd, RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY | RPMA_MR_USAGE_READ_SRC);
	int flush_type = 0;

	assert_int_equal(rpma_mr_remote_get_flush_type(mr, &flush_type), 0);
	assert_int_equal(flush_type, RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY);
	assert_int_equal(rpma_mr_remote_delete(&mr), 0);
}

static void
test_mr_remote_getters__invalid(void **state)
{
	(void) state;
	struct rpma_mr_remote *mr = fx_mr_remote(0x1000, 100, 7, RPMA_MR_USAGE_READ_SRC);
	size_t size = 7;
	int flush_type = 7;

	assert_int_equal(rpma_mr_remote_get_size(NULL, &size), RPMA_E_INVAL);
	assert_int_equal(rpma_mr_remote_get_size(mr, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_mr_remote_get_flush_type(NULL, &flush_type), RPMA_E_INVAL);
	assert_int_equal(rpma_mr_remote_get_flush_type(mr, NULL), RPMA_E_INVAL);
	assert_int_equal(size, 7);
	assert_int_equal(flush_type, 7);
	assert_int_equal(rpma_mr_remote_get_flush_type(mr, &flush_type), 0);
	assert_int_equal(flush_type, 0);
	assert_int_equal(rpma_mr_remote_delete(NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_mr_remote_delete(&mr), 0);
	assert_int_equal(rpma_mr_remote_delete(&mr), 0);	/* NULL: nothing to do */
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		TEST(test_mr_remote__flush_place),
		TEST(test_mr_remote_from_descriptor__invalid),
		TEST(test_mr_remote_from_descriptor__longer_buffer),
		TEST(test_mr_remote_from_descriptor__corrupted),
		TEST(test_mr_remote_from_descriptor__top_of_space),
		TEST(test_mr_remote_from_descriptor__alloc_fails),
		TEST(test_mr_remote_from_descriptor__edge),
		TEST(test_mr_remote_getters__invalid),
	};
	return RUN(tests);
}
