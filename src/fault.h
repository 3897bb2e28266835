/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fault.h -- fault injection at the provider and allocation calls.
 *
 * Built with DEBUG_FAULT_INJECTION, every call wrapped below is one
 * injection point, counted in one place; RPMA_FAULT_INJECTION=N makes the
 * N-th point the process reaches fail as the real call fails, without
 * making it. Calls that release resources are not points: a failed release
 * cannot be recovered by any caller. Without the option the wrappers are
 * the bare calls.
 */

#ifndef RPMA_FAULT_H
#define RPMA_FAULT_H

#include <errno.h>
#include <stdbool.h>

#ifdef DEBUG_FAULT_INJECTION

/* count one point; true when it is the one to fail */
bool fault_injected(void);

#define FAULT_HIT() __builtin_expect(fault_injected(), 0)

#else

#define FAULT_HIT() 0

#endif

/* a call that fails by returning NULL with errno set */
#define FI_PTR(call, err)	(FAULT_HIT() ? (errno = (err), (void *)0) : (call))

/* a call that fails by returning -1 with errno set */
#define FI_NEG(call, err)	(FAULT_HIT() ? (errno = (err), -1) : (call))

/* a call that fails by returning the errno value */
#define FI_ERR(call, err)	(FAULT_HIT() ? (err) : (call))

#endif /* RPMA_FAULT_H */
