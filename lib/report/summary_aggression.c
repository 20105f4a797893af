/* summary.txt's aggression (a mixed run): the workload's latency during and
 * outside the aggression windows, and the pause each host saw, from
 * result.json's aggression.pause entries (or that it cannot be known). */
#include "report/summary.h"

void rp_summary_aggression(FILE *f, const struct rp_summary *s)
{
	const struct rp_summary_run *r = s->run;
	if (!r->nwindows)
		return;
	rp_report_print_windows(f, s->acct, r->windows, r->nwindows);
	fputs("pause during the aggression:", f);
	size_t i;
	const json_t *p;
	json_array_foreach(r->pause, i, p) {
		fprintf(f, "\n  %-8s %-5s ", json_string_value(json_object_get(p, "host")),
			json_string_value(json_object_get(p, "engine")));
		if (json_object_get(p, "pause"))
			fprintf(f, "not available: %s", json_string_value(json_object_get(p, "why")));
		else if (json_object_get(p, "counters")) {
			const char *k;
			const json_t *x;
			json_object_foreach((json_t *)json_object_get(p, "counters"), k, x)
				fprintf(f, "%s %" JSON_INTEGER_FORMAT " ", k, json_integer_value(x));
			fputs("(NIC counters, whole run)", f);
		} else
			fprintf(f, "%" JSON_INTEGER_FORMAT " PFC/PAUSE frames received, paused %" JSON_INTEGER_FORMAT " ns",
				json_integer_value(json_object_get(p, "pfc_frames")),
				json_integer_value(json_object_get(p, "paused_ns")));
	}
	fputc('\n', f);
}
