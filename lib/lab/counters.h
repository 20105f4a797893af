/* The lab's counters as a `roceprobe.counters/1` series (lab --counters):
 * every switch and every host read every DURATION of virtual time, as
 * `roceprobe counters --json --watch` reads a real fabric's, into
 * DIR/counters.jsonl (docs/results.md "roceprobe.counters/1", docs/lab.md).
 *
 * A switch is the source "lab:SWITCH", its ports "Ethernet<p>" with the
 * counters SONiC keeps (report/switch_sonic.h maps the model's to the SAI
 * fields, counters/sonic_pub.h folds those by the one name table: what
 * `counters sonic://` reads of a `switch --publish`); a host is the source
 * "lab:HOST", one port named as the host, with the vocabulary's rx/tx
 * packets and bytes and per-priority pfc_rx/pfc_tx (its NIC's view).
 * Each source's first line is its snapshot at virtual time 0 (every count
 * 0), each later one the delta over the interval before it; the last is
 * taken where the run ended, so a source's deltas add up to its counts at
 * the end (result.json's). t_ns is virtual time (ns from 0, as the pcaps'
 * stamps). Written as counters.jsonl.part and renamed when whole. */
#ifndef RP_LAB_COUNTERS_H
#define RP_LAB_COUNTERS_H

#include <stddef.h>
#include <stdint.h>

struct rp_lab;
struct rp_lab_ctrs;

/* Opens DIR/counters.jsonl.part for a series every every_ns. NULL with one
 * line (a switch of more ports than SONiC's layout here holds, I/O). */
struct rp_lab_ctrs *rp_lab_ctrs_open(const struct rp_lab *lab, const char *dir, uint64_t every_ns, char *err,
				     size_t errlen);
/* Reads every source at virtual time t and writes their lines. 0, or -1
 * with err (a write failed: the run ends with that line). */
int rp_lab_ctrs_sample(struct rp_lab_ctrs *c, const struct rp_lab *lab, uint64_t t, char *err, size_t errlen);
/* The last reading at end_ns (unless one was taken there), then the file
 * renamed into place. 0, or -1 with err (the partial file removed). */
int rp_lab_ctrs_close(struct rp_lab_ctrs *c, const struct rp_lab *lab, uint64_t end_ns, char *err, size_t errlen);
/* Frees it; a file not closed is removed. */
void rp_lab_ctrs_free(struct rp_lab_ctrs *c);

#endif
