/* The Prometheus text exposition format, version 0.0.4 (the format every
 * Prometheus server scrapes; prometheus.io/docs/instrumenting/exposition_formats/):
 * written into a growable buffer, no I/O, no clock. Names follow Prometheus'
 * conventions (prometheus.io/docs/practices/naming/): a `roceprobe_` prefix,
 * base units (seconds, bytes), counters end in `_total`.
 *
 *   # HELP roceprobe_flow_rx_packets_total Probe data packets the flow's receiver counted.
 *   # TYPE roceprobe_flow_rx_packets_total counter
 *   roceprobe_flow_rx_packets_total{flow="0",src="h0",dst="h1",prio="3"} 79920
 *
 * A family's HELP and TYPE come once, before its samples (rp_prom_family);
 * label values are escaped (\\, \", \n). Out of memory leaves the buffer
 * marked (oom) and every later call does nothing. */
#ifndef RP_METRICS_PROM_H
#define RP_METRICS_PROM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rp_hist;

struct rp_prom {
	char *buf;
	size_t len, cap;
	bool oom;
};

/* One label: name="value". A sample takes up to RP_PROM_MAX_LABELS. */
struct rp_prom_label {
	const char *name;
	const char *value;
};
#define RP_PROM_MAX_LABELS 8

void rp_prom_init(struct rp_prom *p);
void rp_prom_free(struct rp_prom *p);
/* Hands the text over (the caller frees it); p is empty again. NULL after an oom. */
char *rp_prom_take(struct rp_prom *p, size_t *len);

/* n bytes of text already in the format (another writer's, a kept final). */
void rp_prom_append(struct rp_prom *p, const char *text, size_t n);
/* type: "counter", "gauge" or "histogram". */
void rp_prom_family(struct rp_prom *p, const char *name, const char *type, const char *help);
void rp_prom_u64(struct rp_prom *p, const char *name, const struct rp_prom_label *l, size_t nl, uint64_t v);
void rp_prom_f64(struct rp_prom *p, const char *name, const struct rp_prom_label *l, size_t nl, double v);
/* Nanoseconds as seconds, exactly (the decimal of ns / 1e9, no rounding). */
void rp_prom_ns(struct rp_prom *p, const char *name, const struct rp_prom_label *l, size_t nl, uint64_t ns);

/* A histogram of nanoseconds (lib/stats/hist.h) as a Prometheus histogram in
 * seconds: name_bucket{le=...} cumulative, name_sum, name_count. The buckets
 * are edges of the log-linear histogram itself, 2^k - 1 and 3 x 2^(k-1) - 1
 * ns (255 ns, 383 ns, 511 ns ... 2^34 - 1 ns, about 17 s), then +Inf, so
 * every bucket's count is exact: samples <= le, none split. _sum is the
 * exact sum of the samples. */
void rp_prom_hist(struct rp_prom *p, const char *name, const struct rp_prom_label *l, size_t nl,
		  const struct rp_hist *h);
/* The `le` edges in ns (ascending, +Inf not among them), for tests and docs. */
size_t rp_prom_hist_edges(uint64_t *edges, size_t max);

#endif
