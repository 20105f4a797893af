/* A `fabric:` description (struct rp_fabric) -> one emulated switch's
 * rp_switch_cfg. The one mapping: `roceprobe lab` builds every switch of its
 * topology with it, `roceprobe switch` its one switch (from --profile's
 * `fabric:` section or rp_fabric_init_switch, then its flags). What the
 * section does not say comes from rp_switch_cfg_default (queues 6-7 strict,
 * DSCP d -> TC d >> 3, DWRR quantum 9216). */
#ifndef RP_PROFILE_SWITCH_CFG_H
#define RP_PROFILE_SWITCH_CFG_H

#include "fabric/switch.h"
#include "profile.h"

/* What the section leaves to whoever places the switch. */
struct rp_fabric_switch {
	unsigned index;    /* the switch's number: RED seed + index x 0x9E37..., port MACs 02:ff:INDEX:INDEX>>8:00:PORT */
	unsigned nports;
	uint64_t rate_bps[RP_SWITCH_MAX_PORTS];
	uint64_t prop_ns[RP_SWITCH_MAX_PORTS]; /* one way, for headroom `auto` */
	uint32_t fdb_size;    /* MAC table entries the caller may add or learn */
	uint32_t qdepth_bins; /* queue-depth series bins of fabric.qdepth_bin; 0: none */
};

/* nports ports at rate_bps on host links (fabric.link): `roceprobe switch`. */
void rp_fabric_switch_uniform(const struct rp_fabric *f, unsigned nports, uint64_t rate_bps,
			      struct rp_fabric_switch *s);
/* Fills c; check it with rp_switch_cfg_check. */
void rp_fabric_switch_cfg(const struct rp_fabric *f, const struct rp_fabric_switch *s, struct rp_switch_cfg *c);
/* `roceprobe switch` without --profile: rp_fabric_init's defaults except no
 * lossless priority (pfc.priorities: none) and no ECN marking
 * (ecn.priorities: none), as docs/switch.md says. */
void rp_fabric_init_switch(struct rp_fabric *f);

/* ---- `roceprobe switch`: its flags over the description (switch_flags.c) ---- */

/* What the flags say beyond the description they change. */
struct rp_switch_flags {
	bool from_profile;    /* the description is --profile's `fabric:` */
	bool ecn;             /* --ecn given */
	bool ecn_prio_given;  /* --ecn-prio given: ecn_prio */
	uint8_t ecn_prio;
	bool max_frame_given; /* --max-frame given: every port must take it */
};

/* The description the flags start from: profile's `fabric:` section (the
 * lab's defaults for what it leaves out; profile NULL: rp_fabric_init_switch).
 * -1 with the profile's error (FILE:LINE:COL: ...) in err. */
int rp_switch_flags_fabric(const char *profile, struct rp_fabric *f, char *err, size_t errlen);
/* After every flag: a static XOFF must be above the XON delta (given by a
 * flag or by the profile); -1 and err when not. */
int rp_switch_flags_check(const struct rp_fabric *f, char *err, size_t errlen);
/* ECN after every flag: --ecn-prio names the priorities; --ecn alone marks
 * the description's (a profile's ecn.priorities), else the lossless ones,
 * else 3. Without --profile nothing is marked unless --ecn is given. */
void rp_switch_flags_ecn(struct rp_fabric *f, const struct rp_switch_flags *fl);
/* fabric.max_frame against ports_limit, the largest frame (without FCS)
 * every port takes (0: no port says): --max-frame's must fit (-1 and err
 * when not), else 9216 or ports_limit if smaller, never below 1514. */
int rp_switch_flags_max_frame(struct rp_fabric *f, const struct rp_switch_flags *fl, uint32_t ports_limit, char *err,
			      size_t errlen);
/* The one switch of nports at speed_bps (rp_fabric_switch_uniform, a MAC
 * table of 4096: 1024 --fdb entries and what --mac-learn finds), checked by
 * rp_switch_cfg_check: -1 with "switch settings: ..." in err. */
int rp_switch_flags_cfg(const struct rp_fabric *f, unsigned nports, uint64_t speed_bps, bool trust_pcp,
			struct rp_switch_cfg *c, char *err, size_t errlen);

#endif
