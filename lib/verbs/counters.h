/* Port counters before, after and during a run, and their deltas under one
 * set of names whichever driver produced them.
 *
 * Sources (all read as files or one ioctl; no command output is parsed):
 *   port  /sys/class/infiniband/DEV/ports/P/counters/    (IBTA PortCounters)
 *   hw    /sys/class/infiniband/DEV/ports/P/hw_counters/ (driver specific)
 *   eth   the netdev's ethtool statistics via SIOCETHTOOL (ETHTOOL_GSTRINGS +
 *         ETHTOOL_GSTATS): per-priority PFC pause frames and pause time.
 *
 * Each driver names the same event differently (mlx5 "np_cnp_sent", bnxt_re
 * "cnp_tx_pkts", irdma "cnpSent"); rp_ctr_normalise maps the known ones to
 * one name (lib/counters/ctr_names.c, the one table; docs/verbs.md). Unknown counters are kept under
 * their raw "src/name" so nothing a driver reports is lost. */
#ifndef RP_VERBS_COUNTERS_H
#define RP_VERBS_COUNTERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "counters/ctr_names.h" /* struct rp_ctr, the name table */

#define RP_CTR_MAX 1024

struct rp_ctr_snap {
	uint64_t t_ns; /* CLOCK_MONOTONIC */
	size_t n;
	struct rp_ctr c[RP_CTR_MAX];
};

struct rp_ctr_source {
	char sysfs_root[128]; /* "/sys/class/infiniband"; tests point it at a fake tree */
	char dev[64];
	unsigned port;
	char netdev[32]; /* "" skips the ethtool part */
};

/* Reads every source; missing directories or an ethtool-less netdev are not
 * errors (rxe has no PortCounters; virtio-net no pause counters). Returns the
 * number of counters read. */
size_t rp_ctr_snapshot(const struct rp_ctr_source *s, struct rp_ctr_snap *out);

/* after - before per raw counter present in both; out[i].name is "src/name".
 * A counter that went backwards (reset, or a 32-bit port counter that
 * wrapped) gives 0 rather than a huge number. */
size_t rp_ctr_delta(const struct rp_ctr_snap *before, const struct rp_ctr_snap *after,
		    struct rp_ctr *out, size_t max);
/* Folds raw deltas (as from rp_ctr_delta) into normalised names, in the
 * order first seen. When several raw counters of one device map to one name
 * (a device with both PortCounters and its own packet counters) they count the
 * same events, so the largest is kept rather than the sum. */
size_t rp_ctr_fold(const struct rp_ctr *delta, size_t n, struct rp_ctr *out, size_t max);

/* ethtool statistics of ifname (lib/counters/ethtool.c) kept for ep: the
 * ones that normalise, and any with pause/pfc/prio/xoff/discard in their name. Returns how many were added to
 * out, or -1 with err set (no such device, driver without statistics). */
int rp_ethtool_stats(const char *ifname, struct rp_ctr *out, size_t max, char *err, size_t errlen);

/* Periodic sampling from a thread while a run goes on: every interval the
 * normalised deltas since start. */
struct rp_ctr_sample {
	uint64_t t_ns; /* since the sampler started */
	size_t n;
	struct rp_ctr c[64];
};
struct rp_ctr_sampler; /* opaque */
struct rp_ctr_sampler *rp_ctr_sampler_start(const struct rp_ctr_source *s, unsigned interval_ms);
/* Stops the thread; the samples stay readable until rp_ctr_sampler_free. */
void rp_ctr_sampler_stop(struct rp_ctr_sampler *smp);
size_t rp_ctr_sampler_count(const struct rp_ctr_sampler *smp);
const struct rp_ctr_sample *rp_ctr_sampler_get(const struct rp_ctr_sampler *smp, size_t i);
void rp_ctr_sampler_free(struct rp_ctr_sampler *smp);

#endif
