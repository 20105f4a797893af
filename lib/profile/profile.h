/* A validated roceprobe profile: hosts, per-flow defaults and traffic entries.
 * Loaded from YAML (docs/profiles.md); every user error is one line naming
 * FILE:LINE:COL and the key. No DPDK, no printing, no exit. */
#ifndef RP_PROFILE_PROFILE_H
#define RP_PROFILE_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fabric/impair.h"
#include "names.h"
#include "stats/receiver.h"
#include "units.h"

#define RP_NAME_MAX 32
#define RP_PORT_MAX 128
#define RP_MAX_HOSTS 16384 /* NICs of a profile: host indices fit uint16_t */
#define RP_PROFILE_ERR_LEN 512
#define RP_NODE_NAME_MAX 64
#define RP_MAX_RANKS 4096
#define RP_NICS_MAX 16 /* NICs per host (`nics:`) */

/* What a host's port does on purpose to the RoCE data frames it receives
 * (`impair:`) is struct rp_impair, the link model's own settings
 * (fabric/impair.h): drop every Nth, drop a burst, CE-mark every Nth, hold
 * each frame a fixed time. Counted in arrival order from 1. */

/* How a host answers the RoCE data it receives, as a NIC's responder would. */
struct rp_responder {
	bool cnp;              /* CNP on CE-marked packets */
	bool ack;              /* ACK with MSN for AckReq packets */
	bool nak;              /* NAK (PSN sequence error) on a PSN gap */
	uint8_t cnp_dscp;      /* default 48 */
	uint64_t cnp_interval_ns; /* at most one CNP per QP per interval; default 4 us (stats/receiver.h) */
	enum rp_cnp_mode cnp_mode; /* a mark inside the interval: paper (a CNP at its end, the
				    * default) or first (forgotten); stats/receiver.h */
};

/* What carries a host's traffic (`engine:`, docs/profiles.md). */
enum rp_engine {
	RP_ENGINE_DPDK,  /* crafted RoCEv2 on a DPDK port (the default) */
	RP_ENGINE_VERBS, /* real RC QPs on an RDMA device: the NIC's own transport */
};
const char *rp_engine_name(enum rp_engine e); /* "dpdk", "verbs" */

#define RP_RDMA_DEV_MAX 64
#define RP_GID_INDEX_MAX 255
#define RP_ENGINE_MIN_MSG 24u        /* a verbs message carries the probe (wire/probe.h RP_PROBE_LEN) */
#define RP_ENGINE_MAX_MSG (1u << 20) /* a verbs message's buffer (per QP and direction) */

struct rp_host_engine {
	enum rp_engine engine;
	char device[RP_RDMA_DEV_MAX]; /* verbs: the RDMA device; "": the first one */
	int gid_index;                /* verbs: -1: the RoCE v2 GID of the host's address */
};

#define RP_PLEN_NONE 0xFF /* no prefix given: every destination is on the link */

struct rp_host {
	char name[RP_NAME_MAX];
	uint8_t mac[6];
	bool mac_auto; /* `mac: auto` (the default for `pci:`): the port's own MAC, filled when it opens */
	bool mac_known; /* mac holds the address: given, or filled by its port (its rank's, under a launcher) */
	/* `ipv4: netdev` / `ipv6: netdev`: the address and prefix of the Linux netdev
	 * behind the host's port, read by the rank that runs it when it starts
	 * (rp_host_addr_set_netdev); until then ip_pending, the address 0 and no prefix. */
	bool ipv4_netdev, ipv6_netdev;
	bool ip_pending;
	bool has_ipv4;
	uint32_t ipv4; /* host order */
	bool has_ipv6;
	uint8_t ipv6[16];
	uint8_t ipv4_plen, ipv6_plen; /* `ipv4: 10.1.0.2/24`; RP_PLEN_NONE without */
	/* The next hop for destinations outside the subnets (`gateway:`), and its
	 * MAC when the profile gives it (`gateway_mac:`; else ARP/ND finds it). */
	bool has_gw4, has_gw6, has_gw_mac;
	uint32_t gw4;
	uint8_t gw6[16];
	uint8_t gw_mac[6];
	char port[RP_PORT_MAX]; /* DPDK devargs ("net_null0") or PCI address; "" = none */
	bool port_is_pci;
	uint64_t speed_bps; /* link speed */
	struct rp_impair impair;
	struct rp_responder responder;
	/* Where the host runs under mpirun/srun (lib/cluster binds hosts to ranks):
	 * `rank: R`, or `node: NAME` (a machine's hostname; its hosts take the
	 * node's local ranks in profile order), else host i on rank i. */
	int rank;                  /* -1: not given */
	char node[RP_NODE_NAME_MAX]; /* "": not given */
	struct rp_host_engine engine; /* `engine:`, `device:`, `gid_index:` (or defaults') */
	/* The machine this entry is a NIC of (`nics:`, docs/profiles.md):
	 * prof->servers[server], its NIC number nic (0 for a one-NIC host). Every
	 * entry of hosts[] is one NIC: one port, one MAC, one link. */
	uint16_t server;
	uint16_t nic;
};

