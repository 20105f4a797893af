#include "later.h"

bool rp_later_put(struct rp_later *l, const struct rp_reply *r, unsigned i, uint64_t due)
{
	if (l->n == RP_LATER_MAX) {
		l->full++;
		return false;
	}
	struct rp_reply *k = &l->r[l->n];
	*k = *r;
	k->n = 1;
	k->msg[0] = r->msg[i];
	l->due[l->n++] = due;
	l->held++;
	return true;
}

bool rp_later_take_slow(struct rp_later *l, uint64_t now, struct rp_reply *out)
{
	unsigned best = l->n;
	for (unsigned i = 0; i < l->n; i++)
		if (l->due[i] <= now && (best == l->n || l->due[i] < l->due[best]))
			best = i;
	if (best == l->n)
		return false;
	*out = l->r[best];
	out->msg[0].at_ns = 0;
	l->n--; /* the last one fills the hole: order is by due, not by place */
	l->r[best] = l->r[l->n];
	l->due[best] = l->due[l->n];
	return true;
}
