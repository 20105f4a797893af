#include "evq.h"

#include <stdlib.h>
#include <string.h>

void rp_evq_init(struct rp_evq *q)
{
	memset(q, 0, sizeof(*q));
}

void rp_evq_free(struct rp_evq *q)
{
	free(q->e);
	memset(q, 0, sizeof(*q));
}

static bool before(const struct rp_event *a, const struct rp_event *b)
{
	if (a->t != b->t)
		return a->t < b->t;
	return a->tie != b->tie ? a->tie < b->tie : a->seq < b->seq;
}

static void sift_up(struct rp_event *e, size_t i)
{
	struct rp_event x = e[i];
	while (i > 0) {
		size_t p = (i - 1) / 2;
		if (!before(&x, &e[p]))
			break;
		e[i] = e[p];
		i = p;
	}
	e[i] = x;
}

static void sift_down(struct rp_event *e, size_t n, size_t i)
{
	struct rp_event x = e[i];
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && before(&e[c + 1], &e[c]))
			c++;
		if (!before(&e[c], &x))
			break;
		e[i] = e[c];
		i = c;
	}
	e[i] = x;
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
		struct rp_event *e = realloc(q->e, cap * sizeof(*e));
		if (!e)
			return -1;
		q->e = e;
		q->cap = cap;
	}
	q->e[q->n] = (struct rp_event){.t = t, .seq = q->next_seq++, .kind = kind, .port = port, .node = node, .slot = slot,
				      .tie = tie};
	sift_up(q->e, q->n++);
	q->pushed++;
	return 0;
}

bool rp_evq_pop(struct rp_evq *q, struct rp_event *out)
{
	if (!q->n)
		return false;
	*out = q->e[0];
	q->e[0] = q->e[--q->n];
	if (q->n)
		sift_down(q->e, q->n, 0);
	return true;
}
