/* lib/counters: `ethtool -S` dumps of mlx5_core, ice and bnxt_en (names as
 * the kernel prints them, values chosen by hand, tests/data/counters/DRIVER.txt)
 * normalised to known per-priority numbers; an unknown driver's names pass
 * through; a copied rxe hw_counters directory; deltas; the JSON line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "counters/sonic_pub.h"
#include "counters/sampler.h"
#include "counters/sources.h"

static struct rp_cnt_snap snap;

static void read_src(const char *spec)
{
	struct rp_cnt_source s;
	char err[512] = "";
	assert_int_equal(rp_cnt_source_parse(spec, &s, err, sizeof(err)), 0);
	if (rp_cnt_read(&s, &snap, err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(snap.nports, 1);
}

static void file(const char *name)
{
	char spec[400];
	snprintf(spec, sizeof(spec), "ethtool-file:%s/counters/%s", RP_TEST_DATA, name);
	read_src(spec);
}

/* The value of a key (prio -1: the port's), or ~0 when it is absent. */
static uint64_t key(const char *name, int prio)
{
	const struct rp_cnt_val *v = rp_cnt_find(&snap.port[0], name, prio, RP_CNT_KEY);
	return v ? v->value : ~0ull;
}

static uint64_t raw(const char *name)
{
	const struct rp_cnt_val *v = rp_cnt_find(&snap.port[0], name, -1, RP_CNT_RAW);
	return v ? v->value : ~0ull;
}

static void mlx5_core_dump(void **state)
{
	(void)state;
	file("mlx5_core.txt");
	/* rx/tx_prioN_pause count every pause frame of the priority (XON and XOFF):
	 * PFC is on for 3 and 4 only, so only they have PFC counters. */
	assert_int_equal(key("pfc_rx", 3), 120);
	assert_int_equal(key("pfc_tx", 3), 30);
	assert_int_equal(key("pause_us_rx", 3), 4500); /* rx_prio3_pause_duration */
	assert_int_equal(key("pause_us_tx", 3), 900);
	assert_int_equal(key("xoff_to_xon", 3), 60); /* rx_prio3_pause_transition */
	assert_int_equal(key("pfc_rx", 4), 8);
	assert_int_equal(key("pfc_rx", 5), ~0ull);
	/* per-priority traffic: all eight priorities */
	assert_int_equal(key("rx_bytes", 3), 4096000);
	assert_int_equal(key("rx_packets", 3), 1000);
	assert_int_equal(key("rx_discards", 3), 2);
	assert_int_equal(key("tx_packets", 3), 500);
	assert_int_equal(key("rx_packets", 0), 100);
	assert_int_equal(key("rx_packets", 7), 0);
	/* port level */
	assert_int_equal(key("pause_storm_warnings", -1), 2);
	assert_int_equal(key("pause_storm_events", -1), 1);
	assert_int_equal(key("rx_out_of_buffer", -1), 7);
	assert_int_equal(key("rx_discards_phy", -1), 11);
	assert_int_equal(key("pause_rx", -1), 0); /* rx_pause_ctrl_phy: 802.3x */
	assert_int_equal(key("rx_packets", -1), 6100); /* rx_packets_phy, not the software count */
	assert_int_equal(key("rx_crc_errors", -1), 1);
	/* unknown names pass through raw: the software counts, vport, channels */
	assert_int_equal(raw("rx_packets"), 1000);
	assert_int_equal(raw("rx_vport_rdma_unicast_packets"), 5000);
	assert_int_equal(raw("ch0_events"), 12345);
	assert_int_equal(raw("link_down_events_phy"), 2);
}

static void ice_dump(void **state)
{
	(void)state;
	file("ice.txt");
	/* ice counts XON and XOFF apart; pfc_rx is every PFC frame naming the
	 * priority: prio 3 xon 40 + xoff 100 = 140; prio 4 XON alone 5 + 0 = 5
	 * (an XOFF-only count said 0); prio 6 XOFF alone 0 + 17 = 17. */
	assert_int_equal(key("pfc_rx", 3), 140);
	assert_int_equal(key("pfc_rx", 4), 5);
	assert_int_equal(key("pfc_rx", 6), 17);
	assert_int_equal(key("pfc_rx", 0), 0);
	assert_int_equal(key("pfc_tx", 3), 42); /* 12 + 30 */
	/* 802.3x: link_xon_rx 2 + link_xoff_rx 3 = 5; tx 0 + 1 = 1 */
	assert_int_equal(key("pause_rx", -1), 5);
	assert_int_equal(key("pause_tx", -1), 1);
	assert_int_equal(key("rx_out_of_buffer", -1), 9); /* rx_dropped.nic */
	assert_int_equal(key("pause_us_rx", 3), ~0ull);   /* ice counts no pause time */
	assert_int_equal(raw("illegal_bytes.nic"), 0);
	assert_int_equal(raw("rx_unicast"), 800);
	/* ep keeps its old name for the XOFF count alone (docs/verbs.md) */
	char out[64];
	assert_true(rp_ctr_normalise(RP_CTR_ETH, "rx_priority_3_xoff.nic", out, sizeof(out), NULL));
	assert_string_equal(out, "pause_rx_prio3");
	assert_false(rp_ctr_normalise(RP_CTR_ETH, "rx_priority_3_xon.nic", out, sizeof(out), NULL));
}

static void bnxt_en_dump(void **state)
{
	(void)state;
	file("bnxt_en.txt");
	assert_int_equal(key("pfc_rx", 3), 50); /* rx_pfc_ena_frames_pri3: XON and XOFF */
	assert_int_equal(key("pfc_rx", 5), 7);
	assert_int_equal(key("pfc_tx", 3), 20);
	assert_int_equal(key("pause_us_rx", 3), 3000); /* pfc_pri3_rx_duration_us */
	assert_int_equal(key("pause_us_tx", 3), 800);
	assert_int_equal(key("xoff_to_xon", 3), 25);
	assert_int_equal(key("xoff_to_xon_tx", 3), 10);
	assert_int_equal(key("rx_bytes", 3), 1024000);
	assert_int_equal(key("rx_packets", 3), 1000);
	assert_int_equal(key("pfc_rx", -1), 57); /* rx_pfc_frames, every priority */
	assert_int_equal(key("pfc_tx", -1), 20);
	assert_int_equal(key("pause_storm_events", -1), 1); /* continuous_pause_events */
	assert_int_equal(key("rx_out_of_buffer", -1), 3);   /* rx_total_discard_pkts */
	assert_int_equal(key("rx_discards_phy", -1), 4);    /* rx_stat_discard */
	/* a ring's "[0]: name" is one name; a CoS queue's discards are no priority's */
	assert_int_equal(raw("[0]: rx_ucast_packets"), 10);
	assert_int_equal(raw("rx_discard_packets_cos1"), 6);
	assert_int_equal(raw("resume_pause_events"), 1);
}

