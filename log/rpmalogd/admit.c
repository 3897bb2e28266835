// SPDX-License-Identifier: BSD-3-Clause
/* admit.c -- a writer admitted by its epoch, and the writers it fences */

#include "admit.h"

enum admit_verdict
admit_judge(const struct admit *a, const struct proto_hello *hello, uint32_t *reason)
{
	if (hello->epoch < a->epoch) {
		*reason = PROTO_STALE_EPOCH;
		return ADMIT_REFUSE;
	}
	if (hello->epoch > a->epoch)
		return ADMIT_NEW_EPOCH;
	/* one epoch, one writer: a second one is the coordinator's mistake */
	for (size_t i = 0; i < a->n; i++) {
		if (a->live[i].epoch == hello->epoch && a->live[i].writer != hello->writer) {
			*reason = PROTO_EPOCH_TAKEN;
			return ADMIT_REFUSE;
		}
	}
	return ADMIT_SAME_EPOCH;
}

size_t
admit_fenced(const struct admit *a, const struct proto_hello *hello, void **fenced)
{
	size_t n = 0;

	for (size_t i = 0; i < a->n; i++)
		if (a->live[i].epoch < hello->epoch || a->live[i].writer == hello->writer)
			fenced[n++] = a->live[i].conn;
	return n;
}

int
admit_add(struct admit *a, const struct proto_hello *hello, void *conn)
{
	if (a->n == ADMIT_MAX)
		return -1;
	a->live[a->n++] = (struct admit_writer){
		.epoch = hello->epoch, .writer = hello->writer, .conn = conn,
	};
	if (hello->epoch > a->epoch)
		a->epoch = hello->epoch;
	return 0;
}

void
admit_remove(struct admit *a, const void *conn)
{
	for (size_t i = 0; i < a->n; i++) {
		if (a->live[i].conn == conn) {
			a->live[i] = a->live[--a->n];
			return;
		}
	}
}
