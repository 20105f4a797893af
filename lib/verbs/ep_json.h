/* An ep report as result.json: {"schema":"roceprobe.result/1","kind":"verbs",
 * ...}; the fields are documented in docs/verbs.md and only ever added. */
#ifndef RP_VERBS_EP_JSON_H
#define RP_VERBS_EP_JSON_H

#include <jansson.h>
#include <stdio.h>

#include "verbs/ep.h"

json_t *rp_ep_json(const struct rp_ep_report *rep, const char *version);
/* The report as JSON to out (indented, a newline after; NULL: not) and as
 * DIR/result.json (atomically, DIR made with its parents; NULL: not). 0,
 * or -1 with one line in err. */
int rp_ep_write_json(const struct rp_ep_report *rep, const char *version, FILE *out, const char *dir, char *err,
		     size_t errlen);
/* Per-client goodput (Gbit/s, over all sizes) and Jain's index of them. */
double rp_ep_peer_gbps(const struct rp_ep_peer *p);
double rp_ep_fairness(const struct rp_ep_report *rep);

#endif
