// SPDX-License-Identifier: BSD-3-Clause
/*
 * fault.c -- the injection point counter (DEBUG_FAULT_INJECTION builds only).
 *
 * RPMA_FAULT_INJECTION=N: the N-th point fails (0: none, just count).
 * At exit the number of points reached is printed on stderr, so a sweep
 * knows how far to go.
 */

#ifdef DEBUG_FAULT_INJECTION

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "fault.h"
#include "log.h"

static long target = -1;	/* -1: not read from the environment yet */
static _Atomic long reached;

static void
report(void)
{
	fprintf(stderr, "librpma: fault injection points reached: %ld\n", atomic_load(&reached));
}

__attribute__((constructor)) static void
fault_init(void)
{
	const char *value = getenv("RPMA_FAULT_INJECTION");

	target = value ? atol(value) : 0;
	if (value)
		atexit(report);
}

bool
fault_injected(void)
{
	long n = atomic_fetch_add(&reached, 1) + 1;
	if (n != target)
		return false;

	RPMA_LOG_ERROR("fault injection: point %ld fails", n);
	return true;
}

#else

/* ISO C wants a translation unit to declare something */
typedef int fault_injection_disabled;

#endif
