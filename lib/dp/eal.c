#include <dirent.h>
#include <errno.h>
#include <rte_bus_vdev.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_log.h>
#include <rte_mempool.h>
#include <rte_thread.h>
#include <rte_version.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dp.h"
#include "pcap/format.h"
#include "report/outdir.h"

#define MAX_ARGS 256

/* A PCI address ("0000:3b:00.0" or "3b:00.0") goes to -a; anything else is a vdev. */
static bool is_pci(const char *devargs)
{
	unsigned a, b, c, d;
	char tail;
	return sscanf(devargs, "%x:%x:%x.%x%c", &a, &b, &c, &d, &tail) >= 4 ||
	       sscanf(devargs, "%x:%x.%x%c", &a, &b, &c, &tail) >= 3;
}

#define MAP_LCORES 65 /* gen --lcores 64, plus run's sleeping main lcore */

/* "0-3,8-11" (a sysfs cpulist) into cpus; how many (at most max). */
static unsigned parse_cpulist(const char *s, unsigned *cpus, unsigned max)
{
	unsigned n = 0;
	while (*s && n < max) {
		char *end;
		unsigned long lo = strtoul(s, &end, 10), hi = lo;
		if (end == s)
			break;
		if (*end == '-')
			hi = strtoul(end + 1, &end, 10);
		for (unsigned long c = lo; c <= hi && n < max; c++)
			cpus[n++] = (unsigned)c;
		s = *end == ',' ? end + 1 : end;
		if (*s == '\n')
			break;
	}
	return n;
}

/* The CPUs of the NUMA node of the first PCI port that names one (sysfs),
 * so the pollers run on the port's socket; 0 when none does (virtual
 * devices, a one-node machine says node 0 or -1 alike). */
static unsigned port_node_cpus(const struct rp_dp_eal_opts *o, unsigned *cpus, unsigned max)
{
	for (unsigned i = 0; i < o->n_devargs; i++) {
		if (!is_pci(o->devargs[i]))
			continue;
		char path[160], line[512];
		int len = (int)strcspn(o->devargs[i], ","), node = -1;
		bool domain = strchr(o->devargs[i], ':') != strrchr(o->devargs[i], ':');
		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s%.*s/numa_node", domain ? "" : "0000:", len,
			 o->devargs[i]);
		FILE *f = fopen(path, "r");
		if (f) {
			if (fscanf(f, "%d", &node) != 1)
				node = -1;
			fclose(f);
		}
		if (node < 0)
			continue;
		snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/cpulist", node);
		unsigned n = 0;
		if ((f = fopen(path, "r"))) {
			if (fgets(line, sizeof(line), f))
				n = parse_cpulist(line, cpus, max);
			fclose(f);
		}
		if (n)
			return n;
	}
	return 0;
}

static bool hugepages_mounted(void)
{
	FILE *f = fopen("/proc/mounts", "r");
	if (!f)
		return false;
	char line[512];
	bool found = false;
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, " hugetlbfs ") != NULL;
	fclose(f);
	if (!found)
		return false;
	f = fopen("/proc/meminfo", "r");
	if (!f)
		return false;
	long free_pages = 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "HugePages_Free: %ld", &free_pages) == 1)
			break;
	fclose(f);
	return free_pages > 0;
}

static bool user_sets_cores(const char *user_eal)
{
	if (!user_eal)
		return false;
	char *copy = strdup(user_eal), *save = NULL;
	bool found = false;
	for (char *t = strtok_r(copy, " \t", &save); t && !found; t = strtok_r(NULL, " \t", &save))
		found = !strcmp(t, "-l") || !strncmp(t, "-l", 2) || !strcmp(t, "-c") || !strncmp(t, "--lcores", 8);
	free(copy);
	return found;
}

static int push(char **argv, int *argc, const char *s)
{
	if (*argc >= MAX_ARGS - 1)
		return -1;
	argv[(*argc)++] = strdup(s);
	return 0;
}

