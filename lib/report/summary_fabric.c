/* summary.txt's lab sections: the headline (loss, pause, latency, goodput,
 * deepest queue, what was in flight, captures cut short), then the fabric:
 * drops by reason and priority, PFC, where pause went and whom it held up:
 * what the lab profiles exist to show. */
#include <inttypes.h>

#include "report/summary.h"

void rp_summary_headline(FILE *f, const struct rp_summary *s)
{
	const struct rp_summary_lab *h = s->lab;
	char lat[96] = "latency n/a (no probe carried a timestamp)";
	if (h->latency_samples)
		snprintf(lat, sizeof(lat), "latency p99 %" PRIu64 " ns p99.9 %" PRIu64 " ns", h->p99_ns, h->p999_ns);
	fprintf(f, "\nloss %.4f%% (%" PRIu64 " lost, %" PRIu64 " switch drops), most paused host priority %.2f%%,\n"
		   "%s, goodput %.3f Gbit/s, deepest queue %" PRIu64 " bytes\n",
		h->loss_pct, h->lost, h->drops, h->paused_pct, lat, h->goodput_gbps, h->max_queue_bytes);
	if (h->in_flight) /* a run stopped early: neither received nor lost */
		fprintf(f, "in flight %" PRIu64 " (not lost, not in the loss %%): %" PRIu64 " in switch buffers, %" PRIu64
			   " on links, when the run stopped\n",
			h->in_flight, h->in_flight_total - h->in_flight_on_links, h->in_flight_on_links);
	if (h->capture_stopped)
		fprintf(f, "captures incomplete: they end at virtual %.3f ms (%s%s%s)\n", (double)h->capture_stopped_ns / 1e6,
			h->capture_failed ? h->capture_error : h->capture_room_limited ? "the disk's room for pcaps, " : "--capture-max ",
			h->capture_failed ? "" : h->capture_max, h->capture_failed ? "; each file cut back to its last whole record" : "");
}

static void drops(FILE *f, const struct rp_summary *s)
{
	const struct rp_summary_lab *l = s->lab;
	if (!l->sw_drops)
		return;
	fprintf(f, "switch drops: %" PRIu64 " by reason:", l->sw_drops);
	for (int d = 1; d < RP_DROP_REASONS; d++)
		if (l->drop_reasons[d])
			fprintf(f, " %s %" PRIu64, rp_switch_drop_name((enum rp_switch_drop)d), l->drop_reasons[d]);
	fputs(", by priority:", f);
	for (unsigned q = 0; q < 8; q++) {
		uint64_t n = 0;
		for (size_t i = 0; i < rp_acct_nports(s->acct); i++) {
			struct rp_acct_port_result p;
			rp_acct_port(s->acct, i, &p);
			n += p.prio[q].drops;
		}
		if (n)
			fprintf(f, " %u: %" PRIu64, q, n);
	}
	fputc('\n', f);
}

/* Where congestion began and each hop's first XOFF (the first 8). */
static void propagation(FILE *f, const json_t *pp)
{
	const json_t *where = json_object_get(pp, "congested"), *hops = json_object_get(pp, "hops"), *x;
	size_t i;
	if (json_is_object(where))
		fprintf(f, "pause propagation: congestion began at %s port %d at %" PRId64 " ns; %zu ports sent XOFF, depth %d%s",
			json_string_value(json_object_get(where, "switch")), (int)json_integer_value(json_object_get(where, "port")),
			(int64_t)json_integer_value(json_object_get(pp, "congestion_start_ns")), json_array_size(hops),
			(int)json_integer_value(json_object_get(pp, "depth")), json_array_size(hops) ? ":" : "");
	else
		fprintf(f, "pause propagation: no standing queue anywhere%s", json_array_size(hops) ? "; XOFF:" : "");
	json_array_foreach(hops, i, x) {
		if (i == 8) {
			fprintf(f, " ... %zu more", json_array_size(hops) - 8);
			break;
		}
		const json_t *after = json_object_get(x, "after_congestion_ns");
		fprintf(f, "%s %s:%d -> %s (hop %d, ", i ? "," : "", json_string_value(json_object_get(x, "switch")),
			(int)json_integer_value(json_object_get(x, "port")), json_string_value(json_object_get(x, "paused")),
			(int)json_integer_value(json_object_get(x, "hop")));
		if (json_is_integer(after))
			fprintf(f, "+%" PRId64 " ns)", (int64_t)json_integer_value(after));
		else
			fprintf(f, "at %" PRId64 " ns)", (int64_t)json_integer_value(json_object_get(x, "first_xoff_ns")));
	}
	fputc('\n', f);
}

