/* inject: the host half of vm-inject. RDMA WRITEs built by lib/wire, sent into a VM's
 * virtual Ethernet segment, must be accepted by rdma_rxe.
 *
 *   this process (fake RC peer, no verbs)            rxe VM (tests/vm/rxe_target.c)
 *   02:00:00:00:00:c8 10.9.0.200 QP 0x0000c8  ==== qemu UDP multicast group ====  eth0/rxe0 RC QP
 *   each datagram on the group is one Ethernet frame (run.sh --mcast GROUP:PORT)
 *
 * The VM reports its QP, rkey, address and expected PSN in --info (written by rxe_target
 * through the 9p share). Then:
 *   1. RC RDMA WRITE ONLY, AckReq, PSN = expected, 301 bytes (pad 3) of pattern A at offset 0:
 *      an RC ACKNOWLEDGE (opcode 0x11, AETH ACK) must come back to our MAC/IP/QPN with PSN =
 *      expected, MSN 1 and a valid ICRC (checked by rp_frame_parse);
 *   2. the same kind of WRITE, PSN + 1, 256 bytes at offset 1024, with its ICRC corrupted:
 *      nothing may come back (rxe drops it before the transport sees it);
 *   3. a valid WRITE, PSN + 1 again, 512 bytes of pattern C at offset 2061: ACK with PSN + 1
 *      and MSN 2 (so the bad packet consumed no PSN and left the QP working);
 * then writes --done, waits for the VM's dump of its region (--dump) and checks it byte for
 * byte: pattern A, zeros where the corrupted write aimed, pattern C, zeros elsewhere.
 *
 * usage: inject --mcast GROUP:PORT --info FILE --done FILE --dump FILE
 *               [--mac 02:00:00:00:00:c8] [--ip 10.9.0.200] [--qpn 0xc8] [--timeout SEC]
 *               [--abort-if FILE]
 * --abort-if FILE: stop waiting for --info or --dump once FILE exists (the VM's rc file).
 * Exit: 0 every check passed; 1 a check failed; 2 usage or setup.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "wire/frame.h"
#include "wire/sport.h"

#define REGION_A_OFF 0u
#define REGION_A_LEN 301u
#define REGION_B_OFF 1024u
#define REGION_B_LEN 256u
#define REGION_C_OFF 2061u
#define REGION_C_LEN 512u
#define MR_MIN_LEN (REGION_C_OFF + REGION_C_LEN)

struct target {
	uint32_t qpn, rkey, psn;
	uint64_t va;
	size_t len;
	uint8_t mac[RP_ETH_ADDR_LEN];
	uint32_t ip;
};

struct ctx {
	int fd;
	struct sockaddr_in group;
	uint8_t mac[RP_ETH_ADDR_LEN];
	uint32_t ip, qpn;
	struct target t;
	int timeout_s;
	int failures;
};

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void setup_fail(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("inject: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(2);
}

static void check(struct ctx *c, bool ok, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	printf("inject: %s: ", ok ? "ok" : "FAIL");
	vprintf(fmt, ap);
	putchar('\n');
	va_end(ap);
	if (!ok)
		c->failures++;
}

/* Joins GROUP:PORT on 127.0.0.1 the way qemu's socket netdev does. */
static int mcast_open(const char *spec, struct sockaddr_in *group)
{
	char host[64];
	unsigned port;
	if (sscanf(spec, "%63[0-9.]:%u", host, &port) != 2 || port == 0 || port > 65535)
		setup_fail("--mcast %s: want GROUP:PORT", spec);
	*group = (struct sockaddr_in){.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	if (inet_pton(AF_INET, host, &group->sin_addr) != 1 || !IN_MULTICAST(ntohl(group->sin_addr.s_addr)))
		setup_fail("--mcast %s: %s is not a multicast group", spec, host);
	int fd = socket(AF_INET, SOCK_DGRAM, 0);
	int one = 1;
	struct ip_mreq mreq = {.imr_multiaddr = group->sin_addr};
	struct in_addr lo = {.s_addr = htonl(INADDR_LOOPBACK)};
	mreq.imr_interface = lo;
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(fd, (const struct sockaddr *)group, sizeof(*group)) ||
	    setsockopt(fd, IPPROTO_IP, IP_ADD_MEMBERSHIP, &mreq, sizeof(mreq)) ||
	    setsockopt(fd, IPPROTO_IP, IP_MULTICAST_LOOP, &one, sizeof(one)) ||
	    setsockopt(fd, IPPROTO_IP, IP_MULTICAST_IF, &lo, sizeof(lo)))
		setup_fail("cannot join %s on 127.0.0.1: %s", spec, strerror(errno));
	return fd;
}

