/* A switch's counters -> SONiC's COUNTERS_DB over hiredis (sonic_pub.h).
 * The keys are the ones sonic-swss orchagent writes (portsorch.cpp
 * generatePortCounterMap, generateQueueMapPerPort,
 * generatePriorityGroupMapPerPort; watermarkorch.cpp) and sonic.c reads
 * (sonic-utilities scripts/pfcstat, queuestat, watermarkstat); every name
 * comes from sonic_db.h, the header ctr_names.c's table is written with. */
#include "counters/sonic_pub.h"

#include <errno.h>
#include <hiredis/hiredis.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include "counters/sonic_db.h"

#define OID_PORT 0x1ull   /* sai_object_type_t SAI_OBJECT_TYPE_PORT */
#define OID_QUEUE 0x15ull /* SAI_OBJECT_TYPE_QUEUE */
#define OID_PG 0x1aull    /* SAI_OBJECT_TYPE_INGRESS_PRIORITY_GROUP */
#define QUEUE_TYPE "SAI_QUEUE_TYPE_UNICAST" /* COUNTERS_QUEUE_TYPE_MAP's value, as queuestat reads it */

struct rp_sonic_pub {
	redisContext *c;
	char where[300]; /* "--publish redis://HOST:PORT" for messages */
	char who[64];
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool pending, stop, dead;
	struct rp_sonic_snap next; /* handed over under mu */
	struct rp_sonic_snap work; /* the thread's own */
};

int rp_sonic_pub_url(const char *url, char *host, size_t hostlen, int *port, char *err, size_t errlen)
{
	static const char scheme[] = "redis://";
	const char *h = url, *end;
	if (strncmp(url, scheme, sizeof(scheme) - 1) != 0)
		goto bad;
	h += sizeof(scheme) - 1;
	if (*h == '[') {
		end = strchr(h, ']');
		if (!end)
			goto bad;
		h++;
	} else {
		end = h + strcspn(h, ":/");
	}
	if (end == h || (size_t)(end - h) >= hostlen)
		goto bad;
	memcpy(host, h, (size_t)(end - h));
	host[end - h] = '\0';
	if (*end == ']')
		end++;
	*port = 6379;
	if (*end == ':') {
		char *e;
		errno = 0;
		unsigned long v = strtoul(end + 1, &e, 10);
		if (errno || e == end + 1 || *e || v == 0 || v > 65535)
			goto bad;
		*port = (int)v;
	} else if (*end) {
		goto bad;
	}
	return 0;
bad:
	snprintf(err, errlen, "--publish: expected redis://HOST[:PORT] like redis://127.0.0.1:6379, got '%s'", url);
	return -1;
}

/* One command's arguments, built with printf formats. */
#define ARGS_MAX 96
struct cmd {
	int n;
	char a[ARGS_MAX][96];
	const char *argv[ARGS_MAX];
	size_t len[ARGS_MAX];
};

__attribute__((format(printf, 2, 3))) static void arg(struct cmd *c, const char *fmt, ...)
{
	if (c->n == ARGS_MAX)
		return; /* not reached: the largest command has 74 */
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(c->a[c->n], sizeof(c->a[0]), fmt, ap);
	va_end(ap);
	c->argv[c->n] = c->a[c->n];
	c->len[c->n] = strlen(c->a[c->n]);
	c->n++;
}

static void field(struct cmd *c, const char *name, uint64_t v)
{
	arg(c, "%s", name);
	arg(c, "%" PRIu64, v);
}

static void field_prio(struct cmd *c, const char *fmt, unsigned prio, uint64_t v)
{
	char name[96];
	snprintf(name, sizeof(name), fmt, prio);
	field(c, name, v);
}

static void start(struct cmd *c, const char *table, const char *key)
{
	c->n = 0;
	arg(c, "HSET");
	if (key)
		arg(c, "%s:%s", table, key);
	else
		arg(c, "%s", table);
}

/* Appends c to the pipeline; *count counts the replies to read. */
static void send_cmd(struct rp_sonic_pub *p, struct cmd *c, size_t *count)
{
	redisAppendCommandArgv(p->c, c->n, c->argv, c->len);
	(*count)++;
}

static void oid(char *buf, size_t n, uint64_t type, uint64_t idx)
{
	snprintf(buf, n, "oid:0x%" PRIx64, (type << 48) | idx);
}

