// SPDX-License-Identifier: BSD-3-Clause
/*
 * mw_set.c -- the windows of one connection's grants. rpma_conn_delete()
 * closes the set: every window is revoked before the QP goes, while each
 * grant keeps its handle, to be deleted later. Grants are made and deleted
 * from several threads, and a grant may be deleted while another thread
 * deletes its connection: every change is made under the set's lock, and
 * the set stays until the last window is dropped from it, so neither call
 * finds it gone.
 */

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "fault.h"
#include "log.h"
#include "mw.h"
#include "mw_set.h"

struct mw_slot {
	struct mw *mw;
	bool abandoned;		/* no grant owns it: freed when the set is closed */
};

struct mw_set {
	pthread_mutex_t lock;
	struct mw_slot *slot;
	size_t count, cap;
	bool closed;		/* its connection is gone */
};

int
mw_set_new(struct mw_set **set_ptr)
{
	struct mw_set *set = FI_PTR(calloc(1, sizeof(*set)), ENOMEM);
	if (set == NULL)
		return RPMA_E_NOMEM;

	int err = pthread_mutex_init(&set->lock, NULL);
	if (err) {
		RPMA_LOG_PROVIDER(err, "pthread_mutex_init()");
		free(set);
		return RPMA_E_UNKNOWN;
	}
	*set_ptr = set;
	return 0;
}

static void
set_free(struct mw_set *set)
{
	(void) pthread_mutex_destroy(&set->lock);
	free(set->slot);
	free(set);
}

int
mw_set_add(struct mw_set *set, struct mw *mw)
{
	int ret = 0;

	(void) pthread_mutex_lock(&set->lock);
	if (set->count == set->cap) {
		size_t cap = set->cap ? 2 * set->cap : 8;
		struct mw_slot *slot = FI_PTR(malloc(cap * sizeof(*slot)), ENOMEM);
		if (slot == NULL) {
			ret = RPMA_E_NOMEM;
			goto out;
		}
		if (set->count)
			memcpy(slot, set->slot, set->count * sizeof(*slot));
		free(set->slot);
		set->slot = slot;
		set->cap = cap;
	}
	set->slot[set->count++] = (struct mw_slot){.mw = mw};
out:
	(void) pthread_mutex_unlock(&set->lock);
	return ret;
}

/* the slot of mw (the lock held) */
static size_t
set_find(const struct mw_set *set, const struct mw *mw)
{
	size_t i = 0;
	while (set->slot[i].mw != mw)
		i++;
	return i;
}

int
mw_set_drop(struct mw_set *set, struct mw **mw_ptr)
{
	(void) pthread_mutex_lock(&set->lock);
	int ret = mw_revoke(*mw_ptr);
	if (ret) {
		(void) pthread_mutex_unlock(&set->lock);
		return ret;
	}
	set->slot[set_find(set, *mw_ptr)] = set->slot[--set->count];
	bool last = set->closed && set->count == 0;
	(void) pthread_mutex_unlock(&set->lock);

	mw_free(*mw_ptr);
	*mw_ptr = NULL;
	if (last)
		set_free(set);
	return 0;
}

void
mw_set_abandon(struct mw_set *set, struct mw *mw)
{
	(void) pthread_mutex_lock(&set->lock);
	set->slot[set_find(set, mw)].abandoned = true;
	(void) pthread_mutex_unlock(&set->lock);
}

int
mw_set_close(struct mw_set **set_ptr)
{
	struct mw_set *set = *set_ptr;
	if (set == NULL)
		return 0;

	int ret = 0;
	(void) pthread_mutex_lock(&set->lock);
	for (size_t i = 0; i < set->count;) {
		int err = mw_revoke(set->slot[i].mw);
		if (err && ret == 0)
			ret = err;
		if (set->slot[i].abandoned) {
			mw_free(set->slot[i].mw);
			set->slot[i] = set->slot[--set->count];
			continue;
		}
		i++;
	}
	set->closed = true;
	bool last = set->count == 0;
	(void) pthread_mutex_unlock(&set->lock);

	if (last)
		set_free(set);
	*set_ptr = NULL;
	return ret;
}