/* Waits for path; gives up early when abort_if (the VM's rc: its job ended) appears. */
static bool wait_file(const char *path, int timeout_s, const char *abort_if)
{
	for (int i = 0; i < timeout_s * 10; i++) {
		if (access(path, R_OK) == 0)
			return true;
		if (abort_if && access(abort_if, F_OK) == 0) {
			usleep(200000); /* a file written just before the job ended */
			break;
		}
		usleep(100000);
	}
	return access(path, R_OK) == 0;
}

static void read_target(const char *path, struct target *t)
{
	FILE *f = fopen(path, "r");
	if (!f)
		setup_fail("cannot read %s: %s", path, strerror(errno));
	char line[256], key[32], val[128];
	unsigned have = 0;
	*t = (struct target){0};
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%31[a-z_]=%127s", key, val) != 2)
			continue;
		if (!strcmp(key, "qpn") && ++have)
			t->qpn = (uint32_t)strtoul(val, NULL, 0);
		else if (!strcmp(key, "rkey") && ++have)
			t->rkey = (uint32_t)strtoul(val, NULL, 0);
		else if (!strcmp(key, "psn") && ++have)
			t->psn = (uint32_t)strtoul(val, NULL, 0);
		else if (!strcmp(key, "va") && ++have)
			t->va = strtoull(val, NULL, 0);
		else if (!strcmp(key, "len") && ++have)
			t->len = strtoul(val, NULL, 0);
		else if (!strcmp(key, "mac") && ++have && rp_mac_parse(val, t->mac) != 0)
			setup_fail("%s: bad mac %s", path, val);
		else if (!strcmp(key, "ip") && ++have && rp_ipv4_addr_parse(val, &t->ip) != 0)
			setup_fail("%s: bad ip %s", path, val);
	}
	fclose(f);
	if (have != 7 || t->len < MR_MIN_LEN)
		setup_fail("%s: want qpn, rkey, psn, va, len (>= %u), mac and ip", path, MR_MIN_LEN);
}

static uint8_t pattern(char which, size_t i)
{
	return which == 'A' ? (uint8_t)(0xA5 ^ (i * 7)) : (uint8_t)(0x3C + i * 13);
}

