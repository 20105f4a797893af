/* The embedded lab as a certify engine: each workload is one `roceprobe lab`
 * run of the profile (its `fabric:` section) in virtual time, handing back
 * the document `lab` writes as result.json. */
#ifndef RP_CERTIFY_ENGINE_LAB_H
#define RP_CERTIFY_ENGINE_LAB_H

#include "certify.h"

struct rp_cert_lab {
	const char *profile_path;
	volatile sig_atomic_t *stop;
	unsigned runs;          /* lab runs made */
	double virtual_s;       /* their virtual time together */
};

/* eng borrows lab, which must outlive it. */
void rp_cert_lab_engine(struct rp_cert_lab *lab, struct rp_cert_engine *eng);

#endif
