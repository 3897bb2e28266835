// SPDX-License-Identifier: BSD-3-Clause
/*
 * main.c -- rpma-scale TEST server|client: one side of one scale test.
 * tests/integration/run-pair starts both sides on one host. On two hosts,
 * start "rpma-scale TEST server" where RPMA_TEST_IP is the server's
 * address, then "rpma-scale TEST client" on the other host with
 * RPMA_TEST_SERVER_IP set to that address; RPMA_TEST_PORT and the sizes
 * (RPMA_SCALE_*) the same on both.
 */

#include "scale.h"
#include "tests.h"

#define SCALE_TEST(name) {#name, name##_server, name##_client},
static const struct integ_test tests[] = {
#include "tests.def"
};
#undef SCALE_TEST

int
main(int argc, char *argv[])
{
	return integ_main(tests, sizeof(tests) / sizeof(tests[0]),
			"environment: RPMA_TEST_IP (where the server listens), RPMA_TEST_PORT,\n"
			"RPMA_TEST_SERVER_IP (the client's target, default RPMA_TEST_IP),\n"
			"RPMA_SCALE_CONNS (conns, default 128), RPMA_SCALE_SRQ_CONNS (srq, 32),\n"
			"RPMA_SCALE_SOAK_CONNS (soak, 16), RPMA_SCALE_SECONDS (soak, 45)\n",
			argc, argv);
}