/* Port i's maps and hashes (the thread's cmd is large: static, one thread). */
static void append_port(struct rp_sonic_pub *p, unsigned i, const struct rp_sonic_port *s, size_t *count)
{
	static struct cmd c;
	char po[40], qo[RP_SONIC_PUB_PRIOS][40], go[RP_SONIC_PUB_PRIOS][40];
	oid(po, sizeof(po), OID_PORT, i + 1);
	for (unsigned q = 0; q < RP_SONIC_PUB_PRIOS; q++) {
		oid(qo[q], sizeof(qo[q]), OID_QUEUE, ((uint64_t)(i + 1) << 8) | q);
		oid(go[q], sizeof(go[q]), OID_PG, ((uint64_t)(i + 1) << 8) | q);
	}
	start(&c, RP_SONIC_PORT_NAME_MAP, NULL);
	arg(&c, "%s", s->name);
	arg(&c, "%s", po);
	send_cmd(p, &c, count);

	start(&c, RP_SONIC_COUNTERS, po);
	for (unsigned q = 0; q < RP_SONIC_PUB_PRIOS; q++) {
		field_prio(&c, RP_SAI_PORT_PFC_RX_PKTS, q, s->pfc_rx[q]);
		field_prio(&c, RP_SAI_PORT_PFC_TX_PKTS, q, s->pfc_tx[q]);
		field_prio(&c, RP_SAI_PORT_PFC_RX_PAUSE_US, q, s->pause_us_rx[q]);
		field_prio(&c, RP_SAI_PORT_PFC_TX_PAUSE_US, q, s->pause_us_tx[q]);
	}
	field(&c, RP_SAI_PORT_IN_OCTETS, s->in_octets);
	field(&c, RP_SAI_PORT_OUT_OCTETS, s->out_octets);
	field(&c, RP_SAI_PORT_IN_DISCARDS, s->in_discards);
	field(&c, RP_SAI_PORT_OUT_DISCARDS, s->out_discards);
	field(&c, RP_SAI_PORT_IN_UCAST_PKTS, s->in_ucast_pkts);
	field(&c, RP_SAI_PORT_OUT_UCAST_PKTS, s->out_ucast_pkts);
	send_cmd(p, &c, count);

	/* the name maps and what portsorch writes beside them */
	static const char *const name_maps[2] = {RP_SONIC_QUEUE_NAME_MAP, RP_SONIC_PG_NAME_MAP};
	static const char *const index_maps[2] = {RP_SONIC_QUEUE_INDEX_MAP, RP_SONIC_PG_INDEX_MAP};
	static const char *const port_maps[2] = {RP_SONIC_QUEUE_PORT_MAP, RP_SONIC_PG_PORT_MAP};
	for (unsigned k = 0; k < 2; k++) {
		char(*ids)[40] = k ? go : qo;
		start(&c, name_maps[k], NULL);
		for (unsigned q = 0; q < RP_SONIC_PUB_PRIOS; q++) {
			arg(&c, "%s:%u", s->name, q);
			arg(&c, "%s", ids[q]);
		}
		send_cmd(p, &c, count);
		start(&c, index_maps[k], NULL);
		for (unsigned q = 0; q < RP_SONIC_PUB_PRIOS; q++) {
			arg(&c, "%s", ids[q]);
			arg(&c, "%u", q);
		}
		send_cmd(p, &c, count);
		start(&c, port_maps[k], NULL);
		for (unsigned q = 0; q < RP_SONIC_PUB_PRIOS; q++) {
			arg(&c, "%s", ids[q]);
			arg(&c, "%s", po);
		}
		send_cmd(p, &c, count);
	}
	start(&c, RP_SONIC_QUEUE_TYPE_MAP, NULL);
	for (unsigned q = 0; q < RP_SONIC_PUB_PRIOS; q++) {
		arg(&c, "%s", qo[q]);
		arg(&c, "%s", QUEUE_TYPE);
	}
	send_cmd(p, &c, count);

	static const char *const wm_tables[2] = {RP_SONIC_USER_WM, RP_SONIC_PERSISTENT_WM};
	for (unsigned q = 0; q < RP_SONIC_PUB_PRIOS; q++) {
		const struct rp_sonic_queue *u = &s->queue[q];
		const struct rp_sonic_pg *g = &s->pg[q];
		start(&c, RP_SONIC_COUNTERS, qo[q]);
		field(&c, RP_SAI_QUEUE_PACKETS, u->packets);
		field(&c, RP_SAI_QUEUE_BYTES, u->bytes);
		field(&c, RP_SAI_QUEUE_DROPPED_PACKETS, u->dropped_packets);
		field(&c, RP_SAI_QUEUE_DROPPED_BYTES, u->dropped_bytes);
		field(&c, RP_SAI_QUEUE_ECN_MARKED, u->ecn_marked);
		if (u->wd) {
			/* the counts pfcactionhandler.cpp keeps that the model counts
			 * too; not its TX/RX_(DROPPED_)PACKETS(_LAST): they are the
			 * queue's counts over its storms, which the model does not
			 * keep apart (sonic_pub.h), nor the Lua detector's timers */
			field(&c, RP_SONIC_WD_DETECTED, u->wd_detected);
			field(&c, RP_SONIC_WD_RESTORED, u->wd_restored);
			arg(&c, "%s", RP_SONIC_WD_STATUS);
			arg(&c, "%s", u->wd_detected > u->wd_restored ? RP_SONIC_WD_STORMED : RP_SONIC_WD_OPERATIONAL);
		}
		send_cmd(p, &c, count);
		start(&c, RP_SONIC_COUNTERS, go[q]);
		field(&c, RP_SAI_PG_PACKETS, g->packets);
		field(&c, RP_SAI_PG_DROPPED_PACKETS, g->dropped_packets);
		send_cmd(p, &c, count);
		for (unsigned t = 0; t < 2; t++) {
			start(&c, wm_tables[t], qo[q]);
			field(&c, RP_SAI_QUEUE_SHARED_WM, u->wm_bytes);
			send_cmd(p, &c, count);
			start(&c, wm_tables[t], go[q]);
			field(&c, RP_SAI_PG_SHARED_WM, g->shared_wm_bytes);
			field(&c, RP_SAI_PG_XOFF_ROOM_WM, g->xoff_room_wm_bytes);
			send_cmd(p, &c, count);
		}
	}
}

