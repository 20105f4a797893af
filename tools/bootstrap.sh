#!/usr/bin/env bash
# Installs every build and test dependency of roceprobe from Debian 12's archive.
# Idempotent: does nothing (and needs no network) when everything is there.
set -euo pipefail

packages=(
	# build
	meson ninja-build pkg-config gcc clang libclang-rt-14-dev
	libdpdk-dev libibverbs-dev librdmacm-dev libpcap-dev libyaml-dev libjansson-dev libsodium-dev
	# DPDK linked statically: libraries its pkg-config --static names that libdpdk-dev does not pull in
	libsystemd-dev libdbus-1-dev
	# tests and cross-checks
	libcmocka-dev tshark python3 python3-scapy dpdk dpdk-dev iproute2 procps valgrind
	# the certify report laid out at 1280 px in a browser (tests/interop/report_check.py)
	chromium
	# roceprobe doctor's facts and roceprobe counters' ioctl reader checked against the kernel's
	# own tools (tests/lab/doctor_check.py, tests/interop/counters_check.py)
	ethtool
	# many machines: the MPI control plane (mpirun)
	openmpi-bin libopenmpi-dev
	# srun on a single-node Slurm (tests/cluster/slurm_check.py)
	slurm-wlm munge
	# the Soft-RoCE VM lab (tools/rxe-vm)
	qemu-system-x86 busybox-static cpio kmod
	# plots
	python3-matplotlib
)

missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "bootstrap: missing packages: ${missing[*]}; run tools/bootstrap.sh as root" >&2
	exit 2
fi
echo "bootstrap: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends "${missing[@]}"
