/* Known-answer frames built by scapy (tests/data/vectors.txt, written by
 * tests/interop/gen_vectors.py): rp_frame_parse must read exactly the fields
 * scapy was told to write, rp_roce_build / rp_pfc_frame_build /
 * rp_pause_frame_build must write scapy's bytes, and the ICRC must catch any
 * single-bit error outside the fields it masks.
 *
 * Padding: scapy pads MAC control frames to 60 bytes but not IP frames, so a
 * RoCE vector may be shorter than 60 bytes (a zero-byte SEND is 58). The
 * builder pads to 60: its first N bytes must be scapy's N and the rest zero.
 * The parser must give the same fields for the short frame and for the
 * zero-padded one (the ICRC sits where the UDP length says, not at the end).
 *
 * Every mismatch is printed (vector, field, want, got) before the test fails,
 * so one run shows every disagreement. */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "check.h"

#include "wire/frame.h"
#include "wire/wire_err.h"

#include "vectors.h"

static bool vec_is_roce(const struct rp_vec *v)
{
	const char *k = kv_find(v, "kind");
	return k && (strcmp(k, "roce") == 0 || strcmp(k, "cnp") == 0);
}

static unsigned ext_bits(const char *list)
{
	static const struct {
		const char *name;
		unsigned bit;
	} names[] = {
		{"deth", RP_EXT_DETH}, {"reth", RP_EXT_RETH}, {"atomic", RP_EXT_ATOMIC_ETH},
		{"aeth", RP_EXT_AETH}, {"atomic_ack", RP_EXT_ATOMIC_ACK}, {"imm", RP_EXT_IMM},
		{"ieth", RP_EXT_IETH}, {"cnp_pad", RP_EXT_CNP_PAD},
	};
	char buf[160];
	unsigned bits = 0;
	snprintf(buf, sizeof(buf), "%s", list);
	for (char *save, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		bool known = strcmp(t, "none") == 0;
		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
			if (strcmp(t, names[i].name) == 0) {
				bits |= names[i].bit;
				known = true;
			}
		}
		if (!known)
			return ~0u;
	}
	return bits;
}

/* ---- what the parser found, by key ---------------------------------------- */

typedef uint64_t (*rp_getter)(const struct rp_frame *f);

#define GETTER(key, expr) \
	static uint64_t get_##key(const struct rp_frame *f) { return (uint64_t)(expr); }

GETTER(vlan, f->eth.has_vlan)
GETTER(pcp, f->eth.pcp)
GETTER(dei, f->eth.dei)
GETTER(vid, f->eth.vid)
GETTER(l3, f->l3)
GETTER(dscp, f->l3 == 4 ? f->ip4.dscp : f->ip6.dscp)
GETTER(ecn, f->l3 == 4 ? f->ip4.ecn : f->ip6.ecn)
GETTER(ttl, f->ip4.ttl)
GETTER(ip_id, f->ip4.id)
GETTER(df, f->ip4.df)
GETTER(hop_limit, f->ip6.hop_limit)
GETTER(flow_label, f->ip6.flow_label)
GETTER(udp_sport, f->udp.sport)
GETTER(udp_dport, f->udp.dport)
GETTER(udp_csum, f->udp.checksum)
GETTER(opcode, f->bth.opcode)
GETTER(se, f->bth.se)
GETTER(m, f->bth.m)
GETTER(pad, f->bth.pad)
GETTER(tver, f->bth.tver)
GETTER(pkey, f->bth.pkey)
GETTER(fecn, f->bth.fecn)
GETTER(becn, f->bth.becn)
GETTER(dqpn, f->bth.dqpn)
GETTER(ack_req, f->bth.ack_req)
GETTER(psn, f->bth.psn)
GETTER(reth_va, f->reth.va)
GETTER(reth_rkey, f->reth.rkey)
GETTER(reth_len, f->reth.dma_len)
GETTER(aeth_syndrome, f->aeth.syndrome)
GETTER(aeth_msn, f->aeth.msn)
GETTER(imm, f->imm)
GETTER(ieth, f->ieth)
GETTER(deth_qkey, f->deth.qkey)
GETTER(deth_src_qp, f->deth.src_qp)
GETTER(atomic_va, f->atomic.va)
GETTER(atomic_rkey, f->atomic.rkey)
GETTER(atomic_swap_add, f->atomic.swap_add)
GETTER(atomic_compare, f->atomic.compare)
GETTER(atomic_ack, f->atomic_ack)
GETTER(payload_off, f->payload_off)
GETTER(payload_len, f->payload_len)
GETTER(probe, f->has_probe)
GETTER(probe_flow, f->probe.flow_id)
GETTER(probe_seq, f->probe.seq)
GETTER(probe_ts, f->probe.tx_ns)
GETTER(enable, f->macctl.enable)

