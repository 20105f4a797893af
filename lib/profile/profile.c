/* Top level of a profile: sections, --set overrides, load and free. */
#include "profile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "node.h"

static int parse_name(struct rp_vctx *c, const struct rp_node *n, const char *path, struct rp_fp_origin *o)
{
	(void)o;
	return rp_vname(c, n, path, c->prof->name, sizeof(c->prof->name));
}

static int parse_description(struct rp_vctx *c, const struct rp_node *n, const char *path, struct rp_fp_origin *o)
{
	(void)o;
	return rp_vtype(c, n, path, RP_NODE_SCALAR, "a text");
}

static int parse_defaults(struct rp_vctx *c, const struct rp_node *n, const char *path, struct rp_fp_origin *o)
{
	const char *allowed[40];
	size_t k = 0;
	allowed[k++] = "speed";
	for (const char *const *e = rp_engine_keys; *e; e++)
		allowed[k++] = *e;
	for (const char *const *f = rp_flow_keys; *f; f++)
		allowed[k++] = *f;
	allowed[k] = NULL;
	if (rp_vtype(c, n, path, RP_NODE_MAP, "a mapping of default flow keys") || rp_vkeys(c, n, path, allowed))
		return -1;
	const struct rp_node *speed = rp_node_get(n, "speed");
	if (speed) {
		char key[RP_PATH_MAX];
		rp_path_key(key, path, "speed");
		if (rp_vspeed(c, speed, key, &c->prof->default_speed_bps))
			return -1;
	}
	if (rp_host_engine_parse(c, n, path, &c->prof->default_engine))
		return -1;
	return rp_flow_keys_apply(c, n, path, &c->prof->defaults, o);
}

static int parse_hosts(struct rp_vctx *c, const struct rp_node *n, const char *path, struct rp_fp_origin *o)
{
	(void)o;
	return rp_hosts_parse(c, n, path);
}

static int parse_host_template(struct rp_vctx *c, const struct rp_node *n, const char *path, struct rp_fp_origin *o)
{
	(void)o;
	return rp_host_template_parse(c, n, path);
}

static int parse_traffic(struct rp_vctx *c, const struct rp_node *n, const char *path, struct rp_fp_origin *o)
{
	return rp_traffic_parse(c, n, path, o);
}

static int parse_fabric(struct rp_vctx *c, const struct rp_node *n, const char *path, struct rp_fp_origin *o)
{
	(void)o;
	return rp_fabric_parse(c, n, path);
}

static int parse_qpn_seed(struct rp_vctx *c, const struct rp_node *n, const char *path, struct rp_fp_origin *o)
{
	(void)o;
	return rp_vuint(c, n, path, 0, UINT64_MAX, &c->prof->qpn_seed);
}

static int parse_lcores(struct rp_vctx *c, const struct rp_node *n, const char *path, struct rp_fp_origin *o)
{
	(void)o;
	return rp_vuint(c, n, path, 1, 16, &c->prof->lcores);
}

static int parse_certify(struct rp_vctx *c, const struct rp_node *n, const char *path, struct rp_fp_origin *o)
{
	(void)o;
	return rp_certify_parse(c, n, path);
}

static int parse_switches(struct rp_vctx *c, const struct rp_node *n, const char *path, struct rp_fp_origin *o)
{
	(void)o;
	return rp_switches_parse(c, n, path);
}

/* Sections in the order they are validated (later ones may use earlier ones).
 * A new section is one line here and one function. */
static const struct section {
	const char *key;
	bool required;
	int (*parse)(struct rp_vctx *c, const struct rp_node *n, const char *path, struct rp_fp_origin *o);
} sections[] = {
	{"name", false, parse_name},
	{"description", false, parse_description},
	{"defaults", false, parse_defaults},
	{"hosts", false, parse_hosts}, /* hosts or host_template: checked in validate() */
	{"host_template", false, parse_host_template},
	{"traffic", true, parse_traffic},
	{"fabric", false, parse_fabric}, /* the lab's switches and links: docs/lab.md */
	{"qpn_seed", false, parse_qpn_seed}, /* hosts' first QP numbers: docs/profiles.md */
	{"lcores", false, parse_lcores}, /* run's polling lcores (run --lcores): docs/profiles.md */
	{"certify", false, parse_certify}, /* roceprobe certify's intent and thresholds: docs/certify.md */
	{"switches", false, parse_switches}, /* switches whose counters run samples: docs/profiles.md */
};
#define NSECTIONS (sizeof(sections) / sizeof(sections[0]))

