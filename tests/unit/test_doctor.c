/* lib/doctor against a fake machine: tests/data/doctor/sysroot-mlx5 is the
 * /sys and /proc of a ConnectX-like NIC (mlx5_core, PCI 0000:3b:00.0 on NUMA
 * node 1, netdev ens1f0np0 at MTU 9000 and 100000 Mb/s, PTP clock ptp2,
 * mlx5_0 with a RoCE v2 GID at index 3, 1024 hugepages of 2 MiB mounted,
 * ptp4l and phc2sys running); the ioctl and netlink answers are this
 * file's (fake_*). Honest speed: the link is 100G; a profile asking 200G is
 * refused, one asking 25G warned. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "doctor/doctor.h"
#include "traffic/plan.h"

static uint8_t fake_pfc_en = 0x08; /* PFC on priority 3 */

static int fake_drvinfo(const char *ifname, struct rp_doctor_drvinfo *out)
{
	if (strcmp(ifname, "ens1f0np0") != 0)
		return -ENODEV;
	memset(out, 0, sizeof(*out));
	strcpy(out->driver, "mlx5_core");
	strcpy(out->version, "6.1.0");
	strcpy(out->fw_version, "22.36.1010 (MT_0000000359)");
	strcpy(out->bus_info, "0000:3b:00.0");
	return 0;
}

static int fake_link_mbps(const char *ifname, uint32_t *mbps)
{
	(void)ifname;
	*mbps = 100000;
	return 0;
}

static int fake_phc_index(const char *ifname, int *index)
{
	(void)ifname;
	*index = 2;
	return 0;
}

static int fake_dcb(const char *ifname, struct rp_doctor_dcb *out)
{
	(void)ifname;
	memset(out, 0, sizeof(*out));
	out->pfc_en = fake_pfc_en;
	out->ndscp = 1; /* dcb app add dev ens1f0np0 dscp-prio 26:3 */
	out->dscp[0] = 26;
	out->dscp_prio[0] = 3;
	return 0;
}

static int fake_roce(const char *pci, bool *on)
{
	assert_string_equal(pci, "0000:3b:00.0");
	*on = true;
	return 0;
}

static void fake_sys(struct rp_doctor_sys *s)
{
	*s = (struct rp_doctor_sys){RP_TEST_DATA "/doctor/sysroot-mlx5", fake_drvinfo, fake_link_mbps, fake_phc_index,
				    fake_dcb, fake_roce};
}

/* DSCP 26 -> priority 3 (26 >> 3), a WRITE of 4 KiB messages at mtu 4096. */
static const char *PROFILE_FMT = "hosts:\n"
				 "  - {name: h1, pci: \"0000:3b:00.0\", ipv4: 192.0.2.1, speed: %s}\n"
				 "  - {name: h2, mac: \"02:00:00:00:00:02\", ipv4: 192.0.2.2, port: net_null0}\n"
				 "traffic:\n"
				 "  - {name: f, pattern: flow, src: h1, dst: h2, rate: 10G, messages: 10,\n"
				 "     message_size: 4KiB, mtu: 4096, dscp: 26}\n";

struct run {
	struct rp_profile *prof;
	struct rp_plan plan;
	struct rp_doctor d;
};

static void run_text(struct run *r, const char *text)
{
	char err[512];
	struct rp_doctor_sys sys;
	bool want[2] = {true, false}; /* h1 only: this process's */
	r->prof = rp_profile_load_string("doctor", text, NULL, err, sizeof(err));
	if (!r->prof)
		fail_msg("%s", err);
	assert_int_equal(rp_plan_build(r->prof, &r->plan, err, sizeof(err)), 0);
	fake_sys(&sys);
	assert_int_equal(rp_doctor_run(&sys, r->prof, &r->plan, want, &r->d, err, sizeof(err)), 0);
}

static void run_profile(struct run *r, const char *speed)
{
	char text[1024];
	snprintf(text, sizeof(text), PROFILE_FMT, speed);
	run_text(r, text);
}

static void run_free(struct run *r)
{
	rp_doctor_free(&r->d);
	rp_plan_free(&r->plan);
	rp_profile_free(r->prof);
}

static const struct rp_doctor_finding *expect(const struct run *r, const char *host, const char *check,
					      enum rp_doctor_status st)
{
	const struct rp_doctor_finding *f = rp_doctor_find(&r->d, host, check);
	if (!f)
		fail_msg("no finding %s/%s", host, check);
	if (f->status != st)
		fail_msg("%s/%s: %s, expected %s: %s", host, check, rp_doctor_status_name(f->status),
			 rp_doctor_status_name(st), f->what);
	return f;
}

