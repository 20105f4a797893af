/* roceprobe decode: one line per frame of a pcap or pcapng, ICRC verified. */
#include <getopt.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capin.h"
#include "cli.h"
#include "wire/frame.h"

#define KIND_COUNT (RP_KIND_MALFORMED + 1)

struct decode_totals {
	uint64_t frames;
	uint64_t kinds[KIND_COUNT];
	uint64_t icrc_bad;
};

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

static json_t *json_hex(const char *fmt, uint64_t v)
{
	char s[24];
	snprintf(s, sizeof(s), fmt, v);
	return json_string(s);
}

/* The BTH bits print as 0/1, as the headers hold them. */
static json_t *bth_json(const struct rp_bth *b)
{
	const char *name = rp_opcode_info(b->opcode)->name;
	return json_pack("{s:i, s:s?, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:I, s:i, s:I}",
			 "opcode", b->opcode, "opname", name, "se", b->se, "m", b->m, "pad", b->pad,
			 "tver", b->tver, "pkey", b->pkey, "fecn", b->fecn, "becn", b->becn,
			 "dqpn", (json_int_t)b->dqpn, "ack_req", b->ack_req, "psn", (json_int_t)b->psn);
}

static void add_ext_json(json_t *o, const struct rp_frame *f)
{
	if (f->ext & RP_EXT_DETH)
		json_object_set_new(o, "deth", json_pack("{s:I, s:I}", "qkey", (json_int_t)f->deth.qkey,
							 "src_qp", (json_int_t)f->deth.src_qp));
	if (f->ext & RP_EXT_RETH)
		json_object_set_new(o, "reth", json_pack("{s:o, s:o, s:I}", "va", json_hex("0x%016" PRIx64, f->reth.va),
							 "rkey", json_hex("0x%08" PRIx64, f->reth.rkey),
							 "dma_len", (json_int_t)f->reth.dma_len));
	if (f->ext & RP_EXT_ATOMIC_ETH)
		json_object_set_new(o, "atomic", json_pack("{s:o, s:o, s:o, s:o}",
							   "va", json_hex("0x%016" PRIx64, f->atomic.va),
							   "rkey", json_hex("0x%08" PRIx64, f->atomic.rkey),
							   "swap_add", json_hex("0x%016" PRIx64, f->atomic.swap_add),
							   "compare", json_hex("0x%016" PRIx64, f->atomic.compare)));
	if (f->ext & RP_EXT_AETH)
		json_object_set_new(o, "aeth", json_pack("{s:i, s:I}", "syndrome", f->aeth.syndrome,
							 "msn", (json_int_t)f->aeth.msn));
	if (f->ext & RP_EXT_ATOMIC_ACK)
		json_object_set_new(o, "atomic_ack", json_hex("0x%016" PRIx64, f->atomic_ack));
	if (f->ext & RP_EXT_IMM)
		json_object_set_new(o, "imm", json_hex("0x%08" PRIx64, f->imm));
	if (f->ext & RP_EXT_IETH)
		json_object_set_new(o, "ieth", json_hex("0x%08" PRIx64, f->ieth));
}

static void add_roce_json(json_t *o, const struct rp_frame *f)
{
	char src[46], dst[46];
	l3_addrs(f, src, dst);
	json_object_set_new(o, "l3", json_string(f->l3 == 4 ? "ipv4" : "ipv6"));
	json_object_set_new(o, "src", json_string(src));
	json_object_set_new(o, "dst", json_string(dst));
	json_object_set_new(o, "dscp", json_integer(frame_dscp(f)));
	json_object_set_new(o, "ecn", json_integer(frame_ecn(f)));
	if (f->l3 == 4) {
		json_object_set_new(o, "ttl", json_integer(f->ip4.ttl));
	} else {
		json_object_set_new(o, "hop_limit", json_integer(f->ip6.hop_limit));
		json_object_set_new(o, "flow_label", json_integer(f->ip6.flow_label));
	}
	json_object_set_new(o, "udp_sport", json_integer(f->udp.sport));
	json_object_set_new(o, "udp_dport", json_integer(f->udp.dport));
	json_object_set_new(o, "bth", bth_json(&f->bth));
	add_ext_json(o, f);
	json_object_set_new(o, "payload_len", json_integer((json_int_t)f->payload_len));
	if (f->has_probe)
		json_object_set_new(o, "probe", json_pack("{s:I, s:I, s:I}", "flow", (json_int_t)f->probe.flow_id,
							  "seq", (json_int_t)f->probe.seq,
							  "tx_ns", (json_int_t)f->probe.tx_ns));
	if (f->icrc_checked) {
		char icrc[9];
		hex_bytes(f->icrc_wire, RP_ICRC_LEN, icrc);
		json_object_set_new(o, "icrc", json_string(icrc));
		json_object_set_new(o, "icrc_ok", json_boolean(f->icrc_ok));
	}
}

