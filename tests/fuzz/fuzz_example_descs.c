// SPDX-License-Identifier: BSD-3-Clause
/*
 * fuzz_example_descs.c -- descs_unpack_pdata() of examples/common: the
 * private data in which a server hands its descriptors to the clients of
 * the examples. The bytes are the peer's: on success they held a whole
 * struct descs_pdata whose sizes fit its buffer; on failure nothing is
 * left allocated (LeakSanitizer watches).
 */

#include <stdint.h>
#include <string.h>

#include "common.h"
#include "fuzz.h"

#define PDATA_MAX 255	/* rdma_cm's private_data_len is a uint8_t */

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
	uint8_t len = size > PDATA_MAX ? PDATA_MAX : (uint8_t)size;
	struct rpma_conn_private_data pdata = { (void *)data, len };
	struct rpma_mr_remote *mr = NULL;
	struct rpma_peer_cfg *pcfg = (struct rpma_peer_cfg *)&pdata;	/* must be set */
	struct descs_pdata pd;

	int ret = descs_unpack_pdata(&pdata, &mr, &pcfg);
	if (ret) {
		FUZZ_CHECK(mr == NULL);
		return 0;
	}

	FUZZ_CHECK(len >= sizeof(pd));
	memcpy(&pd, data, sizeof(pd));
	FUZZ_CHECK(pd.mr_desc_size >= 21);	/* a longer buffer holds it in its first bytes */
	FUZZ_CHECK((size_t)pd.mr_desc_size + pd.pcfg_desc_size <= sizeof(pd.descs));
	FUZZ_CHECK(mr != NULL);
	FUZZ_CHECK((pcfg == NULL) == (pd.pcfg_desc_size == 0));

	FUZZ_CHECK(rpma_mr_remote_delete(&mr) == 0);
	FUZZ_CHECK(rpma_peer_cfg_delete(&pcfg) == 0);
	return 0;
}
