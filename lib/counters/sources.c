/* Reading each kind of source into raw counters, then one snapshot. */
#include "counters/sources.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "counters/ethtool.h"
#include "counters/sonic.h"

static const struct {
	const char *name;
	enum rp_cnt_kind kind;
} kinds[] = {
	{"ethtool", RP_CNT_ETHTOOL},           {"sysfs", RP_CNT_SYSFS},       {"rdma", RP_CNT_RDMA},
	{"ethtool-file", RP_CNT_ETHTOOL_FILE}, {"rdma-dir", RP_CNT_RDMA_DIR},    {"exec", RP_CNT_EXEC},
};

#define KINDS \
	"ethtool:IFACE, sysfs:IFACE, rdma:DEV, ethtool-file:PATH, rdma-dir:PATH, sonic://HOST[:PORT], snmp://HOST[:PORT] " \
	"or exec:CMD"

/* SCHEME://HOST[:PORT] (sonic, snmp), HOST a name, an IPv4 address or [IPv6]. */
static int parse_url(const char *spec, const char *scheme, enum rp_cnt_kind kind, int defport, struct rp_cnt_source *s,
		     char *err, size_t errlen)
{
	const char *h = spec + strlen(scheme) + 3, *end;
	size_t hl;
	if (*h == '[') {
		end = strchr(h, ']');
		if (!end) {
			snprintf(err, errlen, "source '%s': an IPv6 address goes in [ ]: %s://[ADDR]:PORT", spec, scheme);
			return -1;
		}
		h++;
		hl = (size_t)(end - h);
		end++;
	} else {
		end = strchr(h, ':');
		end = end ? end : h + strlen(h);
		hl = (size_t)(end - h);
	}
	s->tcp_port = defport;
	if (*end == ':') {
		char *e;
		errno = 0;
		long p = strtol(end + 1, &e, 10);
		if (!end[1] || *e || errno || p < 1 || p > 65535) {
			snprintf(err, errlen, "source '%s': port '%s' is not 1..65535", spec, end + 1);
			return -1;
		}
		s->tcp_port = (int)p;
	} else if (*end) {
		snprintf(err, errlen, "source '%s': expected %s://HOST[:PORT]", spec, scheme);
		return -1;
	}
	if (!hl || hl >= sizeof(s->host) || strlen(spec) >= sizeof(s->spec) || strchr(h, '/')) {
		snprintf(err, errlen, "source '%s': expected %s://HOST[:PORT] (the switch's management address)", spec,
			 scheme);
		return -1;
	}
	snprintf(s->host, sizeof(s->host), "%.*s", (int)hl, h);
	s->kind = kind;
	snprintf(s->spec, sizeof(s->spec), "%s", spec);
	snprintf(s->arg, sizeof(s->arg), "%.299s", spec + strlen(scheme) + 3);
	return 0;
}

bool rp_cnt_source_is_switch(const struct rp_cnt_source *s)
{
	return s->kind == RP_CNT_SONIC || s->kind == RP_CNT_SNMP || s->kind == RP_CNT_EXEC;
}

int rp_cnt_source_parse(const char *spec, struct rp_cnt_source *s, char *err, size_t errlen)
{
	memset(s, 0, sizeof(*s));
	if (strncmp(spec, "sonic://", 8) == 0)
		return parse_url(spec, "sonic", RP_CNT_SONIC, RP_SONIC_PORT, s, err, errlen);
	if (strncmp(spec, "snmp://", 7) == 0)
		return parse_url(spec, "snmp", RP_CNT_SNMP, RP_SNMP_PORT, s, err, errlen);
	const char *colon = strchr(spec, ':');
	if (colon && colon[1] && strlen(spec) < sizeof(s->spec) && strlen(colon + 1) < sizeof(s->arg))
		for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
			if (strlen(kinds[i].name) == (size_t)(colon - spec) && strncmp(spec, kinds[i].name, (size_t)(colon - spec)) == 0) {
				s->kind = kinds[i].kind;
				snprintf(s->spec, sizeof(s->spec), "%s", spec);
				snprintf(s->arg, sizeof(s->arg), "%s", colon + 1);
				return 0;
			}
	snprintf(err, errlen, "source '%s': expected " KINDS, spec);
	return -1;
}

