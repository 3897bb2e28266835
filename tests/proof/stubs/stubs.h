/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * stubs.h -- libibverbs and librdmacm for the proofs: what the library
 * hands to the provider is recorded for the harness to check, and what the
 * provider hands back (device capabilities, keys, private data, whether a
 * post fails) is any value. The library's objects a harness needs are made
 * by the library itself on top of these (fixtures.c).
 */

#ifndef PROOF_STUBS_H
#define PROOF_STUBS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "librpma.h"

/* any value: CBMC gives a function without a body a free result */
uint8_t nondet_u8(void);
uint32_t nondet_u32(void);
uint64_t nondet_u64(void);
size_t nondet_size(void);
int nondet_int(void);
bool nondet_bool(void);

/* what the library handed to the provider */
struct stub_record {
	int send_calls;			/* ibv_post_send() */
	struct ibv_send_wr send_wr;
	struct ibv_sge send_sge;	/* its first scatter entry, if any */
	int recv_calls;			/* ibv_post_recv() and ibv_post_srq_recv() */
	struct ibv_recv_wr recv_wr;
	struct ibv_sge recv_sge;
	const void *recv_target;	/* the QP or the SRQ */
	int atomic_calls;		/* ibv_wr_atomic_write() */
	uint32_t atomic_rkey;
	uint64_t atomic_addr;
	int flush_calls;		/* ibv_wr_flush() */
	uint32_t flush_rkey;
	uint64_t flush_addr;
	size_t flush_len;
	uint8_t flush_type;
	uint8_t flush_level;
	int complete_calls;		/* ibv_wr_complete() */
	int advise_calls;		/* ibv_advise_mr() */
	struct ibv_sge advise_sge;
	uint32_t advise_num_sge;
	int conn_calls;			/* rdma_connect() and rdma_accept() */
	uint8_t conn_pdata_len;
};
extern struct stub_record stub_rec;

/* forget what was recorded (after the set-up of a harness) */
void stub_record_clear(void);

/* the provider reads len bytes at ptr (a pointer check fails for any it cannot) */
void stub_read(const void *ptr, size_t len);

/* the last registration ibv_reg_mr() made, and the access it granted */
extern struct ibv_mr *stub_last_mr;
extern int stub_last_access;

/* the last mapping mmap() made */
extern void *stub_mapped;

/* a device whose capabilities (ODP, ATOMIC WRITE, FLUSH) are any */
struct ibv_context *stub_device(void);

/* a QP of the device, with the extended QP's operations */
struct ibv_qp *stub_qp_new(struct ibv_pd *pd);

/* the event the next rdma_get_cm_event() returns: of type, carrying len bytes at pdata */
void stub_cm_event_next(enum rdma_cm_event_type type, const void *pdata, uint8_t len);

/* an id with a QP on the stub device, as rdma_create_id() and rdma_create_qp_ex() make it */
struct rdma_cm_id *stub_cm_id_new(void);

#endif /* PROOF_STUBS_H */
