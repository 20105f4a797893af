/* The DPDK edge: EAL, ports, mempools and the TX loop. The only code that
 * includes rte_*.h; everything it hands upward is plain C. */
#ifndef RP_DP_H
#define RP_DP_H

#include <stdbool.h>
#include <stddef.h>
#include <sched.h>
#include <stdint.h>

#define RP_DP_ERRLEN 256
#define RP_DP_MAX_PORTS 64
#define RP_DP_MAX_QUEUES 16 /* RX/TX queues per port: run --lcores */
#define RP_DP_MAX_RULES 4   /* rte_flow rules a shared port holds (flow.c) */

/* EAL arguments from the ports a run uses plus the user's --eal string.
 * Without hugepages it adds --no-huge -m 1024 --no-shconf and says so once on
 * stderr; with only virtual devices it adds --no-pci. net_null vdevs get
 * no-rx=1 (their RX returns garbage) unless the devargs set no-rx, said in
 * one line on stderr. The EAL's runtime directory (--file-prefix rpPID) is
 * removed by rp_dp_eal_cleanup, at exit, and when init fails. */
struct rp_dp_eal_opts {
	const char *const *devargs; /* "net_ring0", "net_pcap0,tx_pcap=x.pcap", "0000:3b:00.0" */
	unsigned n_devargs;
	const char *user_eal; /* may be NULL */
	unsigned lcores;      /* 1.. */
	const char *who;      /* command name for messages */
	unsigned first_core;  /* the lcores are first_core .. first_core + lcores - 1 (several
			       * processes on one machine, e.g. ranks, spread over its CPUs) */
	bool main_idle;       /* lcores workers besides a main lcore that only sleeps (run --lcores):
			       * main on first_core, worker k on CPU first_core + k - 1 (mod the CPUs) */
	bool huge_said;       /* the preflight warned of no hugepages: no second line about them */
	bool no_telemetry;    /* --no-telemetry: no DPDK telemetry socket (on by default: dpdk-telemetry.py
			       * -f rpPID attaches to /var/run/dpdk/rpPID/dpdk_telemetry.v2) */
};

int rp_dp_eal_init(const struct rp_dp_eal_opts *o, char *err, size_t errlen);
/* The CPUs the EAL's lcores run on (after rp_dp_eal_init): what a helper
 * thread (the --metrics listener) must stay off. */
void rp_dp_lcore_cpus(cpu_set_t *out);
void rp_dp_eal_cleanup(void);
/* Several runs in one process (certify's run engine without --launcher):
 * with keep on, the EAL outlives a session. The first rp_dp_eal_init starts
 * it (lcores, memory, telemetry from that call's opts, no device); each call
 * then hot-plugs its own virtual devices (said on stderr as at a start), and
 * rp_dp_eal_cleanup takes the session's devices away again: ports closed,
 * vdevs removed, pair: rings drained and freed, every mempool freed, so the
 * next session starts as a new process would. PCI ports are refused (one
 * line: only virtual ports are hot-plugged). rp_dp_eal_keep(false) ends a
 * kept EAL. */
void rp_dp_eal_keep(bool on);
/* The lcores the EAL runs (the main one included). */
unsigned rp_dp_lcore_count(void);
/* "DPDK 22.11.11": the library this binary runs on. */
const char *rp_dp_version(void);
/* Moves the calling thread (the EAL's main lcore: the poller) to CPU cpu;
 * cpu < 0 leaves it where the EAL put it. Returns 0, or -1 when the process
 * may not run there. */
int rp_dp_pin_poller(int cpu);

/* How a run holds a port that the kernel also uses (issue 32; docs/hardware.md):
 *   AUTO       shared where the kernel keeps a netdev on the same port (mlx5's
 *              bifurcated driver), taken whole everywhere else (today's default)
 *   SHARE      every port shared: rte_flow isolated mode and rules that steer only
 *              the run's RoCEv2 (UDP 4791 to its hosts' addresses) and PFC/PAUSE frames
 *              to roceprobe (port.c, flow.c); net_af_xdp: roceprobe's XDP program, which
 *              hands those frames to the socket and passes the rest to the kernel (xdp.c).
 *              A PMD that refuses is one line: the run stops (--exclusive takes it whole).
 *   EXCLUSIVE  every port taken whole, as before issue 32. */