/* A profile host: NICs hosts[nic0 .. nic0 + nnics) (one for a host without
 * `nics:`; then the NIC's name is the host's). Its NICs are named HOST.NIC. */
struct rp_server {
	char name[RP_NAME_MAX];
	uint16_t nic0, nnics;
};

/* How a host's flows pick among its NICs when an endpoint names the host,
 * not one of its NICs (`nic_spread:`, docs/profiles.md). Either way the
 * other end uses its NIC of the same number (the rail rule). */
enum rp_nic_spread {
	RP_NIC_ROUND_ROBIN, /* the host's k-th such flow (plan order) on NIC k mod nnics */
	RP_NIC_HASH,        /* a hash of the flow (entry, hosts, qpn_seed) mod nnics */
};

enum rp_stop_kind {
	RP_STOP_DURATION, /* no message starts at or after start + duration */
	RP_STOP_PACKETS,  /* exactly this many packets (or PFC frames) */
	RP_STOP_MESSAGES, /* exactly this many messages */
};

/* Everything a traffic entry can set for its flows (and `defaults:` for all). */
struct rp_flow_params {
	enum rp_verb verb;
	uint32_t msg_size;  /* bytes, 0..2^31 */
	uint16_t mtu;       /* 256, 512, 1024, 2048 or 4096 */
	uint16_t qps;       /* QPs per flow, 1..256 */
	uint8_t dscp;       /* 0..63 */
	uint8_t ecn;        /* enum rp_ecn */
	bool has_vlan;
	uint16_t vid;       /* 0..4094 */
	bool has_pcp;       /* false: pcp follows dscp >> 3 */
	uint8_t pcp;        /* 0..7: the VLAN PCP and the PFC priority */
	int sport;          /* enum rp_sport_policy */
	uint16_t sport_base;
	struct rp_rate rate;
	uint64_t burst_on_ns;  /* 0: no on/off bursts */
	uint64_t burst_off_ns;
	uint64_t start_ns;
	enum rp_stop_kind stop;
	uint64_t stop_value; /* ns, packets or messages */
	uint32_t psn_start;  /* first PSN of every QP */
	uint8_t ip;          /* 4, 6, or 0 = IPv4 when both ends have it, else IPv6 */
	uint32_t imm;        /* ImmDt of *_imm verbs */
	uint8_t nic_spread;  /* enum rp_nic_spread */
	uint8_t rtt;         /* enum rp_rtt: the receiver echoes probes back for a round trip */
};

/* `rtt:` of a flow (docs/profiles.md): the receiver echoes probes back to the
 * sender (an RC RDMA READ response carrying the probe), which records the
 * round trip on its own clock. off (the default: no frame the profile did not
 * ask for); auto: a sample (1 in RP_RTT_AUTO_EVERY) of the probes of flows
 * between two ranks (where the one-way figure carries two clocks' errors);
 * on: every probe. */
enum rp_rtt { RP_RTT_OFF, RP_RTT_AUTO, RP_RTT_ON };
#define RP_RTT_AUTO_EVERY 64u

