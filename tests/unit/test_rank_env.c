/* A rank's facts as a binary record (report/rank_env.h) and the pieces of
 * result.json written from them (report/env_json.h): a record packed from a
 * struct holding every kind of field unpacks to the same struct (and packs
 * again to the same bytes); truncated, garbled, overlong and other-version
 * records are refused with a reason; the JSON names the documented keys in
 * the documented order, with the values put in on purpose. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "report/env_json.h"
#include "report/rank_env.h"
#include "report/rank_nics.h"
#include "stats/hist.h"

static struct rp_env_count xstats[2] = {{"rx_pause", 7}, {"tx_pause", 0}};
static struct rp_env_hop hops[1] = {{"10.0.0.254", "02:00:00:00:00:fe", "02:00:00:00:00:fd", 1, 123456789, 4}};
static struct rp_env_unsent unsent[2] = {{3, 5}, {9, 1}};
static char *findings[1] = {"port s1: a finding"};
static struct rp_env_capture captures[1] = {{"s1", "capture-s1.pcap", 100, 99, 1, 0, 1}};
static struct rp_env_lcore lcores[2] = {{0, 1, 0, 10, 20, 1000, 250}, {1, 2, -1, 0, 0, 0, 0}};
static char *hostnames[2] = {"s1", "s2"};
static struct rp_env_count delta[1] = {{"rdma_tx_pkts", 42}};
static struct rp_env_count raw[2] = {{"hw:a", 1}, {"hw:b", 2}};
static struct rp_hist lat;
/* counters.nics[]: s1's veth over two samples (the start: every count 0;
 * then what moved), s2 with no netdev */
static struct rp_cnt_val v0[2] = {{.name = "rx_packets", .prio = -1, .cls = RP_CNT_KEY},
				  {.name = "pfc_rx", .prio = 3, .cls = RP_CNT_KEY}};
static struct rp_cnt_val v1[3] = {{.name = "rx_packets", .prio = -1, .cls = RP_CNT_KEY, .value = 400},
				  {.name = "odd", .prio = -1, .cls = RP_CNT_RAW, .reset = true},
				  {.name = "peer_ifindex", .prio = -1, .cls = RP_CNT_GAUGE, .value = 9}};
static struct rp_cnt_sample samples[2] = {{.t_ns = 1000, .port = {.name = "v0", .driver = "veth", .n = 2, .cap = 2, .v = v0}},
					  {.t_ns = 101000, .port = {.name = "v0", .driver = "veth", .n = 3, .cap = 3, .v = v1}}};
static struct rp_cnt_series nics[2] = {
	{"s1", "sysfs:v0", "", 100000, 2, 2, samples},
	{"s2", "", "port net_null0 has no Linux netdev", 100000, 0, 0, NULL},
};

static struct rp_env_port port(void)
{
	return (struct rp_env_port){.node = "s1", .devargs = "net_af_packet0,iface=v0", .driver = "net_af_packet",
				    .link_bps = 10000000000ull, .pmd_link_bps = 10000000000ull, .tx_packets = 1000,
				    .tx_bytes = 1100000, .tx_unsent = 6, .impair_dropped = 2, .impair_marked = 3,
				    .replies_sent = 4, .pmd_oerrors = 0, .nxstats = 2, .xstats = xstats,
				    .neigh = {.c = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 1000000000}, .nhops = 1, .hops = hops},
				    .has_netdev = true, .netdev = "v0", .netdev_tx_packets = 1002,
				    .netdev_tx_dropped = 0, .netdev_tx_errors = 0, .too_big_frames = 2, .too_big_mtu = 1400,
				    .nunsent = 2, .unsent = unsent, .nfindings = 1, .findings = findings,
				    .rx_clock = "nic", .rx_stamped = 990, .rx_unstamped = 10, .rx_clock_bound_ns = 35,
				    .shared = true, .pause_steered = false, .xdp_program = true, .tx_lead_ns = 100000,
				    .tx_nic_late = true};
}

static struct rp_env_port ports[1];
static struct rp_env_vhost vhosts[1];
static struct rp_env_vqp vqps[2];
static struct rp_env_verbs verbs;