static void test_speed_check(void **state)
{
	(void)state;
	char what[RP_DOCTOR_TEXT], fix[RP_DOCTOR_TEXT];
	uint64_t speed = 0;
	/* a NIC: 200G asked of a 100G link is refused, the link's speed named */
	assert_int_equal(rp_doctor_speed_check("h1", 200000000000ull, false, 100000000000ull, &speed, what, fix),
			 RP_DOCTOR_FAIL);
	assert_int_equal(speed, 100000000000ull);
	assert_non_null(strstr(what, "200G"));
	assert_non_null(strstr(fix, "speed: 100G"));
	/* 25G asked of it: warned, the link's 100G taken */
	assert_int_equal(rp_doctor_speed_check("h1", 25000000000ull, false, 100000000000ull, &speed, what, fix),
			 RP_DOCTOR_WARN);
	assert_int_equal(speed, 100000000000ull);
	assert_non_null(strstr(fix, "speed: 100G"));
	assert_int_equal(rp_doctor_speed_check("h1", 100000000000ull, false, 100000000000ull, &speed, what, fix),
			 RP_DOCTOR_PASS);
	assert_string_equal(fix, "");
	/* a veth says 10000 Mb/s: made up, the profile's 100G stays */
	assert_int_equal(rp_doctor_speed_check("h1", 100000000000ull, true, 10000000000ull, &speed, what, fix),
			 RP_DOCTOR_INFO);
	assert_int_equal(speed, 100000000000ull);
	assert_non_null(strstr(what, "made up"));
	/* a NIC with no speed (link down): warned, the profile's taken */
	assert_int_equal(rp_doctor_speed_check("h1", 25000000000ull, false, 0, &speed, NULL, NULL), RP_DOCTOR_WARN);
	assert_int_equal(speed, 25000000000ull);
}

/* Every fact of the fake NIC, and 200G refused. */
static void test_mlx5_200g(void **state)
{
	(void)state;
	struct run r;
	run_profile(&r, "200G");
	assert_int_equal(r.d.nports, 1);
	const struct rp_doctor_port *p = &r.d.ports[0];
	assert_string_equal(p->kind, "pci");
	assert_false(p->is_virtual);
	assert_string_equal(p->netdev, "ens1f0np0");
	assert_string_equal(p->pci, "0000:3b:00.0");
	assert_string_equal(p->pci_driver, "mlx5_core");
	assert_int_equal(p->numa_node, 1);
	assert_string_equal(p->drv.fw_version, "22.36.1010 (MT_0000000359)");
	assert_int_equal(p->ethtool_mbps, 100000);
	assert_int_equal(p->sysfs_mbps, 100000);
	assert_int_equal(p->mtu, 9000);
	/* 14 Ethernet + 20 IPv4 + 8 UDP + 12 BTH + 16 RETH + 4096 + 4 ICRC */
	assert_int_equal(p->max_frame, 4170);
	assert_int_equal(p->roce, 1);
	assert_string_equal(p->rdma_dev, "mlx5_0");
	assert_non_null(strstr(p->gid, "0000:0000:0000:0000:0000:ffff:c000:0201 (port 1, index 3)"));
	assert_int_equal(p->phc_index, 2);
	assert_int_equal(r.d.huge_pages, 1024);
	assert_true(r.d.huge_mounted);
	assert_int_equal(r.d.iommu_groups, 1);

	const struct rp_doctor_finding *f = expect(&r, "h1", "speed", RP_DOCTOR_FAIL);
	assert_non_null(strstr(f->fix, "speed: 100G"));
	assert_int_equal(p->speed_bps, 100000000000ull);
	expect(&r, "h1", "link", RP_DOCTOR_INFO); /* ethtool and sysfs agree */
	expect(&r, "h1", "binding", RP_DOCTOR_PASS); /* bifurcated */
	expect(&r, "h1", "mtu", RP_DOCTOR_PASS);      /* 9000 >= 4156 */
	expect(&r, "h1", "dcb", RP_DOCTOR_PASS);      /* PFC on 3, DSCP 26 -> 3 */
	expect(&r, "h1", "roce", RP_DOCTOR_INFO);
	expect(&r, "h1", "ptp", RP_DOCTOR_PASS);
	expect(&r, "", "hugepages", RP_DOCTOR_PASS);
	assert_null(rp_doctor_find(&r.d, "h2", "port")); /* not this process's */
	assert_int_equal(rp_doctor_worst(&r.d), RP_DOCTOR_FAIL);
	run_free(&r);
}

