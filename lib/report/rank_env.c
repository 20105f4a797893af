/* A rank's facts as a versioned binary record (rank_env.h). */
#include "rank_env.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acct_merge.h"
#include "stats/rec.h"
#include "rank_nics.h"

#define U(x) ((unsigned long long)(x))
static const uint8_t MAGIC[4] = {'R', 'P', 'E', 'V'};
#define HEADER_LEN (4 + 2 + 8)

/* ---- writing: counts every byte, stores those that fit ---- */

static void put_str(struct rp_rec_wr *w, const char *s)
{
	size_t n = s ? strnlen(s, RP_ENV_STR_MAX) : 0;
	rp_rec_put32(w, n);
	if (n && w->buf && w->len + n <= w->cap) /* n 0: s may be NULL, which memcpy may not get */
		memcpy(w->buf + w->len, s, n);
	w->len += n;
}
static void put_counts(struct rp_rec_wr *w, const struct rp_env_count *c, uint32_t n)
{
	rp_rec_put32(w, n);
	for (uint32_t i = 0; i < n; i++) {
		put_str(w, c[i].name);
		rp_rec_put64(w, c[i].value);
	}
}

static void put_port(struct rp_rec_wr *w, const struct rp_env_port *p)
{
	put_str(w, p->node);
	put_str(w, p->devargs);
	put_str(w, p->driver);
	const uint64_t v[RP_ENV_PORT_U64] = {p->link_bps,       p->pmd_link_bps,  p->tx_packets,
					     p->tx_bytes,       p->tx_unsent,     p->impair_dropped,
					     p->impair_marked,  p->replies_sent,  p->pmd_oerrors};
	for (unsigned i = 0; i < RP_ENV_PORT_U64; i++)
		rp_rec_put64(w, v[i]);
	put_counts(w, p->xstats, p->nxstats);
	for (unsigned i = 0; i < RP_ENV_NEIGH_U64; i++)
		rp_rec_put64(w, p->neigh.c[i]);
	rp_rec_put32(w, p->neigh.nhops);
	for (uint32_t i = 0; i < p->neigh.nhops; i++) {
		const struct rp_env_hop *h = &p->neigh.hops[i];
		put_str(w, h->address);
		put_str(w, h->mac);
		put_str(w, h->resolved_mac);
		rp_rec_put64(w, h->mac_changes);
		rp_rec_put64(w, h->last_change_ns);
		rp_rec_put64(w, h->answers);
	}
	rp_rec_put8(w, p->has_netdev);
	put_str(w, p->netdev);
	rp_rec_put64(w, p->netdev_tx_packets);
	rp_rec_put64(w, p->netdev_tx_dropped);
	rp_rec_put64(w, p->netdev_tx_errors);
	rp_rec_put64(w, p->too_big_frames);
	rp_rec_put64(w, p->too_big_mtu);
	rp_rec_put32(w, p->nunsent);
	for (uint32_t i = 0; i < p->nunsent; i++) {
		rp_rec_put32(w, p->unsent[i].flow);
		rp_rec_put64(w, p->unsent[i].frames);
	}
	rp_rec_put32(w, p->nfindings);
	for (uint32_t i = 0; i < p->nfindings; i++)
		put_str(w, p->findings[i]);
	put_str(w, p->rx_clock);
	rp_rec_put64(w, p->rx_stamped);
	rp_rec_put64(w, p->rx_unstamped);
	rp_rec_put64(w, p->rx_clock_bound_ns);
	rp_rec_put8(w, p->shared);
	rp_rec_put8(w, p->pause_steered);
	rp_rec_put8(w, p->xdp_program);
	rp_rec_put64(w, p->tx_lead_ns);
	rp_rec_put8(w, p->tx_nic_late);
}

static void put_hist(struct rp_rec_wr *w, const struct rp_hist *h)
{
	struct rp_hist empty;
	if (!h) {
		rp_hist_init(&empty);
		h = &empty;
	}
	bool fits = w->buf && w->len <= w->cap;
	w->len += rp_acct_hist_pack(h, fits ? w->buf + w->len : NULL, fits ? w->cap - w->len : 0);
}