/* A PFC / PAUSE frame source. */
struct rp_pfc_params {
	bool pause;        /* 802.3x PAUSE instead of PFC */
	uint8_t prio_mask; /* PFC: the priorities whose quanta are enabled */
	uint16_t quanta;
	uint64_t fps;      /* frames per second */
};

/* One step of an RDMA entry's `phases:` (docs/profiles.md): from the entry's
 * start + at_ns on, its flows send at rate (until the next phase's at). */
struct rp_rate_phase {
	uint64_t at_ns;
	struct rp_rate rate;
};
#define RP_MAX_RATE_PHASES 64

struct rp_traffic {
	char name[RP_NAME_MAX];
	enum rp_traffic_kind kind;
	enum rp_pattern pattern;  /* RDMA only */
	/* Host indices. flow: hosts = {src}, peers = {dst}. incast: hosts =
	 * senders, peers = {receiver}. fan-out: hosts = {sender}, peers =
	 * receivers. all-to-all, permutation: hosts. pfc: hosts = {sender}.
	 * The arrays are the profile's (malloc'd to their counts, at least one
	 * element each; rp_profile_free frees them). */
	uint16_t *hosts; /* [nhosts] */
	size_t nhosts;
	uint16_t *peers; /* [npeers] */
	size_t npeers;
	/* hosts[i] / peers[i] named a whole host of several NICs: the entry holds
	 * its NIC 0, and each flow picks the NIC (nic_spread, traffic/plan.h). */
	bool *hosts_spread; /* [nhosts] */
	bool *peers_spread; /* [npeers] */
	uint64_t seed;            /* permutation */
	struct rp_flow_params p;  /* RDMA; for pfc only start/stop are used */
	struct rp_pfc_params pfc;
	/* RDMA `phases:` (NULL, 0: one rate, p.rate). phases[0].at_ns is 0 and
	 * p.rate is phases[0].rate; malloc'd, rp_profile_free frees it. */
	struct rp_rate_phase *phases;
	uint16_t nphases;
};

/* The `fabric:` section: what the embedded lab (`roceprobe lab`) builds
 * between the hosts. Sizes in bytes, times in ns, rates in bit/s; 0 means
 * "the default" where noted (docs/lab.md). */
enum rp_topology {
	RP_TOPO_SINGLE,     /* one switch, every host on it */
	RP_TOPO_LEAF_SPINE, /* hosts spread over leaves; every leaf to every spine */
	RP_TOPO_FAT_TREE,   /* 3 tiers: pods of leaves and aggs (each leaf to every agg of its pod), cores */
	RP_TOPO_RAIL,       /* rail-optimised: servers of `rails` NICs, NIC r of a pod's servers on its rail leaf r */
};
#define RP_FABRIC_MAX_PORTS 256 /* ports per switch (lib/fabric's RP_SWITCH_MAX_PORTS) */

struct rp_fabric_thresh {
	bool dynamic;
	uint64_t bytes; /* static */
	double alpha;   /* dynamic: alpha x free shared buffer */
};

/* DCQCN reaction point as mlx5 names its knobs (sysfs ecn/roce_rp), with
 * mlx5's meanings, ranges and defaults (NVIDIA DOCA "DCQCN CC Parameters",
 * ConnectX-4 and later); the paper's symbols (Zhu et al., SIGCOMM 2015) in
 * docs/lab.md. */
enum rp_alpha_update {
	RP_ALPHA_PERIODIC, /* mlx5: every dce_tcp_rtt, alpha = (G/1024) alpha + ((1024 - G)/1024) F */
	RP_ALPHA_PER_CNP,  /* the paper: at each CNP alpha = (1 - g) alpha + g; after dce_tcp_rtt
			    * without one, alpha = (1 - g) alpha (and again each dce_tcp_rtt) */
};

