// SPDX-License-Identifier: BSD-3-Clause
/*
 * main.c -- rpma-integ TEST server|client [INDEX]: one side of one
 * integration test. The runner starts both sides (tests/harness/pair.py);
 * RPMA_TEST_IP and RPMA_TEST_PORT come from it.
 */

#include "common.h"
#include "tests.h"

#define PAIR(name) {#name, name##_server, name##_client},
#define CLIENT(name) {#name, NULL, name##_client},
/* their servers are rpma-integ-grant's (grant_main.c) */
#define GRANT(name) CLIENT(name)
static const struct integ_test tests[] = {
#include "tests.def"
};
#undef PAIR
#undef CLIENT
#undef GRANT

int
main(int argc, char *argv[])
{
	return integ_main(tests, sizeof(tests) / sizeof(tests[0]), NULL, argc, argv);
}
