/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpma.h -- what every source file of the library includes: the public API
 * with default visibility (everything else is hidden by -fvisibility=hidden)
 * and the branch and call hints of the data path.
 */

#ifndef RPMA_INTERNAL_H
#define RPMA_INTERNAL_H

#pragma GCC visibility push(default)
#include "librpma.h"
#pragma GCC visibility pop

#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)

/*
 * A function the data path jumps to with its caller's arguments, kept as
 * written: gcc would otherwise make a copy that drops an unused parameter
 * or a constant argument and so takes the others in other registers.
 */
#if defined(__GNUC__) && !defined(__clang__)
#define KEEP_SIGNATURE	__attribute__((noipa))
#else
#define KEEP_SIGNATURE	__attribute__((noinline))
#endif

#endif /* RPMA_INTERNAL_H */
