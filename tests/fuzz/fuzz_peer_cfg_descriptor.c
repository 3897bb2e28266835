// SPDX-License-Identifier: BSD-3-Clause
/*
 * fuzz_peer_cfg_descriptor.c -- rpma_peer_cfg_from_descriptor() on bytes a
 * peer sent: as in librpma 1.x, any buffer of at least one byte is a
 * descriptor, its first byte non-zero meaning "declared", and it comes back
 * as 0 or 1 through rpma_peer_cfg_get_descriptor().
 */

#include <stdbool.h>
#include <stdint.h>

#include "fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void) argc;
	(void) argv;
	fuzz_log_quiet();
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rpma_peer_cfg *pcfg = NULL;

	int ret = rpma_peer_cfg_from_descriptor(data, size, &pcfg);
	if (size < 1) {
		FUZZ_CHECK(ret == RPMA_E_INVAL);
		FUZZ_CHECK(pcfg == NULL);
		return 0;
	}
	FUZZ_CHECK(ret == 0);
	FUZZ_CHECK(pcfg != NULL);

	bool direct = !data[0];
	FUZZ_CHECK(rpma_peer_cfg_get_direct_write_to_pmem(pcfg, &direct) == 0);
	FUZZ_CHECK(direct == (data[0] != 0));

	size_t desc_size = 0;
	FUZZ_CHECK(rpma_peer_cfg_get_descriptor_size(pcfg, &desc_size) == 0);
	FUZZ_CHECK(desc_size == 1);

	uint8_t desc = 0xff;
	FUZZ_CHECK(rpma_peer_cfg_get_descriptor(pcfg, &desc) == 0);
	FUZZ_CHECK(desc == (data[0] != 0));

	FUZZ_CHECK(rpma_peer_cfg_delete(&pcfg) == 0);
	FUZZ_CHECK(pcfg == NULL);
	return 0;
}
