/* ECN marking at dequeue. Dequeue, not enqueue: the mark then reflects the
 * queue as the packet leaves, so congestion news is not delayed by the time
 * the packet itself sat in the queue (what DCQCN-era switches do), and the
 * frame is rewritten while it is copied out anyway. The depth compared is
 * what the packet leaves behind it. */
#include "red.h"
#include "switch_internal.h"
#include "wire/ipv4.h"

bool rp_sw_red_decide(struct rp_switch *sw, unsigned tc, uint64_t depth_after)
{
	const struct rp_switch_queue_cfg *q = &sw->cfg.queue[tc];
	double p;

	if (!q->red)
		return false;
	p = rp_red_prob(depth_after, q->kmin, q->kmax, q->pmax);
	if (p <= 0.0)
		return false;
	return p >= 1.0 || rp_rand_unit(&sw->rng) < p;
}

/* CE into the IPv4 TOS (and a fresh header checksum) or the IPv6 traffic
 * class. The RoCEv2 ICRC masks both, so it stays valid untouched. */
void rp_sw_ecn_set_ce(uint8_t *frame, const struct rp_pkt *p)
{
	uint8_t *ip = frame + p->l3_off;

	if (p->l3 == 4) {
		size_t hlen = (size_t)(ip[0] & 0xF) * 4;
		uint16_t sum;
		ip[1] |= RP_ECN_CE;
		ip[10] = ip[11] = 0;
		sum = rp_ipv4_checksum(ip, hlen);
		ip[10] = (uint8_t)(sum >> 8);
		ip[11] = (uint8_t)sum;
	} else if (p->l3 == 6) {
		ip[1] |= (uint8_t)(RP_ECN_CE << 4); /* TC straddles bytes 0-1; ECN is TC's low 2 bits */
	}
}
