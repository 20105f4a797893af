/* The metrics listener (metrics.h): libmicrohttpd on a socket bound here (so
 * a port in use is one clear line), driven by a thread of ours (MHD_run_wait)
 * whose CPUs the command can choose. */
#include "metrics.h"

#include <stdbool.h>

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "auth/auth.h"

struct rp_metrics {
	struct MHD_Daemon *d;
	pthread_t thread; /* ours, running MHD_run_wait: so its CPUs can be chosen (rp_metrics_avoid_cpus) */
	volatile int quit;
	int fd;
	char where[INET6_ADDRSTRLEN + 16];
	bool keyed;
	struct rp_auth_key key; /* with keyed: every scrape proves it */
	const char *command, *version;
	pthread_mutex_t lock; /* fn, arg, final, scrapes */
	rp_metrics_fn fn;
	void *arg;
	char *final;
	size_t final_len;
	uint64_t scrapes;
};

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int rp_metrics_parse(const char *spec, char *addr, size_t addrlen, uint16_t *port, char *err, size_t errlen)
{
	const char *p = spec, *colon = strrchr(spec, ':');
	size_t alen = 0;
	const char *a = RP_METRICS_DEFAULT_ADDR;
	if (colon) {
		p = colon + 1;
		a = spec;
		alen = (size_t)(colon - spec);
		if (alen >= 2 && spec[0] == '[' && spec[alen - 1] == ']')
			a = spec + 1, alen -= 2;
	} else
		alen = strlen(a);
	char *end;
	errno = 0;
	unsigned long v = strtoul(p, &end, 10);
	if (!*p || *end || errno || v == 0 || v > 65535 || alen == 0 || alen >= addrlen) {
		snprintf(err, errlen, "--metrics: expected [ADDR:]PORT (9464, 127.0.0.1:9464, [::1]:9464), got '%s'", spec);
		return -1;
	}
	memcpy(addr, a, alen);
	addr[alen] = '\0';
	struct in6_addr a6;
	struct in_addr a4;
	bool v4 = inet_pton(AF_INET, addr, &a4) == 1;
	if (!v4 && inet_pton(AF_INET6, addr, &a6) != 1) {
		snprintf(err, errlen, "--metrics: '%s' is not a numeric IPv4 or IPv6 address (in '%s')", addr, spec);
		return -1;
	}
	if (v4 ? a4.s_addr == htonl(INADDR_ANY) : IN6_IS_ADDR_UNSPECIFIED(&a6)) {
		snprintf(err, errlen, "--metrics: '%s' is every address of this host: give the one the scrapers reach "
			 "(127.0.0.1 for a Prometheus on this host)", addr);
		return -1;
	}
	*port = (uint16_t)v;
	return 0;
}


/* What one scrape gets: the process's own lines, then the command's. */
static void scrape(struct rp_metrics *m, struct rp_prom *out)
{
	const struct rp_prom_label info[] = {{"version", m->version}, {"command", m->command}};
	rp_prom_family(out, "roceprobe_info", "gauge", "roceprobe's version and the command serving these metrics.");
	rp_prom_u64(out, "roceprobe_info", info, 2, 1);
	rp_prom_family(out, "roceprobe_up", "gauge", "1 while roceprobe serves metrics.");
	rp_prom_u64(out, "roceprobe_up", NULL, 0, 1);
	rp_prom_family(out, "roceprobe_done", "gauge",
		       "Whether the work is over: then (1) the values below are the final ones (result.json's).");
	rp_prom_u64(out, "roceprobe_done", NULL, 0, m->final != NULL);
	if (m->final) {
		rp_prom_append(out, m->final, m->final_len);
		return;
	}
	uint64_t t = mono_ns();
	struct rp_prom body;
	rp_prom_init(&body);
	if (m->fn)
		m->fn(&body, m->arg);
	rp_prom_family(out, "roceprobe_scrape_collect_seconds", "gauge", "Time this scrape took to read the counters.");
	rp_prom_ns(out, "roceprobe_scrape_collect_seconds", NULL, 0, mono_ns() - t);
	if (body.oom)
		out->oom = true;
	else if (body.len)
		rp_prom_append(out, body.buf, body.len);
	rp_prom_free(&body);
}

static enum MHD_Result answer(struct MHD_Connection *c, unsigned status, const char *type, char *body, size_t len)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
	if (!r) {
		free(body);
		return MHD_NO;
	}
	MHD_add_response_header(r, "Content-Type", type);
	enum MHD_Result ok = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ok;
}

