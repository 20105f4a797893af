/* What roceprobe needs to know about one HCA port, as a plain struct.
 *
 * The rest of lib/verbs decides addressing (GRH or not, LID or GID) from this
 * struct alone, never from a live device, so those decisions can be unit-tested
 * without hardware: a test fills an rp_port_attr by hand as an InfiniBand or a
 * RoCE port would report it. device.c fills it from ibv_query_port(). */
#ifndef RP_VERBS_PORT_H
#define RP_VERBS_PORT_H

#include <stdbool.h>
#include <stdint.h>

enum rp_link_layer {
	RP_LL_UNKNOWN = 0,
	RP_LL_INFINIBAND, /* addressed by LID; GRH only across subnets */
	RP_LL_ETHERNET,   /* RoCE: addressed by GID, every packet has a GRH */
};

struct rp_port_attr {
	char dev_name[64];
	uint8_t port_num;
	enum rp_link_layer link_layer;
	bool active;        /* IBV_PORT_ACTIVE */
	int state;          /* enum ibv_port_state, for messages */
	uint16_t lid;       /* IB only; 0 on RoCE */
	uint8_t sm_sl;      /* IB: the SL of the subnet manager, a sane default */
	int active_mtu;     /* enum ibv_mtu (1 = 256 ... 5 = 4096) */
	int max_mtu;
	uint32_t max_msg_sz;
	int gid_tbl_len;
};

const char *rp_link_layer_name(enum rp_link_layer ll);
/* MTU in bytes (256..4096) <-> enum ibv_mtu value (1..5); 0 when invalid. */
int rp_mtu_to_enum(unsigned bytes);
unsigned rp_mtu_from_enum(int mtu);

#endif
