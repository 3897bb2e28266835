// SPDX-License-Identifier: BSD-3-Clause
/* rpmalog.c -- unit tests of log/src/rpmalog.c: what a writer is told before any replica */

#include "log_unit.h"
#include "librpmalog.h"

/* no replica is reached: the address is refused before (or by) the device lookup */
static const char *const NOWHERE[] = { "192.0.2.99:1", "192.0.2.99:2", "192.0.2.99:3" };

static void
test_rpmalog_open__invalid(void **state)
{
	(void) state;
	struct rpmalog *log = (struct rpmalog *)0x1;

	assert_int_equal(rpmalog_open(NULL, 3, RPMALOG_POLICY_ALL, 1, 0, &log), RPMALOG_E_INVAL);
	assert_int_equal(rpmalog_open(NOWHERE, 0, RPMALOG_POLICY_ALL, 1, 0, &log),
			RPMALOG_E_INVAL);
	assert_int_equal(rpmalog_open(NOWHERE, 3, RPMALOG_POLICY_ALL, 0, 0, &log),
			RPMALOG_E_INVAL);
	assert_int_equal(rpmalog_open(NOWHERE, 3, (enum rpmalog_policy)7, 1, 0, &log),
			RPMALOG_E_INVAL);
	assert_int_equal(rpmalog_open(NOWHERE, 3, RPMALOG_POLICY_ALL, 1, 1 << 5, &log),
			RPMALOG_E_INVAL);
	assert_int_equal(rpmalog_open(NOWHERE, 3, RPMALOG_POLICY_ALL, 1, 0, NULL),
			RPMALOG_E_INVAL);
	assert_ptr_equal(log, (struct rpmalog *)0x1); /* untouched */
}

/* replicas none of which answers: too few for either policy, and nothing left open */
static void
test_rpmalog_open__nobody(void **state)
{
	(void) state;
	struct rpmalog *log = NULL;
	const char *const bad[] = { "no-port-here" };

	assert_int_equal(rpmalog_open(NOWHERE, 3, RPMALOG_POLICY_MAJORITY, 1, 0, &log),
			RPMALOG_E_QUORUM);
	assert_null(log);
	assert_int_equal(rpmalog_open(bad, 1, RPMALOG_POLICY_ALL, 1, 0, &log), RPMALOG_E_QUORUM);
	assert_null(log);
}

/* the calls on a log that is not there */
static void
test_rpmalog__null_log(void **state)
{
	(void) state;
	struct rpmalog *log = NULL;
	uint64_t a, b;
	unsigned x, y;

	assert_int_equal(rpmalog_append(NULL, "x", 1, &a), RPMALOG_E_INVAL);
	assert_int_equal(rpmalog_appendv(NULL, NULL, 0, &a), RPMALOG_E_INVAL);
	assert_int_equal(rpmalog_tell(NULL, &a, &b), RPMALOG_E_INVAL);
	assert_int_equal(rpmalog_replicas(NULL, &x, &y), RPMALOG_E_INVAL);
	assert_int_equal(rpmalog_rejoin(NULL, &x), RPMALOG_E_INVAL);
	assert_int_equal(rpmalog_walk(NULL, 0, NULL, NULL), RPMALOG_E_INVAL);
	assert_int_equal(rpmalog_set_timeout(NULL, 10), RPMALOG_E_INVAL);
	assert_int_equal(rpmalog_close(NULL), RPMALOG_E_INVAL);
	assert_int_equal(rpmalog_close(&log), RPMALOG_E_INVAL);
}

/* every code has its words; what is no code says so */
static void
test_rpmalog_err_2str__all(void **state)
{
	(void) state;

	assert_string_equal(rpmalog_err_2str(0), "success");
	for (int ret = RPMALOG_E_NO_PERSIST; ret < 0; ret++) {
		assert_non_null(rpmalog_err_2str(ret));
		assert_string_not_equal(rpmalog_err_2str(ret), "an unknown error");
	}
	assert_string_equal(rpmalog_err_2str(RPMALOG_E_NO_PERSIST - 1), "an unknown error");
	assert_string_equal(rpmalog_err_2str(1), "an unknown error");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		TEST(test_rpmalog_open__invalid),
		TEST(test_rpmalog_open__nobody),
		TEST(test_rpmalog__null_log),
		TEST(test_rpmalog_err_2str__all),
	};
	return RUN(tests);
}
