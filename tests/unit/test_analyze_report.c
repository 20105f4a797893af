/* lib/report/analyze_*.c: analyze's findings, text and JSON from an
 * accountant in analyze's discovery mode fed synthetic frames built with
 * lib/wire (losses, CE marks and pauses put there on purpose).
 *
 *   192.0.2.1 (QP 0x200) --- RC WRITE, PSN 0..9 ---> 192.0.2.9
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "report/analyze.h"
#include "stats/acct.h"
#include "wire/frame.h"

static const uint8_t mac_h[6] = {2, 0, 0, 0, 0, 1}, mac_rx[6] = {2, 0, 0, 0, 0, 9};

/* analyze's accountant over [0, run_ns] (app/cmd_analyze.c's settings, 100 bins). */
static struct rp_acct *make(uint64_t run_ns, bool latency)
{
	static const struct rp_acct_port_cfg port = {.node = "capture", .port = 0, .speed_bps = 100000000000ull};
	struct rp_acct_cfg c = {.ports = &port, .nports = 1, .start_ns = 0, .run_ns = run_ns, .bin_ns = run_ns / 100,
				.latency = latency, .discover = true, .track_psn = true, .seq_from_first = true,
				.pause_to_expiry = true};
	char err[128];
	struct rp_acct *a = rp_acct_create(&c, err, sizeof(err));
	assert_non_null(a);
	return a;
}

/* A WRITE_ONLY with PSN psn, optionally CE-marked and carrying a probe. */
static enum rp_rx_class feed(struct rp_acct *a, struct rp_capture_facts *ci, uint64_t now, uint32_t psn, bool ce,
			     const struct rp_probe *probe)
{
	uint8_t payload[64] = {0}, buf[256];
	if (probe)
		rp_probe_build(payload, sizeof(payload), probe);
	struct rp_roce_spec s = {.l3 = 4, .udp_sport = 0xC000, .payload = payload, .payload_len = sizeof(payload)};
	memcpy(s.eth.src, mac_h, 6);
	memcpy(s.eth.dst, mac_rx, 6);
	s.ip4 = (struct rp_ipv4){.dscp = 26, .ecn = ce ? RP_ECN_CE : RP_ECN_ECT0, .ttl = 64, .src = 0xC0000201u,
				 .dst = 0xC0000209u};
	s.bth = (struct rp_bth){.opcode = RP_OP_RC_WRITE_ONLY, .pkey = 0xFFFF, .dqpn = 0x200, .psn = psn};
	size_t n = rp_roce_build(buf, sizeof(buf), &s, NULL);
	assert_true(n > 0);
	enum rp_rx_class c = rp_acct_rx(a, 0, now, buf, n, n, NULL);
	ci->classes[c]++;
	ci->frames++;
	return c;
}

static char *finding(json_t *f, size_t i)
{
	return (char *)json_string_value(json_array_get(f, i));
}

static void clean_capture(void **state)
{
	(void)state;
	struct rp_capture_facts ci = {.first_ns = 0, .last_ns = 1000000};
	struct rp_acct *a = make(1000000, false);
	for (uint32_t i = 0; i < 10; i++)
		feed(a, &ci, i * 1000, i, false, NULL);
	rp_acct_finish(a, 1000000, NULL);
	json_t *f = rp_analyze_findings(a, &ci);
	assert_int_equal(json_array_size(f), 1);
	assert_string_equal(finding(f, 0), "nothing wrong: no loss, no reordering, no resend, no bad ICRC, no CE, no pause");
	json_decref(f);
	rp_acct_destroy(a);
}

/* PSN 4 never comes (1 lost of 10), PSN 2 is CE-marked (1 of the 9 received:
 * 100 / 9 = 11.11%), and an XOFF of 65535 quanta at 1.0 ms, 0.1 ms before
 * the capture ends: 65535 x 512 bit / 100 Gbit/s = 335539 ns paused, 235539
 * of them after the last frame; 100000 of 1100000 ns within = 9.09%. The
 * file ends inside a record after these 10 frames. */
