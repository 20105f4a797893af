/* Topology: one switch with every host on it; leaves and spines (leaf-spine,
 * rail); or a 3-tier fat-tree of pods (leaves, aggs) and cores. Builders
 * below say how ports are numbered. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile/switch_cfg.h"
#include "lab_internal.h"

static uint64_t series_bins(const struct rp_lab *lab)
{
	uint64_t run = lab->acfg.run_ns + lab->acfg.start_ns, bin = lab->fab->qdepth_bin_ns;
	if (!bin)
		return 0;
	uint64_t n = run * 2 / bin + 16;
	return n > 20000 ? 20000 : n;
}

/* The one mapping from `fabric:` to a switch (profile/switch_cfg.h), with
 * this switch's ports as the topology placed them. */
static void switch_cfg(const struct rp_lab *lab, const struct rp_lab_switch *s, struct rp_switch_cfg *c)
{
	struct rp_fabric_switch fs = {.index = (unsigned)(s - lab->sw), .nports = s->nports};
	for (unsigned p = 0; p < s->nports; p++) {
		fs.rate_bps[p] = s->port[p].rate_bps;
		fs.prop_ns[p] = s->port[p].prop_ns;
	}
	fs.fdb_size = s->nhost_ports + 16; /* the hosts it faces; the rest the lab routes (route.c) */
	fs.qdepth_bins = (uint32_t)series_bins(lab);
	rp_fabric_switch_cfg(lab->fab, &fs, c);
}

static void plug_host(struct rp_lab *lab, unsigned h, unsigned s, unsigned p)
{
	struct rp_lab_port *port = &lab->sw[s].port[p];
	*port = (struct rp_lab_port){.kind = RP_PEER_HOST, .peer = h, .rate_bps = lab->prof->hosts[h].speed_bps,
				     .prop_ns = lab->fab->host_delay_ns};
	lab->hosts[h].sw = s;
	lab->hosts[h].sw_port = p;
	lab->hosts[h].rate_bps = port->rate_bps;
	lab->hosts[h].prop_ns = port->prop_ns;
}