static void put_verbs(struct rp_rec_wr *w, const struct rp_env_verbs *v)
{
	rp_rec_put8(w, v != NULL);
	if (!v)
		return;
	rp_rec_put32(w, v->nhosts);
	for (uint32_t i = 0; i < v->nhosts; i++) {
		const struct rp_env_vhost *h = &v->hosts[i];
		put_str(w, h->host);
		put_str(w, h->device);
		put_str(w, h->driver);
		rp_rec_put32(w, (uint32_t)h->port);
		rp_rec_put32(w, (uint32_t)h->gid_index);
		put_str(w, h->gid);
		put_str(w, h->netdev);
		rp_rec_put64(w, h->elapsed_ns);
		put_counts(w, h->delta, h->ndelta);
		put_counts(w, h->raw, h->nraw);
	}
	rp_rec_put32(w, v->nqps);
	for (uint32_t i = 0; i < v->nqps; i++) {
		const struct rp_env_vqp *q = &v->qps[i];
		rp_rec_put64(w, q->flow);
		rp_rec_put32(w, (uint32_t)q->qp);
		put_str(w, q->src);
		put_str(w, q->dst);
		rp_rec_put64(w, q->src_qpn);
		rp_rec_put64(w, q->dst_qpn);
		rp_rec_put8(w, q->send);
		for (unsigned k = 0; k < 3; k++)
			rp_rec_put64(w, q->v[k]);
		put_hist(w, q->lat);
	}
}

size_t rp_rank_env_pack(const struct rp_rank_env *e, uint8_t *buf, size_t cap)
{
	struct rp_rec_wr w = {buf, cap, 0};
	for (unsigned i = 0; i < 4; i++)
		rp_rec_put8(&w, MAGIC[i]);
	rp_rec_put(&w, RP_RANK_ENV_VERSION, 2);
	size_t total_at = w.len;
	rp_rec_put64(&w, 0); /* total_len, fixed below */
	rp_rec_put32(&w, (uint32_t)e->rank);
	put_str(&w, e->node);
	rp_rec_put32(&w, e->nhosts);
	for (uint32_t i = 0; i < e->nhosts; i++)
		put_str(&w, e->hosts[i]);
	rp_rec_puti(&w, e->clock_offset_ns);
	rp_rec_puti(&w, e->clock_bound_ns);
	rp_rec_puti(&w, e->start_skew_ns);
	put_str(&w, e->clock_source);
	rp_rec_puti(&w, e->pclock_gap[0]);
	rp_rec_puti(&w, e->pclock_gap[1]);
	rp_rec_put64(&w, e->flows_accounted);
	rp_rec_put64(&w, e->flows_held);
	rp_rec_put32(&w, e->nports);
	for (uint32_t i = 0; i < e->nports; i++)
		put_port(&w, &e->ports[i]);
	rp_rec_put32(&w, e->ncaptures);
	for (uint32_t i = 0; i < e->ncaptures; i++) {
		const struct rp_env_capture *c = &e->captures[i];
		put_str(&w, c->node);
		put_str(&w, c->path);
		rp_rec_put64(&w, c->offered);
		rp_rec_put64(&w, c->written);
		rp_rec_put64(&w, c->dropped);
		rp_rec_put64(&w, c->sampled_out);
		rp_rec_put64(&w, c->files);
	}
	rp_rec_put32(&w, e->nlcores);
	for (uint32_t i = 0; i < e->nlcores; i++) {
		const struct rp_env_lcore *l = &e->lcores[i];
		rp_rec_put32(&w, l->lcore);
		rp_rec_put32(&w, l->lcore_id);
		rp_rec_put32(&w, (uint32_t)l->socket);
		rp_rec_put64(&w, l->rx_packets);
		rp_rec_put64(&w, l->tx_packets);
		rp_rec_put64(&w, l->polls);
		rp_rec_put64(&w, l->busy_polls);
	}
	put_verbs(&w, e->verbs);
	rp_env_put_nics(&w, e->nics, e->nnics);
	if (buf && total_at + 8 <= cap) {
		struct rp_rec_wr fix = {buf, cap, total_at};
		rp_rec_put64(&fix, w.len);
	}
	return w.len;
}

/* ---- reading: every read checked against len ---- */

static bool getb(struct rp_rec_rd *r)
{
	uint8_t v = rp_rec_get8(r);
	if (v > 1)
		rp_rec_fail(r, "rank record: a flag of %u at byte %llu", v, U(r->off - 1));
	return v == 1;
}

