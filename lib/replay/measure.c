/* A reproduction's symptoms (fidelity.h's rp_replay_measure): its captures
 * through the code `replay infer` runs on an incident's evidence, so both
 * sides of a verdict are counted alike. */
#include <stdlib.h>

#include "fidelity.h"
#include "replay.h"

json_t *rp_replay_measure(const char *const *paths, size_t n, const struct rp_profile *fabric, uint64_t bin_ns,
			  uint64_t speed_bps, char *err, size_t errlen)
{
	struct rp_replay_evidence *ev = calloc(1, sizeof(*ev));
	struct rp_replay_model m = {0};
	json_t *inc = NULL;
	if (!ev) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (rp_replay_evidence_read(ev, paths, n, fabric, bin_ns, speed_bps, err, errlen))
		goto out;
	if (rp_replay_infer(&m, ev, fabric, NULL, NULL)) {
		snprintf(err, errlen, "out of memory measuring the reproduction");
		goto out_model;
	}
	inc = rp_replay_incident_json(&m);
out_model:
	rp_replay_model_free(&m);
	rp_replay_evidence_free(ev);
out:
	free(ev);
	return inc;
}
