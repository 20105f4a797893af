/* lib/replay: two overlapping captures of one flow, built with lib/wire, read
 * as evidence; copies matched once, a resend kept, the accountant fed the
 * copy furthest along, the flow's keys inferred.
 *
 *   A 02:..:01 192.0.2.1 --- RC WRITE 2500 B at MTU 1024 (FIRST, MIDDLE, LAST),
 *   capture "a" at A         4 messages, PSN 0..11, then PSN 5 sent again
 *        |  500 ns
 *   B 02:..:09 192.0.2.9    capture "b": every frame 500 ns later but PSN 3 (lost
 *                           on the way), PSN 7 CE-marked on the way
 *
 * Known answers: 13 frames at A, 12 at B; 13 counted once, 12 copies matched
 * (the resend's copy at B matches the resend at A); the accountant counts
 * each where it arrived, at B: 12 received, PSN 3 lost, CE 1 (B's copy of
 * PSN 7); size 2500 from the RETH, MTU 1024, 4 messages, ECN as
 * sent (ECT(0)), start 0, capture "a" is A's and "b" is B's.
 *
 * The captures as they come (by hand, from draft-foschiano-erspan-03's
 * layouts and NTP's arithmetic):
 * - erspan: frames in ERSPAN II and III headers written byte by byte; the
 *   reader hands back the inner frame, its session, and for III at 100 ns
 *   the mirror's time anchored at the first frame's record (a timestamp that
 *   wraps from 0xFFFFFFF0 to 0x10 is 32 ticks, 3200 ns, later); 100 us keeps
 *   the record's time; 1588 with platform subheader 3 is seconds + ns; over
 *   IPv6 too; a mirror's two sessions in one file (the sender's port in, the
 *   receiver's port out) are two capture points whose copies match;
 * - clocks: A -> B frames 500 ns on the way, B -> A frames 700 ns, B's clock
 *   3.7 ms ahead: theta = ((3.7 ms + 500) + (3.7 ms - 700)) / 2 = 3.7 ms - 100
 *   ns, B's offset -3699900 ns, residual (1200 / 2) 600 ns;
 * - the sample bound 2 sqrt((N-1)/(N k)): N 16, k 1000 -> 0.0612372. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <math.h>
#include <pcap/pcap.h>

#include "pcap/reader.h"
#include "wire/erspan.h"

#include "replay/replay.h"
#include "wire/frame.h"

static const uint8_t mac_a[6] = {2, 0, 0, 0, 0, 1}, mac_b[6] = {2, 0, 0, 0, 0, 9};

static size_t build(uint8_t *buf, size_t cap, uint32_t psn, bool ce)
{
	static uint8_t payload[1024];
	unsigned k = psn % 3;
	struct rp_roce_spec s = {.l3 = 4, .udp_sport = 0xC000, .payload = payload, .payload_len = k < 2 ? 1024 : 452};
	memcpy(s.eth.src, mac_a, 6);
	memcpy(s.eth.dst, mac_b, 6);
	s.ip4 = (struct rp_ipv4){.dscp = 26, .ecn = ce ? RP_ECN_CE : RP_ECN_ECT0, .ttl = 64, .src = 0xC0000201u,
				 .dst = 0xC0000209u};
	uint8_t op = k == 0 ? RP_OP_RC_WRITE_FIRST : k == 1 ? RP_OP_RC_WRITE_MIDDLE : RP_OP_RC_WRITE_LAST;
	s.bth = (struct rp_bth){.opcode = op, .pkey = 0xFFFF, .dqpn = 0x200, .psn = psn};
	s.reth = (struct rp_reth){.va = 0x1000, .rkey = 1, .dma_len = 2500};
	size_t n = rp_roce_build(buf, cap, &s, NULL);
	assert_true(n > 0);
	return n;
}

/* PSNs psn[0..n) at times t[0..n), at one capture point; ce_psn CE-marked. */
static void write_capture(const char *path, const uint32_t *psn, const uint64_t *t, size_t n, uint32_t ce_psn)
{
	pcap_t *pd = pcap_open_dead_with_tstamp_precision(DLT_EN10MB, 65535, PCAP_TSTAMP_PRECISION_NANO);
	pcap_dumper_t *d = pcap_dump_open(pd, path);
	assert_non_null(d);
	for (size_t i = 0; i < n; i++) {
		uint8_t buf[2048];
		size_t len = build(buf, sizeof(buf), psn[i], psn[i] == ce_psn);
		struct pcap_pkthdr h = {.caplen = (bpf_u_int32)len, .len = (bpf_u_int32)len};
		h.ts.tv_sec = (time_t)(t[i] / 1000000000u);
		h.ts.tv_usec = (suseconds_t)(t[i] % 1000000000u);
		pcap_dump((u_char *)d, &h, buf);
	}
	pcap_dump_close(d);
	pcap_close(pd);
}

