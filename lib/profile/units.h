/* Sizes, rates, durations and counts as engineers write them: 64KiB, 100G,
 * 25%, 50us. Parsers return 0 or -1 and never print. */
#ifndef RP_PROFILE_UNITS_H
#define RP_PROFILE_UNITS_H

#include <stddef.h>
#include <stdint.h>

/* Bytes: 64, 64B, 1.5KiB, 4KiB, 1MiB, 1GiB (1024-based); 1KB, 1MB, 1GB
 * (1000-based). A bare K/M/G is refused as ambiguous. */
int rp_parse_size(const char *s, uint64_t *bytes);

/* Bit/s: 100G, 25Gbps, 400Mbit/s, 12.5Gb/s, 10000bps. A unit is required. */
int rp_parse_bitrate(const char *s, uint64_t *bps);

/* A rate is absolute (bps) or a share of the link (ppm > 0: parts per
 * million of the sender's link speed, "25%" is 250000). */
struct rp_rate {
	uint64_t bps;
	uint32_t ppm;
};
int rp_parse_rate(const char *s, struct rp_rate *r);
/* The rate in bit/s on a link of link_bps. */
uint64_t rp_rate_bps(const struct rp_rate *r, uint64_t link_bps);

/* Nanoseconds: 100ns, 50us (or µs), 1.5ms, 2s; a bare 0 is allowed. */
int rp_parse_duration(const char *s, uint64_t *ns);

/* A whole number (1000000, 1_000_000, 0x10) no larger than max. */
int rp_parse_uint(const char *s, uint64_t max, uint64_t *v);

/* A plain number (0.9, 1e-3) or, with pct, a percentage ("90%" is 0.9),
 * within [lo, hi]. */
int rp_parse_share(const char *s, int pct, double lo, double hi, double *v);

/* "yes"/"true"/"on"/"1" and "no"/"false"/"off"/"0". */
int rp_parse_bool(const char *s, int *v);

/* Formatters for humans; each returns out. */
char *rp_format_size(uint64_t bytes, char *out, size_t len);   /* "64KiB", "10000B" */
char *rp_format_bps(uint64_t bps, char *out, size_t len);      /* "100G", "12.5G", "400M" */
char *rp_format_ns(uint64_t ns, char *out, size_t len);        /* "50us", "1.5ms", "120ns" */

#endif