enum rp_dp_share { RP_DP_SHARE_AUTO, RP_DP_SHARE_ON, RP_DP_SHARE_EXCLUSIVE };

/* How a port's frames get their arrival time (run --rx-clock; rxclock.c):
 *   AUTO  nic on a PCI port whose PMD offers RX timestamps, poll elsewhere
 *   POLL  the packet clock read once per poll of the port (every frame of a
 *         burst gets it: what sat in the RX ring counts as latency)
 *   NIC   the PMD's RX timestamp (RTE_ETH_RX_OFFLOAD_TIMESTAMP), one per frame,
 *         moved to the packet clock: by rte_eth_read_clock read against the
 *         TSC twice (its rate and offset: clock "nic"), or, where the PMD has
 *         no clock to read, taken as the host's CLOCK_REALTIME (clock "host":
 *         net_pcap's rx_iface= stamps, the kernel's); net_pcap's rx_pcap=
 *         stamps are the file's, its first frame at the run's time 0 and the
 *         others at the file's spacing (clock "file"). net_pcap stamps every
 *         frame without offering the offload (rxclock.c). A PMD that neither
 *         offers the offload nor stamps is one error line. */
enum rp_dp_rx_clock { RP_DP_RXCLK_AUTO, RP_DP_RXCLK_POLL, RP_DP_RXCLK_NIC };

/* When a port's first frames leave (run --tx-start; txstart.c):
 *   HOST  when its TX lcore hands them over, from T0 on the packet clock
 *   NIC   the NIC holds each TX queue's first data frame (and so the queue
 *         behind it) until T0 + RP_DP_TX_LEAD_NS on its own clock
 *         (RTE_ETH_TX_OFFLOAD_SEND_ON_TIMESTAMP: mlx5 with tx_pp= on a
 *         ConnectX-6 Dx, a ConnectX-7 natively): with the senders' NIC
 *         clocks synchronised (PTP), an incast's senders start within the
 *         clocks' error instead of the barrier's spread. A port without the
 *         offload is one error line. Frames due before T0 + lead leave then,
 *         their latencies counting the hold. */
enum rp_dp_tx_start { RP_DP_TXSTART_HOST, RP_DP_TXSTART_NIC };
#define RP_DP_TX_LEAD_NS 100000 /* the ranks' T0 spread (cluster.start_skew_ns) stays well under it */

/* A reading of ref and the TSC at once: ref_ns the midpoint of the two ref
 * readings around the TSC's, window_ns how far apart they were (the
 * narrowest of several tries: a reader the CPU was taken from retries). */
struct rp_dp_clock_pair {
	int64_t ref_ns;
	uint64_t tsc;
	int64_t window_ns;
};

/* A port's RX stamps (rxclock.c; enum rp_dp_rx_clock below): kind 0 (poll)
 * unless the PMD stamps frames. A stamp s is packet ns base_pkt + (s -
 * base_stamp) * mult_q32 / 2^32; stamps that land outside a second of the
 * poll's time (a file's from another day, a clock not yet running) are not
 * used: the poll's time is (each RX lcore counts both, rx.h). */
enum rp_dp_rx_stamp_kind { RP_DP_STAMP_POLL, RP_DP_STAMP_NIC, RP_DP_STAMP_HOST, RP_DP_STAMP_FILE };
struct rp_dp_rx_stamps {
	enum rp_dp_rx_stamp_kind kind;
	int field;      /* the mbuf dynfield's offset */
	uint64_t flag;  /* its ol_flags bit */
	int64_t unit_ns;    /* host and file stamps: ns per unit (net_pcap: us) */
	int64_t file_first; /* file: the first frame's stamp of the files read; -1 none */
	int64_t base_stamp, base_pkt;
	uint64_t mult_q32;
	struct rp_dp_clock_pair nic0; /* the NIC clock against the TSC at the port's start */
	int64_t bound_ns; /* the mapping's uncertainty (the readings' windows) */
};

/* A port's scheduled start (rp_dp_tx_start NIC): the NIC's clock read
 * against the TSC at the port's start (nic0) and at T0; at_tick the NIC time
 * the first frames leave at; late: the TX lcore handed them over after it
 * (the NIC sent them at once). */
