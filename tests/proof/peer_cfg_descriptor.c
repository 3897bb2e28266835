// SPDX-License-Identifier: BSD-3-Clause
/*
 * peer_cfg_descriptor.c -- rpma_peer_cfg_from_descriptor() (peer_cfg.c)
 * reads the peer's configuration descriptor, which comes from the peer, and
 * rpma_peer_cfg_get_descriptor() writes one.
 *
 * Proven for every buffer length the allocator can give (0 up to CBMC's
 * largest object) and every content:
 * - no read outside the buffer, no undefined behaviour, no leak;
 * - an empty buffer or a NULL argument is RPMA_E_INVAL, leaving the output
 *   untouched;
 * - otherwise the configuration declares direct write to PMem exactly when
 *   the first byte is not 0 (or the allocation fails: RPMA_E_NOMEM);
 * - its descriptor, written into a buffer of the
 *   rpma_peer_cfg_get_descriptor_size() bytes and nothing beyond, is read
 *   back as the same configuration (round trip), and so is the descriptor
 *   of a configuration made with rpma_peer_cfg_new() and either setting.
 */

#include <stdlib.h>

#include "fixtures.h"

/* cfg's descriptor, read back: the same declaration (or the allocation failed) */
static void
round_trip(const struct rpma_peer_cfg *cfg, bool declared)
{
	size_t size = 0;
	struct rpma_peer_cfg *back = NULL;
	bool got = !declared;

	__CPROVER_assert(rpma_peer_cfg_get_descriptor_size(cfg, &size) == 0,
			"the descriptor's size is known");
	uint8_t *desc = malloc(size);
	__CPROVER_assume(desc != NULL);
	__CPROVER_assert(rpma_peer_cfg_get_descriptor(cfg, desc) == 0, "the descriptor is written");
	int ret = rpma_peer_cfg_from_descriptor(desc, size, &back);
	__CPROVER_assert(ret == 0 || ret == RPMA_E_NOMEM, "a written descriptor is read back");
	if (ret == 0) {
		WITNESS("a written descriptor is read back");
		__CPROVER_assert(rpma_peer_cfg_get_direct_write_to_pmem(back, &got) == 0 &&
				got == declared, "the descriptor gives back the same declaration");
		__CPROVER_assert(rpma_peer_cfg_delete(&back) == 0, "the copy is deleted");
	}
	free(desc);
}

int
main(void)
{
	size_t desc_size = nondet_size();
	uint8_t *buf = malloc(desc_size);
	struct rpma_peer_cfg *untouched = (struct rpma_peer_cfg *)&desc_size;
	struct rpma_peer_cfg *cfg = untouched;
	bool declared = false;

	__CPROVER_assume(buf != NULL);
	const uint8_t *desc = nondet_bool() ? buf : NULL;
	struct rpma_peer_cfg **cfg_ptr = nondet_bool() ? &cfg : NULL;

	int ret = rpma_peer_cfg_from_descriptor(desc, desc_size, cfg_ptr);

	if (desc == NULL || cfg_ptr == NULL || desc_size == 0)
		__CPROVER_assert(ret == RPMA_E_INVAL,
				"a NULL argument or an empty descriptor is RPMA_E_INVAL");
	else
		__CPROVER_assert(ret == 0 || ret == RPMA_E_NOMEM,
				"any other descriptor is accepted");
	if (ret != 0) {
		__CPROVER_assert(cfg == untouched, "a failure leaves the output untouched");
	} else {
		WITNESS("a peer's descriptor is accepted");
		__CPROVER_assert(rpma_peer_cfg_get_direct_write_to_pmem(cfg, &declared) == 0 &&
				declared == (desc[0] != 0),
				"direct write to PMem is declared exactly when the first byte "
				"is not 0");
		round_trip(cfg, declared);
		__CPROVER_assert(rpma_peer_cfg_delete(&cfg) == 0 && cfg == NULL,
				"the configuration is deleted");
	}
	free(buf);

	/* a configuration of this side, as it is sent */
	if (rpma_peer_cfg_new(&cfg) == 0) {
		declared = nondet_bool();
		__CPROVER_assert(rpma_peer_cfg_set_direct_write_to_pmem(cfg, declared) == 0,
				"the declaration is set");
		round_trip(cfg, declared);
		__CPROVER_assert(rpma_peer_cfg_delete(&cfg) == 0, "the configuration is deleted");
	}
	return 0;
}