size_t rp_ctr_read_dir(const char *dir, enum rp_ctr_src src, struct rp_ctr *out, size_t max)
{
	DIR *d = opendir(dir);
	if (!d)
		return 0;
	size_t n = 0;
	struct dirent *e;
	while ((e = readdir(d)) && n < max) {
		if (e->d_name[0] == '.')
			continue;
		char path[768];
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		FILE *f = fopen(path, "r");
		if (!f)
			continue;
		uint64_t v;
		/* Some counters fail to read (EINVAL on unsupported ones): skip. */
		if (fscanf(f, "%" SCNu64, &v) == 1) {
			struct rp_ctr *c = &out[n++];
			snprintf(c->name, sizeof(c->name), "%.63s", e->d_name);
			c->src = (uint8_t)src;
			c->value = v;
		}
		fclose(f);
	}
	closedir(d);
	return n;
}

int rp_ctr_parse_ethtool_text(const char *text, size_t len, struct rp_ctr **out, char *err, size_t errlen)
{
	size_t n = 0, cap = 0, lineno = 0;
	*out = NULL;
	const char *p = text, *end = text + len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl : end;
		char line[512];
		lineno++;
		snprintf(line, sizeof(line), "%.*s", (int)(e - p < 511 ? e - p : 511), p);
		p = nl ? nl + 1 : end;
		size_t l = strlen(line);
		while (l && (line[l - 1] == '\r' || line[l - 1] == ' ' || line[l - 1] == '\t'))
			line[--l] = '\0';
		char *s = line;
		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s)
			continue;
		if (s == line && line[l - 1] == ':') /* "NIC statistics:" */
			continue;
		char *colon = strrchr(s, ':');
		char *num = colon ? colon + 1 : NULL, *numend = NULL;
		while (num && *num == ' ')
			num++;
		errno = 0;
		uint64_t v = num && *num >= '0' && *num <= '9' ? strtoull(num, &numend, 10) : 0;
		if (!colon || !numend || *numend || errno || colon == s) {
			snprintf(err, errlen, "line %zu is not 'name: value' as `ethtool -S IFACE` prints it: '%.80s'", lineno, s);
			free(*out);
			*out = NULL;
			return -1;
		}
		*colon = '\0';
		l = strlen(s);
		while (l && s[l - 1] == ' ')
			s[--l] = '\0';
		if (n == cap) {
			cap = cap ? cap * 2 : 256;
			struct rp_ctr *g = realloc(*out, cap * sizeof(*g));
			if (!g) {
				snprintf(err, errlen, "out of memory");
				free(*out);
				*out = NULL;
				return -1;
			}
			*out = g;
		}
		struct rp_ctr *c = &(*out)[n++];
		snprintf(c->name, sizeof(c->name), "%.63s", s);
		c->src = RP_CTR_ETH;
		c->value = v;
	}
	if (!n) {
		snprintf(err, errlen, "no statistics in it (expected `ethtool -S IFACE` output: 'NIC statistics:' then 'name: value' lines)");
		return -1;
	}
	return (int)n;
}

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static bool is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Every counter file of dir (and of its counters/ and hw_counters/ when
 * given a port directory) folded into p. Returns how many were read. */
#define DIR_MAX 4096
static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct rp_ctr *)a)->name, ((const struct rp_ctr *)b)->name);
}

/* Its own buffer each call: a run's sampler thread reads while the verbs
 * engine reads its device's counters. */
