#include "session.h"

#include <ctype.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dp/capture.h"
#include "dp/neigh.h"
#include "dp/netdev.h"
#include "dp/xdp.h"
#include "doctor/doctor.h"
#include "preflight.h"
#include "report/env_json.h"
#include "stats/progress.h"
#include "traffic/source.h"
#include "wire/ipv4.h"
#include "wire/ipv6.h"

/* The first error of a set-up: one line in s->err, RP_SESSION_USAGE. */
__attribute__((format(printf, 2, 3))) static int session_fail(struct rp_session *s, const char *fmt, ...)
{
	if (!s->err[0]) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(s->err, sizeof(s->err), fmt, ap);
		va_end(ap);
	}
	return RP_SESSION_USAGE;
}

static bool host_sends(const struct rp_plan *plan, unsigned h)
{
	for (size_t i = 0; i < plan->nflows; i++)
		if (plan->flows[i].src == h)
			return true;
	return false;
}

static bool host_receives(const struct rp_plan *plan, unsigned h)
{
	for (size_t i = 0; i < plan->nflows; i++)
		if (plan->flows[i].kind == RP_TRAFFIC_RDMA && plan->flows[i].dst == h)
			return true;
	return false;
}

static int load(struct rp_session *s, const char *profile, const struct rp_session_opts *o)
{
	char err[RP_PROFILE_ERR_LEN];
	struct rp_profile_opts po = {.sets = o->sets, .nsets = o->nsets, .allow_pause_storm = o->allow_pause_storm,
				     .nranks = o->nranks, .ranks = o->ranks};
	s->prof = o->profile_text ? rp_profile_load_string(profile, o->profile_text, &po, err, sizeof(err))
				  : rp_profile_load(profile, &po, err, sizeof(err));
	if (!s->prof)
		return session_fail(s, "%s", err);
	if (rp_plan_build(s->prof, &s->plan, err, sizeof(err)) != 0)
		return session_fail(s, "%s", err);
	s->plan_built = true;
	return 0;
}

/* A host sending on a pair: end whose other end no host of this process
 * has: nobody reads the ring its frames go to, so they count lost and the
 * run waits for them for good. false: it has one (or no pair: port). */
static bool pair_end_alone(const struct rp_session *s, const struct rp_session_opts *o, unsigned h, char peer[64])
{
	char link[RP_PAIR_LINK_MAX + 1];
	int side;
	if (rp_pair_parse(s->prof->hosts[h].port, link, &side) <= 0)
		return false;
	snprintf(peer, 64, "pair:%s:%c", link, side ? '0' : '1');
	for (unsigned j = 0; j < s->prof->nhosts; j++)
		if (!strcmp(s->prof->hosts[j].port, peer) && (!o->hosts || o->hosts[j]))
			return false;
	return true;
}

/* The hosts that take part get a port each, in host order. */
static int pick_ports(struct rp_session *s, const struct rp_session_opts *o, const char **devargs)
{
	for (unsigned h = 0; h < s->prof->nhosts; h++) {
		/* gen too opens a receiver on a pair: link, or the link's ring would fill
		 * (nobody reads it) and stall the sender; what arrives is dropped. */
		bool pair = rp_dp_is_pair(s->prof->hosts[h].port);
		bool sends = host_sends(&s->plan, h), receives = (o->receivers || pair) && host_receives(&s->plan, h);
		if ((!sends && !receives) || (o->hosts && !o->hosts[h]))
			continue;
		if (s->prof->hosts[h].engine.engine == RP_ENGINE_VERBS) { /* its QPs are lib/verbs' (cmd_run) */
			s->verbs_hosts++;
			continue;
		}
		const struct rp_host *host = &s->prof->hosts[h];
		if (host->port[0] == '\0')
			return session_fail(s, "host '%s' %s but has no port (set hosts.%u.port)", host->name,
					    sends ? "sends" : "receives", h);
		if (s->nports == RP_DP_MAX_PORTS)
			return session_fail(s, "at most %d ports", RP_DP_MAX_PORTS);
		char peer[64];
		if (sends && pair_end_alone(s, o, h, peer))
			return session_fail(s, "host '%s' sends on %s, whose other end (%s) no host%s has: nobody would "
					    "read its frames; give a host port %s", host->name, host->port, peer,
					    o->hosts ? " of this rank" : "", peer);
		s->tx[s->nports].index = h;
		s->tx[s->nports].src = NULL;
		devargs[s->nports++] = host->port;
	}
	if (s->nports == 0 && !o->hosts && !s->verbs_hosts)
		return session_fail(s, "%s: no host sends anything", s->profile_path);
	return 0;
}

/* What host h's port is, to tell two hosts on one port apart: a kernel
 * netdev (iface= of net_af_packet/net_af_xdp) or a PCI device is the
 * machine's (returns true: no two processes on it may share one); a
 * virtual device (net_ring0, net_null1, pair:L:0) is this process's. */
static bool port_key(const struct rp_host *h, char *key, size_t n)
{
	char name[64], err[256];
	size_t len = strcspn(h->port, ",");
	if (h->port_is_pci) {
		size_t colons = 0;
		for (size_t i = 0; i < len; i++)
			colons += h->port[i] == ':';
		snprintf(key, n, "PCI %s%.*s", colons < 2 ? "0000:" : "", (int)len, h->port);
		for (char *c = key; *c; c++)
			*c = (char)tolower((unsigned char)*c);
		return true;
	}
	if (rp_dp_port_netdev(h->port, false, name, sizeof(name), err, sizeof(err)) == 0) {
		snprintf(key, n, "interface %s", name);
		return true;
	}
	snprintf(key, n, "%.*s", (int)len, h->port);
	return false;
}

/* Two hosts that take part on one port: its frames would all be counted for
 * one of them (h3 given h2's iface=: lost 0, while the kernel saw h2's veth
 * send both hosts' frames and h3's none). In one process: the same port;
 * across ranks (o->host_rank): the same netdev or PCI device on one machine
 * (node). One line naming both, before any port is opened. */
