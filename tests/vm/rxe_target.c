/* rxe_target: the VM half of vm-inject. Runs inside an rxe VM.
 *
 * Registers a zeroed memory region, creates an RC QP and moves it INIT -> RTR -> RTS toward
 * a remote that does not exist as a verbs QP: the host's frame injector (tests/vm/inject.c),
 * named by an IPv4 address (its GID is ::ffff:IP) and a QPN. The caller must have added a
 * static neighbour entry for that IP, so that the address resolution of modify_qp(RTR) and
 * rxe's ACKs need no ARP answer. Then it writes what the injector needs
 *
 *     qpn=0x000011 rkey=0x00000abc va=0x... len=3072 psn=0x123456 mtu=1024
 *     mac=52:54:00:9a:00:01 ip=10.9.0.1 gid=... gid_index=1
 *
 * (one key=value per line) to --info atomically, waits until the file --done appears (the
 * injector has finished), and dumps the region to --dump (atomically) with the QP's state.
 *
 * usage: rxe_target --peer-ip A.B.C.D --peer-qpn N [--dev rxe0] [--port 1] [--gid-index N]
 *                   [--netdev eth0] [--psn N] [--len BYTES] --info FILE --done FILE
 *                   --dump FILE [--wait SEC]
 * Exit: 0 done seen and memory dumped; 1 a verbs call failed or --done never appeared;
 * 2 usage.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <infiniband/verbs.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct opts {
	const char *dev, *netdev, *peer_ip, *info, *done, *dump;
	int port, gid_index;
	uint32_t peer_qpn, psn;
	size_t len;
	int wait_s;
};

static void die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("rxe_target: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

static void usage(void)
{
	fputs("usage: rxe_target --peer-ip A.B.C.D --peer-qpn N [--dev rxe0] [--port 1] [--gid-index N]\n"
	      "                  [--netdev eth0] [--psn N] [--len BYTES] --info FILE --done FILE\n"
	      "                  --dump FILE [--wait SEC]\n",
	      stderr);
	exit(2);
}

static void parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{"dev", 1, 0, 'd'},      {"port", 1, 0, 'p'},     {"gid-index", 1, 0, 'g'}, {"netdev", 1, 0, 'n'},
		{"peer-ip", 1, 0, 'I'},  {"peer-qpn", 1, 0, 'Q'}, {"psn", 1, 0, 'P'},       {"len", 1, 0, 'l'},
		{"info", 1, 0, 'i'},     {"done", 1, 0, 'D'},     {"dump", 1, 0, 'o'},      {"wait", 1, 0, 'w'},
		{0, 0, 0, 0},
	};
	*o = (struct opts){.dev = "rxe0", .netdev = "eth0", .port = 1, .gid_index = 1, .len = 3072, .wait_s = 120};
	srand((unsigned)time(NULL) ^ (unsigned)getpid());
	o->psn = ((uint32_t)rand() ^ ((uint32_t)rand() << 12)) & 0xFFFFFF;
	int c;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'd': o->dev = optarg; break;
		case 'p': o->port = atoi(optarg); break;
		case 'g': o->gid_index = atoi(optarg); break;
		case 'n': o->netdev = optarg; break;
		case 'I': o->peer_ip = optarg; break;
		case 'Q': o->peer_qpn = (uint32_t)strtoul(optarg, NULL, 0) & 0xFFFFFF; break;
		case 'P': o->psn = (uint32_t)strtoul(optarg, NULL, 0) & 0xFFFFFF; break;
		case 'l': o->len = strtoul(optarg, NULL, 0); break;
		case 'i': o->info = optarg; break;
		case 'D': o->done = optarg; break;
		case 'o': o->dump = optarg; break;
		case 'w': o->wait_s = atoi(optarg); break;
		default: usage();
		}
	}
	if (!o->peer_ip || !o->peer_qpn || !o->info || !o->done || !o->dump || o->len == 0 || optind != argc)
		usage();
}

/* Writes len bytes to path through path.tmp and a rename, so a reader never sees half. */
static void write_atomic(const char *path, const void *buf, size_t len)
{
	char tmp[4096];
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	FILE *f = fopen(tmp, "wb");
	if (!f || fwrite(buf, 1, len, f) != len || fflush(f) || fsync(fileno(f)) || fclose(f))
		die("cannot write %s: %s", tmp, strerror(errno));
	if (rename(tmp, path))
		die("cannot rename %s to %s: %s", tmp, path, strerror(errno));
}

static void read_mac(const char *netdev, char out[18])
{
	char path[256];
	snprintf(path, sizeof(path), "/sys/class/net/%s/address", netdev);
	FILE *f = fopen(path, "r");
	if (!f || !fgets(out, 18, f))
		die("cannot read %s", path);
	fclose(f);
}

static struct ibv_context *open_dev(const char *name)
{
	int n;
	struct ibv_device **list = ibv_get_device_list(&n);
	if (!list || n == 0)
		die("no RDMA device (is rdma_rxe loaded and rxe0 added?)");
	struct ibv_context *ctx = NULL;
	for (int i = 0; i < n; i++)
		if (strcmp(ibv_get_device_name(list[i]), name) == 0)
			ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	if (!ctx)
		die("cannot open RDMA device %s", name);
	return ctx;
}

