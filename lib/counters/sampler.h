/* NIC counters as a time series: a thread that reads counter sources
 * (sources.h) at a start, every interval and at the end, on a clock the
 * caller gives (a run's common timebase), and keeps each reading as the
 * deltas since the one before (gauges as values). Plain C and pthreads; no
 * DPDK. result.json's counters.nics[] (docs/results.md) is these series. */
#ifndef RP_COUNTERS_SAMPLER_H
#define RP_COUNTERS_SAMPLER_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "counters/snap.h"
#include "counters/sources.h"

/* One reading: t_ns on the caller's clock; port holds the deltas since the
 * series' previous sample (the first, at the start: every count 0, the
 * baseline; later ones only the counts that moved, resets and gauges). */
struct rp_cnt_sample {
	uint64_t t_ns;
	struct rp_cnt_port port;
	uint64_t dur_ns; /* how long the read took (a switch's answer is not instant) */
	/* With the sampler's all_ports (switches): every port of the source here
	 * (port stays empty); without, NULL and 0. */
	size_t nports;
	struct rp_cnt_port *ports;
};

/* One host's source. A host without one (a port with no kernel netdev) has
 * a series with source "" and reason saying why, and no samples. */
struct rp_cnt_series {
	char host[64];
	char source[320]; /* "ethtool:rp0", "sysfs:rp0", "rdma:rxe0"; "" absent */
	char reason[200]; /* why absent, or why reading stopped ("" none) */
	uint64_t interval_ns;
	size_t n, cap;
	struct rp_cnt_sample *s;
};
void rp_cnt_series_free(struct rp_cnt_series *s, size_t n); /* each one's samples, not the array */

struct rp_cnt_sampler {
	uint64_t interval_ns;
	int64_t (*now)(const void *arg); /* the clock (ns) */
	const void *arg;
	int64_t zero_ns; /* t_ns = now - zero_ns (0 before it) */
	size_t n, cap;
	struct rp_cnt_series *series;
	struct rp_cnt_source *src; /* [n]; unused for absent series */
	struct rp_cnt_snap *prev;  /* [n]: the last reading, absolute */
	/* Set before rp_cnt_sampler_start. all_ports: keep every port of the
	 * source (a switch's), not only its first (a NIC's), and a series whose
	 * read fails is not read again, the start sample's too. stopped: called
	 * (from the sampling thread) once when a series' reading stops on an error
	 * (after its start sample; with all_ports also at it), with the reason. */
	bool all_ports;
	void (*stopped)(void *arg, const struct rp_cnt_series *s);
	void *stopped_arg;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool running, stop;
};

/* host's series of spec ("KIND:ARG", sources.h), or with spec NULL an
 * absent one with reason. 0, or -1 with err (a bad spec, out of memory). */
int rp_cnt_sampler_add(struct rp_cnt_sampler *sm, const char *host, const char *spec, const char *reason, char *err,
		       size_t errlen);
/* The start sample of every series now, then (interval_ns > 0) a thread
 * that samples every interval_ns until rp_cnt_sampler_stop. A source that
 * cannot be read at the start: the series keeps the reason, no samples.
 * 0, or -1 with err (the thread could not start). */
int rp_cnt_sampler_start(struct rp_cnt_sampler *sm, uint64_t interval_ns, int64_t (*now)(const void *arg),
			 const void *arg, int64_t zero_ns, char *err, size_t errlen);
/* Stops the thread and takes the end sample. */
void rp_cnt_sampler_stop(struct rp_cnt_sampler *sm);
/* One sampling pass at once (the thread's; tests call it by hand). */
void rp_cnt_sampler_tick(struct rp_cnt_sampler *sm);
/* Hands the series over (*n of them; the caller frees them with
 * rp_cnt_series_free and free()); the sampler keeps none. */
struct rp_cnt_series *rp_cnt_sampler_take(struct rp_cnt_sampler *sm, size_t *n);
void rp_cnt_sampler_free(struct rp_cnt_sampler *sm);

#endif
