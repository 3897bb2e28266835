/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpma.h -- what every source file of the library includes: the public API
 * with default visibility (everything else is hidden by -fvisibility=hidden)
 * and the branch hints of the data path.
 */

#ifndef RPMA_INTERNAL_H
#define RPMA_INTERNAL_H

#pragma GCC visibility push(default)
#include "librpma.h"
#pragma GCC visibility pop

#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)

#endif /* RPMA_INTERNAL_H */
