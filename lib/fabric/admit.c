/* Shared-buffer admission and accounting.
 *
 * Lossless priorities are admitted on ingress, per (ingress port, PG): bytes
 * go to the shared pool while the PG holds less than its XOFF threshold,
 * then into the PG's own headroom (reserved, so in-flight data always has a
 * place), and only past the headroom are they dropped. No egress limit
 * applies to them: lossless means the only back-pressure is PFC.
 * Lossy priorities are admitted on egress: the queue's limit (tail drop) and
 * the shared pool. A dynamic threshold is alpha x the shared pool still free. */
#include "switch_internal.h"

static uint64_t thresh(const struct rp_switch *sw, const struct rp_thresh *t)
{
	if (!t->dynamic)
		return t->bytes;
	return (uint64_t)(t->alpha * (double)(sw->shared_size - sw->shared_used));
}

uint64_t rp_sw_xoff_thresh(const struct rp_switch *sw, unsigned tc)
{
	return thresh(sw, &sw->cfg.pg[tc].xoff);
}

static bool shared_fits(const struct rp_switch *sw, uint64_t len)
{
	return sw->shared_used + len <= sw->shared_size;
}

static enum rp_admit admit_lossless(const struct rp_switch *sw, unsigned in, unsigned tc, uint64_t len,
				    enum rp_switch_drop *why)
{
	const struct rp_pg *pg = &sw->port[in].pg[tc];
	if (pg->shared + len <= rp_sw_xoff_thresh(sw, tc) && shared_fits(sw, len))
		return RP_ADMIT_SHARED;
	if (pg->headroom + len <= sw->cfg.port[in].headroom[tc])
		return RP_ADMIT_HEADROOM;
	*why = RP_DROP_HEADROOM;
	return RP_ADMIT_DROP;
}

static enum rp_admit admit_lossy(const struct rp_switch *sw, unsigned out, unsigned tc, uint64_t len,
				 enum rp_switch_drop *why)
{
	if (sw->port[out].q[tc].bytes + len > thresh(sw, &sw->cfg.queue[tc].limit)) {
		*why = RP_DROP_TAIL;
		return RP_ADMIT_DROP;
	}
	if (!shared_fits(sw, len)) {
		*why = RP_DROP_BUFFER;
		return RP_ADMIT_DROP;
	}
	return RP_ADMIT_SHARED;
}

enum rp_admit rp_sw_admit(const struct rp_switch *sw, unsigned in, unsigned out, unsigned tc, uint64_t len,
			  enum rp_switch_drop *why)
{
	*why = RP_DROP_NONE;
	if (rp_sw_lossless(sw, tc))
		return admit_lossless(sw, in, tc, len, why);
	return admit_lossy(sw, out, tc, len, why);
}

static void pg_peaks(struct rp_pg *pg)
{
	uint64_t total = pg->shared + pg->headroom;
	if (total > pg->st.max_bytes)
		pg->st.max_bytes = total;
	if (pg->headroom > pg->st.max_headroom_bytes)
		pg->st.max_headroom_bytes = pg->headroom;
}

void rp_sw_charge(struct rp_switch *sw, unsigned in, unsigned tc, uint64_t len, enum rp_admit where)
{
	struct rp_pg *pg = &sw->port[in].pg[tc];
	if (where == RP_ADMIT_HEADROOM) {
		pg->headroom += len;
		sw->headroom_used += len;
		if (sw->headroom_used > sw->max_headroom_used)
			sw->max_headroom_used = sw->headroom_used;
	} else {
		pg->shared += len;
		sw->shared_used += len;
		if (sw->shared_used > sw->max_shared_used)
			sw->max_shared_used = sw->shared_used;
	}
	pg_peaks(pg);
}

/* Headroom is given back first: it must be empty again before the next
 * XOFF, or the next burst in flight finds less room than the formula gave. */
void rp_sw_release(struct rp_switch *sw, unsigned in, unsigned tc, uint64_t len)
{
	struct rp_pg *pg = &sw->port[in].pg[tc];
	uint64_t h = pg->headroom < len ? pg->headroom : len;
	pg->headroom -= h;
	sw->headroom_used -= h;
	pg->shared -= len - h;
	sw->shared_used -= len - h;
}
