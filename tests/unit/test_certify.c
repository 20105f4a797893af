/* lib/certify without any lab: a stand-in engine hands back result
 * documents written here by hand, as a real fabric's `run` would (flows and
 * host ports; switches only where said), and the verdicts, causes and the
 * blocking of a FAIL another test explains are checked against them. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "certify/cert_internal.h"
#include "certify/certify.h"
#include "certify/engine_pick.h"

static const char profile[] =
	"hosts:\n"
	"  - {name: h0, mac: \"02:00:00:00:00:01\", ipv4: 10.0.0.1}\n"
	"  - {name: h1, mac: \"02:00:00:00:00:02\", ipv4: 10.0.0.2}\n"
	"  - {name: h2, mac: \"02:00:00:00:00:03\", ipv4: 10.0.0.3}\n"
	"  - {name: h3, mac: \"02:00:00:00:00:04\", ipv4: 10.0.0.4}\n"
	"traffic: [{pattern: incast, receiver: h0, senders: [h1, h2, h3], dscp: 26}]\n"
	"certify: {lossless: [3]}\n";

/* Paused senders, no loss: what a lossless incast gives. */
static const char doc_ok[] =
	"{\"elapsed_ns\": 100000, \"flows\": [{\"src\": \"h1\", \"dst\": \"h0\", \"prio\": 3, \"tx_packets\": 128, "
	"\"rx_packets\": 128, \"lost\": 0, \"naks\": 0, \"goodput_gbps\": 48.0}],"
	" \"ports\": [{\"node\": \"h1\", \"prio\": [{\"prio\": 3, \"pfc_rx\": 4}]}, {\"node\": \"h2\", \"prio\": [{\"prio\": 3, "
	"\"pfc_rx\": 4}]}, {\"node\": \"h3\", \"prio\": [{\"prio\": 3, \"pfc_rx\": 4}]}]}";
/* Loss and no PFC at all. */
static const char doc_tail[] =
	"{\"elapsed_ns\": 100000, \"flows\": [{\"src\": \"h1\", \"dst\": \"h0\", \"prio\": 3, \"tx_packets\": 128, "
	"\"rx_packets\": 100, \"lost\": 28, \"naks\": 0}], \"ports\": []}";
/* Paused senders, but 7 frames dropped in headroom at the switch. */
static const char doc_headroom[] =
	"{\"elapsed_ns\": 100000, \"flows\": [{\"src\": \"h1\", \"dst\": \"h0\", \"prio\": 3, \"tx_packets\": 128, "
	"\"rx_packets\": 121, \"lost\": 7, \"naks\": 0}],"
	" \"ports\": [{\"node\": \"h1\", \"prio\": [{\"prio\": 3, \"pfc_rx\": 4}]}, {\"node\": \"h2\", \"prio\": [{\"prio\": 3, "
	"\"pfc_rx\": 4}]}, {\"node\": \"h3\", \"prio\": [{\"prio\": 3, \"pfc_rx\": 4}]}],"
	" \"switches\": [{\"name\": \"sw0\", \"role\": \"switch\", \"ports\": [{\"port\": 0, \"peer\": \"h0\", \"tx_bytes\": 0, "
	"\"prio\": [{\"prio\": 3, \"queue\": {\"enq_pkts\": 121, \"drop_pkts\": 7, \"drops\": {\"headroom\": 7}}, \"pg\": {}}]}]}]}";

/* Paused senders and 7 lost, no switch counters. */
static const char doc_paused_lost[] =
	"{\"elapsed_ns\": 100000, \"flows\": [{\"src\": \"h1\", \"dst\": \"h0\", \"prio\": 3, \"tx_packets\": 128, "
	"\"rx_packets\": 121, \"lost\": 7, \"naks\": 0}],"
	" \"ports\": [{\"node\": \"h1\", \"prio\": [{\"prio\": 3, \"pfc_rx\": 4}]}, {\"node\": \"h2\", \"prio\": [{\"prio\": 3, "
	"\"pfc_rx\": 4}]}, {\"node\": \"h3\", \"prio\": [{\"prio\": 3, \"pfc_rx\": 4}]}]}";

/* All-to-all over 1 ms at 100 Gbit/s hosts, each host receiving 1 Gbit/s of
 * goodput (1% of line). slow: each sender put 125000 B = 1 Gbit/s on the
 * wire, 1% of the line it was free to use (never paused): the hosts held
 * back. busy: 12.5 MB = 100 Gbit/s each, all of its line: the fabric did. */
#define A2A_FLOW(s, d, tx) "{\"src\": \"" s "\", \"dst\": \"" d "\", \"prio\": 3, \"tx_packets\": 30, " \
	"\"tx_bytes\": " tx ", \"rx_packets\": 30, \"lost\": 0, \"goodput_gbps\": 1.0}"
#define A2A_DOC(tx) "{\"elapsed_ns\": 1000000, \"flows\": [" A2A_FLOW("h0", "h1", tx) ", " A2A_FLOW("h1", "h2", tx) \
	", " A2A_FLOW("h2", "h3", tx) ", " A2A_FLOW("h3", "h0", tx) "], \"ports\": []}"
static const char doc_a2a_slow[] = A2A_DOC("125000");
static const char doc_a2a_busy[] = A2A_DOC("12500000");
/* The same with each host receiving 95 Gbit/s: 0.95 of line >= 0.9, Jain 1. */
#define A2A_FLOW_OK(s, d) "{\"src\": \"" s "\", \"dst\": \"" d "\", \"prio\": 3, \"tx_packets\": 30, " \
	"\"tx_bytes\": 12500000, \"rx_packets\": 30, \"lost\": 0, \"goodput_gbps\": 95.0}"