static void lossy_capture(void **state)
{
	(void)state;
	const uint64_t end = 1100000;
	struct rp_capture_facts ci = {.first_ns = 0, .last_ns = end, .truncated = true};
	struct rp_acct *a = make(end, false);
	for (uint32_t i = 0; i < 10; i++)
		if (i != 4)
			feed(a, &ci, i * 1000, i, i == 2, NULL);
	uint8_t buf[64];
	uint16_t q[8] = {[3] = 65535};
	size_t n = rp_pfc_frame_build(buf, sizeof(buf), mac_rx, 0x08, q);
	ci.classes[rp_acct_rx(a, 0, 1000000, buf, n, n, NULL)]++;
	ci.frames++;
	rp_acct_finish(a, end, NULL);
	json_t *f = rp_analyze_findings(a, &ci);
	assert_int_equal(json_array_size(f), 4);
	assert_non_null(strstr(finding(f, 0), ": 1 of 10 packets lost before the capture point"));
	assert_true(strncmp(finding(f, 0), "flow 0 ", 7) == 0);
	assert_string_equal(finding(f, 1), "flow 0: 1 of 9 packets CE-marked (11.11%), 0 CNPs back to the sender");
	assert_string_equal(finding(f, 2), "priority 3: 1 PFC/PAUSE frames, paused 335539 ns (9.09% of the capture; "
					   "235539 ns of it after the last frame, to the pause's expiry), first at "
					   "+1000000 ns, 1 XOFF->XON");
	assert_string_equal(finding(f, 3), "the capture is truncated at frame 11: the 10 frames before it are analysed");
	json_decref(f);

	/* The same findings in the JSON document, and the capture's facts. */
	json_t *j = rp_analyze_json("x.pcap", false, a, &ci);
	assert_string_equal(json_string_value(json_object_get(j, "schema")), "roceprobe.analyze/1");
	json_t *cap = json_object_get(j, "capture");
	assert_int_equal(json_integer_value(json_object_get(cap, "frames")), 10);
	assert_int_equal(json_integer_value(json_object_get(cap, "duration_ns")), 1100000);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(cap, "classes"), "data")), 9);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(cap, "classes"), "pfc")), 1);
	assert_true(json_is_true(json_object_get(cap, "truncated")));
	assert_int_equal(json_array_size(json_object_get(j, "findings")), 4);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "latency_ns"), "count")), 0);
	json_t *qp = json_array_get(json_object_get(json_array_get(json_object_get(j, "flows"), 0), "qps"), 0);
	assert_int_equal(json_integer_value(json_object_get(qp, "qpn")), 0x200);
	assert_int_equal(json_integer_value(json_object_get(qp, "lost")), 1);
	assert_int_equal(json_integer_value(json_object_get(qp, "psn_first")), 0);
	assert_int_equal(json_integer_value(json_object_get(qp, "psn_next")), 10);
	json_decref(j);

	/* The text: the capture's line, the findings, the QP, the priority. */
	char *t = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&t, &len);
	rp_analyze_print_text(out, "x.pcap", false, a, &ci);
	fclose(out);
	assert_true(strncmp(t, "x.pcap: 10 frames over 1100000 ns: data 9 pfc 1\n\nfindings:\n  - flow 0 ", 70) == 0);
	assert_non_null(strstr(t, "\n    qp 0x000200: psn 0..9, 9 pkts, 1 gaps, 1 lost, 0 resent (0 duplicates), "
				  "0 go-back-N, 0 late, 9 msgs, 1 CE\n"));
	assert_non_null(strstr(t, "\nprio 3: 1 pause frames, 65535 quanta, paused 335539 ns, 1 XOFF->XON, first at "
				  "+1000000 ns\n"));
	free(t);
	rp_acct_destroy(a);
}

/* Probes stamped by another clock: one arrives 500 ns before its TX time;
 * or arrives 2 s after it. */
static void latency_clock(void **state)
{
	(void)state;
	char err[256];
	for (int late = 0; late <= 1; late++) {
		struct rp_capture_facts ci = {0};
		struct rp_acct *a = make(10000000000ull, true);
		for (uint32_t i = 0; i < 3; i++) {
			struct rp_probe p = {.flow_id = 0, .seq = i, .tx_ns = i * 1000 + (late ? 0 : 500)};
			feed(a, &ci, late ? i * 1000 + 2000000000ull : i * 1000, i, false, &p);
		}
		rp_acct_finish(a, 10000000000ull, NULL);
		assert_int_equal(rp_analyze_latency_clock(a, err, sizeof(err)), -1);
		assert_string_equal(err, late ? "--latency: one-way delays up to 2 s (min 2 s): the capture's clock is not "
						"the one that stamped the probes; drop --latency"
					      : "--latency: 3 of 3 probes arrived before their TX time: the capture's "
						"clock is not the one that stamped the probes; drop --latency");
		rp_acct_destroy(a);
	}
	/* 1 us one way: fine */
	struct rp_capture_facts ci = {0};
	struct rp_acct *a = make(1000000, true);
	struct rp_probe p = {.flow_id = 0, .seq = 0, .tx_ns = 1000};
	feed(a, &ci, 2000, 0, false, &p);
	rp_acct_finish(a, 1000000, NULL);
	assert_int_equal(rp_analyze_latency_clock(a, err, sizeof(err)), 0);
	rp_acct_destroy(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(clean_capture),
		cmocka_unit_test(lossy_capture),
		cmocka_unit_test(latency_clock),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
