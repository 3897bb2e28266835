// SPDX-License-Identifier: BSD-3-Clause
/*
 * caps.c -- rpma-integ caps client: what the device at RPMA_TEST_IP can
 * do, read as the tests read it (common.c), one "caps NAME yes|no" line
 * each. The test runner asks once per boot and decides by it what runs,
 * what is skipped and what is expected to fail there.
 */

#include <stdio.h>

#include "common.h"
#include "fsdax.h"
#include "tests.h"

/* device_cap_flags_ex bits of the kernel ABI (src/peer.c reads the same) */
#define CAP_FLUSH_GLOBAL	(1ULL << 38)
#define CAP_FLUSH_PERSISTENT	(1ULL << 39)
#define CAP_ATOMIC_WRITE	(1ULL << 40)

static void
cap(const char *name, bool value)
{
	printf("caps %s %s\n", name, value ? "yes" : "no");
}

void
caps_client(void)
{
	struct ibv_device_attr_ex attr;

	test_device_attr(&attr);
	uint64_t ex = attr.device_cap_flags_ex;
	cap("iwarp", test_iwarp());
	cap("rxe", test_rxe());
	cap("windows", test_windows());
	cap("odp", fsdax_device_odp());
	cap("atomics", attr.orig_attr.atomic_cap != IBV_ATOMIC_NONE);
	cap("flush", (ex & (CAP_FLUSH_GLOBAL | CAP_FLUSH_PERSISTENT)) ==
			(CAP_FLUSH_GLOBAL | CAP_FLUSH_PERSISTENT));
	cap("atomic_write", (ex & CAP_ATOMIC_WRITE) != 0);
	fflush(stdout);
}