static const char doc_a2a_ok[] = "{\"elapsed_ns\": 1000000, \"flows\": [" A2A_FLOW_OK("h0", "h1") ", "
	A2A_FLOW_OK("h1", "h2") ", " A2A_FLOW_OK("h2", "h3") ", " A2A_FLOW_OK("h3", "h0") "], \"ports\": []}";

/* A real fabric whose profile has `switches:`: counters.switches[] of one
 * switch, two samples (the baseline, then deltas; watermarks as gauges).
 * Ethernet0 faces h0 (the receiver): its queue 3 marked 5 + 7 packets;
 * Ethernet1 faces h1, a sender, never paused (pfc_tx 0); PG 3's headroom
 * watermark 100 then 300 on Ethernet1; PG drops PGDROP. The hosts: CE from
 * bin 1 (100 ns), CNPs, no PFC. */
#define SW_DOC(PGDROP) "{\"elapsed_ns\": 100000, \"flows\": [{\"src\": \"h1\", \"dst\": \"h0\", \"prio\": 3, " \
	"\"tx_packets\": 128, \"rx_packets\": 128, \"lost\": 0, \"ce\": 12, \"cnp_rx\": 4}], \"ports\": []," \
	" \"timeseries\": {\"start_ns\": 0, \"bin_ns\": 100, \"ce\": [0, 3]}, \"counters\": {\"switches\": [{\"name\": " \
	"\"sw\", \"ports\": {\"Ethernet0\": \"h0\", \"Ethernet1\": \"h1\"}, \"samples\": [" \
	"{\"t_ns\": 0, \"ports\": [{\"name\": \"Ethernet0\", \"queues\": [{\"queue\": 3, \"ecn_marked\": 0, \"drops\": 0}]}," \
	" {\"name\": \"Ethernet1\", \"prio\": [{\"prio\": 3, \"pfc_tx\": 0}], \"pgs\": [{\"pg\": 3, \"drops\": 0, " \
	"\"headroom_wm_bytes\": 100}]}]}, " \
	"{\"t_ns\": 50000, \"ports\": [{\"name\": \"Ethernet0\", \"queues\": [{\"queue\": 3, \"ecn_marked\": 5}]}," \
	" {\"name\": \"Ethernet1\", \"pgs\": [{\"pg\": 3, \"headroom_wm_bytes\": 300}]}]}, " \
	"{\"t_ns\": 100000, \"ports\": [{\"name\": \"Ethernet0\", \"queues\": [{\"queue\": 3, \"ecn_marked\": 7}]}," \
	" {\"name\": \"Ethernet1\", \"pgs\": [{\"pg\": 3, \"drops\": " PGDROP ", \"headroom_wm_bytes\": 200}]}]}]}]}}"
static const char doc_sw_ok[] = SW_DOC("0");
static const char doc_sw_drops[] = SW_DOC("3");
/* A source with PFC counts alone (no queues, no PGs). */
static const char doc_sw_pfc_only[] =
	"{\"elapsed_ns\": 100000, \"flows\": [], \"ports\": [], \"counters\": {\"switches\": [{\"name\": \"sw\", "
	"\"ports\": {}, \"samples\": [{\"t_ns\": 0, \"ports\": [{\"name\": \"Ethernet0\", \"prio\": [{\"prio\": 3, "
	"\"pfc_rx\": 0}]}]}]}]}}";

/* A real fabric of two routers joined by two links (test 9 on the run
 * engine): r1's up1/up2 face r2:up1/r2:up2 (its uplinks), e0 faces h0; r2's
 * face r1's. Three samples: the baseline, then deltas of the counter KEY;
 * r1's up1 sends A then B, up2 C in the last; r2's 1000 on each. The
 * permutation's flows at GBPS (of 100 Gbit/s), having sent TX bytes in 1 ms. */
#define ECMP_PORT(n, KEY, v) "{\"name\": \"" n "\", \"" KEY "\": " v "}"
#define ECMP_DOC(KEY, A, B, C, GBPS, TX) "{\"elapsed_ns\": 1000000, \"flows\": [" \
	"{\"src\": \"h0\", \"dst\": \"h2\", \"prio\": 3, \"tx_bytes\": " TX ", \"goodput_gbps\": " GBPS "}, " \
	"{\"src\": \"h2\", \"dst\": \"h0\", \"prio\": 3, \"tx_bytes\": " TX ", \"goodput_gbps\": " GBPS "}], " \
	"\"ports\": [], \"counters\": {\"switches\": [" \
	"{\"name\": \"r1\", \"ports\": {\"e0\": \"h0\", \"up1\": \"r2:up1\", \"up2\": \"r2:up2\"}, \"samples\": [" \
	"{\"t_ns\": 0, \"ports\": [" ECMP_PORT("e0", KEY, "0") ", " ECMP_PORT("up1", KEY, "0") ", " ECMP_PORT("up2", KEY, "0") "]}, " \
	"{\"t_ns\": 500000, \"ports\": [" ECMP_PORT("e0", KEY, "7") ", " ECMP_PORT("up1", KEY, A) ", " ECMP_PORT("up2", KEY, "0") "]}, " \
	"{\"t_ns\": 1000000, \"ports\": [" ECMP_PORT("up1", KEY, B) ", " ECMP_PORT("up2", KEY, C) "]}]}, " \
	"{\"name\": \"r2\", \"ports\": {\"up1\": \"r1:up1\", \"up2\": \"r1:up2\"}, \"samples\": [" \
	"{\"t_ns\": 0, \"ports\": [" ECMP_PORT("up1", KEY, "0") ", " ECMP_PORT("up2", KEY, "0") "]}, " \
	"{\"t_ns\": 1000000, \"ports\": [" ECMP_PORT("up1", KEY, "1000") ", " ECMP_PORT("up2", KEY, "1000") "]}]}]}}"