static const struct {
	const char *key;
	rp_getter get;
} numeric_keys[] = {
#define K(key) {#key, get_##key}
	K(vlan), K(pcp), K(dei), K(vid), K(l3), K(dscp), K(ecn), K(ttl), K(ip_id), K(df),
	K(hop_limit), K(flow_label), K(udp_sport), K(udp_dport), K(udp_csum), K(opcode), K(se),
	K(m), K(pad), K(tver), K(pkey), K(fecn), K(becn), K(dqpn), K(ack_req), K(psn),
	K(reth_va), K(reth_rkey), K(reth_len), K(aeth_syndrome), K(aeth_msn), K(imm), K(ieth),
	K(deth_qkey), K(deth_src_qp), K(atomic_va), K(atomic_rkey), K(atomic_swap_add),
	K(atomic_compare), K(atomic_ack), K(payload_off), K(payload_len), K(probe),
	K(probe_flow), K(probe_seq), K(probe_ts), K(enable),
#undef K
};

static int report(const struct rp_vec *v, const char *what, const char *want, const char *got)
{
	print_error("%s: %s: want %s, got %s\n", v->name, what, want, got);
	return 1;
}

static int check_u64(const struct rp_vec *v, const char *what, uint64_t want, uint64_t got)
{
	char w[24], g[24];
	if (want == got)
		return 0;
	snprintf(w, sizeof(w), "0x%" PRIx64, want);
	snprintf(g, sizeof(g), "0x%" PRIx64, got);
	return report(v, what, w, g);
}

static int check_mac(const struct rp_vec *v, const char *key, const char *want, const uint8_t mac[6])
{
	char got[18];
	rp_mac_format(mac, got);
	return strcmp(want, got) == 0 ? 0 : report(v, key, want, got);
}

static int check_addr(const struct rp_vec *v, const char *key, const char *want, const struct rp_frame *f)
{
	bool is_src = strcmp(key, "src") == 0;
	if (f->l3 == 4) {
		uint32_t a = 0;
		if (rp_ipv4_addr_parse(want, &a) != RP_WIRE_OK)
			return report(v, key, want, "(unparsable vector address)");
		return check_u64(v, key, a, is_src ? f->ip4.src : f->ip4.dst);
	}
	uint8_t a[16];
	char got[46];
	if (rp_ipv6_addr_parse(want, a) != RP_WIRE_OK)
		return report(v, key, want, "(unparsable vector address)");
	rp_ipv6_addr_format(is_src ? f->ip6.src : f->ip6.dst, got);
	return memcmp(a, is_src ? f->ip6.src : f->ip6.dst, 16) == 0 ? 0 : report(v, key, want, got);
}

/* "q0,q1,...,q7" into quanta; returns how many values there were. */
static int parse_quanta(const char *s, uint16_t quanta[RP_PFC_PRIOS])
{
	char buf[160];
	int n = 0;
	snprintf(buf, sizeof(buf), "%s", s);
	for (char *save, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save), n++)
		if (n < RP_PFC_PRIOS)
			quanta[n] = (uint16_t)strtoul(t, NULL, 0);
	return n;
}

