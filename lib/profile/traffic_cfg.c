/* The `traffic:` section: RDMA pattern entries and PFC/PAUSE sources. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define MAX_ALLOWED 48

static const char *const pattern_keys[RP_PATTERN_COUNT][3] = {
	[RP_PATTERN_FLOW] = {"src", "dst", NULL},
	[RP_PATTERN_INCAST] = {"senders", "receiver", NULL},
	[RP_PATTERN_ALL_TO_ALL] = {"hosts", NULL, NULL},
	[RP_PATTERN_PERMUTATION] = {"hosts", "seed", NULL},
	[RP_PATTERN_FAN_OUT] = {"sender", "receivers", NULL},
};

static const char *const pfc_keys[] = {"name", "kind", "host", "frame", "priorities", "quanta", "fps",
				       "start", "duration", "packets", NULL};

static void allowed_rdma(enum rp_pattern pat, const char **out)
{
	size_t n = 0;
	out[n++] = "name";
	out[n++] = "kind";
	out[n++] = "pattern";
	for (size_t i = 0; pattern_keys[pat][i]; i++)
		out[n++] = pattern_keys[pat][i];
	for (const char *const *k = rp_flow_keys; *k; k++)
		out[n++] = *k;
	out[n++] = "phases";
	out[n] = NULL;
}

/* A required host reference; key names the missing one. */
static int need_host(struct rp_vctx *c, const struct rp_node *map, const char *path, const char *k, uint16_t *idx,
		     bool *spread, const char *why)
{
	char key[RP_PATH_MAX];
	rp_path_key(key, path, k);
	const struct rp_node *n = rp_node_get(map, k);
	if (!n)
		return rp_verr(c, &map->pos, key, "missing; %s", why);
	return rp_vhost(c, n, key, idx, spread);
}

/* Whether a host list uses `all` or a glob (host_entry in check.c). */
static bool names_pattern(const struct rp_node *n)
{
	if (n->type == RP_NODE_SCALAR)
		return !strcmp(n->scalar, "all") || strpbrk(n->scalar, "*?[");
	for (size_t i = 0; n->type == RP_NODE_SEQ && i < n->n; i++)
		if (names_pattern(n->items[i]))
			return true;
	return false;
}

/* The name of endpoint (idx, spread): the host's, or its NIC's. */
static const char *endpoint_name(const struct rp_profile *p, uint16_t idx, bool spread)
{
	return spread ? p->servers[p->hosts[idx].server].name : p->hosts[idx].name;
}

/* An optional host list; by default every host but `except` (or all when except < 0).
 * `all` and globs leave `except` out; naming it is an error. */
static int host_list(struct rp_vctx *c, const struct rp_node *map, const char *path, const char *k, int except,
		     bool except_spread, uint16_t *out, bool *spread, size_t *count)
{
	char key[RP_PATH_MAX];
	const struct rp_profile *p = c->prof;
	rp_path_key(key, path, k);
	const struct rp_node *n = rp_node_get(map, k);
	uint16_t ex = (uint16_t)(except < 0 ? 0 : except);
#define IS_EXCEPT(i) (except >= 0 && rp_endpoints_overlap(p, out[i], spread[i], ex, except_spread))
	if (n) {
		if (rp_vhost_list(c, n, key, out, spread, count))
			return -1;
		if (except >= 0 && names_pattern(n)) { /* `senders: all`, "cn*": every other match */
			size_t kept = 0;
			for (size_t i = 0; i < *count; i++)
				if (!IS_EXCEPT(i)) {
					spread[kept] = spread[i];
					out[kept++] = out[i];
				}
			if ((*count = kept) == 0)
				return rp_verr(c, &n->pos, key, "no hosts left but '%s' itself",
					       endpoint_name(p, ex, except_spread));
		}
		for (size_t i = 0; i < *count; i++)
			if (IS_EXCEPT(i))
				return rp_verr(c, &n->pos, key, "host '%s' cannot send to itself",
					       endpoint_name(p, ex, except_spread));
		return 0;
	}
	*count = 0;
	for (size_t i = 0; i < p->nservers; i++) {
		const struct rp_server *sv = &p->servers[i];
		out[*count] = sv->nic0;
		spread[*count] = sv->nnics > 1;
		if (!IS_EXCEPT(*count))
			(*count)++;
	}
#undef IS_EXCEPT
	if (*count == 0)
		return rp_verr(c, &map->pos, key, "no hosts left to use; the profile needs more hosts");
	return 0;
}

