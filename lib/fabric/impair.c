#include "impair.h"

#include <string.h>

void rp_impair_init(struct rp_impair_state *s, const struct rp_impair *cfg)
{
	memset(s, 0, sizeof(*s));
	s->cfg = *cfg;
}

static bool in_burst(const struct rp_impair *c, uint64_t n)
{
	return c->drop_from && n >= c->drop_from && n - c->drop_from < c->drop_count;
}

enum rp_impair_fate rp_impair_fate_of(const struct rp_impair *c, uint64_t n)
{
	if ((c->drop_every && n % c->drop_every == 0) || in_burst(c, n))
		return RP_IMPAIR_DROP;
	if (c->ce_every && n % c->ce_every == 0)
		return RP_IMPAIR_MARK_CE;
	return RP_IMPAIR_PASS;
}

enum rp_impair_fate rp_impair_next(struct rp_impair_state *s)
{
	enum rp_impair_fate f = rp_impair_fate_of(&s->cfg, ++s->seen);
	s->dropped += f == RP_IMPAIR_DROP;
	s->marked += f == RP_IMPAIR_MARK_CE;
	return f;
}