static void overlapping_captures(void **state)
{
	(void)state;
	char dir[] = "/tmp/test_replay.XXXXXX", a[64], b[64];
	assert_non_null(mkdtemp(dir));
	snprintf(a, sizeof(a), "%s/a.pcap", dir);
	snprintf(b, sizeof(b), "%s/b.pcap", dir);
	const uint32_t at_a[13] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 5};
	const uint32_t at_b[12] = {0, 1, 2, 4, 5, 6, 7, 8, 9, 10, 11, 5};
	/* A sends one frame a microsecond; B's copies are 500 ns later, PSN 3's missing */
	uint64_t t0 = 1700000000ull * 1000000000ull, ta[13], tb[12];
	for (size_t i = 0, j = 0; i < 13; i++) {
		ta[i] = t0 + i * 1000;
		if (at_a[i] != 3)
			tb[j++] = ta[i] + 500;
	}
	write_capture(a, at_a, ta, 13, UINT32_MAX);
	write_capture(b, at_b, tb, 12, 7);

	const char *paths[2] = {a, b};
	struct rp_replay_evidence *ev = calloc(1, sizeof(*ev));
	char err[256];
	assert_int_equal(rp_replay_evidence_read(ev, paths, 2, NULL, 0, 100000000000ull, err, sizeof(err)), 0);
	assert_int_equal(ev->cap[0].frames, 13);
	assert_int_equal(ev->cap[1].frames, 12);
	assert_int_equal(ev->unique, 13);
	assert_int_equal(ev->matched, 12);
	assert_int_equal(ev->nhosts, 2);
	assert_string_equal(ev->cap[0].node, "h0");
	assert_string_equal(ev->cap[1].node, "h1");
	assert_int_equal(rp_acct_nflows(ev->acct), 1);
	struct rp_acct_flow_result r;
	rp_acct_flow(ev->acct, 0, &r);
	assert_int_equal(r.ce, 1);
	assert_int_equal(r.rx_packets, 12);
	assert_int_equal(r.lost, 1);
	assert_true(r.retransmissions >= 1);

	struct rp_replay_model m;
	assert_int_equal(rp_replay_infer(&m, ev, NULL, NULL, NULL), 0);
	assert_int_equal(m.nflows, 1);
	assert_int_equal(m.nentries, 1);
	const struct rp_replay_flow *x = &m.flows[0];
	assert_string_equal(x->opcode, "write");
	assert_string_equal(x->size_how, "RETH");
	assert_int_equal(x->message_size, 2500);
	assert_int_equal(x->mtu, 1024);
	assert_int_equal(x->messages, 4);
	assert_int_equal(x->ecn, RP_ECN_ECT0);
	assert_int_equal(x->dscp, 26);
	assert_int_equal(x->start_ns, 0);
	assert_int_equal(x->active_ns, 12000);
	json_t *inc = rp_replay_incident_json(&m);
	assert_string_equal(json_string_value(json_object_get(inc, "schema")), "roceprobe.incident/1");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(inc, "totals"), "ce")), 1);
	json_decref(inc);
	rp_replay_model_free(&m);
	rp_replay_evidence_free(ev);
	free(ev);
	unlink(a);
	unlink(b);
	rmdir(dir);
}