static void unknown_driver_passes_through(void **state)
{
	(void)state;
	file("virtio_net.txt");
	const struct rp_cnt_port *p = &snap.port[0];
	assert_string_equal(p->name, "virtio_net.txt");
	assert_int_equal(p->n, 9); /* every line of the dump, none dropped */
	for (size_t i = 0; i < p->n; i++)
		assert_int_equal(p->v[i].cls, RP_CNT_RAW);
	assert_int_equal(raw("rx_queue_0_packets"), 21);
	assert_int_equal(raw("tx_queue_0_kicks"), 17);
}

static void rxe_hw_counters_dir(void **state)
{
	(void)state;
	char spec[400];
	snprintf(spec, sizeof(spec), "rdma-dir:%s/counters/rxe0-hw_counters", RP_TEST_DATA);
	read_src(spec);
	/* every file of the copy, as rxe_hw_counters.c names them, under its key */
	static const struct {
		const char *file, *key;
		uint64_t v;
	} want[] = {
		{"sent_pkts", "tx_packets", 1000},           {"rcvd_pkts", "rx_packets", 990},
		{"duplicate_request", "duplicate_requests", 3}, {"out_of_seq_request", "out_of_sequence", 4},
		{"rcvd_rnr_err", "rnr_naks_received", 0},    {"send_rnr_err", "rnr_naks_sent", 0},
		{"rcvd_seq_err", "seq_err_naks_received", 5}, {"ack_deferred", "ack_deferred", 6},
		{"retry_exceeded_err", "retry_exceeded", 0}, {"retry_rnr_exceeded_err", "rnr_retry_exceeded", 0},
		{"completer_retry_err", "retransmissions", 7}, {"send_err", "send_errors", 0},
		{"link_downed", "link_downed", 0},           {"rdma_sends", "rdma_sends", 500},
		{"rdma_recvs", "rdma_recvs", 495},
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		if (key(want[i].key, -1) != want[i].v)
			fail_msg("%s -> %s: %llu, want %llu", want[i].file, want[i].key, (unsigned long long)key(want[i].key, -1),
				 (unsigned long long)want[i].v);
	const struct rp_cnt_val *g = rp_cnt_find(&snap.port[0], "lifespan", -1, RP_CNT_GAUGE);
	assert_non_null(g);
	assert_int_equal(g->value, 10);
	assert_int_equal(snap.port[0].n, 16); /* 15 counters + lifespan: nothing else, nothing lost */
}

static void ethtool_text_parser(void **state)
{
	(void)state;
	struct rp_ctr *c;
	char err[256];
	const char ok[] = "NIC statistics:\n     [1]: tx_bytes: 5\r\n     rx_pfc_frames: 18446744073709551615\n\n";
	assert_int_equal(rp_ctr_parse_ethtool_text(ok, strlen(ok), &c, err, sizeof(err)), 2);
	assert_string_equal(c[0].name, "[1]: tx_bytes");
	assert_int_equal(c[0].value, 5);
	assert_true(c[1].value == UINT64_MAX);
	free(c);
	const char bad[] = "NIC statistics:\n     rx_packets: 12\n     rx_bytes: lots\n";
	assert_int_equal(rp_ctr_parse_ethtool_text(bad, strlen(bad), &c, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "line 3"));
	assert_null(c);
	const char none[] = "no stats available\n";
	assert_int_equal(rp_ctr_parse_ethtool_text(none, strlen(none), &c, err, sizeof(err)), -1);
	assert_int_equal(rp_ctr_parse_ethtool_text("", 0, &c, err, sizeof(err)), -1);
}

static void deltas_and_json(void **state)
{
	(void)state;
	static struct rp_cnt_snap a, b, d;
	struct rp_ctr ra[] = {
		{"rx_priority_3_xon.nic", RP_CTR_ETH, 10}, {"rx_priority_3_xoff.nic", RP_CTR_ETH, 20},
		{"peer_ifindex", RP_CTR_ETH, 7},           {"odd_counter", RP_CTR_ETH, 100},
		{"rx_dropped.nic", RP_CTR_ETH, 50},
	};
	struct rp_ctr rb[] = {
		{"rx_priority_3_xon.nic", RP_CTR_ETH, 15}, {"rx_priority_3_xoff.nic", RP_CTR_ETH, 40},
		{"peer_ifindex", RP_CTR_ETH, 9},           {"odd_counter", RP_CTR_ETH, 90}, /* went back */
		{"rx_dropped.nic", RP_CTR_ETH, 50},        {"new_counter", RP_CTR_ETH, 3},
	};
	strcpy(a.source, "ethtool:x");
	strcpy(b.source, "ethtool:x");
	rp_cnt_port_fold(rp_cnt_add_port(&a, "x"), ra, 5);
	rp_cnt_port_fold(rp_cnt_add_port(&b, "x"), rb, 6);
	rp_cnt_delta(&a, &b, &d);
	const struct rp_cnt_port *p = &d.port[0];
	/* pfc_rx prio 3: (15 + 40) - (10 + 20) = 25 */
	assert_int_equal(rp_cnt_find(p, "pfc_rx", 3, RP_CNT_KEY)->value, 25);
	assert_int_equal(rp_cnt_find(p, "peer_ifindex", -1, RP_CNT_GAUGE)->value, 9); /* a gauge: its value */
	const struct rp_cnt_val *o = rp_cnt_find(p, "odd_counter", -1, RP_CNT_RAW);
	assert_true(o->reset);
	assert_int_equal(o->value, 0);
	assert_int_equal(rp_cnt_find(p, "rx_out_of_buffer", -1, RP_CNT_KEY)->value, 0);
	assert_null(rp_cnt_find(p, "new_counter", -1, RP_CNT_RAW)); /* its first value is the baseline */

	json_t *j = rp_cnt_json(&d, true, 100000000);
	char *s = json_dumps(j, JSON_COMPACT);
	assert_string_equal(s, "{\"schema\":\"roceprobe.counters/1\",\"kind\":\"delta\",\"t_ns\":0,\"interval_ns\":100000000,"
			       "\"source\":\"ethtool:x\",\"ports\":[{\"name\":\"x\",\"rx_out_of_buffer\":0,"
			       "\"prio\":[{\"prio\":3,\"pfc_rx\":25}],\"raw\":{\"odd_counter\":0},"
			       "\"gauges\":{\"peer_ifindex\":9},\"resets\":[\"odd_counter\"]}]}");
	free(s);
	json_decref(j);
	rp_cnt_snap_free(&a);
	rp_cnt_snap_free(&b);
	rp_cnt_snap_free(&d);
}

/* DPDK xstats as Debian's 22.11 PMDs name them (strings of librte_ethdev,
 * librte_net_mlx5, librte_net_ice, librte_net_bnxt .so.23), values chosen by
 * hand: one port each, folded like every other source. */
static void dpdk_xstats(void **state)
{
	(void)state;
	static struct rp_cnt_snap s;
	struct rp_ctr mlx5[] = {
		{"rx_good_packets", RP_CTR_DPDK, 1000},      {"rx_good_bytes", RP_CTR_DPDK, 64000},
		{"rx_missed_errors", RP_CTR_DPDK, 5},        {"rx_out_of_buffer", RP_CTR_DPDK, 5},
		{"rx_phy_discard_packets", RP_CTR_DPDK, 7},  {"rx_prio3_buf_discard_packets", RP_CTR_DPDK, 2},
		{"rx_prio3_cong_discard_packets", RP_CTR_DPDK, 1}, {"rx_phy_packets", RP_CTR_DPDK, 1012},
		{"rx_q0_packets", RP_CTR_DPDK, 1000},
	};
	struct rp_ctr ice[] = {
		{"rx_xon_packets", RP_CTR_DPDK, 3}, {"rx_xoff_packets", RP_CTR_DPDK, 4},
		{"tx_xoff_packets", RP_CTR_DPDK, 9}, {"rx_crc_errors", RP_CTR_DPDK, 1},
	};
	struct rp_ctr bnxt[] = {
		{"rx_pfc_ena_frames_pri3", RP_CTR_DPDK, 11}, {"tx_pfc_ena_frames_pri3", RP_CTR_DPDK, 6},
		{"rx_pfc_xon2xoff_frames_pri3", RP_CTR_DPDK, 5}, {"rx_pfc_frames", RP_CTR_DPDK, 11},
		{"rx_stat_discard", RP_CTR_DPDK, 2},
	};
	rp_cnt_port_fold(rp_cnt_add_port(&s, "mlx5"), mlx5, 9);
	rp_cnt_port_fold(rp_cnt_add_port(&s, "ice"), ice, 4);
	rp_cnt_port_fold(rp_cnt_add_port(&s, "bnxt"), bnxt, 5);
	const struct rp_cnt_port *m = &s.port[0], *i = &s.port[1], *b = &s.port[2];
	/* mlx5: rx_packets is the port's (rx_phy_packets 1012) and the ethdev's
	 * good ones (1000): one event, the largest kept */
	assert_int_equal(rp_cnt_find(m, "rx_packets", -1, RP_CNT_KEY)->value, 1012);
	assert_int_equal(rp_cnt_find(m, "rx_bytes", -1, RP_CNT_KEY)->value, 64000);
	assert_int_equal(rp_cnt_find(m, "rx_out_of_buffer", -1, RP_CNT_KEY)->value, 5); /* imissed is out_of_buffer */
	assert_int_equal(rp_cnt_find(m, "rx_discards_phy", -1, RP_CNT_KEY)->value, 7);
	assert_int_equal(rp_cnt_find(m, "rx_buf_discards", 3, RP_CNT_KEY)->value, 2);
	assert_int_equal(rp_cnt_find(m, "rx_cong_discards", 3, RP_CNT_KEY)->value, 1);
	assert_int_equal(rp_cnt_find(m, "rx_q0_packets", -1, RP_CNT_RAW)->value, 1000); /* per queue: raw */
	/* ice: 802.3x pause, XON + XOFF: 3 + 4 = 7 received, 0 + 9 sent */
	assert_int_equal(rp_cnt_find(i, "pause_rx", -1, RP_CNT_KEY)->value, 7);
	assert_int_equal(rp_cnt_find(i, "pause_tx", -1, RP_CNT_KEY)->value, 9);
	assert_int_equal(rp_cnt_find(i, "rx_crc_errors", -1, RP_CNT_KEY)->value, 1);
	/* bnxt: PFC per priority; xon2xoff (intervals begun) passes through */
	assert_int_equal(rp_cnt_find(b, "pfc_rx", 3, RP_CNT_KEY)->value, 11);
	assert_int_equal(rp_cnt_find(b, "pfc_tx", 3, RP_CNT_KEY)->value, 6);
	assert_int_equal(rp_cnt_find(b, "pfc_rx", -1, RP_CNT_KEY)->value, 11);
	assert_int_equal(rp_cnt_find(b, "rx_pfc_xon2xoff_frames_pri3", -1, RP_CNT_RAW)->value, 5);
	json_t *j = rp_cnt_port_json(b, false);
	char *t = json_dumps(j, JSON_COMPACT);
	assert_string_equal(t, "{\"name\":\"bnxt\",\"pfc_rx\":11,\"rx_discards_phy\":2,"
			       "\"prio\":[{\"prio\":3,\"pfc_rx\":11,\"pfc_tx\":6}],"
			       "\"raw\":{\"rx_pfc_xon2xoff_frames_pri3\":5},\"gauges\":{}}");
	free(t);
	json_decref(j);
	/* the pause filter result.json's pause_xstats has always used */
	assert_true(rp_ctr_is_pause("rx_pfc_ena_frames_pri3") && rp_ctr_is_pause("tx_xoff_pause") &&
		    rp_ctr_is_pause("RX_PAUSE") && !rp_ctr_is_pause("rx_xon_packets"));
	assert_string_equal(rp_ctr_src_name(RP_CTR_DPDK), "dpdk");
	rp_cnt_snap_free(&s);
}

/* The sampler by hand (interval 0: no thread), on an `ethtool -S` dump
 * rewritten between readings and a clock that moves when told. */
static int64_t fake_ns;
static int64_t fake_clock(const void *arg)
{
	(void)arg;
	return fake_ns;
}

static void dump_to(const char *path, unsigned xoff, unsigned xon, unsigned odd)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "NIC statistics:\n     rx_priority_3_xoff.nic: %u\n     rx_priority_3_xon.nic: %u\n"
		   "     peer_ifindex: 7\n     odd: %u\n", xoff, xon, odd);
	fclose(f);
}

