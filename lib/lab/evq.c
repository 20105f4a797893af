#include "evq.h"

#include <stdlib.h>
#include <string.h>

#define SEQ_LIMIT (1ull << 32)
#define NIL UINT32_MAX
#define WORDS (RP_EVQ_BUCKETS / 64)

void rp_evq_init(struct rp_evq *q)
{
	memset(q, 0, sizeof(*q));
	q->free_node = NIL;
}

void rp_evq_free(struct rp_evq *q)
{
	free(q->near.e);
	free(q->far.e);
	free(q->head);
	free(q->bits);
	free(q->nodes);
	rp_evq_init(q);
}

/* ---- the heaps ---- */

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

static int heap_push(struct rp_evq_heap *h, const struct rp_evq_node *x)
{
	if (h->n == h->cap) {
		size_t cap = h->cap ? h->cap * 2 : 256;
		struct rp_evq_node *e = realloc(h->e, cap * sizeof(*e));
		if (!e)
			return -1;
		h->e = e;
		h->cap = cap;
	}
	h->e[h->n] = *x;
	sift_up(h->e, h->n++);
	return 0;
}

static void heap_pop(struct rp_evq_heap *h, struct rp_evq_node *out)
{
	*out = h->e[0];
	h->e[0] = h->e[--h->n];
	if (h->n)
		sift_down(h->e, h->n, 0);
}

/* ---- the buckets ---- */

static int buckets_init(struct rp_evq *q)
{
	q->head = malloc(RP_EVQ_BUCKETS * sizeof(*q->head));
	q->bits = calloc(WORDS, sizeof(*q->bits));
	if (!q->head || !q->bits)
		return -1;
	for (uint32_t i = 0; i < RP_EVQ_BUCKETS; i++)
		q->head[i] = NIL;
	return 0;
}

/* The first push, or the free list ran out: buckets made, nodes doubled. */
static __attribute__((noinline)) int nodes_grow(struct rp_evq *q)
{
	if (!q->head && buckets_init(q))
		return -1;
	if (q->free_node != NIL)
		return 0;
	uint32_t n = q->nnodes ? q->nnodes * 2 : 1024;
	struct rp_evq_node *v = realloc(q->nodes, (size_t)n * sizeof(*v));
	if (!v)
		return -1;
	q->nodes = v;
	for (uint32_t i = q->nnodes; i < n; i++)
		v[i].next = i + 1 < n ? i + 1 : NIL;
	q->free_node = q->nnodes;
	q->nnodes = n;
	return 0;
}

/* The event written straight into its node at the head of bucket b's list. */
static inline int bucket_add(struct rp_evq *q, uint64_t b, uint64_t t, uint64_t ord, uint16_t kind, uint32_t node,
			     uint16_t port, uint32_t slot)
{
	if (q->free_node == NIL && nodes_grow(q)) /* free_node is NIL until the first push */
		return -1;
	uint32_t i = q->free_node, at = (uint32_t)(b % RP_EVQ_BUCKETS);
	struct rp_evq_node *x = &q->nodes[i];
	q->free_node = x->next;
	*x = (struct rp_evq_node){.t = t, .ord = ord, .node = node, .slot = slot, .kind = kind, .port = port,
				  .next = q->head[at]};
	q->head[at] = i;
	q->bits[at / 64] |= 1ull << (at % 64);
	q->in_buckets++;
	return 0;
}

/* The first non-empty bucket after cur (every one lies within
 * RP_EVQ_BUCKETS - 1 after it); in_buckets must be non-zero. */
static uint64_t bucket_next(const struct rp_evq *q)
{
	uint32_t from = (uint32_t)((q->cur + 1) % RP_EVQ_BUCKETS), w = from / 64;
	uint64_t m = q->bits[w] & (~0ull << (from % 64));
	for (uint32_t k = 0; !m; k++) {
		w = (w + 1) % WORDS;
		m = q->bits[w];
		if (k > WORDS)
			return UINT64_MAX; /* not reached: in_buckets says one is set */
	}
	uint32_t at = w * 64 + (uint32_t)__builtin_ctzll(m);
	return q->cur + 1 + (uint64_t)((at - from) % RP_EVQ_BUCKETS);
}

