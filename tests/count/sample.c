// SPDX-License-Identifier: BSD-3-Clause
/*
 * sample.c -- three cmocka cases that pass, for check-count to count; with
 * COUNT_SAMPLE_BREAK=fail the second fails, with =exit the program leaves
 * in the middle of it without a report.
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

static const char *
mode(void)
{
	const char *m = getenv("COUNT_SAMPLE_BREAK");
	return m ? m : "";
}

static void
test_first(void **state)
{
	(void) state;
	assert_int_equal(1 + 1, 2);
}

static void
test_second(void **state)
{
	(void) state;
	if (strcmp(mode(), "exit") == 0)
		exit(3);
	assert_string_not_equal(mode(), "fail");
}

static void
test_third(void **state)
{
	(void) state;
	assert_true(sizeof(int) >= 2);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_first),
		cmocka_unit_test(test_second),
		cmocka_unit_test(test_third),
	};
	return cmocka_run_group_tests_name("count_sample", tests, NULL, NULL);
}
