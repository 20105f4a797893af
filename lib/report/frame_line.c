/* A parsed frame as one line of text or JSON (frame_line.h). */
#include <inttypes.h>
#include <stdio.h>

#include "frame_line.h"
#include "jline.h"
#include "wire/eth.h"
#include "wire/ipv4.h"
#include "wire/ipv6.h"

static const char *const ecn_names[] = {"not-ect", "ect1", "ect0", "ce"};

static void hex_bytes(const uint8_t *p, size_t n, char *out)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", p[i]);
}

static void l3_addrs(const struct rp_frame *f, char *src, char *dst)
{
	if (f->l3 == 4) {
		rp_ipv4_addr_format(f->ip4.src, src);
		rp_ipv4_addr_format(f->ip4.dst, dst);
	} else {
		rp_ipv6_addr_format(f->ip6.src, src);
		rp_ipv6_addr_format(f->ip6.dst, dst);
	}
}

static uint8_t frame_dscp(const struct rp_frame *f) { return f->l3 == 4 ? f->ip4.dscp : f->ip6.dscp; }
static uint8_t frame_ecn(const struct rp_frame *f) { return f->l3 == 4 ? f->ip4.ecn : f->ip6.ecn; }

/* The BTH bits print as 0/1, as the headers hold them. */
static void bth_json(struct rp_jline *w, const struct rp_bth *b)
{
	rp_jline_open(w, "bth", '{');
	rp_jline_int(w, "opcode", b->opcode);
	rp_jline_str(w, "opname", rp_opcode_info(b->opcode)->name);
	rp_jline_int(w, "se", b->se);
	rp_jline_int(w, "m", b->m);
	rp_jline_int(w, "pad", b->pad);
	rp_jline_int(w, "tver", b->tver);
	rp_jline_int(w, "pkey", b->pkey);
	rp_jline_int(w, "fecn", b->fecn);
	rp_jline_int(w, "becn", b->becn);
	rp_jline_int(w, "dqpn", b->dqpn);
	rp_jline_int(w, "ack_req", b->ack_req);
	rp_jline_int(w, "psn", b->psn);
	rp_jline_close(w, '}');
}

static void ext_json(struct rp_jline *w, const struct rp_frame *f)
{
	if (f->ext & RP_EXT_DETH) {
		rp_jline_open(w, "deth", '{');
		rp_jline_int(w, "qkey", f->deth.qkey);
		rp_jline_int(w, "src_qp", f->deth.src_qp);
		rp_jline_close(w, '}');
	}
	if (f->ext & RP_EXT_RETH) {
		rp_jline_open(w, "reth", '{');
		rp_jline_hex(w, "va", f->reth.va, 8);
		rp_jline_hex(w, "rkey", f->reth.rkey, 4);
		rp_jline_int(w, "dma_len", f->reth.dma_len);
		rp_jline_close(w, '}');
	}
	if (f->ext & RP_EXT_ATOMIC_ETH) {
		rp_jline_open(w, "atomic", '{');
		rp_jline_hex(w, "va", f->atomic.va, 8);
		rp_jline_hex(w, "rkey", f->atomic.rkey, 4);
		rp_jline_hex(w, "swap_add", f->atomic.swap_add, 8);
		rp_jline_hex(w, "compare", f->atomic.compare, 8);
		rp_jline_close(w, '}');
	}
	if (f->ext & RP_EXT_AETH) {
		rp_jline_open(w, "aeth", '{');
		rp_jline_int(w, "syndrome", f->aeth.syndrome);
		rp_jline_int(w, "msn", f->aeth.msn);
		rp_jline_close(w, '}');
	}
	if (f->ext & RP_EXT_ATOMIC_ACK)
		rp_jline_hex(w, "atomic_ack", f->atomic_ack, 8);
	if (f->ext & RP_EXT_IMM)
		rp_jline_hex(w, "imm", f->imm, 4);
	if (f->ext & RP_EXT_IETH)
		rp_jline_hex(w, "ieth", f->ieth, 4);
}

