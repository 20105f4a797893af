/* The inferred profile as YAML (replay.h): the one writer of it. Every
 * inferred value carries a comment with its evidence and uncertainty; with
 * --fabric, the fabric profile's hosts and fabric: sections are copied as
 * written (so ports, responders, impairments and the topology come along). */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "profile/profile.h"
#include "profile/units.h"
#include "replay.h"
#include "wire/pfc.h"
#include "wire/eth.h"
#include "wire/ipv4.h"
#include "wire/ipv6.h"

#define DEFAULT_SPEED_BPS 100000000000ull

static const char *const ECN_WORDS[4] = {"not-ect", "ect1", "ect0", "ce"};

/* A top-level section of a YAML text, as written: its key's line and every
 * line after it that is indented, a list item, a comment or empty. */
static bool copy_section(FILE *f, const char *text, const char *key)
{
	size_t kl = strlen(key);
	bool in = false, any = false;
	for (const char *l = text; l && *l;) {
		const char *nl = strchr(l, '\n');
		size_t len = nl ? (size_t)(nl - l) : strlen(l);
		bool top = len && l[0] != ' ' && l[0] != '\t' && l[0] != '#' && l[0] != '-' && l[0] != '\r';
		if (top)
			in = len > kl && !strncmp(l, key, kl) && l[kl] == ':';
		if (in) {
			fprintf(f, "%.*s\n", (int)len, l);
			any = true;
		}
		l = nl ? nl + 1 : NULL;
	}
	return any;
}

/* Without a fabric, the link speed a host needs (captures carry none): 100G,
 * or the first common speed its fastest flow fits in. */
static uint64_t frame_speed(const struct rp_replay_model *m, int host)
{
	static const uint64_t speeds[] = {200000000000ull, 400000000000ull, 800000000000ull, 1600000000000ull};
	double top = 0;
	for (size_t i = 0; i < m->nflows; i++)
		if (m->flows[i].src == host && m->flows[i].entry != -2 && m->flows[i].rate_bps > top)
			top = m->flows[i].rate_bps;
	uint64_t sp = DEFAULT_SPEED_BPS;
	for (size_t i = 0; i < sizeof(speeds) / sizeof(speeds[0]) && top > (double)sp * 1.001; i++)
		sp = speeds[i];
	return sp;
}

static uint64_t host_speed(const struct rp_replay_model *m, int host)
{
	const struct rp_replay_host *h = &m->ev->hosts[host];
	if (m->fabric && h->fabric >= 0)
		return m->fabric->hosts[h->fabric].speed_bps;
	return frame_speed(m, host);
}

static void write_hosts(FILE *f, const struct rp_replay_model *m)
{
	if (m->fabric) {
		fprintf(f, "# hosts: the fabric's (%s), copied as written; every host of the evidence is one of them\n",
			m->fabric_path);
		if (!copy_section(f, m->fabric_text, "hosts"))
			copy_section(f, m->fabric_text, "host_template");
		return;
	}
	fputs("hosts:  # from the frames: a source MAC with the addresses it sent from (MAC order)\n", f);
	for (size_t i = 0; i < m->ev->nhosts; i++) {
		const struct rp_replay_host *h = &m->ev->hosts[i];
		char mac[18], a4[16], a6[46];
		rp_mac_format(h->mac, mac);
		fprintf(f, "  - {name: %s, mac: \"%s\"", h->name, mac);
		if (h->has_ipv4) {
			rp_ipv4_addr_format(h->ipv4, a4);
			fprintf(f, ", ipv4: %s", a4);
		}
		if (h->has_ipv6) {
			rp_ipv6_addr_format(h->ipv6, a6);
			fprintf(f, ", ipv6: \"%s\"", a6);
		}
		uint64_t sp = frame_speed(m, (int)i);
		char sps[32];
		if (sp != DEFAULT_SPEED_BPS)
			fprintf(f, ", speed: %s", rp_format_bps(sp, sps, sizeof(sps)));
		fprintf(f, "}  # %" PRIu64 " RoCE frames sent, %" PRIu64 " received%s\n", h->tx, h->rx,
			sp != DEFAULT_SPEED_BPS ? "; speed: the first common one its fastest flow fits in" : "");
	}
}