/* One WRITE ONLY of 100 B from (smac, sip) to (dmac, dip), QP dqpn, PSN psn. */
static size_t build_one(uint8_t *buf, size_t cap, const uint8_t *smac, const uint8_t *dmac, uint32_t sip, uint32_t dip,
			uint32_t dqpn, uint32_t psn)
{
	static uint8_t payload[100];
	struct rp_roce_spec s = {.l3 = 4, .udp_sport = 0xC000, .payload = payload, .payload_len = sizeof(payload)};
	memcpy(s.eth.src, smac, 6);
	memcpy(s.eth.dst, dmac, 6);
	s.ip4 = (struct rp_ipv4){.dscp = 26, .ecn = RP_ECN_ECT0, .ttl = 64, .src = sip, .dst = dip};
	s.bth = (struct rp_bth){.opcode = RP_OP_RC_WRITE_ONLY, .pkey = 0xFFFF, .dqpn = dqpn, .psn = psn};
	s.reth = (struct rp_reth){.va = 0x1000, .rkey = 1, .dma_len = 100};
	size_t n = rp_roce_build(buf, cap, &s, NULL);
	assert_true(n > 0);
	return n;
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* inner wrapped as the draft lays it out: Ethernet, IPv4 (protocol 47), GRE with
 * a sequence number (flags 0x1000), then type II (8 B: version 1, session) or
 * III (12 B: version 2, session, timestamp, Gra; with plat, the 8-byte
 * platform subheader id 3 carrying the seconds). Returns the length. */
static size_t wrap(uint8_t *out, const uint8_t *inner, size_t n, int type, uint16_t sid, uint32_t ts, unsigned gra,
		   int64_t secs)
{
	static const uint8_t eth[14] = {2, 0xaa, 0, 0, 0, 2, 2, 0xaa, 0, 0, 0, 1, 0x08, 0x00};
	size_t hl = 14 + 20 + 8 + (type == 2 ? 8 : 12) + (secs >= 0 ? 8 : 0), o = 0;
	memset(out, 0, hl);
	memcpy(out, eth, 14);
	o = 14;
	out[o] = 0x45;
	out[o + 2] = (uint8_t)((hl - 14 + n) >> 8);
	out[o + 3] = (uint8_t)(hl - 14 + n);
	out[o + 8] = 64;
	out[o + 9] = 47;
	put32(out + o + 12, 0xC0000264u);
	put32(out + o + 16, 0xC00002C8u);
	o += 20;
	out[o] = 0x10; /* S */
	out[o + 2] = type == 2 ? 0x88 : 0x22;
	out[o + 3] = type == 2 ? 0xBE : 0xEB;
	o += 8;
	put32(out + o, (type == 2 ? 1u : 2u) << 28 | sid);
	if (type == 3) {
		put32(out + o + 4, ts);
		out[o + 11] = (uint8_t)(gra << 1 | (secs >= 0 ? 1 : 0));
		o += 12;
		if (secs >= 0) {
			put32(out + o, 3u << 26);
			put32(out + o + 4, (uint32_t)secs);
			o += 8;
		}
	} else {
		put32(out + o + 4, 7);
		o += 8;
	}
	memcpy(out + o, inner, n);
	return o + n;
}

struct rec {
	uint64_t t;
	size_t len;
	uint8_t b[512];
};

static void write_recs(const char *path, const struct rec *r, size_t n)
{
	pcap_t *pd = pcap_open_dead_with_tstamp_precision(DLT_EN10MB, 65535, PCAP_TSTAMP_PRECISION_NANO);
	pcap_dumper_t *d = pcap_dump_open(pd, path);
	assert_non_null(d);
	for (size_t i = 0; i < n; i++) {
		struct pcap_pkthdr h = {.caplen = (bpf_u_int32)r[i].len, .len = (bpf_u_int32)r[i].len};
		h.ts.tv_sec = (time_t)(r[i].t / 1000000000u);
		h.ts.tv_usec = (suseconds_t)(r[i].t % 1000000000u);
		pcap_dump((u_char *)d, &h, r[i].b);
	}
	pcap_dump_close(d);
	pcap_close(pd);
}

static void erspan(void **state)
{
	(void)state;
	char path[] = "/tmp/test_replay_erspan.XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	uint8_t inner[256];
	size_t n = build_one(inner, sizeof(inner), mac_a, mac_b, 0xC0000201u, 0xC0000209u, 0x200, 0);
	uint64_t t0 = 1700000000ull * 1000000000ull;
	struct rec *r = calloc(6, sizeof(*r));
	/* type II session 5; III session 9 at 100 ns: 0xFFFFFFF0, then 0x10 (wrapped: +3200 ns),
	 * records 40 us and 13 us late; III session 10 at 100 us; III session 11, 1588 + seconds */
	r[0] = (struct rec){.t = t0};
	r[0].len = wrap(r[0].b, inner, n, 2, 5, 0, 0, -1);
	r[1] = (struct rec){.t = t0 + 1000};
	r[1].len = wrap(r[1].b, inner, n, 3, 9, 0xFFFFFFF0u, 1, -1);
	r[2] = (struct rec){.t = t0 + 40000};
	r[2].len = wrap(r[2].b, inner, n, 3, 9, 0x10u, 1, -1);
	r[3] = (struct rec){.t = t0 + 50000};
	r[3].len = wrap(r[3].b, inner, n, 3, 10, 77, 0, -1);
	r[4] = (struct rec){.t = t0 + 60000};
	r[4].len = wrap(r[4].b, inner, n, 3, 11, 999999000u, 2, 41);
	r[5] = (struct rec){.t = t0 + 61000};
	r[5].len = wrap(r[5].b, inner, n, 3, 11, 2500u, 2, 42); /* 1 s + 1500 ns - 999999000 ns: 3500 ns later */
	write_recs(path, r, 6);

	struct rp_pcap_reader rd;
	char err[256];
	struct pcap_pkthdr *h;
	const u_char *d;
	assert_int_equal(rp_pcap_reader_open(&rd, path, false, err, sizeof(err)), 0);
	const struct {
		uint8_t type;
		uint16_t sid;
		uint64_t t;
	} want[6] = {{2, 5, t0}, {3, 9, t0 + 1000}, {3, 9, t0 + 1000 + 3200}, {3, 10, t0 + 50000},
		     {3, 11, t0 + 60000}, {3, 11, t0 + 60000 + 3500}};
	for (size_t i = 0; i < 6; i++) {
		assert_int_equal(rp_pcap_reader_next(&rd, &h, &d, err, sizeof(err)), 1);
		assert_true(rd.encap);
		assert_int_equal(rd.erspan.type, want[i].type);
		assert_int_equal(rd.erspan.session, want[i].sid);
		assert_int_equal(h->caplen, n);
		assert_int_equal(h->len, n);
		assert_memory_equal(d, inner, n);
		assert_int_equal(rp_pcap_ts_ns(h), want[i].t);
	}
	assert_int_equal(rd.erspan_frames, 6);
	assert_int_equal(rd.erspan_ts_used, 4);
	assert_int_equal(rd.erspan_ts_kept, 1);
	assert_int_equal(rp_pcap_reader_next(&rd, &h, &d, err, sizeof(err)), 0);
	rp_pcap_reader_close(&rd);

	/* not ERSPAN: a plain frame stays as it is; a GRE of another protocol too */
	struct rp_erspan e;
	assert_false(rp_erspan_decap(inner, n, &e));
	uint8_t other[512];
	size_t on = wrap(other, inner, n, 2, 5, 0, 0, -1);
	other[14 + 20 + 2] = 0x65; /* protocol 0x6558: transparent Ethernet bridging */
	other[14 + 20 + 3] = 0x58;
	assert_false(rp_erspan_decap(other, on, &e));
	on = wrap(other, inner, n, 3, 5, 0, 1, -1);
	assert_false(rp_erspan_decap(other, 14 + 20 + 8 + 11, &e)); /* the type III header cut */
	assert_true(rp_erspan_decap(other, on, &e));
	/* the same over IPv6: outer header 40 B, next header 47 */
	uint8_t v6[600];
	memcpy(v6, other, 12);
	v6[12] = 0x86;
	v6[13] = 0xDD;
	memset(v6 + 14, 0, 40);
	v6[14] = 0x60;
	v6[14 + 4] = (uint8_t)((on - 34) >> 8);
	v6[14 + 5] = (uint8_t)(on - 34);
	v6[14 + 6] = 47;
	v6[14 + 7] = 64;
	memcpy(v6 + 54, other + 34, on - 34);
	assert_true(rp_erspan_decap(v6, on + 20, &e));
	assert_int_equal(e.type, 3);
	assert_int_equal(e.inner_off, 14 + 40 + 8 + 12);
	assert_memory_equal(v6 + e.inner_off, inner, n);
	free(r);
	unlink(path);
}

/* A mirror's two sessions in one file: session 1 the sender's port (each frame
 * as it left A), session 2 the receiver's (500 ns later): two capture points,
 * 10 frames counted once, 10 copies matched. */
static void erspan_sessions(void **state)
{
	(void)state;
	char path[] = "/tmp/test_replay_sessions.XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	uint64_t t0 = 1700000000ull * 1000000000ull;
	struct rec *r = calloc(20, sizeof(*r));
	for (uint32_t i = 0; i < 10; i++) {
		uint8_t inner[256];
		size_t n = build_one(inner, sizeof(inner), mac_a, mac_b, 0xC0000201u, 0xC0000209u, 0x200, i);
		r[2 * i] = (struct rec){.t = t0 + i * 10000};
		r[2 * i].len = wrap(r[2 * i].b, inner, n, 2, 1, 0, 0, -1);
		r[2 * i + 1] = (struct rec){.t = t0 + i * 10000 + 500};
		r[2 * i + 1].len = wrap(r[2 * i + 1].b, inner, n, 2, 2, 0, 0, -1);
	}
	write_recs(path, r, 20);
	const char *paths[1] = {path};
	struct rp_replay_evidence *ev = calloc(1, sizeof(*ev));
	char err[256];
	assert_int_equal(rp_replay_evidence_read(ev, paths, 1, NULL, 0, 100000000000ull, err, sizeof(err)), 0);
	assert_int_equal(ev->ncap, 2);
	assert_int_equal(ev->nfiles, 1);
	assert_int_equal(ev->cap[0].session, 1);
	assert_int_equal(ev->cap[1].session, 2);
	assert_int_equal(ev->cap[0].erspan, 2);
	assert_int_equal(ev->cap[0].frames, 10);
	assert_int_equal(ev->cap[1].frames, 10);
	assert_int_equal(ev->unique, 10);
	assert_int_equal(ev->matched, 10);
	assert_int_equal(ev->files[0].erspan, 20);
	assert_non_null(strstr(ev->cap[0].node, ":erspan-1"));
	assert_non_null(strstr(ev->cap[1].node, ":erspan-2"));
	rp_replay_evidence_free(ev);
	free(ev);
	free(r);
	unlink(path);
}

static void clocks(void **state)
{
	(void)state;
	char dir[] = "/tmp/test_replay.XXXXXX", a[64], b[64];
	assert_non_null(mkdtemp(dir));
	snprintf(a, sizeof(a), "%s/a.pcap", dir);
	snprintf(b, sizeof(b), "%s/b.pcap", dir);
	uint64_t t0 = 1700000000ull * 1000000000ull, skew = 3700000;
	struct rec *ra = calloc(20, sizeof(*ra)), *rb = calloc(20, sizeof(*rb));
	/* 10 frames A -> B (QP 0x200) and 10 B -> A (QP 0x300), one every 10 us */
	for (uint32_t i = 0; i < 10; i++) {
		uint64_t ts = t0 + i * 10000, tr = t0 + 5000 + i * 10000;
		ra[2 * i] = (struct rec){.t = ts};
		ra[2 * i].len = build_one(ra[2 * i].b, 512, mac_a, mac_b, 0xC0000201u, 0xC0000209u, 0x200, i);
		rb[2 * i] = (struct rec){.t = ts + 500 + skew, .len = ra[2 * i].len};
		memcpy(rb[2 * i].b, ra[2 * i].b, ra[2 * i].len);
		rb[2 * i + 1] = (struct rec){.t = tr + skew};
		rb[2 * i + 1].len = build_one(rb[2 * i + 1].b, 512, mac_b, mac_a, 0xC0000209u, 0xC0000201u, 0x300, i);
		ra[2 * i + 1] = (struct rec){.t = tr + 700, .len = rb[2 * i + 1].len};
		memcpy(ra[2 * i + 1].b, rb[2 * i + 1].b, rb[2 * i + 1].len);
	}
	write_recs(a, ra, 20);
	write_recs(b, rb, 20);
	const char *paths[2] = {a, b};
	struct rp_replay_evidence *ev = calloc(1, sizeof(*ev));
	char err[256];
	assert_int_equal(rp_replay_evidence_read(ev, paths, 2, NULL, 0, 100000000000ull, err, sizeof(err)), 0);
	assert_true(ev->files[1].aligned);
	assert_int_equal(ev->files[1].offset_ns, -3699900);
	assert_int_equal(ev->files[1].residual_ns, 600);
	assert_int_equal(ev->files[1].pairs, 20);
	assert_int_equal(ev->unique, 20);
	assert_int_equal(ev->matched, 20);
	/* the evidence on A's clock: B -> A's first frame left B at t0 + 5000 - 100 */
	assert_int_equal(ev->first_ns, t0);
	rp_replay_evidence_free(ev);
	free(ev);
	free(ra);
	free(rb);
	unlink(a);
	unlink(b);
	rmdir(dir);
}

static void sample_bound(void **state)
{
	(void)state;
	assert_true(fabs(rp_replay_sample_bound(16, 1000) - 0.0612372) < 1e-6);
	assert_true(fabs(rp_replay_sample_bound(16, 100) - 0.1936492) < 1e-6);
	assert_true(rp_replay_sample_bound(1, 5) == 0);
}

/* phases.c on a pace known by hand: 1000 B frames (8192 bits with the 24 B of
 * layer 1) 1000 ns apart (8.192 Gbit/s) from t = 1000 ns, then from t = 251000
 * 250 ns apart (32.768 Gbit/s) to t = 600750; windows of 100 us from the first
 * frame. Window [201000, 301000) holds both: 51 frames at 1000 ns to 251000,
 * then 199 at 250 ns to 300750; its 249 x 8192 bits over 99750 ns put the
 * change 50000 ns in (x = (249 x 8192e9 - 32.768e9 x 99750) / (8.192e9 -
 * 32.768e9)), 250000 ns after the first frame. */
static void pace_phases(void **state)
{
	(void)state;
	struct rp_replay_qp q = {.first_ns = 1000};
	uint64_t t = 1000;
	for (; t <= 251000; t += 1000, q.frames++)
		rp_replay_pace_see(&q, t, 8192, 100000);
	for (t = 251250; t <= 600750; t += 250, q.frames++)
		rp_replay_pace_see(&q, t, 8192, 100000);
	assert_int_equal(q.nwin, 6);
	struct rp_replay_flow fl = {0};
	rp_replay_flow_phases(&q, 100000, UINT64_MAX, &fl);
	assert_int_equal(fl.nphases, 2);
	assert_int_equal(fl.phases[0].at_ns, 0);
	assert_true(fabs(fl.phases[0].rate_bps - 8.192e9) < 1);
	assert_int_equal(fl.phases[0].windows, 2);
	assert_int_equal(fl.phases[1].at_ns, 250000);
	assert_true(fl.phases[1].mixed);
	assert_true(fabs(fl.phases[1].rate_bps - 32.768e9) < 1);
	assert_int_equal(fl.phases[1].windows, 3);
	assert_true(fabs(fl.phases[1].bound - 0.01) < 1e-12); /* exact paces: the 1% floor */
	free(fl.phases);
	/* Before a pause at 250000 only windows 0 and 1 count: one rate, no phases. */
	struct rp_replay_flow one = {0};
	rp_replay_flow_phases(&q, 100000, 250000, &one);
	assert_int_equal(one.nphases, 0);
	assert_null(one.phases);
	free(q.win);
}

/* A real host's jitter is not a phase. Windows of 100 us, 8192-bit frames:
 * even windows at 1000 ns apart (8.192 Gbit/s), odd ones at 1250 ns
 * (6.5536): consecutive paces differ by 20% every time, so the jitter step
 * is 4 x 1.4826 x 0.2 = 1.19 (119%): one rate, no phases. Then a sender
 * whose windows alternate 1000 / 1020 ns (2% apart: step max(10%, 4 x
 * 1.4826 x 0.0196) = 11.6%) and goes to 250 ns apart (4x) at the start of
 * window 6 (t = 600000 after its first frame): two phases, the second from
 * 600000 (a window wholly at the new pace, the next agreeing). */
static void pace_jitter(void **state)
{
	(void)state;
	struct rp_replay_qp q = {.first_ns = 0};
	for (uint64_t w = 0; w < 8; w++)
		for (uint64_t t = w * 100000; t < (w + 1) * 100000; t += w % 2 ? 1250 : 1000, q.frames++)
			rp_replay_pace_see(&q, t, 8192, 100000);
	struct rp_replay_flow fl = {0};
	rp_replay_flow_phases(&q, 100000, UINT64_MAX, &fl);
	assert_int_equal(fl.nphases, 0);
	assert_null(fl.phases);
	free(q.win);
	struct rp_replay_qp r = {.first_ns = 0};
	for (uint64_t w = 0; w < 10; w++)
		for (uint64_t t = w * 100000; t < (w + 1) * 100000; t += w >= 6 ? 250 : w % 2 ? 1020 : 1000, r.frames++)
			rp_replay_pace_see(&r, t, 8192, 100000);
	struct rp_replay_flow two = {0};
	rp_replay_flow_phases(&r, 100000, UINT64_MAX, &two);
	assert_int_equal(two.nphases, 2);
	assert_int_equal(two.phases[1].at_ns, 600000);
	assert_false(two.phases[1].mixed);
	assert_true(fabs(two.phases[1].rate_bps - 32.768e9) < 1);
	assert_int_equal(two.phases[0].windows, 6);
	free(two.phases);
	free(r.win);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(pace_phases),
		cmocka_unit_test(pace_jitter),
		cmocka_unit_test(overlapping_captures),
		cmocka_unit_test(erspan),
		cmocka_unit_test(erspan_sessions),
		cmocka_unit_test(clocks),
		cmocka_unit_test(sample_bound),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
