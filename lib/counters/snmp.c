/* IF-MIB and CISCO-PFC-EXT-MIB over net-snmp -> one snapshot (snmp.h). */
#include "counters/snmp.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>

/* ---- the credentials file ---------------------------------------------- */

void rp_snmp_cred_clear(struct rp_snmp_cred *c)
{
	volatile char *p = (volatile char *)c;
	for (size_t i = 0; i < sizeof(*c); i++)
		p[i] = 0;
}

int rp_snmp_cred_load(const char *path, struct rp_snmp_cred *c, char *warn, size_t warnlen, char *err, size_t errlen)
{
	memset(c, 0, sizeof(*c));
	warn[0] = '\0';
	FILE *f = fopen(path, "r");
	if (!f) {
		snprintf(err, errlen, "credentials file %s: %s", path, strerror(errno));
		return -1;
	}
	struct stat st;
	if (fstat(fileno(f), &st) == 0 && (st.st_mode & 077))
		snprintf(warn, warnlen, "credentials file %s may be read by others (mode %03o): chmod 600 %s", path,
			 (unsigned)(st.st_mode & 0777), path);
	char line[512];
	unsigned n = 0;
	int rc = 0;
	while (!rc && fgets(line, sizeof(line), f)) {
		n++;
		char *s = line, w1[32] = "", w2[160] = "", w3[160] = "", extra[8] = "";
		while (*s == ' ' || *s == '\t')
			s++;
		if (*s == '#' || *s == '\n' || !*s)
			continue;
		int k = sscanf(s, "%31s %159s %159s %7s", w1, w2, w3, extra);
		if (strcmp(w1, "community") == 0 && k == 2 && strlen(w2) < sizeof(c->community) && c->version != 3) {
			snprintf(c->community, sizeof(c->community), "%s", w2);
			c->version = 2;
		} else if (strcmp(w1, "user") == 0 && k == 2 && strlen(w2) < sizeof(c->user) && c->version != 2) {
			snprintf(c->user, sizeof(c->user), "%s", w2);
			c->version = 3;
		} else if (strcmp(w1, "auth") == 0 && k == 3 && strlen(w3) >= 8 && strlen(w3) < sizeof(c->auth_pass) &&
			   (!strcmp(w2, "SHA") || !strcmp(w2, "SHA-256") || !strcmp(w2, "MD5"))) {
			c->auth = !strcmp(w2, "SHA") ? RP_SNMP_AUTH_SHA : !strcmp(w2, "MD5") ? RP_SNMP_AUTH_MD5 : RP_SNMP_AUTH_SHA256;
			snprintf(c->auth_pass, sizeof(c->auth_pass), "%s", w3);
		} else if (strcmp(w1, "priv") == 0 && k == 3 && strlen(w3) >= 8 && strlen(w3) < sizeof(c->priv_pass) &&
			   (!strcmp(w2, "AES") || !strcmp(w2, "DES"))) {
			c->priv = !strcmp(w2, "AES") ? RP_SNMP_PRIV_AES : RP_SNMP_PRIV_DES;
			snprintf(c->priv_pass, sizeof(c->priv_pass), "%s", w3);
		} else {
			snprintf(err, errlen,
				 "credentials file %s line %u: expected 'community NAME', or 'user NAME' with 'auth "
				 "SHA|SHA-256|MD5 PASSPHRASE' and 'priv AES|DES PASSPHRASE' (passphrases of 8 or more)",
				 path, n);
			rc = -1;
		}
	}
	fclose(f);
	if (!rc && !c->version) {
		snprintf(err, errlen, "credentials file %s: no 'community NAME' and no 'user NAME'", path);
		rc = -1;
	}
	if (!rc && c->version == 2 && (c->auth || c->priv)) {
		snprintf(err, errlen, "credentials file %s: auth and priv go with 'user NAME' (SNMPv3), not a community", path);
		rc = -1;
	}
	if (!rc && c->priv && !c->auth) {
		snprintf(err, errlen, "credentials file %s: priv needs auth (SNMPv3 has no privacy without authentication)",
			 path);
		rc = -1;
	}
	if (rc)
		rp_snmp_cred_clear(c);
	return rc;
}

