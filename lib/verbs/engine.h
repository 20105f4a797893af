/* THE VERBS ENGINE of `run` (hosts with `engine: verbs`): every flow of the
 * plan whose sender is a verbs host is carried by real RC QPs (the flow's
 * `qps`) on the hosts' RDMA devices, so the NIC's own transport, its
 * retransmissions and its congestion control are what gets measured.
 *
 *   plan (lib/traffic) --> sender end: messages of the flow's size and verb
 *                          (send, send_imm, write_imm), paced by the flow's
 *                          own rp_pace (rate, bursts, phases, messages or
 *                          duration), QPs taken in turn, every message
 *                          carrying the probe (flow, seq, tx_ns: wire/probe.h)
 *                          and signalled: post -> completion = its latency
 *   RC QP (traffic class = DSCP << 2 | ECN) ======== RC QP
 *                          receiver end: each message seen by a receive
 *                          completion, its probe handed to the accountant
 *                          (rp_acct_message: the same sequence, loss and
 *                          latency code DPDK frames go through)
 *
 * Addresses: a process knows only its own ends' QP records (QPN, PSN, GID,
 * rkey, receive buffer); the caller exchanges them (lib/cluster, over MPI)
 * as a table of fixed-width text records (oob.h's encoding), two per QP of
 * each verbs flow: [sender's, receiver's]. Time: the caller's clock, plan
 * time in ns on the run's common timebase, so a one-way latency between two
 * machines is off by at most their clock offsets' bounds.
 *
 * Buffers, per QP, in slots of the message size rounded up to 64 B:
 *   send: depth slots; a slot is reused only after its message completed
 *         (at most depth messages outstanding per QP);
 *   recv: 2 x depth slots; send/send_imm: receive k lands in slot k (k <
 *         depth, reposted once read); write_imm: message m goes to slot
 *         m mod 2 depth, named by its ImmDt (the RQ holds depth receives, so
 *         when m arrives m - 2 depth has been read). */
#ifndef RP_VERBS_ENGINE_H
#define RP_VERBS_ENGINE_H

#include "report/rank_env.h"
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "traffic/plan.h"
#include "verbs/oob.h"

#define RP_VENGINE_DEPTH 16
#define RP_VENGINE_REC 100 /* bytes per record in the exchange table: RP_OOB_REC_LEN + NUL, padded */
#define RP_VENGINE_DRAIN_NS 10000000000ull /* after a stop: outstanding messages get 10 s to complete */

struct rp_acct;
struct rp_vengine;

/* Is flow i carried by QPs (its sender has engine: verbs)? */
bool rp_vengine_is_verbs(const struct rp_plan *plan, size_t i);
/* The exchange table's size in records; base[i] (plan->nflows entries, may
 * be NULL) gets flow i's first record (sender's of QP q at base + 2q,
 * receiver's at base + 2q + 1; SIZE_MAX for other flows). */
size_t rp_vengine_layout(const struct rp_plan *plan, size_t *base);
/* The host whose record entry r is (who fills it). */
unsigned rp_vengine_rec_host(const struct rp_plan *plan, size_t r);

struct rp_vengine_cfg {
	const struct rp_plan *plan;
	const bool *mine;             /* [nhosts]: this process runs the host (NULL: every host) */
	const uint32_t *acct_of_flow; /* [plan->nflows]: the accountant's index of each flow */
	struct rp_acct *acct;         /* where the receivers' messages are accounted */
	uint64_t (*clock)(void *arg); /* plan time in ns on the run's common timebase */
	void *clock_arg;
	unsigned depth;               /* 0: RP_VENGINE_DEPTH */
};

/* Opens this process's verbs hosts' devices (`device:`, GID of the host's
 * address or `gid_index:`), and creates every local end's QPs. 0, or
 * RP_V_ENV (the user can fix it) / RP_V_FAIL with one line in err naming the
 * host. A process without verbs ends gets an engine that does nothing. */
int rp_vengine_create(const struct rp_vengine_cfg *cfg, struct rp_vengine **out, char *err, size_t errlen);
void rp_vengine_destroy(struct rp_vengine *e);
/* Where the receivers' messages are accounted, if not given at create: a and
 * each flow's index in it (acct_of_flow[plan->nflows], read now). */
void rp_vengine_account(struct rp_vengine *e, struct rp_acct *a, const uint32_t *acct_of_flow);
bool rp_vengine_active(const struct rp_vengine *e); /* has local ends */

/* This process's records into table (rp_vengine_layout records of
 * RP_VENGINE_REC bytes; other entries untouched). */
void rp_vengine_records(const struct rp_vengine *e, char *table);
/* Every end to RTS toward its peer's record in table (the merged one).
 * Posts the receives and takes the counters' "before" snapshot. */
int rp_vengine_connect(struct rp_vengine *e, const char *table, char *err, size_t errlen);

struct rp_vengine_run {
	volatile sig_atomic_t *stop; /* Ctrl-C: stop posting, let the posted complete */
	uint64_t duration_ns;        /* 0: until every flow is done */
	/* As rp_dp_gen's: *tx_done set once this process's messages are all
	 * posted and completed; receiving goes on until *others_done (NULL:
	 * alone, done with its own). */
	volatile bool *tx_done;
	volatile bool *others_done;
	/* After a stop: is host h gone (a rank that died)? A sender end toward it
	 * gives up its outstanding messages at once (they would only complete
	 * in error, after the NIC's retries, or never). NULL: no host is. */
	bool (*host_lost)(void *arg, unsigned host);
	void *host_lost_arg;
};
/* Runs until done; 0, or RP_V_FAIL with err (a completion in error). A send
 * completion in error (a peer that died: retries exceeded) stops that end
 * only; the others run to their end, and err names the first. *end_ns: the
 * clock when it stopped. */
int rp_vengine_run(struct rp_vengine *e, const struct rp_vengine_run *r, uint64_t *end_ns, char *err, size_t errlen);

/* What each local sender end sent, as rp_acct_set_tx wants it (messages,
 * message bytes), and the counters' "after" snapshot. */
void rp_vengine_finish(struct rp_vengine *e, struct rp_acct *a);
/* This process's part of result.json's "verbs" as facts
 * (lib/report/rank_env.h; lib/report/env_json.h writes it): every verbs
 * host (device, driver, port, GID, NIC counters' deltas over the run) and
 * each QP of every local end of a verbs flow (the sender's or the
 * receiver's half, with its latency histogram). Malloc'd (NULL: out of
 * memory); the caller frees it through its rp_rank_env. */
struct rp_env_verbs *rp_vengine_facts(const struct rp_vengine *e);

#endif
