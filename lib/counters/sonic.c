/* SONiC's COUNTERS_DB and CONFIG_DB over hiredis -> one snapshot. The
 * walk is pfcstat's, queuestat's and watermarkstat's (sonic-net/
 * sonic-utilities scripts/pfcstat collect_cnstat, scripts/queuestat
 * Queuestat.__init__/get_cnstat, scripts/watermarkstat): ports through
 * COUNTERS_PORT_NAME_MAP, queues and PGs through their name maps, each
 * object's hash COUNTERS:oid, watermarks in USER_/PERSISTENT_WATERMARKS:oid.
 * Every object's hash is asked for in one pipeline, so a switch 1 ms away
 * costs a few round trips, not one per object. */
#include "counters/sonic.h"

#include <errno.h>
#include <hiredis/hiredis.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include "counters/sonic_db.h"

#define COUNTERS_DB RP_SONIC_COUNTERS_DB /* sonic_db.h */
#define CONFIG_DB RP_SONIC_CONFIG_DB

struct obj {
	char name[96];    /* "Ethernet0" or "Ethernet0:3" */
	char oid[64];     /* "oid:0x..." */
	int port;         /* index in the snapshot */
	int scope, index; /* enum rp_cnt_scope; the queue's or PG's index */
};

struct ctx {
	redisContext *c;
	const char *where; /* "sonic://HOST:PORT" for messages */
	char *err;
	size_t errlen;
};

static int fail(struct ctx *x, const char *fmt, const char *a, const char *b)
{
	char m[400];
	snprintf(m, sizeof(m), fmt, a, b);
	snprintf(x->err, x->errlen, "%s: %s", x->where, m);
	return -1;
}

/* A reply that is an error, or a broken connection, as one message. */
static int bad_reply(struct ctx *x, redisReply *r, const char *cmd)
{
	if (!r)
		return fail(x, "%s: %s", cmd, x->c->errstr[0] ? x->c->errstr : "no answer");
	if (r->type == REDIS_REPLY_ERROR) {
		char e[200];
		snprintf(e, sizeof(e), "%.*s%s", (int)(r->len < 150 ? r->len : 150), r->str,
			 strncmp(r->str, "NOAUTH", 6) == 0 ? " (this server wants a password)" : "");
		freeReplyObject(r);
		return fail(x, "%s: the server answered: %s", cmd, e);
	}
	return 0;
}

static redisReply *command(struct ctx *x, const char *cmd, const char *arg)
{
	redisReply *r = arg ? redisCommand(x->c, "%s %s", cmd, arg) : redisCommand(x->c, cmd);
	return bad_reply(x, r, cmd) ? NULL : r;
}

static int select_db(struct ctx *x, int db)
{
	redisReply *r = redisCommand(x->c, "SELECT %d", db);
	if (bad_reply(x, r, db == COUNTERS_DB ? "SELECT 2 (COUNTERS_DB)" : "SELECT 4 (CONFIG_DB)"))
		return -1;
	freeReplyObject(r);
	return 0;
}

/* "Ethernet4" before "Ethernet12", as natsort orders pfcstat's rows. */
static int natcmp(const char *a, const char *b)
{
	while (*a && *b) {
		if (*a >= '0' && *a <= '9' && *b >= '0' && *b <= '9') {
			char *ea, *eb;
			unsigned long long na = strtoull(a, &ea, 10), nb = strtoull(b, &eb, 10);
			if (na != nb)
				return na < nb ? -1 : 1;
			a = ea, b = eb;
			continue;
		}
		if (*a != *b)
			return (unsigned char)*a - (unsigned char)*b;
		a++, b++;
	}
	return (unsigned char)*a - (unsigned char)*b;
}

static int by_name(const void *a, const void *b)
{
	return natcmp(((const struct obj *)a)->name, ((const struct obj *)b)->name);
}

/* HGETALL's flat array (field, value, field, value ...) -> its fields as
 * counters (prefix "U/" or "P/" for the two watermark tables, ctr_names.c).
 * Words: PFC_WD_STATUS "stormed" is 1, anything else 0; other words
 * (PFC_WD_ACTION "drop") are settings, not counters, and are left out. A
 * field the vocabulary counts that holds no decimal number is garbage.
 * Returns how many, or -1. */