static void test_mlx5_25g(void **state)
{
	(void)state;
	struct run r;
	run_profile(&r, "25G");
	const struct rp_doctor_finding *f = expect(&r, "h1", "speed", RP_DOCTOR_WARN);
	assert_non_null(strstr(f->what, "25G"));
	assert_non_null(strstr(f->what, "100G"));
	assert_int_equal(r.d.ports[0].speed_bps, 100000000000ull);
	/* 10G offered on the 100G link the NIC has: 10% */
	f = expect(&r, "h1", "rate", RP_DOCTOR_PASS);
	assert_non_null(strstr(f->what, "(10% of 100G)"));
	assert_int_equal(rp_doctor_worst(&r.d), RP_DOCTOR_WARN);
	run_free(&r);
}

/* PFC off on the flows' priority 3: warned, with the dcb command. */
static void test_pfc_off(void **state)
{
	(void)state;
	struct run r;
	fake_pfc_en = 0x10; /* priority 4 only */
	run_profile(&r, "100G");
	fake_pfc_en = 0x08;
	const struct rp_doctor_finding *f = expect(&r, "h1", "dcb", RP_DOCTOR_WARN);
	assert_string_equal(f->fix, "dcb pfc set dev ens1f0np0 prio-pfc 3:on");
	expect(&r, "h1", "speed", RP_DOCTOR_PASS);
	run_free(&r);
}

/* issue 32. The fixture's mlx5_0 has a RoCE v2 GID on 192.0.2.1, h1's address: a shared port
 * would take the kernel's RoCE to it (WARN); on an address of its own it is INFO. 4 KiB frames
 * at 10G need no mlx5 devargs; 256 B WRITEs at 100G do: 14 Ethernet + 20 IPv4 + 8 UDP + 12 BTH
 * + 16 RETH + 256 + 4 ICRC = 330 B, 354 B with preamble and gap: 100e9 / (354 x 8) = 35.3 Mpps
 * on 1 queue, below mlx5's 8 for TX inlining and 12 for Multi-Packet RQ. */
static void test_share_mlx5(void **state)
{
	(void)state;
	struct run r;
	run_profile(&r, "100G");
	const struct rp_doctor_finding *f = expect(&r, "h1", "share", RP_DOCTOR_WARN);
	assert_non_null(strstr(f->what, "kernel's mlx5_0 has a RoCE v2 GID on 192.0.2.1"));
	assert_non_null(strstr(f->fix, "dev ens1f0np0"));
	f = expect(&r, "h1", "mlx5", RP_DOCTOR_INFO);
	assert_non_null(strstr(f->what, "frames up to 4170 B"));
	run_free(&r);

	run_text(&r, "hosts:\n"
		      "  - {name: h1, pci: \"0000:3b:00.0\", ipv4: 192.0.2.50, speed: 100G}\n"
		      "  - {name: h2, mac: \"02:00:00:00:00:02\", ipv4: 192.0.2.2, port: net_null0}\n"
		      "traffic:\n"
		      "  - {name: f, pattern: flow, src: h1, dst: h2, rate: 100G, messages: 10,\n"
		      "     message_size: 256B, mtu: 256, dscp: 26}\n");
	f = expect(&r, "h1", "share", RP_DOCTOR_INFO);
	assert_non_null(strstr(f->what, "RoCEv2 to 192.0.2.50"));
	f = expect(&r, "h1", "mlx5", RP_DOCTOR_WARN);
	assert_non_null(strstr(f->what, "frames up to 330 B at 35.3 Mpps"));
	assert_string_equal(f->fix, "port: \"0000:3b:00.0,txqs_min_inline=1,mprq_en=1,rxqs_min_mprq=1\" (DPDK mlx5 guide; "
				    "measure with and without: inlining costs CPU where PCIe is not the limit)");
	run_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_speed_check),
		cmocka_unit_test(test_mlx5_200g),
		cmocka_unit_test(test_mlx5_25g),
		cmocka_unit_test(test_pfc_off),
		cmocka_unit_test(test_share_mlx5),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