static int pattern_hosts(struct rp_vctx *c, const struct rp_node *map, const char *path, struct rp_traffic *t)
{
	uint16_t one;
	bool sp;
	char key[RP_PATH_MAX];
	switch (t->pattern) {
	case RP_PATTERN_FLOW:
		if (need_host(c, map, path, "src", &t->hosts[0], &t->hosts_spread[0], "a flow needs src and dst host names") ||
		    need_host(c, map, path, "dst", &t->peers[0], &t->peers_spread[0], "a flow needs src and dst host names"))
			return -1;
		t->nhosts = t->npeers = 1;
		rp_path_key(key, path, "dst");
		if (rp_endpoints_overlap(c->prof, t->hosts[0], t->hosts_spread[0], t->peers[0], t->peers_spread[0]))
			return rp_verr(c, &rp_node_get(map, "dst")->pos, key, "src and dst are the same host '%s'",
				       c->prof->servers[c->prof->hosts[t->hosts[0]].server].name);
		return 0;
	case RP_PATTERN_INCAST:
		if (need_host(c, map, path, "receiver", &one, &sp, "an incast needs a receiver host name"))
			return -1;
		t->peers[0] = one;
		t->peers_spread[0] = sp;
		t->npeers = 1;
		return host_list(c, map, path, "senders", one, sp, t->hosts, t->hosts_spread, &t->nhosts);
	case RP_PATTERN_FAN_OUT:
		if (need_host(c, map, path, "sender", &one, &sp, "a fan-out needs a sender host name"))
			return -1;
		t->hosts[0] = one;
		t->hosts_spread[0] = sp;
		t->nhosts = 1;
		return host_list(c, map, path, "receivers", one, sp, t->peers, t->peers_spread, &t->npeers);
	case RP_PATTERN_ALL_TO_ALL:
	case RP_PATTERN_PERMUTATION:
		if (host_list(c, map, path, "hosts", -1, false, t->hosts, t->hosts_spread, &t->nhosts))
			return -1;
		if (t->nhosts < 2) {
			rp_path_key(key, path, "hosts");
			const struct rp_node *n = rp_node_get(map, "hosts");
			return rp_verr(c, n ? &n->pos : &map->pos, key, "%s needs at least 2 hosts",
				       rp_pattern_name(t->pattern));
		}
		return 0;
	default:
		return -1;
	}
}

static bool host_has(const struct rp_host *h, uint8_t ip)
{
	return ip == 4 ? h->has_ipv4 : h->has_ipv6;
}

/* Picks the IP version every host of the entry has (ip: auto), or checks it. */
static int resolve_ip(struct rp_vctx *c, const struct rp_node *map, const char *path, struct rp_traffic *t)
{
	uint8_t tries[2] = {4, 6};
	size_t ntries = 2;
	if (t->p.ip) {
		tries[0] = t->p.ip;
		ntries = 1;
	}
	const struct rp_host *missing = NULL;
	for (size_t k = 0; k < ntries; k++) {
		missing = NULL;
		for (size_t i = 0; i < t->nhosts + t->npeers && !missing; i++) {
			uint16_t h = i < t->nhosts ? t->hosts[i] : t->peers[i - t->nhosts];
			if (!host_has(&c->prof->hosts[h], tries[k]))
				missing = &c->prof->hosts[h];
		}
		if (!missing) {
			t->p.ip = tries[k];
			return 0;
		}
	}
	if (ntries == 1)
		return rp_verr(c, &map->pos, path, "ip is %u but host '%s' has no ipv%u address", t->p.ip, missing->name,
			       t->p.ip);
	return rp_verr(c, &map->pos, path, "the hosts of this entry share no address family (host '%s' lacks one)",
		       missing->name);
}

static int rate_fits(struct rp_vctx *c, const struct rp_pos *pos, const char *key, const struct rp_traffic *t,
		     const struct rp_rate *rate);

