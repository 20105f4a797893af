/* libFuzzer harness: the merge buffer reader (lib/stats/acct_pack.h) must
 * survive any bytes, and so must a real buffer cut or corrupted anywhere:
 * the input is used as it is, and as edits to a valid buffer packed once
 * from a small accountant (first 4 bytes: the cut length; then pairs of a
 * 16-bit offset and a byte to xor there). */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "stats/acct.h"
#include "report/acct_merge.h"
#include "stats/acct_pack.h"
#include "wire/frame.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const struct rp_acct_flow_cfg flows[2] = {
	{.id = 0, .src = "a", .dst = "b", .l3 = 4, .src_ip4 = 0x0A000001u, .dst_ip4 = 0x0A000002u, .lqpn = 0x100,
	 .rqpn = 0x200, .qps = 1, .prio = 3, .dscp = 26},
	{.id = 1, .src = "a", .dst = "b", .l3 = 4, .src_ip4 = 0x0A000001u, .dst_ip4 = 0x0A000002u, .lqpn = 0x110,
	 .rqpn = 0x210, .qps = 1, .prio = 3, .dscp = 26},
};
static const struct rp_acct_port_cfg port = {.node = "b", .port = 0, .speed_bps = 100000000000ull};
static struct rp_acct *merged;
static uint8_t *valid, *work;
static size_t valid_len;
static struct rp_hist agg;

static struct rp_acct_cfg cfg(void)
{
	return (struct rp_acct_cfg){.flows = flows, .nflows = 2, .ports = &port, .nports = 1, .start_ns = 0,
				    .run_ns = 1000000, .latency = true, .flow_series = true};
}

static void init(void)
{
	char err[128];
	struct rp_acct_cfg c = cfg();
	struct rp_acct *a = rp_acct_create(&c, err, sizeof(err));
	c.results_only = true; /* rank 0's merge target */
	merged = rp_acct_create(&c, err, sizeof(err));
	if (!a || !merged)
		abort();
	uint8_t payload[64] = {0}, buf[256];
	for (uint64_t i = 0; i < 40; i++) {
		unsigned f = i % 2;
		struct rp_probe pr = {.flow_id = f, .seq = i / 2, .tx_ns = i * 20000};
		rp_probe_build(payload, sizeof(payload), &pr);
		struct rp_roce_spec s = {.l3 = 4, .udp_sport = 0xC000, .payload = payload, .payload_len = sizeof(payload)};
		s.ip4 = (struct rp_ipv4){.dscp = 26, .ecn = i % 5 ? RP_ECN_ECT0 : RP_ECN_CE, .ttl = 64,
					 .src = flows[f].src_ip4, .dst = flows[f].dst_ip4};
		s.bth = (struct rp_bth){.opcode = RP_OP_RC_WRITE_ONLY, .pkey = 0xFFFF, .dqpn = flows[f].rqpn,
					.psn = (uint32_t)(i / 2)};
		size_t n = rp_roce_build(buf, sizeof(buf), &s, NULL);
		rp_acct_rx(a, 0, i * 20000 + 1000 + i * 300, buf, n, n, NULL);
	}
	uint16_t q[8] = {0};
	q[3] = 500;
	size_t n = rp_pfc_frame_build(buf, sizeof(buf), (const uint8_t[6]){2, 0, 0, 0, 0, 9}, 0x08, q);
	rp_acct_rx(a, 0, 300000, buf, n, n, NULL);
	rp_acct_finish(a, 1000000, NULL);
	valid_len = rp_acct_pack(rp_acct_result(a), NULL, NULL, NULL, 0);
	valid = malloc(valid_len);
	work = malloc(valid_len);
	if (!valid || !work || rp_acct_pack(rp_acct_result(a), NULL, NULL, valid, valid_len) != valid_len)
		abort();
	rp_acct_destroy(a);
}

static void both(const uint8_t *buf, size_t len)
{
	char err[160];
	rp_hist_init(&agg);
	int r1 = rp_acct_unpack_rows(buf, len, NULL, NULL, &agg, err, sizeof(err));
	int r2 = rp_acct_unpack_into(rp_acct_merged(merged), buf, len, err, sizeof(err));
	if (r1 != 0 && (strlen(err) == 0 || r2 == 0)) /* a reason, and the same verdict */
		__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!merged)
		init();
	both(data, size);
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
	both(exact, len);
	free(exact);
	return 0;
}
