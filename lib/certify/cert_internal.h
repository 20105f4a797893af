/* Internal to lib/certify: a test's context, its entry being filled, the
 * workload builder and the readers of result documents. */
#ifndef RP_CERTIFY_INTERNAL_H
#define RP_CERTIFY_INTERNAL_H

#include <stdio.h>

#include "certify.h"

#define RP_CERT_LINE 1024

/* What the fabric is meant to do (the `certify:` section, or derived). */
struct rp_cert_intent {
	uint8_t lossless;     /* mask */
	unsigned lossy;       /* priority */
	uint8_t dscps[64];    /* the hosts' DSCPs */
	size_t ndscps;
};

struct rp_cert_ctx {
	const struct rp_profile *prof;
	const struct rp_cert_opts *o;
	const struct rp_certify_cfg *cfg;
	struct rp_cert_fabric fab;
	struct rp_cert_intent want;
	uint64_t line_bps;    /* the hosts' speed */
	const char *seed_set; /* a seeded test's run: "KEY=SEED", after the user's sets; NULL: none */
	uint64_t seed;        /* its seed */
	char err[512];
};

/* One test being run: what it fills. */
struct rp_cert_t {
	unsigned id;
	json_t *criteria, *measured, *runs, *plots;
	bool failed, skipped, stopped, marginal;
	char skip[RP_CERT_LINE]; /* a SKIP's reason, or why a MARGINAL is */
	char cause_code[32];
	char cause[RP_CERT_LINE];
};

struct rp_cert_test {
	unsigned id;
	const char *name, *title;
	/* 0 (the verdict is in t), 1 stopped, -1 engine error (c->err). */
	int (*run)(struct rp_cert_ctx *c, struct rp_cert_t *t);
	/* What it needs from inside the switches, when it cannot be judged from
	 * the hosts: on an engine that does not know them (a real fabric) the
	 * test is a SKIP saying so. NULL: the hosts' evidence is enough. */
	const char *needs_switch;
	/* Its workload meets what a seed draws (ECMP paths, RED marks): run with
	 * RP_CERT_SEEDS seeds on an engine with a seed_key, MARGINAL when they disagree. */
	bool seeded;
	/* What needs_switch names is counted by the switch sources a run reads
	 * (the profile's `switches:`, counters.switches[]): with them the test
	 * runs on a real fabric and judges those counters (res_switch.c). */
	bool counted;
};
extern const struct rp_cert_test rp_cert_t_pfc_incast, rp_cert_t_lossy, rp_cert_t_ecn, rp_cert_t_dscp,
	rp_cert_t_headroom, rp_cert_t_storm, rp_cert_t_a2a, rp_cert_t_latency, rp_cert_t_ecmp;

/* Which tests a cause belongs to (bit per id), for blocking: "pfc-off" -> 1. */
unsigned rp_cert_cause_owners(const char *code);

/* ---- intent.c ---- */
void rp_cert_intent(const struct rp_profile *prof, const struct rp_cert_fabric *fab, struct rp_cert_intent *out);
/* A DSCP the switches put on priority p (p << 3 when it does, or unknown). */
unsigned rp_cert_dscp_for(const struct rp_cert_ctx *c, unsigned prio);

/* ---- verdict.c ---- */
void rp_cert_crit(struct rp_cert_t *t, const char *name, const char *want, json_t *got, bool pass);
__attribute__((format(printf, 3, 4))) void rp_cert_fail(struct rp_cert_t *t, const char *code, const char *fmt, ...);
__attribute__((format(printf, 2, 3))) void rp_cert_skip(struct rp_cert_t *t, const char *fmt, ...);
/* A plot: {"title","x","y","kind":"bar"|"line","series":[{"name","points":[[x,y],...]}]}. */
json_t *rp_cert_plot(struct rp_cert_t *t, const char *title, const char *x, const char *y, const char *kind);
json_t *rp_cert_series(json_t *plot, const char *name);
void rp_cert_point(json_t *series, double x, double y);

