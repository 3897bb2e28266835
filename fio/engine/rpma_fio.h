/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpma_fio.h -- what the four librpma fio engines share: their options, the
 * private data a server hands to its client, the client's and the server's
 * connection, and the GPSPM messages.
 */

#ifndef RPMA_FIO_H
#define RPMA_FIO_H

#include <stdbool.h>
#include <stdint.h>

#include "fio.h"
#include "optgroup.h"

#include <librpma.h>

/* the engines are built with hidden visibility: fio looks up only this */
#define RPMA_FIO_ENGINE __attribute__((visibility("default"))) struct ioengine_ops ioengine

/* fio's option table: one job's values, in td->eo */
struct rpma_fio_options {
	void *pad;			/* fio takes an option at offset 0 as unset */
	char *serverip;
	char *port;
	unsigned int direct_write_to_pmem;
	unsigned int busy_wait_polling;
};

extern struct fio_option rpma_fio_options[];

/* serverip= is given: 0; else fio's error, -1. */
int rpma_fio_serverip_check(struct thread_data *td);

/* The port a job uses: port + the job's index among its numjobs clones. */
int rpma_fio_port(struct thread_data *td, char *buf, size_t size);

/* What a server tells its client when it accepts: its region and its peer cfg. */
#define RPMA_FIO_PDATA_MAX 128
struct rpma_fio_pdata {
	uint8_t mr_desc_size;
	uint8_t pcfg_desc_size;
	uint8_t desc[RPMA_FIO_PDATA_MAX];	/* the MR's, then the peer cfg's descriptor */
};

/* GPSPM messages, host byte order (both ends run this engine) */
#define RPMA_FIO_GPSPM_FLUSH 1u
#define RPMA_FIO_GPSPM_DONE 2u	/* the client ends: the server's job ends too */
struct rpma_fio_gpspm_req {
	uint32_t op;
	uint32_t slot;		/* echoed in the response */
	uint64_t offset;
	uint64_t length;
};
struct rpma_fio_gpspm_resp {
	uint32_t slot;
	uint32_t status;	/* 0 or an errno value */
};

/* Log a librpma failure the way fio logs an engine error. */
void rpma_fio_err(struct thread_data *td, const char *call, int ret);

/*
 * Wait for the next completion on cq: busy polling or through the
 * completion channel, watching the connection's events too. Returns 0 and
 * *got > 0; 1 when the peer closed the connection; -1 on failure (td's
 * error set).
 */
int rpma_fio_wait_wc(struct thread_data *td, struct rpma_conn *conn, struct rpma_cq *cq,
		bool busy, struct ibv_wc *wc, int max, int *got);

/* Wait until fd is readable: 0; -1 when fio stops the job or poll fails. */
int rpma_fio_wait_fd(struct thread_data *td, int fd);

/* Disconnect (unless the peer's closing was seen already) and delete conn. */
void rpma_fio_disconnect(struct rpma_conn **conn, bool closed);

#endif
