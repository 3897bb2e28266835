/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fsdax.h -- what the tests of files on a DAX file system share: the
 * mount a file lies on, whether the device offers on-demand paging (ODP),
 * and what the fsdax pair's two sides say to each other.
 */

#ifndef INTEG_FSDAX_H
#define INTEG_FSDAX_H 1

#include "common.h"

/* the mount of a file system mounted -o dax */
struct fsdax_mount {
	char dev[128];
	char dir[256];
	char type[16];
};

/* the mount path lies on, which must be a DAX one (failing otherwise) */
void fsdax_mount_of(const char *path, struct fsdax_mount *m);

/* unmount it and mount it again, -o dax: what was persisted is all there is */
void fsdax_remount(const struct fsdax_mount *m);

/*
 * Whether the device offers ODP for RC writes and reads; where
 * RPMA_TEST_EXPECT_ODP is set (1 or 0, utils/test says what each kernel's
 * device has), it must agree.
 */
bool fsdax_device_odp(void);

/*
 * What the device itself answers to a prefetch for writing of len bytes at
 * addr (ibv_advise_mr() on an ODP registration of its own): 0 or an errno
 */
int fsdax_raw_advise(void *addr, size_t len);

/*
 * The region of the fsdax pair: a sparse file the server never touches.
 * soft-RoCE's on-demand paging of Linux 7.3.4 places an access at the
 * start of its page whatever its offset there (src/peer.c, RXE_ODP_ENV;
 * fsdax_offset shows it): every access of the pair starts a page and is
 * one packet long, where that kernel places it right.
 */
#define FSDAX_SIZE (1 << 20)
#define FSDAX_PAGE 4096
#define FSDAX_LEN 512
/* where the client writes: page 0, an 8-byte atomic write at page 1, the granted page 2 */
#define FSDAX_ATOMIC_OFF FSDAX_PAGE
#define FSDAX_GRANT_OFF (2 * FSDAX_PAGE)
#define FSDAX_SEED 0x5e
#define FSDAX_SEED_GRANT 0x6f
#define FSDAX_ATOMIC "on dax!"

/*
 * fsdax_offset's writes: within a page, across a page boundary in one
 * packet, and over three pages in several packets, each of its own seed
 */
#define FSDAX_PIECES 3
#define FSDAX_PIECE_MAX (3 * FSDAX_PAGE)
static const struct {
	size_t off;
	size_t len;
} fsdax_pieces[FSDAX_PIECES] = {
	{FSDAX_PAGE + 512, 100},
	{3 * FSDAX_PAGE - 64, 256},
	{4 * FSDAX_PAGE + 100, FSDAX_PIECE_MAX},
};
#define FSDAX_PIECE_SEED(i) (0x77 + (i))

/* the server's message: the grant's descriptor; the client's: done */
struct fsdax_msg {
	uint8_t desc[21];
	uint8_t done;
};

#endif /* INTEG_FSDAX_H */