static int check_flow_params(struct rp_vctx *c, const struct rp_node *map, const char *path, struct rp_traffic *t,
			     const struct rp_fp_origin *o)
{
	if ((t->p.burst_on_ns == 0) != (t->p.burst_off_ns == 0))
		return rp_verr(c, o->on_key[0] ? &o->on_pos : &map->pos, o->on_key[0] ? o->on_key : path,
			       "burst_on and burst_off go together: give both (above 0) or neither");
	if (t->pattern == RP_PATTERN_ALL_TO_ALL && t->p.burst_on_ns)
		return rp_verr(c, &o->on_pos, o->on_key,
			       "all-to-all makes its own phases; burst_on/burst_off do not apply to it");
	if (!rp_node_get(map, "phases") && rate_fits(c, &o->rate_pos, o->rate_key, t, &t->p.rate))
		return -1;
	return resolve_ip(c, map, path, t);
}

static int rate_fits(struct rp_vctx *c, const struct rp_pos *pos, const char *key, const struct rp_traffic *t,
		     const struct rp_rate *rate)
{
	if (rate->ppm)
		return 0;
	for (size_t i = 0; i < t->nhosts; i++) {
		const struct rp_host *h = &c->prof->hosts[t->hosts[i]];
		if (rate->bps > h->speed_bps) {
			char r[32], s[32];
			return rp_verr(c, pos, key, "rate %s is above the %s link of host '%s'",
				       rp_format_bps(rate->bps, r, sizeof(r)), rp_format_bps(h->speed_bps, s, sizeof(s)),
				       h->name);
		}
	}
	return 0;
}

static const char *const phase_keys[] = {"at", "rate", NULL};

/* One phase {at: TIME, rate: RATE}; prev_at: the previous phase's (or -1). */
static int phase_parse(struct rp_vctx *c, const struct rp_node *n, const char *key, const struct rp_traffic *t,
		       int64_t prev_at, struct rp_rate_phase *ph)
{
	char k[RP_PATH_MAX];
	if (rp_vtype(c, n, key, RP_NODE_MAP, "a phase like {at: 10ms, rate: 80%}") || rp_vkeys(c, n, key, phase_keys))
		return -1;
	const struct rp_node *at = rp_node_get(n, "at"), *rate = rp_node_get(n, "rate");
	if (!at || !rate)
		return rp_verr(c, &n->pos, key, "a phase needs at and rate, like {at: 10ms, rate: 80%%}");
	rp_path_key(k, key, "at");
	if (rp_vduration(c, at, k, &ph->at_ns))
		return -1;
	if (prev_at < 0 && ph->at_ns != 0)
		return rp_verr(c, &at->pos, k, "the first phase starts at 0 (the entry's start), got '%s'", at->scalar);
	if (prev_at >= 0 && ph->at_ns <= (uint64_t)prev_at)
		return rp_verr(c, &at->pos, k, "'%s' is not after the previous phase's at; phases go in time order",
			       at->scalar);
	if (ph->at_ns && ph->at_ns >= t->p.stop_value)
		return rp_verr(c, &at->pos, k, "'%s' is not before the entry's end (its duration); the phase would never run",
			       at->scalar);
	rp_path_key(k, key, "rate");
	return rp_vrate(c, rate, k, &ph->rate) || rate_fits(c, &rate->pos, k, t, &ph->rate) ? -1 : 0;
}

/* `phases:` of an RDMA entry: its rate over time (docs/profiles.md). */
static int parse_phases(struct rp_vctx *c, const struct rp_node *map, const char *path, struct rp_traffic *t,
			const struct rp_fp_origin *o)
{
	const struct rp_node_kv *kv = rp_node_get_kv(map, "phases");
	if (!kv)
		return 0;
	char key[RP_PATH_MAX];
	rp_path_key(key, path, "phases");
	const struct rp_node *n = kv->val;
	if (rp_node_get(map, "rate"))
		return rp_verr(c, &kv->key_pos, key, "rate and phases do not go together: each phase gives its rate");
	if (t->p.burst_on_ns)
		return rp_verr(c, &kv->key_pos, key, "phases and burst_on/burst_off do not go together; give one of them");
	if (t->pattern == RP_PATTERN_ALL_TO_ALL)
		return rp_verr(c, &kv->key_pos, key, "all-to-all makes its own phases; a rate over time does not apply to it");
	if (t->p.stop != RP_STOP_DURATION)
		return rp_verr(c, o->stop_key[0] ? &o->stop_pos : &kv->key_pos, o->stop_key[0] ? o->stop_key : key,
			       "phases end with the entry's duration; give duration, not packets or messages");
	if (rp_vtype(c, n, key, RP_NODE_SEQ, "a list of phases like [{at: 0ms, rate: 20%}, {at: 10ms, rate: 80%}]"))
		return -1;
	if (n->n == 0 || n->n > RP_MAX_RATE_PHASES)
		return rp_verr(c, &n->pos, key, "expected 1 to %u phases, got %zu", RP_MAX_RATE_PHASES, n->n);
	struct rp_rate_phase *ph = calloc(n->n, sizeof(*ph));
	if (!ph)
		return rp_verr(c, &n->pos, key, "out of memory");
	for (size_t i = 0; i < n->n; i++) {
		char ik[RP_PATH_MAX];
		rp_path_index(ik, key, i);
		if (phase_parse(c, n->items[i], ik, t, i ? (int64_t)ph[i - 1].at_ns : -1, &ph[i])) {
			free(ph);
			return -1;
		}
	}
	t->phases = ph;
	t->nphases = (uint16_t)n->n;
	t->p.rate = ph[0].rate;
	return 0;
}

