/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * msg.h -- the messages the send/recv examples exchange.
 */

#ifndef EXAMPLES_MSG_H
#define EXAMPLES_MSG_H 1

#include <stdint.h>

#include "common.h"

/* ping-pong (examples 06, 08, 12, 13) */
enum msg_op {
	MSG_PING = 1,	/* client: answer me */
	MSG_PONG,	/* server: the answer */
	MSG_QUIT,	/* client: no more pings */
};

#define PING_ROUNDS 3

struct ping_msg {
	uint32_t op;		/* enum msg_op */
	uint32_t seq;		/* a pong repeats its ping's */
	char text[MSG_MAX - 8];	/* NUL-terminated unless the peer lies */
};

/* the flush request of example 09 and its answer */
struct flush_req {
	uint64_t offset;	/* of the range to persist, in the server's region */
	uint64_t length;
};

struct flush_resp {
	int32_t status;		/* 0: persisted; an errno value otherwise */
};

/* what the server of example 17 sends a client once it has granted it its part */
struct grant_msg {
	struct descs_pdata descs;	/* the grant's descriptor and the peer configuration's */
	uint8_t part;		/* which part: 0 .. parts - 1 */
	uint8_t parts;		/* how many parts the region is cut into */
};

#endif /* EXAMPLES_MSG_H */