static int check_shared_ports(struct rp_session *s, const struct rp_session_opts *o)
{
	size_t nh = s->prof->nhosts;
	bool *part = calloc(nh ? nh : 1, sizeof(*part)), *machine = calloc(nh ? nh : 1, sizeof(*machine));
	char(*key)[RP_PORT_MAX + 16] = calloc(nh ? nh : 1, sizeof(*key));
	int rc = part && machine && key ? 0 : session_fail(s, "out of memory for %zu hosts", nh);
	for (size_t i = 0; rc == 0 && i < s->plan.nflows; i++) {
		const struct rp_flow *f = &s->plan.flows[i];
		part[f->src] = true;
		if (f->kind == RP_TRAFFIC_RDMA && (o->receivers || rp_dp_is_pair(s->prof->hosts[f->dst].port)))
			part[f->dst] = true;
	}
	for (size_t h = 0; rc == 0 && h < nh; h++) {
		const struct rp_host *host = &s->prof->hosts[h];
		part[h] &= host->port[0] && host->engine.engine != RP_ENGINE_VERBS;
		if (part[h])
			machine[h] = port_key(host, key[h], sizeof(key[h]));
	}
	for (size_t h = 0; rc == 0 && h < nh; h++)
		for (size_t g = h + 1; rc == 0 && part[h] && g < nh; g++) {
			/* under a launcher the ranks of those hosts say it (rank 0 prints the first's) */
			if (!part[g] || strcmp(key[h], key[g]) != 0 || (o->hosts && !o->hosts[h] && !o->hosts[g]))
				continue;
			const struct rp_host *a = &s->prof->hosts[h], *b = &s->prof->hosts[g];
			int ra = o->host_rank ? o->host_rank[h] : 0, rb = o->host_rank ? o->host_rank[g] : 0;
			if (ra == rb)
				rc = session_fail(s, "hosts '%s' and '%s' are on one port (%s): its frames would all count "
						    "for one of them; give each host a port of its own", a->name, b->name, key[h]);
			else if (machine[h] && o->ranks && ra >= 0 && rb >= 0 && (size_t)ra < o->nranks &&
				 (size_t)rb < o->nranks && !strcmp(o->ranks[ra].node, o->ranks[rb].node))
				rc = session_fail(s, "hosts '%s' (rank %d) and '%s' (rank %d) are on one port of node %s (%s): "
						    "its frames would all count for one of them; give each host a port of its own",
						    a->name, ra, b->name, rb, o->ranks[ra].node, key[h]);
		}
	free(part);
	free(machine);
	free(key);
	return rc;
}

/* The longest frame (without FCS) host h sends or, in a run, receives, and
 * the MTU of the flow that makes it. */
static size_t host_frame(const struct rp_session *s, unsigned h, bool receives, unsigned *mtu)
{
	size_t most = 0;
	for (size_t i = 0; i < s->plan.nflows; i++) {
		const struct rp_flow *f = &s->plan.flows[i];
		if (f->src != h && !(receives && f->kind == RP_TRAFFIC_RDMA && f->dst == h))
			continue;
		if (rp_flow_max_frame(f) > most) {
			most = rp_flow_max_frame(f);
			*mtu = f->kind == RP_TRAFFIC_RDMA ? f->p.mtu : 0;
		}
	}
	return most;
}

/* One line when the port cannot take the profile's frames (DPDK's own
 * message would only say "Invalid argument"), with what to change. */
static int check_frame(struct rp_session *s, unsigned h, const char *devargs, bool receives)
{
	unsigned mtu = 0;
	char why[200], fix[160];
	size_t need = host_frame(s, h, receives, &mtu);
	size_t port = rp_dp_port_frame_limit(devargs, why, sizeof(why), fix, sizeof(fix));
	if (!port || need <= port)
		return 0;
	const struct rp_host *host = &s->prof->hosts[h];
	char name[64];
	snprintf(name, sizeof(name), "%.*s", (int)strcspn(devargs, ","), devargs);
	if (!fix[0])
		snprintf(fix, sizeof(fix), "or let the port take %zu B", need);
	unsigned fit = 0;
	for (unsigned m = 4096; mtu && m >= 256 && !fit; m /= 2)
		if (m < mtu && need - mtu + m <= port)
			fit = m;
	if (fit)
		return session_fail(s, "host '%s': port %s takes frames up to %zu B%s%s; the profile's mtu %u makes "
				    "frames of %zu B: set mtu: %u (frames of %zu B), %s",
				    host->name, name, port, why[0] ? ": " : "", why, mtu, need, fit, need - mtu + fit, fix);
	return session_fail(s, "host '%s': port %s takes frames up to %zu B%s%s; the profile's frames are up to %zu B: %s",
			    host->name, name, port, why[0] ? ": " : "", why, need, fix);
}

/* What the port answers ARP/ND for and probes (its host's addresses). */
static void neigh_self(struct rp_dp_txport *tp, const struct rp_host *host)
{
	tp->self = (struct rp_neigh_self){.has_ip4 = host->has_ipv4, .ip4 = host->ipv4, .has_ip6 = host->has_ipv6};
	memcpy(tp->self.mac, host->mac, 6);
	memcpy(tp->self.ip6, host->ipv6, 16);
}

/* Honest speed (doctor.h) on a PCI NIC, with the link speed the PMD
 * reports now that the port is open (the preflight saw only the kernel's,
 * and a vfio-bound NIC has no netdev): a profile speed above the link is
 * refused, one below it is one line and the link's is taken, before any
 * source is paced from it. Virtual ports report made-up speeds: never
 * asked. Untested on a real NIC here (no PCI NIC on this machine). */
static int honest_speed(struct rp_session *s, struct rp_host *host, const struct rp_dp_port *port)
{
	char what[RP_DOCTOR_TEXT], fix[RP_DOCTOR_TEXT];
	uint64_t bps;
	enum rp_doctor_status st = rp_doctor_speed_check(host->name, host->speed_bps, false, port->link_bps, &bps,
							 what, fix);
	if (st == RP_DOCTOR_FAIL)
		return session_fail(s, "host '%s': speed: port %s (%s): %s; fix: %s", host->name, port->name,
				    port->driver, what, fix);
	if (st == RP_DOCTOR_WARN)
		fprintf(stderr, "roceprobe %s: host '%s': speed: port %s (%s): %s%s%s\n", s->cmd, host->name, port->name,
			port->driver, what, *fix ? "; fix: " : "", fix);
	host->speed_bps = bps;
	return 0;
}