/* A string, malloc'd; NULL (and r bad) on error. */
static char *get_str(struct rp_rec_rd *r)
{
	uint32_t n = rp_rec_get32(r);
	if (r->bad)
		return NULL;
	if (n > RP_ENV_STR_MAX || n > r->len - r->off) {
		rp_rec_fail(r, "rank record: a string of %llu bytes at byte %llu, %llu left", U(n), U(r->off - 4),
		     U(r->len - r->off));
		return NULL;
	}
	if (memchr(r->p + r->off, '\0', n)) {
		rp_rec_fail(r, "rank record: a string with a NUL byte at byte %llu", U(r->off));
		return NULL;
	}
	char *s = malloc((size_t)n + 1);
	if (!s) {
		rp_rec_fail(r, "out of memory for a rank record's string of %llu bytes", U(n));
		return NULL;
	}
	memcpy(s, r->p + r->off, n);
	s[n] = '\0';
	r->off += n;
	return s;
}

/* A list of count records of at least min bytes each, zeroed: NULL (r bad)
 * when they cannot fit in what is left, or for count 0. */
static void *get_list(struct rp_rec_rd *r, uint32_t count, size_t min, size_t size)
{
	if (r->bad || !count)
		return NULL;
	if (!rp_rec_fits(r, count, min))
		return NULL;
	void *p = calloc(count, size);
	if (!p)
		rp_rec_fail(r, "out of memory for %llu records of a rank record", U(count));
	return p;
}

static struct rp_env_count *get_counts(struct rp_rec_rd *r, uint32_t *n)
{
	uint32_t c = rp_rec_get32(r);
	struct rp_env_count *v = get_list(r, c, 12, sizeof(*v));
	*n = v ? c : 0;
	for (uint32_t i = 0; v && i < c && !r->bad; i++) {
		v[i].name = get_str(r);
		v[i].value = rp_rec_get64(r);
	}
	return v;
}

static void get_port(struct rp_rec_rd *r, struct rp_env_port *p)
{
	p->node = get_str(r);
	p->devargs = get_str(r);
	p->driver = get_str(r);
	uint64_t *v[RP_ENV_PORT_U64] = {&p->link_bps,      &p->pmd_link_bps, &p->tx_packets,
					&p->tx_bytes,      &p->tx_unsent,    &p->impair_dropped,
					&p->impair_marked, &p->replies_sent, &p->pmd_oerrors};
	for (unsigned i = 0; i < RP_ENV_PORT_U64; i++)
		*v[i] = rp_rec_get64(r);
	p->xstats = get_counts(r, &p->nxstats);
	for (unsigned i = 0; i < RP_ENV_NEIGH_U64; i++)
		p->neigh.c[i] = rp_rec_get64(r);
	uint32_t n = rp_rec_get32(r);
	if ((p->neigh.hops = get_list(r, n, 36, sizeof(*p->neigh.hops))))
		p->neigh.nhops = n;
	for (uint32_t i = 0; i < p->neigh.nhops && !r->bad; i++) {
		struct rp_env_hop *h = &p->neigh.hops[i];
		h->address = get_str(r);
		h->mac = get_str(r);
		h->resolved_mac = get_str(r);
		h->mac_changes = rp_rec_get64(r);
		h->last_change_ns = rp_rec_get64(r);
		h->answers = rp_rec_get64(r);
	}
	p->has_netdev = getb(r);
	p->netdev = get_str(r);
	p->netdev_tx_packets = rp_rec_get64(r);
	p->netdev_tx_dropped = rp_rec_get64(r);
	p->netdev_tx_errors = rp_rec_get64(r);
	p->too_big_frames = rp_rec_get64(r);
	p->too_big_mtu = rp_rec_get64(r);
	n = rp_rec_get32(r);
	if ((p->unsent = get_list(r, n, 12, sizeof(*p->unsent))))
		p->nunsent = n;
	for (uint32_t i = 0; i < p->nunsent && !r->bad; i++) {
		p->unsent[i].flow = rp_rec_get32(r);
		p->unsent[i].frames = rp_rec_get64(r);
	}
	n = rp_rec_get32(r);
	if ((p->findings = get_list(r, n, 4, sizeof(*p->findings))))
		p->nfindings = n;
	for (uint32_t i = 0; i < p->nfindings && !r->bad; i++)
		p->findings[i] = get_str(r);
	p->rx_clock = get_str(r);
	p->rx_stamped = rp_rec_get64(r);
	p->rx_unstamped = rp_rec_get64(r);
	p->rx_clock_bound_ns = rp_rec_get64(r);
	p->shared = getb(r);
	p->pause_steered = getb(r);
	p->xdp_program = getb(r);
	p->tx_lead_ns = rp_rec_get64(r);
	p->tx_nic_late = getb(r);
}

