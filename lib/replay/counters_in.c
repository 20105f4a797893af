/* Counter series -> the symptoms captures lack (counters_in.h). Every line
 * is read by lib/counters' reader (rp_cnt_json_read), the one for what
 * rp_cnt_json writes; a "snapshot" line is a baseline (its counts are
 * absolute: only its gauges are taken), a "delta" line's counts are what
 * happened over its interval, put in the time bin holding the interval's
 * middle. */
#include "counters_in.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counters/snap.h"
#include "profile/profile.h"

/* The port-level counts incident.json keeps, in this order (counters_in.h's fields). */
static const char *const port_keys[RP_REPLAY_CTR_PORT_KEYS] = {"rx_packets", "tx_packets", "rx_discards",
								 "tx_discards", "cnp_sent", "cnp_handled",
								 "ecn_ce_received"};

bool rp_replay_is_counters(const char *path)
{
	FILE *f = fopen(path, "r");
	char buf[4096];
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
	if (f)
		fclose(f);
	buf[n] = '\0';
	size_t i = 0;
	while (i < n && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\r' || buf[i] == '\n'))
		i++;
	return i < n && buf[i] == '{' && strstr(buf + i, "\"roceprobe.counters/1\"") != NULL;
}

static const struct rp_switch_src *profile_switch(const struct rp_profile *p, const char *source)
{
	for (size_t i = 0; i < p->nswitches; i++)
		if (strcmp(p->switches[i].source, source) == 0 || strcmp(p->switches[i].name, source) == 0)
			return &p->switches[i];
	return NULL;
}

static bool profile_host(const struct rp_profile *p, const char *name)
{
	for (size_t i = 0; i < p->nhosts; i++)
		if (strcmp(p->hosts[i].name, name) == 0)
			return true;
	return false;
}

/* A source of another fabric: one line. NIC sources (ethtool:, sysfs:, rdma:,
 * their files) name an interface, not a host: taken as given. */
static int check_source(const struct rp_replay_fabric_check *fc, const struct rp_cnt_snap *s, const char *file,
			char *err, size_t errlen)
{
	const struct rp_profile *p = fc->prof;
	const char *src = s->source;
	if (strncmp(src, "lab:", 4) == 0) {
		const char *name = src + 4;
		int np = fc->switch_nports ? fc->switch_nports(p, name) : -1;
		bool host = profile_host(p, name);
		if (np < 0 && !host) {
			snprintf(err, errlen, "%s: counters of '%s', which is none of the fabric's switches or hosts: counters "
				 "of another fabric (give the incident's --fabric)", file, src);
			return -1;
		}
		for (size_t i = 0; i < s->nports; i++) {
			const char *pn = s->port[i].name;
			char *end;
			unsigned long k = strncmp(pn, "Ethernet", 8) == 0 ? strtoul(pn + 8, &end, 10) : ULONG_MAX;
			bool ok = host ? strcmp(pn, name) == 0 : k != ULONG_MAX && !*end && pn[8] && k < (unsigned long)np;
			if (!ok) {
				snprintf(err, errlen, "%s: %s has no port '%s' in the fabric (%s): counters of another fabric",
					 file, src, pn, host ? "a host's port is its name" : "its ports are Ethernet0..");
				return -1;
			}
		}
		return 0;
	}
	bool nic = !strncmp(src, "ethtool", 7) || !strncmp(src, "sysfs:", 6) || !strncmp(src, "rdma", 4);
	const struct rp_switch_src *sw = nic ? NULL : profile_switch(p, src);
	if (nic)
		return 0;
	if (!sw) {
		snprintf(err, errlen, "%s: counters of '%s', which is none of the fabric's switches (its switches: "
			 "section's sources): counters of another fabric", file, src);
		return -1;
	}
	for (size_t i = 0; sw->nports && i < s->nports; i++) {
		bool ok = false;
		for (size_t j = 0; j < sw->nports && !ok; j++)
			ok = strcmp(sw->ports[j].port, s->port[i].name) == 0;
		if (!ok) {
			snprintf(err, errlen, "%s: switch %s has no port '%s' in the fabric's switches: section", file,
				 sw->name, s->port[i].name);
			return -1;
		}
	}
	return 0;
}

static struct rp_replay_ctr_port *port_of(struct rp_replay_counters *c, const char *source, const char *name)
{
	for (size_t i = 0; i < c->nports; i++)
		if (!strcmp(c->ports[i].source, source) && !strcmp(c->ports[i].name, name))
			return &c->ports[i];
	struct rp_replay_ctr_port *n = realloc(c->ports, (c->nports + 1) * sizeof(*n));
	if (!n)
		return NULL;
	c->ports = n;
	struct rp_replay_ctr_port *p = &c->ports[c->nports];
	memset(p, 0, sizeof(*p));
	snprintf(p->source, sizeof(p->source), "%s", source);
	snprintf(p->name, sizeof(p->name), "%s", name);
	for (int q = 0; q < 8; q++) {
		p->prio[q].rx_bins = calloc(c->nbins + 1, sizeof(uint64_t));
		p->prio[q].tx_bins = calloc(c->nbins + 1, sizeof(uint64_t));
		if (!p->prio[q].rx_bins || !p->prio[q].tx_bins) {
			c->nports++; /* freed with the rest */
			return NULL;
		}
	}
	c->nports++;
	return p;
}

static void port_count(struct rp_replay_ctr_port *p, const char *name, uint64_t v)
{
	for (int k = 0; k < RP_REPLAY_CTR_PORT_KEYS; k++)
		if (strcmp(name, port_keys[k]) == 0) {
			p->count[k] += v;
			p->has |= 1u << k;
		}
}

/* One port of a line: counts of a delta (into bin b, or none when b < 0),
 * gauges of both kinds. */
static void take(struct rp_replay_ctr_port *p, const struct rp_cnt_port *in, bool delta, long b)
{
	for (size_t k = 0; k < in->n; k++) {
		const struct rp_cnt_val *v = &in->v[k];
		bool gauge = v->cls == RP_CNT_GAUGE;
		if (!gauge && (!delta || v->reset))
			continue;
		if (v->scope == RP_CNT_AT_PORT && v->cls == RP_CNT_KEY && v->prio < 0) {
			port_count(p, v->name, v->value);
		} else if (v->scope == RP_CNT_AT_PORT && v->cls == RP_CNT_KEY && v->prio < 8) {
			struct rp_replay_ctr_prio *q = &p->prio[v->prio];
			bool rx = !strcmp(v->name, "pfc_rx"), tx = !strcmp(v->name, "pfc_tx");
			if (!rx && !tx)
				continue;
			p->prio_seen |= (uint8_t)(1u << v->prio);
			*(rx ? &q->pfc_rx : &q->pfc_tx) += v->value;
			if (b >= 0)
				(rx ? q->rx_bins : q->tx_bins)[b] += v->value;
		} else if ((v->scope == RP_CNT_AT_QUEUE || v->scope == RP_CNT_AT_PG) && v->prio >= 0 && v->prio < 8) {
			struct rp_replay_ctr_obj *o = v->scope == RP_CNT_AT_QUEUE ? &p->queue[v->prio] : &p->pg[v->prio];
			o->seen = true;
			if (!gauge && !strcmp(v->name, "drops"))
				o->drops += v->value;
			else if (!gauge && !strcmp(v->name, "ecn_marked"))
				o->ecn_marked += v->value;
			else if (gauge && strstr(v->name, "headroom_wm_bytes") && v->value > o->headroom_wm_bytes)
				o->headroom_wm_bytes = v->value;
			else if (gauge && strstr(v->name, "shared_wm_bytes") && v->value > o->wm_bytes)
				o->wm_bytes = v->value;
		}
	}
}

static int read_file(struct rp_replay_counters *c, size_t fi, const struct rp_replay_fabric_check *fc, char *err,
		     size_t errlen)
{
	const char *path = c->files[fi];
	FILE *f = fopen(path, "r");
	if (!f) {
		snprintf(err, errlen, "%s: cannot read it", path);
		return -1;
	}
	static struct rp_cnt_snap s;
	char *line = NULL, why[300];
	size_t cap = 0;
	ssize_t len;
	int rc = 0;
	while (rc == 0 && (len = getline(&line, &cap, f)) > 0) {
		bool delta;
		uint64_t iv;
		if (len == 1 && line[0] == '\n')
			continue;
		c->lines[fi]++;
		if (rp_cnt_json_read(line, (size_t)len, &s, &delta, &iv, why, sizeof(why))) {
			snprintf(err, errlen, "%s: line %llu: %s", path, (unsigned long long)c->lines[fi], why);
			rc = -1;
			break;
		}
		if (fc && check_source(fc, &s, path, err, errlen)) {
			rc = -1;
			break;
		}
		uint64_t t0 = s.t_ns > iv ? s.t_ns - iv : 0, mid = t0 + iv / 2;
		c->first_ns = t0 < c->first_ns ? t0 : c->first_ns;
		c->last_ns = s.t_ns > c->last_ns ? s.t_ns : c->last_ns;
		long b = delta && mid >= c->bin0_ns && (mid - c->bin0_ns) / c->bin_ns < c->nbins
				 ? (long)((mid - c->bin0_ns) / c->bin_ns) : -1;
		for (size_t i = 0; i < s.nports; i++) {
			struct rp_replay_ctr_port *p = port_of(c, s.source, s.port[i].name);
			if (!p) {
				snprintf(err, errlen, "out of memory reading %s", path);
				rc = -1;
				break;
			}
			take(p, &s.port[i], delta, b);
		}
	}
	free(line);
	fclose(f);
	rp_cnt_snap_free(&s);
	if (rc == 0 && c->lines[fi] == 0) {
		snprintf(err, errlen, "%s: an empty counter series (no line)", path);
		rc = -1;
	}
	return rc;
}

int rp_replay_counters_read(struct rp_replay_counters *c, const char *const *paths, size_t n,
			    const struct rp_replay_evidence *ev, const struct rp_replay_fabric_check *fc, char *err,
			    size_t errlen)
{
	const struct rp_ts *ts = rp_acct_timeseries(ev->acct);
	*c = (struct rp_replay_counters){.first_ns = UINT64_MAX, .bin0_ns = ev->first_ns, .bin_ns = ev->bin_ns,
					 .nbins = ts ? rp_ts_nbins(ts) : 0};
	if (n > RP_REPLAY_MAX_COUNTER_FILES) {
		snprintf(err, errlen, "at most %d counter series (%zu given)", RP_REPLAY_MAX_COUNTER_FILES, n);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		c->files[c->nfiles++] = paths[i];
		if (read_file(c, i, fc, err, errlen))
			goto fail;
	}
	if (c->last_ns < ev->first_ns || c->first_ns > ev->last_ns) {
		snprintf(err, errlen, "the counters' readings (t_ns %llu..%llu) do not overlap the captures' frames "
			 "(%llu..%llu ns): counters and captures of one incident, on one clock", (unsigned long long)c->first_ns,
			 (unsigned long long)c->last_ns, (unsigned long long)ev->first_ns, (unsigned long long)ev->last_ns);
		goto fail;
	}
	return 0;
fail:
	rp_replay_counters_free(c);
	return -1;
}

void rp_replay_counters_free(struct rp_replay_counters *c)
{
	for (size_t i = 0; i < c->nports; i++)
		for (int q = 0; q < 8; q++) {
			free(c->ports[i].prio[q].rx_bins);
			free(c->ports[i].prio[q].tx_bins);
		}
	free(c->ports);
	c->ports = NULL;
	c->nports = 0;
}

static json_t *bins_json(const uint64_t *b, size_t n)
{
	json_t *a = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, json_integer((json_int_t)b[i]));
	return a;
}