/* ---- the walk ------------------------------------------------------------ */

static pthread_once_t once = PTHREAD_ONCE_INIT;

static void init_lib(void)
{
	/* No config files, no persistent state, no MIB files (numeric OIDs),
	 * no log lines of the library's own: errors come back as messages. */
	netsnmp_ds_set_boolean(NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_DONT_READ_CONFIGS, 1);
	netsnmp_ds_set_boolean(NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_DISABLE_PERSISTENT_LOAD, 1);
	netsnmp_ds_set_boolean(NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_DISABLE_PERSISTENT_SAVE, 1);
	netsnmp_ds_set_boolean(NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_DONT_PERSIST_STATE, 1);
	setenv("MIBS", "", 0);
	setenv("MIBDIRS", "", 0);
	snmp_disable_log();
	init_snmp("roceprobe");
}

#define IF_NAME 1, 3, 6, 1, 2, 1, 31, 1, 1, 1, 1
static const oid if_name[] = {IF_NAME};
static const oid if_high_speed[] = {1, 3, 6, 1, 2, 1, 31, 1, 1, 1, 15};
static const oid if_hc_in_octets[] = {1, 3, 6, 1, 2, 1, 31, 1, 1, 1, 6};
static const oid if_hc_out_octets[] = {1, 3, 6, 1, 2, 1, 31, 1, 1, 1, 10};
static const oid if_in_discards[] = {1, 3, 6, 1, 2, 1, 2, 2, 1, 13};
static const oid if_out_discards[] = {1, 3, 6, 1, 2, 1, 2, 2, 1, 19};
static const oid cpfc_prio_requests[] = {1, 3, 6, 1, 4, 1, 9, 9, 813, 1, 2, 1, 2};
static const oid cpfc_prio_indications[] = {1, 3, 6, 1, 4, 1, 9, 9, 813, 1, 2, 1, 3};
/* CISCO-SWITCH-QOS-MIB csqIfQosGroupStatsValue, indexed ifIndex.direction
 * (2 egress).queue (1-based).type (1..8), as sonic-snmpagent
 * ciscoSwitchQosMIB.py serves SAI_QUEUE_STAT_* */
static const oid csq_stats_value[] = {1, 3, 6, 1, 4, 1, 9, 9, 580, 1, 5, 5, 1, 4};
/* IEEE8021-PFC-MIB (802.1Qbb) ieee8021PfcIfEntry 1.3.111.2.802.1.1.21.1.1.1,
 * augmenting ifEntry: Requests (.2) and Indications (.3), Counter32, per
 * interface over every priority */
static const oid ieee_pfc_requests[] = {1, 3, 111, 2, 802, 1, 1, 21, 1, 1, 1, 2};
static const oid ieee_pfc_indications[] = {1, 3, 111, 2, 802, 1, 1, 21, 1, 1, 1, 3};

/* One value of a walked column: its index (the OID after the column) */
struct cell {
	oid idx[4];
	size_t nidx;
	uint64_t value;
	uint8_t bits; /* 32 or 64 for counters, 0 for other types */
	char text[96];
};

struct walk {
	struct cell *c;
	size_t n, cap;
};

static void walk_free(struct walk *w)
{
	free(w->c);
	memset(w, 0, sizeof(*w));
}

struct ctx {
	void *ss;
	const char *where;
	char *err;
	size_t errlen;
};

static int sess_error(struct ctx *x, int status, const char *what)
{
	if (status == STAT_TIMEOUT) {
		snprintf(x->err, x->errlen,
			 "%s: no answer to %s (unreachable, no agent on that port, or a community it does not know: "
			 "an agent stays silent then)",
			 x->where, what);
		return -1;
	}
	int liberr = 0, syserr = 0;
	char *msg = NULL;
	snmp_sess_error(x->ss, &liberr, &syserr, &msg);
	snprintf(x->err, x->errlen, "%s: %s: %s", x->where, what, msg ? msg : "error");
	free(msg);
	return -1;
}