/* Opened before any source exists: a `mac: auto` host learns its MAC here
 * and the next hops are resolved on the open ports (resolve) before the
 * templates are built (make_sources). */
static int open_port(struct rp_session *s, unsigned i, const char *devargs, unsigned lcores)
{
	char err[RP_DP_ERRLEN];
	struct rp_dp_txport *tp = &s->tx[i];
	struct rp_host *host = &s->prof->hosts[tp->index];
	unsigned mtu;
	size_t max_frame = host_frame(s, tp->index, true, &mtu) + 64; /* the source writes in 32 B blocks */
	if (rp_dp_port_open(devargs, s->nq, s->nq, max_frame < 1518 ? 1518 : max_frame, &s->want, &s->ports[i], err,
			    sizeof(err)) != 0)
		return session_fail(s, "host '%s': %s", host->name, err);
	tp->port = &s->ports[i];
	/* roceprobe's XDP program passes ARP/ND to the kernel (its neighbour table has the
	 * answers) and hands PFC/PAUSE to the socket */
	if (s->xdp_ours[i])
		tp->port->xdp_program = tp->port->pause_steered = true;
	tp->lcore = s->nq > 1 ? rp_session_lane(s, i, 0) : i % lcores;
	if (s->nq > 1 && tp->port->nq < s->nq)
		fprintf(stderr, "roceprobe %s: port %s (%s) has %u queue%s for %u lcores: environment.lcores[%u]%s alone "
				"poll%s it (give each lcore a port of its own, or the port more queues)\n", s->cmd,
			tp->port->name, tp->port->driver, tp->port->nq, tp->port->nq == 1 ? "" : "s", s->nq, tp->lcore,
			tp->port->nq == 1 ? "" : " and the next", tp->port->nq == 1 ? "s" : "");
	if (tp->port->nq > 1 && !tp->port->rss)
		fprintf(stderr, "roceprobe %s: port %s (%s) has %u queues but no RSS on the UDP source port: which RX "
				"queue gets a frame is the PMD's choice (net_null, net_ring: all on queue 0, accounted by "
				"lcore 0 alone)\n", s->cmd, tp->port->name, tp->port->driver, tp->port->nq);
	if (host->mac_auto) {
		rp_dp_port_mac(tp->port, host->mac);
		static const uint8_t zero[6];
		if (!memcmp(host->mac, zero, 6) || (host->mac[0] & 1)) {
			char m[18];
			rp_mac_format(host->mac, m);
			return session_fail(s, "host '%s' has mac: auto, but port %s (%s) has no unicast MAC of its own "
					    "(%s): give the host a mac:", host->name, tp->port->name, tp->port->driver, m);
		}
		host->mac_known = true;
	}
	if (host->port_is_pci && honest_speed(s, host, tp->port) != 0)
		return -1;
	neigh_self(tp, host);
	rp_pause_init(&tp->pause, host->speed_bps);
	return 0;
}

static unsigned port_of(const struct rp_session *s, unsigned host)
{
	for (unsigned i = 0; i < s->nports; i++)
		if (s->tx[i].index == host)
			return i;
	return s->nports;
}

static void addr_text(uint8_t l3, uint32_t ip4, const uint8_t *ip6, char *out)
{
	if (l3 == 4)
		rp_ipv4_addr_format(ip4, out);
	else
		rp_ipv6_addr_format(ip6, out);
}

#define RESOLVE_TRIES 3
#define RESOLVE_NS 1000000000ull
#define DAD_NS 50000000ull

/* Every next hop nobody gave a MAC for, asked on its sender's port (ARP or
 * NS); wire ports probe for their own addresses and announce them. One line
 * and exit 2, before any traffic, when one stays unanswered or someone else
 * holds a host's address. */
/* The next hops of ports shared with the kernel: ARP answers go to the
 * kernel, so its neighbour table says them (netdev.h rp_dp_netdev_neigh). */
static int from_kernel(struct rp_session *s, struct rp_dp_neigh_want *want, unsigned nw)
{
	for (unsigned j = 0; j < nw; j++) {
		const struct rp_dp_txport *tp = &s->tx[want[j].port];
		const struct rp_host *h = &s->prof->hosts[tp->index];
		char name[64], err[256], a[46];
		if (!rp_dp_port_kernel_shared(tp->port))
			continue;
		addr_text(want[j].l3, want[j].ip4, want[j].ip6, a);
		if (rp_dp_port_netdev(h->port, h->port_is_pci, name, sizeof(name), err, sizeof(err)) != 0 ||
		    rp_dp_netdev_neigh(name, want[j].l3, want[j].ip4, want[j].ip6, h->ipv4, h->ipv6, want[j].mac,
				       RESOLVE_NS / 1000000, err, sizeof(err)) != 0)
			return session_fail(s, "host '%s': port %s is shared with the kernel, which hears its ARP/ND answers: "
					    "%s's MAC from the kernel: %s (give mac:, gateway_mac:)", h->name,
					    tp->port->name, a, err);
		want[j].resolved = true;
	}
	return 0;
}

