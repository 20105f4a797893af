/* The preflight of a session: doctor's checks (lib/doctor) for the hosts
 * whose ports this process opens and its verbs hosts, before the EAL starts. */
#ifndef RP_RUN_PREFLIGHT_H
#define RP_RUN_PREFLIGHT_H

#include <stdbool.h>

struct rp_session;
struct rp_session_opts;
/* 0 (each WARN a line on stderr; *huge_warned when one was the hugepages'),
 * or RP_SESSION_USAGE with the FAIL's line in s->err. Nothing when
 * o->no_preflight. */
int rp_session_preflight(struct rp_session *s, const struct rp_session_opts *o, bool *huge_warned);

#endif
