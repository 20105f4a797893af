/* `roceprobe switch`'s flags over a `fabric:` description (switch_cfg.h):
 * ECN marking, the largest frame, the checked switch configuration. */
#include <inttypes.h>
#include <stdio.h>

#include "switch_cfg.h"

int rp_switch_flags_fabric(const char *profile, struct rp_fabric *f, char *err, size_t errlen)
{
	if (!profile) {
		rp_fabric_init_switch(f);
		return 0;
	}
	struct rp_profile *p = rp_profile_load(profile, NULL, err, errlen);
	if (!p)
		return -1;
	*f = p->fabric;
	rp_profile_free(p);
	return 0;
}

int rp_switch_flags_check(const struct rp_fabric *f, char *err, size_t errlen)
{
	if (!f->xoff.dynamic && f->xon_delta >= f->xoff.bytes) {
		snprintf(err, errlen, "--xon-delta (%" PRIu64 " B) must be below --xoff (%" PRIu64 " B)", f->xon_delta,
			 f->xoff.bytes);
		return -1;
	}
	return 0;
}

void rp_switch_flags_ecn(struct rp_fabric *f, const struct rp_switch_flags *fl)
{
	uint8_t lossless = f->pfc_off ? 0 : f->lossless_mask;
	if (fl->ecn_prio_given)
		f->ecn_mask = fl->ecn_prio;
	else if (fl->ecn && !f->ecn_mask)
		f->ecn_mask = lossless ? lossless : 1u << 3;
	if (!fl->from_profile && !fl->ecn)
		f->ecn_mask = 0;
}

int rp_switch_flags_max_frame(struct rp_fabric *f, const struct rp_switch_flags *fl, uint32_t ports_limit, char *err,
			      size_t errlen)
{
	uint32_t ports = ports_limit, *m = &f->max_frame;
	if (!fl->max_frame_given) {
		*m = ports && ports < *m ? ports : *m;
		if (*m < 1514)
			*m = 1514;
		return 0;
	}
	if (ports && *m > ports) {
		snprintf(err, errlen, "--max-frame %u: a port takes frames up to %u bytes", *m, ports);
		return -1;
	}
	return 0;
}

int rp_switch_flags_cfg(const struct rp_fabric *f, unsigned nports, uint64_t speed_bps, bool trust_pcp,
			struct rp_switch_cfg *c, char *err, size_t errlen)
{
	struct rp_fabric_switch fs;
	char why[512];
	rp_fabric_switch_uniform(f, nports, speed_bps, &fs);
	fs.fdb_size = 4096; /* --fdb entries (at most 1024) and what --mac-learn finds */
	rp_fabric_switch_cfg(f, &fs, c);
	c->trust_pcp = trust_pcp;
	if (rp_switch_cfg_check(c, why, sizeof(why)) != 0) {
		snprintf(err, errlen, "switch settings: %s", why);
		return -1;
	}
	return 0;
}