static struct rp_rank_env sample(void)
{
	ports[0] = port();
	rp_hist_init(&lat);
	rp_hist_record(&lat, 1000);
	rp_hist_record(&lat, 5000);
	rp_hist_record(&lat, 5000);
	vhosts[0] = (struct rp_env_vhost){"v1", "rxe0", "rxe", "fe80::1", "eth0", 1, 3, 999, 1, 2, delta, raw};
	vqps[0] = (struct rp_env_vqp){.flow = 7, .src_qpn = 17, .dst_qpn = 18, .qp = 0, .src = "v1", .dst = "v2",
				      .send = true, .v = {10, 9, 10240}, .lat = &lat};
	vqps[1] = (struct rp_env_vqp){.flow = 7, .src_qpn = 17, .dst_qpn = 18, .qp = 0, .src = "v1", .dst = "v2",
				      .send = false, .v = {9, 9216, 0}, .lat = NULL};
	verbs = (struct rp_env_verbs){1, 2, vhosts, vqps};
	return (struct rp_rank_env){.present = true, .rank = 3, .node = "node-a", .nhosts = 2, .hosts = hostnames,
				    .clock_offset_ns = -5000123, .clock_bound_ns = 40000, .start_skew_ns = 77,
				    .clock_source = "ntp", .pclock_gap = {-300, 250}, .flows_accounted = 2,
				    .flows_held = 5, .nports = 1, .ports = ports, .ncaptures = 1, .captures = captures,
				    .nlcores = 2, .lcores = lcores, .verbs = &verbs, .nnics = 2, .nics = nics};
}

static uint8_t *packed(const struct rp_rank_env *e, size_t *len)
{
	*len = rp_rank_env_pack(e, NULL, 0);
	uint8_t *b = malloc(*len);
	assert_non_null(b);
	assert_int_equal(rp_rank_env_pack(e, b, *len), *len);
	return b;
}

static void round_trip(void **state)
{
	(void)state;
	struct rp_rank_env in = sample(), out;
	size_t len, len2;
	uint8_t *b = packed(&in, &len);
	char err[256] = "";
	assert_int_equal(rp_rank_env_unpack(&out, b, len, err, sizeof(err)), 0);
	assert_true(out.present);
	assert_int_equal(out.rank, 3);
	assert_string_equal(out.node, "node-a");
	assert_int_equal(out.nhosts, 2);
	assert_string_equal(out.hosts[1], "s2");
	assert_int_equal(out.clock_offset_ns, -5000123);
	assert_int_equal(out.pclock_gap[0], -300);
	assert_int_equal(out.flows_held, 5);
	assert_int_equal(out.nports, 1);
	const struct rp_env_port *p = &out.ports[0];
	assert_string_equal(p->devargs, "net_af_packet0,iface=v0");
	assert_int_equal(p->tx_unsent, 6);
	assert_int_equal(p->nxstats, 2);
	assert_string_equal(p->xstats[0].name, "rx_pause");
	assert_int_equal(p->xstats[0].value, 7);
	assert_int_equal(p->neigh.c[11], 1000000000);
	assert_string_equal(p->neigh.hops[0].resolved_mac, "02:00:00:00:00:fd");
	assert_true(p->has_netdev);
	assert_int_equal(p->too_big_mtu, 1400);
	assert_int_equal(p->unsent[1].flow, 9);
	assert_string_equal(p->findings[0], "port s1: a finding");
	assert_string_equal(p->rx_clock, "nic");
	assert_int_equal(p->rx_stamped, 990);
	assert_int_equal(p->rx_unstamped, 10);
	assert_int_equal(p->rx_clock_bound_ns, 35);
	assert_true(p->shared);
	assert_false(p->pause_steered);
	assert_true(p->xdp_program);
	assert_int_equal(p->tx_lead_ns, 100000);
	assert_true(p->tx_nic_late);
	assert_string_equal(out.captures[0].path, "capture-s1.pcap");
	assert_int_equal(out.lcores[1].socket, -1);
	assert_non_null(out.verbs);
	assert_int_equal(out.verbs->nqps, 2);
	assert_int_equal(out.verbs->qps[0].lat->count, 3);
	assert_int_equal(out.verbs->qps[0].lat->max, 5000);
	assert_int_equal(out.verbs->qps[1].lat->count, 0); /* NULL went as an empty histogram */
	assert_string_equal(out.verbs->hosts[0].raw[1].name, "hw:b");
	assert_int_equal(out.nnics, 2);
	assert_int_equal(out.nics[0].n, 2);
	assert_int_equal(out.nics[0].s[1].t_ns, 101000);
	assert_int_equal(out.nics[0].s[1].port.v[2].cls, RP_CNT_GAUGE);
	assert_true(out.nics[0].s[1].port.v[1].reset);
	assert_int_equal(out.nics[0].s[0].port.v[1].prio, 3);
	assert_string_equal(out.nics[1].reason, "port net_null0 has no Linux netdev");
	/* The same bytes again: nothing lost or added on the way. */
	uint8_t *b2 = packed(&out, &len2);
	assert_int_equal(len2, len);
	assert_memory_equal(b, b2, len);
	rp_rank_env_free(&out);
	assert_null(out.node);
	free(b);
	free(b2);
}

/* Every cut of a valid record, and the record with a byte too many, is
 * refused with a reason; the struct is left empty. */
