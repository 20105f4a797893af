/* `--metrics [ADDR:]PORT`: a command's live numbers served in the Prometheus
 * text format (prom.h) over HTTP, libmicrohttpd driven by a thread of its own
 * that never touches a per-packet path (and is kept off the pollers' CPUs:
 * rp_metrics_avoid_cpus): at each scrape it calls the command's collect
 * callback, which reads counters the packet path keeps anyway (one burst
 * stale at worst, as the progress line), and serves what it wrote.
 *
 *   m = rp_metrics_start("127.0.0.1:9464", ..., key, err, errlen)   the listener, before the work
 *   rp_metrics_collect(m, fn, arg)   once fn's state exists: scrapes call fn from now on
 *   rp_metrics_final(m)              the work is over: fn once more, the text kept, fn
 *                                    never called again (its state may go)
 *   rp_metrics_linger(m, ns, stop)   --metrics-linger: the last scrape sees the final
 *   rp_metrics_stop(m)
 *
 * Every scrape also carries roceprobe_info{version,command}, roceprobe_up 1,
 * roceprobe_done (0 while running, 1 once final) and
 * roceprobe_scrape_collect_seconds. fn runs under the server's lock, so
 * rp_metrics_collect / rp_metrics_final never race a scrape in progress. */
#ifndef RP_METRICS_METRICS_H
#define RP_METRICS_METRICS_H

#include <sched.h> /* cpu_set_t: the project builds with _GNU_SOURCE */
#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "prom.h"

#define RP_METRICS_DEFAULT_ADDR "127.0.0.1"

typedef void (*rp_metrics_fn)(struct rp_prom *out, void *arg);
struct rp_metrics;

/* spec: PORT, ADDR:PORT or [IPv6]:PORT (ADDR a numeric address, never a
 * wildcard: 0.0.0.0 and :: are refused, the listener binds the address
 * scrapers reach; default 127.0.0.1). -1 and an error line in err when the
 * spec is malformed (the caller's exit 2). */
int rp_metrics_parse(const char *spec, char *addr, size_t addrlen, uint16_t *port, char *err, size_t errlen);
/* Who may scrape: with key, only a request carrying `Authorization: Bearer
 * TEXT` where TEXT is the key's own text (what Prometheus sends from a
 * scrape config's `authorization: {credentials_file: F}`), compared as keys
 * (lib/auth: BLAKE2b of the text) in constant time; anything else is 401.
 * Without one only a loopback address is accepted: an address other hosts
 * reach needs a key (NULL err with -1: "needs a key"). NULL on an error,
 * with its line in err (a wildcard, no key off loopback, the port in use). */
struct rp_auth_key;
struct rp_metrics *rp_metrics_start(const char *spec, const char *command, const char *version,
				    const struct rp_auth_key *key, char *err, size_t errlen);
/* The address it listens on, "127.0.0.1:9464" ("[::1]:9464"). */
const char *rp_metrics_where(const struct rp_metrics *m);
void rp_metrics_collect(struct rp_metrics *m, rp_metrics_fn fn, void *arg);
void rp_metrics_final(struct rp_metrics *m);
/* Sleeps ns (CLOCK_MONOTONIC), or until *stop (checked every 50 ms). */
void rp_metrics_linger(const struct rp_metrics *m, uint64_t ns, const volatile sig_atomic_t *stop);
/* Keeps the listener's thread off the busy CPUs (the polling lcores': a
 * scrape must never take a poller's core). 0, or -1 when the thread's
 * CPUs could not be read or set; every CPU busy leaves it as it was. */
int rp_metrics_avoid_cpus(struct rp_metrics *m, const cpu_set_t *busy);
/* How many scrapes were served (tests, the linger's line). */
uint64_t rp_metrics_scrapes(struct rp_metrics *m);
void rp_metrics_stop(struct rp_metrics *m);

#endif