static void write_size(FILE *f, const struct rp_replay_flow *x, const char *ind, unsigned sampled)
{
	char spread[96] = "";
	if (x->size_spread)
		snprintf(spread, sizeof(spread), "; sizes vary by %" PRIu64 " B: the largest", x->size_spread);
	if (!strcmp(x->size_how, "RETH"))
		fprintf(f, "%smessage_size: %" PRIu64 "  # size from RETH DMA length%s\n", ind, x->message_size, spread);
	else if (!strcmp(x->size_how, "span") && sampled > 1)
		fprintf(f, "%smessage_size: %" PRIu64 "  # size from ONLY packets (no RETH for %s; a 1-in-%u sample has "
			"no whole FIRST..LAST span)%s\n", ind, x->message_size, x->opcode, sampled, spread);
	else if (!strcmp(x->size_how, "span"))
		fprintf(f, "%smessage_size: %" PRIu64 "  # size from PSN span FIRST..LAST (no RETH for %s)%s\n", ind,
			x->message_size, x->opcode, spread);
	else if (!strcmp(x->size_how, "cut"))
		fprintf(f, "%smessage_size: %" PRIu64 "  # size from PSN span FIRST..LAST: RETH cut by the snaplen%s\n",
			ind, x->message_size, spread);
	else if (sampled > 1)
		fprintf(f, "%s# message_size: no RETH and no ONLY packet in the sample; sizes from PSN spans are not "
			"available when sampled (1 in %u): the default 64KiB\n", ind, sampled);
	else
		fprintf(f, "%s# message_size: no whole message seen (no RETH, no FIRST..LAST): the default 64KiB\n", ind);
}

static void write_mtu(FILE *f, const struct rp_replay_flow *x, const char *ind)
{
	if (x->mtu)
		fprintf(f, "%smtu: %u  # the FIRST/MIDDLE packets' payload\n", ind, x->mtu);
	else
		fprintf(f, "%smtu: 4096  # no multi-packet message seen: any MTU of %" PRIu64 " B or more sends the same "
			"frames\n", ind, x->max_payload);
}

/* A flow's rate over time (phases.c): one line per phase with its evidence. */
static void write_phases(FILE *f, const struct rp_replay_flow *x, uint64_t cap, const char *held, const char *ind)
{
	fprintf(f, "%sphases:  # its rate over time: its sender's pace (layer 1, frame + 24 B: bits of a window's "
		"frames but the last over its first to last frame) in windows of %" PRIu64 " ns from its first frame, "
		"before any pause or CNP its host received; a phase starts where a window's pace and the next's differ "
		"from the phase's by more than both are known to (2 x the timestamps' %" PRIu64 " ns over a window's "
		"span, at least 1%%)%s\n", ind, x->win_ns, x->ts_grain_ns, held);
	for (unsigned i = 0; i < x->nphases; i++) {
		const struct rp_replay_phase *p = &x->phases[i];
		char rate[40], when[200];
		bool line = p->rate_bps >= (double)cap * (1 - p->bound);
		if (line)
			snprintf(rate, sizeof(rate), "100%%");
		else
			snprintf(rate, sizeof(rate), "%.6fG", p->rate_bps / 1e9);
		if (i == 0)
			snprintf(when, sizeof(when), "from its first frame");
		else if (p->mixed)
			snprintf(when, sizeof(when), "at: inside a window of both paces, where the old pace and the "
				 "next window's add up to the window's bits: +-1 frame's pace");
		else
			snprintf(when, sizeof(when), "at: the first frame of the first window at the new pace: up to 1 "
				 "frame's pace late");
		fprintf(f, "%s  - {at: %" PRIu64 "ns, rate: %s}  # %s%.6f Gbit/s over %u windows, %" PRIu64
			" frames: +-%.3f%% (the largest window's deviation, at least the timestamps'); %s\n", ind,
			p->at_ns, rate, line ? "at the sender's link speed: " : "",
			p->rate_bps / 1e9, p->windows, p->frames, 100 * p->bound, when);
	}
}

