/* Reading a capture on a command line (see capin.h). */
#include "capin.h"

#include <stdio.h>
#include <sys/stat.h>
#include <time.h>

#include "cli.h"
#include "stats/progress.h"

#define ERRLEN 4400
#define CHECK_EVERY 65536 /* frames between two looks at the clock */

static double wall_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int rp_capin_open(struct rp_capin *c, const char *cmd, const char *path, bool rewindable)
{
	char err[ERRLEN];
	*c = (struct rp_capin){.cmd = cmd};
	if (rp_pcap_reader_open(&c->r, path, rewindable, err, sizeof(err)) != 0)
		return rp_cli_error(cmd, "%s", err);
	struct stat st;
	if (fstat(fileno(pcap_file(c->r.pc)), &st) == 0 && S_ISREG(st.st_mode))
		c->size = (uint64_t)st.st_size;
	return 0;
}

void rp_capin_pass(struct rp_capin *c, const char *pass)
{
	c->pass = pass;
	c->pass_t0 = c->last = wall_s();
	c->frames = 0;
}

/* A pass that has taken over a second says how far it is, once a second. */
static void progress(struct rp_capin *c)
{
	double t = wall_s();
	FILE *f = pcap_file(c->r.pc);
	off_t at = f ? ftello(f) : -1;
	if (t - c->pass_t0 < 1.0 || t - c->last < 1.0 || !c->size || at <= 0)
		return;
	double share = (double)at / (double)c->size, spent = t - c->pass_t0;
	char left[32];
	rp_progress_span(share > 0 ? spent * (1 - share) / share : 0, left, sizeof(left));
	fprintf(stderr, "%s: %s: %.0f%% of %.1f MB, %s left\n", c->cmd, c->pass, 100 * share, (double)c->size / 1e6,
		left);
	c->last = t;
}

int rp_capin_next(struct rp_capin *c, struct pcap_pkthdr **h, const u_char **data)
{
	char err[ERRLEN];
	int rc = rp_pcap_reader_next(&c->r, h, data, err, sizeof(err));
	c->truncated = c->r.truncated;
	if (rc == 1 && c->pass && ++c->frames % CHECK_EVERY == 0)
		progress(c);
	if (rc < 0)
		return rp_cli_error(c->cmd, "%s", err);
	if (rc == 0 && c->truncated && !c->warned) {
		c->warned = true;
		rp_cli_error(c->cmd, "%s", err);
	}
	return rc;
}

int rp_capin_rewind(struct rp_capin *c)
{
	char err[ERRLEN];
	c->truncated = false;
	if (rp_pcap_reader_rewind(&c->r, err, sizeof(err)) != 0)
		return rp_cli_error(c->cmd, "%s", err);
	return 0;
}

void rp_capin_close(struct rp_capin *c)
{
	rp_pcap_reader_close(&c->r);
}
