/* A switch port mirrored as a SPAN session would (lab --mirror): every
 * frame arriving on the port (its last bit in, stamped then: what the
 * peer sent, dropped or not) and every frame leaving it (its first bit out:
 * data as it left the queue, CE marks included, and the PFC frames the
 * switch sent), into DIR/mirror-SWITCH-PORT.pcap through the captures'
 * writer, snaplen, rotation and shared budget (capture.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lab_internal.h"

int rp_lab_mirror_check(const struct rp_profile *prof, const char *const *specs, size_t n, char *err, size_t errlen)
{
	if (n > RP_LAB_MIRRORS_MAX) {
		snprintf(err, errlen, "--mirror: %zu ports; at most %d", n, RP_LAB_MIRRORS_MAX);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		unsigned s, p;
		if (rp_lab_topo_port(prof, specs[i], &s, &p, err, errlen))
			return -1;
	}
	return 0;
}

int rp_lab_mirrors_open(struct rp_lab *lab, char *err, size_t errlen)
{
	size_t n = lab->opts.nmirrors;
	if (!n)
		return 0;
	if (!(lab->mirrors = calloc(n, sizeof(*lab->mirrors)))) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	lab->nmirrors = n; /* each one's capture NULL until opened: freed as far as they got */
	for (size_t i = 0; i < n; i++) {
		struct rp_lab_mirror *m = &lab->mirrors[i];
		if (rp_lab_topo_port(lab->prof, lab->opts.mirrors[i], &m->sw, &m->port, err, errlen))
			return -1;
		struct rp_lab_switch *S = &lab->sw[m->sw];
		if (S->mirror_of[m->port])
			continue; /* the same port twice: one file (no name: left out of capture[]) */
		char file[48];
		snprintf(m->name, sizeof(m->name), "%s:%u", S->name, m->port);
		snprintf(file, sizeof(file), "%s-%u", S->name, m->port);
		m->cap = rp_lab_cap_open_kind(lab->opts.evidence_dir, "mirror", file,
					      lab->opts.snaplen ? lab->opts.snaplen : 65535, lab->opts.capture_rotate,
					      &lab->capb, err, errlen);
		if (!m->cap)
			return -1;
		S->mirror_of[m->port] = (uint8_t)(i + 1);
	}
	return 0;
}

void rp_lab_mirror(struct rp_lab *lab, unsigned m, uint64_t t, const uint8_t *b, size_t len)
{
	rp_lab_cap_put(lab, lab->mirrors[m].cap, t, b, len);
}

void rp_lab_mirrors_close(struct rp_lab *lab)
{
	for (size_t i = 0; i < lab->nmirrors; i++) {
		struct rp_lab_mirror *m = &lab->mirrors[i];
		if (!m->cap)
			continue;
		rp_lab_cap_close(m->cap, lab->tot.end_ns);
		m->files = rp_lab_cap_nfiles(m->cap);
		m->frames = rp_lab_cap_frames(m->cap);
		rp_lab_cap_free(m->cap);
		m->cap = NULL;
	}
}

void rp_lab_mirrors_free(struct rp_lab *lab)
{
	for (size_t i = 0; lab->mirrors && i < lab->nmirrors; i++)
		rp_lab_cap_free(lab->mirrors[i].cap);
	free(lab->mirrors);
	lab->mirrors = NULL;
	lab->nmirrors = 0;
}