static void sampler_by_hand(void **state)
{
	(void)state;
	char path[] = "/tmp/rp-test-sampler-XXXXXX", spec[64], err[256] = "";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	snprintf(spec, sizeof(spec), "ethtool-file:%s", path);
	struct rp_cnt_sampler sm = {0};
	assert_int_equal(rp_cnt_sampler_add(&sm, "h1", spec, NULL, err, sizeof(err)), 0);
	assert_int_equal(rp_cnt_sampler_add(&sm, "h2", NULL, "no netdev", err, sizeof(err)), 0);
	assert_int_equal(rp_cnt_sampler_add(&sm, "h3", "nope:x", NULL, err, sizeof(err)), -1);
	dump_to(path, 10, 5, 100);
	fake_ns = 1500;
	assert_int_equal(rp_cnt_sampler_start(&sm, 0, fake_clock, NULL, 500, err, sizeof(err)), 0); /* t 1000 */
	dump_to(path, 14, 5, 100);
	fake_ns = 100500;
	rp_cnt_sampler_tick(&sm); /* t 100000 */
	dump_to(path, 14, 8, 90);
	fake_ns = 150500;
	rp_cnt_sampler_stop(&sm); /* t 150000: the end */
	rp_cnt_sampler_stop(&sm); /* once only */
	size_t n;
	struct rp_cnt_series *s = rp_cnt_sampler_take(&sm, &n);
	rp_cnt_sampler_free(&sm);
	assert_int_equal(n, 2);
	assert_int_equal(s[0].n, 3);
	assert_int_equal(s[0].s[0].t_ns, 1000);
	assert_int_equal(s[0].s[1].t_ns, 100000);
	assert_int_equal(s[0].s[2].t_ns, 150000);
	/* the start: every count 0 (pfc_rx prio 3, odd), the gauge's value */
	assert_int_equal(rp_cnt_find(&s[0].s[0].port, "pfc_rx", 3, RP_CNT_KEY)->value, 0);
	assert_int_equal(rp_cnt_find(&s[0].s[0].port, "odd", -1, RP_CNT_RAW)->value, 0);
	assert_int_equal(rp_cnt_find(&s[0].s[0].port, "peer_ifindex", -1, RP_CNT_GAUGE)->value, 7);
	/* then (14 + 5) - (10 + 5) = 4; odd did not move: left out */
	assert_int_equal(rp_cnt_find(&s[0].s[1].port, "pfc_rx", 3, RP_CNT_KEY)->value, 4);
	assert_null(rp_cnt_find(&s[0].s[1].port, "odd", -1, RP_CNT_RAW));
	/* then (14 + 8) - (14 + 5) = 3; odd went back from 100 to 90: 0 and a reset */
	assert_int_equal(rp_cnt_find(&s[0].s[2].port, "pfc_rx", 3, RP_CNT_KEY)->value, 3);
	assert_true(rp_cnt_find(&s[0].s[2].port, "odd", -1, RP_CNT_RAW)->reset);
	assert_string_equal(s[1].host, "h2");
	assert_int_equal(s[1].n, 0);
	assert_string_equal(s[1].reason, "no netdev");
	assert_string_equal(s[1].source, "");
	rp_cnt_series_free(s, n);
	free(s);
	unlink(path);
}

