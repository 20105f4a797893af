/* The ports in the order they were first paused (pause_order.h). */
#include "pause_order.h"

#include <inttypes.h>
#include <stdlib.h>

struct paused {
	size_t port; /* accountant port index: ties keep profile order */
	uint64_t first_ns;
	unsigned prio;
};

static int by_first(const void *a, const void *b)
{
	const struct paused *x = a, *y = b;
	if (x->first_ns != y->first_ns)
		return x->first_ns < y->first_ns ? -1 : 1;
	return x->port < y->port ? -1 : x->port > y->port;
}

/* The paused ports, sorted; *n of them (malloc'd, NULL when none). */
static struct paused *sorted(const struct rp_acct *a, size_t *n)
{
	size_t np = rp_acct_nports(a);
	struct paused *v = calloc(np ? np : 1, sizeof(*v));
	*n = 0;
	for (size_t i = 0; v && i < np; i++) {
		struct rp_acct_port_result p;
		rp_acct_port(a, i, &p);
		bool any = false;
		for (unsigned q = 0; q < 8; q++)
			if (p.prio[q].paused_ever && (!any || p.prio[q].first_pause_ns < v[*n].first_ns)) {
				v[*n] = (struct paused){.port = i, .first_ns = p.prio[q].first_pause_ns, .prio = q};
				any = true;
			}
		*n += any;
	}
	if (v && *n)
		qsort(v, *n, sizeof(*v), by_first);
	return v;
}

json_t *rp_report_pause_order(const struct rp_acct *a)
{
	size_t n;
	struct paused *v = sorted(a, &n);
	json_t *arr = json_array();
	for (size_t k = 0; v && k < n; k++) {
		struct rp_acct_port_result p;
		rp_acct_port(a, v[k].port, &p);
		uint64_t pfc = 0, paused = 0;
		for (unsigned q = 0; q < 8; q++) {
			pfc += p.prio[q].pfc_rx;
			paused = p.prio[q].paused_ns > paused ? p.prio[q].paused_ns : paused;
		}
		json_array_append_new(arr, json_pack("{s:s, s:i, s:I, s:i, s:I, s:I, s:I}", "host", p.node, "port",
						     (int)p.port, "first_pause_ns", (json_int_t)v[k].first_ns, "prio",
						     (int)v[k].prio, "pfc_rx", (json_int_t)pfc, "pause_rx",
						     (json_int_t)p.pause_frames, "paused_ns", (json_int_t)paused));
	}
	free(v);
	return arr;
}

void rp_report_print_pause_order(FILE *f, const struct rp_acct *a, size_t max_rows)
{
	size_t n;
	struct paused *v = sorted(a, &n);
	if (v && n) {
		fputs("\npause order (first pause of each paused port, on the common timebase):\n", f);
		for (size_t k = 0; k < n && k < max_rows; k++) {
			struct rp_acct_port_result p;
			rp_acct_port(a, v[k].port, &p);
			fprintf(f, "%3zu. %-12s %12.3f ms  prio %u%s\n", k + 1, p.node, (double)v[k].first_ns / 1e6,
				v[k].prio, k ? "" : "  (first)");
		}
		if (n > max_rows)
			fprintf(f, "     ... and %zu more (result.json pause_order)\n", n - max_rows);
	}
	free(v);
}
