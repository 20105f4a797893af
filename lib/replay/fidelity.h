/* A reproduction judged against its incident (issue 26, `replay run`).
 * Both sides are "roceprobe.incident/1" documents made by the same code: the
 * original's DIR/incident.json (a documented format the user hands in, read
 * back) and the reproduction's, measured from its captures by
 * rp_replay_measure (evidence_read -> infer -> incident_json, as `replay
 * infer` does). Symptom by symptom: the original, the reproduction, a
 * distance and a verdict against a tolerance (docs/replay.md):
 *   numbers      relative error |r - o| / o (o = 0: 0 when r = 0, else 1)
 *   time series  normalised L1: sum |o_b - r_b| / (sum o_b + sum r_b), in 0..1
 *   sets         1 - Jaccard (|A n B| / |A u B|; both empty: 0)
 * A symptom is REPRODUCED when its distance <= its tolerance, PARTLY when
 * <= twice it, else NOT; the whole is REPRODUCED when every symptom is, NOT
 * when none that the incident showed is (each symptom the original shows is
 * NOT), else PARTLY. Plain C over jansson: no clock, no I/O. */
#ifndef RP_REPLAY_FIDELITY_H
#define RP_REPLAY_FIDELITY_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum rp_replay_symptom {
	RP_SYM_GOODPUT,     /* per flow goodput_gbps: the largest relative error */
	RP_SYM_CE,          /* totals.ce_fraction */
	RP_SYM_CNP,         /* totals.cnp_per_s */
	RP_SYM_LOSS,        /* totals.lost */
	RP_SYM_RETRANS,     /* totals.retransmissions */
	RP_SYM_PFC,         /* PFC frames received over every capture point */
	RP_SYM_PAUSED,      /* paused fraction per bin per capture point and priority */
	RP_SYM_VICTIMS,     /* victim flows (src, dst, prio) */
	RP_SYM_ORDER,       /* points paused, and who was paused a bin or more before whom */
	RP_SYM_N
};

struct rp_replay_tol {
	double t[RP_SYM_N];
};

/* "goodput", "ce_fraction", ... (result.json's symptom names). */
const char *rp_replay_symptom_name(unsigned s);
void rp_replay_tol_default(struct rp_replay_tol *t);
/* "SYMPTOM=X" (X a distance: 0.1, or 10%) into t. 0, or -1 with err. */
int rp_replay_tol_parse(struct rp_replay_tol *t, const char *kv, char *err, size_t errlen);

/* Is doc a roceprobe.incident/1 with every key the comparison reads? 0, or
 * -1 with err naming what is missing. */
int rp_replay_incident_check(const json_t *doc, char *err, size_t errlen);

/* Points of the original's evidence (evidence.captures[].node): the
 * reproduction is captured at the same points. *n of them, NULL on none. */
const char **rp_replay_incident_nodes(const json_t *inc, size_t *n);

/* {"verdict", "symptoms": [...]} (docs/results.md, roceprobe.replay/1);
 * both documents checked first. NULL: out of memory. */
json_t *rp_replay_fidelity(const json_t *orig, const json_t *repro, const struct rp_replay_tol *tol);

/* The reproduction's symptoms from its captures, by the code `replay infer`
 * runs: "roceprobe.incident/1", or NULL with err (one line). fabric: the
 * profile the reproduction ran (its hosts name the captures' hosts). */
struct rp_profile;
json_t *rp_replay_measure(const char *const *paths, size_t n, const struct rp_profile *fabric, uint64_t bin_ns,
			  uint64_t speed_bps, char *err, size_t errlen);

/* report.md and report.html of a roceprobe.replay/1 document (fidelity_report.c). */
void rp_replay_report_md(FILE *f, const json_t *res);
void rp_replay_report_html(FILE *f, const json_t *res);

#endif
