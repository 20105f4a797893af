/* A normalised counter snapshot of one source: per port the vocabulary keys
 * (port-level and per priority), raw counters the table does not know under
 * their raw names, and gauges; the delta of two snapshots; roceprobe.counters/1
 * (docs/results.md) as JSON and as text. */
#ifndef RP_COUNTERS_SNAP_H
#define RP_COUNTERS_SNAP_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "counters/ctr_names.h"

enum rp_cnt_class {
	RP_CNT_KEY,   /* a vocabulary key: a count (ports[] and ports[].prio[]) */
	RP_CNT_RAW,   /* a count the table does not know (ports[].raw) */
	RP_CNT_GAUGE, /* a level (ports[].gauges): a value, never a delta */
};

/* What a value belongs to. A switch (sonic://) has counters per egress
 * queue and per ingress priority group beside the port's and the
 * priorities'; a queue or PG value keeps its index in prio. */
enum rp_cnt_scope {
	RP_CNT_AT_PORT, /* the port (prio -1) or one of its priorities (prio 0..7) */
	RP_CNT_AT_QUEUE, /* egress queue prio (ports[].queues[]) */
	RP_CNT_AT_PG,    /* ingress priority group prio (ports[].pgs[]) */
};

struct rp_cnt_val {
	char name[64];
	int8_t prio;   /* 0..7, or -1: the port's; the index for a queue or PG */
	uint8_t cls;   /* enum rp_cnt_class */
	bool reset;    /* delta: the counter went backwards (reset or wrap); value 0 */
	uint64_t value;
	uint8_t scope; /* enum rp_cnt_scope (last: older positional initialisers stay in order) */
	uint8_t bits;  /* 32: a Counter32 (SNMP) that wraps at 2^32; 0: 64 bits */
};

struct rp_cnt_port {
	char name[96];
	char driver[32]; /* "" when unknown */
	size_t n, cap;
	struct rp_cnt_val *v;
	uint64_t speed_bps; /* the link's speed where the source tells it (SNMP ifHighSpeed), else 0 */
};

#define RP_CNT_PORTS_MAX 128 /* a SONiC switch has 32 to 128 front-panel ports */
#define RP_CNT_PORTS_MAX_S "128"
struct rp_cnt_snap {
	char source[320];
	uint64_t t_ns;    /* CLOCK_REALTIME: ns since the Unix epoch */
	uint64_t mono_ns; /* CLOCK_MONOTONIC, for intervals */
	size_t nports;
	struct rp_cnt_port port[RP_CNT_PORTS_MAX];
};

/* Adds raw counters to p under the vocabulary (ctr_names.h): known names
 * as their keys (scaled; parts added, duplicates of one event the largest),
 * known gauges as gauges, the rest under their raw names (a raw name seen
 * twice, as in counters/ and hw_counters/, gets "src/" in front). */
void rp_cnt_port_fold(struct rp_cnt_port *p, const struct rp_ctr *raw, size_t n);
/* The same for the counters of one queue or PG (scope) with index idx: the
 * raw counters' port-level keys and gauges become that object's. */
void rp_cnt_port_fold_at(struct rp_cnt_port *p, enum rp_cnt_scope scope, int idx, const struct rp_ctr *raw, size_t n);
/* The value of name (cls, and prio for keys), or NULL. */
const struct rp_cnt_val *rp_cnt_find(const struct rp_cnt_port *p, const char *name, int prio, enum rp_cnt_class cls);
/* The value of name of queue or PG idx (keys and gauges), or NULL. */
const struct rp_cnt_val *rp_cnt_find_at(const struct rp_cnt_port *p, enum rp_cnt_scope scope, int idx, const char *name,
					enum rp_cnt_class cls);
/* A value's name as resets[] and --watch lines give it: "prio3.pfc_rx",
 * "q3.packets", "pg3.drops", or the name of a port-level one. */
void rp_cnt_val_name(const struct rp_cnt_val *v, char *name, size_t len);
/* A new value of p, zeroed (NULL: out of memory): for a reader that has
 * the vocabulary's names already (snap_read.c). */
struct rp_cnt_val *rp_cnt_port_push(struct rp_cnt_port *p);
/* A new port in s (NULL when RP_CNT_PORTS_MAX are there). */
struct rp_cnt_port *rp_cnt_add_port(struct rp_cnt_snap *s, const char *name);
void rp_cnt_snap_free(struct rp_cnt_snap *s);

/* cur - prev per port (matched by name) and counter: counts as differences
 * (0 and reset when one went backwards), gauges as cur's values; a counter
 * or port prev did not have is left out (its first value is the baseline).
 * A Counter32 (bits 32) that went backwards wrapped when the count the wrap
 * implies (cur + 2^32 - prev) fits the interval at the port's line rate
 * (speed_bps: octets speed/8 a second, anything else frames of 84 bytes on
 * the wire, speed/672): then that is its delta; otherwise, or when the speed
 * is unknown, it was reset. */
void rp_cnt_delta(const struct rp_cnt_snap *prev, const struct rp_cnt_snap *cur, struct rp_cnt_snap *out);

/* One roceprobe.counters/1 line: kind "snapshot" (absolute values) or, with
 * delta, "delta" over interval_ns. */
json_t *rp_cnt_json(const struct rp_cnt_snap *s, bool delta, uint64_t interval_ns);
/* One port of it, as in roceprobe.counters/1's ports[]: name, driver, the
 * port-level keys, prio[], raw, gauges (and with delta, resets), and where
 * the source has them queues[] and pgs[] (keys and gauges of each). result.json's
 * environment.ports[].xstats and counters.nics[] samples are this too. */
json_t *rp_cnt_port_json(const struct rp_cnt_port *p, bool delta);
/* The reader of what rp_cnt_json writes (snap_read.c): one
 * roceprobe.counters/1 line (len bytes, no newline needed) -> out (freed
 * first), *delta (kind "delta") and *interval_ns (0 for a snapshot). Keys of
 * ports[] and prio[] are counts, raw{} raw, gauges{} gauges; queues[] and
 * pgs[] members by the vocabulary (rp_ctr_key_is_gauge); resets[] marked.
 * 0, or -1 with one line in err (not JSON, another schema, a key missing or
 * of the wrong type, more than RP_CNT_PORTS_MAX ports). */
int rp_cnt_json_read(const char *line, size_t len, struct rp_cnt_snap *out, bool *delta, uint64_t *interval_ns,
		     char *err, size_t errlen);

/* The snapshot as text: per port the keys, a per-priority table, raw and gauges. */
void rp_cnt_print(FILE *f, const struct rp_cnt_snap *s);
/* One line of a --watch: t_s, the source, and every nonzero delta per port
 * (prio3.pfc_rx+5, rx_packets+100, name=reset); gauges are left out. */
void rp_cnt_print_delta(FILE *f, const struct rp_cnt_snap *d, double t_s);

#endif
