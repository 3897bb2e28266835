/* SPDX-License-Identifier: BSD-3-Clause */
/* tests.h -- the server and client functions of every test of tests.def */

#ifndef INTEG_TESTS_H
#define INTEG_TESTS_H 1

#define PAIR(name, options) void name##_server(void); void name##_client(void);
#define PAIR_1X_LABEL(name, label, options) PAIR(name, options)
#define IWARP(name, what)
#define CLIENT_1X(name) void name##_client(void);
#define PAIR_1X(name, options) PAIR(name, options)
#define CLIENT(name, options) void name##_client(void);
#define HOSTS(name) void name##_server(void); void name##_client(void);
#define DRIVEN(name) HOSTS(name)
#define GRANT(name, label, options) HOSTS(name)
#define GRANT_1X(name, options) HOSTS(name)
#define FSDAX(name) HOSTS(name)
#include "tests.def"
#undef PAIR
#undef PAIR_1X
#undef CLIENT_1X
#undef IWARP
#undef PAIR_1X_LABEL
#undef CLIENT
#undef HOSTS
#undef DRIVEN
#undef GRANT
#undef GRANT_1X
#undef FSDAX

#endif /* INTEG_TESTS_H */
