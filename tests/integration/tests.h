/* SPDX-License-Identifier: BSD-3-Clause */
/* tests.h -- the server and client functions of every test of tests.def */

#ifndef INTEG_TESTS_H
#define INTEG_TESTS_H 1

#define PAIR(name) void name##_server(void); void name##_client(void);
#define CLIENT(name) void name##_client(void);
#define GRANT(name) PAIR(name)
#include "tests.def"
#undef PAIR
#undef CLIENT
#undef GRANT

#endif /* INTEG_TESTS_H */
