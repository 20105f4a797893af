/* doctor's findings as a table and as JSON (docs/doctor.md). */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "doctor_internal.h"

static void counts(const struct rp_doctor *d, size_t n[4])
{
	memset(n, 0, 4 * sizeof(*n));
	for (size_t i = 0; i < d->n; i++)
		n[d->f[i].status]++;
}

void rp_doctor_print_text(const struct rp_doctor *d, const char *profile, void *out)
{
	FILE *o = out;
	size_t n[4];
	counts(d, n);
	fprintf(o, "roceprobe doctor %s: %zu host%s of this process\n\n", profile, d->nports, d->nports == 1 ? "" : "s");
	fprintf(o, "%-12s %-10s %-6s %s\n", "host", "check", "status", "finding");
	for (size_t i = 0; i < d->n; i++) {
		const struct rp_doctor_finding *f = &d->f[i];
		fprintf(o, "%-12s %-10s %-6s %s\n", f->host[0] ? f->host : "(machine)", f->check,
			rp_doctor_status_name(f->status), f->what);
		if (f->fix[0])
			fprintf(o, "%-12s %-10s %-6s   fix: %s\n", "", "", "", f->fix);
	}
	enum rp_doctor_status w = rp_doctor_worst(d);
	fprintf(o, "\n%zu PASS, %zu INFO, %zu WARN, %zu FAIL: %s\n", n[RP_DOCTOR_PASS], n[RP_DOCTOR_INFO], n[RP_DOCTOR_WARN],
		n[RP_DOCTOR_FAIL],
		w == RP_DOCTOR_FAIL ? "not ready (fix the FAIL lines)" : w == RP_DOCTOR_WARN ? "ready, with warnings" : "ready");
}

static json_t *i64_or_null(int64_t v)
{
	return v < 0 ? json_null() : json_integer(v);
}

static json_t *str_or_null(const char *s)
{
	return s && s[0] ? json_string(s) : json_null();
}

static json_t *port_json(const struct rp_doctor_port *p)
{
	json_t *o = json_object();
	json_object_set_new(o, "host", json_string(p->host));
	json_object_set_new(o, "port", str_or_null(p->port));
	json_object_set_new(o, "kind", json_string(p->kind));
	json_object_set_new(o, "virtual", json_boolean(p->is_virtual));
	json_object_set_new(o, "netdev", str_or_null(p->netdev));
	json_object_set_new(o, "driver", str_or_null(p->drv.driver[0] ? p->drv.driver : p->pci_driver));
	json_object_set_new(o, "driver_version", str_or_null(p->drv.version));
	json_object_set_new(o, "firmware", str_or_null(p->drv.fw_version));
	json_object_set_new(o, "bus_info", str_or_null(p->drv.bus_info));
	json_object_set_new(o, "pci", str_or_null(p->pci));
	json_object_set_new(o, "pci_driver", str_or_null(p->pci_driver));
	json_object_set_new(o, "numa_node", i64_or_null(p->numa_node));
	json_object_set_new(o, "ethtool_speed_mbps", i64_or_null(p->ethtool_mbps));
	json_object_set_new(o, "sysfs_speed_mbps", i64_or_null(p->sysfs_mbps));
	json_object_set_new(o, "profile_speed_bps", json_integer((json_int_t)p->profile_bps));
	json_object_set_new(o, "speed_bps", json_integer((json_int_t)p->speed_bps));
	json_object_set_new(o, "mtu", i64_or_null(p->mtu));
	json_object_set_new(o, "max_frame", json_integer((json_int_t)p->max_frame));
	json_object_set_new(o, "tx_bps", json_real(p->tx_bps));
	json_object_set_new(o, "rx_bps", json_real(p->rx_bps));
	if (p->dcb == 1) {
		json_t *dcb = json_object(), *pfc = json_array(), *map = json_object();
		for (unsigned q = 0; q < 8; q++)
			if (p->dcb_state.pfc_en & (1u << q))
				json_array_append_new(pfc, json_integer(q));
		for (unsigned j = 0; j < p->dcb_state.ndscp; j++) {
			char k[8];
			snprintf(k, sizeof(k), "%u", p->dcb_state.dscp[j]);
			json_object_set_new(map, k, json_integer(p->dcb_state.dscp_prio[j]));
		}
		json_object_set_new(dcb, "pfc_enabled", pfc);
		json_object_set_new(dcb, "dscp_trust", json_boolean(p->dcb_state.ndscp > 0));
		json_object_set_new(dcb, "dscp_prio", map);
		json_object_set_new(o, "dcb", dcb);
	} else {
		json_object_set_new(o, "dcb", p->dcb == 0 ? json_string("not offered") : json_null());
	}
	json_object_set_new(o, "enable_roce", p->roce < 0 ? json_null() : json_boolean(p->roce));
	json_object_set_new(o, "rdma_device", str_or_null(p->rdma_dev));
	json_object_set_new(o, "roce_v2_gid", str_or_null(p->gid));
	json_object_set_new(o, "phc_index", i64_or_null(p->phc_index));
	return o;
}

int rp_doctor_print_json(const struct rp_doctor *d, const char *profile, void *out)
{
	size_t n[4];
	counts(d, n);
	json_t *ports = json_array(), *findings = json_array();
	for (size_t i = 0; i < d->nports; i++)
		json_array_append_new(ports, port_json(&d->ports[i]));
	for (size_t i = 0; i < d->n; i++) {
		const struct rp_doctor_finding *f = &d->f[i];
		json_array_append_new(findings, json_pack("{s:o, s:s, s:s, s:s, s:o}", "host", str_or_null(f->host), "check",
							  f->check, "status", rp_doctor_status_name(f->status), "finding",
							  f->what, "fix", str_or_null(f->fix)));
	}
	json_t *o = json_pack("{s:s, s:s, s:s, s:{s:I, s:I, s:I, s:I}, s:{s:I, s:b, s:I, s:b, s:b}, s:o, s:o}", "schema",
			      "roceprobe.doctor/1", "profile", profile, "verdict", rp_doctor_status_name(rp_doctor_worst(d)),
			      "counts", "pass", (json_int_t)n[0], "info", (json_int_t)n[1], "warn", (json_int_t)n[2], "fail",
			      (json_int_t)n[3], "machine", "hugepages", (json_int_t)d->huge_pages, "hugetlbfs_mounted",
			      d->huge_mounted, "iommu_groups", (json_int_t)d->iommu_groups, "ptp4l", d->ptp4l, "phc2sys",
			      d->phc2sys, "ports", ports, "findings", findings);
	if (!o)
		return -1;
	int rc = json_dumpf(o, out, JSON_PRESERVE_ORDER | JSON_INDENT(2));
	fputc('\n', out);
	json_decref(o);
	return rc;
}
