/* SPDX-License-Identifier: BSD-3-Clause */
/* probe.h -- how rpma-probe prints a case (see probe.c) */

#ifndef RPMA_PROBE_H
#define RPMA_PROBE_H

#include <stdio.h>

/* one case: its name and the call's return code */
#define CASE(name, call) printf("%-44s ret=%d\n", (name), (int)(call))

/*
 * An output handle is preset with this address, which no library returns:
 * after a call, "same" means untouched, "NULL" cleared, "changed" set.
 */
extern char probe_sentinel;
#define SENTINEL ((void *)&probe_sentinel)

/* how a handle changed: "NULL", "same" or "changed" */
static inline const char *
probe_how(const void *before, const void *after)
{
	if (after == NULL)
		return "NULL";
	return before == after ? "same" : "changed";
}

/* a case on a handle: the return code and what the handle holds afterwards */
#define HCASE(name, call, handle) do { \
	const void *before_ = (const void *)(handle); \
	int ret_ = (call); \
	printf("%-44s ret=%d ptr=%s\n", (name), ret_, \
			probe_how(before_, (const void *)(handle))); \
} while (0)

/* a case on an output handle preset to SENTINEL, left NULL when untouched */
#define OCASE(name, call, handle) do { \
	(handle) = SENTINEL; \
	HCASE(name, call, handle); \
	if ((void *)(handle) == SENTINEL) \
		(handle) = NULL; \
} while (0)

void probe_device(const char *addr);

#endif /* RPMA_PROBE_H */