static size_t fold_dir(struct rp_cnt_port *p, const char *dir, enum rp_ctr_src src)
{
	struct rp_ctr *buf = malloc(DIR_MAX * sizeof(*buf));
	if (!buf)
		return 0;
	size_t n = rp_ctr_read_dir(dir, src, buf, DIR_MAX);
	qsort(buf, n, sizeof(buf[0]), by_name); /* readdir's order is no order */
	rp_cnt_port_fold(p, buf, n);
	free(buf);
	return n;
}

static size_t fold_ib_port(struct rp_cnt_port *p, const char *portdir)
{
	char d[700];
	snprintf(d, sizeof(d), "%s/counters", portdir);
	size_t n = fold_dir(p, d, RP_CTR_PORT);
	snprintf(d, sizeof(d), "%s/hw_counters", portdir);
	return n + fold_dir(p, d, RP_CTR_HW);
}

static int read_rdma(const struct rp_cnt_source *s, struct rp_cnt_snap *out, char *err, size_t errlen)
{
	const char *root = s->ib_root[0] ? s->ib_root : "/sys/class/infiniband";
	char dir[600];
	snprintf(dir, sizeof(dir), "%s/%s/ports", root, s->arg);
	DIR *d = opendir(dir);
	if (!d) {
		char have[200] = "";
		DIR *r = opendir(root);
		struct dirent *e;
		while (r && (e = readdir(r)))
			if (e->d_name[0] != '.' && strlen(have) + strlen(e->d_name) + 3 < sizeof(have))
				snprintf(have + strlen(have), sizeof(have) - strlen(have), "%s%s", have[0] ? ", " : "", e->d_name);
		if (r)
			closedir(r);
		snprintf(err, errlen, "%s: no RDMA device '%s' in %s (%s%s)", s->spec, s->arg, root,
			 have[0] ? "have: " : "none here: load rdma_rxe or an HCA driver, 'rdma link' lists them", have);
		return -1;
	}
	unsigned ports[RP_CNT_PORTS_MAX];
	size_t np = 0;
	struct dirent *e;
	while ((e = readdir(d)) && np < RP_CNT_PORTS_MAX) {
		char *end;
		unsigned long n = strtoul(e->d_name, &end, 10);
		if (e->d_name[0] >= '1' && e->d_name[0] <= '9' && !*end && (!s->port || n == s->port))
			ports[np++] = (unsigned)n;
	}
	closedir(d);
	if (!np) {
		snprintf(err, errlen, "%s: no port %u (ls %s)", s->spec, s->port, dir);
		return -1;
	}
	for (size_t i = 1; i < np; i++) /* readdir's order is no order */
		for (size_t j = i; j > 0 && ports[j - 1] > ports[j]; j--) {
			unsigned t = ports[j];
			ports[j] = ports[j - 1];
			ports[j - 1] = t;
		}
	for (size_t i = 0; i < np; i++) {
		char name[96], pdir[700];
		snprintf(name, sizeof(name), "%.80s/%u", s->arg, ports[i]);
		snprintf(pdir, sizeof(pdir), "%s/%u", dir, ports[i]);
		fold_ib_port(rp_cnt_add_port(out, name), pdir);
	}
	return 0;
}

static int read_file(const char *path, char **text, size_t *len, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		snprintf(err, errlen, "%s", strerror(errno));
		return -1;
	}
	size_t cap = 1 << 16, n = 0;
	char *b = malloc(cap);
	size_t r;
	while (b && (r = fread(b + n, 1, cap - n, f)) > 0) {
		n += r;
		if (n == cap && cap < (64u << 20)) {
			char *g = realloc(b, cap *= 2);
			if (!g) {
				free(b);
				b = NULL;
			}
			b = g;
		} else if (n == cap)
			break;
	}
	bool bad = ferror(f);
	fclose(f);
	if (!b || bad) {
		free(b);
		snprintf(err, errlen, "%s", bad ? "read error" : "out of memory");
		return -1;
	}
	*text = b;
	*len = n;
	return 0;
}

