#include "headroom.h"

#include <math.h>

/* Bytes sent in ns at speed, rounded up: a partial byte still needs room. */
static uint64_t bytes_in(double ns, uint64_t speed_bps)
{
	return (uint64_t)ceil(ns * (double)speed_bps / 8e9 - 1e-9);
}

static int bad_length(double v)
{
	return isnan(v) || v < 0.0 || isinf(v);
}

int rp_headroom_calc(const struct rp_headroom_in *in, struct rp_headroom *out)
{
	double ns_per_m = in->ns_per_m > 0.0 ? in->ns_per_m : RP_HEADROOM_NS_PER_M;
	uint32_t peer = in->peer_mtu ? in->peer_mtu : in->mtu;

	if (in->speed_bps == 0 || in->mtu == 0 || bad_length(in->cable_m) || bad_length(in->phy_delay_ns) ||
	    isnan(in->ns_per_m))
		return -1;
	out->cable_ns = 2.0 * in->cable_m * ns_per_m;
	out->phy_ns = 2.0 * in->phy_delay_ns;
	out->response_ns = (double)in->response_quanta * RP_HEADROOM_QUANTUM_BITS * 1e9 / (double)in->speed_bps;
	out->cable_bytes = bytes_in(out->cable_ns, in->speed_bps);
	out->phy_bytes = bytes_in(out->phy_ns, in->speed_bps);
	out->mtu_bytes = (uint64_t)in->mtu + RP_HEADROOM_L1_EXTRA;
	out->pfc_bytes = RP_HEADROOM_PFC_FRAME + RP_HEADROOM_L1_EXTRA;
	/* A quantum is 512 bit times whatever the speed: 64 bytes exactly. */
	out->response_bytes = (uint64_t)in->response_quanta * (RP_HEADROOM_QUANTUM_BITS / 8);
	out->peer_mtu_bytes = (uint64_t)peer + RP_HEADROOM_L1_EXTRA;
	out->rx_frame_bytes = in->cut_through ? 0 : out->peer_mtu_bytes;
	out->total_bytes = out->cable_bytes + out->phy_bytes + out->mtu_bytes + out->pfc_bytes + out->response_bytes +
			   out->peer_mtu_bytes + out->rx_frame_bytes;
	return 0;
}

struct bound {
	uint64_t speed_bps;
	uint32_t response_quanta;
	uint32_t intf_bit_times; /* 0: none in the table */
};

static const struct bound bounds[] = {
	{100000000ull, 1, 0},
	{1000000000ull, 2, 0},
	{10000000000ull, 60, 8192},
	{25000000000ull, 80, 6144},
	{40000000000ull, 118, 24576},
	{50000000000ull, 147, 0},
	{100000000000ull, 394, 122880},
	{200000000000ull, 453, 0},
	{400000000000ull, 905, 0},
};
#define INTF_100G 122880u
#define NBOUNDS (sizeof(bounds) / sizeof(bounds[0]))

/* The first entry at or above the speed; the last one past the table. */
static const struct bound *bound_for(uint64_t speed_bps)
{
	for (unsigned i = 0; i < NBOUNDS; i++)
		if (speed_bps <= bounds[i].speed_bps)
			return &bounds[i];
	return &bounds[NBOUNDS - 1];
}

uint32_t rp_headroom_default_response_quanta(uint64_t speed_bps)
{
	return bound_for(speed_bps)->response_quanta;
}

/* The first interface bound at or above the speed's entry; 100G's past it. */
static uint32_t intf_bit_times(uint64_t speed_bps)
{
	for (const struct bound *b = bound_for(speed_bps); b < bounds + NBOUNDS; b++)
		if (b->intf_bit_times)
			return b->intf_bit_times;
	return INTF_100G;
}

double rp_headroom_default_phy_delay_ns(uint64_t speed_bps)
{
	return speed_bps ? (double)intf_bit_times(speed_bps) * 1e9 / (double)speed_bps : 0.0;
}
