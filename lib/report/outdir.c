/* The -o directory and the parents of -w files (see outdir.h). */
#include "report/outdir.h"

#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int fail(char *err, size_t errlen, const char *what, const char *path)
{
	snprintf(err, errlen, "%s %s: %s", what, path, strerror(errno));
	return -1;
}

int rp_outdir_mkdirs(const char *dir, char *err, size_t errlen)
{
	char p[4096];
	size_t n = strlen(dir);
	if (n == 0 || n >= sizeof(p)) {
		snprintf(err, errlen, "bad directory name '%s'", dir);
		return -1;
	}
	memcpy(p, dir, n + 1);
	/* Each prefix ending before a '/', then the whole path. */
	for (size_t i = 1; i <= n; i++) {
		if (p[i] != '/' && p[i] != '\0')
			continue;
		char c = p[i];
		p[i] = '\0';
		struct stat st;
		if (mkdir(p, 0755) != 0 && errno != EEXIST)
			return fail(err, errlen, "cannot create", p);
		if (stat(p, &st) != 0)
			return fail(err, errlen, "cannot create", p);
		if (!S_ISDIR(st.st_mode)) {
			snprintf(err, errlen, "cannot create %s: %s is not a directory", dir, p);
			return -1;
		}
		p[i] = c;
	}
	return 0;
}

int rp_outdir_mkparents(const char *file, char *err, size_t errlen)
{
	const char *slash = strrchr(file, '/');
	char p[4096];
	size_t n = slash ? (size_t)(slash - file) : 0;
	if (n == 0) /* a bare name, or a file in / */
		return 0;
	if (n >= sizeof(p)) {
		snprintf(err, errlen, "path too long: %s", file);
		return -1;
	}
	memcpy(p, file, n);
	p[n] = '\0';
	return rp_outdir_mkdirs(p, err, errlen);
}

/* Everything a run, a sweep or tools/plot writes into its directory. */
static const char *const outputs[] = {
	"result.json", "result.json.tmp*", "summary.txt", "summary.txt.tmp*", "qdepth.csv", "sweep.csv",
	"sweep.json",  "sweep.json.tmp*",  "qdepth.csv.tmp", "capture-*.pcap*", "mirror-*.pcap*", "counters.jsonl", "counters.jsonl.part", "latency_cdf.png",     "pfc_timeline.png",
	"goodput.png", "point-[0-9]*", "report.md", "report.md.tmp", "report.html", "report.html.tmp",
	"flows.jsonl", "flows.jsonl.tmp*", "pairs.jsonl", "pairs.jsonl.tmp*",
};

static bool is_output(const char *name)
{
	for (size_t i = 0; i < sizeof(outputs) / sizeof(outputs[0]); i++)
		if (fnmatch(outputs[i], name, 0) == 0)
			return true;
	return false;
}

/* Removes the roceprobe outputs in dir; sweep points recursively. */
static int clear_outputs(const char *dir, int depth, char *err, size_t errlen)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int rc = 0;
	if (!d)
		return fail(err, errlen, "cannot read", dir);
	while (rc == 0 && (e = readdir(d)) != NULL) {
		char path[4096];
		struct stat st;
		if (!is_output(e->d_name))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (lstat(path, &st) != 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			if (depth > 0 || fnmatch("point-[0-9]*", e->d_name, 0) != 0)
				continue; /* a directory of the user's that happens to match */
			rc = clear_outputs(path, depth + 1, err, errlen);
			if (rc == 0 && rmdir(path) != 0 && errno != ENOTEMPTY && errno != EEXIST)
				rc = fail(err, errlen, "cannot remove", path);
		} else if (unlink(path) != 0) {
			rc = fail(err, errlen, "cannot remove", path);
		}
	}
	closedir(d);
	return rc;
}

static bool is_empty(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	bool empty = true;
	while (d && empty && (e = readdir(d)) != NULL)
		empty = strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0;
	if (d)
		closedir(d);
	return empty;
}