static json_t *frame_json(uint64_t n, size_t wire_len, const struct rp_frame *f)
{
	json_t *o = json_pack("{s:I, s:I, s:s}", "frame", (json_int_t)n, "len", (json_int_t)wire_len,
			      "kind", rp_frame_kind_name(f->kind));
	char mac[18];
	if (f->eth.has_vlan)
		json_object_set_new(o, "vlan", json_pack("{s:i, s:i}", "pcp", f->eth.pcp, "vid", f->eth.vid));
	switch (f->kind) {
	case RP_KIND_ROCE:
	case RP_KIND_CNP:
		add_roce_json(o, f);
		break;
	case RP_KIND_PFC: {
		rp_mac_format(f->eth.src, mac);
		json_t *en = json_array(), *q = json_array();
		for (int p = 0; p < RP_PFC_PRIOS; p++) {
			if (f->macctl.enable & (1u << p))
				json_array_append_new(en, json_integer(p));
			json_array_append_new(q, json_integer(f->macctl.quanta[p]));
		}
		json_object_set_new(o, "src_mac", json_string(mac));
		json_object_set_new(o, "enable", en);
		json_object_set_new(o, "quanta", q);
		break;
	}
	case RP_KIND_PAUSE:
		rp_mac_format(f->eth.src, mac);
		json_object_set_new(o, "src_mac", json_string(mac));
		json_object_set_new(o, "quanta", json_integer(f->macctl.quanta[0]));
		break;
	case RP_KIND_OTHER: {
		char et[8];
		snprintf(et, sizeof(et), "0x%04x", f->eth.ethertype);
		json_object_set_new(o, "ethertype", json_string(et));
		break;
	}
	case RP_KIND_MALFORMED:
		json_object_set_new(o, "error", json_string(f->error));
		break;
	}
	return o;
}

static void print_json_line(json_t *o)
{
	char *s = json_dumps(o, JSON_PRESERVE_ORDER | JSON_COMPACT);
	if (s)
		puts(s);
	free(s);
	json_decref(o);
}

static void print_text_header(void)
{
	printf("%6s %5s %-9s %s\n", "frame", "len", "kind", "detail");
}

static void print_roce_text(const struct rp_frame *f)
{
	char src[46], dst[46];
	l3_addrs(f, src, dst);
	const char *name = rp_opcode_info(f->bth.opcode)->name;
	printf("%s > %s dscp %u %s sport %u %s(0x%02x) qp 0x%06x psn %u%s%s payload %zu", src, dst,
	       frame_dscp(f), ecn_names[frame_ecn(f)], f->udp.sport, name ? name : "UNKNOWN", f->bth.opcode,
	       f->bth.dqpn, f->bth.psn, f->bth.ack_req ? " A" : "", f->bth.becn ? " BECN" : "", f->payload_len);
	if (f->ext & RP_EXT_RETH)
		printf(" va 0x%" PRIx64 " rkey 0x%x len %u", f->reth.va, f->reth.rkey, f->reth.dma_len);
	if (f->ext & RP_EXT_AETH)
		printf(" aeth 0x%02x msn %u", f->aeth.syndrome, f->aeth.msn);
	if (f->icrc_checked)
		printf(" icrc %s", f->icrc_ok ? "ok" : "BAD");
}