struct rp_dp_tx_sched {
	bool on;
	int field;     /* the mbuf dynfield's offset (RTE_MBUF_DYNFIELD_TIMESTAMP_NAME) */
	uint64_t flag; /* RTE_MBUF_DYNFLAG_TX_TIMESTAMP_NAME's ol_flags bit */
	struct rp_dp_clock_pair nic0;
	int64_t at_tick;
	int64_t bound_ns; /* the mapping's uncertainty (the readings' windows) */
	bool late;
};

/* The NIC tick at packet time at_ns, from two readings of the NIC's clock
 * (ticks a_tick, b_tick) taken at packet times a_ns and b_ns: its rate from
 * the two, extrapolated from b (readings without a span: a tick a ns). */
static inline int64_t rp_dp_tick_at(int64_t a_tick, int64_t a_ns, int64_t b_tick, int64_t b_ns, int64_t at_ns)
{
	if (b_ns <= a_ns)
		return b_tick + (at_ns - b_ns);
	return b_tick + (int64_t)((__int128)(at_ns - b_ns) * (b_tick - a_tick) / (b_ns - a_ns));
}

#define RP_DP_STAMP_SANE_NS 1000000000 /* a stamp this far from the poll's time is not this run's */
/* Stamp s on the packet clock into *t; false when it lands outside
 * RP_DP_STAMP_SANE_NS of now_ns (or before the clock's start). */
static inline bool rp_dp_stamp_to_pkt(const struct rp_dp_rx_stamps *x, int64_t s, uint64_t now_ns, uint64_t *t)
{
	int64_t v = x->base_pkt + (int64_t)(((__int128)(s - x->base_stamp) * (__int128)x->mult_q32) >> 32);
	if (v < 0 || v > (int64_t)now_ns + RP_DP_STAMP_SANE_NS || v + RP_DP_STAMP_SANE_NS < (int64_t)now_ns)
		return false;
	*t = (uint64_t)v;
	return true;
}

struct rp_dp_port {
	uint16_t id;
	char name[64];
	char driver[32];
	uint64_t link_bps; /* as the PMD reports it; 0 unknown */
	void *pool;        /* struct rte_mempool */
	bool started;
	unsigned nq;       /* RX and TX queues (1, or run --lcores N, or what the PMD has) */
	bool rss;          /* the PMD spreads RX over the queues by the UDP source port */
	int socket;        /* the port's NUMA socket; -1: any (virtual devices) */
	void *pair_ring[RP_DP_MAX_QUEUES]; /* pair: with nq > 1, the rings to the peer's RX queues */
	/* Shared with the kernel (flow.c): isolated mode, the rules made
	 * (rp_dp_port_steer), whether PFC/PAUSE frames come to the run. */
	bool isolated;
	bool pause_steered;
	/* net_af_xdp with --share: roceprobe's XDP program shares it (xdp.h; set by
	 * lib/run/session.c), handing RoCEv2 and PFC/PAUSE to the socket */
	bool xdp_program;
	/* net_af_xdp: its PMD sets the interface's IFF_PROMISC, which stays after
	 * the close; cleared again at close when it was not set before the open */
	bool promisc_restore;
	void *flows[RP_DP_MAX_RULES]; /* struct rte_flow */
	unsigned nflows;
	struct rp_dp_rx_stamps rxs; /* how its frames get their arrival time (rxclock.c) */
	struct rp_dp_tx_sched txs;  /* its first frames' departure on the NIC's clock (txstart.c) */
};

/* The kernel keeps the port's other traffic (isolated, or af_xdp with
 * roceprobe's XDP program): ARP/ND answers go to it, and its neighbour table
 * is where next hops are found (lib/run/session.c). */
static inline bool rp_dp_port_kernel_shared(const struct rp_dp_port *p)
{
	return p->isolated || p->xdp_program;
}

/* Opens the port a devargs string names (the EAL must have been given it),
 * with n_rxq RX queues and n_txq TX queues, for frames up to max_frame bytes,
 * its mbufs on the port's NUMA socket. With n_rxq > 1: RSS on the UDP source
 * port where the PMD has it (p->rss); a pair: link spreads frames itself
 * (pair.c); a PMD with queues but no RSS delivers everything to queue 0
 * (p->rss false: say so). A PMD with fewer queue pairs than n_rxq == n_txq
 * asks gets as many as it has (p->nq; session.c spreads such ports over
 * the lcores); other shortfalls are an error. */
