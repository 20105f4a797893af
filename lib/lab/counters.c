/* The lab's counters as a roceprobe.counters/1 series (counters.h). */
#include "counters.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "counters/snap.h"
#include "counters/sonic_pub.h"
#include "lab_internal.h"
#include "report/outdir.h"
#include "report/switch_sonic.h"

struct rp_lab_ctrs {
	FILE *f;
	char path[4200], part[4300];
	uint64_t every_ns, last_t;
	bool any, failed;
	int error;                /* errno of the failed write */
	int slot;                 /* report/outdir.h's: a second signal removes the part file */
	size_t n;                 /* sources: the switches, then the hosts */
	struct rp_cnt_snap *prev; /* [n] the last reading of each */
	struct rp_cnt_snap cur, delta;
	struct rp_sonic_snap sonic;
};

struct rp_lab_ctrs *rp_lab_ctrs_open(const struct rp_lab *lab, const char *dir, uint64_t every_ns, char *err,
				     size_t errlen)
{
	for (unsigned s = 0; s < lab->nsw; s++)
		if (lab->sw[s].nports > RP_SONIC_PUB_PORTS) {
			snprintf(err, errlen, "--counters: switch %s has %u ports; the SONiC counter layout holds %d a "
				 "switch: give the profile a leaf-spine fabric: (docs/lab.md)", lab->sw[s].name,
				 lab->sw[s].nports, RP_SONIC_PUB_PORTS);
			return NULL;
		}
	struct rp_lab_ctrs *c = calloc(1, sizeof(*c));
	if (!c || !(c->prev = calloc(lab->nsw + lab->nhosts + 1, sizeof(*c->prev)))) {
		free(c);
		snprintf(err, errlen, "out of memory for the counter series");
		return NULL;
	}
	c->every_ns = every_ns;
	c->slot = -1;
	c->n = lab->nsw + lab->nhosts;
	snprintf(c->path, sizeof(c->path), "%s/counters.jsonl", dir);
	snprintf(c->part, sizeof(c->part), "%s.part", c->path);
	c->slot = rp_outdir_track(c->part);
	if (!(c->f = fopen(c->part, "w"))) {
		snprintf(err, errlen, "cannot write %s: %s", c->part, strerror(errno));
		rp_lab_ctrs_free(c);
		return NULL;
	}
	return c;
}

/* Host h's NIC: what it sent and received, and per priority the PFC frames
 * (its accountant's port, as result.json's ports[].prio[] count them). */
static void host_read(const struct rp_lab *lab, unsigned h, struct rp_cnt_snap *out)
{
	const struct rp_lab_host *H = &lab->hosts[h];
	struct rp_cnt_port *p = rp_cnt_add_port(out, lab->prof->hosts[h].name);
	struct rp_acct_port_result r;
	struct rp_ctr raw[7 + 2 * 8];
	size_t n = 0;
	uint64_t ce = 0;
	rp_acct_port(lab->acct, h, &r);
	for (unsigned q = 0; q < 8; q++)
		ce += r.prio[q].ecn_marked;
	/* exec:'s names are the vocabulary's own (ctr_names.c) */
	raw[n++] = (struct rp_ctr){"tx_packets", RP_CTR_EXEC, H->tx_frames};
	raw[n++] = (struct rp_ctr){"tx_bytes", RP_CTR_EXEC, H->tx_bytes};
	raw[n++] = (struct rp_ctr){"rx_packets", RP_CTR_EXEC, H->rx_frames};
	raw[n++] = (struct rp_ctr){"rx_bytes", RP_CTR_EXEC, H->rx_bytes};
	raw[n++] = (struct rp_ctr){"cnp_sent", RP_CTR_EXEC, H->cnp_tx};      /* CNPs it sent (notification point) */
	raw[n++] = (struct rp_ctr){"cnp_handled", RP_CTR_EXEC, H->cnp_rx};   /* CNPs it received (reaction point) */
	raw[n++] = (struct rp_ctr){"ecn_ce_received", RP_CTR_EXEC, ce};      /* CE-marked frames received */
	for (unsigned q = 0; q < 8; q++) {
		raw[n] = (struct rp_ctr){.src = RP_CTR_EXEC, .value = r.prio[q].pfc_rx};
		snprintf(raw[n++].name, sizeof(raw[0].name), "pfc_rx.%u", q);
		raw[n] = (struct rp_ctr){.src = RP_CTR_EXEC, .value = r.prio[q].pfc_tx};
		snprintf(raw[n++].name, sizeof(raw[0].name), "pfc_tx.%u", q);
	}
	if (p)
		rp_cnt_port_fold(p, raw, n);
}

