/* doctor's runner: every check over the chosen hosts, findings kept in order. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "doctor_internal.h"

const char *rp_doctor_status_name(enum rp_doctor_status s)
{
	static const char *const names[] = {"PASS", "INFO", "WARN", "FAIL"};
	return (unsigned)s < 4 ? names[s] : "?";
}

char *rp_doc_path(const struct rp_doctor_sys *sys, char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(buf, len, "%s", sys->root ? sys->root : "");
	va_start(ap, fmt);
	int m = n >= 0 && (size_t)n < len ? vsnprintf(buf + n, len - (size_t)n, fmt, ap) : -1;
	va_end(ap);
	if (m < 0 || (size_t)(n + m) >= len)
		buf[0] = '\0';
	return buf;
}

int rp_doc_read_line(const char *path, char *out, size_t len)
{
	FILE *f = path[0] ? fopen(path, "r") : NULL;
	out[0] = '\0';
	if (!f)
		return -1;
	char *ok = fgets(out, (int)len, f);
	fclose(f);
	if (!ok) {
		out[0] = '\0';
		return -1;
	}
	out[strcspn(out, "\n")] = '\0';
	return 0;
}

int rp_doc_read_i64(const char *path, int64_t *v)
{
	char line[64], *end;
	if (rp_doc_read_line(path, line, sizeof(line)) != 0)
		return -1;
	errno = 0;
	long long x = strtoll(line, &end, 10);
	if (end == line || errno)
		return -1;
	*v = x;
	return 0;
}

int rp_doc_link_base(const char *path, char *out, size_t len)
{
	char target[PATH_MAX];
	ssize_t n = path[0] ? readlink(path, target, sizeof(target) - 1) : -1;
	out[0] = '\0';
	if (n <= 0)
		return -1;
	target[n] = '\0';
	const char *b = strrchr(target, '/');
	snprintf(out, len, "%s", b ? b + 1 : target);
	return 0;
}

static struct rp_doctor_finding *add_v(struct rp_doctor *d, const char *host, const char *check,
				       enum rp_doctor_status st, const char *fmt, va_list ap)
{
	if (d->n == d->cap) {
		size_t cap = d->cap ? 2 * d->cap : 64;
		void *f = realloc(d->f, cap * sizeof(*d->f));
		if (!f)
			return NULL;
		d->f = f;
		d->cap = cap;
	}
	struct rp_doctor_finding *f = &d->f[d->n++];
	memset(f, 0, sizeof(*f));
	snprintf(f->host, sizeof(f->host), "%s", host ? host : "");
	snprintf(f->check, sizeof(f->check), "%s", check);
	f->status = st;
	vsnprintf(f->what, sizeof(f->what), fmt, ap);
	return f;
}

/* Out of memory drops the finding; rp_doctor_run notices (d->oom). */
static struct rp_doctor_finding scratch;

struct rp_doctor_finding *rp_doc_add(struct rp_doctor *d, const char *host, const char *check,
				     enum rp_doctor_status st, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	struct rp_doctor_finding *f = add_v(d, host, check, st, fmt, ap);
	va_end(ap);
	return f ? f : &scratch;
}

void rp_doc_fix(struct rp_doctor_finding *f, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(f->fix, sizeof(f->fix), fmt, ap);
	va_end(ap);
}

int rp_doctor_run(const struct rp_doctor_sys *sys, const struct rp_profile *prof, const struct rp_plan *plan,
		  const bool *want, struct rp_doctor *d, char *err, size_t errlen)
{
	memset(d, 0, sizeof(*d));
	d->ports = calloc(prof->nhosts ? prof->nhosts : 1, sizeof(*d->ports));
	if (!d->ports) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	bool any_pci = false, any_dpdk = false;
	rp_doc_scan_daemons(d, sys);
	for (unsigned h = 0; h < prof->nhosts; h++) {
		const struct rp_host *host = &prof->hosts[h];
		if (want && !want[h])
			continue;
		struct rp_doctor_port *p = &d->ports[d->nports++];
		rp_doc_port_facts(sys, host, p);
		any_pci |= p->pci[0] && strcmp(p->kind, "pci") == 0;
		any_dpdk |= host->engine.engine == RP_ENGINE_DPDK;
		rp_doc_check_port(d, sys, host, p);
		rp_doc_check_mtu(d, plan, h, p);
		rp_doc_check_rate(d, plan, h, p);
		rp_doc_check_dcb(d, sys, plan, h, p);
		rp_doc_check_roce(d, sys, host, p);
		rp_doc_check_rdma(d, sys, host, p);
		rp_doc_check_ptp(d, sys, p);
		rp_doc_check_share(d, host, p, (unsigned)prof->lcores);
	}
	rp_doc_check_machine(d, sys, any_pci, any_dpdk);
	if (scratch.check[0]) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

void rp_doctor_free(struct rp_doctor *d)
{
	free(d->f);
	free(d->ports);
	memset(d, 0, sizeof(*d));
}

enum rp_doctor_status rp_doctor_worst(const struct rp_doctor *d)
{
	enum rp_doctor_status w = RP_DOCTOR_PASS;
	for (size_t i = 0; i < d->n; i++)
		if (d->f[i].status > w)
			w = d->f[i].status;
	return w;
}

const struct rp_doctor_finding *rp_doctor_find(const struct rp_doctor *d, const char *host, const char *check)
{
	for (size_t i = 0; i < d->n; i++)
		if (strcmp(d->f[i].host, host) == 0 && strcmp(d->f[i].check, check) == 0)
			return &d->f[i];
	return NULL;
}
