/* The one counter-name table: raw names of mlx5, bnxt, ice/irdma and rxe
 * (and the IBTA port counters every IB device has, the netdev statistics
 * every interface has) -> the roceprobe vocabulary and `ep`'s flat names.
 * A raw name appears once per source; each driver's block names the kernel
 * file that defines its strings (only names are taken from there).
 *
 * Per priority, the keys are result.json's ports[].prio[] ones where they
 * mean the same:
 *   pfc_rx / pfc_tx    every PFC frame naming the priority (its class-enable
 *                      bit set), XON (quanta 0) and XOFF alike:
 *                      mlx5 rx/tx_prioN_pause counts every pause frame of the
 *                      priority, bnxt rx/tx_pfc_ena_frames_priN every PFC frame
 *                      with the priority enabled, both XON and XOFF; ice counts
 *                      the two apart (rx/tx_priority_N_xon.nic and _xoff.nic),
 *                      so its pfc_rx is their sum. `ep`'s pause_rx_prioN took
 *                      ice's XOFF alone and still does (docs/verbs.md).
 *   pause_us_rx / _tx  time paused, microseconds, where the driver counts it
 *                      (mlx5 _pause_duration, bnxt pfc_priN_rx/tx_duration_us)
 *   xoff_to_xon        pause intervals that ended (mlx5 rx_prioN_pause_transition:
 *                      XOFF -> XON transitions; bnxt pfc_priN_rx_transitions)
 *   rx/tx_bytes, rx/tx_packets, rx_discards, ecn_marked
 * A key without a priority is the port's. */
#include "counters/ctr_names.h"

#include "counters/sonic_db.h"

#include <stdio.h>
#include <string.h>

struct map {
	uint8_t src;
	const char *raw;    /* may hold one "%u": a priority 0..7 */
	const char *legacy; /* `ep`'s name (holds "%u" when raw does), or NULL */
	const char *key;    /* the vocabulary key; NULL: the same as legacy */
	unsigned flags;     /* RP_CTR_SUM, RP_CTR_GAUGE */
	uint64_t scale;
};

