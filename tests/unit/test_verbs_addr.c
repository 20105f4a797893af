/* Addressing a peer from a plain port description: RoCE (GRH, source GID
 * index, traffic class = DSCP << 2 | ECN) and InfiniBand (LID, SL, no GRH).
 * InfiniBand cannot run in this lab; this is where its path is checked. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "verbs/addr.h"

static struct rp_port_attr ib_port(void)
{
	struct rp_port_attr p = {.port_num = 1, .link_layer = RP_LL_INFINIBAND, .active = true, .lid = 7,
				 .active_mtu = IBV_MTU_4096};
	strcpy(p.dev_name, "mlx5_0");
	return p;
}

static struct rp_port_attr roce_port(void)
{
	struct rp_port_attr p = {.port_num = 1, .link_layer = RP_LL_ETHERNET, .active = true, .lid = 0,
				 .active_mtu = IBV_MTU_1024};
	strcpy(p.dev_name, "rxe0");
	return p;
}

static const uint8_t peer_gid[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 9, 0, 2};

static void ib_uses_lid_and_sl_without_grh(void **state)
{
	(void)state;
	struct rp_port_attr p = ib_port();
	struct rp_addr_opts o = {.sgid_index = -1, .sl = 5, .dscp = 46, .ecn = 2};
	struct rp_peer_addr peer = {.lid = 0x12};
	memcpy(peer.gid, peer_gid, 16);
	struct ibv_ah_attr ah;
	char err[128];
	assert_int_equal(rp_addr_build(&p, &o, &peer, &ah, err, sizeof(err)), 0);
	assert_int_equal(ah.is_global, 0);
	assert_int_equal(ah.dlid, 0x12);
	assert_int_equal(ah.sl, 5);
	assert_int_equal(ah.port_num, 1);
	assert_int_equal(ah.src_path_bits, 0);
	/* no GRH: DSCP/ECN do not leak into a global route header */
	assert_int_equal(ah.grh.traffic_class, 0);
	assert_int_equal(ah.grh.sgid_index, 0);
	assert_int_equal(ah.grh.hop_limit, 0);
}

static void ib_peer_without_lid_is_an_error(void **state)
{
	(void)state;
	struct rp_port_attr p = ib_port();
	struct rp_addr_opts o = {.sgid_index = -1};
	struct rp_peer_addr peer = {.lid = 0};
	struct ibv_ah_attr ah;
	char err[128] = "";
	assert_int_equal(rp_addr_build(&p, &o, &peer, &ah, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "subnet manager"));
}

static void ib_sl_out_of_range(void **state)
{
	(void)state;
	struct rp_port_attr p = ib_port();
	struct rp_addr_opts o = {.sgid_index = -1, .sl = 16};
	struct rp_peer_addr peer = {.lid = 3};
	struct ibv_ah_attr ah;
	char err[128];
	assert_int_equal(rp_addr_build(&p, &o, &peer, &ah, err, sizeof(err)), -1);
}

static void roce_uses_grh_with_gid_index_and_traffic_class(void **state)
{
	(void)state;
	struct rp_port_attr p = roce_port();
	struct rp_addr_opts o = {.sgid_index = 3, .dscp = 26, .ecn = 1, .sl = 3};
	struct rp_peer_addr peer = {.lid = 0};
	memcpy(peer.gid, peer_gid, 16);
	struct ibv_ah_attr ah;
	char err[128];
	assert_int_equal(rp_addr_build(&p, &o, &peer, &ah, err, sizeof(err)), 0);
	assert_int_equal(ah.is_global, 1);
	assert_int_equal(ah.dlid, 0);
	assert_int_equal(ah.grh.sgid_index, 3);
	assert_int_equal(ah.grh.traffic_class, 26 << 2 | 1); /* 0x69 */
	assert_int_equal(ah.grh.traffic_class, 0x69);
	assert_int_equal(ah.grh.hop_limit, 64); /* default */
	assert_memory_equal(ah.grh.dgid.raw, peer_gid, 16);
	assert_int_equal(ah.port_num, 1);
}