static void roce_json(struct rp_jline *w, const struct rp_frame *f)
{
	char src[46], dst[46];
	l3_addrs(f, src, dst);
	rp_jline_str(w, "l3", f->l3 == 4 ? "ipv4" : "ipv6");
	rp_jline_str(w, "src", src);
	rp_jline_str(w, "dst", dst);
	rp_jline_int(w, "dscp", frame_dscp(f));
	rp_jline_int(w, "ecn", frame_ecn(f));
	if (f->l3 == 4) {
		rp_jline_int(w, "ttl", f->ip4.ttl);
	} else {
		rp_jline_int(w, "hop_limit", f->ip6.hop_limit);
		rp_jline_int(w, "flow_label", f->ip6.flow_label);
	}
	rp_jline_int(w, "udp_sport", f->udp.sport);
	rp_jline_int(w, "udp_dport", f->udp.dport);
	bth_json(w, &f->bth);
	ext_json(w, f);
	rp_jline_int(w, "payload_len", (int64_t)f->payload_len);
	if (f->has_probe) {
		rp_jline_open(w, "probe", '{');
		rp_jline_int(w, "flow", f->probe.flow_id);
		rp_jline_int(w, "seq", (int64_t)f->probe.seq);
		rp_jline_int(w, "tx_ns", (int64_t)f->probe.tx_ns);
		rp_jline_close(w, '}');
	}
	if (f->icrc_checked) {
		char icrc[9];
		hex_bytes(f->icrc_wire, RP_ICRC_LEN, icrc);
		rp_jline_str(w, "icrc", icrc);
		rp_jline_bool(w, "icrc_ok", f->icrc_ok);
	}
}

void rp_frame_line_json(FILE *out, uint64_t n, size_t wire_len, const struct rp_frame *f)
{
	struct rp_jline w = {.n = 0};
	char mac[18];
	rp_jline_open(&w, NULL, '{');
	rp_jline_int(&w, "frame", (int64_t)n);
	rp_jline_int(&w, "len", (int64_t)wire_len);
	rp_jline_str(&w, "kind", rp_frame_kind_name(f->kind));
	if (f->eth.has_vlan) {
		rp_jline_open(&w, "vlan", '{');
		rp_jline_int(&w, "pcp", f->eth.pcp);
		rp_jline_int(&w, "vid", f->eth.vid);
		rp_jline_close(&w, '}');
	}
	switch (f->kind) {
	case RP_KIND_ROCE:
	case RP_KIND_CNP:
		roce_json(&w, f);
		break;
	case RP_KIND_PFC:
		rp_mac_format(f->eth.src, mac);
		rp_jline_str(&w, "src_mac", mac);
		rp_jline_open(&w, "enable", '[');
		for (int p = 0; p < RP_PFC_PRIOS; p++)
			if (f->macctl.enable & (1u << p))
				rp_jline_int(&w, NULL, p);
		rp_jline_close(&w, ']');
		rp_jline_open(&w, "quanta", '[');
		for (int p = 0; p < RP_PFC_PRIOS; p++)
			rp_jline_int(&w, NULL, f->macctl.quanta[p]);
		rp_jline_close(&w, ']');
		break;
	case RP_KIND_PAUSE:
		rp_mac_format(f->eth.src, mac);
		rp_jline_str(&w, "src_mac", mac);
		rp_jline_int(&w, "quanta", f->macctl.quanta[0]);
		break;
	case RP_KIND_OTHER:
	case RP_KIND_MALFORMED:
		/* An IP frame that is not RoCE (or is broken past its IP header)
		 * still says its ECN: CE-marked frames are control to the capture. */
		if (f->l3) {
			rp_jline_str(&w, "l3", f->l3 == 4 ? "ipv4" : "ipv6");
			rp_jline_int(&w, "ecn", frame_ecn(f));
		}
		if (f->kind == RP_KIND_OTHER)
			rp_jline_hex(&w, "ethertype", f->eth.ethertype, 2);
		else
			rp_jline_str(&w, "error", f->error);
		break;
	}
	rp_jline_close(&w, '}');
	rp_jline_line(&w, out);
}

