/* libFuzzer harness: a rank's facts record reader (lib/report/rank_env.h)
 * must survive any bytes, and so must a real record cut or corrupted
 * anywhere: the input is used as it is, and as edits to a valid record
 * packed once from a struct with every kind of field (first 4 bytes: the
 * cut length; then pairs of a 16-bit offset and a byte to xor there). A
 * record it accepts packs again to the same bytes, and rank 0's writers
 * (lib/report/env_json.h, rank_nics.h) take what it unpacked. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "report/env_json.h"
#include "report/rank_env.h"
#include "report/rank_nics.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint8_t *valid, *work;
static size_t valid_len;

static void init(void)
{
	static struct rp_env_count xs[1] = {{"rx_pause", 3}}, ctr[1] = {{"rdma_tx_pkts", 42}};
	static struct rp_env_hop hop = {"10.0.0.254", "02:00:00:00:00:fe", "02:00:00:00:00:fe", 0, 0, 2};
	static struct rp_env_unsent un[1] = {{1, 4}};
	static char *finding = "port a: a finding", *hosts[1] = {"a"};
	static struct rp_env_port port = {.node = "a", .devargs = "net_ring0", .driver = "net_ring", .tx_packets = 10,
					  .nxstats = 1, .xstats = xs, .neigh = {.nhops = 1, .hops = &hop},
					  .has_netdev = true, .netdev = "v0", .nunsent = 1, .unsent = un, .nfindings = 1,
					  .findings = &finding};
	static struct rp_env_capture cap = {"a", "capture-a.pcap", 10, 10, 0, 0, 1};
	static struct rp_env_lcore lc = {0, 1, 0, 5, 10, 100, 7};
	static struct rp_env_vhost vh = {"a", "rxe0", "rxe", "fe80::1", "eth0", 1, 1, 10, 1, 1, ctr, ctr};
	static struct rp_hist h;
	rp_hist_init(&h);
	rp_hist_record(&h, 300);
	rp_hist_record(&h, 70000);
	static struct rp_env_vqp qp = {.flow = 1, .src_qpn = 17, .dst_qpn = 18, .src = "a", .dst = "b", .send = true,
				       .v = {2, 2, 2048}, .lat = &h};
	static struct rp_env_verbs v = {1, 1, &vh, &qp};
	static struct rp_cnt_val cv[2] = {
		{.name = "rx_packets", .prio = -1, .cls = RP_CNT_KEY, .value = 5},
		{.name = "pfc_rx", .prio = 3, .cls = RP_CNT_KEY, .reset = true},
	};
	static struct rp_cnt_sample smp[1] = {{.t_ns = 100, .port = {.name = "v0", .driver = "veth", .n = 2, .cap = 2, .v = cv}}};
	static struct rp_cnt_series nics[2] = {{"a", "sysfs:v0", "", 100, 1, 1, smp}, {"b", "", "no netdev", 100, 0, 0, NULL}};
	struct rp_rank_env e = {.present = true, .rank = 1, .node = "n1", .nhosts = 1, .hosts = hosts,
				.clock_source = "none", .nports = 1, .ports = &port, .ncaptures = 1, .captures = &cap,
				.nlcores = 1, .lcores = &lc, .verbs = &v, .nnics = 2, .nics = nics};
	valid_len = rp_rank_env_pack(&e, NULL, 0);
	valid = malloc(valid_len);
	work = malloc(valid_len);
	if (!valid || !work || rp_rank_env_pack(&e, valid, valid_len) != valid_len)
		abort();
}

static void one(const uint8_t *buf, size_t len)
{
	char err[160] = "";
	struct rp_rank_env e;
	if (rp_rank_env_unpack(&e, buf, len, err, sizeof(err)) != 0) {
		if (!err[0] || e.present || e.ports || e.node) /* a reason, and nothing left behind */
			__builtin_trap();
		return;
	}
	size_t n = rp_rank_env_pack(&e, NULL, 0);
	uint8_t *again = malloc(n);
	if (!again || n != len || rp_rank_env_pack(&e, again, n) != n || memcmp(again, buf, n) != 0)
		__builtin_trap();
	free(again);
	json_t *j[] = {rp_env_ports_json(&e, 1), rp_env_captures_json(&e, 1), rp_env_rank_json(&e),
		       rp_env_verbs_json(&e, 1), rp_env_findings_json(&e, 1), rp_env_counters_json(&e, 1)};
	for (size_t i = 0; i < sizeof(j) / sizeof(j[0]); i++)
		json_decref(j[i]);
	rp_rank_env_free(&e);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!valid)
		init();
	one(data, size);
	if (size < 4)
		return 0;
	uint32_t cut = (uint32_t)data[0] | (uint32_t)data[1] << 8 | (uint32_t)data[2] << 16 | (uint32_t)data[3] << 24;
	size_t len = cut % (valid_len + 1);
	memcpy(work, valid, valid_len);
	for (size_t i = 4; i + 3 <= size; i += 3) {
		size_t off = ((size_t)data[i] | (size_t)data[i + 1] << 8) % valid_len;
		work[off] ^= data[i + 2];
	}
	/* a heap copy of exactly len bytes, so ASan sees any read past it */
	uint8_t *exact = malloc(len ? len : 1);
	memcpy(exact, work, len);
	one(exact, len);
	free(exact);
	return 0;
}