/* Builds the WRITE ONLY and sends it; returns its PSN-bearing frame length. */
static void send_write(struct ctx *c, const char *name, uint32_t psn, size_t off, size_t len, char pat,
		       bool corrupt_icrc)
{
	uint8_t payload[1024], frame[2048];
	for (size_t i = 0; i < len; i++)
		payload[i] = pattern(pat, i);
	struct rp_roce_spec s = {
		.l3 = 4,
		.ip4 = {.dscp = 26, .ecn = RP_ECN_ECT0, .id = (uint16_t)psn, .df = true, .ttl = 64,
			.src = c->ip, .dst = c->t.ip},
		.udp_sport = rp_sport_select(RP_SPORT_LINUX, c->qpn, c->t.qpn, 0, 0),
		.bth = {.opcode = RP_OP_RC_WRITE_ONLY, .pkey = 0xFFFF, .dqpn = c->t.qpn, .ack_req = true, .psn = psn},
		.reth = {.va = c->t.va + off, .rkey = c->t.rkey, .dma_len = (uint32_t)len},
		.payload = payload,
		.payload_len = len,
	};
	memcpy(s.eth.dst, c->t.mac, RP_ETH_ADDR_LEN);
	memcpy(s.eth.src, c->mac, RP_ETH_ADDR_LEN);
	struct rp_roce_layout lay;
	size_t n = rp_roce_build(frame, sizeof(frame), &s, &lay);
	if (n == 0)
		setup_fail("rp_roce_build failed");
	uint32_t icrc = rp_icrc_load(frame + lay.icrc_off);
	if (corrupt_icrc)
		frame[lay.icrc_off] ^= 0x5A;
	printf("inject: send %s: RC_RDMA_WRITE_ONLY AckReq PSN 0x%06x DestQP 0x%06x VA 0x%llx rkey 0x%08x "
	       "len %zu pad %u sport %u, %zu-byte frame, ICRC 0x%08x%s\n",
	       name, psn, c->t.qpn, (unsigned long long)s.reth.va, c->t.rkey, len, (unsigned)((4 - (len & 3)) & 3),
	       s.udp_sport, n, rp_icrc_load(frame + lay.icrc_off), corrupt_icrc ? " (corrupted on purpose)" : "");
	if (corrupt_icrc)
		printf("inject:   (the valid ICRC would have been 0x%08x)\n", icrc);
	if (sendto(c->fd, frame, n, 0, (const struct sockaddr *)&c->group, sizeof(c->group)) != (ssize_t)n)
		setup_fail("sendto: %s", strerror(errno));
}

/* Next RoCE frame from the VM within timeout_s (other frames are skipped); false on timeout. */
static bool recv_roce(struct ctx *c, double timeout_s, struct rp_frame *f)
{
	static uint8_t buf[70000];
	double end = now_s() + timeout_s;
	for (;;) {
		double left = end - now_s();
		if (left <= 0)
			return false;
		struct pollfd p = {.fd = c->fd, .events = POLLIN};
		if (poll(&p, 1, (int)(left * 1000) + 1) <= 0)
			continue;
		ssize_t n = recv(c->fd, buf, sizeof(buf), 0);
		if (n < RP_ETH_HLEN || memcmp(buf + RP_ETH_ADDR_LEN, c->t.mac, RP_ETH_ADDR_LEN) != 0)
			continue; /* our own frames (multicast loop), other VMs */
		if (rp_frame_parse(buf, (size_t)n, (size_t)n, f) == RP_KIND_ROCE)
			return true;
	}
}

static void describe(const struct rp_frame *f)
{
	char sip[16], dip[16], dmac[18];
	rp_ipv4_addr_format(f->ip4.src, sip);
	rp_ipv4_addr_format(f->ip4.dst, dip);
	rp_mac_format(f->eth.dst, dmac);
	const char *name = rp_opcode_info(f->bth.opcode)->name;
	printf("inject: recv: %s (0x%02x) %s -> %s (%s) sport %u DestQP 0x%06x PSN 0x%06x", name ? name : "?",
	       f->bth.opcode, sip, dip, dmac, f->udp.sport, f->bth.dqpn, f->bth.psn);
	if (f->ext & RP_EXT_AETH)
		printf(" AETH syndrome 0x%02x MSN %u", f->aeth.syndrome, f->aeth.msn);
	printf(" ICRC 0x%08x %s\n", rp_icrc_load(f->icrc_wire), f->icrc_ok ? "valid" : "INVALID");
}

