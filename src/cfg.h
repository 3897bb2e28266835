/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cfg.h -- how the configuration objects (conn_cfg.c, srq_cfg.c,
 * peer_cfg.c) store and load their fields.
 *
 * Threads may share one configuration, setting and reading it at once (as
 * librpma 1.x allows): every field is stored and loaded atomically. A store
 * is sequentially consistent (a locked instruction on x86), because helgrind
 * and drd see a plain or relaxed store as a race; loads are relaxed: a
 * configuration publishes no other memory.
 */

#ifndef RPMA_CFG_H
#define RPMA_CFG_H

#define CFG_STORE(field, value)	__atomic_store_n(&(field), (value), __ATOMIC_SEQ_CST)
#define CFG_LOAD(field)		__atomic_load_n(&(field), __ATOMIC_RELAXED)

#endif /* RPMA_CFG_H */
