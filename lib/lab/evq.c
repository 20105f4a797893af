#include "evq.h"

#include <stdlib.h>
#include <string.h>

#define SEQ_LIMIT (1ull << 32)

void rp_evq_init(struct rp_evq *q)
{
	memset(q, 0, sizeof(*q));
}

void rp_evq_free(struct rp_evq *q)
{
	free(q->e);
	memset(q, 0, sizeof(*q));
}

typedef unsigned __int128 key_t128;

static inline key_t128 key(const struct rp_evq_node *a)
{
	return (key_t128)a->t << 64 | a->ord;
}

static void sift_up(struct rp_evq_node *e, size_t i)
{
	struct rp_evq_node x = e[i];
	key_t128 k = key(&x);
	while (i > 0) {
		size_t p = (i - 1) / 2;
		if (k >= key(&e[p]))
			break;
		e[i] = e[p];
		i = p;
	}
	e[i] = x;
}

static void sift_down(struct rp_evq_node *e, size_t n, size_t i)
{
	struct rp_evq_node x = e[i];
	key_t128 k = key(&x);
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= n)
			break;
		key_t128 kc = key(&e[c]);
		if (c + 1 < n) {
			key_t128 kd = key(&e[c + 1]);
			if (kd < kc) {
				c++;
				kc = kd;
			}
		}
		if (kc >= k)
			break;
		e[i] = e[c];
		i = c;
	}
	e[i] = x;
}

static int by_seq(const void *a, const void *b)
{
	uint32_t x = (uint32_t)(*(struct rp_evq_node *const *)a)->ord, y = (uint32_t)(*(struct rp_evq_node *const *)b)->ord;
	return x < y ? -1 : x > y;
}

/* seq ran out of 32 bits: the queued events numbered 0.. in their seq order
 * (every comparison stays as it was, so the heap stays a heap). */
static int renumber(struct rp_evq *q)
{
	struct rp_evq_node **v = malloc((q->n ? q->n : 1) * sizeof(*v));
	if (!v)
		return -1;
	for (size_t i = 0; i < q->n; i++)
		v[i] = &q->e[i];
	qsort(v, q->n, sizeof(*v), by_seq);
	for (size_t i = 0; i < q->n; i++)
		v[i]->ord = (v[i]->ord & ~0xFFFFFFFFull) | i;
	q->next_seq = q->n;
	free(v);
	return 0;
}

int rp_evq_push(struct rp_evq *q, uint64_t t, uint16_t kind, uint32_t node, uint16_t port, uint32_t slot)
{
	return rp_evq_push_tie(q, t, 0, kind, node, port, slot);
}

int rp_evq_push_tie(struct rp_evq *q, uint64_t t, uint32_t tie, uint16_t kind, uint32_t node, uint16_t port,
		    uint32_t slot)
{
	if (q->n == q->cap) {
		size_t cap = q->cap ? q->cap * 2 : 1024;
		struct rp_evq_node *e = realloc(q->e, cap * sizeof(*e));
		if (!e)
			return -1;
		q->e = e;
		q->cap = cap;
	}
	if (q->next_seq == SEQ_LIMIT && renumber(q))
		return -1;
	q->e[q->n] = (struct rp_evq_node){.t = t, .ord = (uint64_t)tie << 32 | q->next_seq++, .node = node, .slot = slot,
					  .kind = kind, .port = port};
	sift_up(q->e, q->n++);
	q->pushed++;
	return 0;
}

bool rp_evq_pop(struct rp_evq *q, struct rp_event *out)
{
	if (!q->n)
		return false;
	const struct rp_evq_node *h = &q->e[0];
	*out = (struct rp_event){.t = h->t, .seq = (uint32_t)h->ord, .kind = h->kind, .port = h->port, .node = h->node,
				 .slot = h->slot, .tie = (uint32_t)(h->ord >> 32)};
	q->e[0] = q->e[--q->n];
	if (q->n)
		sift_down(q->e, q->n, 0);
	return true;
}