static int resolve(struct rp_session *s, struct rp_capture *const *caps)
{
	static struct rp_dp_neigh_want want[4096];
	unsigned nw = 0;
	bool announce[RP_DP_MAX_PORTS];
	for (unsigned i = 0; i < s->nports; i++) /* a shared port's addresses are the kernel's to defend */
		announce[i] = rp_dp_port_is_wire(s->tx[i].port) && !rp_dp_port_kernel_shared(s->tx[i].port);
	for (size_t k = 0; k < s->plan.nflows; k++) {
		const struct rp_flow *f = &s->plan.flows[k];
		unsigned p = port_of(s, f->src);
		if (f->kind != RP_TRAFFIC_RDMA || f->nh.mac_known || p == s->nports)
			continue;
		unsigned j = 0;
		while (j < nw && !(want[j].port == p && want[j].l3 == f->nh.l3 &&
				   (f->nh.l3 == 4 ? want[j].ip4 == f->nh.ip4 : !memcmp(want[j].ip6, f->nh.ip6, 16))))
			j++;
		if (j < nw)
			continue;
		if (nw == sizeof(want) / sizeof(want[0]))
			return session_fail(s, "more than %u next hops to resolve", nw);
		want[nw] = (struct rp_dp_neigh_want){.port = p, .l3 = f->nh.l3, .ip4 = f->nh.ip4};
		memcpy(want[nw++].ip6, f->nh.ip6, 16);
	}
	if (from_kernel(s, want, nw) != 0)
		return -1;
	struct rp_dp_neigh_opts no = {.timeout_ns = RESOLVE_NS, .tries = RESOLVE_TRIES, .dad_ns = DAD_NS};
	struct rp_neigh_rx conflict;
	unsigned cport = 0;
	if (nw)
		rp_session_stage(s, "ARP/ND");
	rp_dp_clock_start();
	for (unsigned i = 0; caps && i < s->nports; i++)
		if (caps[i])
			rp_capture_clock_restarted(caps[i]);
	int rc = rp_dp_neigh_resolve(s->tx, s->nports, announce, want, nw, &no, &conflict, &cport, caps);
	char a[46], m[18];
	if (rc == 2) {
		addr_text(conflict.l3, conflict.ip4, conflict.ip6, a);
		rp_mac_format(conflict.mac, m);
		return session_fail(s, "host '%s': its address %s is also held by %s, which answered %s on port %s: "
				    "give every station its own address", rp_session_host(s, &s->tx[cport]), a, m,
				    conflict.l3 == 4 ? "ARP" : "Neighbour Discovery", s->tx[cport].port->name);
	}
	for (unsigned j = 0; j < nw; j++) {
		if (want[j].resolved)
			continue;
		const struct rp_dp_txport *tp = &s->tx[want[j].port];
		const struct rp_host *h = &s->prof->hosts[tp->index];
		bool gw = want[j].l3 == 4 ? h->has_gw4 && h->gw4 == want[j].ip4
					  : h->has_gw6 && !memcmp(h->gw6, want[j].ip6, 16);
		addr_text(want[j].l3, want[j].ip4, want[j].ip6, a);
		return session_fail(s, "host '%s': no answer to %s for %s (%s) on port %s within %.0f ms (%u tries): "
				    "check that %s is up on that link with that address%s", h->name,
				    want[j].l3 == 4 ? "ARP" : "Neighbour Solicitation", a, gw ? "its gateway" : "on its link",
				    tp->port->name, RESOLVE_NS / 1e6, RESOLVE_TRIES, gw ? "the router" : "it",
				    gw ? ", or give gateway_mac:" : "");
	}
	for (size_t k = 0; k < s->plan.nflows; k++) {
		struct rp_flow *f = &s->plan.flows[k];
		unsigned p = port_of(s, f->src);
		for (unsigned j = 0; f->kind == RP_TRAFFIC_RDMA && !f->nh.mac_known && j < nw; j++)
			if (want[j].port == p && want[j].l3 == f->nh.l3 &&
			    (f->nh.l3 == 4 ? want[j].ip4 == f->nh.ip4 : !memcmp(want[j].ip6, f->nh.ip6, 16))) {
				memcpy(f->nh.mac, want[j].mac, 6);
				f->nh.mac_known = true;
			}
	}
	for (unsigned i = 0; i < s->nports; i++) /* a shared port hears no answers: the kernel keeps them */
		if (rp_dp_neigh_keep(&s->tx[i], i, want, nw,
				     rp_dp_port_kernel_shared(s->tx[i].port) ? 0 : s->neigh_refresh_ns) != 0)
			return session_fail(s, "out of memory");
	return 0;
}

/* Queue q of port i (q > 0): the port's entry, its own TX and RX queue q,
 * lcore q, nothing counted yet, no next hops of its own (the port's queue 0
 * asks them; gen.c follows its MAC changes). */
static void queue_entry(struct rp_session *s, unsigned i, unsigned q)
{
	struct rp_dp_txport *home = &s->tx[i], *tp = &s->tx[q * s->nports + i];
	*tp = (struct rp_dp_txport){.port = home->port, .index = home->index, .txq = (uint16_t)q, .rxq = (uint16_t)q,
				    .lcore = q < home->port->nq ? rp_session_lane(s, i, q) : RP_DP_NO_LCORE,
				    .home = home, .self = home->self,
				    .refresh = {.next_ns = UINT64_MAX}};
	rp_pause_init(&tp->pause, home->pause.link_bps);
}

/* Flow j of a host (in plan order) is sent by queue j % (its port's queues). */
static int make_sources(struct rp_session *s)
{
	char err[RP_DP_ERRLEN];
	rp_session_stage(s, "packet sources");
	uint32_t *ids = calloc(s->plan.nflows + 1, sizeof(*ids));
	if (!ids)
		return session_fail(s, "out of memory");
	int rc = 0;
	for (unsigned i = 0; rc == 0 && i < s->nports; i++) {
		for (unsigned q = 1; q < s->nq; q++)
			queue_entry(s, i, q);
		const struct rp_host *host = &s->prof->hosts[s->tx[i].index];
		unsigned nq = s->tx[i].port->nq;
		for (unsigned q = 0; rc == 0 && q < nq; q++) {
			struct rp_dp_txport *tp = &s->tx[q * s->nports + i];
			size_t n = 0, j = 0;
			for (size_t f = 0; f < s->plan.nflows; f++)
				if (s->plan.flows[f].src == tp->index && j++ % nq == q)
					ids[n++] = (uint32_t)f;
			if (n && !(tp->src = rp_source_create_flows(&s->plan, ids, n, NULL, err, sizeof(err))))
				rc = session_fail(s, "host '%s': %s", host->name, err);
			else if (n && !(tp->flow_unsent = calloc(n, sizeof(*tp->flow_unsent))))
				rc = session_fail(s, "out of memory");
			else if (n && !rp_dp_gen_kept_pools(tp, err, sizeof(err)))
				fprintf(stderr, "roceprobe %s: host '%s': %s\n", s->cmd, host->name, err);
		}
	}
	free(ids);
	return rc;
}