static int check_quanta(const struct rp_vec *v, const char *want, const struct rp_frame *f)
{
	uint16_t quanta[RP_PFC_PRIOS] = {0};
	int n = parse_quanta(want, quanta), bad = 0;
	if (n != 1 && n != RP_PFC_PRIOS)
		return report(v, "quanta", want, "(not 1 or 8 values in the vector)");
	for (int p = 0; p < RP_PFC_PRIOS; p++) {
		char what[24];
		snprintf(what, sizeof(what), "quanta[%d]", p);
		bad += check_u64(v, what, quanta[p], f->macctl.quanta[p]);
	}
	return bad;
}

static int check_icrc(const struct rp_vec *v, const char *want, const struct rp_frame *f)
{
	char got[9];
	int bad = 0;
	for (int i = 0; i < RP_ICRC_LEN; i++)
		snprintf(got + 2 * i, 3, "%02x", f->icrc_wire[i]);
	if (strcmp(want, got) != 0)
		bad += report(v, "icrc", want, got);
	if (!f->icrc_checked || !f->icrc_ok)
		bad += report(v, "icrc_ok", "checked and ok", f->icrc_checked ? "bad" : "not checked");
	return bad;
}

static int check_string_key(const struct rp_vec *v, const struct rp_kv *kv, const struct rp_frame *f)
{
	if (strcmp(kv->key, "kind") == 0)
		return strcmp(kv->val, rp_frame_kind_name(f->kind)) == 0
			       ? 0
			       : report(v, "kind", kv->val, f->kind == RP_KIND_MALFORMED ? f->error
											: rp_frame_kind_name(f->kind));
	if (strcmp(kv->key, "eth_dst") == 0)
		return check_mac(v, kv->key, kv->val, f->eth.dst);
	if (strcmp(kv->key, "eth_src") == 0)
		return check_mac(v, kv->key, kv->val, f->eth.src);
	if (strcmp(kv->key, "src") == 0 || strcmp(kv->key, "dst") == 0)
		return check_addr(v, kv->key, kv->val, f);
	if (strcmp(kv->key, "ext") == 0)
		return check_u64(v, "ext bits", ext_bits(kv->val), f->ext);
	if (strcmp(kv->key, "icrc") == 0)
		return check_icrc(v, kv->val, f);
	if (strcmp(kv->key, "quanta") == 0)
		return check_quanta(v, kv->val, f);
	return report(v, kv->key, kv->val, "(key unknown to test_vectors.c)");
}

static int check_key(const struct rp_vec *v, const struct rp_kv *kv, const struct rp_frame *f)
{
	for (size_t i = 0; i < sizeof(numeric_keys) / sizeof(numeric_keys[0]); i++)
		if (strcmp(kv->key, numeric_keys[i].key) == 0)
			return check_u64(v, kv->key, strtoull(kv->val, NULL, 0), numeric_keys[i].get(f));
	return check_string_key(v, kv, f);
}

/* Checks beyond the listed keys: header checksums and the MAC control opcode. */
static int check_implied(const struct rp_vec *v, const struct rp_frame *f)
{
	const char *kind = kv_find(v, "kind");
	int bad = 0;
	if (vec_is_roce(v) && f->l3 == 4 && !f->ip4.checksum_ok)
		bad += report(v, "IPv4 checksum_ok", "true", "false");
	if (kind && strcmp(kind, "pfc") == 0)
		bad += check_u64(v, "macctl opcode", RP_MACCTL_OP_PFC, f->macctl.opcode);
	if (kind && strcmp(kind, "pause") == 0)
		bad += check_u64(v, "macctl opcode", RP_MACCTL_OP_PAUSE, f->macctl.opcode);
	return bad;
}

static int check_parse(const struct rp_vec *v, const uint8_t *buf, size_t len)
{
	struct rp_frame f;
	int bad = 0;
	rp_frame_parse(buf, len, len, &f);
	for (int i = 0; i < v->nkv; i++)
		bad += check_key(v, &v->kv[i], &f);
	return bad + check_implied(v, &f);
}

/* ---- tests ---------------------------------------------------------------- */

static void test_vectors_loaded(void **state)
{
	(void)state;
	int kinds[4] = {0};
	static const char *const names[4] = {"roce", "cnp", "pfc", "pause"};
	assert_true(nvecs >= 40);
	for (int i = 0; i < nvecs; i++) {
		const char *k = kv_find(&vecs[i], "kind");
		assert_non_null(k);
		for (int j = 0; j < 4; j++)
			kinds[j] += strcmp(k, names[j]) == 0;
	}
	for (int j = 0; j < 4; j++)
		assert_true(kinds[j] > 0);
}