static int parse_seed(struct rp_vctx *c, const struct rp_node *map, const char *path, struct rp_traffic *t)
{
	t->seed = 1;
	const struct rp_node *n = rp_node_get(map, "seed");
	if (!n)
		return 0;
	char key[RP_PATH_MAX];
	rp_path_key(key, path, "seed");
	return rp_vuint(c, n, key, 0, UINT64_MAX, &t->seed);
}

static int rdma_entry(struct rp_vctx *c, const struct rp_node *map, const char *path, struct rp_traffic *t,
		      const struct rp_fp_origin *dflt)
{
	char key[RP_PATH_MAX];
	const char *s;
	const struct rp_node *n = rp_node_get(map, "pattern");
	rp_path_key(key, path, "pattern");
	if (!n)
		return rp_verr(c, &map->pos, key, "missing; expected one of flow, incast, all-to-all, permutation, fan-out");
	if (rp_vscalar(c, n, key, "one of flow, incast, all-to-all, permutation, fan-out", &s))
		return -1;
	int pat = rp_pattern_parse(s);
	if (pat < 0)
		return rp_verr(c, &n->pos, key, "expected one of flow, incast, all-to-all, permutation, fan-out, got '%s'", s);
	t->pattern = (enum rp_pattern)pat;
	const char *allowed[MAX_ALLOWED];
	allowed_rdma(t->pattern, allowed);
	if (rp_vkeys(c, map, path, allowed) || pattern_hosts(c, map, path, t) || parse_seed(c, map, path, t))
		return -1;
	t->p = c->prof->defaults;
	struct rp_fp_origin o = *dflt;
	if (rp_flow_keys_apply(c, map, path, &t->p, &o))
		return -1;
	return check_flow_params(c, map, path, t, &o) || parse_phases(c, map, path, t, &o) ? -1 : 0;
}

static int pfc_priorities(struct rp_vctx *c, const struct rp_node *map, const char *path, struct rp_traffic *t)
{
	char key[RP_PATH_MAX];
	rp_path_key(key, path, "priorities");
	const struct rp_node *n = rp_node_get(map, "priorities");
	if (t->pfc.pause) {
		if (n)
			return rp_verr(c, &n->pos, key, "a PAUSE frame has no priorities; remove the key or use frame: pfc");
		return 0;
	}
	if (!n)
		return rp_verr(c, &map->pos, key, "missing; a PFC source needs priorities like [3] or [3, 4]");
	if (n->type == RP_NODE_SCALAR) {
		uint64_t v;
		if (rp_vuint(c, n, key, 0, 7, &v))
			return -1;
		t->pfc.prio_mask = (uint8_t)(1u << v);
		return 0;
	}
	if (rp_vtype(c, n, key, RP_NODE_SEQ, "a list of priorities like [3, 4]"))
		return -1;
	for (size_t i = 0; i < n->n; i++) {
		char ik[RP_PATH_MAX];
		uint64_t v;
		rp_path_index(ik, key, i);
		if (rp_vuint(c, n->items[i], ik, 0, 7, &v))
			return -1;
		t->pfc.prio_mask |= (uint8_t)(1u << v);
	}
	if (!t->pfc.prio_mask)
		return rp_verr(c, &n->pos, key, "expected at least one priority from 0 to 7, got an empty list");
	return 0;
}

