/* The per-flow keys, shared by `defaults:` and every traffic entry. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "wire/ipv4.h"
#include "wire/sport.h"

#define RP_MAX_MSG_SIZE (1ull << 31)
#define RP_MAX_QPS 256

const char *const rp_flow_keys[] = {
	"opcode", "message_size", "mtu", "qps", "dscp", "ecn", "vlan", "pcp", "sport", "sport_base", "rate",
	"burst_on", "burst_off", "start", "duration", "packets", "messages", "psn_start", "ip", "imm", "nic_spread", NULL,
};

void rp_flow_params_init(struct rp_flow_params *fp)
{
	*fp = (struct rp_flow_params){
		.verb = RP_VERB_WRITE,
		.msg_size = 65536,
		.mtu = 4096,
		.qps = 1,
		.dscp = 26,
		.ecn = RP_ECN_ECT0,
		.sport = RP_SPORT_LINUX,
		.sport_base = 0xC000,
		.rate = {.ppm = 1000000},
		.stop = RP_STOP_DURATION,
		.stop_value = 1000000000ull,
	};
}

bool rp_is_flow_key(const char *key)
{
	for (const char *const *k = rp_flow_keys; *k; k++)
		if (strcmp(*k, key) == 0)
			return true;
	return false;
}

struct fk_arg {
	struct rp_vctx *c;
	const struct rp_node *n;
	const char *key; /* full path */
	struct rp_flow_params *fp;
	struct rp_fp_origin *origin;
};

static int word_of(struct fk_arg *a, const char *what, int (*parse)(const char *), int *out)
{
	const char *s;
	if (rp_vscalar(a->c, a->n, a->key, what, &s))
		return -1;
	*out = parse(s);
	if (*out < 0)
		return rp_verr(a->c, &a->n->pos, a->key, "expected %s, got '%s'", what, s);
	return 0;
}

static int fk_opcode(struct fk_arg *a)
{
	int v;
	if (word_of(a, "one of write, write_imm, send, send_imm, read_resp", rp_verb_parse, &v))
		return -1;
	a->fp->verb = (enum rp_verb)v;
	return 0;
}

static int fk_ecn(struct fk_arg *a)
{
	int v;
	if (word_of(a, "one of not-ect, ect0, ect1, ce", rp_ecn_parse, &v))
		return -1;
	a->fp->ecn = (uint8_t)v;
	return 0;
}

static int fk_sport(struct fk_arg *a)
{
	int v;
	if (word_of(a, "one of linux, fixed, per-qp", rp_sport_policy_parse, &v))
		return -1;
	a->fp->sport = v;
	return 0;
}

static int nic_spread_parse(const char *s)
{
	return !strcmp(s, "round-robin") ? RP_NIC_ROUND_ROBIN : !strcmp(s, "hash") ? RP_NIC_HASH : -1;
}

static int fk_nic_spread(struct fk_arg *a)
{
	int v;
	if (word_of(a, "round-robin or hash", nic_spread_parse, &v))
		return -1;
	a->fp->nic_spread = (uint8_t)v;
	return 0;
}

static int fk_message_size(struct fk_arg *a)
{
	uint64_t v;
	if (rp_vsize(a->c, a->n, a->key, RP_MAX_MSG_SIZE, &v))
		return -1;
	a->fp->msg_size = (uint32_t)v;
	return 0;
}

static int fk_mtu(struct fk_arg *a)
{
	const char *s;
	uint64_t v;
	static const char what[] = "one of 256, 512, 1024, 2048, 4096";
	if (rp_vscalar(a->c, a->n, a->key, what, &s))
		return -1;
	if (rp_parse_size(s, &v) || (v != 256 && v != 512 && v != 1024 && v != 2048 && v != 4096))
		return rp_verr(a->c, &a->n->pos, a->key, "expected %s (the RoCE path MTU), got '%s'", what, s);
	a->fp->mtu = (uint16_t)v;
	return 0;
}

#define UINT_KEY(fn, field, lo, hi)                                     \
	static int fn(struct fk_arg *a)                                 \
	{                                                               \
		uint64_t v;                                             \
		if (rp_vuint(a->c, a->n, a->key, (lo), (hi), &v))       \
			return -1;                                      \
		a->fp->field = (__typeof__(a->fp->field))v;             \
		return 0;                                               \
	}
UINT_KEY(fk_qps, qps, 1, RP_MAX_QPS)
UINT_KEY(fk_dscp, dscp, 0, 63)
UINT_KEY(fk_sport_base, sport_base, 0, 65535)
UINT_KEY(fk_psn_start, psn_start, 0, 0xFFFFFF)
UINT_KEY(fk_imm, imm, 0, 0xFFFFFFFFull)

static int fk_pcp(struct fk_arg *a)
{
	uint64_t v;
	if (rp_vuint(a->c, a->n, a->key, 0, 7, &v))
		return -1;
	a->fp->pcp = (uint8_t)v;
	a->fp->has_pcp = true;
	return 0;
}

static int fk_vlan(struct fk_arg *a)
{
	uint64_t v;
	if (a->n->type == RP_NODE_SCALAR && strcmp(a->n->scalar, "none") == 0) {
		a->fp->has_vlan = false;
		return 0;
	}
	if (a->n->type == RP_NODE_SCALAR && rp_parse_uint(a->n->scalar, 4094, &v) != 0)
		return rp_verr(a->c, &a->n->pos, a->key, "expected a VLAN id from 0 to 4094 or none, got '%s'", a->n->scalar);
	if (rp_vuint(a->c, a->n, a->key, 0, 4094, &v))
		return -1;
	a->fp->has_vlan = true;
	a->fp->vid = (uint16_t)v;
	return 0;
}

