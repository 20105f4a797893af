/* `roceprobe switch` on DPDK: set-up, the poll loop, the facts, teardown
 * (switch_run.h). */
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include "pcap/names.h"
#include "switch_run.h"
#include "stats/progress.h"

#define NS 1000000000ull
#define DRAIN_NS 50000000ull
/* lib/dp's own messages as the command always printed them: at most RP_DP_ERRLEN. */
#define RP_DP_ERR_MAX(len) ((len) < RP_DP_ERRLEN ? (len) : RP_DP_ERRLEN)

static int open_captures(struct rp_dp_switch_run *r, const struct rp_dp_switch_spec *o, char *err, size_t errlen)
{
	for (unsigned p = 0; o->capture && p < o->nports; p++) {
		char tag[16];
		snprintf(tag, sizeof(tag), "-p%u", p); /* out.pcap -> out-p0.pcap: capture's own naming */
		rp_pcap_name_tag(o->capture, tag, r->cap_path[p], sizeof(r->cap_path[p]));
		r->cap_cfg[p] = (struct rp_capture_cfg){.path = r->cap_path[p]};
		r->rt.port[p].cap = rp_capture_open(&r->cap_cfg[p], err, RP_DP_ERR_MAX(errlen));
		if (!r->rt.port[p].cap)
			return -1;
	}
	return 0;
}

/* The largest frame (without FCS) every port takes: the PMDs' max_rx_pktlen
 * counts the FCS. 0 when no port says. */
static uint32_t ports_max_frame(const struct rp_dp_switch_spec *o)
{
	uint32_t m = 0;
	for (unsigned p = 0; p < o->nports; p++) {
		/* What the port really carries (af_packet: its ring's framesz and the
		 * interface's MTU, not the 1518 its PMD reports), as `run` checks it. */
		uint32_t f = (uint32_t)rp_dp_port_frame_limit(o->ports[p], NULL, 0, NULL, 0);
		if (f)
			m = m == 0 || f < m ? f : m;
	}
	return m;
}

/* The highest CPU in the process's affinity, read before the EAL pins it. */
static int highest_cpu(void)
{
	cpu_set_t set;
	int best = -1;
	if (sched_getaffinity(0, sizeof(set), &set) != 0)
		return -1;
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set))
			best = c;
	return best;
}

int rp_dp_switch_start(struct rp_dp_switch_run *r, struct rp_dp_switch_spec *o, char *err, size_t errlen)
{
	if (o->cpu < 0)
		o->cpu = highest_cpu();
	struct rp_dp_port *ports[RP_DP_SWITCH_PORTS];
	struct rp_dp_eal_opts eo = {.devargs = o->ports, .n_devargs = o->nports, .user_eal = o->eal,
				    .no_telemetry = o->no_telemetry, .lcores = 1,
				    .who = "switch"};
	if (rp_dp_eal_init(&eo, err, RP_DP_ERR_MAX(errlen)) != 0)
		return -1;
	r->eal_up = true;
	if (rp_dp_pin_poller(o->cpu) != 0) {
		snprintf(err, errlen, "--cpu %d: cannot run there (not one of this process's CPUs?)", o->cpu);
		return -1;
	}
	if (rp_switch_flags_max_frame(o->fab, o->flags, ports_max_frame(o), err, errlen) != 0 ||
	    rp_switch_flags_cfg(o->fab, o->nports, o->speed_bps, o->trust_pcp, &r->cfg, err, errlen) != 0)
		return -1;
	for (unsigned p = 0; p < o->nports; p++) {
		if (rp_dp_port_open(o->ports[p], 1, 1, o->fab->max_frame, NULL, &r->ports[p], err, RP_DP_ERR_MAX(errlen)) != 0)
			return -1;
		ports[p] = &r->ports[p];
	}
	r->sw = rp_switch_create(&r->cfg);
	if (!r->sw) {
		snprintf(err, errlen, "cannot allocate the switch's buffer (%" PRIu64 " bytes)", o->fab->buffer_bytes);
		return -1;
	}
	for (unsigned i = 0; i < o->nfdb; i++)
		if (rp_switch_fdb_add(r->sw, o->fdb[i].mac, o->fdb[i].port) != 0) {
			snprintf(err, errlen, "--fdb: the MAC table is full");
			return -1;
		}
	rp_dp_switch_init(&r->rt, r->sw, ports, o->nports, o->learn, o->flood_unknown);
	rp_dp_clock_start();
	return open_captures(r, o, err, errlen);
}