/* The keys every entry has: opcode .. messages. flows: the entry's (their
 * rates' mean, starts' earliest). */
static void write_keys(FILE *f, const struct rp_replay_model *m, const struct rp_replay_entry *e, const char *ind)
{
	const struct rp_replay_flow *x = &m->flows[e->first];
	double rsum = 0, rmin = 0, rmax = 0, osum = 0;
	size_t offered = 0; /* flows whose offered pace was measured */
	uint64_t ofr = UINT64_MAX;
	uint64_t start = UINT64_MAX, smax = 0, frames = 0, active = 0, cap = UINT64_MAX, paused = 0, pactive = 0,
		 cnp = 0, kmin = UINT64_MAX;
	for (size_t k = 0; k < e->nflows; k++) {
		const struct rp_replay_flow *y = &m->flows[e->flows[k]];
		kmin = y->sampled_frames < kmin ? y->sampled_frames : kmin;
		rsum += y->rate_bps;
		if (y->offered_bps > 0) {
			offered++;
			osum += y->offered_bps;
			ofr = y->offered_frames < ofr ? y->offered_frames : ofr;
		}
		rmin = k == 0 || y->rate_bps < rmin ? y->rate_bps : rmin;
		rmax = y->rate_bps > rmax ? y->rate_bps : rmax;
		start = y->start_ns < start ? y->start_ns : start;
		smax = y->start_ns > smax ? y->start_ns : smax;
		frames += y->frames;
		active = y->active_ns > active ? y->active_ns : active;
		uint64_t sp = host_speed(m, y->src);
		cap = sp < cap ? sp : cap;
		int64_t p = rp_replay_sender_paused(m, y);
		if (p >= 0) {
			paused += (uint64_t)p;
			pactive += y->active_ns;
		}
		struct rp_acct_flow_result r;
		rp_acct_flow(m->ev->acct, y->acct, &r);
		cnp += r.cnp_rx;
	}
	char held[128] = "";
	if (paused && pactive)
		snprintf(held, sizeof(held), "; %s paused %.0f%% of that time by PFC: %s more",
			 e->nflows > 1 ? "the senders were" : "its sender was",
			 100.0 * (double)(paused < pactive ? paused : pactive) / (double)pactive,
			 e->nflows > 1 ? "they offered" : "it offered");
	if (cnp)
		snprintf(held + strlen(held), sizeof(held) - strlen(held), "; %" PRIu64 " CNPs slowed %s (DCQCN)", cnp,
			 e->nflows > 1 ? "them" : "it");
	fprintf(f, "%sopcode: %s  # the data opcodes seen\n", ind, x->opcode);
	if (x->merged > 1)
		fprintf(f, "%sqps: %u  # DestQPs per flow: %zu QPs of one host pair with the same keys at overlapping times, "
			"taken as one flow (no probe tells flows apart)\n", ind, x->qps, x->merged);
	else
		fprintf(f, "%sqps: %u  # DestQPs per flow\n", ind, x->qps);
	fprintf(f, "%sip: %u  # the frames' IP version\n", ind, x->l3);
	fprintf(f, "%sdscp: %u  # IP header as sent\n", ind, x->dscp);
	fprintf(f, "%secn: %s  # IP header as sent (the first copy of each frame; CE there: marked on the way, ECT(0) sent)\n", ind, ECN_WORDS[x->ecn & 3]);
	if (x->vlan)
		fprintf(f, "%svlan: %u  # 802.1Q tag\n%spcp: %u  # 802.1Q tag\n", ind, x->vid, ind, x->pcp);
	/* The UDP source port picks each switch's ECMP uplink: pinned, the
	 * reproduction's frames take the incident's paths (on the same fabric). */
	bool one_sport = x->sport >= 0;
	for (size_t k = 1; k < e->nflows && one_sport; k++)
		one_sport = m->flows[e->flows[k]].sport == x->sport;
	if (one_sport)
		fprintf(f, "%ssport: fixed  # one UDP source port on every frame: ECMP's entropy, so the same paths\n"
			"%ssport_base: %d\n", ind, ind, x->sport);
	write_size(f, x, ind, m->ev->sampled);
	write_mtu(f, x, ind);
	double rate = rsum / (double)e->nflows;
	char how[480];
	if (e->nflows > 1)
		snprintf(how, sizeof(how), "mean of %zu flows' rates (%.3f..%.3f Gbit/s), each over its active time; %" PRIu64
			 " frames", e->nflows, rmin / 1e9, rmax / 1e9, frames);
	else
		snprintf(how, sizeof(how), "rate over %.6g ms active, %" PRIu64 " frames", (double)active / 1e6, frames);
	/* Held back (a pause or CNPs): what was achieved is not what was offered;
	 * the pace of the first frames, before the first pause, is. */
	bool held_back = (paused && pactive) || cnp, bursts = e->nflows == 1 && x->bursts;
	if ((held_back || bursts) && offered) {
		char achieved[200], of[64] = "";
		snprintf(achieved, sizeof(achieved), "; %s %.3f Gbit/s over %s active time", e->nflows > 1 ? "they achieved a mean" :
			 "it achieved", rate / 1e9, e->nflows > 1 ? "their" : "its");
		if (offered < e->nflows) /* the others' first pause or CNP came before enough frames */
			snprintf(of, sizeof(of), " of %zu of the %zu flows", offered, e->nflows);
		rate = osum / (double)offered;
		if (held_back)
			snprintf(how, sizeof(how), "offered: the pace of %s first frames%s (%s%" PRIu64 "), before the first "
				 "pause or CNP %s received, over the gaps between them%s", e->nflows > 1 ? "each flow's" : "its",
				 of, e->nflows > 1 ? "at least " : "", ofr, e->nflows > 1 ? "its host" : "its sender's host",
				 achieved);
		else
			snprintf(how, sizeof(how), "offered: the pace of its first frames (%" PRIu64 "), in its first burst, over "
				 "the gaps between them%s, its bursts' idle gaps included", ofr, achieved);
	} else if (e->pattern == RP_REPLAY_ALL_TO_ALL && x->messages) {
		/* A pair sends its r messages in phases 1 of N-1 apart: over its active time,
		 * (r-1)(N-1)+1 message times for r messages at the pacing rate. */
		double hosts = 0.5 + sqrt(0.25 + (double)e->nflows), r = (double)x->messages;
		rate *= ((r - 1) * (hosts - 1) + 1) / r;
		strncat(how, "; x ((r-1)(N-1)+1)/r: r messages in phases N-1 apart", sizeof(how) - strlen(how) - 1);
	}
	unsigned n = m->ev->sampled;
	if (n > 1) /* binomial: the count of a 1-in-N sample, docs/replay.md */
		snprintf(how + strlen(how), sizeof(how) - strlen(how), "; rate from a 1-in-%u sample: +-%.0f%% (2 sigma: "
			 "2 sqrt((N-1)/(N k)), k = %" PRIu64 " frames sampled%s)", n,
			 100 * rp_replay_sample_bound(n, kmin), kmin, e->nflows > 1 ? " of the fewest flow" : "");
	bool phased = e->nflows == 1 && x->nphases > 1;
	if (phased)
		write_phases(f, x, cap, held, ind);
	else if (rate <= 0)
		fprintf(f, "%srate: 100%%  # one frame per flow: no rate to measure\n", ind);
	else if (rate >= (double)cap)
		fprintf(f, "%srate: 100%%  # %s: at the sender's link speed%s\n", ind, how, held);
	else
		fprintf(f, "%srate: %.6fG  # %s; layer 1 (frame + 24 B)%s\n", ind, rate / 1e9, how, held);
	if (e->nflows == 1 && x->bursts)
		fprintf(f, "%sburst_on: %" PRIu64 "ns  # on/off bursts: the mean of %" PRIu64 " periods (a burst and the idle "
			"gap after it, within 10%% of each other) less the mean gap plus one pace\n%sburst_off: %" PRIu64
			"ns  # the rest of the period\n", ind, x->burst_on_ns, x->bursts, ind, x->burst_off_ns);
	if (e->nflows > 1)
		fprintf(f, "%sstart: %" PRIu64 "ns  # the earliest first frame, relative to the evidence's first "
			"(the flows' first frames within %" PRIu64 " ns)\n", ind, start, smax - start);
	else
		fprintf(f, "%sstart: %" PRIu64 "ns  # first frame, relative to the evidence's first frame\n", ind, start);
	if (phased) {
		/* messages start while due < start + duration: the last started at most its
		 * message's time before its last frame; half its last frame's pace after it */
		const struct rp_replay_phase *l = &x->phases[x->nphases - 1];
		uint64_t half = (uint64_t)llround((double)x->last_bits * 1e9 / l->rate_bps / 2);
		fprintf(f, "%sduration: %" PRIu64 "ns  # phases stop by time: its first to its last frame (%" PRIu64
			" ns) and half its last frame's pace at the last phase's rate (%" PRIu64 " ns); it sent %" PRIu64
			" messages (LAST or ONLY packets, resends not counted)\n", ind, x->active_ns + (half ? half : 1),
			x->active_ns, half, x->messages);
	} else if (n > 1 && !x->messages)
		fprintf(f, "%sduration: %" PRIu64 "ns  # messages not estimated (no LAST or ONLY packet and no size in the "
			"1-in-%u sample): the active time seen, at the rate above\n", ind, active ? active : 1, n);
	else if (n > 1)
		fprintf(f, "%smessages: %" PRIu64 "  # messages sent per flow: %s (+-%.0f%%)\n", ind, x->messages,
			x->message_size ? "data frames in the sample x N over the packets a message takes (size / mtu)"
					: "LAST or ONLY packets in the sample x N, resends not counted",
			100 * rp_replay_sample_bound(n, kmin));
	else
		fprintf(f, "%smessages: %" PRIu64 "  # messages sent per flow: LAST or ONLY packets, resends not counted\n",
			ind, x->messages);
}

