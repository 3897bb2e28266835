/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * log_print.h -- a log function of our own for librpma, shared by the
 * server and the client of 15-custom-log-function.
 */

#ifndef LOG_PRINT_H
#define LOG_PRINT_H 1

#include <librpma.h>

/*
 * Send librpma's log to log_print() and let the messages up to level
 * through (RPMA_LOG_THRESHOLD). Returns 0 or an RPMA_E_* code (reported).
 */
int log_print_install(enum rpma_log_level level);

/* Let the messages up to level through from now on. */
int log_print_threshold(enum rpma_log_level level);

/* Back to librpma's default function; prints how many messages came. */
int log_print_uninstall(void);

/* how many messages log_print() has got so far */
int log_print_count(void);

#endif /* LOG_PRINT_H */
