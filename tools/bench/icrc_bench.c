/* ICRC cost per packet: full recomputation against the incremental update a
 * TX lcore does (stamp PSN, probe sequence and timestamp into a template and
 * patch the template's ICRC), on IPv4 RoCEv2 RC_SEND_ONLY packets.
 *
 * size is the ICRC-covered length: IPv4 header through the payload, i.e. the
 * frame without its 14-byte Ethernet header and 4-byte ICRC. 64 is the
 * smallest that holds a probe (20 + 8 + 12 + 24).
 *
 * Prints one line per size: size=N full_ns=F incremental_ns=I ratio=F/I, then
 * the full ICRC with each CRC implementation the CPU offers (lib/wire/crc32.c:
 * table, clmul 128-bit, vpclmul 256-bit, vpclmul512 512-bit) and the widest's speed-up over the
 * table: table_ns=T clmul_ns=C vpclmul_ns=V vpclmul512_ns=Z full_vs_table=T/Z.
 * full_ns is the widest (a CPU without AVX-512 prints vpclmul twice). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "wire/bth.h"
#include "wire/bytes.h"
#include "wire/crc32.h"
#include "wire/icrc.h"
#include "wire/probe.h"

#define BENCH_MAX_LEN 4200
#define BENCH_MIN_NS 300000000ull /* per measurement */
#define BENCH_RUNS 5              /* at least */

#define IP_HLEN 20
#define UDP_HLEN 8
#define PSN_OFF (IP_HLEN + UDP_HLEN + RP_BTH_PSN_OFFSET)
#define PAYLOAD_OFF (IP_HLEN + UDP_HLEN + RP_BTH_LEN)
#define SEQ_OFF (PAYLOAD_OFF + RP_PROBE_SEQ_OFFSET)
#define TS_OFF (PAYLOAD_OFF + RP_PROBE_TS_OFFSET)

/* Keeps every result alive so the measured work cannot be dropped. */
static volatile uint32_t sink;

