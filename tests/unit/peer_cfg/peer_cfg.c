// SPDX-License-Identifier: BSD-3-Clause
/* peer_cfg.c -- unit tests of src/peer_cfg.c: the setting and its descriptor */

#include "fixtures.h"
#include "peer_cfg.h"

static void
test_peer_cfg_new__all(void **state)
{
	(void) state;
	struct rpma_peer_cfg *pcfg = NULL;
	bool supported = true;

	assert_int_equal(rpma_peer_cfg_new(NULL), RPMA_E_INVAL);
	MOCK_FAIL(malloc, 0, 0);
	assert_int_equal(rpma_peer_cfg_new(&pcfg), RPMA_E_NOMEM);
	assert_null(pcfg);
	assert_int_equal(rpma_peer_cfg_new(&pcfg), 0);
	assert_int_equal(rpma_peer_cfg_get_direct_write_to_pmem(pcfg, &supported), 0);
	assert_false(supported);	/* never assumed */
	assert_int_equal(rpma_peer_cfg_delete(NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_peer_cfg_delete(&pcfg), 0);
	assert_null(pcfg);
	assert_int_equal(rpma_peer_cfg_delete(&pcfg), 0);
}

static void
test_peer_cfg_direct_write__all(void **state)
{
	(void) state;
	struct rpma_peer_cfg *pcfg = NULL;
	bool supported = true;

	assert_int_equal(rpma_peer_cfg_new(&pcfg), 0);
	assert_int_equal(rpma_peer_cfg_set_direct_write_to_pmem(NULL, true), RPMA_E_INVAL);
	assert_int_equal(rpma_peer_cfg_get_direct_write_to_pmem(NULL, &supported), RPMA_E_INVAL);
	assert_int_equal(rpma_peer_cfg_get_direct_write_to_pmem(pcfg, NULL), RPMA_E_INVAL);
	assert_true(supported);
	assert_int_equal(rpma_peer_cfg_set_direct_write_to_pmem(pcfg, true), 0);
	assert_int_equal(rpma_peer_cfg_get_direct_write_to_pmem(pcfg, &supported), 0);
	assert_true(supported);
	assert_true(peer_cfg_direct_write_to_pmem(pcfg));
	assert_int_equal(rpma_peer_cfg_set_direct_write_to_pmem(pcfg, false), 0);
	assert_false(peer_cfg_direct_write_to_pmem(pcfg));
	assert_int_equal(rpma_peer_cfg_delete(&pcfg), 0);
}

static void
test_peer_cfg_descriptor__round_trip(void **state)
{
	(void) state;
	struct rpma_peer_cfg *pcfg = NULL, *copy = NULL;
	size_t size = 0;
	uint8_t desc[4] = {0xaa, 0xaa, 0xaa, 0xaa};
	bool supported = false;

	assert_int_equal(rpma_peer_cfg_new(&pcfg), 0);
	assert_int_equal(rpma_peer_cfg_get_descriptor_size(NULL, &size), RPMA_E_INVAL);
	assert_int_equal(rpma_peer_cfg_get_descriptor_size(pcfg, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_peer_cfg_get_descriptor(NULL, desc), RPMA_E_INVAL);
	assert_int_equal(rpma_peer_cfg_get_descriptor(pcfg, NULL), RPMA_E_INVAL);
	assert_int_equal(desc[0], 0xaa);
	assert_int_equal(size, 0);
	assert_int_equal(rpma_peer_cfg_get_descriptor_size(pcfg, &size), 0);
	assert_int_equal(size, 1);

	assert_int_equal(rpma_peer_cfg_set_direct_write_to_pmem(pcfg, true), 0);
	assert_int_equal(rpma_peer_cfg_get_descriptor(pcfg, desc), 0);
	assert_int_equal(desc[0], 1);
	assert_int_equal(desc[1], 0xaa);	/* nothing written past it */
	assert_int_equal(rpma_peer_cfg_from_descriptor(desc, size, &copy), 0);
	assert_int_equal(rpma_peer_cfg_get_direct_write_to_pmem(copy, &supported), 0);
	assert_true(supported);
	assert_int_equal(rpma_peer_cfg_delete(&copy), 0);

	assert_int_equal(rpma_peer_cfg_set_direct_write_to_pmem(pcfg, false), 0);
	assert_int_equal(rpma_peer_cfg_get_descriptor(pcfg, desc), 0);
	assert_int_equal(desc[0], 0);
	assert_int_equal(rpma_peer_cfg_from_descriptor(desc, size, &copy), 0);
	assert_int_equal(rpma_peer_cfg_get_direct_write_to_pmem(copy, &supported), 0);
	assert_false(supported);
	assert_int_equal(rpma_peer_cfg_delete(&copy), 0);
	assert_int_equal(rpma_peer_cfg_delete(&pcfg), 0);
}

static void
test_peer_cfg_from_descriptor__invalid(void **state)
{
	(void) state;
	struct rpma_peer_cfg *pcfg = (struct rpma_peer_cfg *)0x1;
	uint8_t desc[2] = {1, 0};

	assert_int_equal(rpma_peer_cfg_from_descriptor(NULL, 1, &pcfg), RPMA_E_INVAL);
	assert_int_equal(rpma_peer_cfg_from_descriptor(desc, 1, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_peer_cfg_from_descriptor(desc, 0, &pcfg), RPMA_E_INVAL);
	assert_ptr_equal(pcfg, (struct rpma_peer_cfg *)0x1);
	MOCK_FAIL(malloc, 0, 0);
	assert_int_equal(rpma_peer_cfg_from_descriptor(desc, 1, &pcfg), RPMA_E_NOMEM);
	assert_ptr_equal(pcfg, (struct rpma_peer_cfg *)0x1);
}

/* as in librpma 1.x: a padded buffer is read by its first byte, any non-zero is "declared" */
static void
test_peer_cfg_from_descriptor__as_1x(void **state)
{
	(void) state;
	static const uint8_t values[] = {0, 1, 2, 0xff};
	struct rpma_peer_cfg *pcfg;
	bool supported;

	for (size_t i = 0; i < sizeof(values); i++) {
		uint8_t desc[8] = {values[i]};
		for (size_t size = 1; size <= sizeof(desc); size += 7) {
			assert_int_equal(rpma_peer_cfg_from_descriptor(desc, size, &pcfg), 0);
			assert_int_equal(rpma_peer_cfg_get_direct_write_to_pmem(pcfg, &supported), 0);
			assert_int_equal(supported, values[i] != 0);
			assert_int_equal(rpma_peer_cfg_delete(&pcfg), 0);
		}
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		TEST(test_peer_cfg_new__all),
		TEST(test_peer_cfg_direct_write__all),
		TEST(test_peer_cfg_descriptor__round_trip),
		TEST(test_peer_cfg_from_descriptor__invalid),
		TEST(test_peer_cfg_from_descriptor__as_1x),
	};
	return RUN(tests);
}