static const char doc_ecmp_even[] = ECMP_DOC("tx_bytes", "1000", "500", "1400", "95.0", "12500000");
static const char doc_ecmp_skew[] = ECMP_DOC("tx_bytes", "8000", "1000", "1000", "95.0", "12500000");
static const char doc_ecmp_rx_only[] = ECMP_DOC("rx_bytes", "1000", "500", "1400", "95.0", "12500000");
static const char doc_ecmp_slow_hosts[] = ECMP_DOC("tx_bytes", "1000", "500", "1400", "10.0", "1250000");

struct fake {
	const char *doc;
	bool counters; /* the documents may carry `switches` */
	bool sources;  /* the documents carry counters.switches[] (a profile's `switches:`) */
	unsigned runs;
	char last_traffic[4096];
	const char *seed_key;    /* the engine varies it for seeded tests ... */
	const char *odd_doc;     /* ... and hands back this one for an odd seed */
	char seeds[64];          /* the seeds the runs had, "1,2,..." */
};

static int describe(void *ctx, const char *const *sets, size_t nsets, struct rp_cert_fabric *out, char *err,
		    size_t errlen)
{
	(void)ctx, (void)sets, (void)nsets, (void)err, (void)errlen;
	memset(out, 0, sizeof(*out)); /* a real fabric: nothing known of the switches */
	out->switch_counters = ((struct fake *)ctx)->counters; /* ... but (some) export their counters */
	out->switch_sources = ((struct fake *)ctx)->sources;
	return 0;
}

static int run(void *ctx, const char *const *sets, size_t nsets, bool storm, json_t **out, char *err, size_t errlen)
{
	struct fake *f = ctx;
	(void)storm, (void)err, (void)errlen;
	f->runs++;
	snprintf(f->last_traffic, sizeof(f->last_traffic), "%s", nsets ? sets[nsets - 1] : "");
	const char *doc = f->doc;
	for (size_t i = 0; f->seed_key && i < nsets; i++) {
		size_t l = strlen(f->seed_key);
		if (strncmp(sets[i], f->seed_key, l) == 0 && sets[i][l] == '=') {
			unsigned long s = strtoul(sets[i] + l + 1, NULL, 10);
			size_t n = strlen(f->seeds);
			snprintf(f->seeds + n, sizeof(f->seeds) - n, "%s%lu", n ? "," : "", s);
			if (s % 2 && f->odd_doc)
				doc = f->odd_doc;
		}
	}
	*out = json_loads(doc, 0, NULL);
	return *out ? 0 : -1;
}

static json_t *certify(struct fake *f, unsigned only)
{
	char err[512] = "";
	struct rp_profile *p = rp_profile_load_string("p.yaml", profile, NULL, err, sizeof(err));
	assert_non_null(p);
	struct rp_cert_engine eng = {.name = "fake", .ctx = f, .describe = describe, .run = run, .seed_key = f->seed_key};
	struct rp_cert_opts o = {.eng = &eng, .only = only};
	json_t *tests = NULL;
	bool stopped = true;
	assert_int_equal(rp_certify_run(p, &o, &tests, &stopped, err, sizeof(err)), 0);
	assert_false(stopped);
	rp_profile_free(p);
	return tests;
}

static const json_t *entry(const json_t *tests, int id)
{
	size_t i;
	json_t *e;
	json_array_foreach(tests, i, e)
		if (json_integer_value(json_object_get(e, "id")) == id)
			return e;
	fail_msg("no test %d", id);
	return NULL;
}

static const char *verdict(const json_t *e)
{
	return json_string_value(json_object_get(e, "verdict"));
}

static const char *cause(const json_t *e)
{
	return json_string_value(json_object_get(json_object_get(e, "cause"), "code"));
}

static void only_lists(void **state)
{
	(void)state;
	unsigned m;
	char err[256];
	assert_int_equal(rp_cert_parse_only("1,3,ecmp", &m, err, sizeof(err)), 0);
	assert_int_equal(m, (1u << 1) | (1u << 3) | (1u << 9));
	assert_int_equal(rp_cert_parse_only("pause-storm", &m, err, sizeof(err)), 0);
	assert_int_equal(m, 1u << 6);
	assert_int_equal(rp_cert_parse_only("1,zz", &m, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "'zz'"));
	assert_int_equal(rp_cert_parse_only("10", &m, err, sizeof(err)), -1);
	assert_string_equal(rp_cert_test_name(5), "headroom");
}