static int pfc_frame(struct rp_vctx *c, const struct rp_node *map, const char *path, struct rp_traffic *t)
{
	char key[RP_PATH_MAX];
	const char *s;
	rp_path_key(key, path, "frame");
	const struct rp_node *n = rp_node_get(map, "frame");
	if (!n)
		return 0;
	if (rp_vscalar(c, n, key, "pfc or pause", &s))
		return -1;
	if (strcmp(s, "pause") && strcmp(s, "pfc"))
		return rp_verr(c, &n->pos, key, "expected pfc or pause, got '%s'", s);
	t->pfc.pause = strcmp(s, "pause") == 0;
	return 0;
}

/* quanta * 512 bit times * fps >= 1 s of the link: the priority never un-pauses. */
static int pfc_storm(struct rp_vctx *c, const struct rp_node *fpsn, const char *key, const struct rp_traffic *t)
{
	const struct rp_host *h = &c->prof->hosts[t->hosts[0]];
	double busy = (double)t->pfc.quanta * 512.0 * (double)t->pfc.fps / (double)h->speed_bps;
	if (busy < 1.0 || (c->opts && c->opts->allow_pause_storm))
		return 0;
	char sp[32];
	return rp_verr(c, &fpsn->pos, key,
		       "%llu frames/s of %u quanta keep the link of '%s' paused %.0f%% of the time at %s;"
		       " pass --allow-pause-storm to send a pause storm on purpose",
		       (unsigned long long)t->pfc.fps, t->pfc.quanta, h->name, busy * 100.0,
		       rp_format_bps(h->speed_bps, sp, sizeof(sp)));
}

static int pfc_stop(struct rp_vctx *c, const struct rp_node *map, const char *path, struct rp_traffic *t)
{
	struct rp_fp_origin o = {0};
	if (rp_flow_keys_apply(c, map, path, &t->p, &o))
		return -1;
	if (t->p.stop == RP_STOP_MESSAGES)
		return rp_verr(c, &map->pos, path, "a pfc source stops by duration or packets; the defaults give messages");
	return 0;
}

static int pfc_entry(struct rp_vctx *c, const struct rp_node *map, const char *path, struct rp_traffic *t)
{
	char key[RP_PATH_MAX];
	uint64_t v;
	if (rp_vkeys(c, map, path, pfc_keys) ||
	    need_host(c, map, path, "host", &t->hosts[0], NULL, "a pfc source needs the host that sends the frames"))
		return -1;
	t->nhosts = 1;
	if (pfc_frame(c, map, path, t) || pfc_priorities(c, map, path, t))
		return -1;
	t->pfc.quanta = 0xFFFF;
	const struct rp_node *n = rp_node_get(map, "quanta");
	rp_path_key(key, path, "quanta");
	if (n) {
		if (rp_vuint(c, n, key, 0, 0xFFFF, &v))
			return -1;
		t->pfc.quanta = (uint16_t)v;
	}
	rp_path_key(key, path, "fps");
	n = rp_node_get(map, "fps");
	if (!n)
		return rp_verr(c, &map->pos, key, "missing; a pfc source needs frames per second, like fps: 1000");
	if (rp_vuint(c, n, key, 1, 100000000, &t->pfc.fps) || pfc_storm(c, n, key, t))
		return -1;
	t->p = c->prof->defaults;
	return pfc_stop(c, map, path, t);
}

static int entry_parse(struct rp_vctx *c, const struct rp_node *map, const char *path, size_t idx, struct rp_traffic *t,
		       const struct rp_fp_origin *dflt)
{
	char key[RP_PATH_MAX];
	const char *s;
	if (rp_vtype(c, map, path, RP_NODE_MAP, "a traffic mapping with a pattern (or kind: pfc)"))
		return -1;
	snprintf(t->name, sizeof(t->name), "traffic%zu", idx);
	const struct rp_node *n = rp_node_get(map, "name");
	rp_path_key(key, path, "name");
	if (n && rp_vname(c, n, key, t->name, sizeof(t->name)))
		return -1;
	for (size_t i = 0; n && i < idx; i++)
		if (strcmp(c->prof->traffic[i].name, t->name) == 0)
			return rp_verr(c, &n->pos, key, "duplicate traffic name '%s' (also traffic[%zu])", t->name, i);
	t->kind = RP_TRAFFIC_RDMA;
	n = rp_node_get(map, "kind");
	rp_path_key(key, path, "kind");
	if (n) {
		if (rp_vscalar(c, n, key, "rdma or pfc", &s))
			return -1;
		if (strcmp(s, "pfc") == 0)
			t->kind = RP_TRAFFIC_PFC;
		else if (strcmp(s, "rdma") != 0)
			return rp_verr(c, &n->pos, key, "expected rdma or pfc, got '%s'", s);
	}
	return t->kind == RP_TRAFFIC_PFC ? pfc_entry(c, map, path, t) : rdma_entry(c, map, path, t, dflt);
}