static const struct map maps[] = {
	/* IBTA PortCounters (ports/P/counters/), drivers/infiniband/core/sysfs.c */
	{RP_CTR_PORT, "port_xmit_packets", "tx_packets", NULL, 0, 1},
	{RP_CTR_PORT, "port_rcv_packets", "rx_packets", NULL, 0, 1},
	{RP_CTR_PORT, "port_xmit_data", "tx_bytes", NULL, 0, 4}, /* counted in 4-byte words */
	{RP_CTR_PORT, "port_rcv_data", "rx_bytes", NULL, 0, 4},
	{RP_CTR_PORT, "port_rcv_errors", "rx_errors", NULL, 0, 1},
	{RP_CTR_PORT, "port_xmit_discards", "tx_discards", NULL, 0, 1},
	{RP_CTR_PORT, "port_xmit_wait", "tx_wait_ticks", NULL, 0, 1}, /* IB credit stalls */
	{RP_CTR_PORT, "symbol_error", "symbol_errors", NULL, 0, 1},
	{RP_CTR_PORT, "link_downed", "link_downed", NULL, 0, 1},
	{RP_CTR_PORT, "port_rcv_remote_physical_errors", "rx_remote_physical_errors", NULL, 0, 1},
	/* the core's own file in every hw_counters/: how long (ms) values are cached */
	{RP_CTR_HW, "lifespan", NULL, "lifespan", RP_CTR_GAUGE, 1},

	/* rxe (Soft-RoCE), drivers/infiniband/sw/rxe/rxe_hw_counters.c */
	{RP_CTR_HW, "sent_pkts", "tx_packets", NULL, 0, 1},
	{RP_CTR_HW, "rcvd_pkts", "rx_packets", NULL, 0, 1},
	{RP_CTR_HW, "out_of_seq_request", "out_of_sequence", NULL, 0, 1}, /* responder saw a PSN gap */
	{RP_CTR_HW, "rcvd_seq_err", "seq_err_naks_received", NULL, 0, 1}, /* requester got NAK-sequence */
	{RP_CTR_HW, "completer_retry_err", "retransmissions", NULL, 0, 1}, /* requester went back (timeout or NAK) */
	{RP_CTR_HW, "retry_exceeded_err", "retry_exceeded", NULL, 0, 1},
	{RP_CTR_HW, "rcvd_rnr_err", "rnr_naks_received", NULL, 0, 1},
	{RP_CTR_HW, "send_rnr_err", "rnr_naks_sent", NULL, 0, 1},
	{RP_CTR_HW, "retry_rnr_exceeded_err", "rnr_retry_exceeded", NULL, 0, 1},
	{RP_CTR_HW, "ack_deferred", "ack_deferred", NULL, 0, 1},
	{RP_CTR_HW, "send_err", "send_errors", NULL, 0, 1},
	{RP_CTR_HW, "rdma_sends", "rdma_sends", NULL, 0, 1},
	{RP_CTR_HW, "rdma_recvs", "rdma_recvs", NULL, 0, 1},

	/* shared by rxe and mlx5 */
	{RP_CTR_HW, "duplicate_request", "duplicate_requests", NULL, 0, 1},
	{RP_CTR_HW, "link_downed", "link_downed", NULL, 0, 1},

	/* mlx5 (mlx5_ib), drivers/infiniband/hw/mlx5/counters.c */
	{RP_CTR_HW, "np_cnp_sent", "cnp_sent", NULL, 0, 1},
	{RP_CTR_HW, "rp_cnp_handled", "cnp_handled", NULL, 0, 1},
	{RP_CTR_HW, "rp_cnp_ignored", "cnp_ignored", NULL, 0, 1},
	{RP_CTR_HW, "np_ecn_marked_roce_packets", "ecn_ce_received", NULL, 0, 1},
	{RP_CTR_HW, "out_of_sequence", "out_of_sequence", NULL, 0, 1},
	{RP_CTR_HW, "packet_seq_err", "seq_err_naks_received", NULL, 0, 1},
	{RP_CTR_HW, "implied_nak_seq_err", "implied_nak_seq_errors", NULL, 0, 1},
	{RP_CTR_HW, "local_ack_timeout_err", "ack_timeouts", NULL, 0, 1},
	{RP_CTR_HW, "rnr_nak_retry_err", "rnr_retry_exceeded", NULL, 0, 1},
	{RP_CTR_HW, "out_of_buffer", "rx_out_of_buffer", NULL, 0, 1}, /* the RQ had no WQE */
	{RP_CTR_HW, "req_cqe_error", "req_cqe_errors", NULL, 0, 1},
	{RP_CTR_HW, "resp_cqe_error", "resp_cqe_errors", NULL, 0, 1},
	{RP_CTR_HW, "roce_adp_retrans", "adaptive_retransmissions", NULL, 0, 1},
	{RP_CTR_HW, "rx_icrc_encapsulated", "rx_icrc_errors", NULL, 0, 1},

	/* bnxt_re, drivers/infiniband/hw/bnxt_re/hw_counters.c */
	{RP_CTR_HW, "cnp_tx_pkts", "cnp_sent", NULL, 0, 1},
	{RP_CTR_HW, "cnp_rx_pkts", "cnp_handled", NULL, 0, 1},
	{RP_CTR_HW, "rx_ecn_marked_pkts", "ecn_ce_received", NULL, 0, 1},
	{RP_CTR_HW, "seq_err_naks_rcvd", "seq_err_naks_received", NULL, 0, 1},
	{RP_CTR_HW, "to_retransmits", "ack_timeouts", NULL, 0, 1},
	{RP_CTR_HW, "max_retry_exceeded", "retry_exceeded", NULL, 0, 1},
	{RP_CTR_HW, "rnr_naks_rcvd", "rnr_naks_received", NULL, 0, 1},
	{RP_CTR_HW, "dup_reqs", "duplicate_requests", NULL, 0, 1},
	{RP_CTR_HW, "missing_resp", "missing_responses", NULL, 0, 1},
	{RP_CTR_HW, "tx_pkts", "tx_packets", NULL, 0, 1},
	{RP_CTR_HW, "rx_pkts", "rx_packets", NULL, 0, 1},
	{RP_CTR_HW, "tx_bytes", "tx_bytes", NULL, 0, 1},
	{RP_CTR_HW, "rx_bytes", "rx_bytes", NULL, 0, 1},

	/* irdma (on ice), drivers/infiniband/hw/irdma/verbs.c */
	{RP_CTR_HW, "cnpSent", "cnp_sent", NULL, 0, 1},
	{RP_CTR_HW, "cnpHandled", "cnp_handled", NULL, 0, 1},
	{RP_CTR_HW, "cnpIgnored", "cnp_ignored", NULL, 0, 1},
	{RP_CTR_HW, "RxECNMrkd", "ecn_ce_received", NULL, 0, 1},
	{RP_CTR_HW, "RxUDP", "rx_packets", NULL, 0, 1}, /* RoCEv2 is UDP: all RoCE packets */
	{RP_CTR_HW, "TxUDP", "tx_packets", NULL, 0, 1},

	/* mlx5_core, drivers/net/ethernet/mellanox/mlx5/core/en_stats.c: the
	 * per-priority group (pport_per_prio_*: the PFC ones only for priorities
	 * with PFC enabled, "global" instead of "prioN" with 802.3x pause on),
	 * the per-TC congestion group, the 802.3/2863 port groups, the q counter. */
	{RP_CTR_ETH, "rx_prio%u_pause", "pause_rx_prio%u", "pfc_rx", 0, 1},
	{RP_CTR_ETH, "tx_prio%u_pause", "pause_tx_prio%u", "pfc_tx", 0, 1},
	{RP_CTR_ETH, "rx_prio%u_pause_duration", "pause_time_us_rx_prio%u", "pause_us_rx", 0, 1},
	{RP_CTR_ETH, "tx_prio%u_pause_duration", "pause_time_us_tx_prio%u", "pause_us_tx", 0, 1},
	{RP_CTR_ETH, "rx_prio%u_pause_transition", NULL, "xoff_to_xon", 0, 1},
	{RP_CTR_ETH, "rx_prio%u_discards", "discards_rx_prio%u", "rx_discards", 0, 1},
	{RP_CTR_ETH, "rx_prio%u_bytes", NULL, "rx_bytes", 0, 1},
	{RP_CTR_ETH, "rx_prio%u_packets", NULL, "rx_packets", 0, 1},
	{RP_CTR_ETH, "tx_prio%u_bytes", NULL, "tx_bytes", 0, 1},
	{RP_CTR_ETH, "tx_prio%u_packets", NULL, "tx_packets", 0, 1},
	{RP_CTR_ETH, "rx_prio%u_buf_discard", NULL, "rx_buf_discards", 0, 1},   /* no receive buffer */
	{RP_CTR_ETH, "rx_prio%u_cong_discard", NULL, "rx_cong_discards", 0, 1}, /* WRED */
	{RP_CTR_ETH, "rx_prio%u_marked", NULL, "ecn_marked", 0, 1},             /* ECN-marked by the NIC */
	{RP_CTR_ETH, "rx_global_pause", NULL, "pause_rx", 0, 1},
	{RP_CTR_ETH, "tx_global_pause", NULL, "pause_tx", 0, 1},
	{RP_CTR_ETH, "rx_global_pause_duration", NULL, "pause_us_rx", 0, 1},
	{RP_CTR_ETH, "tx_global_pause_duration", NULL, "pause_us_tx", 0, 1},
	{RP_CTR_ETH, "rx_global_pause_transition", NULL, "xoff_to_xon", 0, 1},
	{RP_CTR_ETH, "rx_pause_ctrl_phy", "pause_rx", NULL, 0, 1},
	{RP_CTR_ETH, "tx_pause_ctrl_phy", "pause_tx", NULL, 0, 1},
	{RP_CTR_ETH, "tx_pause_storm_warning_events", NULL, "pause_storm_warnings", 0, 1},
	{RP_CTR_ETH, "tx_pause_storm_error_events", NULL, "pause_storm_events", 0, 1},
	{RP_CTR_ETH, "rx_discards_phy", NULL, "rx_discards_phy", 0, 1}, /* port buffer full */
	{RP_CTR_ETH, "tx_discards_phy", NULL, "tx_discards_phy", 0, 1},
	{RP_CTR_ETH, "rx_out_of_buffer", NULL, "rx_out_of_buffer", 0, 1}, /* no receive WQE */
	{RP_CTR_ETH, "rx_crc_errors_phy", NULL, "rx_crc_errors", 0, 1},
	{RP_CTR_ETH, "rx_packets_phy", NULL, "rx_packets", 0, 1},
	{RP_CTR_ETH, "tx_packets_phy", NULL, "tx_packets", 0, 1},
	{RP_CTR_ETH, "rx_bytes_phy", NULL, "rx_bytes", 0, 1},
	{RP_CTR_ETH, "tx_bytes_phy", NULL, "tx_bytes", 0, 1},

	/* bnxt_en, drivers/net/ethernet/broadcom/bnxt/bnxt_ethtool.c: port stats,
	 * port stats ext (PFC duration and transitions per priority), and the
	 * per-priority bytes/packets (printed when the priority -> CoS map is
	 * known). rx_discard_packets_cosN counts per CoS queue, not per priority:
	 * it passes through raw. (rx_pfc_xon2xoff_frames_priN is in the firmware's
	 * structure but Linux does not print it.) */
	{RP_CTR_ETH, "rx_pfc_ena_frames_pri%u", "pause_rx_prio%u", "pfc_rx", 0, 1},
	{RP_CTR_ETH, "tx_pfc_ena_frames_pri%u", "pause_tx_prio%u", "pfc_tx", 0, 1},
	{RP_CTR_ETH, "pfc_pri%u_rx_duration_us", NULL, "pause_us_rx", 0, 1},
	{RP_CTR_ETH, "pfc_pri%u_tx_duration_us", NULL, "pause_us_tx", 0, 1},
	{RP_CTR_ETH, "pfc_pri%u_rx_transitions", NULL, "xoff_to_xon", 0, 1},
	{RP_CTR_ETH, "pfc_pri%u_tx_transitions", NULL, "xoff_to_xon_tx", 0, 1},
	{RP_CTR_ETH, "rx_bytes_pri%u", NULL, "rx_bytes", 0, 1},
	{RP_CTR_ETH, "rx_packets_pri%u", NULL, "rx_packets", 0, 1},
	{RP_CTR_ETH, "tx_bytes_pri%u", NULL, "tx_bytes", 0, 1},
	{RP_CTR_ETH, "tx_packets_pri%u", NULL, "tx_packets", 0, 1},
	{RP_CTR_ETH, "rx_pause_frames", "pause_rx", NULL, 0, 1},
	{RP_CTR_ETH, "tx_pause_frames", "pause_tx", NULL, 0, 1},
	{RP_CTR_ETH, "rx_pfc_frames", NULL, "pfc_rx", 0, 1}, /* every priority */
	{RP_CTR_ETH, "tx_pfc_frames", NULL, "pfc_tx", 0, 1},
	{RP_CTR_ETH, "continuous_pause_events", NULL, "pause_storm_events", 0, 1},
	{RP_CTR_ETH, "rx_stat_discard", NULL, "rx_discards_phy", 0, 1},
	{RP_CTR_ETH, "tx_stat_discard", NULL, "tx_discards_phy", 0, 1},
	{RP_CTR_ETH, "rx_total_discard_pkts", NULL, "rx_out_of_buffer", 0, 1}, /* rings' rx_discards */
	{RP_CTR_ETH, "rx_fcs_err_frames", NULL, "rx_crc_errors", 0, 1},

	/* ice (irdma's netdev), drivers/net/ethernet/intel/ice/ice_ethtool.c:
	 * XON and XOFF counted apart, per priority and for 802.3x pause; each
	 * pair adds up to every frame (see the top). */
	{RP_CTR_ETH, "rx_priority_%u_xon.nic", NULL, "pfc_rx", RP_CTR_SUM, 1},
	{RP_CTR_ETH, "rx_priority_%u_xoff.nic", "pause_rx_prio%u", "pfc_rx", RP_CTR_SUM, 1},
	{RP_CTR_ETH, "tx_priority_%u_xon.nic", NULL, "pfc_tx", RP_CTR_SUM, 1},
	{RP_CTR_ETH, "tx_priority_%u_xoff.nic", "pause_tx_prio%u", "pfc_tx", RP_CTR_SUM, 1},
	{RP_CTR_ETH, "link_xon_rx.nic", NULL, "pause_rx", RP_CTR_SUM, 1},
	{RP_CTR_ETH, "link_xoff_rx.nic", "pause_rx", NULL, RP_CTR_SUM, 1},
	{RP_CTR_ETH, "link_xon_tx.nic", NULL, "pause_tx", RP_CTR_SUM, 1},
	{RP_CTR_ETH, "link_xoff_tx.nic", "pause_tx", NULL, RP_CTR_SUM, 1},
	{RP_CTR_ETH, "rx_dropped.nic", NULL, "rx_out_of_buffer", 0, 1}, /* no receive descriptor */
	{RP_CTR_ETH, "rx_crc_errors.nic", NULL, "rx_crc_errors", 0, 1},

	/* veth, drivers/net/veth.c: the peer's ifindex is not a count */
	{RP_CTR_ETH, "peer_ifindex", NULL, "peer_ifindex", RP_CTR_GAUGE, 1},

	/* /sys/class/net/IF/statistics (struct rtnl_link_stats64, net/core/net-sysfs.c):
	 * the names are already the vocabulary's; the rest pass through. */
	{RP_CTR_NETDEV, "rx_packets", NULL, "rx_packets", 0, 1},
	{RP_CTR_NETDEV, "tx_packets", NULL, "tx_packets", 0, 1},
	{RP_CTR_NETDEV, "rx_bytes", NULL, "rx_bytes", 0, 1},
	{RP_CTR_NETDEV, "tx_bytes", NULL, "tx_bytes", 0, 1},
	{RP_CTR_NETDEV, "rx_errors", NULL, "rx_errors", 0, 1},
	{RP_CTR_NETDEV, "tx_errors", NULL, "tx_errors", 0, 1},
	{RP_CTR_NETDEV, "rx_dropped", NULL, "rx_dropped", 0, 1},
	{RP_CTR_NETDEV, "tx_dropped", NULL, "tx_dropped", 0, 1},

	/* DPDK xstats (DPDK 22.11, the names Debian's PMDs hold). First the
	 * ethdev's own, every port has them (net_af_packet, net_ring, net_null
	 * have no others), lib/ethdev eth_dev_stats_strings[]; the
	 * per-queue rx_qN_* / tx_qN_* pass through raw. imissed (rx_missed_errors)
	 * is the NIC's drops for want of a receive descriptor: mlx5 fills it
	 * from out_of_buffer, the same event as its rx_out_of_buffer. */
	{RP_CTR_DPDK, "rx_good_packets", NULL, "rx_packets", 0, 1},
	{RP_CTR_DPDK, "tx_good_packets", NULL, "tx_packets", 0, 1},
	{RP_CTR_DPDK, "rx_good_bytes", NULL, "rx_bytes", 0, 1},
	{RP_CTR_DPDK, "tx_good_bytes", NULL, "tx_bytes", 0, 1},
	{RP_CTR_DPDK, "rx_missed_errors", NULL, "rx_out_of_buffer", 0, 1},
	{RP_CTR_DPDK, "rx_errors", NULL, "rx_errors", 0, 1},
	{RP_CTR_DPDK, "tx_errors", NULL, "tx_errors", 0, 1},
	{RP_CTR_DPDK, "rx_mbuf_allocation_errors", NULL, "rx_mbuf_allocation_errors", 0, 1},
	/* mlx5, drivers/net/mlx5/linux/mlx5_ethdev_os.c mlx5_counters_init[]: the
	 * kernel's ethtool counters under DPDK names (no per-priority pause: the
	 * netdev's ethtool source has those, issue 24), the *_phy ones the port's */
	{RP_CTR_DPDK, "rx_phy_discard_packets", NULL, "rx_discards_phy", 0, 1},
	{RP_CTR_DPDK, "tx_phy_discard_packets", NULL, "tx_discards_phy", 0, 1},
	{RP_CTR_DPDK, "rx_out_of_buffer", NULL, "rx_out_of_buffer", 0, 1},
	{RP_CTR_DPDK, "rx_phy_crc_errors", NULL, "rx_crc_errors", 0, 1},
	{RP_CTR_DPDK, "rx_phy_packets", NULL, "rx_packets", 0, 1},
	{RP_CTR_DPDK, "tx_phy_packets", NULL, "tx_packets", 0, 1},
	{RP_CTR_DPDK, "rx_phy_bytes", NULL, "rx_bytes", 0, 1},
	{RP_CTR_DPDK, "tx_phy_bytes", NULL, "tx_bytes", 0, 1},
	{RP_CTR_DPDK, "rx_prio%u_buf_discard_packets", NULL, "rx_buf_discards", 0, 1},
	{RP_CTR_DPDK, "rx_prio%u_cong_discard_packets", NULL, "rx_cong_discards", 0, 1},
	/* ice, drivers/net/ice/ice_ethdev.c ice_hw_port_strings[]: 802.3x pause
	 * only, XON and XOFF apart (no per-priority PFC in 22.11's PMD) */
	{RP_CTR_DPDK, "rx_xon_packets", NULL, "pause_rx", RP_CTR_SUM, 1},
	{RP_CTR_DPDK, "rx_xoff_packets", NULL, "pause_rx", RP_CTR_SUM, 1},
	{RP_CTR_DPDK, "tx_xon_packets", NULL, "pause_tx", RP_CTR_SUM, 1},
	{RP_CTR_DPDK, "tx_xoff_packets", NULL, "pause_tx", RP_CTR_SUM, 1},
	{RP_CTR_DPDK, "rx_crc_errors", NULL, "rx_crc_errors", 0, 1},
	/* bnxt, drivers/net/bnxt/bnxt_stats.c bnxt_rx_stats_strings[] and
	 * bnxt_tx_stats_strings[]: the firmware's port statistics, the kernel's
	 * names (bnxt_en above). rx_pfc_xon2xoff_frames_priN (pause intervals
	 * that began) and the per-CoS discards pass through raw. */
	{RP_CTR_DPDK, "rx_pfc_ena_frames_pri%u", NULL, "pfc_rx", 0, 1},
	{RP_CTR_DPDK, "tx_pfc_ena_frames_pri%u", NULL, "pfc_tx", 0, 1},
	{RP_CTR_DPDK, "rx_pause_frames", NULL, "pause_rx", 0, 1},
	{RP_CTR_DPDK, "tx_pause_frames", NULL, "pause_tx", 0, 1},
	{RP_CTR_DPDK, "rx_pfc_frames", NULL, "pfc_rx", 0, 1},
	{RP_CTR_DPDK, "tx_pfc_frames", NULL, "pfc_tx", 0, 1},
	{RP_CTR_DPDK, "rx_stat_discard", NULL, "rx_discards_phy", 0, 1},
	{RP_CTR_DPDK, "tx_stat_discard", NULL, "tx_discards_phy", 0, 1},

	/* A SONiC switch's COUNTERS_DB (sonic.c): the SAI stat names of
	 * opencomputeproject/SAI inc/saiport.h, saiqueue.h, saibuffer.h as
	 * sonic-swss orchagent writes them into COUNTERS:oid:..., and the PFC
	 * watchdog's PFC_WD_* of orchagent/pfcactionhandler.cpp (sonic_db.h).
	 * Per port and priority (the fields sonic-utilities scripts/pfcstat
	 * prints): */
	{RP_CTR_SAI, RP_SAI_PORT_PFC_RX_PKTS, NULL, "pfc_rx", 0, 1},
	{RP_CTR_SAI, RP_SAI_PORT_PFC_TX_PKTS, NULL, "pfc_tx", 0, 1},
	{RP_CTR_SAI, RP_SAI_PORT_PFC_RX_PAUSE_US, NULL, "pause_us_rx", 0, 1},
	{RP_CTR_SAI, RP_SAI_PORT_PFC_TX_PAUSE_US, NULL, "pause_us_tx", 0, 1},
	{RP_CTR_SAI, RP_SAI_PORT_IN_OCTETS, NULL, "rx_bytes", 0, 1},
	{RP_CTR_SAI, RP_SAI_PORT_OUT_OCTETS, NULL, "tx_bytes", 0, 1},
	{RP_CTR_SAI, RP_SAI_PORT_IN_DISCARDS, NULL, "rx_discards", 0, 1},
	{RP_CTR_SAI, RP_SAI_PORT_OUT_DISCARDS, NULL, "tx_discards", 0, 1},
	{RP_CTR_SAI, RP_SAI_PORT_IN_UCAST_PKTS, NULL, "rx_packets", 0, 1}, /* portstat's RX_OK (with NON_UCAST) */
	{RP_CTR_SAI, RP_SAI_PORT_OUT_UCAST_PKTS, NULL, "tx_packets", 0, 1},
	/* per egress queue (scripts/queuestat's, and the ECN marks WRED made) */
	{RP_CTR_SAI, RP_SAI_QUEUE_PACKETS, NULL, "packets", 0, 1},
	{RP_CTR_SAI, RP_SAI_QUEUE_BYTES, NULL, "bytes", 0, 1},
	{RP_CTR_SAI, RP_SAI_QUEUE_DROPPED_PACKETS, NULL, "drops", 0, 1},
	{RP_CTR_SAI, RP_SAI_QUEUE_DROPPED_BYTES, NULL, "drop_bytes", 0, 1},
	{RP_CTR_SAI, RP_SAI_QUEUE_ECN_MARKED, NULL, "ecn_marked", 0, 1},
	/* the PFC watchdog's, per queue (sonic-utilities pfcwd/main.py STATS_DESCRIPTION) */
	{RP_CTR_SAI, RP_SONIC_WD_DETECTED, NULL, "wd_storms_detected", 0, 1},
	{RP_CTR_SAI, RP_SONIC_WD_RESTORED, NULL, "wd_storms_restored", 0, 1},
	{RP_CTR_SAI, RP_SONIC_WD_TX_DROPPED, NULL, "wd_tx_drops", 0, 1},
	{RP_CTR_SAI, RP_SONIC_WD_RX_DROPPED, NULL, "wd_rx_drops", 0, 1},
	{RP_CTR_SAI, RP_SONIC_WD_TX_PACKETS, NULL, "wd_tx_packets", 0, 1},
	{RP_CTR_SAI, RP_SONIC_WD_RX_PACKETS, NULL, "wd_rx_packets", 0, 1},
	/* ... and its levels: the same counts over the latest storm alone (they
	 * start again with each storm), its timers, and PFC_WD_STATUS
	 * ("stormed" 1, "operational" 0; sonic.c turns the word into the number) */
	{RP_CTR_SAI, RP_SONIC_WD_TX_DROPPED RP_SONIC_WD_LAST, NULL, "wd_tx_drops_last", RP_CTR_GAUGE, 1},
	{RP_CTR_SAI, RP_SONIC_WD_RX_DROPPED RP_SONIC_WD_LAST, NULL, "wd_rx_drops_last", RP_CTR_GAUGE, 1},
	{RP_CTR_SAI, RP_SONIC_WD_TX_PACKETS RP_SONIC_WD_LAST, NULL, "wd_tx_packets_last", RP_CTR_GAUGE, 1},
	{RP_CTR_SAI, RP_SONIC_WD_RX_PACKETS RP_SONIC_WD_LAST, NULL, "wd_rx_packets_last", RP_CTR_GAUGE, 1},
	{RP_CTR_SAI, RP_SONIC_WD_DETECTION_TIME, NULL, "wd_detection_time", RP_CTR_GAUGE, 1},
	{RP_CTR_SAI, RP_SONIC_WD_DETECTION_TIME_LEFT, NULL, "wd_detection_time_left", RP_CTR_GAUGE, 1},
	{RP_CTR_SAI, RP_SONIC_WD_RESTORATION_TIME, NULL, "wd_restoration_time", RP_CTR_GAUGE, 1},
	{RP_CTR_SAI, RP_SONIC_WD_RESTORATION_TIME_LEFT, NULL, "wd_restoration_time_left", RP_CTR_GAUGE, 1},
	{RP_CTR_SAI, RP_SONIC_WD_STATUS, NULL, "wd_stormed", RP_CTR_GAUGE, 1},
	/* per ingress priority group: what it took in and dropped (headroom overrun) */
	{RP_CTR_SAI, RP_SAI_PG_PACKETS, NULL, "packets", 0, 1},
	{RP_CTR_SAI, RP_SAI_PG_DROPPED_PACKETS, NULL, "drops", 0, 1},
	/* watermarks, gauges (scripts/watermarkstat's tables: USER_WATERMARKS,
	 * raw names "U/FIELD", is the high mark since the user last cleared it,
	 * PERSISTENT_WATERMARKS, "P/FIELD", since the persistent clear; the
	 * Lua plugins of sonic-swss orchagent/watermark_{queue,pg}.lua fill
	 * them from COUNTERS:oid's last reading) */
	{RP_CTR_SAI, RP_SONIC_USER_WM_PREFIX RP_SAI_QUEUE_SHARED_WM, NULL, "shared_wm_bytes", RP_CTR_GAUGE, 1},
	/* COUNTERS:oid's own: the high mark of the last poll alone (read and
	 * cleared each poll), what the plugins fold into the tables */
	{RP_CTR_SAI, RP_SAI_QUEUE_SHARED_WM, NULL, "poll_shared_wm_bytes", RP_CTR_GAUGE, 1},
	{RP_CTR_SAI, RP_SAI_PG_SHARED_WM, NULL, "poll_shared_wm_bytes",
	 RP_CTR_GAUGE, 1},
	{RP_CTR_SAI, RP_SAI_PG_XOFF_ROOM_WM, NULL, "poll_headroom_wm_bytes",
	 RP_CTR_GAUGE, 1},
	{RP_CTR_SAI, RP_SONIC_PERSISTENT_WM_PREFIX RP_SAI_QUEUE_SHARED_WM, NULL, "persistent_shared_wm_bytes",
	 RP_CTR_GAUGE, 1},
	{RP_CTR_SAI, RP_SONIC_USER_WM_PREFIX RP_SAI_PG_SHARED_WM, NULL, "shared_wm_bytes",
	 RP_CTR_GAUGE, 1},
	{RP_CTR_SAI, RP_SONIC_PERSISTENT_WM_PREFIX RP_SAI_PG_SHARED_WM, NULL,
	 "persistent_shared_wm_bytes", RP_CTR_GAUGE, 1},
	{RP_CTR_SAI, RP_SONIC_USER_WM_PREFIX RP_SAI_PG_XOFF_ROOM_WM, NULL, "headroom_wm_bytes",
	 RP_CTR_GAUGE, 1},
	{RP_CTR_SAI, RP_SONIC_PERSISTENT_WM_PREFIX RP_SAI_PG_XOFF_ROOM_WM, NULL,
	 "persistent_headroom_wm_bytes", RP_CTR_GAUGE, 1},

	/* A switch over SNMP (snmp.c): IF-MIB (RFC 2863) columns, and
	 * CISCO-PFC-EXT-MIB's cpfcIfPriorityTable (column.priority), which
	 * SONiC's agent fills from SAI_PORT_STAT_PFC_<p>_TX_PKTS (Requests) and
	 * _RX_PKTS (Indications): sonic-snmpagent ciscoPfcExtMIB.py */
	{RP_CTR_SNMP, "cpfcIfPriorityRequests.%u", NULL, "pfc_tx", 0, 1},
	{RP_CTR_SNMP, "cpfcIfPriorityIndications.%u", NULL, "pfc_rx", 0, 1},
	/* IEEE8021-PFC-MIB: PFC frames of every priority, sent (Requests) and
	 * received (Indications), per interface: the port-level pfc_tx/pfc_rx */
	{RP_CTR_SNMP, "ieee8021PfcRequests", NULL, "pfc_tx", 0, 1},
	{RP_CTR_SNMP, "ieee8021PfcIndications", NULL, "pfc_rx", 0, 1},
	{RP_CTR_SNMP, "ifHCInOctets", NULL, "rx_bytes", 0, 1},
	{RP_CTR_SNMP, "ifHCOutOctets", NULL, "tx_bytes", 0, 1},
	{RP_CTR_SNMP, "ifInDiscards", NULL, "rx_discards", 0, 1},
	{RP_CTR_SNMP, "ifOutDiscards", NULL, "tx_discards", 0, 1},
	/* CISCO-SWITCH-QOS-MIB csqIfQosGroupStatsValue.TYPE of an egress queue, the
	 * types sonic-snmpagent ciscoSwitchQosMIB.py CounterMap gives: 1..2 and
	 * 5..6 the unicast queue's SAI_QUEUE_STAT_PACKETS, _BYTES,
	 * _DROPPED_PACKETS, _DROPPED_BYTES; 3..4, 7..8 the same of the multicast
	 * queue the agent files under the same queue number */
	{RP_CTR_SNMP, "csqIfQosGroupStatsValue.1", NULL, "packets", 0, 1},
	{RP_CTR_SNMP, "csqIfQosGroupStatsValue.2", NULL, "bytes", 0, 1},
	{RP_CTR_SNMP, "csqIfQosGroupStatsValue.3", NULL, "mc_packets", 0, 1},
	{RP_CTR_SNMP, "csqIfQosGroupStatsValue.4", NULL, "mc_bytes", 0, 1},
	{RP_CTR_SNMP, "csqIfQosGroupStatsValue.5", NULL, "drops", 0, 1},
	{RP_CTR_SNMP, "csqIfQosGroupStatsValue.6", NULL, "drop_bytes", 0, 1},
	{RP_CTR_SNMP, "csqIfQosGroupStatsValue.7", NULL, "mc_drops", 0, 1},
	{RP_CTR_SNMP, "csqIfQosGroupStatsValue.8", NULL, "mc_drop_bytes", 0, 1},

	/* exec:CMD (exec.c): the map names counters by the vocabulary itself;
	 * a path with {prio} gives NAME.PRIO */
	{RP_CTR_EXEC, "pfc_rx.%u", NULL, "pfc_rx", 0, 1},
	{RP_CTR_EXEC, "pfc_tx.%u", NULL, "pfc_tx", 0, 1},
	{RP_CTR_EXEC, "pause_us_rx.%u", NULL, "pause_us_rx", 0, 1},
	{RP_CTR_EXEC, "pause_us_tx.%u", NULL, "pause_us_tx", 0, 1},
	{RP_CTR_EXEC, "rx_bytes", NULL, "rx_bytes", 0, 1},
	{RP_CTR_EXEC, "tx_bytes", NULL, "tx_bytes", 0, 1},
	{RP_CTR_EXEC, "rx_packets", NULL, "rx_packets", 0, 1},
	{RP_CTR_EXEC, "tx_packets", NULL, "tx_packets", 0, 1},
	{RP_CTR_EXEC, "rx_discards", NULL, "rx_discards", 0, 1},
	{RP_CTR_EXEC, "tx_discards", NULL, "tx_discards", 0, 1},
	{RP_CTR_EXEC, "pfc_rx", NULL, "pfc_rx", 0, 1},
	{RP_CTR_EXEC, "pfc_tx", NULL, "pfc_tx", 0, 1},
	{RP_CTR_EXEC, "rx_dropped", NULL, "rx_dropped", 0, 1},
	{RP_CTR_EXEC, "tx_dropped", NULL, "tx_dropped", 0, 1},
	{RP_CTR_EXEC, "rx_errors", NULL, "rx_errors", 0, 1},
	{RP_CTR_EXEC, "tx_errors", NULL, "tx_errors", 0, 1},
	{RP_CTR_EXEC, "cnp_sent", NULL, "cnp_sent", 0, 1},
	{RP_CTR_EXEC, "cnp_handled", NULL, "cnp_handled", 0, 1},
	{RP_CTR_EXEC, "ecn_ce_received", NULL, "ecn_ce_received", 0, 1},
};