/* A switch's series (all_ports): every port kept, each read's duration on
 * a clock that moves 7 ns per look, and a source that fails mid-run: the
 * callback once, the reason, no more reads. */
static int64_t tick_ns;
static int64_t ticking_clock(const void *arg)
{
	(void)arg;
	return tick_ns += 7;
}

static void json_to(const char *path, unsigned a3, unsigned b3)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "{\"sw\": {\"Ethernet0\": {\"pfc\": [0,0,0,%u,0,0,0,0]}, \"Ethernet4\": {\"pfc\": [0,0,0,%u,0,0,0,0]}}}\n",
		a3, b3);
	fclose(f);
}

static unsigned stops;
static void on_stop(void *arg, const struct rp_cnt_series *s)
{
	assert_ptr_equal(arg, &stops);
	assert_true(s->reason[0] != '\0');
	stops++;
}

static void sampler_all_ports(void **state)
{
	(void)state;
	char data[] = "/tmp/rp-test-swdata-XXXXXX", mapf[] = "/tmp/rp-test-swmap-XXXXXX", spec[96], err[256] = "";
	int fd = mkstemp(data);
	assert_true(fd >= 0);
	close(fd);
	fd = mkstemp(mapf);
	assert_true(fd >= 0);
	FILE *f = fdopen(fd, "w");
	fprintf(f, "{\"ports\": [\"Ethernet0\", \"Ethernet4\"], \"counters\": {\"pfc_rx\": \"sw.{port}.pfc[{prio}]\"}}\n");
	fclose(f);
	struct rp_exec_map map = {0};
	assert_int_equal(rp_exec_map_load(mapf, &map, err, sizeof(err)), 0);
	snprintf(spec, sizeof(spec), "exec:cat %s", data);
	struct rp_cnt_sampler sm = {.all_ports = true, .stopped = on_stop, .stopped_arg = &stops};
	assert_int_equal(rp_cnt_sampler_add(&sm, "sw1", spec, NULL, err, sizeof(err)), 0);
	sm.src[0].map = &map;
	json_to(data, 10, 20);
	tick_ns = 0;
	assert_int_equal(rp_cnt_sampler_start(&sm, 0, ticking_clock, NULL, 0, err, sizeof(err)), 0); /* t 7, dur 7 */
	json_to(data, 13, 20);
	rp_cnt_sampler_tick(&sm); /* t 21 */
	unlink(data); /* cat fails */
	rp_cnt_sampler_tick(&sm);
	json_to(data, 99, 99);
	rp_cnt_sampler_stop(&sm); /* stopped: not read again */
	size_t n;
	struct rp_cnt_series *s = rp_cnt_sampler_take(&sm, &n);
	rp_cnt_sampler_free(&sm);
	assert_int_equal(n, 1);
	assert_int_equal(stops, 1);
	assert_int_equal(s[0].n, 2);
	assert_true(s[0].reason[0] != '\0');
	assert_int_equal(s[0].s[0].t_ns, 7);
	assert_int_equal(s[0].s[0].dur_ns, 7);
	assert_int_equal(s[0].s[1].t_ns, 21);
	assert_int_equal(s[0].s[1].dur_ns, 7);
	assert_int_equal(s[0].s[0].nports, 2);
	assert_int_equal(s[0].s[0].port.n, 0); /* every port in ports[], none in port */
	assert_string_equal(s[0].s[0].ports[0].name, "Ethernet0");
	assert_string_equal(s[0].s[0].ports[1].name, "Ethernet4");
	assert_int_equal(rp_cnt_find(&s[0].s[0].ports[1], "pfc_rx", 3, RP_CNT_KEY)->value, 0); /* the baseline */
	assert_int_equal(s[0].s[1].nports, 2);
	assert_int_equal(rp_cnt_find(&s[0].s[1].ports[0], "pfc_rx", 3, RP_CNT_KEY)->value, 3);
	assert_null(rp_cnt_find(&s[0].s[1].ports[1], "pfc_rx", 3, RP_CNT_KEY)); /* did not move */
	rp_cnt_series_free(s, n);
	free(s);
	rp_exec_map_free(&map);
	unlink(data);
	unlink(mapf);
}

