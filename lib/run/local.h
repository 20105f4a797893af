/* A run in this process, as `roceprobe run PROFILE --set ... -o DIR`
 * without a launcher runs it (the same steps, steps.h; certify's run engine:
 * one process for all its tests). The DPDK EAL is kept from one run to the next
 * (rp_dp_eal_keep): each run hot-plugs its virtual ports, runs, and takes
 * them and their mempools away again. What the command prints (its errors,
 * warnings, progress and summary) goes to this process's stderr and stdout
 * as the command's would: the caller points them where the child's went. */
#ifndef RP_RUN_LOCAL_H
#define RP_RUN_LOCAL_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

struct rp_run_local {
	const char *profile;
	const char *const *sets;
	size_t nsets;
	const char *out;         /* -o DIR */
	bool force;              /* --force */
	bool allow_pause_storm;  /* --allow-pause-storm */
	bool no_preflight;       /* --no-preflight */
	bool no_telemetry;       /* --no-telemetry (the first run's choice holds for the kept EAL) */
	bool capture;            /* --capture: DIR/capture-HOST.pcap per port (replay run's evidence) */
	unsigned snaplen;        /* --snaplen (0: the default, 128) */
	volatile sig_atomic_t *stop; /* set: the run ends cleanly, its result interrupted */
	const char *version;     /* result.json's roceprobe version */
};

/* The run, DIR/result.json and DIR/summary.txt written. The exit code the
 * command would give: 0, RP_RUN_USAGE (2, its line said on stderr), 3 (a
 * rank died: never here). */
int rp_run_local(const struct rp_run_local *o);
/* Ends the EAL the runs kept (nothing when none ran). */
void rp_run_local_end(void);

#endif
