/* SPDX-License-Identifier: BSD-3-Clause */
/* tests.h -- the two sides of every scale test (tests.def lists them) */

#ifndef SCALE_TESTS_H
#define SCALE_TESTS_H 1

#define SCALE_TEST(name) void name##_server(void); void name##_client(void);
#include "tests.def"
#undef SCALE_TEST

#endif /* SCALE_TESTS_H */