static void write_entry(FILE *f, const struct rp_replay_model *m, size_t i)
{
	const struct rp_replay_entry *e = &m->entries[i];
	const struct rp_replay_flow *x = &m->flows[e->first];
	const struct rp_replay_host *h = m->ev->hosts;
	fprintf(f, "  - name: t%zu\n", i);
	switch (e->pattern) {
	case RP_REPLAY_INCAST:
		fprintf(f, "    pattern: incast  # %zu flows of the same keys from distinct hosts to %s, starting within "
			"%" PRIu64 " ns\n    receiver: %s\n    senders: [", e->nflows, h[x->dst].name, m->window_ns,
			h[x->dst].name);
		for (size_t j = 0, k = 0; j < m->ev->nhosts; j++)
			for (size_t i2 = 0; i2 < e->nflows; i2++)
				if (m->flows[e->flows[i2]].src == (int)j)
					fprintf(f, "%s%s", k++ ? ", " : "", h[j].name);
		fputs("]\n", f);
		break;
	case RP_REPLAY_ALL_TO_ALL:
		fprintf(f, "    pattern: all-to-all  # %zu flows of the same keys: every ordered pair of these hosts "
			"(in MAC order: the phases' order is not inferred)\n    hosts: [", e->nflows);
		for (size_t j = 0, k = 0; j < m->ev->nhosts; j++)
			for (size_t i2 = 0; i2 < e->nflows; i2++)
				if (m->flows[e->flows[i2]].src == (int)j) {
					fprintf(f, "%s%s", k++ ? ", " : "", h[j].name);
					break;
				}
		fputs("]\n", f);
		break;
	case RP_REPLAY_PERMUTATION:
		fprintf(f, "    pattern: permutation  # %zu flows of the same keys: every host sends to exactly one other and "
			"receives from exactly one, one cycle\n    hosts: [", e->nflows);
		for (size_t i2 = 0; i2 < e->nflows; i2++)
			fprintf(f, "%s%s", i2 ? ", " : "", h[m->flows[e->flows[i2]].src].name);
		fputs("]  # in the order that makes seed 1's cycle the one seen\n    seed: 1\n", f);
		break;
	default:
		fprintf(f, "    pattern: flow\n    src: %s\n    dst: %s\n", h[x->src].name, h[x->dst].name);
	}
	write_keys(f, m, e, "    ");
}