static int fields(struct ctx *x, const redisReply *r, const char *prefix, const char *key, struct rp_ctr **out)
{
	*out = NULL;
	if (r->type != REDIS_REPLY_ARRAY || r->elements % 2)
		return fail(x, "%s%s: not a hash", key, "");
	size_t n = r->elements / 2, k = 0;
	struct rp_ctr *c = calloc(n ? n : 1, sizeof(*c));
	if (!c)
		return fail(x, "%s%s: out of memory", key, "");
	for (size_t i = 0; i < n; i++) {
		const redisReply *f = r->element[2 * i], *v = r->element[2 * i + 1];
		if (f->type != REDIS_REPLY_STRING || v->type != REDIS_REPLY_STRING)
			continue;
		struct rp_ctr *o = &c[k];
		snprintf(o->name, sizeof(o->name), "%s%.*s", prefix, (int)(sizeof(o->name) - 1 - strlen(prefix)), f->str);
		o->src = RP_CTR_SAI;
		char *end = NULL;
		errno = 0;
		bool digits = v->str[0] >= '0' && v->str[0] <= '9';
		unsigned long long val = digits ? strtoull(v->str, &end, 10) : 0;
		if (strcmp(f->str, RP_SONIC_WD_STATUS) == 0) {
			o->value = strcmp(v->str, RP_SONIC_WD_STORMED) == 0;
			k++;
			continue;
		}
		struct rp_ctr_key kk;
		if (!digits || *end || errno) {
			if (!rp_ctr_key(RP_CTR_SAI, o->name, &kk))
				continue;
			char what[160];
			snprintf(what, sizeof(what), "%.60s field %.60s", key, f->str);
			free(c);
			return fail(x, "%s is '%.40s', not a count", what, v->str);
		}
		o->value = val;
		k++;
	}
	*out = c;
	return (int)k;
}

struct pair {
	const char *oid, *val;
};

static int by_oid(const void *a, const void *b)
{
	return strcmp(((const struct pair *)a)->oid, ((const struct pair *)b)->oid);
}

/* A name map (COUNTERS_QUEUE_NAME_MAP: "Ethernet0:3" -> oid) with each
 * object's index from idxmap (queuestat's get_queue_index; the number after
 * the last ':' when the index map lacks it) and port among ports. */
static int objects(struct ctx *x, const char *map, const char *idxmap, int scope, const struct rp_cnt_snap *snap,
		   struct obj **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	redisReply *r = command(x, "HGETALL", map);
	if (!r)
		return -1;
	redisReply *ix = command(x, "HGETALL", idxmap);
	if (!ix) {
		freeReplyObject(r);
		return -1;
	}
	size_t m = r->type == REDIS_REPLY_ARRAY ? r->elements / 2 : 0;
	size_t ni = ix->type == REDIS_REPLY_ARRAY ? ix->elements / 2 : 0;
	struct obj *o = calloc(m ? m : 1, sizeof(*o));
	struct pair *idx = calloc(ni ? ni : 1, sizeof(*idx)); /* sorted by oid: a switch has thousands of queues */
	for (size_t k = 0; idx && k < ni; k++)
		idx[k] = (struct pair){ix->element[2 * k]->str, ix->element[2 * k + 1]->str};
	if (idx)
		qsort(idx, ni, sizeof(*idx), by_oid);
	int rc = o && idx ? 0 : fail(x, "%s%s: out of memory", map, "");
	for (size_t i = 0; i < m && !rc; i++) {
		struct obj *q = &o[i];
		snprintf(q->name, sizeof(q->name), "%s", r->element[2 * i]->str);
		snprintf(q->oid, sizeof(q->oid), "%s", r->element[2 * i + 1]->str);
		q->scope = scope;
		char *colon = strrchr(q->name, ':');
		if (!colon) {
			rc = fail(x, "%s names '%s', not PORT:INDEX", map, q->name);
			break;
		}
		*colon = '\0';
		q->index = atoi(colon + 1);
		struct pair want = {q->oid, NULL}, *hit = bsearch(&want, idx, ni, sizeof(*idx), by_oid);
		if (hit)
			q->index = atoi(hit->val);
		q->port = -1;
		for (size_t p = 0; p < snap->nports; p++)
			if (strcmp(snap->port[p].name, q->name) == 0)
				q->port = (int)p;
		if (q->port < 0) {
			char what[200];
			snprintf(what, sizeof(what), "%s names %.80s:%.20s", map, q->name, colon + 1);
			rc = fail(x, "%s, but COUNTERS_PORT_NAME_MAP has no port %s", what, q->name);
		}
		if (q->index < 0 || q->index > 127)
			rc = fail(x, "%s: index of %s is not 0..127", map, q->oid);
	}
	free(idx);
	freeReplyObject(r);
	freeReplyObject(ix);
	if (rc) {
		free(o);
		return -1;
	}
	*out = o;
	*n = m;
	return 0;
}