struct bench_pkt {
	uint8_t tmpl[BENCH_MAX_LEN]; /* the per-flow template */
	uint8_t pkt[BENCH_MAX_LEN];  /* the packet being stamped */
	size_t len;
	uint32_t tmpl_icrc;
	struct rp_icrc_patch psn, seq, ts;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void put_be(uint8_t *p, uint64_t v, int n)
{
	for (int i = n - 1; i >= 0; i--, v >>= 8)
		p[i] = (uint8_t)v;
}

static void build_template(struct bench_pkt *b, size_t len)
{
	struct rp_bth bth = { .opcode = RP_OP_RC_SEND_ONLY, .pkey = 0xFFFF, .dqpn = 0x11, .ack_req = true };
	struct rp_probe probe = { .flow_id = 1 };
	uint8_t *p = b->tmpl;

	memset(p, 0, sizeof(b->tmpl));
	p[0] = 0x45;
	p[1] = (26 << 2) | 2;
	put_be(p + 2, len + RP_ICRC_LEN, 2);
	p[6] = 0x40;
	p[8] = 64;
	p[9] = 17;
	put_be(p + 12, 0xC0000201u, 4);
	put_be(p + 16, 0xC0000202u, 4);
	put_be(p + IP_HLEN, 0xC123, 2);
	put_be(p + IP_HLEN + 2, 4791, 2);
	put_be(p + IP_HLEN + 4, len - IP_HLEN + RP_ICRC_LEN, 2);
	rp_bth_build(p + IP_HLEN + UDP_HLEN, RP_BTH_LEN, &bth);
	rp_probe_build(p + PAYLOAD_OFF, RP_PROBE_LEN, &probe);
	for (size_t i = PAYLOAD_OFF + RP_PROBE_LEN; i < len; i++)
		p[i] = (uint8_t)i;
	b->len = len;
	b->tmpl_icrc = rp_icrc_compute(p, len);
	memcpy(b->pkt, p, len);
	if (rp_icrc_patch_init(&b->psn, PSN_OFF, 3, len) || rp_icrc_patch_init(&b->seq, SEQ_OFF, 8, len) ||
	    rp_icrc_patch_init(&b->ts, TS_OFF, 8, len)) {
		fprintf(stderr, "icrc_bench: patch set-up failed for size %zu\n", len);
		exit(2);
	}
}

static void stamp(struct bench_pkt *b, uint64_t i)
{
	put_be(b->pkt + PSN_OFF, i & RP_PSN_MASK, 3);
	put_be(b->pkt + SEQ_OFF, i, 8);
	put_be(b->pkt + TS_OFF, i * 1000, 8);
}

static void run_full(struct bench_pkt *b, uint64_t iters)
{
	uint32_t acc = 0;

	for (uint64_t i = 0; i < iters; i++) {
		stamp(b, i);
		acc ^= rp_icrc_compute(b->pkt, b->len);
	}
	sink = acc;
}

/* As the generator stamps: the new values are in registers, the template's
 * are known, and each field's change goes through its patch as an integer. */
static void run_incremental(struct bench_pkt *b, uint64_t iters)
{
	uint32_t acc = 0;
	uint32_t psn0 = rp_get_be24(b->tmpl + PSN_OFF);
	uint64_t seq0 = rp_get_be64(b->tmpl + SEQ_OFF), ts0 = rp_get_be64(b->tmpl + TS_OFF);

	for (uint64_t i = 0; i < iters; i++) {
		uint32_t psn = (uint32_t)i & RP_PSN_MASK;
		uint64_t ts = i * 1000;
		rp_put_be24(b->pkt + PSN_OFF, psn);
		rp_put_be64(b->pkt + SEQ_OFF, i);
		rp_put_be64(b->pkt + TS_OFF, ts);
		uint32_t icrc = b->tmpl_icrc ^ rp_icrc_patch_delta24(&b->psn, psn0 ^ psn) ^
				rp_icrc_patch_delta64(&b->seq, seq0 ^ i) ^ rp_icrc_patch_delta64(&b->ts, ts0 ^ ts);
		acc ^= icrc;
	}
	sink = acc;
}

/* ns per packet: the best of many short runs (50 us each, for 300 ms), so
 * that on a machine shared with other work the figure is the uncontended
 * cost, not the scheduler's. */
#define BENCH_SHORT_NS 50000ull
static double measure(struct bench_pkt *b, void (*fn)(struct bench_pkt *, uint64_t))
{
	uint64_t iters = 16, t;
	double best = 0;

	for (;;) {
		t = now_ns();
		fn(b, iters);
		t = now_ns() - t;
		if (t >= BENCH_SHORT_NS)
			break;
		iters *= 2;
	}
	uint64_t start = now_ns();
	for (int r = 0; r < BENCH_RUNS || now_ns() - start < BENCH_MIN_NS; r++) {
		double ns;

		t = now_ns();
		fn(b, iters);
		ns = (double)(now_ns() - t) / (double)iters;
		if (r == 0 || ns < best)
			best = ns;
	}
	return best;
}

/* Every incremental result must equal a full recomputation, or the timing
 * compares two different things. */
static void check(struct bench_pkt *b)
{
	uint32_t icrc = b->tmpl_icrc;

	stamp(b, 0xABCDEF12345ull);
	icrc = rp_icrc_patch_apply(&b->psn, icrc, b->tmpl + PSN_OFF, b->pkt + PSN_OFF);
	icrc = rp_icrc_patch_apply(&b->seq, icrc, b->tmpl + SEQ_OFF, b->pkt + SEQ_OFF);
	icrc = rp_icrc_patch_apply(&b->ts, icrc, b->tmpl + TS_OFF, b->pkt + TS_OFF);
	if (icrc != rp_icrc_compute(b->pkt, b->len)) {
		fprintf(stderr, "icrc_bench: incremental ICRC differs from full at size %zu\n", b->len);
		exit(1);
	}
}

static struct bench_pkt bench;

int main(void)
{
	static const size_t sizes[] = { 64, 1024, 4096 };
	static const char *const levels[] = { "table", "clmul", "vpclmul", "vpclmul512" };

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		double full, inc, lvl[4];
		const char *got[4];

		build_template(&bench, sizes[i]);
		for (int l = 0; l < 4; l++) {
			got[l] = rp_crc32_force(levels[l]);
			check(&bench);
			lvl[l] = measure(&bench, run_full);
		}
		full = lvl[3];
		inc = measure(&bench, run_incremental);
		printf("size=%zu full_ns=%.1f incremental_ns=%.1f ratio=%.1f", sizes[i], full, inc, full / inc);
		for (int l = 0; l < 4; l++)
			printf(" %s_ns=%.1f", got[l], lvl[l]);
		printf(" full_vs_table=%.1f\n", lvl[0] / full);
	}
	return 0;
}