/* 4 hosts: N = 2 and 3 (hosts - 1); every sender paused, nothing lost. */
static void incast_passes_on_a_real_fabric(void **state)
{
	(void)state;
	struct fake f = {.doc = doc_ok};
	json_t *t = certify(&f, 1u << 1);
	assert_int_equal(f.runs, 2);
	assert_non_null(strstr(f.last_traffic, "senders: [h1, h2, h3]"));
	assert_non_null(strstr(f.last_traffic, "dscp: 24")); /* priority 3 as 3 << 3: nothing else is known */
	assert_string_equal(verdict(entry(t, 1)), "PASS");
	assert_int_equal(json_array_size(json_object_get(entry(t, 1), "criteria")), 6);
	json_decref(t);
}

static void loss_without_pfc_is_pfc_off(void **state)
{
	(void)state;
	struct fake f = {.doc = doc_tail};
	json_t *t = certify(&f, 1u << 1);
	assert_string_equal(verdict(entry(t, 1)), "FAIL");
	assert_string_equal(cause(entry(t, 1)), "pfc-off");
	const char *text = json_string_value(json_object_get(json_object_get(entry(t, 1), "cause"), "text"));
	assert_non_null(strstr(text, "loss on the lossless priority, no PFC received by senders"));
	assert_non_null(strstr(text, "28 of 128 packets")); /* doc_tail: tx 128, lost 28 */
	json_decref(t);
	/* Test 2 loses on the lossless class for the same cause: not judged twice. */
	t = certify(&f, (1u << 1) | (1u << 2));
	assert_string_equal(cause(entry(t, 2)), "pfc-off");
	assert_string_equal(verdict(entry(t, 2)), "SKIP");
	assert_int_equal(json_integer_value(json_object_get(entry(t, 2), "blocked_by")), 1);
	json_decref(t);
}

/* Every sender paused and still 7 lost, no switch counters to say where:
 * the cause named from the hosts' evidence is headroom. */
static void loss_despite_pfc_is_headroom(void **state)
{
	(void)state;
	struct fake f = {.doc = doc_paused_lost};
	json_t *t = certify(&f, 1u << 1);
	assert_string_equal(verdict(entry(t, 1)), "FAIL");
	assert_string_equal(cause(entry(t, 1)), "headroom");
	json_decref(t);
}

static void a2a_slow_hosts_are_not_the_fabric(void **state)
{
	(void)state;
	struct fake f = {.doc = doc_a2a_slow};
	json_t *t = certify(&f, 1u << 7);
	assert_string_equal(verdict(entry(t, 7)), "SKIP");
	assert_non_null(strstr(json_string_value(json_object_get(entry(t, 7), "reason")), "did not offer line rate"));
	assert_true(json_real_value(json_object_get(json_object_get(entry(t, 7), "measured"), "min_offered_share")) < 0.011);
	json_decref(t);
	f.doc = doc_a2a_busy;
	t = certify(&f, 1u << 7);
	assert_string_equal(verdict(entry(t, 7)), "FAIL");
	assert_string_equal(cause(entry(t, 7)), "unfair");
	json_decref(t);
}

/* An engine that sees neither the switch settings nor their counters: the
 * tests that need them (3, 5, 6, 9) are SKIPs saying so, and run nothing. */
static void switch_blind_tests_skip(void **state)
{
	(void)state;
	struct fake f = {.doc = doc_ok};
	json_t *t = certify(&f, (1u << 3) | (1u << 5) | (1u << 6) | (1u << 9));
	assert_int_equal(f.runs, 0);
	for (int id = 3; id <= 9; id++) {
		if (id != 3 && id != 5 && id != 6 && id != 9)
			continue;
		assert_string_equal(verdict(entry(t, id)), "SKIP");
		assert_non_null(strstr(json_string_value(json_object_get(entry(t, id), "reason")), "not judged on this fabric"));
	}
	json_decref(t);
}

/* Test 1 loses frames in headroom; test 5, whose cause that is, fails for it:
 * test 1 is not judged (SKIP, blocked_by 5). Test 9 sees no leaf: SKIP. */
static void a_fail_another_test_explains_is_blocked(void **state)
{
	(void)state;
	struct fake f = {.doc = doc_headroom, .counters = true};
	json_t *t = certify(&f, (1u << 1) | (1u << 5) | (1u << 9));
	assert_string_equal(verdict(entry(t, 5)), "FAIL");
	assert_string_equal(cause(entry(t, 5)), "headroom");
	assert_string_equal(verdict(entry(t, 1)), "SKIP");
	assert_int_equal(json_integer_value(json_object_get(entry(t, 1), "blocked_by")), 5);
	assert_string_equal(cause(entry(t, 1)), "headroom");
	assert_string_equal(verdict(entry(t, 9)), "SKIP");
	unsigned pass, fail, skip, marginal;
	rp_cert_count(t, &pass, &fail, &skip, &marginal);
	assert_int_equal(pass, 0);
	assert_int_equal(fail, 1);
	assert_int_equal(skip, 2);
	/* without test 5 the FAIL stands */
	json_decref(t);
	t = certify(&f, 1u << 1);
	assert_string_equal(verdict(entry(t, 1)), "FAIL");
	json_decref(t);
}

/* A profile's `switches:`: tests 3 and 5 judged from counters.switches[]
 * (totals summed over the deltas, the watermark the maximum, the receiver's
 * port from `ports:`); PG drops fail test 5; a source without the counters a
 * test needs: SKIP naming them; test 9, with no port facing another switch,
 * SKIPs saying there are no uplinks. */
