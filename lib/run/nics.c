/* Which counter sources a run's hosts have, and their sampler (nics.h). */
#include "nics.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dp/netdev.h"
#include "profile/units.h"
#include "report/rank_env.h"
#include "session.h"

/* A verbs host's RDMA device: its `device:`, else the machine's only one. */
static int rdma_device(const struct rp_host *h, char *out, size_t len, char *why, size_t whylen)
{
	if (h->engine.device[0]) {
		snprintf(out, len, "%s", h->engine.device);
		return 0;
	}
	DIR *d = opendir("/sys/class/infiniband");
	unsigned n = 0;
	for (struct dirent *e; d && (e = readdir(d));)
		if (e->d_name[0] != '.' && n++ == 0)
			snprintf(out, len, "%.63s", e->d_name);
	if (d)
		closedir(d);
	if (n == 1)
		return 0;
	snprintf(why, whylen, "engine: verbs without device: and %u RDMA devices here: which one is not known", n);
	return -1;
}

static bool takes_part(const struct rp_session *s, unsigned h)
{
	for (size_t i = 0; i < s->plan.nflows; i++)
		if (s->plan.flows[i].src == h || s->plan.flows[i].dst == h)
			return true;
	return false;
}

int rp_run_nics_start(struct rp_run_nics *n, const struct rp_session *s, const bool *hosts, uint64_t interval_ns,
		      int64_t (*now)(const void *arg), const void *arg, int64_t zero_ns, char *err, size_t errlen)
{
	memset(n, 0, sizeof(*n));
	if (!interval_ns)
		return 0;
	char name[64], why[256], spec[96];
	int rc = 0;
	for (unsigned i = 0; rc == 0 && i < s->nports; i++) {
		const struct rp_host *h = &s->prof->hosts[s->tx[i].index];
		if (rp_dp_port_netdev(h->port, h->port_is_pci, name, sizeof(name), why, sizeof(why)) != 0) {
			if (!h->port_is_pci) /* dp's line is about netdev addresses */
				snprintf(why, sizeof(why), "port %.*s has no Linux netdev (net_null, net_ring, pair: and net_pcap "
					 "are in-process): no NIC counters to read", (int)strcspn(h->port, ","), h->port);
			rc = rp_cnt_sampler_add(&n->sm, h->name, NULL, why, err, errlen);
			continue;
		}
		snprintf(spec, sizeof(spec), "ethtool:%s", name);
		rc = rp_cnt_sampler_add(&n->sm, h->name, spec, NULL, err, errlen);
		snprintf(spec, sizeof(spec), "sysfs:%s", name);
		if (rc == 0)
			rc = rp_cnt_sampler_add(&n->sm, h->name, spec, NULL, err, errlen);
	}
	for (unsigned h = 0; rc == 0 && s->verbs_hosts && h < s->prof->nhosts; h++) {
		const struct rp_host *host = &s->prof->hosts[h];
		if (host->engine.engine != RP_ENGINE_VERBS || (hosts && !hosts[h]) || !takes_part(s, h))
			continue;
		if (rdma_device(host, name, sizeof(name), why, sizeof(why)) != 0) {
			rc = rp_cnt_sampler_add(&n->sm, host->name, NULL, why, err, errlen);
			continue;
		}
		snprintf(spec, sizeof(spec), "rdma:%s", name);
		rc = rp_cnt_sampler_add(&n->sm, host->name, spec, NULL, err, errlen);
	}
	if (rc == 0)
		rc = rp_cnt_sampler_start(&n->sm, interval_ns, now, arg, zero_ns, err, errlen);
	if (rc != 0) /* no series at all rather than some */
		rp_cnt_sampler_free(&n->sm);
	return rc;
}

void rp_run_nics_stop(struct rp_run_nics *n)
{
	rp_cnt_sampler_stop(&n->sm);
}

void rp_run_nics_facts(struct rp_run_nics *n, struct rp_rank_env *e)
{
	size_t k = 0;
	rp_run_nics_stop(n);
	if (e) {
		e->nics = rp_cnt_sampler_take(&n->sm, &k);
		e->nnics = (uint32_t)k;
	}
	rp_cnt_sampler_free(&n->sm);
}

int rp_run_nics_interval(const char *arg, uint64_t *ns)
{
	char *end;
	double s = strtod(arg, &end);
	uint64_t v;
	if (end != arg && !*end && s == 0) {
		*ns = 0;
		return 0;
	}
	if (end != arg && !*end)
		v = s > 0 && s <= 3600 ? (uint64_t)(s * 1e9) : 0;
	else if (rp_parse_duration(arg, &v) != 0)
		return -1;
	if (v < 1000000 || v > 3600000000000ull)
		return -1;
	*ns = v;
	return 0;
}

void rp_run_nics_free(struct rp_run_nics *n)
{
	rp_cnt_sampler_free(&n->sm);
}