/* What a port is opened for (NULL: taken whole, stamped at the poll). */
struct rp_dp_port_want {
	enum rp_dp_share share;
	enum rp_dp_rx_clock rx_clock;
	enum rp_dp_tx_start tx_start;
};
int rp_dp_port_open(const char *devargs, unsigned n_rxq, unsigned n_txq, size_t max_frame,
		    const struct rp_dp_port_want *want, struct rp_dp_port *p, char *err, size_t errlen);

/* Sharing a port with the kernel (flow.c). rp_dp_share_wanted: whether a port
 * of this driver is shared (AUTO: a bifurcated driver, mlx5 or mlx4).
 * rp_dp_port_isolate: isolated mode, before the port is configured (net_tap:
 * once its queues are set up; rp_dp_port_open calls it); a refusal is the one
 * error line.
 * rp_dp_port_steer: once the host's addresses are known, the rules that take
 * its RoCEv2 frames (UDP 4791 to each address) to the run's queues (RSS over
 * them with several), and PFC/PAUSE (ethertype 0x8808) to queue 0; nothing
 * for a port not isolated. A refused RoCE rule is the error line; a refused
 * pause rule only a warning (warn, "" when none): a NIC acts on PFC itself.
 * rp_dp_port_unsteer: the rules removed (rp_dp_port_close does it). */
struct rp_dp_steer {
	bool has_ip4, has_ip6;
	uint32_t ip4; /* host order */
	uint8_t ip6[16];
};
bool rp_dp_share_wanted(enum rp_dp_share share, const char *driver);
/* Whether a driver takes isolated mode only once its RX queues are set up
 * (net_tap: flow.c says why); rp_dp_port_open isolates such a port then. */
bool rp_dp_isolate_after_queues(const char *driver);

/* RX stamps (rxclock.c). rp_dp_rx_stamps_conf: before configure, the
 * offload asked where the clock wants it (NIC: refused without it, one line;
 * AUTO: a PCI port's PMD that has it). rp_dp_rx_stamps_started: after start,
 * the mbuf field found and the NIC's clock read against the TSC (no clock to
 * read: the host's time). rp_dp_rx_stamps_arm: once the packet clock runs
 * (the run's T0), the mapping to it. rp_dp_rx_stamps_name: "poll", "nic",
 * "host", "file". */
struct rte_eth_dev_info;
struct rte_eth_conf;
int rp_dp_rx_stamps_conf(struct rp_dp_port *p, const char *devargs, enum rp_dp_rx_clock want,
			 const struct rte_eth_dev_info *info, struct rte_eth_conf *conf, char *err, size_t errlen);
void rp_dp_rx_stamps_started(struct rp_dp_port *p);
void rp_dp_rx_stamps_arm(struct rp_dp_port *p);
const char *rp_dp_rx_stamps_name(enum rp_dp_rx_stamp_kind k);

/* A scheduled start (txstart.c). rp_dp_tx_sched_conf: before configure, the
 * offload asked (NIC: refused without it, one line) and the mbuf field
 * registered; rp_dp_tx_sched_started: after start, the NIC's clock read;
 * rp_dp_tx_sched_arm: at T0, the NIC tick of T0 + RP_DP_TX_LEAD_NS. The TX
 * loop tags each queue's first data burst (gen.c). */
int rp_dp_tx_sched_conf(struct rp_dp_port *p, enum rp_dp_tx_start want, const struct rte_eth_dev_info *info,
			struct rte_eth_conf *conf, char *err, size_t errlen);
void rp_dp_tx_sched_started(struct rp_dp_port *p);
/* A port's NIC clock read against the TSC (rte_eth_read_clock; rxclock.c), and
 * read again at least 50 ms after a: its rate from the two. */
struct rp_dp_clock_pair rp_dp_nic_clock_read(uint16_t port);
struct rp_dp_clock_pair rp_dp_nic_clock_again(struct rp_dp_clock_pair a, uint16_t port);
void rp_dp_tx_sched_arm(struct rp_dp_port *p);
int rp_dp_port_isolate(struct rp_dp_port *p, char *err, size_t errlen);
int rp_dp_port_steer(struct rp_dp_port *p, const struct rp_dp_steer *st, char *warn, size_t warnlen, char *err,
		     size_t errlen);