/* Every value under root, with GETBULK (50 a request). */
static int walk(struct ctx *x, const oid *root, size_t rootlen, const char *what, struct walk *w)
{
	oid cur[MAX_OID_LEN];
	size_t curlen = rootlen;
	memcpy(cur, root, rootlen * sizeof(oid));
	for (;;) {
		netsnmp_pdu *pdu = snmp_pdu_create(SNMP_MSG_GETBULK), *resp = NULL;
		pdu->non_repeaters = 0;
		pdu->max_repetitions = 50;
		snmp_add_null_var(pdu, cur, curlen);
		int status = snmp_sess_synch_response(x->ss, pdu, &resp);
		if (status != STAT_SUCCESS) {
			if (resp)
				snmp_free_pdu(resp);
			return sess_error(x, status, what);
		}
		if (resp->errstat != SNMP_ERR_NOERROR) {
			snprintf(x->err, x->errlen, "%s: %s: the agent answered %s", x->where, what,
				 snmp_errstring((int)resp->errstat));
			snmp_free_pdu(resp);
			return -1;
		}
		bool done = !resp->variables;
		for (netsnmp_variable_list *v = resp->variables; v; v = v->next_variable) {
			if (v->name_length <= rootlen || netsnmp_oid_is_subtree(root, rootlen, v->name, v->name_length) != 0 ||
			    v->type == SNMP_ENDOFMIBVIEW || v->type == SNMP_NOSUCHOBJECT || v->type == SNMP_NOSUCHINSTANCE) {
				done = true;
				break;
			}
			if (w->n == w->cap) {
				size_t cap = w->cap ? w->cap * 2 : 256;
				struct cell *g = realloc(w->c, cap * sizeof(*g));
				if (!g) {
					snmp_free_pdu(resp);
					snprintf(x->err, x->errlen, "%s: out of memory", x->where);
					return -1;
				}
				w->c = g;
				w->cap = cap;
			}
			struct cell *c = &w->c[w->n++];
			memset(c, 0, sizeof(*c));
			c->nidx = v->name_length - rootlen > 4 ? 4 : v->name_length - rootlen;
			memcpy(c->idx, v->name + rootlen, c->nidx * sizeof(oid));
			switch (v->type) {
			case ASN_COUNTER:
				c->bits = 32;
				c->value = *v->val.integer & 0xffffffffu;
				break;
			case ASN_COUNTER64:
				c->bits = 64;
				c->value = ((uint64_t)v->val.counter64->high << 32) | (v->val.counter64->low & 0xffffffffu);
				break;
			case ASN_GAUGE:
			case ASN_INTEGER:
			case ASN_TIMETICKS:
				c->value = (uint64_t)(*v->val.integer & 0xffffffffu);
				break;
			case ASN_OCTET_STR:
				snprintf(c->text, sizeof(c->text), "%.*s", (int)(v->val_len < 95 ? v->val_len : 95),
					 (const char *)v->val.string);
				break;
			default:
				break;
			}
			memcpy(cur, v->name, v->name_length * sizeof(oid));
			curlen = v->name_length;
		}
		snmp_free_pdu(resp);
		if (done)
			return 0;
	}
}