static void truncated(void **state)
{
	(void)state;
	struct rp_rank_env in = sample(), out;
	size_t len;
	uint8_t *b = packed(&in, &len), *more = malloc(len + 1);
	char err[256];
	for (size_t cut = 0; cut < len; cut++) {
		err[0] = '\0';
		assert_int_equal(rp_rank_env_unpack(&out, b, cut, err, sizeof(err)), -1);
		assert_true(err[0] != '\0');
		assert_false(out.present);
		assert_null(out.ports);
	}
	memcpy(more, b, len);
	more[len] = 0;
	assert_int_equal(rp_rank_env_unpack(&out, more, len + 1, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "says"));
	free(b);
	free(more);
}

static void version_and_garbage(void **state)
{
	(void)state;
	struct rp_rank_env in = sample(), out;
	size_t len;
	uint8_t *b = packed(&in, &len);
	char err[256];
	b[4] = RP_RANK_ENV_VERSION + 1; /* u16 version after "RPEV" */
	assert_int_equal(rp_rank_env_unpack(&out, b, len, err, sizeof(err)), -1);
	assert_string_equal(err, "rank record version 5, this build reads 4");
	b[4] = RP_RANK_ENV_VERSION;
	b[0] = '{'; /* JSON text is no record */
	assert_int_equal(rp_rank_env_unpack(&out, b, len, err, sizeof(err)), -1);
	assert_string_equal(err, "not a rank record (no RPEV magic)");
	b[0] = 'R';
	/* The node's length (at 18: header 14, rank 4) made huge: refused before any allocation. */
	b[18] = 0xff, b[19] = 0xff, b[20] = 0xff, b[21] = 0x7f;
	assert_int_equal(rp_rank_env_unpack(&out, b, len, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "a string of 2147483647 bytes"));
	/* A count of ports no record could hold. */
	uint8_t tiny[14 + 4 + 4 + 4 + 24 + 4 + 16 + 16 + 4];
	memset(tiny, 0, sizeof(tiny));
	memcpy(tiny, "RPEV", 4);
	tiny[4] = RP_RANK_ENV_VERSION;
	tiny[6] = sizeof(tiny);
	memset(tiny + sizeof(tiny) - 4, 0xff, 4); /* nports */
	assert_int_equal(rp_rank_env_unpack(&out, tiny, sizeof(tiny), err, sizeof(err)), -1);
	assert_non_null(strstr(err, "4294967295 records cannot fit"));
	assert_int_equal(rp_rank_env_unpack(&out, (const uint8_t *)"", 0, err, sizeof(err)), -1);
	free(b);
}

static char *dump(json_t *j)
{
	char *s = json_dumps(j, JSON_COMPACT);
	json_decref(j);
	assert_non_null(s);
	return s;
}

/* The keys and their order are result.json's (docs/results.md), as main's
 * JSON text had them; the values the ones put in. */
static void port_json(void **state)
{
	(void)state;
	struct rp_env_port p = port();
	char *s = dump(rp_env_port_json(&p));
	assert_string_equal(
		s, "{\"node\":\"s1\",\"devargs\":\"net_af_packet0,iface=v0\",\"driver\":\"net_af_packet\",\"link_bps\":"
		   "10000000000,\"pmd_link_bps\":10000000000,\"tx_packets\":1000,\"tx_bytes\":1100000,\"tx_unsent\":6,"
		   "\"impair_dropped\":2,\"impair_marked\":3,\"replies_sent\":4,\"pause_xstats\":{\"rx_pause\":7,"
		   "\"tx_pause\":0},\"neigh\":{\"arp_requests_rx\":1,\"arp_replies_tx\":2,\"arp_replies_rx\":3,"
		   "\"arp_requests_tx\":4,\"nd_solicits_rx\":5,\"nd_adverts_tx\":6,\"nd_adverts_rx\":7,"
		   "\"nd_solicits_tx\":8,\"unsent\":9,\"refresh_tx\":10,\"mac_changes\":11,\"refresh_ns\":1000000000,"
		   "\"next_hops\":[{\"address\":\"10.0.0.254\",\"mac\":\"02:00:00:00:00:fe\",\"resolved_mac\":"
		   "\"02:00:00:00:00:fd\",\"mac_changes\":1,\"last_change_ns\":123456789,\"answers\":4}]},"
		   "\"pmd_oerrors\":0,\"netdev\":{\"name\":\"v0\",\"tx_packets\":1002,\"tx_dropped\":0,\"tx_errors\":0},"
		   "\"icmp_too_big\":{\"frames\":2,\"mtu\":1400},\"flows_unsent\":{\"3\":5,\"9\":1},\"findings\":"
		   "[\"port s1: a finding\"],\"xstats\":{\"name\":\"net_af_packet0,iface=v0\",\"driver\":"
		   "\"net_af_packet\",\"prio\":[],\"raw\":{\"rx_pause\":7,\"tx_pause\":0},\"gauges\":{}},"
		   "\"rx_clock\":{\"clock\":\"nic\",\"stamped\":990,\"unstamped\":10,\"bound_ns\":35},"
		   "\"shared\":{\"isolated\":true,\"pause_steered\":false,\"xdp_program\":true},"
		   "\"tx_start\":{\"clock\":\"nic\",\"lead_ns\":100000,\"late\":true}}");
	free(s);
	p.has_netdev = false;
	s = dump(rp_env_port_json(&p));
	assert_non_null(strstr(s, "\"netdev\":null,"));
	free(s);
}

