// SPDX-License-Identifier: BSD-3-Clause
/* srq_cfg.c -- unit tests of src/srq_cfg.c */

#include "fixtures.h"
#include "srq_cfg.h"

static void
test_srq_cfg_new__all(void **state)
{
	(void) state;
	struct rpma_srq_cfg *cfg = NULL;
	uint32_t v = 0;

	assert_int_equal(rpma_srq_cfg_new(NULL), RPMA_E_INVAL);
	MOCK_FAIL(malloc, 0, 0);
	assert_int_equal(rpma_srq_cfg_new(&cfg), RPMA_E_NOMEM);
	assert_null(cfg);
	assert_int_equal(rpma_srq_cfg_new(&cfg), 0);
	assert_int_equal(rpma_srq_cfg_get_rq_size(cfg, &v), 0);
	assert_int_equal(v, 100);
	assert_int_equal(rpma_srq_cfg_get_rcq_size(cfg, &v), 0);
	assert_int_equal(v, 100);
	assert_int_equal(srq_cfg_rq_size(srq_cfg_default()), 100);
	assert_int_equal(srq_cfg_rcq_size(srq_cfg_default()), 100);
	assert_int_equal(rpma_srq_cfg_delete(NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_srq_cfg_delete(&cfg), 0);
	assert_null(cfg);
	assert_int_equal(rpma_srq_cfg_delete(&cfg), 0);
}

static void
test_srq_cfg_set_get__all(void **state)
{
	(void) state;
	struct rpma_srq_cfg *cfg = NULL;
	uint32_t v = 7;

	assert_int_equal(rpma_srq_cfg_new(&cfg), 0);
	assert_int_equal(rpma_srq_cfg_set_rq_size(NULL, 1), RPMA_E_INVAL);
	assert_int_equal(rpma_srq_cfg_get_rq_size(NULL, &v), RPMA_E_INVAL);
	assert_int_equal(rpma_srq_cfg_get_rq_size(cfg, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_srq_cfg_set_rcq_size(NULL, 1), RPMA_E_INVAL);
	assert_int_equal(rpma_srq_cfg_get_rcq_size(NULL, &v), RPMA_E_INVAL);
	assert_int_equal(rpma_srq_cfg_get_rcq_size(cfg, NULL), RPMA_E_INVAL);
	assert_int_equal(v, 7);
	assert_int_equal(rpma_srq_cfg_set_rq_size(cfg, 11), 0);
	assert_int_equal(rpma_srq_cfg_set_rcq_size(cfg, 22), 0);
	assert_int_equal(rpma_srq_cfg_get_rq_size(cfg, &v), 0);
	assert_int_equal(v, 11);
	assert_int_equal(rpma_srq_cfg_get_rcq_size(cfg, &v), 0);
	assert_int_equal(v, 22);
	assert_int_equal(srq_cfg_rq_size(cfg), 11);
	assert_int_equal(srq_cfg_rcq_size(cfg), 22);
	assert_int_equal(rpma_srq_cfg_delete(&cfg), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		TEST(test_srq_cfg_new__all),
		TEST(test_srq_cfg_set_get__all),
	};
	return RUN(tests);
}