/* Sends a valid write (again every 5 s, as an RC requester retries) until its ACK arrives. */
static void write_expect_ack(struct ctx *c, const char *name, uint32_t psn, size_t off, size_t len, char pat,
			     uint32_t msn)
{
	double t0 = now_s();
	struct rp_frame f;
	bool got = false;
	for (int tries = 0; tries < 4 && !got; tries++) {
		send_write(c, name, psn, off, len, pat, false);
		double end = now_s() + 5;
		while (!got && now_s() < end && recv_roce(c, end - now_s(), &f)) {
			describe(&f);
			got = f.bth.opcode == RP_OP_RC_ACK && f.bth.psn == psn;
		}
	}
	check(c, got, "%s: an RC ACKNOWLEDGE for PSN 0x%06x came back (%.0f ms after the first send)", name, psn,
	      (now_s() - t0) * 1e3);
	if (!got)
		return;
	check(c, f.icrc_checked && f.icrc_ok, "%s: the ACK's ICRC is valid (rp_frame_parse)", name);
	check(c, rp_aeth_kind(f.aeth.syndrome) == RP_AETH_ACK, "%s: AETH syndrome 0x%02x is an ACK", name,
	      f.aeth.syndrome);
	check(c, f.aeth.msn == msn, "%s: AETH MSN %u (want %u)", name, f.aeth.msn, msn);
	check(c, f.bth.dqpn == c->qpn, "%s: ACK DestQP 0x%06x is the injector's QP 0x%06x", name, f.bth.dqpn, c->qpn);
	check(c, f.ip4.dst == c->ip && f.ip4.src == c->t.ip && !memcmp(f.eth.dst, c->mac, RP_ETH_ADDR_LEN),
	      "%s: ACK goes from the VM's IP to the injector's MAC and IP", name);
	uint16_t sport = rp_sport_select(RP_SPORT_LINUX, c->t.qpn, c->qpn, 0, 0);
	check(c, f.udp.sport == sport, "%s: ACK UDP source port %u = lib/wire's Linux flow-label port %u", name,
	      f.udp.sport, sport);
}

static void write_expect_drop(struct ctx *c, const char *name, uint32_t psn, size_t off, size_t len)
{
	send_write(c, name, psn, off, len, 'B', true);
	struct rp_frame f;
	double end = now_s() + 3;
	int answers = 0;
	while (recv_roce(c, end - now_s(), &f)) {
		describe(&f);
		if (f.bth.psn == rp_psn_add(psn, RP_PSN_MASK)) /* a late duplicate ACK of the previous write */
			continue;
		answers++;
	}
	check(c, answers == 0, "%s: nothing came back for the corrupted-ICRC write within 3 s", name);
}