/* Every object's COUNTERS:oid (and a queue's or PG's two watermark
 * tables), pipelined, folded into its port. */
static int read_objects(struct ctx *x, struct obj *o, size_t n, struct rp_cnt_snap *snap)
{
	static const char *const tables[] = {RP_SONIC_COUNTERS, RP_SONIC_USER_WM, RP_SONIC_PERSISTENT_WM};
	size_t per = 3;
	for (size_t i = 0; i < n; i++)
		for (size_t t = 0; t < per; t++)
			if (t == 0 || o[i].scope != RP_CNT_AT_PORT)
				redisAppendCommand(x->c, "HGETALL %s:%s", tables[t], o[i].oid);
	int rc = 0;
	for (size_t i = 0; i < n; i++)
		for (size_t t = 0; t < per; t++) {
			if (t && o[i].scope == RP_CNT_AT_PORT)
				continue;
			redisReply *r = NULL;
			char key[128], pre[32];
			snprintf(key, sizeof(key), "%s:%s", tables[t], o[i].oid);
			if (redisGetReply(x->c, (void **)&r) != REDIS_OK || bad_reply(x, r, "HGETALL")) {
				return -1; /* the connection is gone: the rest never comes */
			}
			struct rp_ctr *c = NULL;
			snprintf(pre, sizeof(pre), "%s", t ? (t == 1 ? RP_SONIC_USER_WM_PREFIX : RP_SONIC_PERSISTENT_WM_PREFIX) : "");
			int k = rc ? 0 : fields(x, r, pre, key, &c);
			freeReplyObject(r);
			if (k < 0) {
				rc = -1; /* read the rest of the pipeline, then fail */
				continue;
			}
			if (!rc)
				rp_cnt_port_fold_at(&snap->port[o[i].port], (enum rp_cnt_scope)o[i].scope, o[i].index, c,
						    (size_t)k);
			free(c);
		}
	return rc;
}

/* CONFIG_DB: per port and traffic class (the PFC priority: SONiC's
 * lossless priorities are TCs of the same number, DSCP_TO_TC_MAP aside) the
 * queue and PG it goes to, as gauges prioN_queue and prioN_pg. A switch
 * without QoS maps has none. */
static int qos_maps(struct ctx *x, struct rp_cnt_snap *snap)
{
	if (select_db(x, CONFIG_DB))
		return -1;
	static const struct {
		const char *field, *table, *gauge;
	} maps[] = {
		{"tc_to_queue_map", "TC_TO_QUEUE_MAP", "queue"},
		{"tc_to_pg_map", "TC_TO_PRIORITY_GROUP_MAP", "pg"},
	};
	for (size_t p = 0; p < snap->nports; p++)
		for (size_t m = 0; m < 2; m++) {
			char key[160];
			snprintf(key, sizeof(key), "PORT_QOS_MAP|%s", snap->port[p].name);
			redisReply *r = redisCommand(x->c, "HGET %s %s", key, maps[m].field);
			if (bad_reply(x, r, "HGET PORT_QOS_MAP"))
				return -1;
			char name[128] = "";
			if (r->type == REDIS_REPLY_STRING) {
				/* "AZURE", or in older config_db.json "[TC_TO_QUEUE_MAP|AZURE]" */
				const char *s = r->str, *bar = strchr(s, '|');
				snprintf(name, sizeof(name), "%s", bar ? bar + 1 : s);
				size_t l = strlen(name);
				if (l && name[l - 1] == ']')
					name[l - 1] = '\0';
			}
			freeReplyObject(r);
			if (!name[0])
				continue;
			snprintf(key, sizeof(key), "%s|%s", maps[m].table, name);
			if (!(r = command(x, "HGETALL", key)))
				return -1;
			struct rp_ctr g[8];
			size_t ng = 0;
			for (size_t k = 0; r->type == REDIS_REPLY_ARRAY && k + 1 < r->elements && ng < 8; k += 2) {
				char *e1, *e2;
				long tc = strtol(r->element[k]->str, &e1, 10), to = strtol(r->element[k + 1]->str, &e2, 10);
				if (*e1 || *e2 || tc < 0 || tc > 7 || to < 0) {
					char what[160];
					snprintf(what, sizeof(what), "%.60s maps '%.20s'", key, r->element[k]->str);
					freeReplyObject(r);
					return fail(x, "%s to '%.20s': not a TC 0..7 to a number", what, r->element[k + 1]->str);
				}
				snprintf(g[ng].name, sizeof(g[ng].name), "prio%ld_%s", tc, maps[m].gauge);
				g[ng].src = RP_CTR_SAI;
				g[ng++].value = (uint64_t)to;
			}
			freeReplyObject(r);
			/* no table entry: they go in as raw; make them gauges by hand */
			for (size_t k = 0; k < ng; k++) {
				struct rp_cnt_port *pp = &snap->port[p];
				size_t before = pp->n;
				rp_cnt_port_fold(pp, &g[k], 1);
				if (pp->n > before)
					pp->v[pp->n - 1].cls = RP_CNT_GAUGE;
			}
		}
	return 0;
}

