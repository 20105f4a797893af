/* Pause propagation: which hosts' ports were paused first. Every port's first
 * pause is on the run's common timebase (one process: its clock; across
 * ranks: T0 on every rank's corrected clock, within the clocks' bounds), so
 * sorting them shows how a pause spread through the fabric. From a finished
 * accountant; no printing but to the FILE given. */
#ifndef RP_REPORT_PAUSE_ORDER_H
#define RP_REPORT_PAUSE_ORDER_H

#include <jansson.h>
#include <stdio.h>

#include "stats/acct.h"

/* [{"host", "port", "first_pause_ns", "prio", "pfc_rx", "pause_rx", "paused_ns"}], the ports that
 * were paused, earliest first (ties: profile order). first_pause_ns is the
 * earliest over its priorities, prio the one paused then. */
json_t *rp_report_pause_order(const struct rp_acct *a);
/* "pause order: ..." lines (at most max_rows), nothing when no port was paused. */
void rp_report_print_pause_order(FILE *f, const struct rp_acct *a, size_t max_rows);

#endif