static const char *base_name(const char *path)
{
	size_t l = strlen(path);
	while (l > 1 && path[l - 1] == '/')
		l--;
	const char *b = path + l;
	while (b > path && b[-1] != '/')
		b--;
	return b;
}

int rp_cnt_read(const struct rp_cnt_source *s, struct rp_cnt_snap *out, char *err, size_t errlen)
{
	rp_cnt_snap_free(out);
	snprintf(out->source, sizeof(out->source), "%s", s->spec);
	out->t_ns = clock_ns(CLOCK_REALTIME);
	out->mono_ns = clock_ns(CLOCK_MONOTONIC);
	char e[256], dir[700];
	switch (s->kind) {
	case RP_CNT_ETHTOOL: {
		struct rp_ctr *raw;
		char drv[32];
		int n = rp_ethtool_read(s->arg, &raw, drv, sizeof(drv), e, sizeof(e));
		if (n < 0) {
			snprintf(err, errlen, "%s: %s", s->spec, e);
			return -1;
		}
		struct rp_cnt_port *p = rp_cnt_add_port(out, s->arg);
		snprintf(p->driver, sizeof(p->driver), "%s", drv);
		rp_cnt_port_fold(p, raw, (size_t)n);
		free(raw);
		return 0;
	}
	case RP_CNT_SYSFS:
		snprintf(dir, sizeof(dir), "%s/%s/statistics", s->net_root[0] ? s->net_root : "/sys/class/net", s->arg);
		if (!is_dir(dir)) {
			snprintf(err, errlen, "%s: no %s (no such network interface; 'ip link' lists them)", s->spec, dir);
			return -1;
		}
		fold_dir(rp_cnt_add_port(out, s->arg), dir, RP_CTR_NETDEV);
		return 0;
	case RP_CNT_RDMA:
		return read_rdma(s, out, err, errlen);
	case RP_CNT_SONIC:
		return rp_sonic_read(s->host, s->tcp_port, out, err, errlen);
	case RP_CNT_SNMP:
		return rp_snmp_read(s->host, s->tcp_port, &s->cred, out, err, errlen);
	case RP_CNT_EXEC:
		return rp_exec_read(s->arg, s->map, out, err, errlen);
	case RP_CNT_ETHTOOL_FILE: {
		char *text;
		size_t len;
		struct rp_ctr *raw;
		if (read_file(s->arg, &text, &len, e, sizeof(e))) {
			snprintf(err, errlen, "%s: cannot read %s: %s", s->spec, s->arg, e);
			return -1;
		}
		int n = rp_ctr_parse_ethtool_text(text, len, &raw, e, sizeof(e));
		free(text);
		if (n < 0) {
			snprintf(err, errlen, "%s: %s", s->spec, e);
			return -1;
		}
		rp_cnt_port_fold(rp_cnt_add_port(out, base_name(s->arg)), raw, (size_t)n);
		free(raw);
		return 0;
	}
	case RP_CNT_RDMA_DIR: {
		if (!is_dir(s->arg)) {
			snprintf(err, errlen, "%s: %s is not a directory (give a copy of ports/N/hw_counters or of ports/N)",
				 s->spec, s->arg);
			return -1;
		}
		struct rp_cnt_port *p = rp_cnt_add_port(out, base_name(s->arg));
		char hw[700], ctr[700];
		snprintf(hw, sizeof(hw), "%s/hw_counters", s->arg);
		snprintf(ctr, sizeof(ctr), "%s/counters", s->arg);
		size_t n = is_dir(hw) || is_dir(ctr) ? fold_ib_port(p, s->arg) : fold_dir(p, s->arg, RP_CTR_HW);
		if (!n) {
			snprintf(err, errlen, "%s: no counter files in %s (each file holds one number, as in hw_counters/)",
				 s->spec, s->arg);
			return -1;
		}
		return 0;
	}
	}
	snprintf(err, errlen, "%s: unknown source", s->spec);
	return -1;
}