/* The thread: interval 20 ms on CLOCK_MONOTONIC for about 110 ms: the start,
 * 5 ticks (20, 40, ..., 100 ms), the end: 7 samples on an idle machine. On a
 * loaded one the thread may start late, and the stop waits (up to 3 s) for
 * its first tick: at least the start, one tick and the end; at most the start, one tick per whole
 * interval that passed before the stop, and the end. */
static unsigned clock_reads; /* the sampler's reads of mono_clock (arg non-NULL) */
static int64_t mono_clock(const void *arg)
{
	if (arg)
		__atomic_add_fetch(&clock_reads, 1, __ATOMIC_RELEASE);
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static void sampler_thread(void **state)
{
	(void)state;
	char spec[400], err[256] = "";
	snprintf(spec, sizeof(spec), "ethtool-file:%s/counters/ice.txt", RP_TEST_DATA);
	struct rp_cnt_sampler sm = {0};
	assert_int_equal(rp_cnt_sampler_add(&sm, "h1", spec, NULL, err, sizeof(err)), 0);
	int64_t t0 = mono_clock(NULL);
	assert_int_equal(rp_cnt_sampler_start(&sm, 20000000, mono_clock, &clock_reads, t0, err, sizeof(err)), 0);
	struct timespec nap = {0, 110000000}, more = {0, 20000000};
	nanosleep(&nap, NULL);
	/* the thread's first tick may come late on a loaded machine (each tick reads the clock once) */
	while (__atomic_load_n(&clock_reads, __ATOMIC_ACQUIRE) < 2 && mono_clock(NULL) - t0 < 3000000000)
		nanosleep(&more, NULL);
	rp_cnt_sampler_stop(&sm);
	int64_t whole = (mono_clock(NULL) - t0) / 20000000;
	size_t n;
	struct rp_cnt_series *s = rp_cnt_sampler_take(&sm, &n);
	rp_cnt_sampler_free(&sm);
	assert_int_equal(n, 1);
	assert_in_range(s[0].n, 3, (uint64_t)whole + 2);
	assert_int_equal(s[0].interval_ns, 20000000);
	for (size_t k = 1; k < s[0].n; k++)
		assert_true(s[0].s[k].t_ns > s[0].s[k - 1].t_ns);
	rp_cnt_series_free(s, n);
	free(s);
}

/* A switch's queue and PG counters (sonic.c folds each object's
 * COUNTERS:oid hash with its index): counts differenced per queue, a
 * watermark a gauge (its value even when it fell), a port's priority key
 * that turns up in a queue's hash kept raw as qN.NAME, and the JSON's
 * queues[]/pgs[]. Values by hand. */
static void queues_and_pgs(void **state)
{
	(void)state;
	static struct rp_cnt_snap a, b, d;
	struct rp_ctr q3a[] = {{"SAI_QUEUE_STAT_PACKETS", RP_CTR_SAI, 1000},
			       {"SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS", RP_CTR_SAI, 40},
			       {"U/SAI_QUEUE_STAT_SHARED_WATERMARK_BYTES", RP_CTR_SAI, 9000},
			       {"SAI_PORT_STAT_PFC_3_RX_PKTS", RP_CTR_SAI, 5}};
	struct rp_ctr q3b[] = {{"SAI_QUEUE_STAT_PACKETS", RP_CTR_SAI, 1600},
			       {"SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS", RP_CTR_SAI, 43},
			       {"U/SAI_QUEUE_STAT_SHARED_WATERMARK_BYTES", RP_CTR_SAI, 512}, /* cleared: fell */
			       {"SAI_PORT_STAT_PFC_3_RX_PKTS", RP_CTR_SAI, 6}};
	struct rp_ctr pg3a[] = {{"SAI_INGRESS_PRIORITY_GROUP_STAT_DROPPED_PACKETS", RP_CTR_SAI, 2},
				{"P/SAI_INGRESS_PRIORITY_GROUP_STAT_XOFF_ROOM_WATERMARK_BYTES", RP_CTR_SAI, 8192}};
	struct rp_ctr pg3b[] = {{"SAI_INGRESS_PRIORITY_GROUP_STAT_DROPPED_PACKETS", RP_CTR_SAI, 9},
				{"P/SAI_INGRESS_PRIORITY_GROUP_STAT_XOFF_ROOM_WATERMARK_BYTES", RP_CTR_SAI, 8192}};
	struct rp_ctr pa[] = {{"SAI_PORT_STAT_PFC_3_RX_PKTS", RP_CTR_SAI, 100}};
	struct rp_ctr pb[] = {{"SAI_PORT_STAT_PFC_3_RX_PKTS", RP_CTR_SAI, 130}};
	struct rp_cnt_port *p = rp_cnt_add_port(&a, "Ethernet0");
	rp_cnt_port_fold(p, pa, 1);
	rp_cnt_port_fold_at(p, RP_CNT_AT_QUEUE, 3, q3a, 4);
	rp_cnt_port_fold_at(p, RP_CNT_AT_PG, 3, pg3a, 2);
	p = rp_cnt_add_port(&b, "Ethernet0");
	rp_cnt_port_fold(p, pb, 1);
	rp_cnt_port_fold_at(p, RP_CNT_AT_QUEUE, 3, q3b, 4);
	rp_cnt_port_fold_at(p, RP_CNT_AT_PG, 3, pg3b, 2);
	/* the port's pfc_rx prio 3 and queue 3's packets do not meet */
	assert_int_equal(rp_cnt_find(p, "pfc_rx", 3, RP_CNT_KEY)->value, 130);
	assert_int_equal(rp_cnt_find_at(p, RP_CNT_AT_QUEUE, 3, "packets", RP_CNT_KEY)->value, 1600);
	assert_null(rp_cnt_find_at(p, RP_CNT_AT_QUEUE, 3, "pfc_rx", RP_CNT_KEY));
	assert_int_equal(rp_cnt_find(p, "q3.SAI_PORT_STAT_PFC_3_RX_PKTS", -1, RP_CNT_RAW)->value, 6);

	strcpy(d.source, "sonic://x");
	rp_cnt_delta(&a, &b, &d);
	json_t *j = rp_cnt_port_json(&d.port[0], true);
	char *s = json_dumps(j, JSON_COMPACT);
	/* pfc_rx 130 - 100 = 30; packets 1600 - 1000 = 600; ecn 43 - 40 = 3; the watermark
	 * 512 as it is (no reset); raw 6 - 5 = 1; PG drops 9 - 2 = 7, headroom 8192 */
	assert_string_equal(s, "{\"name\":\"Ethernet0\",\"prio\":[{\"prio\":3,\"pfc_rx\":30}],"
			       "\"queues\":[{\"queue\":3,\"packets\":600,\"ecn_marked\":3,\"shared_wm_bytes\":512}],"
			       "\"pgs\":[{\"pg\":3,\"drops\":7,\"persistent_headroom_wm_bytes\":8192}],"
			       "\"raw\":{\"q3.SAI_PORT_STAT_PFC_3_RX_PKTS\":1},\"gauges\":{},\"resets\":[]}");
	free(s);
	json_decref(j);
	/* a queue count going back is named qN.key */
	q3b[0].value = 10;
	rp_cnt_snap_free(&b);
	rp_cnt_port_fold_at(rp_cnt_add_port(&b, "Ethernet0"), RP_CNT_AT_QUEUE, 3, q3b, 4);
	rp_cnt_delta(&a, &b, &d);
	j = rp_cnt_port_json(&d.port[0], true);
	assert_string_equal(json_string_value(json_array_get(json_object_get(j, "resets"), 0)), "q3.packets");
	json_decref(j);
	rp_cnt_snap_free(&a);
	rp_cnt_snap_free(&b);
	rp_cnt_snap_free(&d);
}

/* roceprobe.counters/1 read back (snap_read.c): a hand-written delta line's
 * counts, priorities, queues (counts and the watermark gauge told apart by
 * the vocabulary), PGs, raw, gauges and resets, written again byte for byte;
 * what is not such a line, one reason. */
static void counters_json_read(void **state)
{
	(void)state;
	static struct rp_cnt_snap s;
	static const char line[] =
		"{\"schema\":\"roceprobe.counters/1\",\"kind\":\"delta\",\"t_ns\":2000,\"interval_ns\":1000,"
		"\"source\":\"lab:sw0\",\"ports\":[{\"name\":\"Ethernet1\",\"rx_packets\":16,\"tx_packets\":0,"
		"\"prio\":[{\"prio\":3,\"pfc_rx\":0,\"pfc_tx\":7}],\"queues\":[{\"queue\":3,\"packets\":5,"
		"\"shared_wm_bytes\":4096}],\"pgs\":[{\"pg\":3,\"drops\":1,\"headroom_wm_bytes\":200}],"
		"\"raw\":{\"odd\":9},\"gauges\":{\"prio3_queue\":3},\"resets\":[\"q3.packets\"]}]}";
	bool delta;
	uint64_t iv;
	char err[200];
	assert_int_equal(rp_cnt_json_read(line, strlen(line), &s, &delta, &iv, err, sizeof(err)), 0);
	assert_true(delta);
	assert_int_equal(iv, 1000);
	assert_int_equal(s.t_ns, 2000);
	assert_string_equal(s.source, "lab:sw0");
	const struct rp_cnt_port *p = &s.port[0];
	assert_int_equal(rp_cnt_find(p, "rx_packets", -1, RP_CNT_KEY)->value, 16);
	assert_int_equal(rp_cnt_find(p, "pfc_tx", 3, RP_CNT_KEY)->value, 7);
	assert_int_equal(rp_cnt_find_at(p, RP_CNT_AT_QUEUE, 3, "packets", RP_CNT_KEY)->value, 5);
	assert_true(rp_cnt_find_at(p, RP_CNT_AT_QUEUE, 3, "packets", RP_CNT_KEY)->reset);
	assert_int_equal(rp_cnt_find_at(p, RP_CNT_AT_QUEUE, 3, "shared_wm_bytes", RP_CNT_GAUGE)->value, 4096);
	assert_int_equal(rp_cnt_find_at(p, RP_CNT_AT_PG, 3, "headroom_wm_bytes", RP_CNT_GAUGE)->value, 200);
	assert_int_equal(rp_cnt_find(p, "odd", -1, RP_CNT_RAW)->value, 9);
	assert_int_equal(rp_cnt_find(p, "prio3_queue", -1, RP_CNT_GAUGE)->value, 3);
	json_t *j = rp_cnt_json(&s, true, iv);
	char *again = json_dumps(j, JSON_COMPACT);
	assert_string_equal(again, line);
	free(again);
	json_decref(j);
	static const char *const bad[][2] = {
		{"[1]", "not a roceprobe.counters/1 line"},
		{"{\"schema\":\"roceprobe.result/1\"}", "not a roceprobe.counters/1 line"},
		{"{\"schema\":\"roceprobe.counters/1\",\"kind\":\"delta\",\"t_ns\":1,\"source\":\"x\",\"ports\":[]}",
		 "a \"delta\" without \"interval_ns\""},
		{"{\"schema\":\"roceprobe.counters/1\",\"kind\":\"snapshot\",\"t_ns\":1,\"source\":\"x\",\"ports\":"
		 "[{\"name\":\"e\",\"rx_packets\":-1}]}", "a port's counter is not a count"},
		{"{\"schema\":", "not JSON"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(rp_cnt_json_read(bad[i][0], strlen(bad[i][0]), &s, &delta, &iv, err, sizeof(err)), -1);
		assert_non_null(strstr(err, bad[i][1]));
	}
	rp_cnt_snap_free(&s);
}

/* A switch's SONiC counters folded without a Redis (sonic_fold.c): each
 * field lands where `counters sonic://` puts it. */
static void sonic_port_fold(void **state)
{
	(void)state;
	static struct rp_sonic_port sp;
	static struct rp_cnt_snap s;
	memset(&sp, 0, sizeof(sp));
	strcpy(sp.name, "Ethernet2");
	sp.in_ucast_pkts = 11;
	sp.out_ucast_pkts = 12;
	sp.in_octets = 1300;
	sp.pfc_tx[3] = 4;
	sp.queue[3] = (struct rp_sonic_queue){.packets = 12, .ecn_marked = 2, .wm_bytes = 777};
	sp.pg[3] = (struct rp_sonic_pg){.dropped_packets = 1, .xoff_room_wm_bytes = 55};
	struct rp_cnt_port *p = rp_cnt_add_port(&s, sp.name);
	rp_sonic_port_fold(&sp, p);
	assert_int_equal(rp_cnt_find(p, "rx_packets", -1, RP_CNT_KEY)->value, 11);
	assert_int_equal(rp_cnt_find(p, "tx_packets", -1, RP_CNT_KEY)->value, 12);
	assert_int_equal(rp_cnt_find(p, "rx_bytes", -1, RP_CNT_KEY)->value, 1300);
	assert_int_equal(rp_cnt_find(p, "pfc_tx", 3, RP_CNT_KEY)->value, 4);
	assert_int_equal(rp_cnt_find_at(p, RP_CNT_AT_QUEUE, 3, "ecn_marked", RP_CNT_KEY)->value, 2);
	assert_int_equal(rp_cnt_find_at(p, RP_CNT_AT_QUEUE, 3, "shared_wm_bytes", RP_CNT_GAUGE)->value, 777);
	assert_int_equal(rp_cnt_find_at(p, RP_CNT_AT_QUEUE, 3, "persistent_shared_wm_bytes", RP_CNT_GAUGE)->value, 777);
	assert_int_equal(rp_cnt_find_at(p, RP_CNT_AT_PG, 3, "drops", RP_CNT_KEY)->value, 1);
	assert_int_equal(rp_cnt_find_at(p, RP_CNT_AT_PG, 3, "headroom_wm_bytes", RP_CNT_GAUGE)->value, 55);
	size_t raw = 0;
	for (size_t k = 0; k < p->n; k++)
		raw += p->v[k].cls == RP_CNT_RAW;
	assert_int_equal(raw, 0); /* every field is the vocabulary's */
	rp_cnt_snap_free(&s);
}

/* sonic://HOST[:PORT]: the default port, IPv6 in brackets, and what is refused. */
/* switch --publish's URL (sonic_pub.h): redis://HOST[:PORT], 6379 by default,
 * [v6] in brackets; anything else one line naming what was given. */
static void publish_urls(void **state)
{
	(void)state;
	char host[64], err[256];
	int port = 0;
	assert_int_equal(rp_sonic_pub_url("redis://127.0.0.1:6400", host, sizeof(host), &port, err, sizeof(err)), 0);
	assert_string_equal(host, "127.0.0.1");
	assert_int_equal(port, 6400);
	assert_int_equal(rp_sonic_pub_url("redis://sw1.lab", host, sizeof(host), &port, err, sizeof(err)), 0);
	assert_string_equal(host, "sw1.lab");
	assert_int_equal(port, 6379);
	assert_int_equal(rp_sonic_pub_url("redis://[::1]:7000", host, sizeof(host), &port, err, sizeof(err)), 0);
	assert_string_equal(host, "::1");
	assert_int_equal(port, 7000);
	static const char *const bad[] = {"http://h:1", "redis://", "redis://:6379", "redis://h:0", "redis://h:65536",
					  "redis://h:12x", "redis://h/2", "redis://[::1", "redis://h:"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		assert_int_equal(rp_sonic_pub_url(bad[i], host, sizeof(host), &port, err, sizeof(err)), -1);
		assert_non_null(strstr(err, "expected redis://HOST[:PORT]"));
		assert_non_null(strstr(err, bad[i]));
	}
}

static void sonic_specs(void **state)
{
	(void)state;
	struct rp_cnt_source s;
	char err[512];
	assert_int_equal(rp_cnt_source_parse("sonic://10.0.0.1", &s, err, sizeof(err)), 0);
	assert_int_equal(s.kind, RP_CNT_SONIC);
	assert_string_equal(s.host, "10.0.0.1");
	assert_int_equal(s.tcp_port, 6379);
	assert_true(rp_cnt_source_is_switch(&s));
	assert_int_equal(rp_cnt_source_parse("sonic://sw1.lab:16379", &s, err, sizeof(err)), 0);
	assert_string_equal(s.host, "sw1.lab");
	assert_int_equal(s.tcp_port, 16379);
	assert_int_equal(rp_cnt_source_parse("sonic://[fd00::1]:6380", &s, err, sizeof(err)), 0);
	assert_string_equal(s.host, "fd00::1");
	assert_int_equal(s.tcp_port, 6380);
	const char *bad[] = {"sonic://", "sonic://h:0", "sonic://h:65536", "sonic://h:", "sonic://h:6379x",
			     "sonic://[fd00::1", "sonic://h/x", "sonic:h"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(rp_cnt_source_parse(bad[i], &s, err, sizeof(err)), -1);
	assert_int_equal(rp_cnt_source_parse("ethtool:eth0", &s, err, sizeof(err)), 0);
	assert_false(rp_cnt_source_is_switch(&s));
}

/* Counter32 wraps told from resets by the rate the wrap implies at line rate
 * (snap.h): a 100 Gbit/s port, 1 s apart. Frames: at most 1e11 / 672 =
 * 148,809,523 a second; octets 1e11 / 8 = 12,500,000,000. */
static void counter32_wraps(void **state)
{
	(void)state;
	static struct rp_cnt_snap a, b, d;
	struct rp_ctr ra[] = {{"pfc_wrap", RP_CTR_SAI, 4294967000u}, {"pfc_reset", RP_CTR_SAI, 1000000},
			      {"in_bytes", RP_CTR_SAI, 4000000000u}, {"drops64", RP_CTR_SAI, 50}};
	struct rp_ctr rb[] = {{"pfc_wrap", RP_CTR_SAI, 100}, {"pfc_reset", RP_CTR_SAI, 5},
			      {"in_bytes", RP_CTR_SAI, 1000000000u}, {"drops64", RP_CTR_SAI, 40}};
	struct rp_cnt_port *pa = rp_cnt_add_port(&a, "Ethernet0"), *pb = rp_cnt_add_port(&b, "Ethernet0");
	rp_cnt_port_fold(pa, ra, 4);
	rp_cnt_port_fold(pb, rb, 4);
	for (size_t i = 0; i < 3; i++)
		pa->v[i].bits = pb->v[i].bits = 32; /* drops64 stays 64-bit */
	pb->speed_bps = 100000000000u;
	a.mono_ns = 5000000000u;
	b.mono_ns = 6000000000u;
	rp_cnt_delta(&a, &b, &d);
	const struct rp_cnt_port *p = &d.port[0];
	/* 100 + 2^32 - 4294967000 = 396 frames in 1 s: a wrap */
	assert_false(rp_cnt_find(p, "pfc_wrap", -1, RP_CNT_RAW)->reset);
	assert_int_equal(rp_cnt_find(p, "pfc_wrap", -1, RP_CNT_RAW)->value, 396);
	/* 5 + 2^32 - 1000000 = 4,293,967,301 frames in 1 s > 148,809,523: a reset */
	assert_true(rp_cnt_find(p, "pfc_reset", -1, RP_CNT_RAW)->reset);
	assert_int_equal(rp_cnt_find(p, "pfc_reset", -1, RP_CNT_RAW)->value, 0);
	/* octets: 1e9 + 2^32 - 4e9 = 1,294,967,296 bytes <= 12.5e9: a wrap */
	assert_int_equal(rp_cnt_find(p, "in_bytes", -1, RP_CNT_RAW)->value, 1294967296u);
	assert_true(rp_cnt_find(p, "drops64", -1, RP_CNT_RAW)->reset); /* 64 bits never wrap */
	/* the same 396 over 2 us: at most 297 frames (148,809,523 * 2e-6), a reset */
	b.mono_ns = a.mono_ns + 2000;
	rp_cnt_delta(&a, &b, &d);
	assert_true(rp_cnt_find(&d.port[0], "pfc_wrap", -1, RP_CNT_RAW)->reset);
	/* no speed known: nothing to tell a wrap by, a reset */
	b.mono_ns = 6000000000u;
	pb->speed_bps = 0;
	rp_cnt_delta(&a, &b, &d);
	assert_true(rp_cnt_find(&d.port[0], "pfc_wrap", -1, RP_CNT_RAW)->reset);
	rp_cnt_snap_free(&a);
	rp_cnt_snap_free(&b);
	rp_cnt_snap_free(&d);
}

/* --credentials files (snmp.h): v2c, v3 with auth and priv, and what is
 * refused; a file others may read is a warning, not a refusal. */
static void snmp_credentials(void **state)
{
	(void)state;
	char path[] = "/tmp/rp-cred-XXXXXX", warn[600], err[600];
	struct rp_snmp_cred c;
	static const struct {
		const char *text;
		int ok;
	} cases[] = {
		{"# v2c\ncommunity s3cret\n", 2},
		{"user roce\nauth SHA-256 authpass123\npriv AES privpass123\n", 3},
		{"user roce\n", 3}, /* noAuthNoPriv */
		{"", 0},
		{"community a\nuser b\n", 0},		    /* one or the other */
		{"user roce\npriv AES privpass123\n", 0},	    /* priv without auth */
		{"user roce\nauth SHA short\n", 0},	    /* passphrases of 8 or more */
		{"community a\nauth SHA authpass123\n", 0}, /* auth is v3's */
		{"community a b\n", 0},
		{"password hunter2\n", 0},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int fd = mkstemp(path);
		assert_true(fd >= 0);
		assert_int_equal(write(fd, cases[i].text, strlen(cases[i].text)), (ssize_t)strlen(cases[i].text));
		close(fd);
		int rc = rp_snmp_cred_load(path, &c, warn, sizeof(warn), err, sizeof(err));
		assert_int_equal(rc, cases[i].ok ? 0 : -1);
		if (cases[i].ok)
			assert_int_equal(c.version, cases[i].ok);
		if (i == 0) {
			assert_string_equal(c.community, "s3cret");
			assert_string_equal(warn, ""); /* mkstemp's 0600 */
			chmod(path, 0644);
			assert_int_equal(rp_snmp_cred_load(path, &c, warn, sizeof(warn), err, sizeof(err)), 0);
			assert_non_null(strstr(warn, "may be read by others (mode 644): chmod 600"));
		}
		if (i == 1) {
			assert_int_equal(c.auth, RP_SNMP_AUTH_SHA256);
			assert_int_equal(c.priv, RP_SNMP_PRIV_AES);
			assert_string_equal(c.priv_pass, "privpass123");
			rp_snmp_cred_clear(&c);
			assert_string_equal(c.priv_pass, "");
		}
		unlink(path);
		strcpy(path, "/tmp/rp-cred-XXXXXX");
	}
	assert_int_equal(rp_snmp_cred_load("/nonexistent/cred", &c, warn, sizeof(warn), err, sizeof(err)), -1);
	assert_non_null(strstr(err, "/nonexistent/cred"));
}

/* exec:'s JSON paths (exec.h): members, [N], [FIELD=VALUE] on strings and
 * numbers, member[N]; what finds nothing is NULL. */
static void exec_paths(void **state)
{
	(void)state;
	json_t *r = json_loads("{\"a\":{\"b\":[{\"n\":\"x\",\"v\":1},{\"n\":\"y\",\"i\":7,\"v\":2}]},"
			       "\"l\":[10,20,30]}",
			       0, NULL);
	assert_non_null(r);
	assert_int_equal(json_integer_value(rp_exec_path(r, "a.b[1].v")), 2);
	assert_int_equal(json_integer_value(rp_exec_path(r, "a.b[n=x].v")), 1);
	assert_int_equal(json_integer_value(rp_exec_path(r, "a.b.[i=7].v")), 2);
	assert_int_equal(json_integer_value(rp_exec_path(r, "l[2]")), 30);
	assert_null(rp_exec_path(r, "a.b[n=z].v"));
	assert_null(rp_exec_path(r, "a.b[5]"));
	assert_null(rp_exec_path(r, "l.x"));
	assert_null(rp_exec_path(r, "a.c"));
	assert_null(rp_exec_path(r, "a.b[1"));
	json_decref(r);
}

static void bad_sources(void **state)
{
	(void)state;
	struct rp_cnt_source s;
	char err[512];
	assert_int_equal(rp_cnt_source_parse("ethtool", &s, err, sizeof(err)), -1);
	assert_int_equal(rp_cnt_source_parse("ethtool:", &s, err, sizeof(err)), -1);
	assert_int_equal(rp_cnt_source_parse("snmp:x", &s, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "ethtool-file:PATH"));
	assert_int_equal(rp_cnt_source_parse("ethtool-file:/nonexistent/x.txt", &s, err, sizeof(err)), 0);
	assert_int_equal(rp_cnt_read(&s, &snap, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "/nonexistent/x.txt"));
	assert_int_equal(rp_cnt_source_parse("rdma-dir:/nonexistent", &s, err, sizeof(err)), 0);
	assert_int_equal(rp_cnt_read(&s, &snap, err, sizeof(err)), -1);
}

static int teardown(void **state)
{
	(void)state;
	rp_cnt_snap_free(&snap);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(mlx5_core_dump, teardown),
		cmocka_unit_test_teardown(ice_dump, teardown),
		cmocka_unit_test_teardown(bnxt_en_dump, teardown),
		cmocka_unit_test_teardown(unknown_driver_passes_through, teardown),
		cmocka_unit_test_teardown(rxe_hw_counters_dir, teardown),
		cmocka_unit_test(ethtool_text_parser),
		cmocka_unit_test(deltas_and_json),
		cmocka_unit_test(queues_and_pgs),
		cmocka_unit_test(counters_json_read),
		cmocka_unit_test(sonic_port_fold),
		cmocka_unit_test(publish_urls),
		cmocka_unit_test(sonic_specs),
		cmocka_unit_test(counter32_wraps),
		cmocka_unit_test(snmp_credentials),
		cmocka_unit_test(exec_paths),
		cmocka_unit_test(dpdk_xstats),
		cmocka_unit_test(sampler_by_hand),
		cmocka_unit_test(sampler_all_ports),
		cmocka_unit_test(sampler_thread),
		cmocka_unit_test_teardown(bad_sources, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
