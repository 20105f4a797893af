/* certify --metrics: the tests' progress and verdicts (certify.h). */
#include "certify.h"
#include "metrics/prom.h"

#include <stdio.h>

void rp_cert_live_init(struct rp_cert_live *l)
{
	*l = (struct rp_cert_live){.ntests = 0};
	pthread_mutex_init(&l->lock, NULL);
	for (unsigned i = 0; i <= RP_CERT_NTESTS; i++)
		l->verdict[i] = -2;
}

void rp_cert_metrics(struct rp_prom *p, void *arg)
{
	struct rp_cert_live *l = arg;
	pthread_mutex_lock(&l->lock);
	rp_prom_family(p, "roceprobe_certify_tests", "gauge", "Tests this certify runs.");
	rp_prom_u64(p, "roceprobe_certify_tests", NULL, 0, l->ntests);
	rp_prom_family(p, "roceprobe_certify_tests_done", "gauge", "Tests finished (judged or not).");
	rp_prom_u64(p, "roceprobe_certify_tests_done", NULL, 0, l->ndone);
	rp_prom_family(p, "roceprobe_certify_running", "gauge", "1 for the test under way.");
	rp_prom_family(p, "roceprobe_certify_verdict", "gauge", "A finished test's verdict: 1 PASS, 0 FAIL, -1 not judged.");
	char id[4];
	for (unsigned i = 1; i <= RP_CERT_NTESTS; i++) {
		snprintf(id, sizeof(id), "%u", i);
		const struct rp_prom_label lb[] = {{"test", id}, {"name", rp_cert_test_name(i)}};
		if (l->running == i)
			rp_prom_u64(p, "roceprobe_certify_running", lb, 2, 1);
		if (l->verdict[i] != -2)
			rp_prom_f64(p, "roceprobe_certify_verdict", lb, 2, l->verdict[i]);
	}
	pthread_mutex_unlock(&l->lock);
}