static void test_parse_matches_scapy(void **state)
{
	(void)state;
	int bad = 0;
	for (int i = 0; i < nvecs; i++)
		bad += check_parse(&vecs[i], vecs[i].frame, vecs[i].len);
	assert_int_equal(bad, 0);
}

/* A short frame as a NIC sends it: zero-padded to 60 bytes. */
static void test_parse_padded_short_frames(void **state)
{
	(void)state;
	int bad = 0, seen = 0;
	for (int i = 0; i < nvecs; i++) {
		const struct rp_vec *v = &vecs[i];
		uint8_t buf[RP_ETH_MIN_FRAME] = {0};
		if (v->len >= RP_ETH_MIN_FRAME)
			continue;
		memcpy(buf, v->frame, v->len);
		bad += check_parse(v, buf, sizeof(buf));
		seen++;
	}
	assert_true(seen > 0);
	assert_int_equal(bad, 0);
}

static void spec_eth(const struct rp_vec *v, struct rp_eth *e)
{
	assert_int_equal(rp_mac_parse(kv_find(v, "eth_dst"), e->dst), RP_WIRE_OK);
	assert_int_equal(rp_mac_parse(kv_find(v, "eth_src"), e->src), RP_WIRE_OK);
	e->has_vlan = kv_u64(v, "vlan") != 0;
	e->pcp = (uint8_t)kv_u64(v, "pcp");
	e->dei = kv_u64(v, "dei") != 0;
	e->vid = (uint16_t)kv_u64(v, "vid");
}

static void spec_ip(const struct rp_vec *v, struct rp_roce_spec *s)
{
	s->l3 = (uint8_t)kv_u64(v, "l3");
	if (s->l3 == 4) {
		s->ip4.dscp = (uint8_t)kv_u64(v, "dscp");
		s->ip4.ecn = (uint8_t)kv_u64(v, "ecn");
		s->ip4.id = (uint16_t)kv_u64(v, "ip_id");
		s->ip4.df = kv_u64(v, "df") != 0;
		s->ip4.ttl = (uint8_t)kv_u64(v, "ttl");
		s->ip4.proto = RP_IPPROTO_UDP;
		assert_int_equal(rp_ipv4_addr_parse(kv_find(v, "src"), &s->ip4.src), RP_WIRE_OK);
		assert_int_equal(rp_ipv4_addr_parse(kv_find(v, "dst"), &s->ip4.dst), RP_WIRE_OK);
		return;
	}
	s->ip6.dscp = (uint8_t)kv_u64(v, "dscp");
	s->ip6.ecn = (uint8_t)kv_u64(v, "ecn");
	s->ip6.flow_label = (uint32_t)kv_u64(v, "flow_label");
	s->ip6.hop_limit = (uint8_t)kv_u64(v, "hop_limit");
	s->ip6.next_header = RP_IPPROTO_UDP;
	assert_int_equal(rp_ipv6_addr_parse(kv_find(v, "src"), s->ip6.src), RP_WIRE_OK);
	assert_int_equal(rp_ipv6_addr_parse(kv_find(v, "dst"), s->ip6.dst), RP_WIRE_OK);
}

static void spec_bth(const struct rp_vec *v, struct rp_bth *b)
{
	b->opcode = (uint8_t)kv_u64(v, "opcode");
	b->se = kv_u64(v, "se") != 0;
	b->m = kv_u64(v, "m") != 0;
	b->pad = (uint8_t)kv_u64(v, "pad");
	b->tver = (uint8_t)kv_u64(v, "tver");
	b->pkey = (uint16_t)kv_u64(v, "pkey");
	b->fecn = kv_u64(v, "fecn") != 0;
	b->becn = kv_u64(v, "becn") != 0;
	b->dqpn = (uint32_t)kv_u64(v, "dqpn");
	b->ack_req = kv_u64(v, "ack_req") != 0;
	b->psn = (uint32_t)kv_u64(v, "psn");
}