/* `ipv4/ipv6: netdev` of the hosts this process runs, from their ports' Linux netdevs. */
static int read_netdevs(struct rp_session *s, const struct rp_session_opts *o)
{
	for (unsigned h = 0; h < s->prof->nhosts; h++) {
		struct rp_host *host = &s->prof->hosts[h];
		char name[64], err[256];
		uint32_t ip4 = 0;
		uint8_t ip6[16] = {0}, plen4 = RP_PLEN_NONE, plen6 = RP_PLEN_NONE;
		if (!host->ip_pending || (o->hosts && !o->hosts[h]))
			continue;
		if (rp_dp_port_netdev(host->port, host->port_is_pci, name, sizeof(name), err, sizeof(err)) != 0 ||
		    (host->ipv4_netdev && rp_dp_netdev_addr(name, 4, &ip4, NULL, &plen4, err, sizeof(err)) != 0) ||
		    (host->ipv6_netdev && rp_dp_netdev_addr(name, 6, NULL, ip6, &plen6, err, sizeof(err)) != 0))
			return session_fail(s, "host '%s' takes its %s from its port's netdev: %s", host->name,
					    host->ipv4_netdev ? "ipv4" : "ipv6", err);
		rp_host_addr_set_netdev(host, host->ipv4_netdev ? &ip4 : NULL, plen4, host->ipv6_netdev ? ip6 : NULL, plen6);
	}
	return 0;
}

int rp_session_addresses(struct rp_session *s)
{
	char err[RP_PROFILE_ERR_LEN];
	if (rp_profile_addrs_check(s->prof, err, sizeof(err)) != 0)
		return session_fail(s, "%s", err);
	bool learnt = rp_profile_has_netdev(s->prof);
	for (size_t h = 0; h < s->prof->nhosts; h++)
		learnt |= s->prof->hosts[h].mac_auto && s->prof->hosts[h].mac_known;
	if (!learnt)
		return 0;
	for (unsigned i = 0; i < s->nports; i++) /* its netdev address is read after the port opened */
		neigh_self(&s->tx[i], &s->prof->hosts[s->tx[i].index]);
	/* Planned before the ports told their MACs and the netdevs their addresses:
	 * a known mac: auto destination is not asked by ARP/ND (mac_from "port"). */
	rp_plan_free(&s->plan);
	s->plan_built = false;
	if (rp_plan_build(s->prof, &s->plan, err, sizeof(err)) != 0)
		return session_fail(s, "%s", err);
	s->plan_built = true;
	return 0;
}

/* --share: each net_af_xdp port gets roceprobe's XDP program (lib/dp/xdp.h),
 * written to a file of this run's, as devargs xdp_prog=FILE, unless its
 * devargs name a program of their own (one line: that one stays). AUTO and
 * EXCLUSIVE leave DPDK's default program (every frame to the socket). */
static int share_devargs(struct rp_session *s, const struct rp_session_opts *o, const char **devargs)
{
	for (unsigned i = 0; o->share == RP_DP_SHARE_ON && i < s->nports; i++) {
		const struct rp_host *host = &s->prof->hosts[s->tx[i].index];
		int name = (int)strcspn(devargs[i], ",");
		char val[8], err[RP_DP_ERRLEN], with[sizeof(s->devargs[i])];
		const char *at = NULL;
		if (!rp_dp_is_af_xdp(devargs[i]))
			continue;
		if (rp_dp_devarg_next(devargs[i], "xdp_prog", &at, val, sizeof(val))) {
			fprintf(stderr, "roceprobe %s: host '%s': --share leaves port %.*s the xdp_prog= its devargs name "
					"(that program decides which frames reach the run and which the kernel)\n",
				s->cmd, host->name, name, devargs[i]);
			continue;
		}
		if (!s->xdp_prog[0] && rp_dp_xdp_write_prog(s->xdp_prog, sizeof(s->xdp_prog), err, sizeof(err)) != 0)
			return session_fail(s, "host '%s': --share on port %.*s: %s", host->name, name, devargs[i], err);
		if ((size_t)snprintf(with, sizeof(with), "%s,xdp_prog=%s", devargs[i], s->xdp_prog) >= sizeof(with))
			return session_fail(s, "host '%s': --share on port %.*s: its devargs and xdp_prog=%s are longer than "
					    "%zu B", host->name, name, devargs[i], s->xdp_prog, sizeof(with) - 1);
		memcpy(s->devargs[i], with, sizeof(with));
		devargs[i] = s->devargs[i];
		s->xdp_ours[i] = true;
	}
	return 0;
}

/* --share: the addresses of port i's host go in the maps of roceprobe's XDP
 * program there (attached when the port opened; until then it passes every
 * frame to the kernel). */
