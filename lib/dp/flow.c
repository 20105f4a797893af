/* Sharing a port with the kernel (dp.h enum rp_dp_share; docs/hardware.md):
 * rte_flow isolated mode, set before the port is configured, and rules that
 * steer only the run's frames to its queues. What no rule takes stays where
 * the PMD sends unmatched frames in isolated mode: the kernel's netdev on
 * mlx5's bifurcated driver (DPDK's mlx5 guide, "Flow Isolated Mode"; the
 * kernel keeps ssh, ARP, MPI and its own RDMA) and net_tap with remote=
 * (the remote netdev's own stack). Untested on mlx5 here (no NIC on this
 * machine); net_tap's rules are tc flower filters, tried in the VM lab
 * (tests/vm/tap_share.sh: the host kernel has no flower). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ethdev.h>
#include <rte_flow.h>

#include "dp.h"

#define ROCE_UDP_PORT 4791
#define MAC_CONTROL_ETHERTYPE 0x8808 /* PAUSE and PFC (802.1Qbb) */

bool rp_dp_share_wanted(enum rp_dp_share share, const char *driver)
{
	if (share != RP_DP_SHARE_AUTO)
		return share == RP_DP_SHARE_ON;
	/* A bifurcated driver: the kernel's netdev is the same port. */
	return strstr(driver, "mlx5") != NULL || strstr(driver, "mlx4") != NULL;
}

/* net_tap (DPDK 22.11) takes rte_flow_isolate() before configure as a flag
 * only: tap_flow_isolate() returns early while its first RX queue has no fd,
 * so the implicit rules it set on the remote netdev when probed (every frame
 * to the remote's MAC redirected to the tap, broadcasts mirrored) stay, and
 * the kernel loses ping, ARP replies and its UDP (seen in tests/vm/tap_share.sh:
 * 23 of 23 ICMP and UDP frames redirected). Asked once the RX queues exist, it
 * removes them and drops whatever else the tap would hand DPDK. So on net_tap
 * the port is isolated after its queues are set up (port.c), before start. */
bool rp_dp_isolate_after_queues(const char *driver)
{
	return strcmp(driver, "net_tap") == 0;
}

static const char *flow_why(const struct rte_flow_error *fe, int rc)
{
	return fe->message ? fe->message : rte_strerror(rc < 0 ? -rc : rc);
}

int rp_dp_port_isolate(struct rp_dp_port *p, char *err, size_t errlen)
{
	struct rte_flow_error fe = {0};
	int rc = rte_flow_isolate(p->id, 1, &fe);
	if (rc != 0) {
		snprintf(err, errlen,
			 "port %s (%s) cannot be shared with the kernel: the PMD refuses rte_flow isolated mode (%s); "
			 "--exclusive takes the port whole (every frame to roceprobe: the kernel's traffic on it stops)",
			 p->name, p->driver, flow_why(&fe, rc));
		return -1;
	}
	p->isolated = true;
	return 0;
}

/* Validated, then made; NULL with the PMD's reason in why. */
static struct rte_flow *make_rule(uint16_t id, const struct rte_flow_item *pattern, const struct rte_flow_action *act,
				  char *why, size_t n)
{
	static const struct rte_flow_attr attr = {.ingress = 1};
	struct rte_flow_error fe = {0};
	int rc = rte_flow_validate(id, &attr, pattern, act, &fe);
	struct rte_flow *f = rc == 0 ? rte_flow_create(id, &attr, pattern, act, &fe) : NULL;
	if (!f)
		snprintf(why, n, "%s", flow_why(&fe, rc ? rc : -rte_errno));
	return f;
}

/* The run's queues: one, or RSS over all of them on the UDP source port (the
 * flows' entropy), as the port's RSS does (port.c rss_conf). */
struct to_queues {
	struct rte_flow_action_queue queue;
	struct rte_flow_action_rss rss;
	uint16_t q[RP_DP_MAX_QUEUES];
	struct rte_flow_action act[2];
};

static void to_queues(const struct rp_dp_port *p, struct to_queues *t)
{
	memset(t, 0, sizeof(*t));
	t->act[1].type = RTE_FLOW_ACTION_TYPE_END;
	if (p->nq > 1 && p->rss) {
		for (unsigned q = 0; q < p->nq; q++)
			t->q[q] = (uint16_t)q;
		t->rss = (struct rte_flow_action_rss){.types = RTE_ETH_RSS_NONFRAG_IPV4_UDP | RTE_ETH_RSS_NONFRAG_IPV6_UDP,
						      .queue_num = p->nq, .queue = t->q};
		t->act[0] = (struct rte_flow_action){.type = RTE_FLOW_ACTION_TYPE_RSS, .conf = &t->rss};
	} else {
		t->act[0] = (struct rte_flow_action){.type = RTE_FLOW_ACTION_TYPE_QUEUE, .conf = &t->queue};
	}
}