const char *rp_ctr_src_name(enum rp_ctr_src s)
{
	switch (s) {
	case RP_CTR_PORT:
		return "port";
	case RP_CTR_HW:
		return "hw";
	case RP_CTR_ETH:
		return "eth";
	case RP_CTR_DPDK:
		return "dpdk";
	case RP_CTR_SAI:
		return "sai";
	case RP_CTR_SNMP:
		return "snmp";
	case RP_CTR_EXEC:
		return "exec";
	default:
		return "netdev";
	}
}

bool rp_ctr_is_pause(const char *raw)
{
	return strcasestr(raw, "pause") || strcasestr(raw, "pfc");
}

/* Matches raw against pat, where pat may contain one "%u" standing for one
 * decimal digit 0..7. *prio gets that digit (or -1). */
static bool match(const char *pat, const char *raw, int *prio)
{
	*prio = -1;
	const char *p = strstr(pat, "%u");
	if (!p)
		return strcmp(pat, raw) == 0;
	size_t pre = (size_t)(p - pat);
	if (strncmp(pat, raw, pre) != 0 || raw[pre] < '0' || raw[pre] > '7')
		return false;
	if (strcmp(p + 2, raw + pre + 1) != 0)
		return false;
	*prio = raw[pre] - '0';
	return true;
}