static int fk_ip(struct fk_arg *a)
{
	uint64_t v;
	if (a->n->type == RP_NODE_SCALAR && strcmp(a->n->scalar, "auto") == 0) {
		a->fp->ip = 0;
		return 0;
	}
	if (a->n->type != RP_NODE_SCALAR || rp_parse_uint(a->n->scalar, 6, &v) || (v != 4 && v != 6))
		return rp_verr(a->c, &a->n->pos, a->key, "expected 4, 6 or auto, got '%s'",
			       a->n->type == RP_NODE_SCALAR ? a->n->scalar : rp_node_type_name(a->n->type));
	a->fp->ip = (uint8_t)v;
	return 0;
}

static int fk_rate(struct fk_arg *a)
{
	if (rp_vrate(a->c, a->n, a->key, &a->fp->rate))
		return -1;
	a->origin->rate_pos = a->n->pos;
	snprintf(a->origin->rate_key, sizeof(a->origin->rate_key), "%s", a->key);
	return 0;
}

static int fk_burst_on(struct fk_arg *a)
{
	if (rp_vduration(a->c, a->n, a->key, &a->fp->burst_on_ns))
		return -1;
	a->origin->on_pos = a->n->pos;
	snprintf(a->origin->on_key, sizeof(a->origin->on_key), "%s", a->key);
	return 0;
}

static int fk_burst_off(struct fk_arg *a)
{
	return rp_vduration(a->c, a->n, a->key, &a->fp->burst_off_ns);
}

static int fk_start(struct fk_arg *a)
{
	return rp_vduration(a->c, a->n, a->key, &a->fp->start_ns);
}

static void note_stop(struct fk_arg *a, enum rp_stop_kind k)
{
	a->fp->stop = k;
	a->origin->stop_pos = a->n->pos;
	snprintf(a->origin->stop_key, sizeof(a->origin->stop_key), "%s", a->key);
}

static int fk_duration(struct fk_arg *a)
{
	if (rp_vduration(a->c, a->n, a->key, &a->fp->stop_value))
		return -1;
	if (a->fp->stop_value == 0)
		return rp_verr(a->c, &a->n->pos, a->key, "expected a duration above 0, got '%s'", a->n->scalar);
	note_stop(a, RP_STOP_DURATION);
	return 0;
}

static int fk_count(struct fk_arg *a, enum rp_stop_kind k)
{
	if (rp_vuint(a->c, a->n, a->key, 1, 1000000000000000ull, &a->fp->stop_value))
		return -1;
	note_stop(a, k);
	return 0;
}

static int fk_packets(struct fk_arg *a) { return fk_count(a, RP_STOP_PACKETS); }
static int fk_messages(struct fk_arg *a) { return fk_count(a, RP_STOP_MESSAGES); }

static const struct {
	const char *key;
	int (*apply)(struct fk_arg *a);
} handlers[] = {
	{"opcode", fk_opcode}, {"message_size", fk_message_size}, {"mtu", fk_mtu}, {"qps", fk_qps},
	{"dscp", fk_dscp}, {"ecn", fk_ecn}, {"vlan", fk_vlan}, {"pcp", fk_pcp}, {"sport", fk_sport},
	{"sport_base", fk_sport_base}, {"rate", fk_rate}, {"burst_on", fk_burst_on}, {"burst_off", fk_burst_off},
	{"start", fk_start}, {"duration", fk_duration}, {"packets", fk_packets}, {"messages", fk_messages},
	{"psn_start", fk_psn_start}, {"ip", fk_ip}, {"imm", fk_imm}, {"nic_spread", fk_nic_spread},
};

static int check_one_stop(struct rp_vctx *c, const struct rp_node *map, const char *path)
{
	static const char *const stops[] = {"duration", "packets", "messages"};
	const struct rp_node_kv *first = NULL;
	for (size_t i = 0; i < 3; i++) {
		const struct rp_node_kv *kv = rp_node_get_kv(map, stops[i]);
		if (!kv)
			continue;
		if (first) {
			char key[RP_PATH_MAX];
			rp_path_key(key, path, kv->key);
			return rp_verr(c, &kv->key_pos, key, "conflicts with '%s'; give one of duration, packets, messages",
				       first->key);
		}
		first = kv;
	}
	return 0;
}

int rp_flow_keys_apply(struct rp_vctx *c, const struct rp_node *map, const char *path, struct rp_flow_params *fp,
		       struct rp_fp_origin *origin)
{
	if (check_one_stop(c, map, path))
		return -1;
	for (size_t i = 0; i < map->n; i++) {
		for (size_t h = 0; h < sizeof(handlers) / sizeof(handlers[0]); h++) {
			if (strcmp(handlers[h].key, map->kv[i].key))
				continue;
			char key[RP_PATH_MAX];
			rp_path_key(key, path, map->kv[i].key);
			struct fk_arg a = {.c = c, .n = map->kv[i].val, .key = key, .fp = fp, .origin = origin};
			if (handlers[h].apply(&a))
				return -1;
		}
	}
	return 0;
}