static void print_text(uint64_t n, size_t wire_len, const struct rp_frame *f)
{
	char mac[18];
	printf("%6" PRIu64 " %5zu %-9s ", n, wire_len, rp_frame_kind_name(f->kind));
	if (f->eth.has_vlan)
		printf("vlan %u pcp %u ", f->eth.vid, f->eth.pcp);
	switch (f->kind) {
	case RP_KIND_ROCE:
	case RP_KIND_CNP:
		print_roce_text(f);
		break;
	case RP_KIND_PFC:
		rp_mac_format(f->eth.src, mac);
		printf("from %s enable 0x%02x quanta", mac, f->macctl.enable);
		for (int p = 0; p < RP_PFC_PRIOS; p++)
			printf(" %u", f->macctl.quanta[p]);
		break;
	case RP_KIND_PAUSE:
		rp_mac_format(f->eth.src, mac);
		printf("from %s quanta %u", mac, f->macctl.quanta[0]);
		break;
	case RP_KIND_OTHER:
		printf("ethertype 0x%04x", f->eth.ethertype);
		break;
	case RP_KIND_MALFORMED:
		printf("%s", f->error);
		break;
	}
	putchar('\n');
}

static void print_summary(const struct decode_totals *t, bool json)
{
	if (json) {
		json_t *kinds = json_object();
		for (int k = 0; k < KIND_COUNT; k++)
			json_object_set_new(kinds, rp_frame_kind_name(k), json_integer((json_int_t)t->kinds[k]));
		print_json_line(json_pack("{s:b, s:I, s:o, s:I}", "summary", 1, "frames", (json_int_t)t->frames,
					  "kinds", kinds, "icrc_bad", (json_int_t)t->icrc_bad));
		return;
	}
	printf("%" PRIu64 " frames:", t->frames);
	for (int k = 0; k < KIND_COUNT; k++)
		printf(" %s %" PRIu64 "%s", rp_frame_kind_name(k), t->kinds[k], k + 1 < KIND_COUNT ? "," : "");
	printf("; ICRC bad %" PRIu64 "\n", t->icrc_bad);
}

static void usage(FILE *out)
{
	fputs("usage: roceprobe decode [--json] FILE|-\n"
	      "\n"
	      "Prints one line per frame of a pcap or pcapng capture (Ethernet link type):\n"
	      "RoCEv2 (IPv4/IPv6, UDP 4791) with every BTH field and extended header, CNP,\n"
	      "802.1Qbb PFC, 802.3x PAUSE, other frames, and malformed ones with the reason.\n"
	      "Unlike tshark it verifies the RoCEv2 ICRC of every complete RoCE frame.\n"
	      "A last line counts frames by kind and ICRC failures.\n"
	      "\n"
	      "  --json     one JSON object per line (keys: frame, len, kind, vlan, l3, src, dst,\n"
	      "             dscp, ecn, ttl, udp_sport, udp_dport, bth, reth, aeth, imm,\n"
	      "             payload_len, icrc, icrc_ok; pfc: src_mac, enable, quanta), then\n"
	      "             {\"summary\":true,...}\n"
	      "\n"
	      "FILE '-' reads standard input. A capture cut inside a record (a file still\n"
	      "being written, or cut short) is decoded up to the cut, and one line on stderr\n"
	      "says at which frame it is truncated.\n"
	      "\n"
	      "Exit status: 0 when the file was read (bad frames are reported, not fatal;\n"
	      "so is a truncated capture), 2 when it cannot be read.\n",
	      out);
}

int rp_cmd_decode(int argc, char **argv)
{
	static const struct option opts[] = {
		{"json", no_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	bool json = false;
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "jh", opts, NULL)) != -1) {
		if (c == 'j') {
			json = true;
		} else if (c == 'h') {
			usage(stdout);
			return RP_EXIT_OK;
		} else {
			return rp_cli_error("decode", "bad option (try 'roceprobe decode --help')");
		}
	}
	if (optind != argc - 1)
		return rp_cli_error("decode", "expected one capture file (try 'roceprobe decode --help')");
	const char *path = argv[optind];

	struct rp_capin in;
	int rc = rp_capin_open(&in, "decode", path, false);
	if (rc)
		return rc;

	struct decode_totals t = {0};
	struct pcap_pkthdr *h;
	const u_char *data;
	if (!json)
		print_text_header();
	while ((rc = rp_capin_next(&in, &h, &data)) == 1) {
		struct rp_frame f;
		enum rp_frame_kind k = rp_frame_parse(data, h->caplen, h->len, &f);
		t.frames++;
		t.kinds[k]++;
		t.icrc_bad += f.icrc_checked && !f.icrc_ok;
		if (json)
			print_json_line(frame_json(t.frames, h->len, &f));
		else
			print_text(t.frames, h->len, &f);
	}
	print_summary(&t, json);
	rp_capin_close(&in);
	return rc ? rc : RP_EXIT_OK;
}