static void spec_ext(const struct rp_vec *v, struct rp_roce_spec *s)
{
	s->reth = (struct rp_reth){kv_u64(v, "reth_va"), (uint32_t)kv_u64(v, "reth_rkey"),
				   (uint32_t)kv_u64(v, "reth_len")};
	s->aeth = (struct rp_aeth){(uint8_t)kv_u64(v, "aeth_syndrome"), (uint32_t)kv_u64(v, "aeth_msn")};
	s->imm = (uint32_t)kv_u64(v, "imm");
	s->ieth = (uint32_t)kv_u64(v, "ieth");
	s->deth = (struct rp_deth){(uint32_t)kv_u64(v, "deth_qkey"), (uint32_t)kv_u64(v, "deth_src_qp")};
	s->atomic = (struct rp_atomic_eth){kv_u64(v, "atomic_va"), (uint32_t)kv_u64(v, "atomic_rkey"),
					   kv_u64(v, "atomic_swap_add"), kv_u64(v, "atomic_compare")};
	s->atomic_ack = kv_u64(v, "atomic_ack");
}

static void spec_from_vector(const struct rp_vec *v, struct rp_roce_spec *s)
{
	memset(s, 0, sizeof(*s));
	spec_eth(v, &s->eth);
	spec_ip(v, s);
	s->udp_sport = (uint16_t)kv_u64(v, "udp_sport");
	s->udp_checksum = kv_u64(v, "udp_csum") != 0;
	spec_bth(v, &s->bth);
	spec_ext(v, s);
	s->payload_len = (size_t)kv_u64(v, "payload_len");
	s->payload = s->payload_len ? v->frame + kv_u64(v, "payload_off") : NULL;
}

static int compare_bytes(const struct rp_vec *v, const uint8_t *got, size_t got_len)
{
	size_t want_len = v->len < RP_ETH_MIN_FRAME ? RP_ETH_MIN_FRAME : v->len;
	int bad = check_u64(v, "built length", want_len, got_len);
	size_t n = got_len < v->len ? got_len : v->len;
	for (size_t i = 0; i < n; i++) {
		if (got[i] != v->frame[i]) {
			char what[96], w[16], g[16];
			snprintf(what, sizeof(what), "built byte %zu (first difference)", i);
			snprintf(w, sizeof(w), "0x%02x", v->frame[i]);
			snprintf(g, sizeof(g), "0x%02x", got[i]);
			return bad + report(v, what, w, g);
		}
	}
	for (size_t i = v->len; i < got_len; i++)
		if (got[i] != 0)
			return bad + report(v, "Ethernet pad", "zeros", "non-zero byte");
	return bad;
}

static int check_layout(const struct rp_vec *v, const struct rp_roce_layout *lay, size_t built)
{
	size_t l3_off = kv_u64(v, "vlan") ? 18 : 14;
	int bad = check_u64(v, "layout.l3_off", l3_off, lay->l3_off);
	bad += check_u64(v, "layout.udp_off", l3_off + (kv_u64(v, "l3") == 4 ? 20 : 40), lay->udp_off);
	bad += check_u64(v, "layout.bth_off", lay->udp_off + RP_UDP_HLEN, lay->bth_off);
	bad += check_u64(v, "layout.payload_off", kv_u64(v, "payload_off"), lay->payload_off);
	bad += check_u64(v, "layout.icrc_off", v->len - RP_ICRC_LEN, lay->icrc_off);
	return bad + check_u64(v, "layout.frame_len", built, lay->frame_len);
}

/* Builds a vector into a buffer pre-filled with garbage, so a builder that
 * leaves a byte unwritten (or reads one before writing it) shows. */
static int check_roce_build(const struct rp_vec *v, uint8_t fill)
{
	struct rp_roce_spec s;
	struct rp_roce_layout lay;
	uint8_t buf[RP_VEC_FRAME_MAX + 64];
	spec_from_vector(v, &s);
	memset(buf, fill, sizeof(buf));
	size_t n = rp_roce_build(buf, sizeof(buf), &s, &lay);
	if (n == 0)
		return report(v, "rp_roce_build", "a frame", "0 (refused)");
	return compare_bytes(v, buf, n) + check_layout(v, &lay, n);
}

