// SPDX-License-Identifier: BSD-3-Clause
/*
 * grant_main.c -- rpma-integ-grant TEST server: the server of a grant test
 * of tests.def. A program of its own, as it needs LIBRPMA_1.5: rpma-integ
 * runs the clients, on librpma 1.x too.
 */

#include "common.h"
#include "tests.h"

#define PAIR(name, options)
#define PAIR_1X_LABEL(name, label, options)
#define IWARP(name, what)
#define CLIENT_1X(name)
#define PAIR_1X(name, options)
#define CLIENT(name, options)
#define HOSTS(name)
#define DRIVEN(name)
#define GRANT(name, label, options) {#name, name##_server, NULL},
#define GRANT_1X(name, options) GRANT(name, integration, options)
#define FSDAX(name) {#name, name##_server, NULL},
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