/* ---- work.c: workloads as profile traffic ---- */
struct rp_cert_buf {
	char s[16384];
	size_t n;
	bool overflow;
};
void rp_cert_buf_init(struct rp_cert_buf *b);
__attribute__((format(printf, 2, 3))) void rp_cert_buf_add(struct rp_cert_buf *b, const char *fmt, ...);
/* Traffic entries; "ecn" is ect0 or not-ect. */
void rp_cert_w_incast(struct rp_cert_buf *b, const struct rp_cert_ctx *c, const char *name, unsigned recv,
		      const unsigned *senders, size_t n, unsigned dscp, const char *ecn, uint32_t messages);
void rp_cert_w_flow(struct rp_cert_buf *b, const struct rp_cert_ctx *c, const char *name, unsigned src, unsigned dst,
		    unsigned dscp, const char *rate, uint32_t msg_size, uint64_t duration_ns, uint64_t start_ns);
void rp_cert_w_group(struct rp_cert_buf *b, const struct rp_cert_ctx *c, const char *name, const char *pattern,
		     unsigned dscp, const char *ecn, uint32_t messages, unsigned qps);
/* Runs traffic (the buffer's entries) with extra sets; the run is noted in
 * t's evidence. 0, 1 stopped, -1 error in c->err. */
int rp_cert_exec(struct rp_cert_ctx *c, struct rp_cert_t *t, const char *label, const struct rp_cert_buf *traffic,
		 const char *const *extra, size_t nextra, json_t **res);

/* ---- res.c: reading a result document ---- */
struct rp_cert_flows {
	uint64_t tx, rx, lost, naks, ce, cnp_tx, cnp_rx;
	double goodput_gbps;
	size_t n;
};
/* Flows whose prio is prio (-1: any) and dst is dst (NULL: any). */
void rp_cert_sum_flows(const json_t *res, int prio, const char *dst, struct rp_cert_flows *out);
/* PFC frames host `node` received naming prio (-1: every prio). */
uint64_t rp_cert_host_pfc_rx(const json_t *res, const char *node, int prio);
/* Switch drops of a reason ("headroom", "tail", ...; NULL: every reason), prio (-1: any). */
uint64_t rp_cert_sw_drops(const json_t *res, const char *reason, int prio);
/* XOFF the switches sent for prio (-1: any). */
uint64_t rp_cert_sw_xoff(const json_t *res, int prio);
/* Frames the switches queued on each priority (egress). */
void rp_cert_sw_enq(const json_t *res, uint64_t out[8]);
/* The first XOFF any switch PG sent, ns; UINT64_MAX: none. */
uint64_t rp_cert_first_xoff_ns(const json_t *res);
/* The start of the first time series bin with a counter (e.g. "ce") above 0; UINT64_MAX: none. */
uint64_t rp_cert_first_ts_ns(const json_t *res, const char *counter);
/* The deepest egress queue of prio toward host node at virtual time t (its qdepth series); 0 when none. */
uint64_t rp_cert_queue_at(const json_t *res, const char *node, int prio, uint64_t t_ns);
uint64_t rp_cert_elapsed_ns(const json_t *res);
/* What host h's flows sent over the traffic's span, as a share of the line
 * it was free to use (the span less its port's paused time on priority p). */
double rp_cert_offered_share(const struct rp_cert_ctx *c, const json_t *res, const char *h, unsigned p);
/* On a real fabric (not c->fab.known) the least any of the first nh hosts
 * offered (rp_cert_offered_share), *which its index, also set on t's
 * measured as min_offered_share; 1e18 in the lab (its NICs always offer). */
double rp_cert_min_offered(const struct rp_cert_ctx *c, struct rp_cert_t *t, const json_t *res, unsigned p, size_t nh,
			   size_t *which);
double rp_cert_jnum(const json_t *o, const char *key);
/* A one-line account of where drops were (reasons and counts) into buf. */
void rp_cert_drops_line(const json_t *res, char *buf, size_t len);

/* A cause from the drops seen (headroom, or tail on a lossless priority),
 * set on t when found: true. */
bool rp_cert_diagnose_drops(const struct rp_cert_ctx *c, struct rp_cert_t *t, const json_t *res, unsigned prio);

void rp_cert_fmt_bytes(uint64_t b, char *buf, size_t len);

