/* A real fabric as a certify engine: each workload is one `roceprobe run
 * PROFILE --set ... -o DIR/runs/TEST-N`: under the user's launcher
 * (`mpirun -np 4 --host a,b,c,d`, `srun ...`) a child process (this binary),
 * which is how a fabric's hosts take part; without one a call of lib/run in
 * this process (in_process), one DPDK EAL for every test. The run's
 * result.json is the document the tests judge. Nothing is known of the
 * switches (describe: known = false): the tests judge what the hosts
 * measure. No DPDK, no MPI here: fork/exec, the in_process hook, the
 * run's files. */
#ifndef RP_CERTIFY_ENGINE_RUN_H
#define RP_CERTIFY_ENGINE_RUN_H

#include "certify.h"

#define RP_CERT_RUN_MAX_ARGS 64

/* One run as `roceprobe run` would take it, for a run in this process. */
struct rp_cert_run_call {
	const char *profile;
	const char *const *sets;
	size_t nsets;
	const char *out;
	bool force, allow_pause_storm, no_preflight, no_telemetry;
	volatile sig_atomic_t *stop; /* set by the engine: SIGINT, SIGTERM or --run-timeout */
};

struct rp_cert_run {
	/* set by the caller */
	const char *profile_path;
	const struct rp_profile *prof;  /* loaded with the user's --set */
	const char *dir;                /* certify's -o DIR: runs go to DIR/runs/ */
	const char *exe;                /* the roceprobe binary (NULL: /proc/self/exe) */
	char *launcher[RP_CERT_RUN_MAX_ARGS]; /* split by rp_cert_run_launcher; NULL-ended */
	size_t nlauncher;
	const char *launcher_text;      /* as given */
	bool force;                     /* passed on to the child (--force) */
	bool no_preflight;              /* passed on to the child (--no-preflight) */
	bool no_telemetry;              /* passed on to the child (--no-telemetry) */
	bool capture;                   /* passed on to the child: --capture --snaplen snaplen (replay run) */
	unsigned snaplen;
	double timeout_s;               /* per child; 0: none */
	volatile sig_atomic_t *stop;
	void (*progress)(const char *line, void *arg);
	void *progress_arg;
	/* Without a launcher, where the program has lib/run (built with DPDK):
	 * each run a call in this process (lib/run/local.h), its stdout and
	 * stderr to DIR/runs/TEST-N.log as a child's were; returns the exit
	 * code `roceprobe run` would. NULL, a launcher, or a profile with a PCI
	 * port or a verbs host: a child process. */
	int (*in_process)(const struct rp_cert_run_call *c);
	/* kept by the engine */
	unsigned test;                  /* the test running (rp_cert_engine.begin) */
	char label[256];
	unsigned n_in_test;
	unsigned runs;                  /* children run */
	json_t *log;                    /* [{test, name, label, dir, command, in_process, exit, interrupted, wall_s}] */
	bool made_runs_dir;
};

/* Splits a launcher command line ("mpirun --allow-run-as-root -np 4") at
 * blanks, with '...' and "..." quoting, into r->launcher. 0, or -1 with err. */
int rp_cert_run_launcher(struct rp_cert_run *r, const char *text, char *err, size_t errlen);
/* eng borrows r, which must outlive it. */
void rp_cert_run_engine(struct rp_cert_run *r, struct rp_cert_engine *eng);
/* Frees what the engine kept (the launcher's words, the log). */
void rp_cert_run_free(struct rp_cert_run *r);
/* Removes DIR/runs (after an engine error: no partial output). */
void rp_cert_run_discard(struct rp_cert_run *r);

/* Any host with a `port:`: a real fabric (the run engine's default). */
bool rp_cert_profile_has_ports(const struct rp_profile *prof);

#endif