static int open_session(struct ctx *x, const char *host, int port, const struct rp_snmp_cred *cr)
{
	pthread_once(&once, init_lib);
	netsnmp_session s;
	snmp_sess_init(&s);
	char peer[300];
	snprintf(peer, sizeof(peer), strchr(host, ':') ? "udp6:[%s]:%d" : "udp:%s:%d", host, port);
	s.peername = peer;
	s.timeout = 1000000; /* us; and one retry */
	s.retries = 1;
	if (cr->version == 2) {
		s.version = SNMP_VERSION_2c;
		s.community = (u_char *)(uintptr_t)cr->community;
		s.community_len = strlen(cr->community);
	} else {
		s.version = SNMP_VERSION_3;
		s.securityName = (char *)(uintptr_t)cr->user;
		s.securityNameLen = strlen(cr->user);
		s.securityLevel = !cr->auth ? SNMP_SEC_LEVEL_NOAUTH
				  : cr->priv ? SNMP_SEC_LEVEL_AUTHPRIV
					     : SNMP_SEC_LEVEL_AUTHNOPRIV;
		if (cr->auth) {
			const oid *proto = cr->auth == RP_SNMP_AUTH_SHA	   ? usmHMACSHA1AuthProtocol
					   : cr->auth == RP_SNMP_AUTH_MD5 ? usmHMACMD5AuthProtocol
									  : usmHMAC192SHA256AuthProtocol;
			s.securityAuthProto = snmp_duplicate_objid(proto, USM_AUTH_PROTO_SHA_LEN);
			s.securityAuthProtoLen = USM_AUTH_PROTO_SHA_LEN;
			s.securityAuthKeyLen = USM_AUTH_KU_LEN;
			if (generate_Ku(s.securityAuthProto, (u_int)s.securityAuthProtoLen, (const u_char *)cr->auth_pass,
					strlen(cr->auth_pass), s.securityAuthKey, &s.securityAuthKeyLen) != SNMPERR_SUCCESS) {
				snprintf(x->err, x->errlen, "%s: cannot derive the auth key", x->where);
				free(s.securityAuthProto);
				return -1;
			}
		}
		if (cr->priv) {
			const oid *proto = cr->priv == RP_SNMP_PRIV_AES ? usmAESPrivProtocol : usmDESPrivProtocol;
			s.securityPrivProto = snmp_duplicate_objid(proto, USM_PRIV_PROTO_AES_LEN);
			s.securityPrivProtoLen = USM_PRIV_PROTO_AES_LEN;
			s.securityPrivKeyLen = USM_PRIV_KU_LEN;
			if (generate_Ku(s.securityAuthProto, (u_int)s.securityAuthProtoLen, (const u_char *)cr->priv_pass,
					strlen(cr->priv_pass), s.securityPrivKey, &s.securityPrivKeyLen) != SNMPERR_SUCCESS) {
				snprintf(x->err, x->errlen, "%s: cannot derive the priv key", x->where);
				free(s.securityAuthProto);
				free(s.securityPrivProto);
				return -1;
			}
		}
	}
	x->ss = snmp_sess_open(&s);
	free(s.securityAuthProto);
	free(s.securityPrivProto);
	memset(s.securityAuthKey, 0, sizeof(s.securityAuthKey));
	memset(s.securityPrivKey, 0, sizeof(s.securityPrivKey));
	if (!x->ss) {
		snprintf(x->err, x->errlen, "%s: cannot open a session: %s", x->where, snmp_api_errstring(snmp_errno));
		return -1;
	}
	return 0;
}

static int port_of(const struct rp_cnt_snap *s, const oid *ifindex_of, oid idx)
{
	for (size_t p = 0; p < s->nports; p++)
		if (ifindex_of[p] == idx)
			return (int)p;
	return -1;
}

/* One value in: raw (vocabulary name in ctr_names.c), its width kept; the
 * port's (scope RP_CNT_AT_PORT) or queue idx's. */
static void put_at(struct rp_cnt_port *p, enum rp_cnt_scope scope, int idx, const char *raw, const struct cell *c)
{
	struct rp_ctr r = {.src = RP_CTR_SNMP, .value = c->value};
	snprintf(r.name, sizeof(r.name), "%s", raw);
	size_t before = p->n;
	rp_cnt_port_fold_at(p, scope, idx, &r, 1);
	struct rp_ctr_key k;
	const struct rp_cnt_val *v = NULL;
	if (p->n > before)
		v = &p->v[p->n - 1];
	else if (rp_ctr_key(RP_CTR_SNMP, raw, &k))
		v = scope == RP_CNT_AT_PORT ? rp_cnt_find(p, k.name, k.prio, RP_CNT_KEY)
					    : rp_cnt_find_at(p, scope, idx, k.name, RP_CNT_KEY);
	if (v && c->bits == 32)
		((struct rp_cnt_val *)v)->bits = 32;
}

