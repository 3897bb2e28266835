// SPDX-License-Identifier: BSD-3-Clause
/* err.c -- unit tests of src/err.c */

#include "fixtures.h"

static void
test_err_2str__all(void **state)
{
	(void) state;
	static const int codes[] = {
		RPMA_E_UNKNOWN, RPMA_E_NOSUPP, RPMA_E_PROVIDER, RPMA_E_NOMEM, RPMA_E_INVAL,
		RPMA_E_NO_COMPLETION, RPMA_E_NO_EVENT, RPMA_E_AGAIN, RPMA_E_SHARED_CHANNEL,
		RPMA_E_NOT_SHARED_CHNL,
	};
	const size_t n = sizeof(codes) / sizeof(codes[0]);
	const char *unknown = rpma_err_2str(-1);

	assert_non_null(unknown);
	assert_string_equal(rpma_err_2str(0), "Success");
	assert_string_equal(rpma_err_2str(RPMA_E_INVAL), "Invalid argument");
	assert_string_equal(rpma_err_2str(RPMA_E_PROVIDER), "Provider error occurred");
	/* as librpma 1.x: a code it does not know reads as RPMA_E_UNKNOWN does */
	assert_string_equal(unknown, "Unknown error");
	assert_string_equal(rpma_err_2str(RPMA_E_UNKNOWN), unknown);
	/* each other code has its own string */
	for (size_t i = 0; i < n; i++) {
		const char *s = rpma_err_2str(codes[i]);
		assert_non_null(s);
		assert_true(strlen(s) > 0);
		if (codes[i] != RPMA_E_UNKNOWN)
			assert_string_not_equal(s, unknown);
		for (size_t j = 0; j < i; j++)
			assert_string_not_equal(s, rpma_err_2str(codes[j]));
	}
	assert_string_equal(rpma_err_2str(1), unknown);
	assert_string_equal(rpma_err_2str(RPMA_E_NOT_SHARED_CHNL - 1), unknown);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		TEST(test_err_2str__all),
	};
	return RUN(tests);
}
