// SPDX-License-Identifier: BSD-3-Clause
/* proto.c -- the writer's and the replica's messages, encoded and checked */

#include <string.h>

#include "layout.h"
#include "proto.h"

#define PROTO_MAGIC 0x474c5052u /* "RPLG" */
#define PROTO_VERSION 1u
#define PREFIX 8 /* magic, version, kind */

static uint8_t *
prefix_put(uint8_t *buf, enum proto_kind kind, size_t size)
{
	memset(buf, 0, size);
	layout_put(buf, PROTO_MAGIC, 4);
	layout_put(buf + 4, PROTO_VERSION, 2);
	layout_put(buf + 6, kind, 2);
	return buf + PREFIX;
}

int
proto_kind(const uint8_t *buf, size_t len)
{
	if (buf == NULL || len < PREFIX || layout_get(buf, 4) != PROTO_MAGIC ||
			layout_get(buf + 4, 2) != PROTO_VERSION)
		return PROTO_BAD;
	return (int)layout_get(buf + 6, 2);
}

/* the fields after the prefix of a whole message of KIND, or NULL */
static const uint8_t *
fields(const uint8_t *buf, size_t len, enum proto_kind kind, size_t size)
{
	/* the private data of a connection may come padded: more is no harm */
	return len >= size && proto_kind(buf, len) == (int)kind ? buf + PREFIX : NULL;
}

/* the hello, the refusal and the commit: two 8-byte words after the prefix */
static size_t
two_put(uint8_t *buf, enum proto_kind kind, uint64_t a, uint64_t b)
{
	uint8_t *p = prefix_put(buf, kind, PREFIX + 16);

	layout_put(p, a, 8);
	layout_put(p + 8, b, 8);
	return PREFIX + 16;
}

static int
two_get(const uint8_t *buf, size_t len, enum proto_kind kind, uint64_t *a, uint64_t *b)
{
	const uint8_t *p = fields(buf, len, kind, PREFIX + 16);

	if (p == NULL)
		return PROTO_BAD;
	*a = layout_get(p, 8);
	*b = layout_get(p + 8, 8);
	return 0;
}

size_t
proto_hello_encode(const struct proto_hello *m, uint8_t *buf)
{
	return two_put(buf, PROTO_HELLO, m->epoch, m->writer);
}

int
proto_hello_decode(const uint8_t *buf, size_t len, struct proto_hello *m)
{
	uint64_t epoch, writer;

	/* epoch 0 is the new log's own: no writer has it */
	if (two_get(buf, len, PROTO_HELLO, &epoch, &writer) || epoch == 0)
		return PROTO_BAD;
	*m = (struct proto_hello){ .epoch = epoch, .writer = writer };
	return 0;
}

size_t
proto_welcome_encode(const struct proto_welcome *m, uint8_t *buf)
{
	const uint64_t words[] = { m->size, m->epoch, m->first, m->committed,
		m->committed_end, m->next, m->end, m->last_epoch };
	uint8_t *p;

	if (m->grant_size > PROTO_DESC_MAX || m->pcfg_size > PROTO_DESC_MAX)
		return 0;
	p = prefix_put(buf, PROTO_WELCOME, PROTO_WELCOME_SIZE);
	for (size_t i = 0; i < 8; i++)
		layout_put(p + 8 * i, words[i], 8);
	p[64] = m->grant_size;
	p[65] = m->pcfg_size;
	memcpy(p + 66, m->grant, m->grant_size);
	memcpy(p + 66 + PROTO_DESC_MAX, m->pcfg, m->pcfg_size);
	return PROTO_WELCOME_SIZE;
}

/* a descriptor of SIZE bytes and zeros after it, in its PROTO_DESC_MAX */
static int
desc_whole(const uint8_t *desc, uint8_t size)
{
	if (size == 0 || size > PROTO_DESC_MAX)
		return 0;
	for (size_t i = size; i < PROTO_DESC_MAX; i++)
		if (desc[i])
			return 0;
	return 1;
}

int
proto_welcome_decode(const uint8_t *buf, size_t len, struct proto_welcome *m)
{
	const uint8_t *p = fields(buf, len, PROTO_WELCOME, PROTO_WELCOME_SIZE);
	struct proto_welcome d;

	if (p == NULL)
		return PROTO_BAD;
	d.size = layout_get(p, 8);
	d.epoch = layout_get(p + 8, 8);
	d.first = layout_get(p + 16, 8);
	d.committed = layout_get(p + 24, 8);
	d.committed_end = layout_get(p + 32, 8);
	d.next = layout_get(p + 40, 8);
	d.end = layout_get(p + 48, 8);
	d.last_epoch = layout_get(p + 56, 8);
	d.grant_size = p[64];
	d.pcfg_size = p[65];
	memcpy(d.grant, p + 66, PROTO_DESC_MAX);
	memcpy(d.pcfg, p + 66 + PROTO_DESC_MAX, PROTO_DESC_MAX);
	/* a log as a replica can hold it: a writer trusts these offsets */
	if (d.size < LAYOUT_MIN_SIZE || d.first > d.committed || d.committed > d.next ||
			d.committed_end < LAYOUT_ENTRIES || d.committed_end > d.end ||
			d.end > d.size || d.committed_end % LAYOUT_ALIGN ||
			d.end % LAYOUT_ALIGN || d.last_epoch > d.epoch ||
			!desc_whole(d.grant, d.grant_size) || !desc_whole(d.pcfg, d.pcfg_size))
		return PROTO_BAD;
	*m = d;
	return 0;
}

size_t
proto_refuse_encode(const struct proto_refuse *m, uint8_t *buf)
{
	return two_put(buf, PROTO_REFUSE, m->reason, m->epoch);
}

int
proto_refuse_decode(const uint8_t *buf, size_t len, struct proto_refuse *m)
{
	uint64_t reason, epoch;

	if (two_get(buf, len, PROTO_REFUSE, &reason, &epoch) ||
			reason < PROTO_STALE_EPOCH || reason > PROTO_NO_GRANT)
		return PROTO_BAD;
	*m = (struct proto_refuse){ .reason = (uint32_t)reason, .epoch = epoch };
	return 0;
}

size_t
proto_commit_encode(const struct proto_commit *m, uint8_t *buf)
{
	return two_put(buf, PROTO_COMMIT, m->committed, m->committed_end);
}

int
proto_commit_decode(const uint8_t *buf, size_t len, struct proto_commit *m)
{
	uint64_t committed, end;

	if (two_get(buf, len, PROTO_COMMIT, &committed, &end) || end < LAYOUT_ENTRIES ||
			end % LAYOUT_ALIGN)
		return PROTO_BAD;
	*m = (struct proto_commit){ .committed = committed, .committed_end = end };
	return 0;
}
