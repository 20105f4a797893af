/* Validation helpers shared by the profile sections (internal to lib/profile).
 * Each returns 0, or -1 after writing the one-line error. */
#ifndef RP_PROFILE_CHECK_H
#define RP_PROFILE_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "node.h"
#include "profile.h"

#define RP_PATH_MAX 96

struct rp_vctx {
	char *err;
	size_t errlen;
	const struct rp_profile_opts *opts;
	struct rp_profile *prof;
};

/* "FILE:L:C: key 'KEY': MESSAGE" (or "--set k=v: key 'KEY': MESSAGE"). */
__attribute__((format(printf, 4, 5))) int rp_verr(struct rp_vctx *c, const struct rp_pos *pos, const char *key,
						  const char *fmt, ...);
void rp_path_key(char *out, const char *parent, const char *key);
void rp_path_index(char *out, const char *parent, size_t i);

/* Every key of map must be in allowed (NULL-terminated). */
int rp_vkeys(struct rp_vctx *c, const struct rp_node *map, const char *path, const char *const *allowed);
/* The node must be of this type; what describes it ("a list of hosts"). */
int rp_vtype(struct rp_vctx *c, const struct rp_node *n, const char *path, enum rp_node_type t, const char *what);
/* The scalar must be non-empty; returns it in *s. */
int rp_vscalar(struct rp_vctx *c, const struct rp_node *n, const char *path, const char *what, const char **s);

int rp_vsize(struct rp_vctx *c, const struct rp_node *n, const char *path, uint64_t max, uint64_t *v);
int rp_vrate(struct rp_vctx *c, const struct rp_node *n, const char *path, struct rp_rate *r);
int rp_vspeed(struct rp_vctx *c, const struct rp_node *n, const char *path, uint64_t *bps);
int rp_vduration(struct rp_vctx *c, const struct rp_node *n, const char *path, uint64_t *ns);
int rp_vuint(struct rp_vctx *c, const struct rp_node *n, const char *path, uint64_t min, uint64_t max, uint64_t *v);
int rp_vname(struct rp_vctx *c, const struct rp_node *n, const char *path, char *out, size_t len);
/* Priorities as a mask: `3` or `[3, 4]` (0..7); with at_least_one an empty
 * list is refused. */
int rp_vprio_mask(struct rp_vctx *c, const struct rp_node *n, const char *path, bool at_least_one, uint8_t *mask);
/* A host or NIC name that must exist; returns its index in hosts[] (a host
 * of several NICs: its NIC 0, with *spread true). spread NULL: a host of
 * several NICs is refused (the caller needs one NIC). */
int rp_vhost(struct rp_vctx *c, const struct rp_node *n, const char *path, uint16_t *idx, bool *spread);
/* A list of distinct hosts: names, `all`, or globs like h* (fnmatch, in host order); a single entry is a list of one.
 * out_spread as rp_vhost's spread, per entry (NULL: one NIC each). */
int rp_vhost_list(struct rp_vctx *c, const struct rp_node *n, const char *path, uint16_t *out, bool *out_spread,
		  size_t *count);
/* Whether two endpoints (index, spread) are one host, or one NIC. */
bool rp_endpoints_overlap(const struct rp_profile *p, uint16_t a, bool as, uint16_t b, bool bs);

/* Where a flow parameter came from, for checks made after merging. */
struct rp_fp_origin {
	struct rp_pos rate_pos;
	char rate_key[RP_PATH_MAX];
	struct rp_pos on_pos;
	char on_key[RP_PATH_MAX];
	struct rp_pos stop_pos;
	char stop_key[RP_PATH_MAX];
};

/* The flow keys (shared by `defaults:` and traffic entries). */
extern const char *const rp_flow_keys[];
bool rp_is_flow_key(const char *key);
/* Applies every flow key of map onto fp (other keys are ignored). */
int rp_flow_keys_apply(struct rp_vctx *c, const struct rp_node *map, const char *path, struct rp_flow_params *fp,
		       struct rp_fp_origin *origin);

int rp_hosts_parse(struct rp_vctx *c, const struct rp_node *n, const char *path);
/* nics.c: how many NICs a host map has (1 without `nics:`), and NIC r's own
 * host map (named HOST.NIC, addresses derived; the caller frees it), or NULL. */
int rp_host_nic_count(struct rp_vctx *c, const struct rp_node *map, const char *path, size_t *n);
struct rp_node *rp_host_nic_map(struct rp_vctx *c, const struct rp_node *map, const char *path, unsigned r);
/* `host_template:` (template.c): its hosts, expanded for the launch in c->opts, parsed as rp_hosts_parse does. */
int rp_host_template_parse(struct rp_vctx *c, const struct rp_node *t, const char *path);
/* engine.c: engine, device, gid_index of a host map or of defaults onto e;
 * a host's keys that its engine cannot do; after traffic, each entry's
 * hosts share one engine and verbs entries send what a receiver sees. */
extern const char *const rp_engine_keys[];
void rp_host_engine_init(struct rp_host_engine *e);
int rp_host_engine_parse(struct rp_vctx *c, const struct rp_node *map, const char *path, struct rp_host_engine *e);
int rp_host_engine_check(struct rp_vctx *c, const struct rp_node *map, const char *path, const struct rp_host *h);
int rp_profile_check_engines(struct rp_vctx *c, const struct rp_node *traffic);
/* A host's mac, ipv4, ipv6 (with /prefix), gateway and gateway_mac (host_addr.c). */
int rp_host_addr_parse(struct rp_vctx *c, const struct rp_node *map, const char *path, struct rp_host *h);
/* The `fabric:` section (fabric.c), after hosts and defaults. */
int rp_fabric_parse(struct rp_vctx *c, const struct rp_node *n, const char *path);
/* The `certify:` section (certify_cfg.c). */
int rp_certify_parse(struct rp_vctx *c, const struct rp_node *n, const char *path);
/* The `switches:` section (switches.c), after hosts. */
int rp_switches_parse(struct rp_vctx *c, const struct rp_node *n, const char *path);
int rp_traffic_parse(struct rp_vctx *c, const struct rp_node *n, const char *path, const struct rp_fp_origin *dflt);
/* Frees an entry's host arrays (rp_profile_free, for each parsed entry). */
void rp_traffic_release(struct rp_traffic *t);

#endif