static int refuse_full(const char *dir, char *err, size_t errlen)
{
	snprintf(err, errlen,
		 "%s is not empty (a previous run?): choose another -o, or add --force to replace the roceprobe files in it",
		 dir);
	return -1;
}

int rp_outdir_check(const char *dir, bool force, char *err, size_t errlen)
{
	struct stat st;
	if (stat(dir, &st) != 0)
		return 0; /* made later, with its parents */
	if (!S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s exists and is not a directory", dir);
		return -1;
	}
	return !force && !is_empty(dir) ? refuse_full(dir, err, errlen) : 0;
}

void rp_outdir_abandon(const char *dir, bool made)
{
	char err[64];
	if (clear_outputs(dir, 0, err, sizeof(err)) == 0 && made)
		rmdir(dir); /* fails, harmlessly, when something else is in it */
}

int rp_outdir_prepare(const char *dir, bool force, char *err, size_t errlen)
{
	if (rp_outdir_mkdirs(dir, err, errlen) != 0)
		return -1;
	if (access(dir, W_OK) != 0)
		return fail(err, errlen, "cannot write into", dir);
	if (is_empty(dir))
		return 0;
	return force ? clear_outputs(dir, 0, err, errlen) : refuse_full(dir, err, errlen);
}

/* The tracked paths: a slot's path is copied before the slot is marked
 * used, and the mark is cleared before it is reused, so the handler reads
 * whole paths (at worst one whose file is gone: unlink fails, harmlessly). */
static char tracked[RP_OUTDIR_TRACK_MAX][4096];
static volatile sig_atomic_t tracked_used[RP_OUTDIR_TRACK_MAX];

int rp_outdir_track(const char *path)
{
	size_t n = strlen(path);
	for (int i = 0; i < RP_OUTDIR_TRACK_MAX && n < sizeof(tracked[0]); i++)
		if (!tracked_used[i]) {
			memcpy(tracked[i], path, n + 1);
			tracked_used[i] = 1;
			return i;
		}
	return -1;
}

void rp_outdir_untrack(int slot)
{
	if (slot >= 0 && slot < RP_OUTDIR_TRACK_MAX)
		tracked_used[slot] = 0;
}

void rp_outdir_unlink_tracked(void)
{
	for (int i = 0; i < RP_OUTDIR_TRACK_MAX; i++)
		if (tracked_used[i])
			unlink(tracked[i]);
}

int rp_outdir_write_text(const char *path, void (*body)(FILE *f, void *ctx), void *ctx, char *err, size_t errlen)
{
	char tmp[4200];
	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp)) {
		snprintf(err, errlen, "path too long: %s", path);
		return -1;
	}
	int slot = rp_outdir_track(tmp);
	FILE *f = fopen(tmp, "w");
	if (!f) {
		int e = errno;
		rp_outdir_untrack(slot);
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(e));
		return -1;
	}
	errno = 0;
	body(f, ctx);
	bool ok = !ferror(f);
	int e = errno ? errno : EIO;
	if (fclose(f) != 0 || !ok || rename(tmp, path) != 0) {
		e = ok ? errno : e;
		unlink(tmp);
		rp_outdir_untrack(slot);
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(e ? e : EIO));
		return -1;
	}
	rp_outdir_untrack(slot);
	return 0;
}

static struct rp_outdir_watch watch;
static bool taken;

void rp_outdir_watch(const struct rp_outdir_watch *w)
{
	watch = w ? *w : (struct rp_outdir_watch){.stop = NULL};
	taken = false;
}

bool rp_outdir_cancelled(void)
{
	return watch.stop && *watch.stop && !taken;
}

void rp_outdir_stop_taken(void)
{
	taken = true;
}

void rp_outdir_progress(const char *path, size_t done, size_t total)
{
	if (watch.progress)
		watch.progress(path, done, total, watch.arg);
}