/* Bucket b's events (and any far one of it) into near; cur = b. */
static int bucket_take(struct rp_evq *q, uint64_t b)
{
	uint32_t at = (uint32_t)(b % RP_EVQ_BUCKETS);
	q->cur = b;
	if (q->head && q->head[at] != NIL) {
		for (uint32_t i = q->head[at], nx; i != NIL; i = nx) {
			nx = q->nodes[i].next;
			if (heap_push(&q->near, &q->nodes[i]))
				return -1;
			q->nodes[i].next = q->free_node;
			q->free_node = i;
			q->in_buckets--;
		}
		q->head[at] = NIL;
		q->bits[at / 64] &= ~(1ull << (at % 64));
	}
	while (q->far.n && (q->far.e[0].t >> RP_EVQ_SHIFT) <= b) {
		struct rp_evq_node x;
		heap_pop(&q->far, &x);
		if (heap_push(&q->near, &x))
			return -1;
	}
	return 0;
}

/* ---- seq ---- */

static int by_seq(const void *a, const void *b)
{
	uint32_t x = (uint32_t)(*(struct rp_evq_node *const *)a)->ord, y = (uint32_t)(*(struct rp_evq_node *const *)b)->ord;
	return x < y ? -1 : x > y;
}

/* seq ran out of 32 bits: every queued event numbered 0.. in its seq order
 * (every comparison stays as it was, so the heaps stay heaps). */
static int renumber(struct rp_evq *q)
{
	size_t n = q->near.n + q->far.n + q->in_buckets, k = 0;
	struct rp_evq_node **v = malloc((n ? n : 1) * sizeof(*v));
	if (!v)
		return -1;
	for (size_t i = 0; i < q->near.n; i++)
		v[k++] = &q->near.e[i];
	for (size_t i = 0; i < q->far.n; i++)
		v[k++] = &q->far.e[i];
	for (uint32_t b = 0; q->head && b < RP_EVQ_BUCKETS; b++)
		for (uint32_t i = q->head[b]; i != NIL; i = q->nodes[i].next)
			v[k++] = &q->nodes[i];
	qsort(v, k, sizeof(*v), by_seq);
	for (size_t i = 0; i < k; i++)
		v[i]->ord = (v[i]->ord & ~0xFFFFFFFFull) | i;
	q->next_seq = k;
	free(v);
	return 0;
}

/* ---- the queue ---- */

int rp_evq_push_tie(struct rp_evq *q, uint64_t t, uint32_t tie, uint16_t kind, uint32_t node, uint16_t port,
		    uint32_t slot)
{
	if (q->next_seq == SEQ_LIMIT && renumber(q))
		return -1;
	uint64_t ord = (uint64_t)tie << 32 | q->next_seq++, b = t >> RP_EVQ_SHIFT;
	int rc;
	if (b > q->cur && b - q->cur < RP_EVQ_BUCKETS) {
		rc = bucket_add(q, b, t, ord, kind, node, port, slot);
	} else {
		struct rp_evq_node x = {.t = t, .ord = ord, .node = node, .slot = slot, .kind = kind, .port = port,
					.next = NIL};
		rc = heap_push(b <= q->cur ? &q->near : &q->far, &x);
	}
	if (rc == 0)
		q->pushed++;
	return rc;
}

bool rp_evq_pop(struct rp_evq *q, struct rp_event *out)
{
	while (!q->near.n) {
		uint64_t b = q->in_buckets ? bucket_next(q) : UINT64_MAX;
		if (q->far.n && (q->far.e[0].t >> RP_EVQ_SHIFT) < b)
			b = q->far.e[0].t >> RP_EVQ_SHIFT;
		if (b == UINT64_MAX)
			return false;
		if (bucket_take(q, b)) {
			q->oom = true;
			return false;
		}
	}
	struct rp_evq_node h;
	heap_pop(&q->near, &h);
	*out = (struct rp_event){.t = h.t, .seq = (uint32_t)h.ord, .kind = h.kind, .port = h.port, .node = h.node,
				 .slot = h.slot, .tie = (uint32_t)(h.ord >> 32)};
	return true;
}

void rp_evq_each(const struct rp_evq *q, void (*fn)(const struct rp_evq_node *n, void *arg), void *arg)
{
	for (size_t i = 0; i < q->near.n; i++)
		fn(&q->near.e[i], arg);
	for (size_t i = 0; i < q->far.n; i++)
		fn(&q->far.e[i], arg);
	for (uint32_t b = 0; q->head && b < RP_EVQ_BUCKETS; b++)
		for (uint32_t k = q->head[b]; k != NIL; k = q->nodes[k].next)
			fn(&q->nodes[k], arg);
}