struct rp_dcqcn {
	bool enabled;
	uint64_t rpg_time_reset_ns;  /* rate increase timer (the paper's T); default 300 us */
	uint64_t rpg_byte_reset;     /* rate increase byte counter (B); default 32767 */
	uint32_t rpg_threshold;      /* fast-recovery steps (F), 1..31; default 1 */
	uint64_t rpg_ai_rate_bps;    /* additive increase (R_AI); default 5 Mbit/s */
	uint64_t rpg_hai_rate_bps;   /* hyper increase (R_HAI); default 50 Mbit/s */
	uint64_t rpg_min_rate_bps;   /* floor; default 1 Mbit/s */
	uint32_t rpg_min_dec_fac;    /* a cut keeps at least this % of the rate (0..100: 100 never
				      * cuts); default 50 */
	uint32_t dce_tcp_g;          /* G, 1024ths, 0..1023: g = (1024 - G)/1024; default 1019 (g ~ 1/205) */
	uint64_t dce_tcp_rtt_ns;     /* alpha period (the paper's K), 1..131071 us; default 1 us */
	uint64_t rate_reduce_monitor_period_ns; /* at most one cut per period; default 4 us */
	uint32_t initial_alpha_value; /* alpha before the first CNP, 1024ths, 1..1023; default 1023 */
	enum rp_alpha_update alpha_update; /* default periodic (the NIC's) */
	bool clamp_tgt_rate;         /* every cut sets target = current (the paper's R_T = R_C);
				      * default off (mlx5) */
	bool clamp_tgt_rate_after_time_inc; /* with clamp_tgt_rate off: a cut sets target =
					     * current only when a timer step came since the
					     * last cut; default on (mlx5) */
};

struct rp_fabric {
	bool present;
	enum rp_topology topology;
	uint32_t leaves, spines, hosts_per_leaf; /* leaf-spine; hosts_per_leaf 0: ceil(hosts / leaves) */
	/* fat-tree: pods of `leaves` leaves (hosts_per_leaf each) and `aggs` aggs,
	 * `cores` cores (cores / aggs per agg); `k` fills them in as a k-ary tree.
	 * rail: pods of `rails` leaves; hosts_per_leaf servers per pod; spines. */
	uint32_t k, pods, aggs, cores, rails;
	uint64_t host_delay_ns;      /* host <-> switch cable, one way; default 500 ns */
	uint64_t uplink_speed_bps;   /* leaf <-> spine; 0: the default speed */
	uint64_t uplink_delay_ns;    /* default 500 ns */
	uint64_t buffer_bytes;       /* per switch; default 16 MiB */
	uint32_t max_frame;          /* default 9216 */
	uint8_t lossless_mask;       /* pfc.priorities; default {3} */
	struct rp_fabric_thresh xoff; /* default 128 KiB static */
	uint64_t xon_delta;          /* default 18 KiB */
	bool headroom_auto;          /* rp_headroom_calc per port (default) */
	uint64_t headroom_bytes;
	uint16_t pfc_quanta;         /* default 65535 */
	uint32_t pfc_refresh_pct;    /* default 50 */
	uint32_t response_quanta;    /* a host NIC honours PFC this long after it arrives; default 0 */
	bool pfc_off;                /* pfc.enabled: off makes every priority lossy */
	uint64_t wd_detect_ns;       /* pfc.watchdog: storm detection; 0: no watchdog (default) */
	uint64_t wd_restore_ns;      /* pfc.watchdog.restore; default 1 ms */
	uint8_t ecn_mask;            /* ecn.priorities; default {3} */
	uint64_t kmin, kmax;         /* default 5 KB, 200 KB */
	double pmax;                 /* default 0.01 */
	struct rp_fabric_thresh lossy_limit; /* default dynamic alpha 1 */
	struct rp_dcqcn dcqcn;
	uint64_t seed;               /* RED; default 1 */
	uint8_t dscp_to_tc[64];      /* the switches' DSCP -> priority map (dscp_map); default d >> 3 */
	uint64_t qdepth_bin_ns;      /* queue-depth series bin; default 10 us */
	uint64_t max_time_ns;        /* virtual-time cap; default 1 s */
};

void rp_fabric_init(struct rp_fabric *f);