void rp_dp_port_unsteer(struct rp_dp_port *p);
void rp_dp_port_close(struct rp_dp_port *p);
/* A TX-only pool of mbufs for frames of one shape (len bytes, head written
 * per packet; traffic/source.h), every data room zeroed once at creation, so
 * a mbuf that only ever held frames of that shape holds its zeros: gen.c
 * keeps frames in them. Found by name when it exists (port, len, head).
 * NULL when it cannot be made. */
#define RP_DP_KEPT_SLACK 64 /* the source's copies may run past the frame */
void *rp_dp_port_shape_pool(const struct rp_dp_port *p, size_t len, unsigned head);
/* Where in a TX data room, past its headroom, a frame of len bytes whose
 * first head bytes are written per packet (a kept frame: its headers and
 * probe; else len) starts: of the offsets 0, 16, 32 and 48 (the stores of
 * 16-byte blocks from the frame's start then never cross a cache line), the
 * least at which the bytes written, the head and the ICRC (the last 4),
 * touch the fewest 64-byte cache lines, then the fewest of the probe's seq
 * and timestamp (the head's last 16 bytes) and the ICRC cross a line.
 * 1026 B with a 78 B head: at 0 the ICRC at 1022..1025 straddles two lines
 * (4 in all) and the seq at 62..69 crosses one; at 16 they take 3 lines and
 * nothing crosses. Below RP_DP_TX_SHIFT, which the rooms have to spare. */
#define RP_DP_TX_SHIFT 64
unsigned rp_dp_kept_offset(size_t len, unsigned head);
/* The largest frame (without FCS) the port a devargs string names takes: the
 * PMD's max_rx_pktlen less the FCS (net_af_packet and net_tap: 1514). 0 when
 * the port is not there or does not say. The EAL must be up. */
size_t rp_dp_port_max_frame(const char *devargs);
/* What really bounds a frame on the port: as rp_dp_port_max_frame, but for
 * net_af_packet its ring frame size (devargs framesz) and its interface's
 * MTU; net_tap and net_af_xdp with why their PMDs cannot carry more. why says what bounds it, fix
 * what to change (both may be NULL; "" when there is nothing to say). */
size_t rp_dp_port_frame_limit(const char *devargs, char *why, size_t whylen, char *fix, size_t fixlen);
/* The devargs to give the EAL for frames up to max_frame: net_af_packet gets
 * framesz (a power of 2, at least 2048) and blocksz when its default ring
 * frames (2048 B) are too short and the devargs do not say. Returns out or
 * devargs. */
const char *rp_dp_devargs_fit(const char *devargs, size_t max_frame, char *out, size_t n);
/* The port's own MAC (a NIC's burned-in address; the PMD's for virtual ports). */
void rp_dp_port_mac(const struct rp_dp_port *p, uint8_t mac[6]);
/* A port on a wire other stations share (a NIC, net_af_packet, net_af_xdp,
 * net_tap): not net_ring, net_null or net_pcap. It announces its addresses. */
bool rp_dp_port_is_wire(const struct rp_dp_port *p);

/* The PMD's own counts of what never reached the poller or the wire
 * (rte_eth_stats): missed = imissed + rx_nombuf (frames the port dropped:
 * RX ring full, no mbuf), oerrors (frames it failed to send). All 0 when
 * the PMD keeps none. */
struct rp_dp_port_drops {
	uint64_t missed;
	uint64_t oerrors;
};
void rp_dp_port_read_drops(const struct rp_dp_port *p, struct rp_dp_port_drops *out);

/* Pause counters the PMD keeps in its xstats (bnxt rx_pfc_ena_frames_pri3,
 * ice rx_xoff_packets, ...): real NICs consume PFC in hardware and their
 * counters are all there is. Names holding "pause" or "pfc", and the names
 * lib/counters' vocabulary knows (RP_CTR_DPDK: rx_good_packets,
 * rx_phy_discard_packets, ...); returns how many were written (at most max). */
#define RP_DP_XSTAT_NAME 64
struct rp_dp_xstat {
	char name[RP_DP_XSTAT_NAME];
	uint64_t value;
};
unsigned rp_dp_port_pause_xstats(const struct rp_dp_port *p, struct rp_dp_xstat *out, unsigned max);

