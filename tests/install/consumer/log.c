// SPDX-License-Identifier: BSD-3-Clause
/* a user's program: builds against the installed librpmalog and calls into it */

#include <librpmalog.h>
#include <stdio.h>
#include <string.h>

int
main(void)
{
	const char *const replicas[] = { "192.0.2.1:7000" };
	struct rpmalog *log = NULL;

	/* an epoch of 0 is refused before any replica is reached */
	if (rpmalog_open(replicas, 1, RPMALOG_POLICY_ALL, 0, 0, &log) != RPMALOG_E_INVAL ||
			log != NULL)
		return 1;
	if (strcmp(rpmalog_err_2str(RPMALOG_E_FENCED), "a writer of a newer epoch has the log"))
		return 1;
	printf("librpmalog consumer OK\n");
	return 0;
}