#define SUMMARY_VICTIMS 20 /* a million-flow run can have a million: the rest are in result.json */

static void victims(FILE *f, const struct rp_report_stream *v, size_t kept)
{
	if (!v->n)
		fputs("victims: none (no flow to a receiver nobody oversubscribes was paused or late)\n", f);
	for (size_t i = 0; i < v->n; i++) {
		if (i == SUMMARY_VICTIMS) {
			if (kept)
				fprintf(f, "... %zu more victims; result.json keeps the first %zu (pause_propagation.victims: "
					"the stop left the rest out)\n", v->n - SUMMARY_VICTIMS, kept);
			else
				fprintf(f, "... %zu more victims in result.json (pause_propagation.victims)\n",
					v->n - SUMMARY_VICTIMS);
			break;
		}
		json_t *x = v->item(v->ctx, i);
		fprintf(f, "victim: flow %d %s -> %s prio %d, to a receiver nobody oversubscribes:%s%s sender paused %" PRId64
			   " ns, %" PRId64 " ns late\n",
			(int)json_integer_value(json_object_get(x, "flow")), json_string_value(json_object_get(x, "src")),
			json_string_value(json_object_get(x, "dst")), (int)json_integer_value(json_object_get(x, "prio")),
			json_is_true(json_object_get(x, "paused")) ? " paused," : "",
			json_is_true(json_object_get(x, "slowed")) ? " slowed," : "",
			(int64_t)json_integer_value(json_object_get(x, "sender_paused_ns")),
			(int64_t)json_integer_value(json_object_get(x, "late_ns")));
		json_decref(x);
	}
}

static void limited(FILE *f, const struct rp_report_stream *v)
{
	for (size_t i = 0; i < v->n; i++) {
		if (i == SUMMARY_VICTIMS) {
			fprintf(f, "... %zu more sender-limited flows in result.json (pause_propagation.sender_limited)\n",
				v->n - SUMMARY_VICTIMS);
			break;
		}
		json_t *x = v->item(v->ctx, i);
		fprintf(f, "sender-limited (not a PFC victim): flow %d %s -> %s prio %d, %" PRId64 " ns late: %s's NIC is "
			   "offered %.3f Gbit/s on %.3f Gbit/s, which makes it %" PRId64 " ns late\n",
			(int)json_integer_value(json_object_get(x, "flow")), json_string_value(json_object_get(x, "src")),
			json_string_value(json_object_get(x, "dst")), (int)json_integer_value(json_object_get(x, "prio")),
			(int64_t)json_integer_value(json_object_get(x, "late_ns")), json_string_value(json_object_get(x, "src")),
			json_real_value(json_object_get(x, "sender_offered_gbps")),
			json_real_value(json_object_get(x, "sender_speed_gbps")),
			(int64_t)json_integer_value(json_object_get(x, "sender_late_ns")));
		json_decref(x);
	}
}

void rp_summary_fabric(FILE *f, const struct rp_summary *s)
{
	const struct rp_summary_lab *l = s->lab;
	drops(f, s);
	uint64_t host_pfc = 0;
	for (size_t i = 0; i < rp_acct_nports(s->acct); i++) {
		struct rp_acct_port_result p;
		rp_acct_port(s->acct, i, &p);
		host_pfc += p.pfc_frames + p.pause_frames;
	}
	fprintf(f, "PFC: switches sent %" PRIu64 " frames (XOFF %" PRIu64 ", refresh %" PRIu64 ", XON %" PRIu64
		   "), hosts received %" PRIu64 "\n",
		l->pfc_tx, l->xoff_sent, l->refresh_sent, l->xon_sent, host_pfc);
	propagation(f, l->propagation);
	victims(f, &l->victims, l->victims_kept);
	limited(f, &l->limited);
}