/* Rank 1 died (not present): left out of ports, captures, findings and
 * verbs; the verbs hosts carry their rank's index; a QP's two halves join. */
static void ranks_json(void **state)
{
	(void)state;
	struct rp_rank_env e[3] = {sample(), {0}, sample()};
	e[2].rank = 2;
	e[2].verbs = NULL;
	char *s = dump(rp_env_rank_json(&e[0]));
	assert_string_equal(s, "{\"rank\":3,\"node\":\"node-a\",\"hosts\":[\"s1\",\"s2\"],\"clock_offset_ns\":-5000123,"
			       "\"clock_bound_ns\":40000,\"start_skew_ns\":77,\"clock_source\":\"ntp\",\"lcores\":"
			       "[{\"lcore\":0,\"lcore_id\":1,\"socket\":0,\"rx_packets\":10,\"tx_packets\":20,\"polls\":"
			       "1000,\"busy_polls\":250,\"busy_share\":0.25},{\"lcore\":1,\"lcore_id\":2,\"socket\":-1,"
			       "\"rx_packets\":0,\"tx_packets\":0,\"polls\":0,\"busy_polls\":0,\"busy_share\":0.0}],"
			       "\"packet_clock_gap_ns\":[-300,250],\"flows_accounted\":2,\"flows_held\":5}");
	free(s);
	json_t *pj = rp_env_ports_json(e, 3), *cj = rp_env_captures_json(e, 3), *fj = rp_env_findings_json(e, 3);
	assert_int_equal(json_array_size(pj), 2);
	assert_int_equal(json_array_size(cj), 2);
	assert_int_equal(json_array_size(fj), 2);
	json_decref(pj), json_decref(cj), json_decref(fj);
	e[2].verbs = &verbs;
	json_t *v = rp_env_verbs_json(e, 3);
	json_t *hosts = json_object_get(v, "hosts"), *qps = json_object_get(v, "qps");
	assert_int_equal(json_array_size(hosts), 2);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(hosts, 1), "rank")), 2);
	assert_int_equal(json_array_size(qps), 1); /* flow 7 QP 0: both halves (and both ranks') in one row */
	json_t *q = json_array_get(qps, 0);
	assert_int_equal(json_integer_value(json_object_get(q, "tx_messages")), 10);
	assert_int_equal(json_integer_value(json_object_get(q, "rx_bytes")), 9216);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(q, "completion_ns"), "count")), 3);
	json_decref(v);
	/* flows[].tx_unsent: flow 3's 5 and flow 9's 1 from each of two ranks; ids past nflows left out. */
	uint64_t *by = rp_rank_env_unsent_by_flow(e, 3, 9);
	assert_non_null(by);
	assert_int_equal(by[3], 10);
	assert_int_equal(by[8], 0);
	free(by);
}

/* counters: {"nics": [...]}, the keys docs/results.md names, in order */
static void nics_json(void **state)
{
	(void)state;
	struct rp_rank_env e[2] = {sample(), {0}}; /* rank 1 died: left out */
	char *s = dump(rp_env_counters_json(e, 2));
	assert_string_equal(
		s, "{\"nics\":[{\"host\":\"s1\",\"source\":\"sysfs:v0\",\"interval_ns\":100000,\"port\":\"v0\","
		   "\"driver\":\"veth\",\"samples\":[{\"t_ns\":1000,\"rx_packets\":0,\"prio\":[{\"prio\":3,\"pfc_rx\":0}],"
		   "\"raw\":{},\"gauges\":{},\"resets\":[]},{\"t_ns\":101000,\"rx_packets\":400,\"prio\":[],"
		   "\"raw\":{\"odd\":0},\"gauges\":{\"peer_ifindex\":9},\"resets\":[\"odd\"]}]},{\"host\":\"s2\","
		   "\"source\":null,\"reason\":\"port net_null0 has no Linux netdev\",\"interval_ns\":100000,"
		   "\"port\":null,\"driver\":null,\"samples\":[]}]}");
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(round_trip), cmocka_unit_test(truncated), cmocka_unit_test(version_and_garbage),
		cmocka_unit_test(port_json),  cmocka_unit_test(ranks_json), cmocka_unit_test(nics_json),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