/* net_pcap's tx_pcap=FILE: its directory made like -o's, or the PMD fails
 * with a message that blames itself. */
static int make_pcap_parents(const char *devargs, char *err, size_t errlen)
{
	char file[4096];
	for (const char *at = NULL; rp_dp_devarg_next(devargs, "tx_pcap", &at, file, sizeof(file));)
		if (rp_outdir_mkparents(file, err, errlen) != 0)
			return -1;
	return 0;
}

/* net_pcap's rx_pcap=FILE must be a capture it can read: else the PMD's
 * three log lines end in "no DPDK port", which blames the driver. */
static int check_pcap_inputs(const char *devargs, char *err, size_t errlen)
{
	char file[4096];
	for (const char *at = NULL; rp_dp_devarg_next(devargs, "rx_pcap", &at, file, sizeof(file));) {
		FILE *f = fopen(file, "rb");
		if (!f) {
			snprintf(err, errlen, "%.*s: rx_pcap=%s: %s", (int)strcspn(devargs, ","), devargs, file, strerror(errno));
			return -1;
		}
		uint8_t m[4] = {0};
		size_t got = fread(m, 1, sizeof(m), f);
		fclose(f);
		uint32_t le = (uint32_t)m[0] | (uint32_t)m[1] << 8 | (uint32_t)m[2] << 16 | (uint32_t)m[3] << 24;
		uint32_t be = __builtin_bswap32(le);
		bool pcap = le == RP_PCAP_MAGIC_US || be == RP_PCAP_MAGIC_US || le == RP_PCAP_MAGIC_NS || be == RP_PCAP_MAGIC_NS;
		if (got < sizeof(m) || !(pcap || le == RP_PCAPNG_SHB)) {
			snprintf(err, errlen, "%.*s: rx_pcap=%s is not a pcap or pcapng file%s", (int)strcspn(devargs, ","),
				 devargs, file, got < sizeof(m) ? " (shorter than its magic number)" : "");
			return -1;
		}
	}
	return 0;
}

/* net_null's RX hands back frames of garbage (LAB-NOTES): every net_null vdev
 * is opened with no-rx=1 unless its devargs say otherwise. Returns the
 * devargs to give the EAL (out, or the original). */
static const char *vdev_args(const char *devargs, char *out, size_t n, bool *rx_off)
{
	*rx_off = false;
	if (strncmp(devargs, "net_null", 8) != 0 || strstr(devargs, "no-rx"))
		return devargs;
	snprintf(out, n, "%s,no-rx=1", devargs);
	*rx_off = true;
	return out;
}

/* The EAL's runtime directory (/var/run/dpdk/rpPID: about 13 MB of tmpfs,
 * i.e. RAM, with shared config) is removed on every way out once the EAL
 * created it; only ever our own prefix. */
static char runtime_dir[4096];
static bool eal_running;
static bool keep; /* rp_dp_eal_keep: the EAL outlives a session; vdevs hot-plugged */
static char plugged[RP_DP_MAX_PORTS][64]; /* this session's, by name */
static unsigned nplugged;

static void remove_dir(const char *dir)
{
	DIR *d = opendir(dir);
	if (d) {
		struct dirent *e;
		char path[4400];
		while ((e = readdir(d)) != NULL) {
			if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
				continue;
			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
			unlink(path);
		}
		closedir(d);
	}
	rmdir(dir);
}

static void remove_runtime_dir(void)
{
	if (!runtime_dir[0])
		return;
	remove_dir(runtime_dir);
	runtime_dir[0] = '\0';
}

/* Ours (rpPID) of processes that are gone: killed by SIGKILL inside
 * rte_eal_init, before theirs could be removed (srun answers a SIGTERM with
 * SIGKILL to every task). Where the EAL puts them: /var/run/dpdk for root. */
