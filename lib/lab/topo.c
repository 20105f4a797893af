/* Topology: one switch with every host on it, or leaves and spines with
 * hosts in blocks of hosts_per_leaf (h0.. on leaf0) and every leaf wired
 * to every spine (leaf port hosts_per_leaf + s <-> spine s port leaf). */
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
	fs.fdb_size = (uint32_t)lab->nhosts + 16;
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

static void build_single(struct rp_lab *lab)
{
	struct rp_lab_switch *s = &lab->sw[0];
	snprintf(s->name, sizeof(s->name), "sw0");
	s->nports = s->nhost_ports = (unsigned)lab->nhosts;
	for (unsigned h = 0; h < lab->nhosts; h++)
		plug_host(lab, h, 0, h);
}

static void build_leaf_spine(struct rp_lab *lab)
{
	const struct rp_fabric *f = lab->fab;
	uint64_t up = f->uplink_speed_bps ? f->uplink_speed_bps : lab->prof->default_speed_bps;
	for (unsigned l = 0; l < f->leaves; l++) {
		struct rp_lab_switch *s = &lab->sw[l];
		snprintf(s->name, sizeof(s->name), "leaf%u", l);
		s->index = l;
		s->nhost_ports = f->hosts_per_leaf;
		s->nports = f->hosts_per_leaf + f->spines;
		for (unsigned p = 0; p < f->hosts_per_leaf; p++) /* ports without a host still need a rate */
			s->port[p] = (struct rp_lab_port){.rate_bps = lab->prof->default_speed_bps, .prop_ns = f->host_delay_ns};
	}
	for (unsigned k = 0; k < f->spines; k++) {
		struct rp_lab_switch *s = &lab->sw[f->leaves + k];
		snprintf(s->name, sizeof(s->name), "spine%u", k);
		s->spine = true;
		s->index = k;
		s->nports = s->nhost_ports = 0;
		s->nports = f->leaves;
		for (unsigned l = 0; l < f->leaves; l++) {
			s->port[l] = (struct rp_lab_port){.kind = RP_PEER_SWITCH, .peer = l, .peer_port = (uint16_t)(f->hosts_per_leaf + k),
							  .rate_bps = up, .prop_ns = f->uplink_delay_ns};
			lab->sw[l].port[f->hosts_per_leaf + k] = (struct rp_lab_port){
				.kind = RP_PEER_SWITCH, .peer = f->leaves + k, .peer_port = (uint16_t)l, .rate_bps = up,
				.prop_ns = f->uplink_delay_ns};
		}
	}
	for (unsigned h = 0; h < lab->nhosts; h++)
		plug_host(lab, h, h / f->hosts_per_leaf, h % f->hosts_per_leaf);
}

static int fill_fdb(struct rp_lab *lab, unsigned si)
{
	struct rp_lab_switch *s = &lab->sw[si];
	for (unsigned h = 0; h < lab->nhosts; h++) {
		const struct rp_lab_host *H = &lab->hosts[h];
		int port = -1;
		if (H->sw == si)
			port = (int)H->sw_port;
		else if (s->spine)
			port = (int)H->sw; /* spine port l faces leaf l */
		if (port >= 0 && rp_switch_fdb_add(s->sw, lab->prof->hosts[h].mac, (unsigned)port))
			return -1;
	}
	return 0;
}

int rp_lab_topo_build(struct rp_lab *lab, char *err, size_t errlen)
{
	const struct rp_fabric *f = lab->fab;
	lab->nsw = f->topology == RP_TOPO_SINGLE ? 1 : f->leaves + f->spines;
	lab->sw = calloc(lab->nsw, sizeof(*lab->sw));
	if (!lab->sw) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (f->topology == RP_TOPO_SINGLE)
		build_single(lab);
	else
		build_leaf_spine(lab);
	for (unsigned i = 0; i < lab->nsw; i++) {
		struct rp_lab_switch *s = &lab->sw[i];
		static struct rp_switch_cfg c;
		char why[200];
		switch_cfg(lab, s, &c);
		if (rp_switch_cfg_check(&c, why, sizeof(why))) {
			snprintf(err, errlen, "fabric: switch %s: %s", s->name, why);
			return -1;
		}
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