static int keep(struct rp_dp_port *p, struct rte_flow *f)
{
	if (p->nflows == RP_DP_MAX_RULES) {
		struct rte_flow_error fe;
		rte_flow_destroy(p->id, f, &fe);
		return -1;
	}
	p->flows[p->nflows++] = f;
	return 0;
}

/* ETH / IPv4 dst / UDP dst 4791, or ETH / IPv6 dst / UDP dst 4791. */
static int steer_roce(struct rp_dp_port *p, const struct rp_dp_steer *st, bool v6, char *why, size_t n)
{
	struct rte_flow_item_ipv4 ip4 = {0}, ip4_mask = {0};
	struct rte_flow_item_ipv6 ip6 = {0}, ip6_mask = {0};
	struct rte_flow_item_udp udp = {.hdr.dst_port = rte_cpu_to_be_16(ROCE_UDP_PORT)};
	struct rte_flow_item_udp udp_mask = {.hdr.dst_port = RTE_BE16(0xffff)};
	if (v6) {
		memcpy(ip6.hdr.dst_addr, st->ip6, 16);
		memset(ip6_mask.hdr.dst_addr, 0xff, 16);
	} else {
		ip4.hdr.dst_addr = rte_cpu_to_be_32(st->ip4);
		ip4_mask.hdr.dst_addr = RTE_BE32(0xffffffff);
	}
	const struct rte_flow_item pattern[] = {
		{.type = RTE_FLOW_ITEM_TYPE_ETH},
		v6 ? (struct rte_flow_item){.type = RTE_FLOW_ITEM_TYPE_IPV6, .spec = &ip6, .mask = &ip6_mask}
		   : (struct rte_flow_item){.type = RTE_FLOW_ITEM_TYPE_IPV4, .spec = &ip4, .mask = &ip4_mask},
		{.type = RTE_FLOW_ITEM_TYPE_UDP, .spec = &udp, .mask = &udp_mask},
		{.type = RTE_FLOW_ITEM_TYPE_END},
	};
	struct to_queues t;
	to_queues(p, &t);
	struct rte_flow *f = make_rule(p->id, pattern, t.act, why, n);
	return f ? keep(p, f) : -1;
}

static int steer_pause(struct rp_dp_port *p, char *why, size_t n)
{
	struct rte_flow_item_eth eth = {.hdr.ether_type = RTE_BE16(MAC_CONTROL_ETHERTYPE)};
	struct rte_flow_item_eth eth_mask = {.hdr.ether_type = RTE_BE16(0xffff)};
	const struct rte_flow_item pattern[] = {
		{.type = RTE_FLOW_ITEM_TYPE_ETH, .spec = &eth, .mask = &eth_mask},
		{.type = RTE_FLOW_ITEM_TYPE_END},
	};
	struct rte_flow_action_queue q0 = {.index = 0};
	const struct rte_flow_action act[] = {
		{.type = RTE_FLOW_ACTION_TYPE_QUEUE, .conf = &q0},
		{.type = RTE_FLOW_ACTION_TYPE_END},
	};
	struct rte_flow *f = make_rule(p->id, pattern, act, why, n);
	return f ? keep(p, f) : -1;
}

int rp_dp_port_steer(struct rp_dp_port *p, const struct rp_dp_steer *st, char *warn, size_t warnlen, char *err,
		     size_t errlen)
{
	char why[160];
	warn[0] = '\0';
	if (!p->isolated)
		return 0;
	if (!st->has_ip4 && !st->has_ip6) {
		snprintf(err, errlen, "port %s (%s) is shared with the kernel, but its host has no address to steer "
			 "RoCEv2 frames by: give the host an ipv4: or ipv6:, or --exclusive", p->name, p->driver);
		return -1;
	}
	for (int v6 = 0; v6 < 2; v6++) {
		if (!(v6 ? st->has_ip6 : st->has_ip4) || steer_roce(p, st, v6, why, sizeof(why)) == 0)
			continue;
		snprintf(err, errlen, "port %s (%s) is shared with the kernel, but the PMD refuses the rule that steers "
			 "RoCEv2 (UDP %d to %s) to roceprobe (%s): --exclusive takes the port whole", p->name, p->driver,
			 ROCE_UDP_PORT, v6 ? "its IPv6 address" : "its IPv4 address", why);
		return -1;
	}
	/* A NIC acts on PFC in hardware and keeps its counters (run reads them:
	 * xstats); what it lets through is the run's to account, where it can. */
	if (steer_pause(p, why, sizeof(why)) != 0)
		snprintf(warn, warnlen, "port %s (%s): PFC and PAUSE frames stay with the NIC and the kernel (the PMD "
			 "refuses the rule that steers ethertype 0x8808: %s): received pauses are counted from the "
			 "port's counters alone", p->name, p->driver, why);
	else
		p->pause_steered = true;
	return 0;
}

void rp_dp_port_unsteer(struct rp_dp_port *p)
{
	struct rte_flow_error fe;
	while (p->nflows)
		rte_flow_destroy(p->id, p->flows[--p->nflows], &fe);
}
