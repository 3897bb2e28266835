/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mw_set.h -- what the set of a connection's windows offers grants and
 * connections: the windows are revoked together when the connection ends,
 * each stays its grant's to free, and the set goes with the last of them.
 */

#ifndef RPMA_MW_SET_H
#define RPMA_MW_SET_H

#include "rpma.h"

struct mw;
struct mw_set;

/* Create an empty, open set. */
int mw_set_new(struct mw_set **set_ptr);

/* Add mw to the set, which revokes it when it is closed. */
int mw_set_add(struct mw_set *set, struct mw *mw);

/*
 * Revoke mw unless the set did, take it out of the set and free it; the set
 * goes too when it was closed and mw was its last window. On failure
 * nothing changes.
 */
int mw_set_drop(struct mw_set *set, struct mw **mw_ptr);

/* mw has no owner any more: the set frees it when it is closed */
void mw_set_abandon(struct mw_set *set, struct mw *mw);

/*
 * The connection's end: revoke every window in the set, free those without
 * an owner; the set goes now when it holds no window, else with the last
 * mw_set_drop(). NULL-safe. Returns the first failure.
 */
int mw_set_close(struct mw_set **set_ptr);

#endif /* RPMA_MW_SET_H */