static void put(struct rp_cnt_port *p, const char *raw, const struct cell *c)
{
	put_at(p, RP_CNT_AT_PORT, -1, raw, c);
}

int rp_snmp_read(const char *host, int port, const struct rp_snmp_cred *cr, struct rp_cnt_snap *out, char *err,
		 size_t errlen)
{
	char where[300];
	snprintf(where, sizeof(where), "snmp://%s:%d", host, port);
	struct ctx x = {.where = where, .err = err, .errlen = errlen};
	struct walk names = {0}, pfc_tx = {0}, pfc_rx = {0}, ieee_tx = {0}, ieee_rx = {0}, col = {0};
	oid ifindex[RP_CNT_PORTS_MAX];
	int rc = -1;
	if (!cr || !cr->version) {
		snprintf(err, errlen, "%s: no credentials (--credentials FILE: 'community NAME' or an SNMPv3 user)", where);
		return -1;
	}
	if (open_session(&x, host, port, cr))
		return -1;
	if (walk(&x, if_name, sizeof(if_name) / sizeof(oid), "IF-MIB ifName (1.3.6.1.2.1.31.1.1.1.1)", &names))
		goto out;
	if (!names.n) {
		snprintf(err, errlen, "%s: the agent has no IF-MIB ifName (1.3.6.1.2.1.31.1.1.1.1): no ports to name", where);
		goto out;
	}
	if (walk(&x, cpfc_prio_requests, sizeof(cpfc_prio_requests) / sizeof(oid),
		 "CISCO-PFC-EXT-MIB cpfcIfPriorityRequests (1.3.6.1.4.1.9.9.813.1.2.1.2)", &pfc_tx) ||
	    walk(&x, cpfc_prio_indications, sizeof(cpfc_prio_indications) / sizeof(oid),
		 "CISCO-PFC-EXT-MIB cpfcIfPriorityIndications (1.3.6.1.4.1.9.9.813.1.2.1.3)", &pfc_rx) ||
	    walk(&x, ieee_pfc_requests, sizeof(ieee_pfc_requests) / sizeof(oid),
		 "IEEE8021-PFC-MIB ieee8021PfcRequests (1.3.111.2.802.1.1.21.1.1.1.2)", &ieee_tx) ||
	    walk(&x, ieee_pfc_indications, sizeof(ieee_pfc_indications) / sizeof(oid),
		 "IEEE8021-PFC-MIB ieee8021PfcIndications (1.3.111.2.802.1.1.21.1.1.1.3)", &ieee_rx))
		goto out;
	/* the ports: every ifIndex a PFC table names, else every named one */
	const struct walk *pfc_tables[] = {&pfc_tx, &pfc_rx, &ieee_tx, &ieee_rx};
	bool any_pfc = pfc_tx.n || pfc_rx.n || ieee_tx.n || ieee_rx.n;
	for (size_t i = 0; i < names.n; i++) {
		bool in_pfc = !any_pfc;
		for (size_t t = 0; t < 4 && !in_pfc; t++)
			for (size_t k = 0; k < pfc_tables[t]->n && !in_pfc; k++)
				in_pfc = pfc_tables[t]->c[k].idx[0] == names.c[i].idx[0];
		if (!in_pfc)
			continue;
		if (out->nports == RP_CNT_PORTS_MAX) {
			snprintf(err, errlen, "%s: more than %d ports", where, RP_CNT_PORTS_MAX);
			goto out;
		}
		ifindex[out->nports] = names.c[i].idx[0];
		rp_cnt_add_port(out, names.c[i].text[0] ? names.c[i].text : "?");
	}
	for (int t = 0; t < 2; t++) {
		const struct walk *w = t ? &pfc_rx : &pfc_tx;
		for (size_t k = 0; k < w->n; k++) {
			int p = port_of(out, ifindex, w->c[k].idx[0]);
			if (p < 0 || w->c[k].nidx != 2 || w->c[k].idx[1] > 7) {
				snprintf(err, errlen, "%s: %s.%lu.%lu names no port of ifName, or no priority 0..7", where,
					 t ? "cpfcIfPriorityIndications" : "cpfcIfPriorityRequests", (unsigned long)w->c[k].idx[0],
					 (unsigned long)w->c[k].idx[1]);
				goto out;
			}
			char raw[64];
			snprintf(raw, sizeof(raw), "%s.%lu", t ? "cpfcIfPriorityIndications" : "cpfcIfPriorityRequests",
				 (unsigned long)w->c[k].idx[1]);
			put(&out->port[p], raw, &w->c[k]);
		}
	}
	for (int t = 0; t < 2; t++) {
		const struct walk *w = t ? &ieee_rx : &ieee_tx;
		for (size_t k = 0; k < w->n; k++) {
			int p = port_of(out, ifindex, w->c[k].idx[0]);
			if (p >= 0)
				put(&out->port[p], t ? "ieee8021PfcIndications" : "ieee8021PfcRequests", &w->c[k]);
		}
	}
	/* egress queues (CISCO-SWITCH-QOS-MIB): queue q (1-based) is index q-1 */
	if (walk(&x, csq_stats_value, sizeof(csq_stats_value) / sizeof(oid),
		 "CISCO-SWITCH-QOS-MIB csqIfQosGroupStatsValue (1.3.6.1.4.1.9.9.580.1.5.5.1.4)", &col))
		goto out;
	for (size_t k = 0; k < col.n; k++) {
		const struct cell *c = &col.c[k];
		int p = port_of(out, ifindex, c->idx[0]);
		if (p < 0 || c->nidx != 4 || c->idx[1] != 2 || c->idx[2] < 1 || c->idx[2] > 128 || c->idx[3] < 1 ||
		    c->idx[3] > 8)
			continue; /* a port the PFC table does not name, ingress, or a type SONiC does not serve */
		char raw[64];
		snprintf(raw, sizeof(raw), "csqIfQosGroupStatsValue.%lu", (unsigned long)c->idx[3]);
		put_at(&out->port[p], RP_CNT_AT_QUEUE, (int)c->idx[2] - 1, raw, c);
	}
	static const struct {
		const oid *root;
		size_t len;
		const char *name;
	} cols[] = {
		{if_high_speed, 11, "ifHighSpeed"},	{if_hc_in_octets, 11, "ifHCInOctets"},
		{if_hc_out_octets, 11, "ifHCOutOctets"}, {if_in_discards, 10, "ifInDiscards"},
		{if_out_discards, 10, "ifOutDiscards"},
	};
	for (size_t i = 0; i < sizeof(cols) / sizeof(cols[0]); i++) {
		char what[80];
		snprintf(what, sizeof(what), "IF-MIB %s", cols[i].name);
		walk_free(&col);
		if (walk(&x, cols[i].root, cols[i].len, what, &col))
			goto out;
		for (size_t k = 0; k < col.n; k++) {
			int p = port_of(out, ifindex, col.c[k].idx[0]);
			if (p < 0)
				continue;
			if (i == 0)
				out->port[p].speed_bps = col.c[k].value * 1000000u;
			else
				put(&out->port[p], cols[i].name, &col.c[k]);
		}
	}
	rc = 0;
out:
	walk_free(&names);
	walk_free(&pfc_tx);
	walk_free(&pfc_rx);
	walk_free(&ieee_tx);
	walk_free(&ieee_rx);
	walk_free(&col);
	snmp_sess_close(x.ss);
	return rc;
}
