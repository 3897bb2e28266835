/* SPDX-License-Identifier: BSD-3-Clause */
/* tests.h -- the server and client functions of every integration test */

#ifndef INTEG_TESTS_H
#define INTEG_TESTS_H 1

#define TEST_PAIR(name) void name##_server(void); void name##_client(void);

TEST_PAIR(connect_pdata)
TEST_PAIR(write_flush)
TEST_PAIR(flush_types)
TEST_PAIR(read)
TEST_PAIR(bulk)
TEST_PAIR(atomic_write)
TEST_PAIR(inval_offsets)
TEST_PAIR(flush_nosupp)
TEST_PAIR(ping_pong)
TEST_PAIR(imm)
TEST_PAIR(rcq)
TEST_PAIR(srq)
TEST_PAIR(shared_channel)
TEST_PAIR(cq_wait)
TEST_PAIR(multi_clients)
TEST_PAIR(reject)
TEST_PAIR(closed)
TEST_PAIR(client_killed)
TEST_PAIR(server_killed)

/* only a client: nobody listens */
void no_listener_client(void);
void unreachable_client(void);
void silent_peer_client(void);

#endif /* INTEG_TESTS_H */
