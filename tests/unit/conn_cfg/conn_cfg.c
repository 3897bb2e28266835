// SPDX-License-Identifier: BSD-3-Clause
/* conn_cfg.c -- unit tests of src/conn_cfg.c */

#include "conn_cfg.h"
#include "fixtures.h"

typedef int (*set_fn)(struct rpma_conn_cfg *, uint32_t);
typedef int (*get_fn)(const struct rpma_conn_cfg *, uint32_t *);

static const struct { set_fn set; get_fn get; uint32_t def; } sizes[] = {
	{rpma_conn_cfg_set_cq_size, rpma_conn_cfg_get_cq_size, 10},
	{rpma_conn_cfg_set_rcq_size, rpma_conn_cfg_get_rcq_size, 0},
	{rpma_conn_cfg_set_sq_size, rpma_conn_cfg_get_sq_size, 10},
	{rpma_conn_cfg_set_rq_size, rpma_conn_cfg_get_rq_size, 10},
};

static void
test_conn_cfg_new__all(void **state)
{
	(void) state;
	struct rpma_conn_cfg *cfg = NULL;

	assert_int_equal(rpma_conn_cfg_new(NULL), RPMA_E_INVAL);
	MOCK_FAIL(malloc, 0, 0);
	assert_int_equal(rpma_conn_cfg_new(&cfg), RPMA_E_NOMEM);
	assert_null(cfg);
	assert_int_equal(rpma_conn_cfg_new(&cfg), 0);
	assert_non_null(cfg);
	assert_int_equal(rpma_conn_cfg_delete(NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_cfg_delete(&cfg), 0);
	assert_null(cfg);
	assert_int_equal(rpma_conn_cfg_delete(&cfg), 0);
}

static void
test_conn_cfg_defaults(void **state)
{
	(void) state;
	struct rpma_conn_cfg *cfg = NULL;
	const struct rpma_conn_cfg *def = conn_cfg_default();
	int timeout = 0;
	bool shared = true;
	struct rpma_srq *srq = (struct rpma_srq *)0x1;

	assert_int_equal(rpma_conn_cfg_new(&cfg), 0);
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		uint32_t v = 12345;
		assert_int_equal(sizes[i].get(cfg, &v), 0);
		assert_int_equal(v, sizes[i].def);
		assert_int_equal(sizes[i].get(def, &v), 0);
		assert_int_equal(v, sizes[i].def);
	}
	assert_int_equal(rpma_conn_cfg_get_timeout(cfg, &timeout), 0);
	assert_int_equal(timeout, RPMA_DEFAULT_TIMEOUT_MS);
	assert_int_equal(conn_cfg_timeout(def), RPMA_DEFAULT_TIMEOUT_MS);
	assert_int_equal(rpma_conn_cfg_get_compl_channel(cfg, &shared), 0);
	assert_false(shared);
	assert_int_equal(rpma_conn_cfg_get_srq(cfg, &srq), 0);
	assert_null(srq);
	assert_int_equal(rpma_conn_cfg_delete(&cfg), 0);
}

static void
test_conn_cfg_set_get__all(void **state)
{
	(void) state;
	struct rpma_conn_cfg *cfg = NULL;
	int timeout = 0;
	bool shared = false;
	struct rpma_srq *srq = NULL;

	assert_int_equal(rpma_conn_cfg_new(&cfg), 0);
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		uint32_t v = 7;
		assert_int_equal(sizes[i].set(NULL, 5), RPMA_E_INVAL);
		assert_int_equal(sizes[i].get(NULL, &v), RPMA_E_INVAL);
		assert_int_equal(sizes[i].get(cfg, NULL), RPMA_E_INVAL);
		assert_int_equal(v, 7);
		assert_int_equal(sizes[i].set(cfg, 100 + (uint32_t)i), 0);
		assert_int_equal(sizes[i].get(cfg, &v), 0);
		assert_int_equal(v, 100 + i);
	}
	assert_int_equal(conn_cfg_cq_size(cfg), 100);
	assert_int_equal(conn_cfg_rcq_size(cfg), 101);
	assert_int_equal(conn_cfg_sq_size(cfg), 102);
	assert_int_equal(conn_cfg_rq_size(cfg), 103);

	assert_int_equal(rpma_conn_cfg_set_timeout(NULL, 5), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_cfg_set_timeout(cfg, -1), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_cfg_get_timeout(NULL, &timeout), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_cfg_get_timeout(cfg, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_cfg_set_timeout(cfg, 0), 0);
	assert_int_equal(rpma_conn_cfg_get_timeout(cfg, &timeout), 0);
	assert_int_equal(timeout, 0);

	assert_int_equal(rpma_conn_cfg_set_compl_channel(NULL, true), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_cfg_get_compl_channel(NULL, &shared), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_cfg_get_compl_channel(cfg, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_cfg_set_compl_channel(cfg, true), 0);
	assert_int_equal(rpma_conn_cfg_get_compl_channel(cfg, &shared), 0);
	assert_true(shared);
	assert_true(conn_cfg_shared_channel(cfg));

	assert_int_equal(rpma_conn_cfg_set_srq(NULL, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_cfg_get_srq(NULL, &srq), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_cfg_get_srq(cfg, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_cfg_set_srq(cfg, (struct rpma_srq *)0x8), 0);
	assert_int_equal(rpma_conn_cfg_get_srq(cfg, &srq), 0);
	assert_ptr_equal(srq, (struct rpma_srq *)0x8);
	assert_ptr_equal(conn_cfg_srq(cfg), (struct rpma_srq *)0x8);
	assert_int_equal(rpma_conn_cfg_delete(&cfg), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		TEST(test_conn_cfg_new__all),
		TEST(test_conn_cfg_defaults),
		TEST(test_conn_cfg_set_get__all),
	};
	return RUN(tests);
}
