// SPDX-License-Identifier: BSD-3-Clause
/*
 * main.c -- rpma-integ TEST server|client [INDEX]: one side of one
 * integration test. run-pair starts both sides; RPMA_TEST_IP,
 * RPMA_TEST_PORT and (for the server) RPMA_TEST_READY come from it.
 */

#include <string.h>

#include "common.h"
#include "tests.h"

struct test {
	const char *name;
	void (*server)(void);	/* NULL: the client runs alone */
	void (*client)(void);
};

#define PAIR(name, options) {#name, name##_server, name##_client},
#define PAIR_1X(name, options) PAIR(name, options)
#define CLIENT(name, options) {#name, NULL, name##_client},
#define HOSTS(name) {#name, name##_server, name##_client},
static const struct test tests[] = {
#include "tests.def"
};
#undef PAIR
#undef PAIR_1X
#undef CLIENT
#undef HOSTS

static int
usage(const char *prog)
{
	fprintf(stderr, "usage: %s TEST server|client [CLIENT_INDEX]\ntests:", prog);
	for (size_t i = 0; i < sizeof(tests) / sizeof(tests[0]); i++)
		fprintf(stderr, " %s", tests[i].name);
	fprintf(stderr, "\n");
	return 2;
}

int
main(int argc, char *argv[])
{
	if (argc < 3 || argc > 4)
		return usage(argv[0]);

	const struct test *t = NULL;
	for (size_t i = 0; i < sizeof(tests) / sizeof(tests[0]); i++)
		if (strcmp(tests[i].name, argv[1]) == 0)
			t = &tests[i];
	if (t == NULL)
		return usage(argv[0]);

	bool server = strcmp(argv[2], "server") == 0;
	if (!server && strcmp(argv[2], "client") != 0)
		return usage(argv[0]);
	if (server && t->server == NULL) {
		fprintf(stderr, "%s has no server\n", t->name);
		return 2;
	}
	integ_role = argv[2];
	integ_client_index = argc == 4 ? atoi(argv[3]) : 0;

	/* the library's errors on stderr, next to the test's own messages */
	CHECK_RET(rpma_log_set_threshold(RPMA_LOG_THRESHOLD_AUX, RPMA_LOG_LEVEL_ERROR));

	(server ? t->server : t->client)();
	note("%s: PASS", t->name);
	return 0;
}
