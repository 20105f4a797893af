#!/usr/bin/env bash
# Installs roceprobe's dependencies from Debian 12's archive.
#   tools/bootstrap.sh          what building and the quickstart need (tools/quickstart.sh)
#   tools/bootstrap.sh --tests  that, and what the test suites need (tools/test.sh)
# Idempotent: does nothing (and needs no network) when everything is there.
set -euo pipefail

packages=(
	# build (tools/build.sh: meson, with the tests' programs, so cmocka too)
	meson ninja-build pkg-config gcc
	libdpdk-dev libibverbs-dev librdmacm-dev libpcap-dev libyaml-dev libjansson-dev libsodium-dev
	libcmocka-dev
	# roceprobe counters sonic:// (a SONiC switch's Redis) and snmp:// (net-snmp's library)
	libhiredis-dev libsnmp-dev
	# --metrics: the Prometheus listener (lib/metrics)
	libmicrohttpd-dev
	# DPDK linked statically: libraries its pkg-config --static names that libdpdk-dev does not pull in
	libsystemd-dev libdbus-1-dev
	# --share on net_af_xdp: roceprobe's XDP program, compiled for the BPF target at build time
	# (lib/dp/xdp/), its maps filled through libbpf (lib/dp/xdp.c)
	clang libbpf-dev
	# plots (tools/plot)
	python3 python3-matplotlib
)
test_packages=(
	# libFuzzer harnesses (build-fuzz/; clang itself is a build package)
	libclang-rt-14-dev
	# cross-checks and the lab's plumbing (ping: tests/interop/xdp_share_check.py)
	tshark python3-scapy dpdk dpdk-dev iproute2 procps valgrind iputils-ping
	# lost SYNs to rank 0's watch port (tests/cluster/run_check.py lossyjoin)
	nftables
	# the certify report laid out at 1280 px in a browser (tests/interop/report_check.py)
	chromium
	# roceprobe doctor's facts and roceprobe counters' ioctl reader checked against the kernel's
	# own tools (tests/lab/doctor_check.py, tests/interop/counters_check.py)
	ethtool
	# roceprobe counters sonic:// against a real Redis in SONiC's layout, snmp:// against a real
	# snmpd with a pass_persist script (tests/interop/sonic_check.py, snmp_check.py)
	redis-server snmpd
	# snmpwalk, the truth snmp_check.py reads the agent with (snmpd does not pull it in without recommends)
	snmp
	# --metrics scraped by a real Prometheus, promtool check metrics (tests/interop/metrics_check.py)
	prometheus
	# many machines: the MPI control plane (mpirun); tools/test.sh builds with -Dmpi=enabled
	openmpi-bin libopenmpi-dev
	# srun on a single-node Slurm (tests/cluster/slurm_check.py)
	slurm-wlm munge
	# the Soft-RoCE VM lab (tools/rxe-vm)
	qemu-system-x86 busybox-static cpio kmod
	# installed like a tool (tests/pkg): the .deb, a Debian 12 chroot, man pages, completion
	dpkg-dev debhelper debootstrap man-db groff-base bash-completion
)

case "${1:-}" in
--tests) packages+=("${test_packages[@]}") ;;
'') ;;
*)
	echo "bootstrap: unknown argument '$1' (tools/bootstrap.sh [--tests])" >&2
	exit 2
	;;
esac

missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "bootstrap: missing packages: ${missing[*]}; run tools/bootstrap.sh ${1:-}${1:+ }as root" >&2
	exit 2
fi
echo "bootstrap: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends "${missing[@]}"