/* A keyed listener: the request's `Authorization: Bearer TEXT` names the key. */
static bool proves_key(const struct rp_metrics *m, struct MHD_Connection *c)
{
	if (!m->keyed)
		return true;
	const char *h = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
	struct rp_auth_key got;
	char err[128];
	if (!h || strncasecmp(h, "Bearer ", 7) != 0 || rp_auth_key_from_text(h + 7, strlen(h + 7), &got, err, sizeof(err)))
		return false;
	return rp_auth_proof_ok(m->key.k, got.k);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url, const char *method,
				  const char *version, const char *upload, size_t *upload_len, void **state)
{
	struct rp_metrics *m = cls;
	(void)version, (void)upload;
	if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
		return answer(c, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain", strdup("GET /metrics\n"), 13);
	if (!*state) { /* the first call is the headers alone */
		*state = m;
		return MHD_YES;
	}
	if (*upload_len)
		return MHD_NO;
	if (!proves_key(m, c)) {
		const char *t = "roceprobe: this listener needs its key: Authorization: Bearer <the key file's text>\n";
		return answer(c, MHD_HTTP_UNAUTHORIZED, "text/plain", strdup(t), strlen(t));
	}
	if (strcmp(url, "/metrics") != 0) {
		const char *t = "roceprobe: the metrics are at /metrics (Prometheus text format)\n";
		return answer(c, strcmp(url, "/") == 0 ? MHD_HTTP_OK : MHD_HTTP_NOT_FOUND, "text/plain", strdup(t),
			      strlen(t));
	}
	struct rp_prom out;
	rp_prom_init(&out);
	pthread_mutex_lock(&m->lock);
	m->scrapes++;
	scrape(m, &out);
	pthread_mutex_unlock(&m->lock);
	size_t n;
	char *b = rp_prom_take(&out, &n);
	if (!b)
		return answer(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "text/plain", strdup("out of memory\n"), 14);
	return answer(c, MHD_HTTP_OK, "text/plain; version=0.0.4; charset=utf-8", b, n);
}

/* The listener's thread: MHD's work, a tenth of a second at most between
 * looks at quit. */
static void *serve(void *arg)
{
	struct rp_metrics *m = arg;
	while (!m->quit)
		MHD_run_wait(m->d, 100);
	return NULL;
}

static int listen_on(struct rp_metrics *m, const char *addr, uint16_t port, char *err, size_t errlen)
{
	struct sockaddr_storage ss = {0};
	socklen_t sl;
	struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
	bool loopback;
	if (inet_pton(AF_INET, addr, &s4->sin_addr) == 1) {
		s4->sin_family = AF_INET, s4->sin_port = htons(port), sl = sizeof(*s4);
		loopback = (ntohl(s4->sin_addr.s_addr) >> 24) == 127;
		snprintf(m->where, sizeof(m->where), "%s:%u", addr, port);
	} else {
		inet_pton(AF_INET6, addr, &s6->sin6_addr);
		s6->sin6_family = AF_INET6, s6->sin6_port = htons(port), sl = sizeof(*s6);
		loopback = IN6_IS_ADDR_LOOPBACK(&s6->sin6_addr);
		snprintf(m->where, sizeof(m->where), "[%s]:%u", addr, port);
	}
	if (!loopback && !m->keyed) {
		snprintf(err, errlen, "--metrics: %s is reachable from other hosts: give it a key (--metrics-key-file F, "
			 "or ROCEPROBE_KEY; Prometheus sends it with authorization: {credentials_file: F}), or listen on "
			 "127.0.0.1", m->where);
		return -1;
	}
	int one = 1;
	m->fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (m->fd < 0 || setsockopt(m->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(m->fd, (struct sockaddr *)&ss, sl) || listen(m->fd, 16)) {
		snprintf(err, errlen, "--metrics: cannot listen on %s: %s%s", m->where, strerror(errno),
			 errno == EADDRINUSE ? " (another process has it: pick another port)" : "");
		return -1;
	}
	return 0;
}

struct rp_metrics *rp_metrics_start(const char *spec, const char *command, const char *version,
				    const struct rp_auth_key *key, char *err, size_t errlen)
{
	char addr[INET6_ADDRSTRLEN];
	uint16_t port;
	if (rp_metrics_parse(spec, addr, sizeof(addr), &port, err, errlen))
		return NULL;
	struct rp_metrics *m = calloc(1, sizeof(*m));
	if (!m) {
		snprintf(err, errlen, "--metrics: out of memory");
		return NULL;
	}
	m->fd = -1;
	m->command = command;
	m->version = version;
	if (key) {
		m->keyed = true;
		m->key = *key;
	}
	pthread_mutex_init(&m->lock, NULL);
	if (listen_on(m, addr, port, err, errlen))
		goto fail;
	/* The server's thread takes no stop signal: SIGINT/SIGTERM stay the
	 * main thread's, whose sleeps they cut short. */
	sigset_t stop, old;
	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	m->d = MHD_start_daemon(0, 0, NULL, NULL, on_request, m, MHD_OPTION_LISTEN_SOCKET, m->fd,
				MHD_OPTION_CONNECTION_LIMIT, (unsigned)16, MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)10,
				MHD_OPTION_END);
	if (!m->d) {
		snprintf(err, errlen, "--metrics: libmicrohttpd did not start on %s", m->where);
		goto fail;
	}
	pthread_sigmask(SIG_BLOCK, &stop, &old);
	int rc = pthread_create(&m->thread, NULL, serve, m);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc) {
		snprintf(err, errlen, "--metrics: no thread for the listener: %s", strerror(rc));
		MHD_stop_daemon(m->d);
		pthread_mutex_destroy(&m->lock);
		free(m);
		return NULL;
	}
	pthread_setname_np(m->thread, "rp-metrics");
	return m;
fail:
	if (m->fd >= 0)
		close(m->fd);
	pthread_mutex_destroy(&m->lock);
	free(m);
	return NULL;
}