static struct rp_hist *get_hist(struct rp_rec_rd *r)
{
	if (r->bad)
		return NULL;
	struct rp_hist *h = malloc(sizeof(*h));
	size_t used = 0;
	if (!h) {
		rp_rec_fail(r, "out of memory for a QP's histogram");
		return NULL;
	}
	if (rp_acct_hist_unpack(r->p + r->off, r->len - r->off, h, &used, r->err, r->errlen) != 0) {
		r->bad = true;
		free(h);
		return NULL;
	}
	r->off += used;
	return h;
}

static struct rp_env_verbs *get_verbs(struct rp_rec_rd *r)
{
	if (!getb(r) || r->bad)
		return NULL;
	struct rp_env_verbs *v = calloc(1, sizeof(*v));
	if (!v) {
		rp_rec_fail(r, "out of memory for a rank record's verbs");
		return NULL;
	}
	uint32_t n = rp_rec_get32(r);
	if ((v->hosts = get_list(r, n, 44, sizeof(*v->hosts))))
		v->nhosts = n;
	for (uint32_t i = 0; i < v->nhosts && !r->bad; i++) {
		struct rp_env_vhost *h = &v->hosts[i];
		h->host = get_str(r);
		h->device = get_str(r);
		h->driver = get_str(r);
		h->port = rp_rec_geti32(r);
		h->gid_index = rp_rec_geti32(r);
		h->gid = get_str(r);
		h->netdev = get_str(r);
		h->elapsed_ns = rp_rec_get64(r);
		h->delta = get_counts(r, &h->ndelta);
		h->raw = get_counts(r, &h->nraw);
	}
	n = rp_rec_get32(r);
	if ((v->qps = get_list(r, n, 129, sizeof(*v->qps))))
		v->nqps = n;
	for (uint32_t i = 0; i < v->nqps && !r->bad; i++) {
		struct rp_env_vqp *q = &v->qps[i];
		q->flow = rp_rec_get64(r);
		q->qp = rp_rec_geti32(r);
		q->src = get_str(r);
		q->dst = get_str(r);
		q->src_qpn = rp_rec_get64(r);
		q->dst_qpn = rp_rec_get64(r);
		q->send = getb(r);
		for (unsigned k = 0; k < 3; k++)
			q->v[k] = rp_rec_get64(r);
		q->lat = get_hist(r);
	}
	return v;
}

int rp_rank_env_unpack(struct rp_rank_env *e, const uint8_t *buf, size_t len, char *err, size_t errlen)
{
	struct rp_rec_rd r = {buf, len, 0, err, errlen, false, "rank record"};
	*e = (struct rp_rank_env){0};
	if (len < HEADER_LEN)
		rp_rec_fail(&r, "rank record of %llu bytes, shorter than its %u-byte header", U(len), HEADER_LEN);
	else if (memcmp(buf, MAGIC, 4) != 0)
		rp_rec_fail(&r, "not a rank record (no RPEV magic)");
	r.off = 4;
	unsigned version = (unsigned)rp_rec_get(&r, 2);
	if (!r.bad && version != RP_RANK_ENV_VERSION)
		rp_rec_fail(&r, "rank record version %u, this build reads %u", version, RP_RANK_ENV_VERSION);
	uint64_t total = rp_rec_get64(&r);
	if (!r.bad && total != len)
		rp_rec_fail(&r, "rank record says %llu bytes, got %llu", U(total), U(len));
	e->rank = rp_rec_geti32(&r);
	e->node = get_str(&r);
	uint32_t n = rp_rec_get32(&r);
	if ((e->hosts = get_list(&r, n, 4, sizeof(*e->hosts))))
		e->nhosts = n;
	for (uint32_t i = 0; i < e->nhosts && !r.bad; i++)
		e->hosts[i] = get_str(&r);
	e->clock_offset_ns = rp_rec_geti(&r);
	e->clock_bound_ns = rp_rec_geti(&r);
	e->start_skew_ns = rp_rec_geti(&r);
	e->clock_source = get_str(&r);
	e->pclock_gap[0] = rp_rec_geti(&r);
	e->pclock_gap[1] = rp_rec_geti(&r);
	e->flows_accounted = rp_rec_get64(&r);
	e->flows_held = rp_rec_get64(&r);
	n = rp_rec_get32(&r);
	if ((e->ports = get_list(&r, n, 241, sizeof(*e->ports))))
		e->nports = n;
	for (uint32_t i = 0; i < e->nports && !r.bad; i++)
		get_port(&r, &e->ports[i]);
	n = rp_rec_get32(&r);
	if ((e->captures = get_list(&r, n, 48, sizeof(*e->captures))))
		e->ncaptures = n;
	for (uint32_t i = 0; i < e->ncaptures && !r.bad; i++) {
		struct rp_env_capture *c = &e->captures[i];
		c->node = get_str(&r);
		c->path = get_str(&r);
		c->offered = rp_rec_get64(&r);
		c->written = rp_rec_get64(&r);
		c->dropped = rp_rec_get64(&r);
		c->sampled_out = rp_rec_get64(&r);
		c->files = rp_rec_get64(&r);
	}
	n = rp_rec_get32(&r);
	if ((e->lcores = get_list(&r, n, 44, sizeof(*e->lcores))))
		e->nlcores = n;
	for (uint32_t i = 0; i < e->nlcores && !r.bad; i++) {
		struct rp_env_lcore *l = &e->lcores[i];
		l->lcore = rp_rec_get32(&r);
		l->lcore_id = rp_rec_get32(&r);
		l->socket = rp_rec_geti32(&r);
		l->rx_packets = rp_rec_get64(&r);
		l->tx_packets = rp_rec_get64(&r);
		l->polls = rp_rec_get64(&r);
		l->busy_polls = rp_rec_get64(&r);
	}
	e->verbs = get_verbs(&r);
	rp_env_get_nics(&r, &e->nics, &e->nnics);
	if (!r.bad && r.off != len)
		rp_rec_fail(&r, "rank record: %llu bytes after its end", U(len - r.off));
	if (r.bad) {
		rp_rank_env_free(e);
		return -1;
	}
	e->present = true;
	return 0;
}