static void progress_port(struct rp_dp_switch_run *r, unsigned p, double dt)
{
	struct rp_switch_port_stats s;
	struct rp_dp_sw_port *sp = &r->rt.port[p];
	rp_switch_port_stats(r->sw, p, &s);
	rp_switch_rt_progress_port(stderr, p, dt, &sp->c, &r->last_c[p], &s, &r->last[p], sp->qmax_window);
	r->last[p] = s;
	r->last_c[p] = sp->c;
	sp->qmax_window = 0;
}

static void progress(struct rp_dp_switch_run *r, uint64_t now, uint64_t duration_ns)
{
	double dt = (double)(now - r->last_ns) / 1e9;
	if (dt <= 0)
		return;
	char left[96]; /* with --duration: " of 10.0s (30%), 7.0 s left" */
	rp_progress_left((double)now / 1e9, (double)duration_ns / 1e9, left, sizeof(left));
	fprintf(stderr, "switch %6.1fs%s", (double)now / 1e9, left);
	for (unsigned p = 0; p < r->rt.nports; p++)
		progress_port(r, p, dt);
	fputc('\n', stderr);
	r->last_ns = now;
}

void rp_dp_switch_loop(struct rp_dp_switch_run *r, uint64_t duration_ns, volatile sig_atomic_t *stop)
{
	uint64_t next_progress = NS, next_tick = r->tick_ns;
	for (;;) {
		uint64_t now = rp_dp_now_ns();
		if (*stop || (duration_ns && now >= duration_ns))
			break;
		rp_dp_switch_poll(&r->rt, now);
		if (now >= next_progress) {
			progress(r, now, duration_ns);
			next_progress += NS;
		}
		if (r->tick && r->tick_ns && now >= next_tick) {
			r->tick(r, r->rt.mt > now ? r->rt.mt : now, r->tick_ctx);
			while (next_tick <= now)
				next_tick += r->tick_ns;
		}
	}
	rp_dp_switch_flush(&r->rt, DRAIN_NS);
	r->end_ns = r->rt.mt > rp_dp_now_ns() ? r->rt.mt : rp_dp_now_ns();
}

static void read_pmd_stats(struct rp_dp_switch_run *r)
{
	for (unsigned p = 0; p < r->rt.nports; p++) {
		struct rp_dp_port_drops d;
		rp_dp_port_read_drops(&r->ports[p], &d);
		r->pmd_imissed[p] = d.missed;
		r->pmd_oerrors[p] = d.oerrors;
	}
}

static void close_captures(struct rp_dp_switch_run *r)
{
	char err[RP_DP_ERRLEN];
	for (unsigned p = 0; p < RP_DP_SWITCH_PORTS; p++)
		if (r->rt.port[p].cap) {
			if (rp_capture_close(r->rt.port[p].cap, &r->cap_stats[p], err, sizeof(err)) != 0)
				fprintf(stderr, "roceprobe switch: %s\n", err);
			r->rt.port[p].cap = NULL;
		}
}

void rp_dp_switch_stop(struct rp_dp_switch_run *r)
{
	read_pmd_stats(r);
	close_captures(r);
}

void rp_dp_switch_facts(struct rp_dp_switch_run *r, bool interrupted, struct rp_switch_rt_facts *f)
{
	for (unsigned p = 0; p < r->rt.nports; p++)
		r->facts_port[p] = (struct rp_switch_rt_port){
			.devargs = r->ports[p].name, .driver = r->ports[p].driver, .edge = &r->rt.port[p].c,
			.pmd_missed = r->pmd_imissed[p], .pmd_oerrors = r->pmd_oerrors[p], .capture = r->cap_path[p],
			.cap_written = r->cap_stats[p].written, .cap_dropped = r->cap_stats[p].dropped};
	*f = (struct rp_switch_rt_facts){.sw = r->sw, .cfg = &r->cfg, .nports = r->rt.nports, .port = r->facts_port,
					 .end_ns = r->end_ns, .interrupted = interrupted};
}

void rp_dp_switch_teardown(struct rp_dp_switch_run *r)
{
	close_captures(r);
	for (unsigned p = 0; p < RP_DP_SWITCH_PORTS; p++)
		rp_dp_port_close(&r->ports[p]);
	rp_switch_destroy(r->sw);
	r->sw = NULL;
	if (r->eal_up)
		rp_dp_eal_cleanup();
}
