/* Where a run's files go: the -o directory and the parents of -w files.
 * Parents are made like `mkdir -p`; a directory that already holds a run is
 * refused unless the user says --force, and then only roceprobe's own files
 * (result.json, summary.txt, flows.jsonl, pairs.jsonl, captures, plots,
 * sweep points) are removed, so a
 * reused directory never shows the previous run's captures or plots next to
 * the new result. Errors go to err as one line. */
#ifndef RP_REPORT_OUTDIR_H
#define RP_REPORT_OUTDIR_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* mkdir -p dir (0755). 0, or -1 with err naming the part that failed. */
int rp_outdir_mkdirs(const char *dir, char *err, size_t errlen);
/* mkdir -p the directory part of file (nothing for a bare name). 0 or -1. */
int rp_outdir_mkparents(const char *file, char *err, size_t errlen);
/* Makes dir (and its parents) ready for a new run: created when missing;
 * when it holds anything, refused (-1, err says to use --force or another
 * directory) unless force, in which case every roceprobe output in it is
 * removed (point-N/ sweep directories with their contents) and other files
 * are left alone. Checks dir is writable. 0 or -1. */
int rp_outdir_prepare(const char *dir, bool force, char *err, size_t errlen);
/* What rp_outdir_prepare would refuse, checked without making or removing
 * anything (a non-empty dir without force, a path that is not a directory):
 * for commands that have slow setup (EAL, ports) between the check and the run. */
int rp_outdir_check(const char *dir, bool force, char *err, size_t errlen);
/* A run that stopped before its results (exit 2 in set-up) leaves no output:
 * the roceprobe outputs it started (captures) are removed, and dir too when
 * made: true (the run created it) and now empty. */
void rp_outdir_abandon(const char *dir, bool made);

/* Files being written: each writer (report/doc.h's temporary files,
 * summary.txt's) tracks its path from before it is made until it is renamed
 * or removed, so that a second signal, which ends the process at once,
 * removes them: files are whole or absent, never cut. At most
 * RP_OUTDIR_TRACK_MAX at once (beyond: not tracked, -1). */
#define RP_OUTDIR_TRACK_MAX 16
int rp_outdir_track(const char *path);
void rp_outdir_untrack(int slot); /* slot -1: nothing */
/* Removes every tracked file. Async-signal-safe (unlink only): for a
 * signal handler, just before _exit. */
void rp_outdir_unlink_tracked(void);

/* A small text file (summary.txt, qdepth.csv, a report) whole or not at
 * all: body(f, ctx) writes it into PATH.tmp (tracked), renamed over path
 * once closed. 0, or -1 with err (the temporary file removed). */
int rp_outdir_write_text(const char *path, void (*body)(FILE *f, void *ctx), void *ctx, char *err, size_t errlen);

/* What the writers watch (one per process; the command sets it, NULL
 * none): a stop (the caller's SIGINT/SIGTERM flag) makes a long write give
 * up within a few thousand items (rp_outdir_cancelled true: its file is
 * removed, the writer fails) unless the stop was taken in
 * (rp_outdir_stop_taken: the caller has switched to writing only the
 * small files). progress, when set, is called every few thousand items of a
 * long file (path, items written, items in all: JSON Lines; 0, 0 within a
 * document) from the writer's loop. */
struct rp_outdir_watch {
	volatile sig_atomic_t *stop;
	void (*progress)(const char *path, size_t done, size_t total, void *arg);
	void *arg;
};
void rp_outdir_watch(const struct rp_outdir_watch *w);
/* A stop has come and not been taken in: writers and long computations
 * after the run (report/pairs.h) give up. */
bool rp_outdir_cancelled(void);
void rp_outdir_stop_taken(void);
/* The writers' progress hook (nothing without a watch). */
void rp_outdir_progress(const char *path, size_t done, size_t total);

#endif
