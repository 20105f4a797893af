/* Counter names across drivers, and snapshots/deltas over a fake sysfs tree
 * laid out like /sys/class/infiniband/DEV/ports/P/{counters,hw_counters}. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "verbs/counters.h"

static void norm(enum rp_ctr_src src, const char *raw, const char *want, uint64_t want_scale)
{
	char out[64];
	uint64_t scale = 0;
	bool ok = rp_ctr_normalise(src, raw, out, sizeof(out), &scale);
	if (!want) {
		assert_false(ok);
		return;
	}
	assert_true(ok);
	assert_string_equal(out, want);
	assert_int_equal(scale, want_scale);
}

static void same_event_same_name_across_drivers(void **state)
{
	(void)state;
	/* CNPs sent by the notification point */
	norm(RP_CTR_HW, "np_cnp_sent", "cnp_sent", 1);     /* mlx5 */
	norm(RP_CTR_HW, "cnp_tx_pkts", "cnp_sent", 1);     /* bnxt_re */
	norm(RP_CTR_HW, "cnpSent", "cnp_sent", 1);         /* irdma */
	norm(RP_CTR_HW, "rp_cnp_handled", "cnp_handled", 1);
	norm(RP_CTR_HW, "cnpHandled", "cnp_handled", 1);
	/* CE-marked RoCE packets received */
	norm(RP_CTR_HW, "np_ecn_marked_roce_packets", "ecn_ce_received", 1);
	norm(RP_CTR_HW, "rx_ecn_marked_pkts", "ecn_ce_received", 1);
	norm(RP_CTR_HW, "RxECNMrkd", "ecn_ce_received", 1);
	/* sequence errors: NAK-sequence received by the requester */
	norm(RP_CTR_HW, "packet_seq_err", "seq_err_naks_received", 1); /* mlx5 */
	norm(RP_CTR_HW, "seq_err_naks_rcvd", "seq_err_naks_received", 1); /* bnxt_re */
	norm(RP_CTR_HW, "rcvd_seq_err", "seq_err_naks_received", 1);  /* rxe */
	/* responder saw a PSN gap */
	norm(RP_CTR_HW, "out_of_sequence", "out_of_sequence", 1);
	norm(RP_CTR_HW, "out_of_seq_request", "out_of_sequence", 1);
	/* retransmissions, timeouts, duplicates */
	norm(RP_CTR_HW, "completer_retry_err", "retransmissions", 1);
	norm(RP_CTR_HW, "local_ack_timeout_err", "ack_timeouts", 1);
	norm(RP_CTR_HW, "to_retransmits", "ack_timeouts", 1);
	norm(RP_CTR_HW, "duplicate_request", "duplicate_requests", 1);
	norm(RP_CTR_HW, "dup_reqs", "duplicate_requests", 1);
	norm(RP_CTR_HW, "retry_exceeded_err", "retry_exceeded", 1);
	norm(RP_CTR_HW, "max_retry_exceeded", "retry_exceeded", 1);
	norm(RP_CTR_HW, "rcvd_rnr_err", "rnr_naks_received", 1);
	norm(RP_CTR_HW, "sent_pkts", "tx_packets", 1);
	/* IBTA data counters are in 4-byte words */
	norm(RP_CTR_PORT, "port_xmit_data", "tx_bytes", 4);
	norm(RP_CTR_PORT, "port_rcv_packets", "rx_packets", 1);
	/* a name means something only in its own source */
	norm(RP_CTR_PORT, "np_cnp_sent", NULL, 0);
	norm(RP_CTR_HW, "some_new_counter", NULL, 0);
}

static void pause_per_priority(void **state)
{
	(void)state;
	norm(RP_CTR_ETH, "rx_prio3_pause", "pause_rx_prio3", 1);                 /* mlx5 */
	norm(RP_CTR_ETH, "tx_prio3_pause_duration", "pause_time_us_tx_prio3", 1);
	norm(RP_CTR_ETH, "rx_prio0_pause_duration", "pause_time_us_rx_prio0", 1);
	norm(RP_CTR_ETH, "tx_pfc_ena_frames_pri5", "pause_tx_prio5", 1);         /* bnxt_en */
	norm(RP_CTR_ETH, "rx_priority_7_xoff.nic", "pause_rx_prio7", 1);         /* ice */
	norm(RP_CTR_ETH, "rx_pause_ctrl_phy", "pause_rx", 1);
	norm(RP_CTR_ETH, "rx_prio8_pause", NULL, 0); /* priorities are 0..7 */
	norm(RP_CTR_ETH, "rx_prio33_pause", NULL, 0);
	norm(RP_CTR_ETH, "rx_prio_pause", NULL, 0);
}

static char root[100];

static void put(const char *rel, const char *text)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int make_tree(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "/tmp/rp-verbs-ctr-XXXXXX");
	assert_non_null(mkdtemp(root));
	char d[512];
	snprintf(d, sizeof(d), "%s/rxe0", root);
	mkdir(d, 0755);
	snprintf(d, sizeof(d), "%s/rxe0/ports", root);
	mkdir(d, 0755);
	snprintf(d, sizeof(d), "%s/rxe0/ports/1", root);
	mkdir(d, 0755);
	snprintf(d, sizeof(d), "%s/rxe0/ports/1/hw_counters", root);
	mkdir(d, 0755);
	snprintf(d, sizeof(d), "%s/rxe0/ports/1/counters", root);
	mkdir(d, 0755);
	return 0;
}