/* The `certify:` section: what `roceprobe certify` checks the fabric
 * against (docs/certify.md). The intent (which priorities must be lossless,
 * which lossy, which DSCPs the hosts send) and the pass thresholds. 0 or
 * an empty mask: derived from the rest of the profile (lib/certify). */
struct rp_certify_cfg {
	bool present;
	uint8_t lossless_mask;     /* priorities meant lossless; 0: the profile's RoCE traffic's */
	int lossy_prio;            /* priority meant lossy; -1: the lowest not lossless */
	uint8_t dscps[64];         /* DSCPs the hosts send; none: the profile's traffic's */
	size_t ndscps;
	uint32_t max_incast;       /* largest N of the N:1 incasts; 0: hosts - 1 */
	uint32_t messages;         /* 64 KiB messages per sender in a test incast; default 8 */
	double pfc_per_min;        /* ecn: PFC frames allowed per minute of run; default 100 */
	double goodput_share;      /* all-to-all: per host goodput / line rate; default 0.9 */
	double jain;               /* all-to-all: Jain's fairness; default 0.9 */
	double p99_factor;         /* latency: loaded p99 / idle p99 at most this; default 5 */
	double ecmp_tolerance;     /* ecmp: every uplink within this share of 1/k; default 0.25 */
	uint64_t storm_detect_ns;  /* storm: watchdog detection within this; default 2 ms */
	uint64_t storm_recover_ns; /* storm: the queue drains again within this of the storm's end; default 2 ms */
};
void rp_certify_cfg_init(struct rp_certify_cfg *c);

/* One entry of `switches:` (switches.c): a switch whose counters `run`
 * samples (lib/counters source spec), and what its ports face. */
#define RP_SWITCHES_MAX 32
struct rp_switch_port {
	char port[96];  /* the switch's port name, Ethernet0 */
	char peer[192]; /* a host (or NIC) of the profile, or "SWITCH:PORT" */
};
struct rp_switch_src {
	char name[64];
	char source[320];      /* sonic://HOST[:PORT], snmp://HOST[:PORT], exec:CMD */
	char credentials[256]; /* snmp://: the credentials file; "" none */
	char map[256];         /* exec:: the map file; "" none */
	uint64_t interval_ns;  /* default 1 s */
	bool optional;         /* unreachable at start: a warning, not exit 2 */
	size_t nports;
	struct rp_switch_port *ports; /* malloc'd */
};

struct rp_profile {
	char name[64];
	struct rp_host *hosts;   /* every NIC of every host */
	size_t nhosts;
	struct rp_server *servers; /* the profile's hosts, each a run of hosts[] */
	size_t nservers;
	struct rp_traffic *traffic;
	size_t ntraffic;
	struct rp_flow_params defaults;
	uint64_t default_speed_bps;
	struct rp_host_engine default_engine; /* defaults' engine, device, gid_index */
	struct rp_fabric fabric; /* fabric.present: the profile has a `fabric:` section */
	uint64_t qpn_seed;       /* hosts' first QP numbers (traffic/plan.h); default 1, 0: all 0x100 */
	uint64_t lcores;         /* `lcores:` polling lcores of roceprobe run (1..16); 0: not given */
	struct rp_certify_cfg certify; /* certify.present: the profile has a `certify:` section */
	struct rp_switch_src *switches; /* `switches:` (malloc'd; each its ports) */
	size_t nswitches;
};

/* One rank of the launch a `host_template` expands for (template.c). */
struct rp_launch_rank {
	const char *node; /* its machine's hostname */
	int local_rank;   /* among the ranks on that machine, by rank */
};

struct rp_profile_opts {
	const char *const *sets; /* "key=value" overrides, applied in order */
	size_t nsets;
	bool allow_pause_storm;  /* accept PFC sources that keep a priority paused */
	/* The launch: nranks ranks (by rank; ranks NULL: rank r alone on node
	 * "node{r}"). nranks 0: unknown, and a host_template's `count: ranks` or
	 * launch placeholders ({rank}, {local_rank}, {node}, {node_index}) are refused. */
	size_t nranks;
	const struct rp_launch_rank *ranks;
};