static uint64_t splitmix(uint64_t z)
{
	z += 0x9E3779B97F4A7C15ull;
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static struct rp_lab_switch *add_switch(struct rp_lab *lab, unsigned i, const char *role, enum rp_lab_tier tier,
					unsigned index, unsigned nports)
{
	struct rp_lab_switch *s = &lab->sw[i];
	snprintf(s->name, sizeof(s->name), "%s%u", role, index);
	s->role = role;
	s->tier = (uint8_t)tier;
	s->index = index;
	s->nports = nports;
	s->down_div = 1;
	s->down_mod = 1;
	/* Its own ECMP hash (real switches seed theirs apart, or every tier would
	 * make the same choice and polarise): from fabric.seed and its number. */
	s->ecmp_seed = splitmix(lab->fab->seed ^ ((uint64_t)i << 32 | 0xEC3Bu));
	return s;
}

/* Switch a's port pa <-> switch b's port pb at the uplink speed and delay. */
static void wire(struct rp_lab *lab, unsigned a, unsigned pa, unsigned b, unsigned pb)
{
	const struct rp_fabric *f = lab->fab;
	uint64_t up = f->uplink_speed_bps ? f->uplink_speed_bps : lab->prof->default_speed_bps;
	lab->sw[a].port[pa] = (struct rp_lab_port){.kind = RP_PEER_SWITCH, .peer = b, .peer_port = (uint16_t)pb,
						   .rate_bps = up, .prop_ns = f->uplink_delay_ns};
	lab->sw[b].port[pb] = (struct rp_lab_port){.kind = RP_PEER_SWITCH, .peer = a, .peer_port = (uint16_t)pa,
						   .rate_bps = up, .prop_ns = f->uplink_delay_ns};
}

static void add_leaf(struct rp_lab *lab, unsigned l, unsigned hosts, unsigned ups)
{
	struct rp_lab_switch *s = add_switch(lab, l, "leaf", RP_TIER_LEAF, l, hosts + ups);
	s->nhost_ports = hosts;
	s->up0 = hosts;
	s->nup = ups;
	for (unsigned p = 0; p < hosts; p++) /* ports without a host still need a rate */
		s->port[p] = (struct rp_lab_port){.rate_bps = lab->prof->default_speed_bps, .prop_ns = lab->fab->host_delay_ns};
}

static void build_single(struct rp_lab *lab)
{
	struct rp_lab_switch *s = add_switch(lab, 0, "sw", RP_TIER_LEAF, 0, (unsigned)lab->nhosts);
	s->role = "switch";
	s->nhost_ports = s->nports;
	for (unsigned h = 0; h < lab->nhosts; h++)
		plug_host(lab, h, 0, h);
}

/* Leaves and spines, every leaf wired to every spine (leaf port
 * hosts_per_leaf + k <-> spine k port leaf). leaf-spine: host h on leaf
 * h / hosts_per_leaf; rail: NIC r of server s (a host of `nics:`, or with
 * one-NIC hosts host h as NIC h % rails of server h / rails) on rail leaf
 * (pod x rails + r) of its server's pod s / hosts_per_leaf, port s mod
 * hosts_per_leaf. */
static void build_leaf_spine(struct rp_lab *lab)
{
	const struct rp_fabric *f = lab->fab;
	unsigned hpl = f->hosts_per_leaf;
	for (unsigned l = 0; l < f->leaves; l++)
		add_leaf(lab, l, hpl, f->spines);
	for (unsigned k = 0; k < f->spines; k++) {
		struct rp_lab_switch *s = add_switch(lab, f->leaves + k, "spine", RP_TIER_MID, k, f->leaves);
		s->down_mod = f->leaves;
		for (unsigned l = 0; l < f->leaves; l++)
			wire(lab, l, hpl + k, f->leaves + k, l);
	}
	for (unsigned h = 0; h < lab->nhosts; h++) {
		if (f->topology == RP_TOPO_RAIL) {
			const struct rp_host *ph = &lab->prof->hosts[h];
			bool multi = rp_profile_multi_nic(lab->prof);
			unsigned server = multi ? ph->server : h / f->rails, nic = multi ? ph->nic : h % f->rails;
			unsigned pod = server / hpl;
			plug_host(lab, h, pod * f->rails + nic, server % hpl);
		} else {
			plug_host(lab, h, h / hpl, h % hpl);
		}
	}
}

/* Pods of L leaves and A aggs: leaf port hosts_per_leaf + a <-> agg a port
 * (leaf in pod); agg a of every pod port L + j <-> core a x C/A + j port pod.
 * Leaves first (host h on leaf h / hosts_per_leaf), then aggs pod by pod,
 * then cores. */
static void build_fat_tree(struct rp_lab *lab)
{
	const struct rp_fabric *f = lab->fab;
	unsigned P = f->pods, L = f->leaves, A = f->aggs, C = f->cores, hpl = f->hosts_per_leaf, cpa = C / A;
	unsigned agg0 = P * L, core0 = agg0 + P * A;
	for (unsigned l = 0; l < P * L; l++) {
		add_leaf(lab, l, hpl, A);
		lab->sw[l].pod = l / L;
	}
	for (unsigned p = 0; p < P; p++)
		for (unsigned a = 0; a < A; a++) {
			struct rp_lab_switch *s = add_switch(lab, agg0 + p * A + a, "agg", RP_TIER_MID, p * A + a, L + cpa);
			s->pod = p;
			s->down_mod = L;
			s->up0 = L;
			s->nup = cpa;
			for (unsigned l = 0; l < L; l++)
				wire(lab, p * L + l, hpl + a, agg0 + p * A + a, l);
		}
	for (unsigned c = 0; c < C; c++) {
		struct rp_lab_switch *s = add_switch(lab, core0 + c, "core", RP_TIER_CORE, c, P);
		s->down_div = L;
		s->down_mod = P;
		for (unsigned p = 0; p < P; p++)
			wire(lab, agg0 + p * A + c / cpa, L + c % cpa, core0 + c, p);
	}
	for (unsigned h = 0; h < lab->nhosts; h++)
		plug_host(lab, h, h / hpl, h % hpl);
}

static unsigned switch_count(const struct rp_fabric *f)
{
	switch (f->topology) {
	case RP_TOPO_SINGLE:
		return 1;
	case RP_TOPO_FAT_TREE:
		return f->pods * (f->leaves + f->aggs) + f->cores;
	default:
		return f->leaves + f->spines;
	}
}

static int fill_fdb(struct rp_lab *lab, unsigned si)
{
	for (unsigned h = 0; h < lab->nhosts; h++) {
		const struct rp_lab_host *H = &lab->hosts[h];
		if (H->sw == si && rp_switch_fdb_add(lab->sw[si].sw, lab->prof->hosts[h].mac, H->sw_port))
			return -1;
	}
	return 0;
}

/* The switches, their ports and where each host plugs in; no models yet. */
static int topo_layout(struct rp_lab *lab, char *err, size_t errlen)
{
	const struct rp_fabric *f = lab->fab;
	lab->nsw = switch_count(f);
	lab->sw = calloc(lab->nsw, sizeof(*lab->sw));
	if (!lab->sw) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (f->topology == RP_TOPO_SINGLE)
		build_single(lab);
	else if (f->topology == RP_TOPO_FAT_TREE)
		build_fat_tree(lab);
	else
		build_leaf_spine(lab);
	return 0;
}

/* Switch i's config as `fabric:` gives it, checked by the model's rules. */
static int checked_cfg(const struct rp_lab *lab, unsigned i, struct rp_switch_cfg *c, char *err, size_t errlen)
{
	char why[400];
	switch_cfg(lab, &lab->sw[i], c);
	if (rp_switch_cfg_check(c, why, sizeof(why)) == 0)
		return 0;
	snprintf(err, errlen, "fabric: switch %s: %s", lab->sw[i].name, why);
	return -1;
}

int rp_lab_topo_walk(const struct rp_profile *prof, rp_lab_topo_fn fn, void *arg, char *err, size_t errlen)
{
	struct rp_lab lab = {.prof = prof, .fab = &prof->fabric, .nhosts = prof->nhosts};
	static struct rp_switch_cfg c;
	int rc = -1;
	lab.hosts = calloc(lab.nhosts ? lab.nhosts : 1, sizeof(*lab.hosts));
	if (!lab.hosts)
		snprintf(err, errlen, "out of memory");
	else if (topo_layout(&lab, err, errlen) == 0)
		for (unsigned i = 0, bad = 0; i < lab.nsw && !bad; i++) {
			rc = (bad = checked_cfg(&lab, i, &c, err, errlen) != 0) ? -1 : 0;
			if (!bad && fn)
				fn(&lab, i, &c, arg);
		}
	free(lab.sw);
	free(lab.hosts);
	return rc;
}

int rp_lab_topo_check(const struct rp_profile *prof, char *err, size_t errlen)
{
	return rp_lab_topo_walk(prof, NULL, NULL, err, errlen);
}

int rp_lab_topo_build(struct rp_lab *lab, char *err, size_t errlen)
{
	if (topo_layout(lab, err, errlen))
		return -1;
	for (unsigned i = 0; i < lab->nsw; i++) {
		struct rp_lab_switch *s = &lab->sw[i];
		static struct rp_switch_cfg c;
		if (checked_cfg(lab, i, &c, err, errlen))
			return -1;
		if (!(s->sw = rp_switch_create(&c)) || fill_fdb(lab, i)) {
			snprintf(err, errlen, "fabric: switch %s: out of memory", s->name);
			return -1;
		}
		for (unsigned p = 0; p < RP_SWITCH_MAX_PORTS; p++)
			s->wake_at[p] = s->first_xoff_ns[p] = RP_LAB_NEVER;
	}
	return 0;
}

void rp_lab_topo_free(struct rp_lab *lab)
{
	for (unsigned i = 0; lab->sw && i < lab->nsw; i++)
		rp_switch_destroy(lab->sw[i].sw);
	free(lab->sw);
	lab->sw = NULL;
}

/* "SWITCH:PORT" (PORT a number or EthernetN) -> the switch's index and port. */
static int port_of(const struct rp_lab *lab, const char *spec, unsigned *sw, unsigned *port, char *err, size_t errlen)
{
	const char *colon = strrchr(spec, ':');
	size_t nl = colon ? (size_t)(colon - spec) : 0;
	if (!colon || !nl || !colon[1]) {
		snprintf(err, errlen, "--mirror '%s': expected SWITCH:PORT like sw0:3 or leaf1:Ethernet2", spec);
		return -1;
	}
	const char *p = colon + 1;
	if (strncmp(p, "Ethernet", 8) == 0)
		p += 8;
	char *end;
	unsigned long v = *p >= '0' && *p <= '9' ? strtoul(p, &end, 10) : ULONG_MAX;
	for (unsigned s = 0; s < lab->nsw; s++) {
		if (strlen(lab->sw[s].name) != nl || strncmp(lab->sw[s].name, spec, nl) != 0)
			continue;
		if (v == ULONG_MAX || *end || v >= lab->sw[s].nports) {
			snprintf(err, errlen, "--mirror '%s': switch %s has ports 0..%u (a number, or Ethernet0..)", spec,
				 lab->sw[s].name, lab->sw[s].nports - 1);
			return -1;
		}
		*sw = s;
		*port = (unsigned)v;
		return 0;
	}
	char names[200] = "";
	size_t off = 0;
	for (unsigned s = 0; s < lab->nsw && s < 7; s++)
		off += (size_t)snprintf(names + off, sizeof(names) - off, "%s%s", s ? ", " : "",
					s == 6 && lab->nsw > 7 ? "..." : lab->sw[s].name);
	snprintf(err, errlen, "--mirror '%s': no switch '%.*s' in this fabric (its switches: %s)", spec, (int)nl, spec,
		 names);
	return -1;
}

int rp_lab_topo_port(const struct rp_profile *prof, const char *spec, unsigned *sw, unsigned *port, char *err,
		     size_t errlen)
{
	struct rp_lab lab = {.prof = prof, .fab = &prof->fabric, .nhosts = prof->nhosts};
	int rc = -1;
	lab.hosts = calloc(lab.nhosts ? lab.nhosts : 1, sizeof(*lab.hosts));
	if (!lab.hosts)
		snprintf(err, errlen, "out of memory");
	else if (topo_layout(&lab, err, errlen) == 0)
		rc = port_of(&lab, spec, sw, port, err, errlen);
	free(lab.sw);
	free(lab.hosts);
	return rc;
}

int rp_lab_switch_nports(const struct rp_profile *prof, const char *name)
{
	struct rp_lab lab = {.prof = prof, .fab = &prof->fabric, .nhosts = prof->nhosts};
	char err[64];
	int n = -1;
	lab.hosts = calloc(lab.nhosts ? lab.nhosts : 1, sizeof(*lab.hosts));
	if (lab.hosts && topo_layout(&lab, err, sizeof(err)) == 0)
		for (unsigned s = 0; s < lab.nsw && n < 0; s++)
			if (strcmp(lab.sw[s].name, name) == 0)
				n = (int)lab.sw[s].nports;
	free(lab.sw);
	free(lab.hosts);
	return n;
}