static void remove_dead_runtime_dirs(void)
{
	const char *base = getuid() == 0 ? "/var/run" : getenv("XDG_RUNTIME_DIR") ? getenv("XDG_RUNTIME_DIR") : "/tmp";
	char top[4096], dir[4400];
	snprintf(top, sizeof(top), "%s/dpdk", base);
	DIR *d = opendir(top);
	struct dirent *e;
	while (d && (e = readdir(d)) != NULL) {
		char *end;
		if (strncmp(e->d_name, "rp", 2) != 0 || !e->d_name[2])
			continue;
		long pid = strtol(e->d_name + 2, &end, 10);
		if (*end || pid <= 0 || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		snprintf(dir, sizeof(dir), "%s/%s", top, e->d_name);
		remove_dir(dir);
	}
	if (d)
		closedir(d);
}

/* Takes the directory only if it is the one our --file-prefix named. */
static void note_runtime_dir(const char *prefix)
{
	const char *dir = rte_eal_get_runtime_dir();
	const char *base = dir ? strrchr(dir, '/') : NULL;
	if (base && !strcmp(base + 1, prefix) && strlen(dir) < sizeof(runtime_dir))
		snprintf(runtime_dir, sizeof(runtime_dir), "%s", dir);
}

static void at_exit(void)
{
	remove_runtime_dir();
}

/* The devices of o: PCI ones to -a and virtual ones to --vdev in argv, or
 * with argv NULL (a kept EAL) each virtual one hot-plugged now; pair: ports
 * are made when opened. */
static int devices(const struct rp_dp_eal_opts *o, char **argv, int *argc, bool *any_pci, char *err, size_t errlen)
{
	static char vdevs[RP_DP_MAX_PORTS][320];
	char no_rx[256] = "";
	for (unsigned i = 0; i < o->n_devargs && i < RP_DP_MAX_PORTS; i++) {
		if (rp_dp_is_pair(o->devargs[i]))
			continue;
		bool pci = is_pci(o->devargs[i]), rx_off = false;
		*any_pci |= pci;
		if (pci && !argv) {
			snprintf(err, errlen, "port %s: a PCI device in a DPDK kept across runs (only virtual ports are "
				 "hot-plugged)", o->devargs[i]);
			return -1;
		}
		if (make_pcap_parents(o->devargs[i], err, errlen) != 0 || check_pcap_inputs(o->devargs[i], err, errlen) != 0)
			return -1;
		const char *args = pci ? o->devargs[i] : vdev_args(o->devargs[i], vdevs[i], sizeof(vdevs[i]), &rx_off);
		if (argv) {
			push(argv, argc, pci ? "-a" : "--vdev");
			push(argv, argc, args);
		} else {
			char name[64];
			size_t len = strcspn(args, ",");
			snprintf(name, sizeof(name), "%.*s", (int)len, args);
			int rc = rte_vdev_init(name, args[len] ? args + len + 1 : NULL);
			if (rc != 0) {
				snprintf(err, errlen, "port %s: cannot add the virtual device (%s)", name, rte_strerror(-rc));
				return -1;
			}
			memcpy(plugged[nplugged++], name, sizeof(name));
		}
		if (rx_off && strlen(no_rx) + 70 < sizeof(no_rx)) {
			char name[64];
			snprintf(name, sizeof(name), "%.*s", (int)strcspn(o->devargs[i], ","), o->devargs[i]);
			snprintf(no_rx + strlen(no_rx), sizeof(no_rx) - strlen(no_rx), "%s%s", no_rx[0] ? ", " : "", name);
		}
	}
	if (no_rx[0])
		fprintf(stderr, "roceprobe %s: %s opened with no-rx=1 (net_null's RX hands back garbage frames): "
				"nothing is received there\n", o->who, no_rx);
	return 0;
}

static void session_release(void);

/* A kept EAL: the session's virtual devices hot-plugged, or none left behind. */
static int plug(const struct rp_dp_eal_opts *o, char *err, size_t errlen)
{
	int argc = 0;
	bool any_pci = false;
	if (devices(o, NULL, &argc, &any_pci, err, errlen) == 0)
		return 0;
	session_release();
	return -1;
}

static void no_huge_said(const struct rp_dp_eal_opts *o)
{
	if (!o->huge_said)
		fprintf(stderr, "roceprobe %s: no hugepages mounted; running DPDK with --no-huge -m 1024 --no-shconf "
			"(fine for virtual ports; mount hugepages for NICs)\n", o->who);
}

int rp_dp_eal_init(const struct rp_dp_eal_opts *o, char *err, size_t errlen)
{
	static char *argv[MAX_ARGS];
	int argc = 0;
	char buf[64], prefix[32];
	bool any_pci = false, huge = hugepages_mounted();

	if (keep && eal_running) { /* a kept EAL: this session's devices, said as a start says them */
		if (!huge)
			no_huge_said(o);
		return plug(o, err, errlen);
	}

	push(argv, &argc, "roceprobe");
	/* The user's own core list wins: two processes on one machine should not
	 * both poll on CPU 0. */
	static char map[MAP_LCORES * 12 + 16];
	static unsigned node_cpu[1024];
	unsigned nnode = user_sets_cores(o->user_eal) ? 0 : port_node_cpus(o, node_cpu, 1024);
	if (!user_sets_cores(o->user_eal) && (o->main_idle || nnode)) {
		/* CPUs of the (first) PCI port's NUMA node when sysfs names one, else
		 * all. With main_idle the main lcore (it sleeps) on first_core and
		 * worker k on the CPUs from first_core on, round-robin: more lcores
		 * than CPUs share them; else lcore k on CPU first_core + k. */
		long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
		unsigned n = nnode ? nnode : ncpu > 0 ? (unsigned)ncpu : 1;
		unsigned w = o->lcores < MAP_LCORES - 1 ? o->lcores : MAP_LCORES - 1;
		unsigned last = o->main_idle ? w : (w ? w - 1 : 0);
		map[0] = '\0';
		for (unsigned k = 0; k <= last; k++) {
			unsigned at = o->main_idle && k ? o->first_core + k - 1 : o->first_core + k;
			unsigned cpu = nnode ? node_cpu[at % n] : at % n;
			snprintf(map + strlen(map), sizeof(map) - strlen(map), "%s%u@%u", k ? "," : "--lcores=", k, cpu);
		}
		push(argv, &argc, map);
	} else if (!user_sets_cores(o->user_eal)) {
		snprintf(buf, sizeof(buf), "%u-%u", o->first_core, o->first_core + (o->lcores ? o->lcores - 1 : 0));
		push(argv, &argc, "-l");
		push(argv, &argc, buf);
	}
	snprintf(prefix, sizeof(prefix), "rp%ld", (long)getpid());
	snprintf(buf, sizeof(buf), "--file-prefix=%s", prefix);
	push(argv, &argc, buf);
	push(argv, &argc, "--log-level=5");
	if (o->no_telemetry)
		push(argv, &argc, "--no-telemetry");
	if (!huge) {
		no_huge_said(o);
		push(argv, &argc, "--no-huge");
		push(argv, &argc, "-m");
		push(argv, &argc, "1024");
		/* No secondary process can attach to a --no-huge primary anyway
		 * (LAB-NOTES): no shared files, nothing left in the runtime dir. */
		push(argv, &argc, "--no-shconf");
	}
	for (unsigned i = 0; keep && i < o->n_devargs; i++)
		if (!rp_dp_is_pair(o->devargs[i]) && is_pci(o->devargs[i]))
			return devices(o, NULL, &argc, &any_pci, err, errlen); /* its line */
	if (!keep && devices(o, argv, &argc, &any_pci, err, errlen) != 0)
		return -1;
	if (!any_pci)
		push(argv, &argc, "--no-pci");
	if (o->user_eal) {
		char *copy = strdup(o->user_eal), *save = NULL;
		for (char *t = strtok_r(copy, " \t", &save); t; t = strtok_r(NULL, " \t", &save))
			if (push(argv, &argc, t) < 0) {
				free(copy);
				snprintf(err, errlen, "too many EAL arguments");
				return -1;
			}
		free(copy);
	}
	argv[argc] = NULL;

	/* EAL logs to stdout by default; stdout carries --json output. */
	rte_openlog_stream(stderr);
	static bool exit_set;
	if (!exit_set)
		exit_set = atexit(at_exit) == 0;
	/* Said as given: rte_eal_init reorders argv (getopt). */
	char given[1024] = "";
	for (int i = 1; i < argc && strlen(given) + strlen(argv[i]) + 2 < sizeof(given); i++) {
		strcat(given, " ");
		strcat(given, argv[i]);
	}
	remove_dead_runtime_dirs();
	int rc = rte_eal_init(argc, argv);
	note_runtime_dir(prefix);
	if (rc < 0) {
		remove_runtime_dir();
		snprintf(err, errlen, "DPDK EAL init failed (%s); EAL arguments were:%s", rte_strerror(rte_errno), given);
		return -1;
	}
	eal_running = true;
	/* --no-shconf keeps nothing else there after the start (no config, no MP
	 * socket, nothing a secondary could attach to): without telemetry it is
	 * removed now, so a process killed with SIGKILL (a launcher's last word
	 * to a rank) leaves no directory either. With telemetry it holds the
	 * socket dpdk-telemetry.py attaches to until the exit (at_exit), and the
	 * next start removes a dead process's (remove_dead_runtime_dirs). */
	if (!huge && o->no_telemetry)
		remove_runtime_dir();
	rp_dp_clock_calibrate();
	return keep ? plug(o, err, errlen) : 0;
}

#define MAX_POOLS 1024

static void note_pool(struct rte_mempool *mp, void *arg)
{
	struct rte_mempool **pools = arg;
	for (unsigned i = 0; i < MAX_POOLS; i++)
		if (!pools[i]) {
			pools[i] = mp;
			return;
		}
}

/* A kept EAL after a session (its ports closed): the frames left in pair:
 * rings, every virtual device and every mempool gone, as at a new start. */
static void session_release(void)
{
	rp_dp_pair_release();
	for (unsigned i = 0; i < nplugged; i++)
		rte_vdev_uninit(plugged[i]);
	nplugged = 0;
	static struct rte_mempool *pools[MAX_POOLS];
	memset(pools, 0, sizeof(pools));
	rte_mempool_walk(note_pool, pools);
	for (unsigned i = 0; i < MAX_POOLS && pools[i]; i++)
		rte_mempool_free(pools[i]);
}

void rp_dp_eal_keep(bool on)
{
	keep = on;
	if (!on)
		rp_dp_eal_cleanup();
}

void rp_dp_eal_cleanup(void)
{
	if (keep && eal_running) {
		session_release();
		return;
	}
	if (eal_running)
		rte_eal_cleanup();
	eal_running = false;
	remove_runtime_dir();
}

int rp_dp_pin_poller(int cpu)
{
	rte_cpuset_t set;
	if (cpu < 0)
		return 0;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return rte_thread_set_affinity(&set) == 0 ? 0 : -1;
}

unsigned rp_dp_lcore_count(void)
{
	return rte_lcore_count();
}

const char *rp_dp_version(void)
{
	return rte_version();
}

void rp_dp_lcore_cpus(cpu_set_t *out)
{
	CPU_ZERO(out);
	unsigned lc;
	RTE_LCORE_FOREACH(lc) {
		rte_cpuset_t s = rte_lcore_cpuset(lc);
		CPU_OR(out, out, &s);
	}
}
