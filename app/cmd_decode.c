/* roceprobe decode: one line per frame of a pcap or pcapng, ICRC verified. */
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capin.h"
#include "cli.h"
#include "wire/frame.h"

/* getopt_long's short options (rp_cli_bad_option names a bad one). */
static const char SHORTS[] = "jh";

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

/* --json writes each line straight into a buffer: no JSON library per frame
 * (jansson built, sorted and freed a tree per frame: 7-9x the text time).
 * Every value is a number, a hex string, an address, or a string from a fixed
 * table (opcode names, kinds, the parser's error messages), so strings need
 * no escaping beyond what jw_str does for safety. The output is byte for
 * byte what json_dumps(JSON_COMPACT | JSON_PRESERVE_ORDER) printed before:
 * keys in this order, integers as signed 64-bit decimals. */
#define JW_CAP 2048

struct jw {
	char b[JW_CAP];
	size_t n;
	bool comma; /* a value was written at this level: the next one needs ',' */
};

static void jw_put(struct jw *w, const char *s, size_t len)
{
	if (len > JW_CAP - 1 - w->n) /* never with our values; a line cut short is still no overflow */
		len = JW_CAP - 1 - w->n;
	memcpy(w->b + w->n, s, len);
	w->n += len;
}

static void jw_ch(struct jw *w, char c)
{
	if (w->n < JW_CAP - 1)
		w->b[w->n++] = c;
}

/* The separator and, inside an object, "key": */
static void jw_key(struct jw *w, const char *key)
{
	if (w->comma)
		jw_ch(w, ',');
	w->comma = true;
	if (key) {
		jw_ch(w, '"');
		jw_put(w, key, strlen(key));
		jw_put(w, "\":", 2);
	}
}

static void jw_open(struct jw *w, const char *key, char c)
{
	jw_key(w, key);
	jw_ch(w, c);
	w->comma = false;
}

static void jw_close(struct jw *w, char c)
{
	jw_ch(w, c);
	w->comma = true;
}

static void jw_int(struct jw *w, const char *key, int64_t v)
{
	char d[24];
	size_t i = sizeof(d);
	uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
	do {
		d[--i] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		d[--i] = '-';
	jw_key(w, key);
	jw_put(w, d + i, sizeof(d) - i);
}

static void jw_str(struct jw *w, const char *key, const char *s)
{
	jw_key(w, key);
	if (!s) {
		jw_put(w, "null", 4);
		return;
	}
	jw_ch(w, '"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\') {
			jw_ch(w, '\\');
			jw_ch(w, (char)c);
		} else if (c < 0x20) {
			char e[8];
			snprintf(e, sizeof(e), "\\u%04x", c);
			jw_put(w, e, 6);
		} else {
			jw_ch(w, (char)c);
		}
	}
	jw_ch(w, '"');
}

static void jw_bool(struct jw *w, const char *key, bool v)
{
	jw_key(w, key);
	jw_put(w, v ? "true" : "false", v ? 4 : 5);
}

/* "0x" and 2 * bytes lower-case hex digits, zero-padded. */
static void jw_hex(struct jw *w, const char *key, uint64_t v, unsigned bytes)
{
	static const char digits[] = "0123456789abcdef";
	char h[19] = "0x";
	for (unsigned i = 0; i < 2 * bytes; i++)
		h[2 + i] = digits[(v >> (4 * (2 * bytes - 1 - i))) & 0xF];
	h[2 + 2 * bytes] = '\0';
	jw_str(w, key, h);
}

static void jw_line(struct jw *w)
{
	w->b[w->n++] = '\n'; /* jw_put/jw_ch keep one byte for it */
	fwrite(w->b, 1, w->n, stdout);
}

/* The BTH bits print as 0/1, as the headers hold them. */
static void bth_json(struct jw *w, const struct rp_bth *b)
{
	jw_open(w, "bth", '{');
	jw_int(w, "opcode", b->opcode);
	jw_str(w, "opname", rp_opcode_info(b->opcode)->name);
	jw_int(w, "se", b->se);
	jw_int(w, "m", b->m);
	jw_int(w, "pad", b->pad);
	jw_int(w, "tver", b->tver);
	jw_int(w, "pkey", b->pkey);
	jw_int(w, "fecn", b->fecn);
	jw_int(w, "becn", b->becn);
	jw_int(w, "dqpn", b->dqpn);
	jw_int(w, "ack_req", b->ack_req);
	jw_int(w, "psn", b->psn);
	jw_close(w, '}');
}

static void ext_json(struct jw *w, const struct rp_frame *f)
{
	if (f->ext & RP_EXT_DETH) {
		jw_open(w, "deth", '{');
		jw_int(w, "qkey", f->deth.qkey);
		jw_int(w, "src_qp", f->deth.src_qp);
		jw_close(w, '}');
	}
	if (f->ext & RP_EXT_RETH) {
		jw_open(w, "reth", '{');
		jw_hex(w, "va", f->reth.va, 8);
		jw_hex(w, "rkey", f->reth.rkey, 4);
		jw_int(w, "dma_len", f->reth.dma_len);
		jw_close(w, '}');
	}
	if (f->ext & RP_EXT_ATOMIC_ETH) {
		jw_open(w, "atomic", '{');
		jw_hex(w, "va", f->atomic.va, 8);
		jw_hex(w, "rkey", f->atomic.rkey, 4);
		jw_hex(w, "swap_add", f->atomic.swap_add, 8);
		jw_hex(w, "compare", f->atomic.compare, 8);
		jw_close(w, '}');
	}
	if (f->ext & RP_EXT_AETH) {
		jw_open(w, "aeth", '{');
		jw_int(w, "syndrome", f->aeth.syndrome);
		jw_int(w, "msn", f->aeth.msn);
		jw_close(w, '}');
	}
	if (f->ext & RP_EXT_ATOMIC_ACK)
		jw_hex(w, "atomic_ack", f->atomic_ack, 8);
	if (f->ext & RP_EXT_IMM)
		jw_hex(w, "imm", f->imm, 4);
	if (f->ext & RP_EXT_IETH)
		jw_hex(w, "ieth", f->ieth, 4);
}