static void test_roce_build_matches_scapy(void **state)
{
	(void)state;
	int bad = 0, seen = 0;
	for (int i = 0; i < nvecs; i++) {
		if (!vec_is_roce(&vecs[i]))
			continue;
		bad += check_roce_build(&vecs[i], 0x00);
		bad += check_roce_build(&vecs[i], 0xA5);
		seen++;
	}
	assert_true(seen > 0);
	assert_int_equal(bad, 0);
}

/* Exactly the frame size, nothing more: one byte less must be refused. */
static void test_roce_build_tight_cap(void **state)
{
	(void)state;
	int bad = 0;
	for (int i = 0; i < nvecs; i++) {
		const struct rp_vec *v = &vecs[i];
		struct rp_roce_spec s;
		size_t want = v->len < RP_ETH_MIN_FRAME ? RP_ETH_MIN_FRAME : v->len;
		if (!vec_is_roce(v))
			continue;
		spec_from_vector(v, &s);
		uint8_t *exact = malloc(want);
		assert_non_null(exact);
		bad += check_u64(v, "build into exact cap", want, rp_roce_build(exact, want, &s, NULL));
		bad += check_u64(v, "build into cap - 1", 0, rp_roce_build(exact, want - 1, &s, NULL));
		free(exact);
	}
	assert_int_equal(bad, 0);
}

static int check_macctl_build(const struct rp_vec *v)
{
	uint8_t src[6], buf[RP_MACCTL_FRAME_LEN + 8];
	uint16_t quanta[RP_PFC_PRIOS] = {0};
	size_t n;
	assert_int_equal(rp_mac_parse(kv_find(v, "eth_src"), src), RP_WIRE_OK);
	memset(buf, 0xA5, sizeof(buf));
	if (strcmp(kv_find(v, "kind"), "pfc") == 0) {
		assert_int_equal(parse_quanta(kv_find(v, "quanta"), quanta), RP_PFC_PRIOS);
		n = rp_pfc_frame_build(buf, sizeof(buf), src, (uint8_t)kv_u64(v, "enable"), quanta);
	} else {
		n = rp_pause_frame_build(buf, sizeof(buf), src, (uint16_t)kv_u64(v, "quanta"));
	}
	int bad = check_u64(v, "MAC control frame length", v->len, n);
	if (n == v->len && memcmp(buf, v->frame, n) != 0)
		bad += report(v, "MAC control frame bytes", "scapy's", "different bytes");
	return bad;
}

static void test_macctl_build_matches_scapy(void **state)
{
	(void)state;
	int bad = 0, seen = 0;
	for (int i = 0; i < nvecs; i++) {
		if (vec_is_roce(&vecs[i]))
			continue;
		bad += check_macctl_build(&vecs[i]);
		seen++;
	}
	assert_true(seen > 0);
	assert_int_equal(bad, 0);
}

/* Offsets (from the IP header) of the bytes the ICRC masks, as bit masks. */
static uint8_t icrc_mask_bits(size_t rel, uint8_t l3)
{
	size_t udp = l3 == 4 ? RP_IPV4_HLEN : RP_IPV6_HLEN;
	if (rel == udp + 6 || rel == udp + 7 || rel == udp + RP_UDP_HLEN + 4)
		return 0xFF;
	if (l3 == 4)
		return rel == 1 || rel == 8 || rel == 10 || rel == 11 ? 0xFF : 0;
	if (rel == 0)
		return 0x0F;
	return rel == 1 || rel == 2 || rel == 3 || rel == 7 ? 0xFF : 0;
}

static int flip_one(const struct rp_vec *v, uint8_t *buf, size_t pos, int bit, bool must_hold)
{
	struct rp_frame f;
	buf[pos] ^= (uint8_t)(1u << bit);
	rp_frame_parse(buf, v->len, v->len, &f);
	buf[pos] ^= (uint8_t)(1u << bit);
	if (must_hold == f.icrc_ok)
		return 0;
	char what[96];
	snprintf(what, sizeof(what), "icrc_ok after flipping byte %zu bit %d", pos, bit);
	return report(v, what, must_hold ? "true (masked or outside the ICRC)" : "false", f.icrc_ok ? "true" : "false");
}

