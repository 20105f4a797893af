/* Reading a capture on a command line (see capin.h). */
#include "capin.h"

#include "cli.h"

#define ERRLEN 4400

int rp_capin_open(struct rp_capin *c, const char *cmd, const char *path, bool rewindable)
{
	char err[ERRLEN];
	*c = (struct rp_capin){.cmd = cmd};
	if (rp_pcap_reader_open(&c->r, path, rewindable, err, sizeof(err)) != 0)
		return rp_cli_error(cmd, "%s", err);
	return 0;
}

int rp_capin_next(struct rp_capin *c, struct pcap_pkthdr **h, const u_char **data)
{
	char err[ERRLEN];
	int rc = rp_pcap_reader_next(&c->r, h, data, err, sizeof(err));
	c->truncated = c->r.truncated;
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