/* The files' clocks as aligned, and a mirror's timestamps. */
static void write_clocks(FILE *f, const struct rp_replay_evidence *ev)
{
	for (size_t i = 0; i < ev->nfiles; i++) {
		const struct rp_replay_file *x = &ev->files[i];
		if (x->erspan_ts_used || x->erspan_ts_kept)
			fprintf(f, "# %s: %" PRIu64 " ERSPAN III frames timed by the mirror's clock, %" PRIu64 " by the "
				"capture's (100 us or user granularity)\n", x->path, x->erspan_ts_used, x->erspan_ts_kept);
		if (ev->nfiles < 2 || i == 0)
			continue;
		if (!x->aligned)
			fprintf(f, "# clock of %s: NOT ALIGNED (no frame in common with an aligned capture; its times "
				"overlap theirs): taken as %s's\n", x->path, ev->files[0].path);
		else if (x->residual_ns < 0)
			fprintf(f, "# clock of %s: %+.3f us to %s's, from %" PRIu64 " frames seen one way only: kept as one "
				"unless they arrive before they left (residual not bounded)\n", x->path,
				(double)x->offset_ns / 1e3, ev->files[0].path, x->pairs);
		else
			fprintf(f, "# clock of %s: %+.3f us to %s's%s, residual +-%.3f us, from %" PRIu64 " frames both saw "
				"(both ways)\n", x->path, (double)x->offset_ns / 1e3, ev->files[0].path,
				x->offset_ns || x->via != 0 ? "" : " (the frames fit one clock)", (double)x->residual_ns / 1e3,
				x->pairs);
	}
	if (ev->sampled > 1)
		fprintf(f, "# SAMPLED 1 in %u: counts and rates x %u with their bounds; sizes from RETH and ONLY packets "
			"(PSN spans not available); loss and resends not measured\n", ev->sampled, ev->sampled);
}

