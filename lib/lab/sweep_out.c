/* A sweep's files (sweep_out.h). */
#include "sweep_out.h"

#include <inttypes.h>

#include "report/result.h"

void rp_sweep_csv_header(FILE *f, const struct rp_sweep *s)
{
	fputs("point", f);
	for (size_t k = 0; k < s->nax; k++)
		fprintf(f, ",%s", s->ax[k].key);
	fputs(",loss_pct,lost,drops,paused_pct,p99_ns,p999_ns,goodput_gbps,max_queue_bytes,virtual_ns\n", f);
}

void rp_sweep_csv_row(FILE *f, const struct rp_sweep *s, const size_t *idx, size_t point,
		      const struct rp_lab_headline *h)
{
	fprintf(f, "%zu", point);
	for (size_t k = 0; k < s->nax; k++)
		fprintf(f, ",%s", s->ax[k].vals[idx[k]]);
	char c99[RP_REPORT_CELL] = "", c999[RP_REPORT_CELL] = ""; /* no sample: empty cells */
	if (h->latency_samples) {
		rp_report_ns_cell(c99, h->latency_samples, h->p99_ns);
		rp_report_ns_cell(c999, h->latency_samples, h->p999_ns);
	}
	fprintf(f, ",%.6f,%" PRIu64 ",%" PRIu64 ",%.4f,%s,%s,%.4f,%" PRIu64 ",%" PRIu64 "\n", h->loss_pct, h->lost,
		h->drops, h->paused_pct, c99, c999, h->goodput_gbps, h->max_queue_bytes, h->end_ns);
}

json_t *rp_sweep_json_row(const struct rp_sweep *s, const size_t *idx, size_t point, const char *dir,
			  const struct rp_lab_headline *h)
{
	return json_pack("{s:I, s:s, s:o, s:o}", "point", (json_int_t)point, "dir", dir, "at", rp_sweep_point_at(s, idx),
			 "headline", rp_lab_headline_json(h));
}

int rp_sweep_write_json(const char *path, const char *profile, json_t *rows, char *err, size_t errlen)
{
	json_t *root = json_pack("{s:s, s:s, s:O}", "schema", "roceprobe.sweep/1", "profile", profile, "points", rows);
	int rc = rp_report_write_atomic(path, root, err, errlen);
	json_decref(root);
	return rc;
}