static const struct map *lookup(enum rp_ctr_src src, const char *raw, int *prio)
{
	for (size_t i = 0; i < sizeof(maps) / sizeof(maps[0]); i++)
		if (maps[i].src == src && match(maps[i].raw, raw, prio))
			return &maps[i];
	return NULL;
}

bool rp_ctr_normalise(enum rp_ctr_src src, const char *raw, char *out, size_t len, uint64_t *scale)
{
	int prio;
	const struct map *m = lookup(src, raw, &prio);
	if (!m || !m->legacy)
		return false;
	const char *n = m->legacy;
	const char *p = strstr(n, "%u");
	if (p)
		snprintf(out, len, "%.*s%d%s", (int)(p - n), n, prio, p + 2);
	else
		snprintf(out, len, "%s", n);
	if (scale)
		*scale = m->scale;
	return true;
}

bool rp_ctr_key(enum rp_ctr_src src, const char *raw, struct rp_ctr_key *key)
{
	int prio;
	const struct map *m = lookup(src, raw, &prio);
	if (!m)
		return false;
	snprintf(key->name, sizeof(key->name), "%s", m->key ? m->key : m->legacy);
	key->prio = prio;
	key->scale = m->scale;
	key->flags = m->flags;
	return true;
}

bool rp_ctr_key_is_gauge(const char *key)
{
	for (size_t i = 0; i < sizeof(maps) / sizeof(maps[0]); i++) {
		const char *k = maps[i].key ? maps[i].key : maps[i].legacy;
		if ((maps[i].flags & RP_CTR_GAUGE) && k && strcmp(k, key) == 0)
			return true;
	}
	return false;
}
