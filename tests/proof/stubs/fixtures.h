/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fixtures.h -- the library's objects a harness starts from, each made by
 * the library itself on the stub provider: a peer on a device of any
 * capabilities, a connection made through rpma_conn_req_new() and
 * rpma_conn_req_connect(), a local region of any size and usage registered
 * by rpma_mr_reg(), a remote region imported from any descriptor that
 * rpma_mr_remote_from_descriptor() accepts.
 */

#ifndef PROOF_FIXTURES_H
#define PROOF_FIXTURES_H

#include "mr.h"
#include "stubs.h"

struct rpma_peer *fixture_peer(void);
struct rpma_conn *fixture_conn(struct rpma_peer *peer);

/* an object of any size the allocator gives, registered with any usage */
struct rpma_mr_local *fixture_local(struct rpma_peer *peer);

/* imported from any descriptor (one whose range wraps is refused: proven apart) */
struct rpma_mr_remote *fixture_remote(void);

/*
 * An assertion that fails exactly when some execution reaches it:
 * tests/py/test_proof.py requires every witness to fail, which shows that
 * the harness's assumptions leave inputs to prove things about.
 */
#define WITNESS(what) __CPROVER_assert(0, "witness: " what)

/* a + b <= limit, computed without wrap-around (a 65-bit sum) */
bool sum_within(uint64_t a, uint64_t b, uint64_t limit);

#endif /* PROOF_FIXTURES_H */
