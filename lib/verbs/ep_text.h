/* An ep report as text (ep_text.c), what `roceprobe ep` prints without
 * --json. */
#ifndef RP_VERBS_EP_TEXT_H
#define RP_VERBS_EP_TEXT_H

#include <stdio.h>

#include "verbs/ep.h"

/* The header line, then the server's per-client table, or the client's
 * latency or bandwidth table, then the counters (when read). */
void rp_ep_text(FILE *f, const struct rp_ep_report *r);

#endif