const char *rp_metrics_where(const struct rp_metrics *m) { return m->where; }

void rp_metrics_collect(struct rp_metrics *m, rp_metrics_fn fn, void *arg)
{
	if (!m)
		return;
	pthread_mutex_lock(&m->lock);
	m->fn = fn;
	m->arg = arg;
	pthread_mutex_unlock(&m->lock);
}

void rp_metrics_final(struct rp_metrics *m)
{
	if (!m)
		return;
	pthread_mutex_lock(&m->lock);
	if (!m->final) {
		struct rp_prom out;
		rp_prom_init(&out);
		if (m->fn)
			m->fn(&out, m->arg);
		m->final = rp_prom_take(&out, &m->final_len);
		if (!m->final)
			m->final = strdup(""), m->final_len = 0;
		m->fn = NULL;
		m->arg = NULL;
	}
	pthread_mutex_unlock(&m->lock);
}

void rp_metrics_linger(const struct rp_metrics *m, uint64_t ns, const volatile sig_atomic_t *stop)
{
	if (!m || !ns)
		return;
	uint64_t end = mono_ns() + ns;
	while ((!stop || !*stop) && mono_ns() < end) {
		uint64_t left = end - mono_ns();
		struct timespec ts = {.tv_sec = 0, .tv_nsec = (long)(left < 50000000ull ? left : 50000000ull)};
		nanosleep(&ts, NULL);
	}
}

uint64_t rp_metrics_scrapes(struct rp_metrics *m)
{
	pthread_mutex_lock(&m->lock);
	uint64_t n = m->scrapes;
	pthread_mutex_unlock(&m->lock);
	return n;
}

int rp_metrics_avoid_cpus(struct rp_metrics *m, const cpu_set_t *busy)
{
	if (!m)
		return 0;
	cpu_set_t set;
	CPU_ZERO(&set);
	if (pthread_getaffinity_np(m->thread, sizeof(set), &set))
		return -1;
	cpu_set_t keep;
	CPU_ZERO(&keep);
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set) && !CPU_ISSET(c, busy))
			CPU_SET(c, &keep);
	if (CPU_COUNT(&keep) == 0) /* every CPU polls: nothing to choose */
		return 0;
	return pthread_setaffinity_np(m->thread, sizeof(keep), &keep) ? -1 : 0;
}

void rp_metrics_stop(struct rp_metrics *m)
{
	if (!m)
		return;
	m->quit = 1;
	pthread_join(m->thread, NULL);
	MHD_stop_daemon(m->d); /* closes the listening socket too (it was given to it) */
	pthread_mutex_destroy(&m->lock);
	explicit_bzero(&m->key, sizeof(m->key));
	free(m->final);
	free(m);
}
