// SPDX-License-Identifier: BSD-3-Clause
/*
 * main.c -- rpma-integ TEST server|client [INDEX]: one side of one
 * integration test. run-pair starts both sides; RPMA_TEST_IP,
 * RPMA_TEST_PORT and (for the server) RPMA_TEST_READY come from it.
 */

#include "common.h"
#include "tests.h"

#define PAIR(name, options) {#name, name##_server, name##_client},
#define PAIR_1X_LABEL(name, label, options) PAIR(name, options)
#define IWARP(name, what)
#define CLIENT_1X(name) {#name, NULL, name##_client},
#define PAIR_1X(name, options) PAIR(name, options)
#define CLIENT(name, options) {#name, NULL, name##_client},
#define HOSTS(name) {#name, name##_server, name##_client},
#define DRIVEN(name) HOSTS(name)
/* their servers are rpma-integ-grant's (grant_main.c) */
#define GRANT(name, label, options) {#name, NULL, name##_client},
#define GRANT_1X(name, options) GRANT(name, integration, options)
#define FSDAX(name) {#name, NULL, name##_client},
static const struct integ_test tests[] = {
#include "tests.def"
};
#undef PAIR
#undef PAIR_1X
#undef CLIENT_1X
#undef IWARP
#undef PAIR_1X_LABEL
#undef CLIENT
#undef HOSTS
#undef DRIVEN
#undef GRANT
#undef GRANT_1X
#undef FSDAX

int
main(int argc, char *argv[])
{
	return integ_main(tests, sizeof(tests) / sizeof(tests[0]), NULL, argc, argv);
}
