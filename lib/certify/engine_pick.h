/* Where certify's workloads run: --engine, else `run` when a host names a
 * port (a real fabric), else the lab; the options that belong to the other
 * engine refused, and the lab's fit checked before any test. */
#ifndef RP_CERTIFY_ENGINE_PICK_H
#define RP_CERTIFY_ENGINE_PICK_H

#include <stdbool.h>
#include <stddef.h>

#include "profile/profile.h"

/* asked: "lab", "run" or NULL (by the profile); launcher, suggest: whether
 * --launcher and --suggest were given; path names the profile in messages.
 * 0 with *engine ("lab" or "run"), or -1 with err. */
int rp_cert_pick_engine(const char *asked, bool launcher, bool suggest, const struct rp_profile *prof,
			const char *path, const char **engine, char *err, size_t errlen);

#endif