static int share_addrs(struct rp_session *s, unsigned i)
{
	const struct rp_host *host = &s->prof->hosts[s->tx[i].index];
	char ifname[64], err[RP_DP_ERRLEN];
	if (rp_dp_port_netdev(host->port, false, ifname, sizeof(ifname), err, sizeof(err)) != 0 ||
	    rp_dp_xdp_set_addrs(ifname, &host->ipv4, host->has_ipv4, (const uint8_t(*)[16])host->ipv6, host->has_ipv6,
				err, sizeof(err)) != 0)
		return session_fail(s, "host '%s': --share on port %s: %s", host->name, s->tx[i].port->name, err);
	return 0;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#define SETUP_SAY_NS 1000000000u

void rp_session_stage(struct rp_session *s, const char *name)
{
	uint64_t now = mono_ns();
	if (s->setup_quiet || !s->setup_t0_ns || now - s->setup_t0_ns < SETUP_SAY_NS)
		return;
	fprintf(stderr, "%s: set-up: %s (%.1f s in)\n", s->cmd, name, (double)(now - s->setup_t0_ns) / 1e9);
}

int rp_session_open(struct rp_session *s, const char *cmd, const char *profile, const struct rp_session_opts *o)
{
	s->err[0] = '\0';
	s->cmd = cmd;
	s->setup_t0_ns = mono_ns();
	s->setup_quiet = o->hosts != NULL;
	s->want = (struct rp_dp_port_want){.share = o->share, .rx_clock = o->receivers ? o->rx_clock : RP_DP_RXCLK_POLL,
				   .tx_start = o->tx_start};
	s->profile_path = profile;
	s->nq = 1; /* a rank of verbs hosts only returns before the queues are known: it still has one accountant */
	if (o->neigh_refresh_ns == RP_SESSION_NO_REFRESH)
		s->neigh_refresh_ns = 0;
	else
		s->neigh_refresh_ns = o->neigh_refresh_ns ? o->neigh_refresh_ns : RP_DP_NEIGH_REFRESH_NS;
	const char *devargs[RP_DP_MAX_PORTS];
	char err[RP_DP_ERRLEN];
	int rc = load(s, profile, o);
	if (rc == 0)
		rc = check_shared_ports(s, o);
	if (rc == 0)
		rc = pick_ports(s, o, devargs);
	if (rc != 0)
		return rc;
	/* net_af_packet gets ring frames long enough for the profile's frames. */
	for (unsigned i = 0; i < s->nports; i++) {
		unsigned mtu;
		devargs[i] = rp_dp_devargs_fit(devargs[i], host_frame(s, s->tx[i].index, true, &mtu), s->devargs[i],
					       sizeof(s->devargs[i]));
	}
	if ((rc = share_devargs(s, o, devargs)) != 0)
		return rc;
	if (s->verbs_hosts && !o->receivers)
		return session_fail(s, "%s: hosts with engine: verbs run their QPs under `roceprobe run`, not `%s`",
				    profile, cmd);
	bool huge_said;
	rp_session_stage(s, "preflight checks");
	if ((rc = rp_session_preflight(s, o, &huge_said)) != 0)
		return rc;
	if (s->nports == 0 && s->verbs_hosts)
		return 0; /* only verbs hosts here: no DPDK at all */
	if (o->stop && *o->stop) /* a rank stopping during set-up: no EAL to start and clean up */
		return 0;
	/* run: --lcores, else the profile's `lcores:` */
	unsigned q = o->queues ? o->queues : o->receivers ? (unsigned)s->prof->lcores : 0;
	s->nq = q > 1 ? q : 1;
	struct rp_dp_eal_opts eo = {.devargs = devargs, .n_devargs = s->nports, .user_eal = o->eal,
				    .no_telemetry = o->no_telemetry,
				    .lcores = s->nq > 1 ? s->nq : o->lcores ? o->lcores : 1, .who = cmd,
				    .first_core = o->first_core * s->nq, .main_idle = s->nq > 1, .huge_said = huge_said};
	rp_session_stage(s, "DPDK EAL start");
	if (rp_dp_eal_init(&eo, err, sizeof(err)) != 0)
		return session_fail(s, "%s", err);
	s->eal_up = true;
	/* A user's --eal "-l ..." may give fewer: said before anything is made. */
	unsigned need = s->nq > 1 ? s->nq + 1 : eo.lcores;
	if (rp_dp_lcore_count() < need)
		return session_fail(s, "%u lcores asked%s, the EAL runs %u (--eal \"%s\"): give it %u cores, or no -l/-c/--lcores "
				    "in --eal (roceprobe picks them)", s->nq > 1 ? s->nq : eo.lcores,
				    s->nq > 1 ? " plus a main lcore that only sleeps" : "", rp_dp_lcore_count(),
				    o->eal ? o->eal : "", need);
	for (unsigned i = 0; i < s->nports; i++)
		if ((rc = check_frame(s, s->tx[i].index, devargs[i], o->receivers)) != 0)
			return rc;
	rp_session_stage(s, "ports");
	for (unsigned i = 0; i < s->nports; i++)
		if ((rc = open_port(s, i, devargs[i], eo.lcores)) != 0)
			return rc;
	rp_dp_xdp_remove_prog(s->xdp_prog); /* every port loaded it */
	if ((rc = read_netdevs(s, o)) != 0 || o->defer_traffic)
		return rc;
	return (rc = rp_session_addresses(s)) != 0 ? rc : rp_session_traffic(s, NULL);
}

/* A port shared with the kernel takes its host's RoCEv2 frames (and
 * PFC/PAUSE where the PMD can) once the host's addresses are known:
 * DPDK flow rules, or on net_af_xdp the maps of roceprobe's XDP program. */
static int steer(struct rp_session *s)
{
	for (unsigned i = 0; i < s->nports; i++) {
		const struct rp_host *host = &s->prof->hosts[s->tx[i].index];
		if (s->xdp_ours[i]) {
			if (share_addrs(s, i) != 0)
				return RP_SESSION_USAGE;
			continue;
		}
		struct rp_dp_steer st = {.has_ip4 = host->has_ipv4, .ip4 = host->ipv4, .has_ip6 = host->has_ipv6};
		memcpy(st.ip6, host->ipv6, 16);
		char warn[RP_DP_ERRLEN], err[RP_DP_ERRLEN];
		if (rp_dp_port_steer(&s->ports[i], &st, warn, sizeof(warn), err, sizeof(err)) != 0)
			return session_fail(s, "host '%s': %s", host->name, err);
		if (warn[0])
			fprintf(stderr, "roceprobe %s: host '%s': %s\n", s->cmd, host->name, warn);
	}
	return 0;
}

int rp_session_traffic(struct rp_session *s, struct rp_capture *const *caps)
{
	int rc = steer(s);
	if (rc == 0)
		rc = resolve(s, caps);
	return rc ? rc : make_sources(s);
}

void rp_session_close(struct rp_session *s)
{
	rp_dp_xdp_remove_prog(s->xdp_prog); /* a set-up that stopped before the ports */
	for (unsigned i = 0; i < s->nports; i++)
		if (s->tx[i].port)
			rp_dp_port_close(s->tx[i].port);
	for (unsigned i = 0; i < rp_session_nqueues(s); i++) {
		rp_source_destroy(s->tx[i].src);
		s->tx[i].src = NULL;
		free(s->tx[i].flow_unsent);
		s->tx[i].flow_unsent = NULL;
		if (!s->tx[i].home)
			rp_dp_neigh_forget(&s->tx[i]);
	}
	if (s->eal_up)
		rp_dp_eal_cleanup();
	if (s->plan_built)
		rp_plan_free(&s->plan);
	rp_profile_free(s->prof);
}

const char *rp_session_host(const struct rp_session *s, const struct rp_dp_txport *tp)
{
	return s->prof->hosts[tp->index].name;
}

double rp_l1_gbps(uint64_t packets, uint64_t bytes, uint64_t ns)
{
	return ns ? (double)(bytes + 24 * packets) * 8 / (double)ns : 0.0;
}

uint64_t rp_flow_active_ns(const struct rp_source_flow_stats *st)
{
	return st->last_tx_ns - st->first_tx_ns;
}

double rp_flow_active_gbps(const struct rp_source_flow_stats *st)
{
	return rp_l1_gbps(st->span_packets, st->span_bytes, rp_flow_active_ns(st));
}

/* Inside one burst window or phase a flow runs at its peak; over whole
 * periods at its long-run average (less, and so fewer warnings, for spans
 * in between). */
double rp_flow_planned_gbps(const struct rp_flow *f, const struct rp_source_flow_stats *st)
{
	if (f->kind != RP_TRAFFIC_RDMA)
		return 0.0;
	if (!f->pace.period_ns || f->peak_bps <= 0)
		return f->avg_bps / 1e9;
	/* The window: on time of on/off bursts, or a phase's messages. */
	double window = f->pace.on_ns ? (double)f->pace.on_ns : (double)f->pace.burst_msgs * (double)f->pace.msg_ns;
	double at_peak = (double)(st->span_bytes + 24 * st->span_packets) * 8e9 / f->peak_bps;
	return (at_peak <= window ? f->peak_bps : f->avg_bps) / 1e9;
}

#define RATE_SHORT 0.99 /* warn below 99% of the plan */

/* Why a flow on port tp fell behind, most likely first. */
static void short_cause(const struct rp_session *s, const struct rp_dp_txport *tp, const struct rp_flow *f,
			double want_gbps, char *buf, size_t n)
{
	const struct rp_pause *gate = tp->home ? &tp->home->pause : &tp->pause;
	uint64_t paused = rp_pause_paused_ns(gate, f->prio, s->g.end_ns);
	unsigned on_lcore = 0;
	for (unsigned i = 0; i < rp_session_nqueues(s); i++)
		on_lcore += s->tx[i].src && s->tx[i].lcore == tp->lcore;
	if (paused)
		snprintf(buf, n, "PFC/PAUSE held priority %u for %.3f ms", f->prio, (double)paused / 1e6);
	else if (s->prof->hosts[tp->index].port_is_pci && tp->port->link_bps &&
		 (double)tp->port->link_bps < want_gbps * 1e9) /* virtual PMDs report a speed they do not keep */
		snprintf(buf, n, "the port's link is %.3f Gbit/s (%s)", (double)tp->port->link_bps / 1e9, tp->port->driver);
	else if (tp->tx_full && rp_dp_is_pair(tp->port->name))
		snprintf(buf, n, "the other end: %s's ring toward it was full %" PRIu64 " times (it receives slower "
				 "than this sends; pair: links and lcores: docs/profiles.md)",
			 tp->port->name, tp->tx_full);
	else if (tp->tx_full)
		snprintf(buf, n, "the PMD limit: %s's TX queue refused %" PRIu64 " bursts", tp->port->driver, tp->tx_full);
	else
		snprintf(buf, n, "the TX lcore fell behind (CPU shared with another poller, or %u sending ports on "
				 "lcore %u: try --lcores or a free core with --eal \"-l N\")", on_lcore, tp->lcore);
}

unsigned rp_session_warn_rates(const struct rp_session *s, FILE *out, const char *before)
{
	unsigned n = 0;
	for (unsigned i = 0; i < rp_session_nqueues(s); i++) {
		const struct rp_dp_txport *tp = &s->tx[i];
		for (size_t k = 0; tp->src && k < rp_source_nflows(tp->src); k++) {
			struct rp_source_flow_stats st;
			rp_source_flow_stats(tp->src, k, &st);
			const struct rp_flow *f = &s->plan.flows[st.flow_id];
			double want = rp_flow_planned_gbps(f, &st), got = rp_flow_active_gbps(&st);
			if (f->kind != RP_TRAFFIC_RDMA || st.span_packets == 0 || got >= RATE_SHORT * want)
				continue;
			char cause[256];
			short_cause(s, tp, f, want, cause, sizeof(cause));
			if (out && n == 0 && before)
				fputs(before, out);
			if (out)
				fprintf(out,
					"roceprobe %s: warning: flow %u (%s -> %s) sent %.3f of its planned %.3f Gbit/s "
					"on the wire (layer 1: frames with preamble and gap, as rate: counts; %.1f%% "
					"short) over its %.3f ms; likely cause: %s\n",
					s->cmd, f->id, s->prof->hosts[f->src].name, s->prof->hosts[f->dst].name, got,
					want, 100.0 * (1.0 - got / want), (double)rp_flow_active_ns(&st) / 1e6, cause);
			n++;
		}
	}
	return n;
}

static double paused_pct(const struct rp_dp_txport *tp, uint64_t now_ns)
{
	uint64_t most = 0;
	for (unsigned p = 0; p < RP_PFC_PRIOS; p++) {
		uint64_t ns = rp_pause_paused_ns(&tp->pause, p, now_ns);
		most = ns > most ? ns : most;
	}
	return now_ns ? 100.0 * (double)most / (double)now_ns : 0.0;
}

void rp_session_port_totals(const struct rp_session *s, unsigned i, struct rp_session_port_totals *out)
{
	*out = (struct rp_session_port_totals){0};
	for (unsigned q = 0; q < (s->nq ? s->nq : 1); q++) {
		const struct rp_dp_txport *tp = &s->tx[q * s->nports + i];
		out->tx_packets += tp->tx_packets;
		out->tx_bytes += tp->tx_bytes;
		out->tx_unsent += tp->tx_unsent;
		out->tx_full += tp->tx_full;
		out->rx_frames += tp->rx_frames;
	}
}

uint64_t rp_session_lcore_packets(const struct rp_session *s, unsigned k)
{
	uint64_t n = 0;
	for (unsigned i = 0; i < rp_session_nqueues(s); i++)
		if (s->tx[i].lcore == k)
			n += s->tx[i].tx_packets + s->tx[i].rx_frames;
	return n;
}

/* Per lcore (when there are several): its packets a second and the share
 * of its passes over its queues that found work; near 100% means that
 * core is the bottleneck. */
static void progress_lcores(struct rp_session *s, const struct rp_dp_gen *g, double dt)
{
	for (unsigned k = 0; g->n_lcores > 1 && k < g->n_lcores && k < RP_DP_MAX_LCORES; k++) {
		const struct rp_dp_lcore_stats *ls = &g->lcore[k];
		uint64_t pk = rp_session_lcore_packets(s, k), passes = ls->passes, busy = ls->busy;
		uint64_t dp = passes - s->last_passes[k];
		fprintf(stderr, " | lcore %u %.2f Mpps busy %.0f%%", ls->lcore_id, (double)(pk - s->last_lcore_pkts[k]) / dt / 1e6,
			dp ? 100.0 * (double)(busy - s->last_busy[k]) / (double)dp : 0.0);
		s->last_lcore_pkts[k] = pk;
		s->last_passes[k] = passes;
		s->last_busy[k] = busy;
	}
}

/* Reads counters the TX lcores write; a torn 64-bit read cannot happen on
 * x86-64, and a progress line one burst stale is fine. */
void rp_session_progress(const struct rp_dp_gen *g, uint64_t now_ns, void *arg)
{
	struct rp_session *s = arg;
	double dt = (double)(now_ns - s->last_ns) / 1e9;
	if (!s->progress_end_set) {
		s->progress_end_ns = g->duration_ns;
		for (size_t f = 0; !g->duration_ns && f < s->plan.nflows; f++)
			if (s->plan.flows[f].end_ns != UINT64_MAX && s->plan.flows[f].end_ns > s->progress_end_ns)
				s->progress_end_ns = s->plan.flows[f].end_ns;
		s->progress_end_set = true;
	}
	/* "run    3.0s of 10.0s (30%), 7.0 s left | h0 ...": the elapsed time first, as before */
	char left[96];
	rp_progress_left((double)now_ns / 1e9, (double)s->progress_end_ns / 1e9, left, sizeof(left));
	fprintf(stderr, "%s %6.1fs%s", s->cmd, (double)now_ns / 1e9, left);
	for (unsigned i = 0; i < s->nports; i++) {
		const struct rp_dp_txport *tp = &s->tx[i];
		struct rp_session_port_totals t;
		rp_session_port_totals(s, i, &t);
		bool sends = false;
		for (unsigned q = 0; q < (s->nq ? s->nq : 1); q++)
			sends |= s->tx[q * s->nports + i].src != NULL;
		double pps = (double)(t.tx_packets - s->last_packets[i]) / dt;
		double gbps = (double)(t.tx_bytes - s->last_bytes[i]) * 8 / dt / 1e9;
		if (sends)
			fprintf(stderr, " | %s %.2f Mpps %.2f Gbit/s paused %.1f%%", rp_session_host(s, tp), pps / 1e6,
				gbps, paused_pct(tp, now_ns));
		else
			fprintf(stderr, " | %s rx %" PRIu64, rp_session_host(s, tp), t.rx_frames);
		s->last_packets[i] = t.tx_packets;
		s->last_bytes[i] = t.tx_bytes;
	}
	progress_lcores(s, g, dt);
	fputc('\n', stderr);
	s->last_ns = now_ns;
}

int rp_session_neigh_facts(const struct rp_dp_txport *tp, struct rp_env_neigh *o)
{
	const struct rp_dp_neigh_stats *n = &tp->neigh;
	const uint64_t c[RP_ENV_NEIGH_U64] = {n->arp_requests_rx, n->arp_replies_tx, n->arp_replies_rx,
					      n->arp_requests_tx, n->nd_solicits_rx, n->nd_adverts_tx,
					      n->nd_adverts_rx,   n->nd_solicits_tx, n->unsent,
					      n->refresh_tx,      n->mac_changes,    tp->refresh.interval_ns};
	*o = (struct rp_env_neigh){0};
	memcpy(o->c, c, sizeof(c));
	if (tp->refresh.n && !(o->hops = calloc(tp->refresh.n, sizeof(*o->hops))))
		return -1;
	for (unsigned k = 0; k < tp->refresh.n; k++) {
		const struct rp_dp_neigh_hop *h = &tp->refresh.hop[k];
		struct rp_env_hop *e = &o->hops[o->nhops++];
		char ip[46], mac[18], first[18];
		addr_text(h->l3, h->ip4, h->ip6, ip);
		rp_mac_format(h->mac, mac);
		rp_mac_format(h->first_mac, first);
		e->address = strdup(ip);
		e->mac = strdup(mac);
		e->resolved_mac = strdup(first);
		e->mac_changes = h->changes;
		e->last_change_ns = h->changed_ns;
		e->answers = h->answers;
		if (!e->address || !e->mac || !e->resolved_mac)
			return -1;
	}
	return 0;
}

json_t *rp_session_neigh_json(const struct rp_dp_txport *tp)
{
	struct rp_env_neigh n;
	json_t *o = rp_session_neigh_facts(tp, &n) == 0 ? rp_env_neigh_json(&n) : NULL;
	rp_env_neigh_free(&n);
	return o;
}

void rp_session_print_next_hops(const struct rp_session *s, FILE *f)
{
	for (unsigned i = 0; i < s->nports; i++) {
		const struct rp_dp_txport *tp = &s->tx[i];
		for (unsigned k = 0; k < tp->refresh.n; k++) {
			const struct rp_dp_neigh_hop *h = &tp->refresh.hop[k];
			char ip[46], mac[18], first[18];
			addr_text(h->l3, h->ip4, h->ip6, ip);
			rp_mac_format(h->mac, mac);
			rp_mac_format(h->first_mac, first);
			if (h->changes)
				fprintf(f, "next hop %s of %s: MAC %s -> %s (%" PRIu64 " change%s, last at %.3f s); its flows "
					   "followed\n",
					ip, rp_session_host(s, tp), first, mac, h->changes, h->changes == 1 ? "" : "s",
					(double)h->changed_ns / 1e9);
			else
				fprintf(f, "next hop %s of %s: MAC %s, unchanged (asked every %.3g s, %" PRIu64 " answers heard)\n",
					ip, rp_session_host(s, tp), mac, (double)tp->refresh.interval_ns / 1e9, h->answers);
		}
	}
}