/* One snapshot in one MULTI/EXEC. 0, or -1 with err. */
static int publish(struct rp_sonic_pub *p, const struct rp_sonic_snap *s, char *err, size_t errlen)
{
	size_t count = 0;
	redisAppendCommand(p->c, "MULTI");
	count++;
	/* The maps hold this switch's objects alone: a port an earlier run
	 * published (more ports, other names) is gone from them. */
	static const char *const maps[] = {RP_SONIC_PORT_NAME_MAP,  RP_SONIC_QUEUE_NAME_MAP, RP_SONIC_QUEUE_INDEX_MAP,
					   RP_SONIC_QUEUE_PORT_MAP, RP_SONIC_QUEUE_TYPE_MAP, RP_SONIC_PG_NAME_MAP,
					   RP_SONIC_PG_INDEX_MAP,   RP_SONIC_PG_PORT_MAP};
	for (size_t m = 0; m < sizeof(maps) / sizeof(maps[0]); m++) {
		redisAppendCommand(p->c, "DEL %s", maps[m]);
		count++;
	}
	for (unsigned i = 0; i < s->nports && i < RP_SONIC_PUB_PORTS; i++)
		append_port(p, i, &s->port[i], &count);
	redisAppendCommand(p->c, "EXEC");
	count++;
	int rc = 0;
	for (size_t k = 0; k < count; k++) {
		redisReply *r = NULL;
		if (redisGetReply(p->c, (void **)&r) != REDIS_OK || !r) {
			snprintf(err, errlen, "the server went away (%s)", p->c->errstr[0] ? p->c->errstr : "no answer");
			return -1;
		}
		if (!rc && (r->type == REDIS_REPLY_ERROR || (k == count - 1 && r->type != REDIS_REPLY_ARRAY))) {
			snprintf(err, errlen, "the server answered: %.150s",
				 r->type == REDIS_REPLY_ERROR ? r->str : "EXEC did not run the writes");
			rc = -1;
		}
		freeReplyObject(r);
	}
	return rc;
}

