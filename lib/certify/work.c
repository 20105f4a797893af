/* A test's workload as profile traffic (a YAML flow sequence, the schema of
 * the profile's `traffic:`), given to the engine as one --set traffic=[...]:
 * every engine runs profiles, so every engine runs the same workload. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cert_internal.h"

void rp_cert_buf_init(struct rp_cert_buf *b)
{
	b->n = 0;
	b->s[0] = '\0';
	b->overflow = false;
}

void rp_cert_buf_add(struct rp_cert_buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(b->s + b->n, sizeof(b->s) - b->n, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(b->s) - b->n) {
		b->overflow = true;
		b->s[b->n] = '\0';
		return;
	}
	b->n += (size_t)n;
}

static const char *host(const struct rp_cert_ctx *c, unsigned i)
{
	return c->prof->hosts[i].name;
}

static void sep(struct rp_cert_buf *b)
{
	if (b->n)
		rp_cert_buf_add(b, ", ");
}

void rp_cert_w_incast(struct rp_cert_buf *b, const struct rp_cert_ctx *c, const char *name, unsigned recv,
		      const unsigned *senders, size_t n, unsigned dscp, const char *ecn, uint32_t messages)
{
	sep(b);
	rp_cert_buf_add(b, "{name: %s, pattern: incast, receiver: %s, senders: [", name, host(c, recv));
	for (size_t i = 0; i < n; i++)
		rp_cert_buf_add(b, "%s%s", i ? ", " : "", host(c, senders[i]));
	rp_cert_buf_add(b, "], dscp: %u, ecn: %s, opcode: write, message_size: 64KiB, mtu: 4096, rate: 100%%, "
			   "messages: %" PRIu32 "}",
			dscp, ecn, messages);
}

void rp_cert_w_flow(struct rp_cert_buf *b, const struct rp_cert_ctx *c, const char *name, unsigned src, unsigned dst,
		    unsigned dscp, const char *rate, uint32_t msg_size, uint64_t duration_ns, uint64_t start_ns)
{
	sep(b);
	rp_cert_buf_add(b, "{name: %s, pattern: flow, src: %s, dst: %s, dscp: %u, ecn: not-ect, opcode: write, "
			   "message_size: %" PRIu32 ", mtu: 4096, rate: '%s', start: %" PRIu64 "ns, duration: %" PRIu64 "ns}",
			name, host(c, src), host(c, dst), dscp, msg_size, rate, start_ns, duration_ns);
}

/* all-to-all or permutation over every host. */
void rp_cert_w_group(struct rp_cert_buf *b, const struct rp_cert_ctx *c, const char *name, const char *pattern,
		     unsigned dscp, const char *ecn, uint32_t messages, unsigned qps)
{
	sep(b);
	rp_cert_buf_add(b, "{name: %s, pattern: %s, hosts: [", name, pattern);
	for (size_t i = 0; i < c->prof->nhosts; i++)
		rp_cert_buf_add(b, "%s%s", i ? ", " : "", host(c, (unsigned)i));
	rp_cert_buf_add(b, "], dscp: %u, ecn: %s, opcode: write, message_size: 64KiB, mtu: 4096, rate: 100%%, "
			   "qps: %u, sport: per-qp, messages: %" PRIu32 "}",
			dscp, ecn, qps, messages);
}

int rp_cert_exec(struct rp_cert_ctx *c, struct rp_cert_t *t, const char *label, const struct rp_cert_buf *traffic,
		 const char *const *extra, size_t nextra, json_t **res)
{
	const struct rp_cert_opts *o = c->o;
	size_t n = o->nsets + nextra + 2;
	const char **sets = calloc(n, sizeof(*sets));
	char *tset = malloc(traffic->n + 16);
	*res = NULL;
	if (!sets || !tset || traffic->overflow) {
		free(sets);
		free(tset);
		snprintf(c->err, sizeof(c->err), "certify: %s: workload too large", label);
		return -1;
	}
	snprintf(tset, traffic->n + 16, "traffic=[%s]", traffic->s);
	size_t k = 0;
	for (size_t i = 0; i < o->nsets; i++)
		sets[k++] = o->sets[i];
	if (c->seed_set)
		sets[k++] = c->seed_set;
	for (size_t i = 0; i < nextra; i++)
		sets[k++] = extra[i];
	sets[k++] = tset;
	if (o->eng->begin)
		o->eng->begin(o->eng->ctx, t->id, label);
	int rc = o->eng->run(o->eng->ctx, sets, k, o->allow_pause_storm, res, c->err, sizeof(c->err));
	json_t *ex = json_array();
	for (size_t i = 0; i < nextra; i++)
		json_array_append_new(ex, json_string(extra[i]));
	json_t *run = json_pack("{s:s, s:s, s:o}", "label", label, "traffic", traffic->s, "sets", ex);
	if (*res)
		json_object_set_new(run, "elapsed_ns", json_integer((json_int_t)rp_cert_elapsed_ns(*res)));
	if (c->seed_set)
		json_object_set_new(run, "seed", json_integer((json_int_t)c->seed));
	if (*res && json_is_string(json_object_get(*res, "dir"))) /* an engine that keeps each run's files */
		json_object_set(run, "dir", json_object_get(*res, "dir"));
	json_array_append_new(t->runs, run);
	free(tset);
	free(sets);
	if (rc == 1)
		t->stopped = true;
	return rc;
}