static int remove_tree(void **state)
{
	(void)state;
	char cmd[400];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd) == 0 ? 0 : -1;
}

static void snapshot_delta_and_fold(void **state)
{
	(void)state;
	struct rp_ctr_source src = {.port = 1};
	snprintf(src.sysfs_root, sizeof(src.sysfs_root), "%s", root);
	strcpy(src.dev, "rxe0");
	put("rxe0/ports/1/hw_counters/sent_pkts", "1000\n");
	put("rxe0/ports/1/hw_counters/rcvd_seq_err", "2\n");
	put("rxe0/ports/1/hw_counters/completer_retry_err", "5\n");
	put("rxe0/ports/1/hw_counters/lifespan", "10\n"); /* a setting, not a counter */
	put("rxe0/ports/1/hw_counters/odd_counter", "7\n");
	put("rxe0/ports/1/counters/port_xmit_data", "100\n");
	put("rxe0/ports/1/counters/port_xmit_packets", "990\n");
	put("rxe0/ports/1/counters/port_rcv_errors", "garbage\n"); /* unreadable: skipped */
	static struct rp_ctr_snap a, b;
	assert_int_equal(rp_ctr_snapshot(&src, &a), 6);
	put("rxe0/ports/1/hw_counters/sent_pkts", "1600\n");
	put("rxe0/ports/1/hw_counters/rcvd_seq_err", "9\n");
	put("rxe0/ports/1/hw_counters/completer_retry_err", "4\n"); /* went backwards: 0 */
	put("rxe0/ports/1/counters/port_xmit_data", "350\n");
	put("rxe0/ports/1/counters/port_xmit_packets", "1500\n");
	assert_int_equal(rp_ctr_snapshot(&src, &b), 6);

	struct rp_ctr d[16], n[16];
	size_t nd = rp_ctr_delta(&a, &b, d, 16);
	assert_int_equal(nd, 6);
	bool seen_raw = false;
	for (size_t i = 0; i < nd; i++)
		if (strcmp(d[i].name, "hw/odd_counter") == 0) {
			seen_raw = true;
			assert_int_equal(d[i].value, 0);
		}
	assert_true(seen_raw);
	size_t nn = rp_ctr_fold(d, nd, n, 16);
	uint64_t tx_packets = 0, seq = 0, retrans = 99, tx_bytes = 0;
	for (size_t i = 0; i < nn; i++) {
		if (!strcmp(n[i].name, "tx_packets"))
			tx_packets = n[i].value;
		if (!strcmp(n[i].name, "seq_err_naks_received"))
			seq = n[i].value;
		if (!strcmp(n[i].name, "retransmissions"))
			retrans = n[i].value;
		if (!strcmp(n[i].name, "tx_bytes"))
			tx_bytes = n[i].value;
	}
	/* port_xmit_packets +510 and sent_pkts +600 count the same thing: max */
	assert_int_equal(tx_packets, 600);
	assert_int_equal(seq, 7);
	assert_int_equal(retrans, 0);
	assert_int_equal(tx_bytes, 1000); /* 250 words */
}

static void missing_device_reads_nothing(void **state)
{
	(void)state;
	struct rp_ctr_source src = {.port = 1};
	snprintf(src.sysfs_root, sizeof(src.sysfs_root), "%s", root);
	strcpy(src.dev, "mlx5_9");
	static struct rp_ctr_snap s;
	assert_int_equal(rp_ctr_snapshot(&src, &s), 0);
}

static void ethtool_on_a_netdev_without_stats(void **state)
{
	(void)state;
	struct rp_ctr c[8];
	char err[128] = "";
	/* lo has no ethtool statistics; a missing netdev neither. Both are
	 * reported, never a crash. */
	assert_int_equal(rp_ethtool_stats("rp-no-such-if0", c, 8, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "rp-no-such-if0"));
	int n = rp_ethtool_stats("lo", c, 8, err, sizeof(err));
	assert_true(n <= 0);
}

static void sampler_collects_periodic_deltas(void **state)
{
	(void)state;
	struct rp_ctr_source src = {.port = 1};
	snprintf(src.sysfs_root, sizeof(src.sysfs_root), "%s", root);
	strcpy(src.dev, "rxe0");
	put("rxe0/ports/1/hw_counters/rcvd_pkts", "10\n");
	struct rp_ctr_sampler *s = rp_ctr_sampler_start(&src, 20);
	assert_non_null(s);
	put("rxe0/ports/1/hw_counters/rcvd_pkts", "25\n");
	usleep(120 * 1000);
	rp_ctr_sampler_stop(s);
	size_t n = rp_ctr_sampler_count(s);
	assert_true(n >= 2);
	const struct rp_ctr_sample *last = rp_ctr_sampler_get(s, n - 1);
	bool found = false;
	for (size_t i = 0; i < last->n; i++)
		if (!strcmp(last->c[i].name, "rx_packets")) {
			found = true;
			assert_int_equal(last->c[i].value, 15);
		}
	assert_true(found);
	assert_true(last->t_ns > 0);
	rp_ctr_sampler_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(same_event_same_name_across_drivers),
		cmocka_unit_test(pause_per_priority),
		cmocka_unit_test_setup_teardown(snapshot_delta_and_fold, make_tree, remove_tree),
		cmocka_unit_test_setup_teardown(missing_device_reads_nothing, make_tree, remove_tree),
		cmocka_unit_test(ethtool_on_a_netdev_without_stats),
		cmocka_unit_test_setup_teardown(sampler_collects_periodic_deltas, make_tree, remove_tree),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
