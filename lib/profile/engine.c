/* engine:, device:, gid_index: (a host's, or every host's in `defaults:`):
 * whether the host's traffic is crafted on a DPDK port or carried by real
 * RC QPs on an RDMA device (lib/verbs), and the rules a verbs host follows. */
#include <stdio.h>
#include <string.h>

#include "check.h"

const char *const rp_engine_keys[] = {"engine", "device", "gid_index", NULL};

const char *rp_engine_name(enum rp_engine e)
{
	return e == RP_ENGINE_VERBS ? "verbs" : "dpdk";
}

void rp_host_engine_init(struct rp_host_engine *e)
{
	*e = (struct rp_host_engine){.engine = RP_ENGINE_DPDK, .gid_index = -1};
}

int rp_host_engine_parse(struct rp_vctx *c, const struct rp_node *map, const char *path, struct rp_host_engine *e)
{
	char key[RP_PATH_MAX];
	const char *s;
	const struct rp_node *n;
	if ((n = rp_node_get(map, "engine"))) {
		rp_path_key(key, path, "engine");
		if (rp_vscalar(c, n, key, "dpdk or verbs", &s))
			return -1;
		if (!strcmp(s, "dpdk"))
			e->engine = RP_ENGINE_DPDK;
		else if (!strcmp(s, "verbs"))
			e->engine = RP_ENGINE_VERBS;
		else
			return rp_verr(c, &n->pos, key, "expected dpdk (crafted RoCEv2 on a DPDK port) or verbs (RC QPs on "
					  "an RDMA device), got '%s'", s);
	}
	if ((n = rp_node_get(map, "device"))) {
		rp_path_key(key, path, "device");
		if (rp_vscalar(c, n, key, "an RDMA device name like rxe0 or mlx5_0", &s))
			return -1;
		if (strlen(s) >= sizeof(e->device))
			return rp_verr(c, &n->pos, key, "expected an RDMA device name of at most %zu characters, got '%s'",
				       sizeof(e->device) - 1, s);
		strcpy(e->device, s);
	}
	if ((n = rp_node_get(map, "gid_index"))) {
		uint64_t v;
		rp_path_key(key, path, "gid_index");
		if (rp_vuint(c, n, key, 0, RP_GID_INDEX_MAX, &v))
			return -1;
		e->gid_index = (int)v;
	}
	return 0;
}

/* A verbs host's own keys that only a DPDK port can do. */
int rp_host_engine_check(struct rp_vctx *c, const struct rp_node *map, const char *path, const struct rp_host *h)
{
	static const char *const dpdk_only[] = {"port", "pci", "impair", "respond", "gateway", "gateway_mac", NULL};
	char key[RP_PATH_MAX];
	const struct rp_node *n;
	if (h->engine.engine == RP_ENGINE_VERBS) {
		for (const char *const *k = dpdk_only; *k; k++)
			if ((n = rp_node_get(map, *k))) {
				rp_path_key(key, path, *k);
				return rp_verr(c, &n->pos, key, "host '%s' has engine: verbs (its RDMA device's own transport); "
						  "%s is for engine: dpdk hosts", h->name, *k);
			}
		return 0;
	}
	for (const char *const *k = rp_engine_keys + 1; *k; k++)
		if ((n = rp_node_get(map, *k))) {
			rp_path_key(key, path, *k);
			return rp_verr(c, &n->pos, key, "host '%s' has engine: dpdk; %s is for engine: verbs hosts", h->name, *k);
		}
	return 0;
}

/* After traffic: a traffic entry's hosts share one engine, and a verbs
 * entry sends messages its receivers see, each big enough for the probe. */
int rp_profile_check_engines(struct rp_vctx *c, const struct rp_node *traffic)
{
	const struct rp_profile *p = c->prof;
	for (size_t t = 0; t < p->ntraffic; t++) {
		const struct rp_traffic *tr = &p->traffic[t];
		const struct rp_node *n = traffic && traffic->type == RP_NODE_SEQ && t < traffic->n ? traffic->items[t] : traffic;
		struct rp_pos pos = n ? n->pos : (struct rp_pos){0};
		char key[RP_PATH_MAX];
		rp_path_index(key, "traffic", t);
		const struct rp_host *first = &p->hosts[tr->hosts[0]];
		bool verbs = first->engine.engine == RP_ENGINE_VERBS;
		for (size_t i = 0; i < tr->nhosts + (tr->kind == RP_TRAFFIC_RDMA ? tr->npeers : 0); i++) {
			const struct rp_host *h = &p->hosts[i < tr->nhosts ? tr->hosts[i] : tr->peers[i - tr->nhosts]];
			if ((h->engine.engine == RP_ENGINE_VERBS) != verbs)
				return rp_verr(c, &pos, key, "hosts '%s' (engine: %s) and '%s' (engine: %s) are in one entry; "
						  "an entry's hosts share one engine (give each engine its own entry)", first->name,
					       rp_engine_name(first->engine.engine), h->name, rp_engine_name(h->engine.engine));
		}
		if (!verbs)
			continue;
		if (tr->kind != RP_TRAFFIC_RDMA)
			return rp_verr(c, &pos, key, "host '%s' has engine: verbs; PFC sources need engine: dpdk", first->name);
		if (tr->p.verb != RP_VERB_SEND && tr->p.verb != RP_VERB_SEND_IMM && tr->p.verb != RP_VERB_WRITE_IMM)
			return rp_verr(c, &pos, key, "opcode %s: engine: verbs sends messages each receiver sees (its probe: "
					  "flow, seq, tx time): use send, send_imm or write_imm", rp_verb_name(tr->p.verb));
		if (tr->p.msg_size < RP_ENGINE_MIN_MSG)
			return rp_verr(c, &pos, key, "message_size %u B: engine: verbs messages carry a %u B probe; use at least %u B",
				       tr->p.msg_size, RP_ENGINE_MIN_MSG, RP_ENGINE_MIN_MSG);
		if (tr->p.msg_size > RP_ENGINE_MAX_MSG)
			return rp_verr(c, &pos, key, "message_size %u B: engine: verbs takes messages up to %u B", tr->p.msg_size,
				       RP_ENGINE_MAX_MSG);
	}
	return 0;
}