static void roce_json(struct jw *w, const struct rp_frame *f)
{
	char src[46], dst[46];
	l3_addrs(f, src, dst);
	jw_str(w, "l3", f->l3 == 4 ? "ipv4" : "ipv6");
	jw_str(w, "src", src);
	jw_str(w, "dst", dst);
	jw_int(w, "dscp", frame_dscp(f));
	jw_int(w, "ecn", frame_ecn(f));
	if (f->l3 == 4) {
		jw_int(w, "ttl", f->ip4.ttl);
	} else {
		jw_int(w, "hop_limit", f->ip6.hop_limit);
		jw_int(w, "flow_label", f->ip6.flow_label);
	}
	jw_int(w, "udp_sport", f->udp.sport);
	jw_int(w, "udp_dport", f->udp.dport);
	bth_json(w, &f->bth);
	ext_json(w, f);
	jw_int(w, "payload_len", (int64_t)f->payload_len);
	if (f->has_probe) {
		jw_open(w, "probe", '{');
		jw_int(w, "flow", f->probe.flow_id);
		jw_int(w, "seq", (int64_t)f->probe.seq);
		jw_int(w, "tx_ns", (int64_t)f->probe.tx_ns);
		jw_close(w, '}');
	}
	if (f->icrc_checked) {
		char icrc[9];
		hex_bytes(f->icrc_wire, RP_ICRC_LEN, icrc);
		jw_str(w, "icrc", icrc);
		jw_bool(w, "icrc_ok", f->icrc_ok);
	}
}

static void print_json_frame(uint64_t n, size_t wire_len, const struct rp_frame *f)
{
	struct jw w = {.n = 0};
	char mac[18];
	jw_open(&w, NULL, '{');
	jw_int(&w, "frame", (int64_t)n);
	jw_int(&w, "len", (int64_t)wire_len);
	jw_str(&w, "kind", rp_frame_kind_name(f->kind));
	if (f->eth.has_vlan) {
		jw_open(&w, "vlan", '{');
		jw_int(&w, "pcp", f->eth.pcp);
		jw_int(&w, "vid", f->eth.vid);
		jw_close(&w, '}');
	}
	switch (f->kind) {
	case RP_KIND_ROCE:
	case RP_KIND_CNP:
		roce_json(&w, f);
		break;
	case RP_KIND_PFC:
		rp_mac_format(f->eth.src, mac);
		jw_str(&w, "src_mac", mac);
		jw_open(&w, "enable", '[');
		for (int p = 0; p < RP_PFC_PRIOS; p++)
			if (f->macctl.enable & (1u << p))
				jw_int(&w, NULL, p);
		jw_close(&w, ']');
		jw_open(&w, "quanta", '[');
		for (int p = 0; p < RP_PFC_PRIOS; p++)
			jw_int(&w, NULL, f->macctl.quanta[p]);
		jw_close(&w, ']');
		break;
	case RP_KIND_PAUSE:
		rp_mac_format(f->eth.src, mac);
		jw_str(&w, "src_mac", mac);
		jw_int(&w, "quanta", f->macctl.quanta[0]);
		break;
	case RP_KIND_OTHER:
	case RP_KIND_MALFORMED:
		/* An IP frame that is not RoCE (or is broken past its IP header)
		 * still says its ECN: CE-marked frames are control to the capture. */
		if (f->l3) {
			jw_str(&w, "l3", f->l3 == 4 ? "ipv4" : "ipv6");
			jw_int(&w, "ecn", frame_ecn(f));
		}
		if (f->kind == RP_KIND_OTHER)
			jw_hex(&w, "ethertype", f->eth.ethertype, 2);
		else
			jw_str(&w, "error", f->error);
		break;
	}
	jw_close(&w, '}');
	jw_line(&w);
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
		struct jw w = {.n = 0};
		jw_open(&w, NULL, '{');
		jw_bool(&w, "summary", true);
		jw_int(&w, "frames", (int64_t)t->frames);
		jw_open(&w, "kinds", '{');
		for (int k = 0; k < KIND_COUNT; k++)
			jw_int(&w, rp_frame_kind_name(k), (int64_t)t->kinds[k]);
		jw_close(&w, '}');
		jw_int(&w, "icrc_bad", (int64_t)t->icrc_bad);
		jw_close(&w, '}');
		jw_line(&w);
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
	while ((c = getopt_long(argc, argv, SHORTS, opts, NULL)) != -1) {
		if (c == 'j') {
			json = true;
		} else if (c == 'h') {
			usage(stdout);
			return RP_EXIT_OK;
		} else {
			return rp_cli_bad_option("decode", SHORTS);
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
			print_json_frame(t.frames, h->len, &f);
		else
			print_text(t.frames, h->len, &f);
	}
	print_summary(&t, json);
	rp_capin_close(&in);
	return rc ? rc : RP_EXIT_OK;
}
