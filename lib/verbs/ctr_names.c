/* The normalisation table: raw counter names of mlx5, bnxt_re, irdma and rxe
 * (and the IBTA port counters every IB device has) -> one roceprobe name.
 * Sources: each driver's hw_counters name table in Linux, the ethtool string
 * sets of mlx5_core, bnxt_en and ice. A raw name appears once; where drivers
 * count slightly different things under one normalised name, the comment says. */
#include "verbs/counters.h"

#include <stdio.h>
#include <string.h>

struct map {
	uint8_t src;
	const char *raw;  /* may hold one "%u": a priority 0..7 */
	const char *norm; /* holds "%u" when raw does */
	uint64_t scale;
};

static const struct map maps[] = {
	/* IBTA PortCounters (port/) */
	{RP_CTR_PORT, "port_xmit_packets", "tx_packets", 1},
	{RP_CTR_PORT, "port_rcv_packets", "rx_packets", 1},
	{RP_CTR_PORT, "port_xmit_data", "tx_bytes", 4}, /* counted in 4-byte words */
	{RP_CTR_PORT, "port_rcv_data", "rx_bytes", 4},
	{RP_CTR_PORT, "port_rcv_errors", "rx_errors", 1},
	{RP_CTR_PORT, "port_xmit_discards", "tx_discards", 1},
	{RP_CTR_PORT, "port_xmit_wait", "tx_wait_ticks", 1}, /* IB credit stalls */
	{RP_CTR_PORT, "symbol_error", "symbol_errors", 1},
	{RP_CTR_PORT, "link_downed", "link_downed", 1},
	{RP_CTR_PORT, "port_rcv_remote_physical_errors", "rx_remote_physical_errors", 1},

	/* rxe (Soft-RoCE) */
	{RP_CTR_HW, "sent_pkts", "tx_packets", 1},
	{RP_CTR_HW, "rcvd_pkts", "rx_packets", 1},
	{RP_CTR_HW, "out_of_seq_request", "out_of_sequence", 1}, /* responder saw a PSN gap */
	{RP_CTR_HW, "rcvd_seq_err", "seq_err_naks_received", 1}, /* requester got NAK-sequence */
	{RP_CTR_HW, "completer_retry_err", "retransmissions", 1}, /* requester went back (timeout or NAK) */
	{RP_CTR_HW, "retry_exceeded_err", "retry_exceeded", 1},
	{RP_CTR_HW, "rcvd_rnr_err", "rnr_naks_received", 1},
	{RP_CTR_HW, "send_rnr_err", "rnr_naks_sent", 1},
	{RP_CTR_HW, "retry_rnr_exceeded_err", "rnr_retry_exceeded", 1},
	{RP_CTR_HW, "ack_deferred", "ack_deferred", 1},
	{RP_CTR_HW, "send_err", "send_errors", 1},
	{RP_CTR_HW, "rdma_sends", "rdma_sends", 1},
	{RP_CTR_HW, "rdma_recvs", "rdma_recvs", 1},

	/* shared by rxe and mlx5 */
	{RP_CTR_HW, "duplicate_request", "duplicate_requests", 1},
	{RP_CTR_HW, "link_downed", "link_downed", 1},

	/* mlx5 */
	{RP_CTR_HW, "np_cnp_sent", "cnp_sent", 1},
	{RP_CTR_HW, "rp_cnp_handled", "cnp_handled", 1},
	{RP_CTR_HW, "rp_cnp_ignored", "cnp_ignored", 1},
	{RP_CTR_HW, "np_ecn_marked_roce_packets", "ecn_ce_received", 1},
	{RP_CTR_HW, "out_of_sequence", "out_of_sequence", 1},
	{RP_CTR_HW, "packet_seq_err", "seq_err_naks_received", 1},
	{RP_CTR_HW, "implied_nak_seq_err", "implied_nak_seq_errors", 1},
	{RP_CTR_HW, "local_ack_timeout_err", "ack_timeouts", 1},
	{RP_CTR_HW, "rnr_nak_retry_err", "rnr_retry_exceeded", 1},
	{RP_CTR_HW, "out_of_buffer", "rx_out_of_buffer", 1},
	{RP_CTR_HW, "req_cqe_error", "req_cqe_errors", 1},
	{RP_CTR_HW, "resp_cqe_error", "resp_cqe_errors", 1},
	{RP_CTR_HW, "roce_adp_retrans", "adaptive_retransmissions", 1},
	{RP_CTR_HW, "rx_icrc_encapsulated", "rx_icrc_errors", 1},

	/* bnxt_re */
	{RP_CTR_HW, "cnp_tx_pkts", "cnp_sent", 1},
	{RP_CTR_HW, "cnp_rx_pkts", "cnp_handled", 1},
	{RP_CTR_HW, "rx_ecn_marked_pkts", "ecn_ce_received", 1},
	{RP_CTR_HW, "seq_err_naks_rcvd", "seq_err_naks_received", 1},
	{RP_CTR_HW, "to_retransmits", "ack_timeouts", 1},
	{RP_CTR_HW, "max_retry_exceeded", "retry_exceeded", 1},
	{RP_CTR_HW, "rnr_naks_rcvd", "rnr_naks_received", 1},
	{RP_CTR_HW, "dup_reqs", "duplicate_requests", 1},
	{RP_CTR_HW, "missing_resp", "missing_responses", 1},
	{RP_CTR_HW, "tx_pkts", "tx_packets", 1},
	{RP_CTR_HW, "rx_pkts", "rx_packets", 1},
	{RP_CTR_HW, "tx_bytes", "tx_bytes", 1},
	{RP_CTR_HW, "rx_bytes", "rx_bytes", 1},

	/* irdma */
	{RP_CTR_HW, "cnpSent", "cnp_sent", 1},
	{RP_CTR_HW, "cnpHandled", "cnp_handled", 1},
	{RP_CTR_HW, "cnpIgnored", "cnp_ignored", 1},
	{RP_CTR_HW, "RxECNMrkd", "ecn_ce_received", 1},
	{RP_CTR_HW, "RxUDP", "rx_packets", 1}, /* RoCEv2 is UDP: all RoCE packets */
	{RP_CTR_HW, "TxUDP", "tx_packets", 1},

	/* ethtool: PFC pause per priority and global pause */
	{RP_CTR_ETH, "rx_prio%u_pause", "pause_rx_prio%u", 1},            /* mlx5 */
	{RP_CTR_ETH, "tx_prio%u_pause", "pause_tx_prio%u", 1},
	{RP_CTR_ETH, "rx_prio%u_pause_duration", "pause_time_us_rx_prio%u", 1},
	{RP_CTR_ETH, "tx_prio%u_pause_duration", "pause_time_us_tx_prio%u", 1},
	{RP_CTR_ETH, "rx_prio%u_discards", "discards_rx_prio%u", 1},
	{RP_CTR_ETH, "rx_pause_ctrl_phy", "pause_rx", 1},
	{RP_CTR_ETH, "tx_pause_ctrl_phy", "pause_tx", 1},
	{RP_CTR_ETH, "rx_pfc_ena_frames_pri%u", "pause_rx_prio%u", 1},    /* bnxt_en */
	{RP_CTR_ETH, "tx_pfc_ena_frames_pri%u", "pause_tx_prio%u", 1},
	{RP_CTR_ETH, "rx_pause_frames", "pause_rx", 1},
	{RP_CTR_ETH, "tx_pause_frames", "pause_tx", 1},
	{RP_CTR_ETH, "rx_priority_%u_xoff.nic", "pause_rx_prio%u", 1},    /* ice (irdma's netdev) */
	{RP_CTR_ETH, "tx_priority_%u_xoff.nic", "pause_tx_prio%u", 1},
	{RP_CTR_ETH, "link_xoff_rx.nic", "pause_rx", 1},
	{RP_CTR_ETH, "link_xoff_tx.nic", "pause_tx", 1},
};

const char *rp_ctr_src_name(enum rp_ctr_src s)
{
	return s == RP_CTR_PORT ? "port" : s == RP_CTR_HW ? "hw" : "eth";
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

bool rp_ctr_normalise(enum rp_ctr_src src, const char *raw, char *out, size_t len, uint64_t *scale)
{
	for (size_t i = 0; i < sizeof(maps) / sizeof(maps[0]); i++) {
		int prio;
		if (maps[i].src != src || !match(maps[i].raw, raw, &prio))
			continue;
		const char *n = maps[i].norm;
		const char *p = strstr(n, "%u");
		if (p)
			snprintf(out, len, "%.*s%d%s", (int)(p - n), n, prio, p + 2);
		else
			snprintf(out, len, "%s", n);
		if (scale)
			*scale = maps[i].scale;
		return true;
	}
	return false;
}
