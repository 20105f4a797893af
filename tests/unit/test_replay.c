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
 * sent (ECT(0)), start 0, capture "a" is A's and "b" is B's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <pcap/pcap.h>

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(overlapping_captures),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