/* The entry's endpoints parsed into scratch (room for every NIC: a list
 * holds each at most once) are copied out to arrays of their counts. */
struct endpoints {
	uint16_t *hosts, *peers;
	bool *hosts_spread, *peers_spread;
};

static void *dup_n(const void *src, size_t n, size_t size)
{
	void *d = malloc((n ? n : 1) * size);
	if (d)
		memcpy(d, src, (n ? n : 1) * size);
	return d;
}

static int entry_own(struct rp_traffic *t)
{
	struct endpoints s = {t->hosts, t->peers, t->hosts_spread, t->peers_spread};
	t->hosts = dup_n(s.hosts, t->nhosts, sizeof(*t->hosts));
	t->peers = dup_n(s.peers, t->npeers, sizeof(*t->peers));
	t->hosts_spread = dup_n(s.hosts_spread, t->nhosts, sizeof(*t->hosts_spread));
	t->peers_spread = dup_n(s.peers_spread, t->npeers, sizeof(*t->peers_spread));
	if (t->hosts && t->peers && t->hosts_spread && t->peers_spread)
		return 0;
	rp_traffic_release(t);
	return -1;
}

void rp_traffic_release(struct rp_traffic *t)
{
	free(t->hosts);
	free(t->peers);
	free(t->hosts_spread);
	free(t->peers_spread);
	free(t->phases);
	t->phases = NULL;
	t->nphases = 0;
	t->hosts = t->peers = NULL;
	t->hosts_spread = t->peers_spread = NULL;
}

int rp_traffic_parse(struct rp_vctx *c, const struct rp_node *n, const char *path, const struct rp_fp_origin *dflt)
{
	if (rp_vtype(c, n, path, RP_NODE_SEQ, "a list of traffic entries"))
		return -1;
	if (n->n == 0)
		return rp_verr(c, &n->pos, path, "expected at least one traffic entry, got an empty list");
	size_t room = c->prof->nhosts ? c->prof->nhosts : 1;
	struct endpoints s = {calloc(room, sizeof(*s.hosts)), calloc(room, sizeof(*s.peers)),
			      calloc(room, sizeof(*s.hosts_spread)), calloc(room, sizeof(*s.peers_spread))};
	c->prof->traffic = calloc(n->n, sizeof(*c->prof->traffic));
	int rc = 0;
	if (!c->prof->traffic || !s.hosts || !s.peers || !s.hosts_spread || !s.peers_spread)
		rc = rp_verr(c, &n->pos, path, "out of memory");
	for (size_t i = 0; i < n->n && rc == 0; i++) {
		char key[RP_PATH_MAX];
		struct rp_traffic *t = &c->prof->traffic[i];
		rp_path_index(key, path, i);
		memset(s.hosts_spread, 0, room * sizeof(*s.hosts_spread));
		memset(s.peers_spread, 0, room * sizeof(*s.peers_spread));
		*t = (struct rp_traffic){.hosts = s.hosts, .peers = s.peers, .hosts_spread = s.hosts_spread,
					 .peers_spread = s.peers_spread};
		if (entry_parse(c, n->items[i], key, i, t, dflt)) {
			*t = (struct rp_traffic){0}; /* the scratch is not the entry's */
			rc = -1;
		} else if (entry_own(t)) {
			rc = rp_verr(c, &n->items[i]->pos, key, "out of memory");
		} else {
			c->prof->ntraffic = i + 1;
		}
	}
	free(s.hosts);
	free(s.peers);
	free(s.hosts_spread);
	free(s.peers_spread);
	return rc;
}
