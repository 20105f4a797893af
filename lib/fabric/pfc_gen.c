/* The PFC frames the switch sends for its lossless ingress priority groups.
 *
 * XOFF: when a PG holds its XOFF threshold (or a frame had to spill into
 * headroom). The frame carries pfc_quanta; while the PG stays in XOFF it is
 * refreshed once pfc_refresh_pct of that pause has run, so the peer never
 * resumes while congestion lasts (the hysteresis band included: XOFF ends
 * only at XON). XON (quanta 0): when the PG drains to xon_delta below the
 * threshold with its headroom empty again, and only if an XOFF actually went
 * out. An XOFF decided because the shared pool was full (a spill) leaves the
 * PG far below its threshold: XON at the first frame out let the sender
 * resume into a full pool, the next spill's XOFF found the headroom still
 * holding the last burst, and the frames in flight were dropped in it
 * (certify-good at xoff 2 MiB: 699 drops on the lossless priority).
 * Decisions are state; frames are built only when the port's transmitter is
 * free, so one frame carries every PG due at that moment, the way a MAC
 * coalesces them, and the frame in flight ahead of it delays it, as the
 * headroom formula's MTU[switch] term assumes. */
#include "switch_internal.h"

bool rp_sw_pfc_check_xoff(struct rp_switch *sw, uint64_t now_ns, unsigned in, unsigned tc, bool spilled)
{
	struct rp_pg *pg = &sw->port[in].pg[tc];

	if (!rp_sw_lossless(sw, tc) || pg->xoff)
		return false;
	if (!spilled && pg->shared + pg->headroom < rp_sw_xoff_thresh(sw, tc))
		return false;
	pg->xoff = true;
	sw->port[in].pgmask |= (uint8_t)(1u << tc);
	pg->xoff_since = now_ns;
	if (pg->st.first_xoff_ns == RP_SWITCH_NEVER)
		pg->st.first_xoff_ns = now_ns;
	return true;
}

bool rp_sw_pfc_check_xon(struct rp_switch *sw, uint64_t now_ns, unsigned in, unsigned tc)
{
	struct rp_pg *pg = &sw->port[in].pg[tc];
	uint64_t thr, delta = sw->cfg.pg[tc].xon_delta;

	if (!pg->xoff)
		return false;
	thr = rp_sw_xoff_thresh(sw, tc);
	if (pg->headroom || pg->shared + pg->headroom > (thr > delta ? thr - delta : 0))
		return false;
	pg->xoff = false;
	if (!pg->wire_xoff)
		sw->port[in].pgmask &= (uint8_t)~(1u << tc);
	pg->st.xoff_ns += now_ns - pg->xoff_since;
	return pg->wire_xoff; /* an XON is due only if the peer was told XOFF */
}

static bool pg_due(const struct rp_pg *pg, uint64_t now_ns)
{
	return pg->xoff != pg->wire_xoff || (pg->xoff && now_ns >= pg->refresh_ns);
}

uint8_t rp_sw_pfc_due(const struct rp_switch *sw, unsigned port, uint64_t now_ns)
{
	uint8_t due = 0;
	for (unsigned m = sw->port[port].pgmask; m; m &= m - 1) { /* the others are due for nothing */
		unsigned t = (unsigned)__builtin_ctz(m);
		if (pg_due(&sw->port[port].pg[t], now_ns))
			due |= (uint8_t)(1u << t);
	}
	return due;
}

uint64_t rp_sw_pfc_next_due(const struct rp_switch *sw, unsigned port)
{
	uint64_t next = RP_SWITCH_NEVER;
	for (unsigned m = sw->port[port].pgmask; m; m &= m - 1) {
		unsigned t = (unsigned)__builtin_ctz(m);
		const struct rp_pg *pg = &sw->port[port].pg[t];
		uint64_t due = pg->xoff != pg->wire_xoff ? 0 : pg->xoff ? pg->refresh_ns : RP_SWITCH_NEVER;
		if (due < next)
			next = due;
	}
	return next;
}

/* The wire state a PG takes when a frame naming it leaves at now_ns. */
static void pg_sent(struct rp_switch *sw, unsigned port, unsigned t, uint64_t now_ns)
{
	struct rp_pg *pg = &sw->port[port].pg[t];
	uint64_t pause_ns = rp_pause_quanta_ns(sw->cfg.pfc_quanta, sw->cfg.port[port].rate_bps);

	if (pg->xoff) {
		pg->st.xoff_sent++;
		if (pg->wire_xoff)
			pg->st.refresh_sent++;
		pg->refresh_ns = now_ns + pause_ns * sw->cfg.pfc_refresh_pct / 100;
	} else {
		pg->st.xon_sent++;
	}
	pg->wire_xoff = pg->xoff;
	if (!pg->xoff)
		sw->port[port].pgmask &= (uint8_t)~(1u << t);
}

size_t rp_sw_pfc_build(struct rp_switch *sw, unsigned port, uint64_t now_ns, uint8_t *buf, size_t cap,
		       uint8_t *xoff, uint8_t *xon)
{
	uint16_t quanta[RP_PFC_PRIOS] = {0};
	uint8_t enable = 0;

	*xoff = *xon = 0;
	if (!rp_sw_pfc_due(sw, port, now_ns))
		return 0;
	/* Every PG in XOFF rides along: one frame refreshes them all. */
	for (unsigned t = 0; t < RP_SWITCH_TCS; t++) {
		const struct rp_pg *pg = &sw->port[port].pg[t];
		if (pg->xoff) {
			*xoff |= (uint8_t)(1u << t);
			quanta[t] = sw->cfg.pfc_quanta;
		} else if (pg->wire_xoff) {
			*xon |= (uint8_t)(1u << t);
		}
	}
	enable = *xoff | *xon;
	size_t n = rp_pfc_frame_build(buf, cap, sw->cfg.port[port].mac, enable, quanta);
	if (!n)
		return 0;
	for (unsigned t = 0; t < RP_SWITCH_TCS; t++)
		if ((enable >> t) & 1u)
			pg_sent(sw, port, t, now_ns);
	sw->port[port].st.pfc_tx++;
	return n;
}