/* Every single-bit error between the IP header and the ICRC's last byte is
 * caught unless it hits a masked field; L2 (MAC addresses) is not covered. */
static int check_bitflips(const struct rp_vec *v)
{
	uint8_t buf[RP_VEC_FRAME_MAX];
	size_t l3_off = kv_u64(v, "vlan") ? 18 : 14;
	uint8_t l3 = (uint8_t)kv_u64(v, "l3");
	int bad = 0;
	memcpy(buf, v->frame, v->len);
	for (size_t pos = 0; pos < v->len; pos++) {
		uint8_t masked = pos < l3_off ? 0 : icrc_mask_bits(pos - l3_off, l3);
		for (int bit = 0; bit < 8; bit++) {
			bool in_l2_addr = pos < 2 * RP_ETH_ADDR_LEN;
			if (pos >= 2 * RP_ETH_ADDR_LEN && pos < l3_off)
				continue; /* EtherType/VLAN tag: may reclassify, no claim */
			bad += flip_one(v, buf, pos, bit, in_l2_addr || (masked >> bit & 1));
		}
	}
	return bad;
}

static void test_icrc_catches_bitflips(void **state)
{
	(void)state;
	int bad = 0;
	for (int i = 0; i < nvecs; i++)
		if (vec_is_roce(&vecs[i]))
			bad += check_bitflips(&vecs[i]);
	assert_int_equal(bad, 0);
}

/* A snaplen cut: what fits is parsed, the ICRC is never claimed checked, and
 * nothing past caplen is read (the copy is exactly caplen bytes on the heap,
 * so AddressSanitizer builds catch an overread). */
static void test_snaplen_cuts(void **state)
{
	(void)state;
	int bad = 0;
	for (int i = 0; i < nvecs; i++) {
		const struct rp_vec *v = &vecs[i];
		for (size_t cap = 0; cap < v->len; cap++) {
			struct rp_frame f;
			uint8_t *p = rp_test_dup_exact(v->frame, cap);
			rp_frame_parse(p, cap, v->len, &f);
			free(p);
			if (f.icrc_checked || f.icrc_ok)
				bad += check_u64(v, "icrc_checked under a snaplen cut", 0, 1);
		}
	}
	assert_int_equal(bad, 0);
}

/* A frame that is really short on the wire (caplen == wire_len) and ends
 * inside the IP datagram is malformed, with a reason. */
static void test_wire_truncation_is_malformed(void **state)
{
	(void)state;
	int bad = 0;
	for (int i = 0; i < nvecs; i++) {
		const struct rp_vec *v = &vecs[i];
		if (!vec_is_roce(v))
			continue;
		for (size_t cut = 0; cut < v->len; cut++) {
			struct rp_frame f;
			uint8_t *p = malloc(cut ? cut : 1);
			assert_non_null(p);
			memcpy(p, v->frame, cut);
			rp_frame_parse(p, cut, cut, &f);
			free(p);
			if (f.kind != RP_KIND_MALFORMED || f.error[0] == '\0') {
				char what[96];
				snprintf(what, sizeof(what), "kind when cut to %zu bytes", cut);
				bad += report(v, what, "malformed with a reason", rp_frame_kind_name(f.kind));
			}
		}
	}
	assert_int_equal(bad, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vectors_loaded),
		cmocka_unit_test(test_parse_matches_scapy),
		cmocka_unit_test(test_parse_padded_short_frames),
		cmocka_unit_test(test_roce_build_matches_scapy),
		cmocka_unit_test(test_roce_build_tight_cap),
		cmocka_unit_test(test_macctl_build_matches_scapy),
		cmocka_unit_test(test_icrc_catches_bitflips),
		cmocka_unit_test(test_snaplen_cuts),
		cmocka_unit_test(test_wire_truncation_is_malformed),
	};
	return cmocka_run_group_tests(tests, load_vectors, free_vectors);
}