/* ---- res_switch.c: the switches' own counters of a run (counters.switches[]) ---- */
enum {
	RP_SWC_PFC_TX = 1u << 0,   /* prio[].pfc_tx */
	RP_SWC_PFC_RX = 1u << 1,   /* prio[].pfc_rx */
	RP_SWC_ECN = 1u << 2,      /* queues[].ecn_marked */
	RP_SWC_Q_DROPS = 1u << 3,  /* queues[].drops */
	RP_SWC_PG_DROPS = 1u << 4, /* pgs[].drops */
	RP_SWC_Q_WM = 1u << 5,     /* queues[].shared_wm_bytes (gauge) */
	RP_SWC_PG_HR_WM = 1u << 6, /* pgs[].headroom_wm_bytes (gauge) */
	RP_SWC_WD = 1u << 7,       /* queues[].wd_storms_detected / _restored */
	RP_SWC_TX_BYTES = 1u << 8, /* the port's tx_bytes (every priority) */
};
/* One switch port over the run: counts summed over the samples' deltas,
 * gauges (watermarks) their maximum; index = priority, queue or PG. */
struct rp_cert_swport {
	char sw[64], port[96], peer[192]; /* peer: what its `ports:` entry names (a host, or SWITCH:PORT: an uplink), "" none */
	uint64_t pfc_tx[8], pfc_rx[8];
	uint64_t q_packets[8], q_drops[8], q_ecn[8], q_wm[8];
	uint64_t pg_drops[8], pg_hr_wm[8], pg_wm[8];
	uint64_t wd_detected[8], wd_restored[8], wd_drops[8];
	uint64_t tx_bytes; /* the port's bytes sent */
	unsigned have;     /* RP_SWC_TX_BYTES when a source counted it on this port */
};
struct rp_cert_swc {
	size_t nswitches, nsamples, nports, cap;
	struct rp_cert_swport *ports;
	unsigned have; /* RP_SWC_* bits: the counters some source had (a count absent is not 0) */
};
/* res's counters.switches[] into *w (free with rp_cert_swc_free). 0, -1 out of memory. */
int rp_cert_swc_read(const json_t *res, struct rp_cert_swc *w);
void rp_cert_swc_free(struct rp_cert_swc *w);
/* The switch port whose `ports:` entry names host; NULL: none does. */
const struct rp_cert_swport *rp_cert_swc_facing(const struct rp_cert_swc *w, const char *host);
/* An RP_SWC_* bit as words naming the counter (a SKIP's reason). */
const char *rp_cert_swc_name(unsigned bit);

/* A user's --set KEY=VALUE that one of a suggestion's sets (a JSON list of
 * "KEY=VALUE") replaces: the same KEY (suggest.c). */
bool rp_cert_set_replaced(const char *set, const json_t *fix_sets);

/* Values as a person reads them (human.c). */
/* A key as words: "_" and "." as spaces, its unit suffix (_ns, _bytes, _bps,
 * _gbps, _pct) dropped, CE/PFC/XOFF/... in capitals: first_ce_ns -> "first CE". */
void rp_cert_label(const char *key, char *buf, size_t len);
/* v as text in the unit its key names (NULL: none): ns as ns/us/ms/s, bytes
 * as B/KiB/MiB, bit/s as Gbit/s, booleans as yes/no, null as "none", a record
 * as "label value, ..." and a list as "a, b": never JSON. */
void rp_cert_kv_text(const char *key, const json_t *v, char *buf, size_t len);
void rp_cert_value_text(const json_t *v, char *buf, size_t len); /* no key: no unit */
void rp_cert_fmt_ns(double ns, char *buf, size_t len);
/* a and b in one unit that shows whether they differ: KiB when that does
 * (8192 vs 40304: "8.00 KiB", "39.36 KiB"), else bytes ("40303 B", "40304 B"). */
void rp_cert_fmt_bytes_pair(uint64_t a, uint64_t b, char *abuf, char *bbuf, size_t len);
/* An axis step of 1, 2, 2.5 or 5 x 10^k, about top / ticks; and a tick's
 * text: 40000 -> "40k", 2.5e6 -> "2.5M", 0.25 -> "0.25", never an exponent. */
double rp_cert_nice_step(double top, int ticks);
void rp_cert_tick_text(double v, char *buf, size_t len);
/* path written whole or not at all (report_file.c): body writes into a
 * temporary file beside it, renamed over path once closed. 0, or -1 with err. */
int rp_cert_write_file(const char *path, void (*body)(FILE *f, const json_t *res), const json_t *res, char *err,
		       size_t errlen);

#endif