/* The host whose MAC sent the PFC/PAUSE frames of s: the evidence's, else the
 * fabric's; NULL: neither (a switch's). */
static const char *pfc_host(const struct rp_replay_model *m, const struct rp_replay_pfc_src *s)
{
	for (size_t i = 0; i < m->ev->nhosts; i++)
		if (!memcmp(m->ev->hosts[i].mac, s->mac, 6))
			return m->ev->hosts[i].name;
	for (size_t i = 0; m->fabric && i < m->fabric->nhosts; i++)
		if (!memcmp(m->fabric->hosts[i].mac, s->mac, 6))
			return m->fabric->hosts[i].name;
	return NULL;
}

/* A host that sent PFC or PAUSE frames: a `kind: pfc` source of the same
 * frames at the same pace (a switch's pauses are the fabric's to make). */
static void write_pfc(FILE *f, const struct rp_replay_model *m, const struct rp_replay_pfc_src *s)
{
	const char *host = pfc_host(m, s);
	if (!host || !s->quanta)
		return;
	const struct rp_replay_evidence *ev = m->ev;
	fprintf(f, "  - name: pfc-%s%s  # %" PRIu64 " %s frames its host sent, seen at %s\n", host, s->pause ? "-pause" : "",
		s->frames, s->pause ? "PAUSE" : "PFC", ev->cap[s->cap].node);
	fprintf(f, "    kind: pfc\n    host: %s\n    frame: %s\n", host, s->pause ? "pause" : "pfc");
	if (!s->pause) {
		fputs("    priorities: [", f);
		for (unsigned p = 0, k = 0; p < RP_PFC_PRIOS; p++)
			if (s->prios >> p & 1)
				fprintf(f, "%s%u", k++ ? ", " : "", p);
		fputs("]  # every priority a frame paused\n", f);
	}
	fprintf(f, "    quanta: %u  # the largest a frame carried\n", s->quanta);
	uint64_t span = s->last_ns - s->first_ns;
	if (s->frames > 1 && span)
		fprintf(f, "    fps: %.0f  # (frames - 1) over %.6g ms from the first to the last\n",
			(double)(s->frames - 1) * 1e9 / (double)span, (double)span / 1e6);
	else
		fputs("    fps: 1  # one frame: no pace to measure\n", f);
	fprintf(f, "    start: %" PRIu64 "ns  # its first frame, relative to the evidence's first frame\n",
		s->first_ns - ev->first_ns);
	fprintf(f, "    packets: %" PRIu64 "  # frames it sent\n", s->frames);
}

