// SPDX-License-Identifier: BSD-3-Clause
/*
 * grant_main.c -- rpma-integ-grant TEST server: the server of a grant test
 * of tests.def. A program of its own, as it needs LIBRPMA_1.5: rpma-integ
 * runs the clients, on librpma 1.x too.
 */

#include "common.h"
#include "tests.h"

#define PAIR(name)
#define CLIENT(name)
#define GRANT(name) {#name, name##_server, NULL},
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