/* Source i at t into c->cur. */
static void source_read(struct rp_lab_ctrs *c, const struct rp_lab *lab, size_t i, uint64_t t)
{
	struct rp_cnt_snap *s = &c->cur;
	rp_cnt_snap_free(s);
	s->t_ns = s->mono_ns = t;
	if (i < lab->nsw) {
		const struct rp_lab_switch *S = &lab->sw[i];
		snprintf(s->source, sizeof(s->source), "lab:%s", S->name);
		rp_switch_sonic_snap(S->sw, S->nports, t, &c->sonic);
		for (unsigned p = 0; p < c->sonic.nports; p++) {
			struct rp_cnt_port *o = rp_cnt_add_port(s, c->sonic.port[p].name);
			if (o)
				rp_sonic_port_fold(&c->sonic.port[p], o);
		}
	} else {
		unsigned h = (unsigned)(i - lab->nsw);
		snprintf(s->source, sizeof(s->source), "lab:%s", lab->prof->hosts[h].name);
		host_read(lab, h, s);
	}
}

static void put_line(struct rp_lab_ctrs *c, json_t *j)
{
	if (!j || json_dumpf(j, c->f, JSON_COMPACT) != 0 || fputc('\n', c->f) == EOF) {
		if (!c->failed)
			c->error = errno ? errno : ENOMEM;
		c->failed = true;
	}
	json_decref(j);
}

static int why(const struct rp_lab_ctrs *c, char *err, size_t errlen)
{
	snprintf(err, errlen, "cannot write %s: %s", c->path, strerror(c->error));
	return -1;
}

int rp_lab_ctrs_sample(struct rp_lab_ctrs *c, const struct rp_lab *lab, uint64_t t, char *err, size_t errlen)
{
	if (c->failed)
		return why(c, err, errlen);
	for (size_t i = 0; i < c->n; i++) {
		source_read(c, lab, i, t);
		if (!c->any) {
			put_line(c, rp_cnt_json(&c->cur, false, 0));
		} else {
			rp_cnt_delta(&c->prev[i], &c->cur, &c->delta);
			put_line(c, rp_cnt_json(&c->delta, true, t - c->prev[i].mono_ns));
		}
		rp_cnt_snap_free(&c->prev[i]);
		memcpy(&c->prev[i], &c->cur, sizeof(c->cur)); /* takes its counters */
		memset(&c->cur, 0, sizeof(c->cur));
	}
	c->any = true;
	c->last_t = t;
	return c->failed ? why(c, err, errlen) : 0;
}

int rp_lab_ctrs_close(struct rp_lab_ctrs *c, const struct rp_lab *lab, uint64_t end_ns, char *err, size_t errlen)
{
	if (!c->any || end_ns > c->last_t)
		rp_lab_ctrs_sample(c, lab, end_ns, err, errlen);
	FILE *f = c->f;
	c->f = NULL;
	if (fclose(f) != 0 && !c->failed) {
		c->failed = true;
		c->error = errno;
	}
	if (!c->failed && rename(c->part, c->path) != 0) {
		c->failed = true;
		c->error = errno;
	}
	rp_outdir_untrack(c->slot);
	c->slot = -1;
	if (c->failed) {
		unlink(c->part);
		return why(c, err, errlen);
	}
	return 0;
}

void rp_lab_ctrs_free(struct rp_lab_ctrs *c)
{
	if (!c)
		return;
	if (c->f) {
		fclose(c->f);
		unlink(c->part);
	}
	rp_outdir_untrack(c->slot);
	for (size_t i = 0; c->prev && i < c->n; i++)
		rp_cnt_snap_free(&c->prev[i]);
	rp_cnt_snap_free(&c->cur);
	rp_cnt_snap_free(&c->delta);
	free(c->prev);
	free(c);
}