static void switch_sources_judge_3_and_5(void **state)
{
	(void)state;
	struct fake f = {.doc = doc_sw_ok, .sources = true};
	json_t *t = certify(&f, (1u << 3) | (1u << 5) | (1u << 9));
	const json_t *m3 = json_object_get(entry(t, 3), "measured"), *m5 = json_object_get(entry(t, 5), "measured");
	assert_string_equal(verdict(entry(t, 3)), "PASS");
	assert_int_equal(json_integer_value(json_object_get(m3, "switch_ecn_marked")), 12);
	assert_int_equal(json_integer_value(json_object_get(m3, "switch_pfc_to_senders")), 0);
	assert_non_null(strstr(json_string_value(json_object_get(m3, "congestion_point")), "sw:Ethernet0 (faces h0)"));
	assert_string_equal(verdict(entry(t, 5)), "PASS");
	assert_int_equal(json_integer_value(json_object_get(m5, "max_headroom_used_bytes")), 300);
	assert_string_equal(json_string_value(json_object_get(m5, "max_headroom_used_port")), "Ethernet1");
	assert_string_equal(verdict(entry(t, 9)), "SKIP");
	assert_non_null(strstr(json_string_value(json_object_get(entry(t, 9), "reason")), "no port's `ports:` entry is SWITCH:PORT"));
	json_decref(t);
	f.doc = doc_sw_drops;
	t = certify(&f, 1u << 5);
	assert_string_equal(verdict(entry(t, 5)), "FAIL");
	assert_string_equal(cause(entry(t, 5)), "headroom");
	json_decref(t);
	f.doc = doc_sw_pfc_only;
	t = certify(&f, (1u << 3) | (1u << 5));
	assert_string_equal(verdict(entry(t, 3)), "SKIP");
	assert_non_null(strstr(json_string_value(json_object_get(entry(t, 3), "reason")), "queues[].ecn_marked"));
	assert_string_equal(verdict(entry(t, 5)), "SKIP");
	assert_non_null(strstr(json_string_value(json_object_get(entry(t, 5), "reason")), "pgs[].drops"));
	json_decref(t);
}

/* Test 9 on a real fabric: each switch's uplinks (ports facing SWITCH:PORT)
 * and their tx_bytes summed over the samples' deltas; the worst share
 * against 1/k within certify.ecmp.tolerance (25%): r1 1500 vs 1400 PASS,
 * 9000 vs 1000 FAIL ecmp-imbalance; a source without tx_bytes: SKIP naming
 * it; shares within the bound but hosts that did not offer line rate: SKIP. */
static void switch_sources_judge_9(void **state)
{
	(void)state;
	struct fake f = {.doc = doc_ecmp_even, .sources = true};
	json_t *t = certify(&f, 1u << 9);
	const json_t *e = entry(t, 9), *m = json_object_get(e, "measured");
	assert_int_equal(f.runs, 1);
	assert_non_null(strstr(f.last_traffic, "pattern: permutation"));
	assert_string_equal(verdict(e), "PASS");
	const json_t *ups = json_object_get(m, "uplinks");
	assert_int_equal(json_array_size(ups), 4);
	const json_t *u0 = json_array_get(ups, 0), *u1 = json_array_get(ups, 1);
	assert_string_equal(json_string_value(json_object_get(u0, "switch")), "r1");
	assert_string_equal(json_string_value(json_object_get(u0, "port")), "up1");
	assert_string_equal(json_string_value(json_object_get(u0, "peer")), "r2:up1");
	assert_int_equal(json_integer_value(json_object_get(u0, "tx_bytes")), 1500);
	assert_int_equal(json_integer_value(json_object_get(u1, "tx_bytes")), 1400);
	assert_float_equal(json_real_value(json_object_get(u0, "share")), 1500.0 / 2900, 1e-9);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(ups, 3), "tx_bytes")), 1000);
	assert_int_equal(json_array_size(json_object_get(json_object_get(m, "uplink_shares"), "r1")), 2);
	assert_float_equal(json_real_value(json_object_get(m, "worst_deviation")), 2 * (1500.0 / 2900 - 0.5), 1e-9);
	json_decref(t);
	f.doc = doc_ecmp_skew;
	t = certify(&f, 1u << 9);
	e = entry(t, 9);
	assert_string_equal(verdict(e), "FAIL");
	assert_string_equal(cause(e), "ecmp-imbalance");
	assert_non_null(strstr(json_string_value(json_object_get(json_object_get(e, "cause"), "text")), "r1 uplink up1 carried 90%"));
	json_decref(t);
	f.doc = doc_ecmp_rx_only;
	t = certify(&f, 1u << 9);
	e = entry(t, 9);
	assert_string_equal(verdict(e), "SKIP");
	assert_non_null(strstr(json_string_value(json_object_get(e, "reason")), "(tx_bytes)"));
	json_decref(t);
	f.doc = doc_ecmp_slow_hosts;
	t = certify(&f, 1u << 9);
	e = entry(t, 9);
	assert_string_equal(verdict(e), "SKIP");
	assert_non_null(strstr(json_string_value(json_object_get(e, "reason")), "did not offer line rate"));
	json_decref(t);
}

/* Test 7's workload meets what a seed draws: with an engine that has a seed
 * key it runs with seeds 1..5 (the profile's fabric.seed, 1, and the next
 * four); odd seeds pass (95 Gbit/s a host), even ones fail (1 Gbit/s):
 * MARGINAL, not a pass. All passing: PASS. No seed key: one run. */