int rp_sonic_read(const char *host, int port, struct rp_cnt_snap *out, char *err, size_t errlen)
{
	char where[300];
	snprintf(where, sizeof(where), "sonic://%s:%d", host, port);
	struct ctx x = {.where = where, .err = err, .errlen = errlen};
	struct obj *o = NULL, *q = NULL, *g = NULL;
	size_t nq = 0, ng = 0;
	int rc = -1;
	struct timeval tv = {.tv_sec = 2};
	x.c = redisConnectWithTimeout(host, port, tv);
	if (!x.c || x.c->err) {
		fail(&x, "cannot connect: %s%s", x.c ? x.c->errstr : "out of memory",
		     " (is it SONiC's database, redis on port 6379 of the switch's management address?)");
		goto out;
	}
	redisSetTimeout(x.c, tv);
	if (select_db(&x, COUNTERS_DB))
		goto out;
	redisReply *r = command(&x, "HGETALL", RP_SONIC_PORT_NAME_MAP);
	if (!r)
		goto out;
	if (r->type != REDIS_REPLY_ARRAY || r->elements == 0) {
		freeReplyObject(r);
		fail(&x, "COUNTERS_DB (db 2) has no %s: not a SONiC switch's database, or its %s",
		     "COUNTERS_PORT_NAME_MAP", "port counters are off (counterpoll port enable)");
		goto out;
	}
	size_t np = r->elements / 2;
	o = calloc(np, sizeof(*o));
	for (size_t i = 0; o && i < np; i++) {
		snprintf(o[i].name, sizeof(o[i].name), "%s", r->element[2 * i]->str);
		snprintf(o[i].oid, sizeof(o[i].oid), "%s", r->element[2 * i + 1]->str);
	}
	freeReplyObject(r);
	if (!o) {
		fail(&x, "%s%s", "out of memory", "");
		goto out;
	}
	if (np > RP_CNT_PORTS_MAX) {
		char n[40];
		snprintf(n, sizeof(n), "%zu", np);
		fail(&x, "%s ports in COUNTERS_PORT_NAME_MAP, at most %s", n, "128");
		goto out;
	}
	qsort(o, np, sizeof(*o), by_name);
	for (size_t i = 0; i < np; i++) {
		o[i].port = (int)i;
		o[i].scope = RP_CNT_AT_PORT;
		rp_cnt_add_port(out, o[i].name);
	}
	if (read_objects(&x, o, np, out) || objects(&x, RP_SONIC_QUEUE_NAME_MAP, RP_SONIC_QUEUE_INDEX_MAP,
						    RP_CNT_AT_QUEUE, out, &q, &nq))
		goto out;
	if (read_objects(&x, q, nq, out) ||
	    objects(&x, RP_SONIC_PG_NAME_MAP, RP_SONIC_PG_INDEX_MAP, RP_CNT_AT_PG, out, &g, &ng) ||
	    read_objects(&x, g, ng, out) || qos_maps(&x, out))
		goto out;
	rc = 0;
out:
	free(o);
	free(q);
	free(g);
	if (x.c)
		redisFree(x.c);
	return rc;
}
