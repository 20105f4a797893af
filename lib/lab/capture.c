#include "capture.h"

#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>

struct rp_lab_cap {
	pcap_t *dead;
	pcap_dumper_t *d;
	unsigned snaplen;
	uint64_t frames;
};

struct rp_lab_cap *rp_lab_cap_open(const char *path, unsigned snaplen, char *err, size_t errlen)
{
	struct rp_lab_cap *c = calloc(1, sizeof(*c));
	if (!c) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	c->snaplen = snaplen ? snaplen : 65535;
	c->dead = pcap_open_dead_with_tstamp_precision(DLT_EN10MB, (int)c->snaplen, PCAP_TSTAMP_PRECISION_NANO);
	if (c->dead)
		c->d = pcap_dump_open(c->dead, path);
	if (!c->d) {
		snprintf(err, errlen, "cannot write %s: %s", path, c->dead ? pcap_geterr(c->dead) : "out of memory");
		if (c->dead)
			pcap_close(c->dead);
		free(c);
		return NULL;
	}
	return c;
}

void rp_lab_cap_write(struct rp_lab_cap *c, uint64_t ts_ns, const uint8_t *buf, size_t len)
{
	struct pcap_pkthdr h;
	h.ts.tv_sec = (time_t)(ts_ns / 1000000000ull);
	h.ts.tv_usec = (suseconds_t)(ts_ns % 1000000000ull); /* nanoseconds with NANO precision */
	h.len = (bpf_u_int32)len;
	h.caplen = (bpf_u_int32)(len < c->snaplen ? len : c->snaplen);
	pcap_dump((u_char *)c->d, &h, buf);
	c->frames++;
}

uint64_t rp_lab_cap_frames(const struct rp_lab_cap *c)
{
	return c->frames;
}

int rp_lab_cap_close(struct rp_lab_cap *c, char *err, size_t errlen)
{
	int rc = 0;
	if (!c)
		return 0;
	if (pcap_dump_flush(c->d) != 0) {
		snprintf(err, errlen, "cannot flush a capture: %s", pcap_geterr(c->dead));
		rc = -1;
	}
	pcap_dump_close(c->d);
	pcap_close(c->dead);
	free(c);
	return rc;
}