static void seeds_that_disagree_are_marginal(void **state)
{
	(void)state;
	struct fake f = {.doc = doc_a2a_busy, .odd_doc = doc_a2a_ok, .seed_key = "fabric.seed"};
	json_t *t = certify(&f, 1u << 7);
	assert_int_equal(f.runs, 5);
	assert_string_equal(f.seeds, "1,2,3,4,5");
	const json_t *e = entry(t, 7);
	assert_string_equal(verdict(e), "MARGINAL");
	assert_string_equal(cause(e), "unfair"); /* the failing seeds' cause */
	const char *why = json_string_value(json_object_get(e, "reason"));
	assert_non_null(strstr(why, "PASS with 1, 3, 5, FAIL with 2, 4"));
	assert_int_equal(json_array_size(json_object_get(e, "seeds")), 5);
	assert_int_equal(json_array_size(json_object_get(json_object_get(e, "evidence"), "runs")), 5);
	assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(e, "seeds"), 1), "verdict")),
			    "FAIL");
	unsigned pass, fail, skip, marginal, judged, asked;
	rp_cert_count(t, &pass, &fail, &skip, &marginal);
	assert_int_equal(marginal, 1);
	assert_false(rp_cert_certified(t, 1u << 7, false, &judged, &asked));
	json_decref(t);
	f = (struct fake){.doc = doc_a2a_ok, .seed_key = "fabric.seed"};
	t = certify(&f, 1u << 7);
	assert_int_equal(f.runs, 5);
	assert_string_equal(verdict(entry(t, 7)), "PASS");
	assert_true(rp_cert_certified(t, 1u << 7, false, &judged, &asked));
	json_decref(t);
	f = (struct fake){.doc = doc_a2a_ok};
	t = certify(&f, 1u << 7);
	assert_int_equal(f.runs, 1);
	assert_true(json_is_null(json_object_get(entry(t, 7), "seeds")));
	json_decref(t);
}

/* Certified only when test 1 (or each test --only names) got a verdict and
 * every verdict is a PASS: a 2-host profile's 8 SKIPs and one PASS are not. */
static void skips_are_not_certified(void **state)
{
	(void)state;
	json_t *two = json_loads("[{\"id\": 1, \"verdict\": \"SKIP\"}, {\"id\": 6, \"verdict\": \"SKIP\"}, "
				 "{\"id\": 7, \"verdict\": \"PASS\"}]", 0, NULL);
	unsigned judged, asked;
	assert_false(rp_cert_certified(two, 0, false, &judged, &asked));
	assert_int_equal(judged, 1);
	assert_int_equal(asked, 3);
	assert_true(rp_cert_certified(two, 1u << 7, false, &judged, &asked));          /* --only 7 */
	assert_false(rp_cert_certified(two, (1u << 6) | (1u << 7), false, &judged, &asked)); /* --only 6,7 */
	json_t *good = json_loads("[{\"id\": 1, \"verdict\": \"PASS\"}, {\"id\": 9, \"verdict\": \"SKIP\"}]", 0, NULL);
	assert_true(rp_cert_certified(good, 0, false, &judged, &asked)); /* 9 on one switch: SKIP */
	assert_false(rp_cert_certified(good, 0, true, &judged, &asked));  /* interrupted */
	json_decref(two);
	json_decref(good);
}

/* certify's text summary from a hand-written document: a test with a
 * reason, one with a cause, one with neither; --suggest found; verdict. */
static void summary_text(void **state)
{
	(void)state;
	char buf[1024] = "";
	json_t *doc = json_loads(
		"{\"verdict\": \"FAIL\", \"interrupted\": false, \"certified\": false, \"judged\": 2, \"asked\": 9,"
		" \"tests\": [{\"id\": 1, \"name\": \"pfc-incast\", \"verdict\": \"FAIL\", \"cause\": {\"text\": \"headroom\"}},"
		" {\"id\": 9, \"name\": \"ecmp\", \"verdict\": \"SKIP\", \"reason\": \"one switch\"},"
		" {\"id\": 7, \"name\": \"all-to-all\", \"verdict\": \"PASS\"}],"
		" \"suggest\": {\"found\": true, \"sets\": [\"fabric.pfc.headroom=64KiB\", \"fabric.seed=2\"]}}",
		0, NULL);
	assert_non_null(doc);
	FILE *f = fmemopen(buf, sizeof(buf), "w");
	rp_cert_print_summary(f, doc, "out");
	fclose(f);
	assert_string_equal(buf, "FAIL 1 pfc-incast       headroom\n"
				 "SKIP 9 ecmp             one switch\n"
				 "PASS 7 all-to-all       \n"
				 "\nsuggest: every test passes with --set fabric.pfc.headroom=64KiB --set fabric.seed=2\n"
				 "\ncertify: FAIL\n"
				 "not certified: 2 of 9 tests judged (a test failed)\n"
				 "result: out/result.json\nreport: out/report.md, out/report.html\n");
	/* certified: no "not certified" line; a suggest that found nothing */
	json_object_set_new(doc, "verdict", json_string("PASS"));
	json_object_set_new(doc, "certified", json_true());
	json_object_set_new(doc, "tests", json_array());
	json_object_set_new(doc, "suggest", json_pack("{s:b}", "found", 0));
	f = fmemopen(buf, sizeof(buf), "w");
	rp_cert_print_summary(f, doc, "d");
	fclose(f);
	assert_string_equal(buf, "\nsuggest: no setting tried passes every test (report.md lists what was tried)\n"
				 "\ncertify: PASS\nresult: d/result.json\nreport: d/report.md, d/report.html\n");
	/* not certified without a FAIL: why, by the document's own fields */
	static const char *const why[][3] = {
		{"INCOMPLETE", "true", "not certified: 2 of 9 tests judged (interrupted)\n"},
		{"MARGINAL", "false", "not certified: 2 of 9 tests judged (a test passed with some seeds only: MARGINAL "
				      "is not a pass)\n"},
		{"INCOMPLETE", "false", "not certified: 2 of 9 tests judged (test 1 pfc-incast, or a test --only asked "
					"for, got no verdict: SKIP is not a pass)\n"},
	};
	json_object_set_new(doc, "certified", json_false());
	json_object_set_new(doc, "suggest", json_null());
	for (int i = 0; i < 3; i++) {
		json_object_set_new(doc, "verdict", json_string(why[i][0]));
		json_object_set_new(doc, "interrupted", json_boolean(strcmp(why[i][1], "true") == 0));
		f = fmemopen(buf, sizeof(buf), "w");
		rp_cert_print_summary(f, doc, "d");
		fclose(f);
		assert_non_null(strstr(buf, why[i][2]));
	}
	json_decref(doc);
}