void rp_frame_line_header(FILE *out)
{
	fprintf(out, "%6s %5s %-9s %s\n", "frame", "len", "kind", "detail");
}

static void print_roce_text(FILE *out, const struct rp_frame *f)
{
	char src[46], dst[46];
	l3_addrs(f, src, dst);
	const char *name = rp_opcode_info(f->bth.opcode)->name;
	fprintf(out, "%s > %s dscp %u %s sport %u %s(0x%02x) qp 0x%06x psn %u%s%s payload %zu", src, dst,
	       frame_dscp(f), ecn_names[frame_ecn(f)], f->udp.sport, name ? name : "UNKNOWN", f->bth.opcode,
	       f->bth.dqpn, f->bth.psn, f->bth.ack_req ? " A" : "", f->bth.becn ? " BECN" : "", f->payload_len);
	if (f->ext & RP_EXT_RETH)
		fprintf(out, " va 0x%" PRIx64 " rkey 0x%x len %u", f->reth.va, f->reth.rkey, f->reth.dma_len);
	if (f->ext & RP_EXT_AETH)
		fprintf(out, " aeth 0x%02x msn %u", f->aeth.syndrome, f->aeth.msn);
	if (f->icrc_checked)
		fprintf(out, " icrc %s", f->icrc_ok ? "ok" : "BAD");
}

void rp_frame_line_text(FILE *out, uint64_t n, size_t wire_len, const struct rp_frame *f)
{
	char mac[18];
	fprintf(out, "%6" PRIu64 " %5zu %-9s ", n, wire_len, rp_frame_kind_name(f->kind));
	if (f->eth.has_vlan)
		fprintf(out, "vlan %u pcp %u ", f->eth.vid, f->eth.pcp);
	switch (f->kind) {
	case RP_KIND_ROCE:
	case RP_KIND_CNP:
		print_roce_text(out, f);
		break;
	case RP_KIND_PFC:
		rp_mac_format(f->eth.src, mac);
		fprintf(out, "from %s enable 0x%02x quanta", mac, f->macctl.enable);
		for (int p = 0; p < RP_PFC_PRIOS; p++)
			fprintf(out, " %u", f->macctl.quanta[p]);
		break;
	case RP_KIND_PAUSE:
		rp_mac_format(f->eth.src, mac);
		fprintf(out, "from %s quanta %u", mac, f->macctl.quanta[0]);
		break;
	case RP_KIND_OTHER:
		fprintf(out, "ethertype 0x%04x", f->eth.ethertype);
		break;
	case RP_KIND_MALFORMED:
		fprintf(out, "%s", f->error);
		break;
	}
	fputc('\n', out);
}

void rp_frame_totals_print(FILE *out, const struct rp_frame_totals *t, bool json)
{
	if (json) {
		struct rp_jline w = {.n = 0};
		rp_jline_open(&w, NULL, '{');
		rp_jline_bool(&w, "summary", true);
		rp_jline_int(&w, "frames", (int64_t)t->frames);
		rp_jline_open(&w, "kinds", '{');
		for (int k = 0; k < RP_FRAME_KINDS; k++)
			rp_jline_int(&w, rp_frame_kind_name(k), (int64_t)t->kinds[k]);
		rp_jline_close(&w, '}');
		rp_jline_int(&w, "icrc_bad", (int64_t)t->icrc_bad);
		rp_jline_close(&w, '}');
		rp_jline_line(&w, out);
		return;
	}
	fprintf(out, "%" PRIu64 " frames:", t->frames);
	for (int k = 0; k < RP_FRAME_KINDS; k++)
		fprintf(out, " %s %" PRIu64 "%s", rp_frame_kind_name(k), t->kinds[k], k + 1 < RP_FRAME_KINDS ? "," : "");
	fprintf(out, "; ICRC bad %" PRIu64 "\n", t->icrc_bad);
}