/* In-process back-to-back links: "pair:LINK:0" and "pair:LINK:1", with nq
 * queue pairs; to_peer[q] gets the ring feeding the peer's RX queue q. */
bool rp_dp_is_pair(const char *devargs);
/* The next key=VALUE of devargs after *at (NULL at first) into val (cut to
 * n bytes); false when there is none. */
bool rp_dp_devarg_next(const char *devargs, const char *key, const char **at, char *val, size_t n);
/* net_af_packet: one queue (qpairs= above 1 is refused: the kernel's fanout, not RSS). */
bool rp_dp_is_af_packet(const char *devargs);
/* net_af_xdp: with --share it gets roceprobe's XDP program (xdp.h). */
bool rp_dp_is_af_xdp(const char *devargs);
/* Drivers whose devargs set their queue count spread the interface's frames
 * over every one of those queues, polled or not: net_af_packet's qpairs=
 * (the kernel's fanout hash), net_af_xdp's queue_count= (the NIC's RSS),
 * net_pcap's rx_pcap= (and rx_iface=, iface=) once per queue.
 * True, with one line in err, for net_af_packet with qpairs= above 1 (with
 * as many lcores the fanout hash, not RSS on the UDP source port, would
 * pick each one's frames, and ARP and PFC any of them) and for net_af_xdp
 * whose queue_count= (the PMD's pmd_rxq) or net_pcap whose RX streams are
 * more than the n_rxq polled (a capture of a.pcap and b.pcap kept a's
 * frames only).
 * rp_dp_port_open asks it; name is the port's. */
bool rp_dp_unpolled_queues(const char *devargs, const char *name, unsigned pmd_rxq, unsigned n_rxq, char *err,
			   size_t errlen);
int rp_dp_pair_create(const char *devargs, unsigned nq, uint16_t *port_id, void **to_peer, char *err, size_t errlen);
/* Every pair: ring made so far, its frames freed, and the ring (rp_dp_eal_cleanup with keep). */
void rp_dp_pair_release(void);
/* The RX queue (of nq) RSS on the UDP source port picks for a frame: the
 * Toeplitz hash of the port with the common 40-byte key, a 128-entry table
 * filled i % nq; 0 for frames without UDP (and for nq 1). */
unsigned rp_dp_rss_queue(const uint8_t *frame, size_t len, unsigned nq);
/* A pair port with nq > 1: each frame into the ring of its queue
 * (rp_dp_rss_queue), in order; how many were taken. */
struct rte_mbuf;
uint16_t rp_dp_pair_tx(const struct rp_dp_port *p, struct rte_mbuf **m, uint16_t n);

/* The packet clock (clock.c): TSC-derived nanoseconds since rp_dp_clock_start,
 * at a rate measured against CLOCK_MONOTONIC from rp_dp_clock_calibrate on
 * (rp_dp_eal_init calls it; a start sleeps until 50 ms have passed since
 * it, and calls it first if nobody did). */
void rp_dp_clock_calibrate(void);
void rp_dp_clock_start(void);
/* Another clock, read with an argument (ns). */
typedef int64_t (*rp_dp_ref_clock)(const void *arg);
struct rp_dp_clock_pair rp_dp_clock_read_pair(rp_dp_ref_clock ref, const void *arg);
/* Starts the packet clock at ref - zero_ns (a rank that woke late for the
 * common start still counts from it; 0 when ref is before zero_ns) and
 * returns the gap right after (rp_dp_clock_gap_ns): how far it started off. */
int64_t rp_dp_clock_start_on(rp_dp_ref_clock ref, const void *arg, int64_t zero_ns);
/* The packet clock minus (ref - zero_ns), now. */
int64_t rp_dp_clock_gap_ns(rp_dp_ref_clock ref, const void *arg, int64_t zero_ns);
uint64_t rp_dp_now_ns(void);
/* The packet clock's ns at a TSC reading (before its start: negative). */
int64_t rp_dp_clock_tsc_ns(uint64_t tsc);
/* CLOCK_REALTIME (Unix epoch ns) at packet clock 0, read once per start (the
 * same number for every caller: the captures' default epoch and the RX
 * stamps a PMD takes on the host's time, rxclock.c); *window_ns (may be
 * NULL) the reading's uncertainty. */
uint64_t rp_dp_clock_epoch_ns(int64_t *window_ns);


#endif
