/* Shared by doctor's checks: files under the sysroot, findings. */
#ifndef RP_DOCTOR_INTERNAL_H
#define RP_DOCTOR_INTERNAL_H

#include <stdarg.h>

#include "doctor.h"
#include "traffic/plan.h"

/* root + the path formatted: "" when it does not fit. */
__attribute__((format(printf, 4, 5))) char *rp_doc_path(const struct rp_doctor_sys *sys, char *buf, size_t len,
							 const char *fmt, ...);
/* The first line of a file, without its newline: 0, or -1. */
int rp_doc_read_line(const char *path, char *out, size_t len);
/* A file holding one integer: 0, or -1 (missing, not a number, EINVAL from sysfs). */
int rp_doc_read_i64(const char *path, int64_t *v);
/* The last component of a symlink's target ("" and -1 when not a link). */
int rp_doc_link_base(const char *path, char *out, size_t len);

/* Adds a finding; what and fix are printf formats (fix may be NULL). */
__attribute__((format(printf, 5, 6))) struct rp_doctor_finding *rp_doc_add(struct rp_doctor *d, const char *host,
									   const char *check,
									   enum rp_doctor_status st,
									   const char *fmt, ...);
__attribute__((format(printf, 2, 3))) void rp_doc_fix(struct rp_doctor_finding *f, const char *fmt, ...);

/* The checks, each adding its findings. */
void rp_doc_port_facts(const struct rp_doctor_sys *sys, const struct rp_host *h, struct rp_doctor_port *p);
void rp_doc_check_port(struct rp_doctor *d, const struct rp_doctor_sys *sys, const struct rp_host *h,
		       struct rp_doctor_port *p);
void rp_doc_check_mtu(struct rp_doctor *d, const struct rp_plan *plan, unsigned h, struct rp_doctor_port *p);
void rp_doc_check_rate(struct rp_doctor *d, const struct rp_plan *plan, unsigned h, struct rp_doctor_port *p);
void rp_doc_check_dcb(struct rp_doctor *d, const struct rp_doctor_sys *sys, const struct rp_plan *plan, unsigned h,
		      struct rp_doctor_port *p);
void rp_doc_check_roce(struct rp_doctor *d, const struct rp_doctor_sys *sys, const struct rp_host *h,
		       struct rp_doctor_port *p);
void rp_doc_check_rdma(struct rp_doctor *d, const struct rp_doctor_sys *sys, const struct rp_host *h,
		       struct rp_doctor_port *p);
void rp_doc_check_ptp(struct rp_doctor *d, const struct rp_doctor_sys *sys, struct rp_doctor_port *p);
/* share.c: what --share does on the port; mlx5 devargs for small frames (queues: the run's per port). */
void rp_doc_check_share(struct rp_doctor *d, const struct rp_host *h, struct rp_doctor_port *p, unsigned queues);
void rp_doc_scan_daemons(struct rp_doctor *d, const struct rp_doctor_sys *sys);
void rp_doc_check_machine(struct rp_doctor *d, const struct rp_doctor_sys *sys, bool any_pci, bool any_dpdk);

#endif