static void free_counts(struct rp_env_count *c, uint32_t n)
{
	for (uint32_t i = 0; c && i < n; i++)
		free(c[i].name);
	free(c);
}

void rp_env_neigh_free(struct rp_env_neigh *n)
{
	for (uint32_t i = 0; n->hops && i < n->nhops; i++) {
		free(n->hops[i].address);
		free(n->hops[i].mac);
		free(n->hops[i].resolved_mac);
	}
	free(n->hops);
	*n = (struct rp_env_neigh){0};
}

static void free_port(struct rp_env_port *p)
{
	free(p->node);
	free(p->devargs);
	free(p->driver);
	free_counts(p->xstats, p->nxstats);
	rp_env_neigh_free(&p->neigh);
	free(p->netdev);
	free(p->rx_clock);
	free(p->unsent);
	for (uint32_t i = 0; p->findings && i < p->nfindings; i++)
		free(p->findings[i]);
	free(p->findings);
}

static void free_verbs(struct rp_env_verbs *v)
{
	if (!v)
		return;
	for (uint32_t i = 0; v->hosts && i < v->nhosts; i++) {
		struct rp_env_vhost *h = &v->hosts[i];
		free(h->host), free(h->device), free(h->driver), free(h->gid), free(h->netdev);
		free_counts(h->delta, h->ndelta);
		free_counts(h->raw, h->nraw);
	}
	free(v->hosts);
	for (uint32_t i = 0; v->qps && i < v->nqps; i++) {
		free(v->qps[i].src), free(v->qps[i].dst);
		free(v->qps[i].lat);
	}
	free(v->qps);
	free(v);
}

void rp_rank_env_free(struct rp_rank_env *e)
{
	free(e->node);
	for (uint32_t i = 0; e->hosts && i < e->nhosts; i++)
		free(e->hosts[i]);
	free(e->hosts);
	free(e->clock_source);
	for (uint32_t i = 0; e->ports && i < e->nports; i++)
		free_port(&e->ports[i]);
	free(e->ports);
	for (uint32_t i = 0; e->captures && i < e->ncaptures; i++) {
		free(e->captures[i].node);
		free(e->captures[i].path);
	}
	free(e->captures);
	free(e->lcores);
	free_verbs(e->verbs);
	rp_env_free_nics(e->nics, e->nnics);
	*e = (struct rp_rank_env){0};
}

uint64_t *rp_rank_env_unsent_by_flow(const struct rp_rank_env *e, size_t n, size_t nflows)
{
	uint64_t *by = calloc(nflows ? nflows : 1, sizeof(*by));
	for (size_t k = 0; by && k < n; k++)
		for (uint32_t i = 0; e[k].present && i < e[k].nports; i++)
			for (uint32_t j = 0; j < e[k].ports[i].nunsent; j++) {
				const struct rp_env_unsent *u = &e[k].ports[i].unsent[j];
				if (u->flow < nflows)
					by[u->flow] += u->frames;
			}
	return by;
}

char *rp_env_strdup(const char *s)
{
	return strdup(s ? s : "");
}