static void roce_traffic_class_extremes_and_hop_limit(void **state)
{
	(void)state;
	struct rp_port_attr p = roce_port();
	struct rp_peer_addr peer;
	memcpy(peer.gid, peer_gid, 16);
	struct ibv_ah_attr ah;
	char err[128];
	struct rp_addr_opts o = {.sgid_index = 1, .dscp = 63, .ecn = 3, .hop_limit = 2};
	assert_int_equal(rp_addr_build(&p, &o, &peer, &ah, err, sizeof(err)), 0);
	assert_int_equal(ah.grh.traffic_class, 0xff);
	assert_int_equal(ah.grh.hop_limit, 2);
	o.dscp = 0;
	o.ecn = 0;
	assert_int_equal(rp_addr_build(&p, &o, &peer, &ah, err, sizeof(err)), 0);
	assert_int_equal(ah.grh.traffic_class, 0);
	assert_int_equal(rp_addr_traffic_class(48, 2), 0xc2);
}

static void roce_rejects_bad_dscp_ecn_and_zero_gid(void **state)
{
	(void)state;
	struct rp_port_attr p = roce_port();
	struct rp_peer_addr peer;
	memcpy(peer.gid, peer_gid, 16);
	struct ibv_ah_attr ah;
	char err[128];
	struct rp_addr_opts o = {.sgid_index = 1, .dscp = 64};
	assert_int_equal(rp_addr_build(&p, &o, &peer, &ah, err, sizeof(err)), -1);
	o.dscp = 0;
	o.ecn = 4;
	assert_int_equal(rp_addr_build(&p, &o, &peer, &ah, err, sizeof(err)), -1);
	o.ecn = 0;
	o.sgid_index = -1;
	assert_int_equal(rp_addr_build(&p, &o, &peer, &ah, err, sizeof(err)), -1);
	o.sgid_index = 1;
	memset(peer.gid, 0, 16);
	assert_int_equal(rp_addr_build(&p, &o, &peer, &ah, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "zero GID"));
}

static void unknown_link_layer_is_an_error(void **state)
{
	(void)state;
	struct rp_port_attr p = roce_port();
	p.link_layer = RP_LL_UNKNOWN;
	struct rp_addr_opts o = {.sgid_index = 1};
	struct rp_peer_addr peer = {.lid = 1};
	struct ibv_ah_attr ah;
	char err[128];
	assert_int_equal(rp_addr_build(&p, &o, &peer, &ah, err, sizeof(err)), -1);
}

static void mtu_conversions(void **state)
{
	(void)state;
	assert_int_equal(rp_mtu_to_enum(1024), IBV_MTU_1024);
	assert_int_equal(rp_mtu_to_enum(4096), IBV_MTU_4096);
	assert_int_equal(rp_mtu_to_enum(1500), 0);
	assert_int_equal(rp_mtu_from_enum(IBV_MTU_256), 256);
	assert_int_equal(rp_mtu_from_enum(IBV_MTU_4096), 4096);
	assert_int_equal(rp_mtu_from_enum(0), 0);
	assert_string_equal(rp_link_layer_name(RP_LL_INFINIBAND), "InfiniBand");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ib_uses_lid_and_sl_without_grh),
		cmocka_unit_test(ib_peer_without_lid_is_an_error),
		cmocka_unit_test(ib_sl_out_of_range),
		cmocka_unit_test(roce_uses_grh_with_gid_index_and_traffic_class),
		cmocka_unit_test(roce_traffic_class_extremes_and_hop_limit),
		cmocka_unit_test(roce_rejects_bad_dscp_ecn_and_zero_gid),
		cmocka_unit_test(unknown_link_layer_is_an_error),
		cmocka_unit_test(mtu_conversions),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
