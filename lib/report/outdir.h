/* Where a run's files go: the -o directory and the parents of -w files.
 * Parents are made like `mkdir -p`; a directory that already holds a run is
 * refused unless the user says --force, and then only roceprobe's own files
 * (result.json, summary.txt, flows.jsonl, pairs.jsonl, captures, plots,
 * sweep points) are removed, so a
 * reused directory never shows the previous run's captures or plots next to
 * the new result. Errors go to err as one line. */
#ifndef RP_REPORT_OUTDIR_H
#define RP_REPORT_OUTDIR_H

#include <stdbool.h>
#include <stddef.h>

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

#endif