static int validate(struct rp_vctx *c, const struct rp_node *root)
{
	if (root->type == RP_NODE_SCALAR && root->scalar[0] == '\0')
		return rp_verr(c, &root->pos, "(top)", "the profile is empty; expected a mapping with hosts and traffic");
	if (rp_vtype(c, root, "(top)", RP_NODE_MAP, "a mapping with hosts and traffic"))
		return -1;
	const char *allowed[NSECTIONS + 1];
	for (size_t i = 0; i < NSECTIONS; i++)
		allowed[i] = sections[i].key;
	allowed[NSECTIONS] = NULL;
	if (rp_vkeys(c, root, "", allowed))
		return -1;
	struct rp_fp_origin origin = {.rate_pos = root->pos, .on_pos = root->pos, .stop_pos = root->pos};
	snprintf(origin.rate_key, sizeof(origin.rate_key), "defaults.rate");
	const struct rp_node_kv *tmpl = rp_node_get_kv(root, "host_template");
	if (tmpl && rp_node_get(root, "hosts"))
		return rp_verr(c, &tmpl->key_pos, "host_template", "give either hosts (a list) or host_template, not both");
	if (!tmpl && !rp_node_get(root, "hosts"))
		return rp_verr(c, &root->pos, "hosts", "missing; a profile needs hosts (or a host_template) and traffic");
	for (size_t i = 0; i < NSECTIONS; i++) {
		const struct rp_node *n = rp_node_get(root, sections[i].key);
		if (!n && sections[i].required)
			return rp_verr(c, &root->pos, sections[i].key, "missing; a profile needs hosts and traffic");
		if (n && sections[i].parse(c, n, sections[i].key, &origin))
			return -1;
	}
	return rp_profile_check_engines(c, rp_node_get(root, "traffic"));
}

static void profile_init(struct rp_profile *p)
{
	memset(p, 0, sizeof(*p));
	rp_flow_params_init(&p->defaults);
	p->default_speed_bps = 100000000000ull;
	p->qpn_seed = 1;
	rp_host_engine_init(&p->default_engine);
	rp_fabric_init(&p->fabric);
	rp_certify_cfg_init(&p->certify);
}

/* Labels "--set k=v" live as long as the tree does. */
static int apply_sets(struct rp_node **root, const struct rp_profile_opts *o, char **labels, char *err, size_t errlen)
{
	for (size_t i = 0; o && i < o->nsets; i++) {
		size_t len = strlen(o->sets[i]) + 7;
		labels[i] = malloc(len);
		if (!labels[i]) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		snprintf(labels[i], len, "--set %s", o->sets[i]);
		if (rp_node_set(root, labels[i], err, errlen))
			return -1;
	}
	return 0;
}

static struct rp_profile *load_tree(struct rp_node *root, const struct rp_profile_opts *o, char *err, size_t errlen)
{
	size_t nsets = o ? o->nsets : 0;
	char **labels = calloc(nsets + 1, sizeof(*labels));
	struct rp_profile *p = calloc(1, sizeof(*p));
	int rc = -1;
	if (!labels || !p) {
		snprintf(err, errlen, "out of memory");
	} else if (apply_sets(&root, o, labels, err, errlen) == 0) {
		profile_init(p);
		struct rp_vctx c = {.err = err, .errlen = errlen, .opts = o, .prof = p};
		rc = validate(&c, root);
	}
	rp_node_free(root);
	for (size_t i = 0; labels && i < nsets; i++)
		free(labels[i]);
	free(labels);
	if (rc) {
		rp_profile_free(p);
		return NULL;
	}
	return p;
}

struct rp_profile *rp_profile_load(const char *path, const struct rp_profile_opts *opts, char *err, size_t errlen)
{
	struct rp_node *root = rp_yaml_load_file(path, err, errlen);
	return root ? load_tree(root, opts, err, errlen) : NULL;
}

struct rp_profile *rp_profile_load_string(const char *name, const char *text, const struct rp_profile_opts *opts,
					  char *err, size_t errlen)
{
	struct rp_node *root = rp_yaml_load_string(name ? name : "<string>", text, strlen(text), err, errlen);
	return root ? load_tree(root, opts, err, errlen) : NULL;
}

void rp_profile_free(struct rp_profile *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nswitches; i++)
		free(p->switches[i].ports);
	free(p->switches);
	free(p->hosts);
	free(p->servers);
	for (size_t i = 0; i < p->ntraffic; i++)
		rp_traffic_release(&p->traffic[i]);
	free(p->traffic);
	free(p);
}

int rp_profile_host_index(const struct rp_profile *p, const char *name)
{
	for (size_t i = 0; i < p->nhosts; i++)
		if (strcmp(p->hosts[i].name, name) == 0)
			return (int)i;
	return -1;
}

int rp_profile_server_index(const struct rp_profile *p, const char *name)
{
	for (size_t i = 0; i < p->nservers; i++)
		if (strcmp(p->servers[i].name, name) == 0)
			return (int)i;
	return -1;
}

bool rp_profile_multi_nic(const struct rp_profile *p)
{
	return p->nservers && p->nservers != p->nhosts;
}

