/* UDP source port selection. The Linux policy reproduces what the kernel's
 * RoCE stack (rxe, mlx5 via ib_core) puts on the wire, so probe flows hash
 * onto the same ECMP paths as real QPs between the same QPNs. */
#include "sport.h"

#include <string.h>

#define RP_SPORT_MIN 0xC000u
#define RP_SPORT_SPAN_MASK 0x3FFFu

/* include/rdma/ib_verbs.h: rdma_calc_flow_label() */
uint32_t rp_flow_label(uint32_t lqpn, uint32_t rqpn)
{
	uint64_t v = (uint64_t)lqpn * rqpn;

	v ^= v >> 20;
	v ^= v >> 40;
	return (uint32_t)(v & 0xFFFFF);
}

/* include/rdma/ib_verbs.h: rdma_flow_label_to_udp_sport() */
uint16_t rp_flow_label_to_sport(uint32_t flow_label)
{
	uint32_t fl_low = flow_label & 0x3FFF;
	uint32_t fl_high = flow_label & 0xFC000;

	fl_low ^= fl_high >> 14;
	return (uint16_t)(fl_low | RP_SPORT_MIN);
}

/* The ephemeral range 0xC000..0xFFFF is 0x4000 long and 0xC000 is a multiple
 * of it, so wrapping inside the range is masking the low 14 bits. A base
 * outside the range lands at the same position inside it. */
static uint16_t rp_sport_per_qp(uint16_t base, uint32_t qp_index)
{
	return (uint16_t)(RP_SPORT_MIN | ((base + qp_index) & RP_SPORT_SPAN_MASK));
}

uint16_t rp_sport_select(enum rp_sport_policy policy, uint32_t lqpn, uint32_t rqpn, uint16_t base, uint32_t qp_index)
{
	switch (policy) {
	case RP_SPORT_FIXED:
		return base;
	case RP_SPORT_PER_QP:
		return rp_sport_per_qp(base, qp_index);
	case RP_SPORT_LINUX:
	default:
		return rp_flow_label_to_sport(rp_flow_label(lqpn, rqpn));
	}
}

int rp_sport_policy_parse(const char *s)
{
	if (s == NULL)
		return -1;
	if (strcmp(s, "linux") == 0)
		return RP_SPORT_LINUX;
	if (strcmp(s, "fixed") == 0)
		return RP_SPORT_FIXED;
	if (strcmp(s, "per-qp") == 0)
		return RP_SPORT_PER_QP;
	return -1;
}