static void to_rts(struct ibv_qp *qp, const struct opts *o, const union ibv_gid *dgid)
{
	struct ibv_qp_attr a = {.qp_state = IBV_QPS_INIT, .pkey_index = 0, .port_num = (uint8_t)o->port,
				.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ};
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		die("modify_qp INIT: %s", strerror(errno));

	a = (struct ibv_qp_attr){.qp_state = IBV_QPS_RTR, .path_mtu = IBV_MTU_1024, .dest_qp_num = o->peer_qpn,
				 .rq_psn = o->psn, .max_dest_rd_atomic = 1, .min_rnr_timer = 12};
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = *dgid;
	a.ah_attr.grh.sgid_index = (uint8_t)o->gid_index;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.port_num = (uint8_t)o->port;
	if (ibv_modify_qp(qp, &a,
			  IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
				  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		die("modify_qp RTR toward %s: %s (is there a static neighbour entry for it?)", o->peer_ip,
		    strerror(errno));

	a = (struct ibv_qp_attr){.qp_state = IBV_QPS_RTS, .timeout = 14, .retry_cnt = 7, .rnr_retry = 7,
				 .sq_psn = 0, .max_rd_atomic = 1};
	if (ibv_modify_qp(qp, &a,
			  IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
				  IBV_QP_MAX_QP_RD_ATOMIC))
		die("modify_qp RTS: %s", strerror(errno));
}

static const char *state_name(enum ibv_qp_state s)
{
	static const char *const n[] = {"RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR"};
	return (unsigned)s < sizeof(n) / sizeof(n[0]) ? n[s] : "UNKNOWN";
}

int main(int argc, char **argv)
{
	struct opts o;
	parse_opts(argc, argv, &o);
	setvbuf(stdout, NULL, _IOLBF, 0);

	struct in_addr peer;
	if (inet_pton(AF_INET, o.peer_ip, &peer) != 1)
		die("--peer-ip %s is not an IPv4 address", o.peer_ip);
	union ibv_gid dgid = {0};
	dgid.raw[10] = dgid.raw[11] = 0xff;
	memcpy(&dgid.raw[12], &peer.s_addr, 4);

	struct ibv_context *ctx = open_dev(o.dev);
	union ibv_gid sgid;
	if (ibv_query_gid(ctx, (uint8_t)o.port, o.gid_index, &sgid))
		die("ibv_query_gid %s:%d index %d failed", o.dev, o.port, o.gid_index);
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	size_t alloc = (o.len + 4095) & ~(size_t)4095;
	uint8_t *buf = NULL;
	if (!pd || posix_memalign((void **)&buf, 4096, alloc))
		die("alloc_pd / memory: %s", strerror(errno));
	memset(buf, 0, alloc);
	struct ibv_mr *mr = ibv_reg_mr(pd, buf, o.len, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	struct ibv_cq *cq = mr ? ibv_create_cq(ctx, 4, NULL, NULL, 0) : NULL;
	if (!cq)
		die("reg_mr / create_cq: %s", strerror(errno));
	struct ibv_qp_init_attr qia = {.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
				       .cap = {.max_send_wr = 1, .max_recv_wr = 1, .max_send_sge = 1, .max_recv_sge = 1}};
	struct ibv_qp *qp = ibv_create_qp(pd, &qia);
	if (!qp)
		die("create_qp: %s", strerror(errno));
	to_rts(qp, &o, &dgid);

	char mac[18], ip[INET_ADDRSTRLEN], gid[33], info[1024];
	read_mac(o.netdev, mac);
	inet_ntop(AF_INET, &sgid.raw[12], ip, sizeof(ip));
	for (int i = 0; i < 16; i++)
		snprintf(gid + 2 * i, 3, "%02x", sgid.raw[i]);
	int n = snprintf(info, sizeof(info),
			 "qpn=0x%06x\nrkey=0x%08x\nva=0x%016llx\nlen=%zu\npsn=0x%06x\nmtu=1024\nmac=%s\nip=%s\n"
			 "gid=%s\ngid_index=%d\npeer_ip=%s\npeer_qpn=0x%06x\n",
			 qp->qp_num, mr->rkey, (unsigned long long)(uintptr_t)buf, o.len, o.psn, mac, ip, gid,
			 o.gid_index, o.peer_ip, o.peer_qpn);
	write_atomic(o.info, info, (size_t)n);
	printf("rxe_target: QP 0x%06x RTS toward %s QP 0x%06x; MR rkey 0x%08x va %p len %zu; expects PSN 0x%06x\n",
	       qp->qp_num, o.peer_ip, o.peer_qpn, mr->rkey, (void *)buf, o.len, o.psn);

	int waited = 0;
	while (access(o.done, F_OK) != 0) {
		if (waited >= o.wait_s * 10)
			die("%s did not appear within %d s", o.done, o.wait_s);
		usleep(100000);
		waited++;
	}
	struct ibv_qp_attr qa;
	struct ibv_qp_init_attr qi;
	const char *st = ibv_query_qp(qp, &qa, IBV_QP_STATE, &qi) ? "?" : state_name(qa.qp_state);
	printf("rxe_target: injector done after %.1f s; QP state %s; dumping %zu bytes to %s\n", waited / 10.0, st,
	       o.len, o.dump);
	write_atomic(o.dump, buf, o.len);

	ibv_destroy_qp(qp);
	ibv_destroy_cq(cq);
	ibv_dereg_mr(mr);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	free(buf);
	return 0;
}