static json_t *objs_json(const struct rp_replay_ctr_obj *o, const char *idx, const char *wm)
{
	json_t *a = json_array();
	for (int q = 0; q < 8; q++) {
		if (!o[q].seen || !(o[q].drops || o[q].ecn_marked || o[q].wm_bytes || o[q].headroom_wm_bytes))
			continue;
		json_t *x = json_pack("{s:i, s:I, s:I}", idx, q, "drops", (json_int_t)o[q].drops, wm, (json_int_t)o[q].wm_bytes);
		if (*idx == 'q')
			json_object_set_new(x, "ecn_marked", json_integer((json_int_t)o[q].ecn_marked));
		else
			json_object_set_new(x, "headroom_wm_bytes", json_integer((json_int_t)o[q].headroom_wm_bytes));
		json_array_append_new(a, x);
	}
	return a;
}

static json_t *port_json(const struct rp_replay_counters *c, const struct rp_replay_ctr_port *p)
{
	json_t *o = json_pack("{s:s, s:s}", "source", p->source, "port", p->name), *prios = json_array();
	for (int k = 0; k < RP_REPLAY_CTR_PORT_KEYS; k++)
		if (p->has & (1u << k))
			json_object_set_new(o, port_keys[k], json_integer((json_int_t)p->count[k]));
	for (int q = 0; q < 8; q++) {
		const struct rp_replay_ctr_prio *x = &p->prio[q];
		if (!(p->prio_seen >> q & 1) || !(x->pfc_rx || x->pfc_tx))
			continue;
		json_array_append_new(prios, json_pack("{s:i, s:I, s:I, s:o, s:o}", "prio", q, "pfc_rx",
						       (json_int_t)x->pfc_rx, "pfc_tx", (json_int_t)x->pfc_tx, "pfc_rx_bins",
						       bins_json(x->rx_bins, c->nbins), "pfc_tx_bins",
						       bins_json(x->tx_bins, c->nbins)));
	}
	json_object_set_new(o, "prio", prios);
	json_object_set_new(o, "queues", objs_json(p->queue, "queue", "wm_bytes"));
	json_object_set_new(o, "pgs", objs_json(p->pg, "pg", "shared_wm_bytes"));
	return o;
}

json_t *rp_replay_counters_json(const struct rp_replay_counters *c)
{
	json_t *files = json_array(), *ports = json_array();
	for (size_t i = 0; i < c->nfiles; i++)
		json_array_append_new(files, json_pack("{s:s, s:I}", "file", c->files[i], "lines", (json_int_t)c->lines[i]));
	for (size_t i = 0; i < c->nports; i++)
		json_array_append_new(ports, port_json(c, &c->ports[i]));
	return json_pack("{s:o, s:I, s:I, s:o}", "files", files, "first_ns", (json_int_t)(c->first_ns - c->bin0_ns),
			 "last_ns", (json_int_t)(c->last_ns - c->bin0_ns), "ports", ports);
}
