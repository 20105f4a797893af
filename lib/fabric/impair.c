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

enum rp_impair_fate rp_impair_next(struct rp_impair_state *s)
{
	uint64_t n = ++s->seen;
	if ((s->cfg.drop_every && n % s->cfg.drop_every == 0) || in_burst(&s->cfg, n)) {
		s->dropped++;
		return RP_IMPAIR_DROP;
	}
	if (s->cfg.ce_every && n % s->cfg.ce_every == 0) {
		s->marked++;
		return RP_IMPAIR_MARK_CE;
	}
	return RP_IMPAIR_PASS;
}