static void check_dump(struct ctx *c, const char *path)
{
	uint8_t *got = malloc(c->t.len), *want = calloc(1, c->t.len);
	FILE *f = fopen(path, "rb");
	size_t n = f ? fread(got, 1, c->t.len, f) : 0;
	if (f)
		fclose(f);
	check(c, n == c->t.len, "the VM dumped its %zu-byte region (%zu bytes read from %s)", c->t.len, n, path);
	for (size_t i = 0; i < REGION_A_LEN; i++)
		want[REGION_A_OFF + i] = pattern('A', i);
	for (size_t i = 0; i < REGION_C_LEN; i++)
		want[REGION_C_OFF + i] = pattern('C', i);
	size_t bad = c->t.len;
	for (size_t i = 0; i < n && bad == c->t.len; i++)
		if (got[i] != want[i])
			bad = i;
	if (n == c->t.len)
		check(c, bad == c->t.len, "VM memory holds pattern A at [%u,%u), pattern C at [%u,%u), zeros elsewhere "
					  "(the corrupted write's [%u,%u) included)%s",
		      REGION_A_OFF, REGION_A_OFF + REGION_A_LEN, REGION_C_OFF, REGION_C_OFF + REGION_C_LEN, REGION_B_OFF,
		      REGION_B_OFF + REGION_B_LEN, bad == c->t.len ? "" : "; first difference below");
	if (bad < c->t.len)
		printf("inject:   offset %zu: VM has 0x%02x, expected 0x%02x\n", bad, got[bad], want[bad]);
	free(got);
	free(want);
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{"mcast", 1, 0, 'm'}, {"info", 1, 0, 'i'}, {"done", 1, 0, 'd'}, {"dump", 1, 0, 'o'},
		{"mac", 1, 0, 'M'},   {"ip", 1, 0, 'I'},   {"qpn", 1, 0, 'Q'},  {"timeout", 1, 0, 't'},
		{"abort-if", 1, 0, 'a'}, {0, 0, 0, 0},
	};
	const char *mcast = NULL, *info = NULL, *done = NULL, *dump = NULL, *mac = "02:00:00:00:00:c8",
		   *ip = "10.9.0.200", *abort_if = NULL;
	struct ctx c = {.qpn = 0xc8, .timeout_s = 180};
	int o;
	while ((o = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (o) {
		case 'm': mcast = optarg; break;
		case 'i': info = optarg; break;
		case 'd': done = optarg; break;
		case 'o': dump = optarg; break;
		case 'M': mac = optarg; break;
		case 'I': ip = optarg; break;
		case 'Q': c.qpn = (uint32_t)strtoul(optarg, NULL, 0) & RP_QPN_MASK; break;
		case 't': c.timeout_s = atoi(optarg); break;
		case 'a': abort_if = optarg; break;
		default: setup_fail("usage: inject --mcast GROUP:PORT --info FILE --done FILE --dump FILE [--mac M] "
				    "[--ip A] [--qpn N] [--timeout SEC] [--abort-if FILE]");
		}
	}
	if (!mcast || !info || !done || !dump)
		setup_fail("--mcast, --info, --done and --dump are required");
	if (rp_mac_parse(mac, c.mac) != 0 || rp_ipv4_addr_parse(ip, &c.ip) != 0)
		setup_fail("bad --mac %s or --ip %s", mac, ip);
	setvbuf(stdout, NULL, _IOLBF, 0);
	c.fd = mcast_open(mcast, &c.group);
	printf("inject: joined %s on 127.0.0.1 as %s %s QP 0x%06x; waiting up to %d s for %s\n", mcast, mac, ip,
	       c.qpn, c.timeout_s, info);

	double t0 = now_s();
	if (!wait_file(info, c.timeout_s, abort_if))
		setup_fail("%s did not appear (timeout %d s, or the VM job ended: see its stderr and console.log)", info, c.timeout_s);
	read_target(info, &c.t);
	char vip[16], vmac[18];
	rp_ipv4_addr_format(c.t.ip, vip);
	rp_mac_format(c.t.mac, vmac);
	printf("inject: VM target after %.1f s: %s %s QP 0x%06x rkey 0x%08x VA 0x%llx len %zu expects PSN 0x%06x\n",
	       now_s() - t0, vmac, vip, c.t.qpn, c.t.rkey, (unsigned long long)c.t.va, c.t.len, c.t.psn);

	uint32_t psn = c.t.psn;
	write_expect_ack(&c, "write 1", psn, REGION_A_OFF, REGION_A_LEN, 'A', 1);
	write_expect_drop(&c, "write 2", rp_psn_add(psn, 1), REGION_B_OFF, REGION_B_LEN);
	write_expect_ack(&c, "write 3", rp_psn_add(psn, 1), REGION_C_OFF, REGION_C_LEN, 'C', 2);

	FILE *d = fopen(done, "w");
	if (!d || fclose(d))
		setup_fail("cannot create %s: %s", done, strerror(errno));
	if (!wait_file(dump, 60, abort_if))
		check(&c, false, "the VM wrote no memory dump %s within 60 s", dump);
	else
		check_dump(&c, dump);
	close(c.fd);
	printf("inject: %s (%d failed checks), %.1f s after start\n", c.failures ? "FAIL" : "PASS",
	       c.failures, now_s() - t0);
	return c.failures ? 1 : 0;
}