/* NULL on error, with one line in err ("FILE:L:C: key 'k': ..."). opts may be NULL. */
struct rp_profile *rp_profile_load(const char *path, const struct rp_profile_opts *opts, char *err, size_t errlen);
/* The same from text; name labels positions ("<string>" when NULL). */
struct rp_profile *rp_profile_load_string(const char *name, const char *text, const struct rp_profile_opts *opts,
					  char *err, size_t errlen);
void rp_profile_free(struct rp_profile *p);

int rp_profile_host_index(const struct rp_profile *p, const char *name); /* -1 when absent */
int rp_profile_server_index(const struct rp_profile *p, const char *name); /* -1 when absent */
/* Whether some host has several NICs (`nics:`). */
bool rp_profile_multi_nic(const struct rp_profile *p);

/* ---- addresses read at start (host_addr.c) ----
 * A host's `mac: auto` and `ipv4/ipv6: netdev` are filled on the rank that runs
 * it (only it sees its port), then every rank learns them through a fixed-size
 * record (lib/cluster's exchange). */
#define RP_HOST_REC_MAC 0x01 /* mac: the port's own */
#define RP_HOST_REC_IP4 0x02 /* ipv4 / plen4: read from the netdev */
#define RP_HOST_REC_IP6 0x04
struct rp_host_rec {
	uint8_t flags;
	uint8_t mac[6];
	uint8_t plen4, plen6;
	uint8_t pad[3];
	uint32_t ipv4;
	uint8_t ipv6[16];
};
/* What h's rank learnt about it (flags 0: nothing to tell). */
void rp_host_rec_export(const struct rp_host *h, struct rp_host_rec *r);
/* Takes what the record brings for a mac: auto / netdev host (the rest stays). */
void rp_host_rec_import(struct rp_host *h, const struct rp_host_rec *r);
/* The netdev's addresses (ipv4 host order; NULL: none read) into a `netdev`
 * host; it stays ip_pending while a family it asks for is missing. */
void rp_host_addr_set_netdev(struct rp_host *h, const uint32_t *ipv4, uint8_t plen4, const uint8_t *ipv6,
			     uint8_t plen6);
/* After every host's addresses are filled: none pending, no two hosts with one
 * MAC or IP address, every gateway inside its host's subnet. 0, or -1 with one
 * line in err naming the hosts. */
int rp_profile_addrs_check(const struct rp_profile *p, char *err, size_t errlen);
/* Whether some host has `ipv4/ipv6: netdev` (the plan is rebuilt once they are read). */
bool rp_profile_has_netdev(const struct rp_profile *p);

/* Whether dst is inside the host's subnet (true when it has no prefix). */
bool rp_host_on_link4(const struct rp_host *h, uint32_t dst);
bool rp_host_on_link6(const struct rp_host *h, const uint8_t dst[16]);
bool rp_ipv4_same_subnet(uint32_t a, uint32_t b, unsigned plen);
bool rp_ipv6_same_subnet(const uint8_t a[16], const uint8_t b[16], unsigned plen);

/* An in-process link end, "pair:LINK:0" or "pair:LINK:1": LINK is 1 to
 * RP_PAIR_LINK_MAX letters, digits, '-' or '_'. Returns 1 and fills link and
 * side for a well-formed one, 0 for devargs that are not "pair:...", -1 for a
 * malformed "pair:...". The one rule `plan` and `run` both apply. */
#define RP_PAIR_LINK_MAX 20
int rp_pair_parse(const char *devargs, char link[RP_PAIR_LINK_MAX + 1], int *side);
/* The built-in defaults (before a profile's `defaults:` section). */
void rp_flow_params_init(struct rp_flow_params *fp);
/* The priority a flow's packets are paused by: pcp, or dscp >> 3. */
static inline uint8_t rp_flow_params_prio(const struct rp_flow_params *fp)
{
	return fp->has_pcp ? fp->pcp : (uint8_t)(fp->dscp >> 3);
}

#endif
