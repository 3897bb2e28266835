// SPDX-License-Identifier: BSD-3-Clause
/*
 * mr_advise.c -- rpma_mr_advise() (mr.c) advises only a range inside the
 * region.
 *
 * Proven for every offset, length, advice and flags and every local region
 * (any size the allocator can give, any usage):
 * - ibv_advise_mr() is called only when [offset, +len) lies in the region,
 *   as an exact sum (no wrap-around), with one scatter entry of exactly
 *   region->addr + offset, len in 32 bits (never truncated) and the
 *   region's lkey, for a prefetch advice and no flag but
 *   IBV_ADVISE_MR_FLAG_FLUSH (a prefetch for writing only where the
 *   region is written locally);
 * - every prefetch of a range inside the region with a length below 2^32
 *   is advised; a refused one is RPMA_E_INVAL having called nothing;
 * - no undefined behaviour, no read or write outside an object, no
 *   arithmetic that wraps.
 */

#include "fixtures.h"

int
main(void)
{
	struct rpma_peer *peer = fixture_peer();
	struct rpma_mr_local *mr = nondet_bool() ? fixture_local(peer) : NULL;
	size_t off = nondet_size(), len = nondet_size();
	int advice = nondet_int();
	uint32_t flags = nondet_u32();

	stub_record_clear();
	int ret = rpma_mr_advise(mr, off, len, advice, flags);
	bool advised = stub_rec.advise_calls > 0;
	const struct ibv_sge *sge = &stub_rec.advise_sge;

	__CPROVER_assert(stub_rec.advise_calls <= 1, "one advice at most");
	__CPROVER_assert(advised || ret == RPMA_E_INVAL, "a range not advised is RPMA_E_INVAL");
	if (advised) {
		WITNESS("a range is advised");
		__CPROVER_assert(mr != NULL && sum_within(off, len, mr->size),
				"advised only inside the region");
		__CPROVER_assert(stub_rec.advise_num_sge == 1 && len <= UINT32_MAX &&
				sge->length == len,
				"one scatter entry of the whole length, never truncated");
		__CPROVER_assert(sum_within((uint64_t)(uintptr_t)mr->addr, off, UINT64_MAX) &&
				sge->addr == (uint64_t)(uintptr_t)mr->addr + off &&
				sge->lkey == mr->lkey,
				"the scatter entry is the region's address plus the offset, "
				"with its lkey");
		__CPROVER_assert((advice == IBV_ADVISE_MR_ADVICE_PREFETCH ||
				advice == IBV_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT ||
				(advice == IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE &&
				(mr->usage & (RPMA_MR_USAGE_READ_DST | RPMA_MR_USAGE_WRITE_DST |
				RPMA_MR_USAGE_RECV)))) &&
				(flags & ~(uint32_t)IBV_ADVISE_MR_FLAG_FLUSH) == 0,
				"only a prefetch advice and the flush flag are passed on");
	}

	if (mr && len <= UINT32_MAX && sum_within(off, len, mr->size) &&
			(advice == IBV_ADVISE_MR_ADVICE_PREFETCH ||
			advice == IBV_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT) &&
			(flags & ~(uint32_t)IBV_ADVISE_MR_FLAG_FLUSH) == 0)
		__CPROVER_assert(advised, "a prefetch inside the region is advised");
	return 0;
}
