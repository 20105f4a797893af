/* The lab run's peak memory (maximum resident set), predicted from the plan
 * before anything is built (`roceprobe plan --size`, docs/lab.md "Memory").
 * A model of parts, each a count the plan and the fabric give times bytes a
 * piece: the structures' own sizes where the lab holds them, constants
 * measured on calibration runs where the libraries hold them (stated in
 * size.c and docs/lab.md). */
#ifndef RP_LAB_SIZE_H
#define RP_LAB_SIZE_H

#include <stddef.h>
#include <stdint.h>

#include "traffic/plan.h"

struct rp_lab_size {
	/* Counts the estimate is made of. */
	size_t hosts, switches, ports, flows;
	uint64_t packets;       /* data frames the plan sends */
	uint64_t frames_flying; /* frames held at once at the peak (the pool's slots) */
	uint64_t bins;          /* accountant time-series bins */
	double fill;            /* share of the fabric's lossless room held at the peak */
	/* Bytes of each part, and their sum. */
	uint64_t base, host_bytes, switch_bytes, flow_bytes, frame_bytes, series_bytes, plan_bytes, total;
};

/* The estimate for `lab` running this plan; 0, or -1 with one line in err
 * (the fabric refused, as `lab` would refuse it). */
int rp_lab_size(const struct rp_plan *plan, struct rp_lab_size *out, char *err, size_t errlen);

#endif
