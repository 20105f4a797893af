/* UDP source port selection for RoCEv2 flows (ECMP entropy). */
#ifndef RP_WIRE_SPORT_H
#define RP_WIRE_SPORT_H

#include <stdint.h>

enum rp_sport_policy {
	RP_SPORT_LINUX,  /* rdma_calc_flow_label(lqpn, rqpn) folded into 0xC000..0xFFFF */
	RP_SPORT_FIXED,  /* one configured port for every QP */
	RP_SPORT_PER_QP, /* configured base + QP index, wrapping inside 0xC000..0xFFFF */
};

/* Linux's rdma_calc_flow_label: 20-bit flow label from the two QPNs. */
uint32_t rp_flow_label(uint32_t lqpn, uint32_t rqpn);
/* Linux's rdma_flow_label_to_udp_sport. */
uint16_t rp_flow_label_to_sport(uint32_t flow_label);
uint16_t rp_sport_select(enum rp_sport_policy policy, uint32_t lqpn, uint32_t rqpn, uint16_t base, uint32_t qp_index);
/* "linux", "fixed", "per-qp"; -1 when unknown. */
int rp_sport_policy_parse(const char *s);

#endif
