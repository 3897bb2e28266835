/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * twohost.h -- what the tests of two hosts whose link or peer fails share
 * (wire.c, host.c): the time bound, a clock, the hosts' control.
 *
 * The bound: an RC QP that gets no ACK retransmits after the local ACK
 * timeout, 4.096 us * 2^timeout, and gives up with IBV_WC_RETRY_EXC_ERR
 * after retry_cnt retransmissions: (retry_cnt + 1) timeouts after its
 * last progress. librpma connects with retry_count 7; rdma_cm sets timeout
 * on RoCE from its packet life time (16) and the device's ACK delay (rxe:
 * 15) to 17, 0.537 s: 8 * 0.537 s = 4.29 s.
 *
 * Except on rxe: it reads retry_cnt 7 as "retry for ever" (as the IB spec
 * does only for rnr_retry 7), so there a connection to a dead peer never
 * fails by itself; measured: writes in flight across a link cut for 9 s
 * complete once it is back. The tests assert that on rxe and the bound
 * elsewhere; an application bounds its own waits and then disconnects.
 * A build with -DRPMA_CONN_RETRY_COUNT=6 (utils/test --twohost makes one)
 * drives the bound on rxe too: 7 * 0.537 s = 3.76 s.
 */

#ifndef INTEG_TWOHOST_H
#define INTEG_TWOHOST_H 1

#include <stdbool.h>

#include "common.h"

/* the local ACK timeout exponent and retry count of librpma's connections */
#define ACK_TIMEOUT_EXP 17
#ifdef RPMA_CONN_RETRY_COUNT
#define RETRY_CNT RPMA_CONN_RETRY_COUNT
#else
#define RETRY_CNT 7
#endif

/* (retry_cnt + 1) local ACK timeouts, in ms */
long retry_bound_ms(void);
/*
 * what the emulation may add to it (timers, scheduling, a VM's kill):
 * RPMA_TEST_SLACK_MS, default 3000
 */
long slack_ms(void);

/* run a shell command (tc), which must succeed */
void shell(const char *cmd);

/* a line to utils/rxe-vm on RXE_VM_CONTROL: "kill N" or "boot N" */
void host_control(const char *line);

/*
 * whether this host's device retries without limit (rxe, when RETRY_CNT
 * is 7), or RPMA_TEST_RETRY_FOREVER (0 or 1) says so
 */
bool retries_forever(void);

/*
 * After the peer is gone: no connection event comes within 1 s;
 * disconnect, take the operations in flight (each IBV_WC_WR_FLUSH_ERR,
 * until none came for 1 s) and delete. Returns how many came back.
 */
int conn_give_up(struct rpma_conn **conn, struct rpma_cq *cq);

/* rxe's counter NAME of port 1 (hw_counters), or -1 where there is none */
long rxe_counter(const char *name);

/* which host this is (RPMA_TEST_BOOT): 0 the first boot, 1 booted again... */
int host_boot(void);

#endif /* INTEG_TWOHOST_H */
