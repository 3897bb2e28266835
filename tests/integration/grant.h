/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * grant.h -- what the two sides of the grant tests share. The servers that
 * grant (grant_server.c) use the API of LIBRPMA_1.5 and are built into a
 * program of their own, rpma-integ-grant; the clients and the server of
 * plain regions (grant.c) use only librpma 1.x's API, in rpma-integ, so
 * that they run on librpma 1.x as well.
 *
 * The server hands its grants' descriptors over in a message after the
 * connection is established (a window is bound on a QP that can send), and
 * the two sides say where they are in messages, each received into slot 0
 * of a message buffer and sent from slot 1, on a receive CQ of its own.
 */

#ifndef INTEG_GRANT_H
#define INTEG_GRANT_H 1

#include "common.h"

#define GRANT_MSG_SIZE 1024
#define GRANT_DESC_SIZE 21
#define GRANT_MAX 20

/* what a message says */
enum grant_msg_kind {
	GRANT_MSG_DESCS = 1,	/* server: the grants' descriptors */
	GRANT_MSG_DONE,		/* client: done with the grants, n: rounds or count */
	GRANT_MSG_REVOKED,	/* server: the first grant was revoked */
	GRANT_MSG_STOP,		/* server: the attack is over */
	GRANT_MSG_HELLO,	/* client: connected, its first message (grant_hello_send()) */
};

struct grant_desc {
	uint8_t usage;		/* what the server asked for (the descriptor may show more) */
	uint8_t memory;		/* GRANT_PMEM or GRANT_DRAM */
	uint8_t desc[GRANT_DESC_SIZE];
};

#define GRANT_PMEM 1
#define GRANT_DRAM 2

struct grant_msg {
	uint32_t kind;
	uint32_t n;		/* grants in g[], or a number the kind says */
	uint8_t pcfg_len;
	uint8_t pcfg[32];
	struct grant_desc g[GRANT_MAX];
};
_Static_assert(sizeof(struct grant_msg) <= GRANT_MSG_SIZE, "a message fits its slot");

/* a message buffer registered to send (slot 1) and receive (slot 0) */
struct grant_msgbuf {
	char *buf;
	struct rpma_mr_local *mr;
};

void grant_msgbuf_new(struct rpma_peer *peer, struct grant_msgbuf *m);
void grant_msgbuf_delete(struct grant_msgbuf *m);
struct grant_msg *grant_msg_in(struct grant_msgbuf *m);
struct grant_msg *grant_msg_out(struct grant_msgbuf *m);

/* a connection configuration with a receive CQ, and room for GRANT_MAX binds at once */
struct rpma_conn_cfg *grant_conn_cfg(void);

/* post the receive of slot 0 on a request, before it connects (a req_prep_fn) */
void grant_recv_prep(struct rpma_conn_req *req, void *msgbuf);
/* post the receive of slot 0 on a connection */
void grant_recv_post(struct rpma_conn *conn, struct grant_msgbuf *m);

/* the next message on the receive CQ, of kind (failing otherwise) */
struct grant_msg *grant_msg_wait(struct rpma_conn *conn, struct grant_msgbuf *m,
		enum grant_msg_kind kind);
/* the same without waiting: NULL when none came yet */
struct grant_msg *grant_msg_poll(struct rpma_conn *conn, struct grant_msgbuf *m,
		enum grant_msg_kind kind);

/*
 * The side that connected speaks first. On iWARP the side that accepted
 * may send nothing before it has a message of the other's (MPA, RFC 5044:
 * the responder waits for the initiator's first FPDU), and soft-iWARP's
 * connecting side fails the connection (CONNECT_ERROR, the server never
 * hearing of it) when an early message arrives with the MPA reply: the
 * client says hello once connected, and the server waits for it (and posts
 * its receive again) before its first message.
 */
void grant_hello_send(struct rpma_conn *conn, struct grant_msgbuf *m);
void grant_hello_wait(struct rpma_conn *conn, struct grant_msgbuf *m);

/* send slot 1 (len bytes) and wait for the send's completion on the main CQ */
void grant_msg_send(struct rpma_conn *conn, struct grant_msgbuf *m, size_t len);

/*
 * The same for the last message before the peer breaks or closes the
 * connection on purpose (a request it makes fails, or the message tells it
 * to go): the peer has the message, but its acknowledgement may come after
 * the break, so the send completes or is flushed (on soft-iWARP: ends with
 * a local QP operation error).
 */
void grant_msg_send_last(struct rpma_conn *conn, struct grant_msgbuf *m, size_t len);

/*
 * The keys of this process's registrations on the device (rdma resource
 * show mr), at most max: where none is listed (no rdma tool, no right), 0.
 */
unsigned grant_registration_keys(uint32_t *keys, unsigned max);

/* the usages the grant tests grant, each on a page of its own */
#define USAGE_RW (RPMA_MR_USAGE_READ_SRC | RPMA_MR_USAGE_WRITE_DST)
#define USAGE_FLUSHES (RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY | RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT)
#define USAGE_GRANT_ALL (USAGE_RW | USAGE_FLUSHES)

/* the client's index of the attack tests: A holds a grant, B attacks it */
#define ATTACK_A 0
#define ATTACK_B 1

/* what each connection of the attack tests says it is, in its private data */
enum attack_role {
	ROLE_A = 'A',		/* the victim's connection */
	ROLE_B = 'B',		/* the attacker's own connection, with a grant of its own */
	ROLE_GUESS = 'G',	/* one of the attacker's tries, a connection each */
	ROLE_END = 'E',		/* the attacker is done: refused, and A is told to stop */
};

/* what A and B may do in their pages */
#define ATTACK_USAGE (USAGE_RW | RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY)

/* how a server of the attack tests hands out its two pages: grants, or regions as 1.x does */
struct attack_pages {
	/* register mem (A's page, then B's) for usage into mr (mr[1] may stay NULL) */
	void (*reg)(struct rpma_peer *peer, char *mem, int usage, struct rpma_mr_local *mr[2]);
	/*
	 * The descriptor (desc) of page p for conn, and what it made (*handle);
	 * false where the device cannot give it (no windows: the test then
	 * checks the refusal only)
	 */
	bool (*give)(struct rpma_conn *conn, struct rpma_mr_local *mr[2], int p, int usage,
			void **handle, uint8_t *desc);
	/* after the connection ended: what give() made goes (NULL: nothing to do) */
	void (*take_back)(void **handle);
	/* B is told the keys of the server's registrations too, to try them */
	bool tell_keys;
};

/*
 * The server of the attack tests: takes A's and B's first connections and
 * hands out their pages (B gets A's descriptor too, as if stolen), serves B's
 * tries until its last connection, stops A and checks both pages.
 */
void attack_server(const struct attack_pages *pages);

/* pages of the attack tests' memory: A's, B's */
#define ATTACK_PAGE 4096
#define ATTACK_SEED_A 0xa0
#define ATTACK_SEED_B 0xb0
/* what B writes where it has no right to */
#define ATTACK_SEED_JUNK 0xee

#endif /* INTEG_GRANT_H */
