// SPDX-License-Identifier: BSD-3-Clause
/*
 * range_ok.c -- mr_range_ok() (mr.h), the check behind every range a post
 * or an advice takes, is exact.
 *
 * Proven for every offset, length and size (64 bits each): it holds
 * exactly when offset + length <= size, the sum taken without wrap-around
 * (in 65 bits), and its own arithmetic has no undefined behaviour. Every
 * other harness relies on its callers; this one on nothing.
 */

#include "fixtures.h"

int
main(void)
{
	size_t off = nondet_size(), len = nondet_size(), size = nondet_size();

	__CPROVER_assert(mr_range_ok(off, len, size) == sum_within(off, len, size),
			"mr_range_ok(off, len, size) holds exactly when off + len <= size");
	return 0;
}