/* The engine: by the profile (a host with a port: run), or as asked, and
 * the other engine's options refused with one line. */
static void engine_pick(void **state)
{
	(void)state;
	char err[512];
	const char *eng = NULL;
	struct rp_profile *lab = rp_profile_load_string("p.yaml", profile, NULL, err, sizeof(err));
	struct rp_profile *run = rp_profile_load_string(
		"q.yaml",
		"hosts:\n  - {name: h0, mac: \"02:00:00:00:00:01\", ipv4: 10.0.0.1, port: \"pair:l0:0\"}\n"
		"  - {name: h1, mac: \"02:00:00:00:00:02\", ipv4: 10.0.0.2, port: \"pair:l0:1\"}\ntraffic: [{pattern: flow, src: h0, dst: h1}]\n",
		NULL, err, sizeof(err));
	if (!run)
		fail_msg("%s", err);
	assert_non_null(lab);
	assert_int_equal(rp_cert_pick_engine(NULL, false, true, lab, "p.yaml", &eng, err, sizeof(err)), 0);
	assert_string_equal(eng, "lab");
	assert_int_equal(rp_cert_pick_engine(NULL, true, false, run, "q.yaml", &eng, err, sizeof(err)), 0);
	assert_string_equal(eng, "run");
	assert_int_equal(rp_cert_pick_engine("lab", false, true, run, "q.yaml", &eng, err, sizeof(err)), 0);
	assert_string_equal(eng, "lab");
	assert_int_equal(rp_cert_pick_engine(NULL, true, false, lab, "p.yaml", &eng, err, sizeof(err)), -1);
	assert_string_equal(err, "--launcher runs `roceprobe run` children: it needs --engine run (the lab is one process)");
	assert_int_equal(rp_cert_pick_engine(NULL, false, true, run, "q.yaml", &eng, err, sizeof(err)), -1);
	assert_string_equal(err, "--suggest sweeps the lab's switch settings (fabric.*): it needs --engine lab; a real "
				 "fabric's switches are not set by roceprobe");
	assert_int_equal(rp_cert_pick_engine("run", false, false, lab, "p.yaml", &eng, err, sizeof(err)), -1);
	assert_string_equal(err, "--engine run: no host in p.yaml has a `port:` (the lab needs none: --engine lab)");
	rp_profile_free(lab);
	rp_profile_free(run);
}

