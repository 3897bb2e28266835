// SPDX-License-Identifier: BSD-3-Clause
/* scan.c -- a log's entries walked from the first until one does not check */

#include "scan.h"

int
scan(const void *mem, uint64_t len, const struct log_header *h, scan_fn fn, void *arg,
		struct scan_end *end)
{
	const uint8_t *base = mem;
	uint64_t limit = len < h->size ? len : h->size;
	struct log_entry e;
	int ret;

	*end = (struct scan_end){ .next = h->first, .end = LAYOUT_ENTRIES,
		.committed = h->first };
	while (end->end < limit) {
		/*
		 * Epochs and committed points never go back along the log, and
		 * no writer is newer than the header's: stale bytes fail here.
		 */
		if (entry_check(base + end->end, limit - end->end, end->next, end->last_epoch,
				h->epoch, end->committed, &e))
			break;
		if (fn && (ret = fn(&e, base + end->end + LAYOUT_ENTRY_HDR, arg)))
			return ret;
		end->next++;
		end->end += entry_size(e.length);
		end->last_epoch = e.epoch;
		end->committed = e.committed;
		if (end->next == h->committed && end->end != h->committed_end)
			return LAYOUT_CORRUPT;
	}
	/* the entries the header says committed must all be there, where it says */
	if (h->committed_end <= limit && end->next < h->committed)
		return LAYOUT_CORRUPT;
	if (h->committed > end->committed)
		end->committed = h->committed;
	return 0;
}