void rp_replay_profile_write(FILE *f, const struct rp_replay_model *m, const char *const *paths, size_t n)
{
	const struct rp_replay_evidence *ev = m->ev;
	fprintf(f, "# Inferred by `roceprobe replay infer` from %zu capture%s:\n", n, n == 1 ? "" : "s");
	(void)paths;
	for (size_t i = 0; i < ev->ncap; i++) {
		const struct rp_replay_capture *c = &ev->cap[i];
		char how[64] = "";
		if (c->erspan)
			snprintf(how, sizeof(how), ", ERSPAN type %s session %d", c->erspan == 1 ? "I" : c->erspan == 2 ? "II" : "III",
				 c->session);
		fprintf(f, "#   %s (at %s: %" PRIu64 " frames, %" PRIu64 " RoCE%s)\n", c->path, c->node, c->frames, c->roce,
			how);
	}
	write_clocks(f, ev);
	fprintf(f, "# %" PRIu64 " RoCE frames counted once, %" PRIu64 " copies matched across captures by (src IP, dst "
		"IP, DestQP, PSN, opcode); %" PRIu64 " ns of evidence.\n",
		ev->unique, ev->matched, ev->last_ns - ev->first_ns);
	if (ev->malformed)
		fprintf(f, "# NOT ALL FLOWS, maybe: %" PRIu64 " frames could not be read (malformed, or a snaplen cut "
			"their headers: IPv6 needs 74 B); flows of theirs are in no entry below.\n", ev->malformed);
	if (rp_acct_flows_dropped(ev->acct))
		fprintf(f, "# NOT ALL FLOWS: the accountant follows the first %u flows; %" PRIu64 " frames came for more and "
			"are in no entry below.\n", RP_ACCT_MAX_DISCOVERED, rp_acct_flows_dropped(ev->acct));
	fputs("# Rates are what the senders offered where a pause or CNPs held them back and their\n"
	      "# first frames show their pace, else what they achieved; the symptoms the evidence\n"
	      "# showed are in incident.json next to this file.\n", f);
	fputs("name: replay\n", f);
	if (m->fabric) {
		char sp[32];
		fprintf(f, "defaults:\n  speed: %s  # the fabric's\n",
			rp_format_bps(m->fabric->default_speed_bps ? m->fabric->default_speed_bps : DEFAULT_SPEED_BPS, sp,
				      sizeof(sp)));
	} else {
		fputs("defaults:\n  speed: 100G  # link speeds are not in captures: 100G, or a host's fastest flow's\n", f);
	}
	write_hosts(f, m);
	fputs("traffic:\n", f);
	for (size_t i = 0; i < m->nentries; i++)
		write_entry(f, m, i);
	for (size_t i = 0; i < ev->npfc; i++)
		write_pfc(f, m, &ev->pfc[i]);
	if (m->fabric && m->fabric->fabric.present) {
		fprintf(f, "# fabric: the fabric's (%s), copied as written\n", m->fabric_path);
		copy_section(f, m->fabric_text, "fabric");
	}
}
