/* A sweep's files (docs/lab.md): DIR/sweep.csv, a row per point with its
 * axis values and headline numbers, and DIR/sweep.json
 * ("schema":"roceprobe.sweep/1"), the same rows with each point's
 * directory and whole headline. */
#ifndef RP_LAB_SWEEP_OUT_H
#define RP_LAB_SWEEP_OUT_H

#include <jansson.h>
#include <stdio.h>

#include "report.h"
#include "sweep.h"

/* "point,KEY,...,loss_pct,lost,drops,paused_pct,p99_ns,p999_ns,goodput_gbps,max_queue_bytes,virtual_ns\n" */
void rp_sweep_csv_header(FILE *f, const struct rp_sweep *s);
/* The point's row: its number, its values, then h's numbers (p99_ns and
 * p999_ns empty when no probe carried a timestamp). */
void rp_sweep_csv_row(FILE *f, const struct rp_sweep *s, const size_t *idx, size_t point,
		      const struct rp_lab_headline *h);
/* sweep.json's row: {"point", "dir", "at", "headline"}. */
json_t *rp_sweep_json_row(const struct rp_sweep *s, const size_t *idx, size_t point, const char *dir,
			  const struct rp_lab_headline *h);
/* path written whole (report/result.h's atomic write): {"schema", "profile",
 * "points": rows}. 0, or -1 with err. */
int rp_sweep_write_json(const char *path, const char *profile, json_t *rows, char *err, size_t errlen);

#endif