/* The reports' values as a person reads them (human.c). */
static void human_values(void **state)
{
	(void)state;
	char a[64], b[64], buf[512];
	/* one byte short: KiB would print 39.36 twice (40303 / 1024 = 39.358, 40304 / 1024 = 39.359) */
	rp_cert_fmt_bytes_pair(40303, 40304, a, b, sizeof(a));
	assert_string_equal(a, "40303 B");
	assert_string_equal(b, "40304 B");
	/* far apart: one unit, KiB (8192 / 1024 = 8.00, 40304 / 1024 = 39.36) */
	rp_cert_fmt_bytes_pair(8192, 40304, a, b, sizeof(a));
	assert_string_equal(a, "8.00 KiB");
	assert_string_equal(b, "39.36 KiB");
	rp_cert_fmt_bytes_pair(4096, 9000, a, b, sizeof(a)); /* both below 10 KiB: bytes */
	assert_string_equal(b, "9000 B");
	rp_cert_label("queue_at_first_ce_bytes", buf, sizeof(buf));
	assert_string_equal(buf, "queue at first CE");
	rp_cert_label("terms.pfc_frame", buf, sizeof(buf));
	assert_string_equal(buf, "terms PFC frame");
	json_t *v = json_integer(3000);
	rp_cert_kv_text("first_ce_ns", v, buf, sizeof(buf));
	assert_string_equal(buf, "3000 ns");
	json_decref(v);
	v = json_integer(2530704); /* 2530704 ns = 2530.70 us */
	rp_cert_kv_text("elapsed_ns", v, buf, sizeof(buf));
	assert_string_equal(buf, "2530.70 us");
	json_decref(v);
	v = json_integer(100000000000LL); /* 1e11 bit/s = 100 Gbit/s */
	rp_cert_kv_text("speed_bps", v, buf, sizeof(buf));
	assert_string_equal(buf, "100 Gbit/s");
	json_decref(v);
	v = json_real(40300.0); /* a real that is a whole number: no exponent */
	rp_cert_kv_text("x", v, buf, sizeof(buf));
	assert_string_equal(buf, "40300");
	json_decref(v);
	rp_cert_kv_text("watchdog", json_true(), buf, sizeof(buf));
	assert_string_equal(buf, "yes");
	rp_cert_kv_text("first_xoff_ns", json_null(), buf, sizeof(buf));
	assert_string_equal(buf, "none");
	v = json_pack("{s:i, s:i, s:i, s:i}", "prio", 0, "tx_packets", 4096, "lost", 3521, "switch_xoff", 0);
	rp_cert_value_text(v, buf, sizeof(buf)); /* a record as words, never JSON */
	assert_string_equal(buf, "prio 0, tx packets 4096, lost 3521, switch XOFF 0");
	json_decref(v);
	v = json_pack("[i, n]", 3000, NULL);
	rp_cert_kv_text("first_ce_ns", v, buf, sizeof(buf));
	assert_string_equal(buf, "3000 ns, none");
	json_decref(v);
	/* axis steps: 40304 / 4 = 10076 = 1.0076 x 10^4 -> 2 x 10^4, the first of 1, 2, 2.5, 5, 10 not below */
	assert_true(rp_cert_nice_step(40304, 4) == 20000);
	assert_true(rp_cert_nice_step(237, 4) == 100); /* 59.25 -> 100 */
	assert_true(rp_cert_nice_step(0.9756, 4) == 0.25); /* 0.2439 -> 0.25 */
	rp_cert_tick_text(40000, buf, sizeof(buf));
	assert_string_equal(buf, "40k");
	rp_cert_tick_text(2500000, buf, sizeof(buf));
	assert_string_equal(buf, "2.5M");
	rp_cert_tick_text(0.25, buf, sizeof(buf));
	assert_string_equal(buf, "0.25");
	rp_cert_tick_text(2526, buf, sizeof(buf)); /* 2526 is not a round thousand: as is */
	assert_string_equal(buf, "2526");
	/* a suggestion's headroom replaces the user's, another key does not */
	v = json_pack("[s]", "fabric.pfc.headroom=40KiB");
	assert_true(rp_cert_set_replaced("fabric.pfc.headroom=8KiB", v));
	assert_false(rp_cert_set_replaced("fabric.pfc.headroom_x=8KiB", v));
	assert_false(rp_cert_set_replaced("certify.messages=8", v));
	json_decref(v);
}

/* Test 1's plot when nothing was lost and nothing paused: every value 0. It
 * says so, and its bars stand as 2-px stubs (measured 0, not missing); the
 * y axis 0..1 in round steps of 0.25 (1 / 4), no exponent. */
static void report_zero_plot(void **state)
{
	(void)state;
	json_t *res = json_pack(
		"{s:s, s:{s:s, s:s}, s:s, s:[], s:{s:s, s:s, s:s, s:f}, s:{s:i, s:i, s:i, s:i}, s:b, s:i, s:i, "
		"s:[{s:i, s:s, s:s, s:s, s:n, s:{s:[{s:s, s:s, s:s, s:s, s:[{s:s, s:[[i, i], [i, i]]}, "
		"{s:s, s:[[i, i], [i, i]]}]}]}, s:{}}]}",
		"verdict", "PASS", "profile", "name", "p", "path", "p.yaml", "engine", "lab", "sets", "environment",
		"roceprobe", "0.1.0", "started", "2026-12-07T00:00:00Z", "hostname", "vm", "wall_s", 0.5, "counts", "pass", 1,
		"fail", 0, "marginal", 0, "skip", 0, "certified", 1, "judged", 1, "asked", 1, "tests", "id", 1, "name",
		"pfc-incast", "title", "PFC incast", "verdict", "PASS", "cause", "evidence", "plots", "title", "t", "x", "N",
		"y", "frames", "kind", "bar", "series", "name", "PFC frames", "points", 2, 0, 4, 0, "name", "lost",
		"points", 2, 0, 4, 0, "measured");
	assert_non_null(res);
	char path[] = "/tmp/test_certify_html_XXXXXX", err[256];
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(rp_cert_write_html(res, path, err, sizeof(err)), 0);
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	static char html[1 << 16];
	size_t n = fread(html, 1, sizeof(html) - 1, f);
	html[n] = '\0';
	fclose(f);
	unlink(path);
	assert_non_null(strstr(html, "every value is 0"));
	assert_non_null(strstr(html, "height='2.0'"));
	assert_non_null(strstr(html, ">0.25</text>"));
	assert_null(strstr(html, "e+"));
	json_decref(res);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(only_lists),
		cmocka_unit_test(incast_passes_on_a_real_fabric),
		cmocka_unit_test(loss_without_pfc_is_pfc_off),
		cmocka_unit_test(a_fail_another_test_explains_is_blocked),
		cmocka_unit_test(loss_despite_pfc_is_headroom),
		cmocka_unit_test(switch_blind_tests_skip),
		cmocka_unit_test(a2a_slow_hosts_are_not_the_fabric),
		cmocka_unit_test(seeds_that_disagree_are_marginal),
		cmocka_unit_test(skips_are_not_certified),
		cmocka_unit_test(summary_text),
		cmocka_unit_test(switch_sources_judge_3_and_5),
		cmocka_unit_test(switch_sources_judge_9),
		cmocka_unit_test(engine_pick),
		cmocka_unit_test(human_values),
		cmocka_unit_test(report_zero_plot),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