static void *run(void *arg)
{
	struct rp_sonic_pub *p = arg;
	for (;;) {
		pthread_mutex_lock(&p->mu);
		while (!p->pending && !p->stop)
			pthread_cond_wait(&p->cv, &p->mu);
		bool have = p->pending, stop = p->stop;
		if (have) {
			p->work.nports = p->next.nports;
			memcpy(p->work.port, p->next.port, p->next.nports * sizeof(p->next.port[0]));
		}
		p->pending = false;
		pthread_mutex_unlock(&p->mu);
		char err[300];
		if (have && !p->dead && publish(p, &p->work, err, sizeof(err)) != 0) {
			/* one line; the switch goes on */
			fprintf(stderr, "%s: %s: %s; publishing stops, the switch goes on\n", p->who, p->where, err);
			pthread_mutex_lock(&p->mu);
			p->dead = true;
			pthread_mutex_unlock(&p->mu);
		}
		if (stop)
			return NULL;
	}
}

struct rp_sonic_pub *rp_sonic_pub_open(const char *url, const char *who, char *err, size_t errlen)
{
	char host[256];
	int port;
	if (rp_sonic_pub_url(url, host, sizeof(host), &port, err, errlen) != 0)
		return NULL;
	struct rp_sonic_pub *p = calloc(1, sizeof(*p));
	if (!p) {
		snprintf(err, errlen, "--publish: out of memory");
		return NULL;
	}
	snprintf(p->where, sizeof(p->where), "--publish %s", url);
	snprintf(p->who, sizeof(p->who), "%s", who);
	struct timeval tv = {.tv_sec = 2};
	p->c = redisConnectWithTimeout(host, port, tv);
	if (!p->c || p->c->err) {
		snprintf(err, errlen, "%s: cannot connect: %s (is redis-server listening there?)", p->where,
			 p->c ? p->c->errstr : "out of memory");
		goto fail;
	}
	redisSetTimeout(p->c, tv);
	redisReply *r = redisCommand(p->c, "SELECT %d", RP_SONIC_COUNTERS_DB);
	if (!r || r->type == REDIS_REPLY_ERROR) {
		snprintf(err, errlen, "%s: SELECT %d (COUNTERS_DB): %.150s%s", p->where, RP_SONIC_COUNTERS_DB,
			 r ? r->str : p->c->errstr,
			 r && strncmp(r->str, "NOAUTH", 6) == 0 ? " (this server wants a password)" : "");
		if (r)
			freeReplyObject(r);
		goto fail;
	}
	freeReplyObject(r);
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->cv, NULL);
	/* The thread takes no signal: Ctrl-C and SIGTERM are the poller's to
	 * see, and a write to a server that closed the connection fails with
	 * EPIPE (one line) instead of killing the switch with SIGPIPE. */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int tc = pthread_create(&p->thread, NULL, run, p);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (tc != 0) {
		snprintf(err, errlen, "%s: cannot start its thread", p->where);
		pthread_mutex_destroy(&p->mu);
		pthread_cond_destroy(&p->cv);
		goto fail;
	}
	return p;
fail:
	if (p->c)
		redisFree(p->c);
	free(p);
	return NULL;
}

/* Under mu. */
static void hand_over(struct rp_sonic_pub *p, const struct rp_sonic_snap *s)
{
	unsigned n = s->nports < RP_SONIC_PUB_PORTS ? s->nports : RP_SONIC_PUB_PORTS;
	p->next.nports = n;
	memcpy(p->next.port, s->port, n * sizeof(s->port[0]));
	p->pending = true;
	pthread_cond_signal(&p->cv);
}

void rp_sonic_pub_offer(struct rp_sonic_pub *p, const struct rp_sonic_snap *s)
{
	if (!p || pthread_mutex_trylock(&p->mu) != 0)
		return; /* the thread is taking the last one: this one waits for the next interval */
	if (!p->dead)
		hand_over(p, s);
	pthread_mutex_unlock(&p->mu);
}

int rp_sonic_pub_close(struct rp_sonic_pub *p, const struct rp_sonic_snap *last)
{
	if (!p)
		return 0;
	pthread_mutex_lock(&p->mu);
	if (last && !p->dead)
		hand_over(p, last);
	p->stop = true;
	pthread_cond_signal(&p->cv);
	pthread_mutex_unlock(&p->mu);
	pthread_join(p->thread, NULL);
	int rc = p->dead ? -1 : 0;
	pthread_mutex_destroy(&p->mu);
	pthread_cond_destroy(&p->cv);
	redisFree(p->c);
	free(p);
	return rc;
}
