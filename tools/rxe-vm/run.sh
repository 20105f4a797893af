#!/usr/bin/env bash
# Boots N Soft-RoCE (rdma_rxe) VMs on one virtual Ethernet segment, runs one job script in
# each, waits for all of them, and collects what they wrote. See tools/rxe-vm/README.md.
#
# usage: run.sh [--vms N] [--job FILE] [--job0 FILE] [--job1 FILE] ... [--out DIR]
#               [--timeout SEC] [--extra FILE]... [--share DIR] [--mem MB] [--shell]
#               [--mcast GROUP:PORT] [--mpi]
#
#   --vms N        number of VMs (default 2); VM i is vmI, 10.9.0.(i+1)/24,
#                  MAC 52:54:00:9a:00:(i+1), rxe device rxe0 on eth0
#   --job FILE     job script for every VM without its own --jobI
#   --jobI FILE    job script for VM I (busybox sh; runs in /rp = OUT/vmI on the host)
#   --out DIR      where results go (default: a new directory under /tmp); OUT/vmI/ holds
#                  job.sh, stdout, stderr, rc, console.log, qemu.log and whatever the job wrote
#   --timeout SEC  wall-clock limit for everything, boot included (default 300); the jobs
#                  themselves get SEC-30 inside the VM, so they are killed and rc is written
#                  before the host gives up
#   --extra FILE   add a program or *.so with its ldd libraries (to /usr/local/bin) (repeatable)
#   --share DIR    mounted read-only at /share in every VM
#   --mem MB       memory per VM (default 768)
#   --shell        with --vms 1: console on this terminal, shell after the job (debugging)
#   --mcast G:P    wire every VM (any N, 2 included) to the UDP multicast group G:P on
#                  127.0.0.1: each datagram on the group is one Ethernet frame, so a host
#                  process that joins it sees the VMs' frames and can inject its own
#   --mpi          add Open MPI and dropbear (build-initramfs.sh --mpi): every VM runs an ssh
#                  server on port 22 and trusts the image's key, so a job in one VM can start
#                  ranks in all of them with mpirun --mca plm_rsh_agent "$RP_SSH"
#
# Wiring: 2 VMs are joined by a qemu socket netdev (vm0 listens on a free 127.0.0.1 TCP port,
# vm1 connects). 1 VM, or 3 or more, share a qemu UDP multicast netdev on 127.0.0.1
# (a hub: every frame reaches every VM). No root, taps or bridges needed. OUT/net says
# which: "mcast GROUP:PORT" or "tcp 127.0.0.1:PORT".
#
# Exit: 0 every job exited 0; 1 a job failed or a VM stopped without writing rc;
# 124 the timeout hit; 2 bad usage or setup. The last line printed is a summary.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
nvms=2
timeout_s=300
out=
mem=768
shell=0
share=
extras=()
mcast=
mpi=0
declare -A jobs=()
default_job=

die() {
	echo "rxe-vm: $*" >&2
	exit 2
}

while [ $# -gt 0 ]; do
	case "$1" in
	--vms | --timeout | --out | --mem | --job | --share | --extra | --mcast | --job[0-9]*)
		[ $# -ge 2 ] || die "$1 needs a value"
		case "$1" in
		--vms) nvms=$2 ;;
		--timeout) timeout_s=$2 ;;
		--out) out=$2 ;;
		--mem) mem=$2 ;;
		--share) share=$2 ;;
		--extra) extras+=(--extra "$2") ;;
		--mcast) mcast=$2 ;;
		--job) default_job=$2 ;;
		*)
			idx=${1#--job}
			[[ "$idx" =~ ^[0-9]+$ ]] || die "unknown argument '$1'"
			jobs[$((10#$idx))]=$2
			;;
		esac
		shift 2
		;;
	--shell)
		shell=1
		shift
		;;
	--mpi)
		mpi=1
		shift
		;;
	-h | --help)
		sed -n '2,/^[^#]/p' "$0" | sed -n 's/^# \{0,1\}//p'
		exit 0
		;;
	*) die "unknown argument '$1' (see --help)" ;;
	esac
done

{ [[ "$nvms" =~ ^[0-9]+$ ]] && [ "$nvms" -ge 1 ] && [ "$nvms" -le 200 ]; } || die "--vms must be 1..200"
{ [[ "$timeout_s" =~ ^[0-9]+$ ]] && [ "$timeout_s" -ge 30 ]; } || die "--timeout must be >= 30 seconds"
{ [[ "$mem" =~ ^[0-9]+$ ]] && [ "$mem" -ge 256 ]; } || die "--mem must be >= 256 (MB)"
[ "$shell" = 0 ] || [ "$nvms" = 1 ] || die "--shell needs --vms 1"
for i in "${!jobs[@]}"; do
	[ "$i" -lt "$nvms" ] || die "--job$i given but only $nvms VMs"
done
for ((i = 0; i < nvms; i++)); do
	j=${jobs[$i]:-$default_job}
	if [ -z "$j" ]; then
		[ "$shell" = 1 ] || die "no job for vm$i (give --job$i FILE or --job FILE)"
	else
		[ -f "$j" ] || die "job file $j not found"
	fi
done
[ -z "$share" ] || [ -d "$share" ] || die "--share $share: not a directory"
if [ -n "$mcast" ]; then
	[[ "$mcast" =~ ^2(2[4-9]|3[0-9])\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}:[0-9]{1,5}$ ]] &&
		[ "${mcast##*:}" -ge 1024 ] && [ "${mcast##*:}" -le 65535 ] ||
		die "--mcast wants GROUP:PORT with a group in 224.0.0.0/4 and a port 1024..65535 (e.g. 230.9.1.2:40000)"
fi
command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 not found; run tools/bootstrap.sh as root"

if [ -z "$out" ]; then
	out=$(mktemp -d /tmp/rxe-vm.XXXXXX)
fi
mkdir -p "$out"
out=$(realpath "$out")

# Kernel and initramfs (cached; extras make a per-run initramfs in OUT/.boot).
boot_args=(--quiet)
[ "$mpi" = 0 ] || boot_args+=(--mpi)
[ ${#extras[@]} -eq 0 ] && [ "$mpi" = 0 ] || boot_args+=(--out "$out/.boot" "${extras[@]}")
boot=$("$here/build-initramfs.sh" "${boot_args[@]}") || die "build-initramfs.sh failed"
kernel=$(sed -n 's/^kernel=//p' <<<"$boot")
initrd=$(sed -n 's/^initrd=//p' <<<"$boot")

pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do
		kill -TERM "$p" 2>/dev/null || true
	done
	for p in "${pids[@]}"; do
		for _ in 1 2 3 4 5 6 7 8 9 10; do
			kill -0 "$p" 2>/dev/null || break
			sleep 0.2
		done
		kill -KILL "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
	pids=()
}
trap cleanup EXIT
trap 'echo "rxe-vm: interrupted" >&2; cleanup; exit 130' INT
trap 'echo "rxe-vm: terminated" >&2; cleanup; exit 143' TERM

# Is 127.0.0.1:$1 (TCP) listened on?
tcp_listening() {
	local hex
	hex=$(printf ':%04X' "$1")
	awk -v p="$hex" '$2 ~ p"$" && $4 == "0A" { f = 1 } END { exit !f }' /proc/net/tcp
}
free_port() {
	local p
	while :; do
		p=$((20000 + (RANDOM * 32768 + RANDOM) % 40000))
		tcp_listening "$p" || {
			echo "$p"
			return
		}
	done
}

peers=
for ((i = 0; i < nvms; i++)); do
	peers+="${peers:+,}10.9.0.$((i + 1))"
done
# RXE_VM_JOB_TIMEOUT overrides the in-VM job limit (tests of the host-side timeout).
job_timeout=${RXE_VM_JOB_TIMEOUT:-$((timeout_s - 30 > 10 ? timeout_s - 30 : 10))}
start=$(date +%s.%N)
deadline=$(($(date +%s) + timeout_s))

# start_vm I NETDEV: boots vmI in the background, its pid appended to pids.
start_vm() {
	local i=$1 netdev=$2 d=$out/vm$1 mac append serial
	mac=$(printf '52:54:00:9a:%02x:%02x' $(((i + 1) / 256)) $(((i + 1) % 256)))
	append="console=ttyS0 quiet panic=-1 no_timer_check rp.name=vm$i rp.ip=10.9.0.$((i + 1))/24 rp.peers=$peers rp.timeout=$job_timeout"
	serial=(-serial "file:$d/console.log")
	if [ "$shell" = 1 ]; then
		append+=" rp.shell=1"
		serial=(-serial mon:stdio)
	fi
	local args=(
		-name "rxe-vm$i" -accel tcg -cpu max -m "$mem" -smp 1
		-nodefaults -no-user-config -display none -no-reboot
		-kernel "$kernel" -initrd "$initrd" -append "$append"
		"${serial[@]}"
		-device "virtio-net-pci,netdev=n0,mac=$mac,romfile="
		-virtfs "local,path=$d,mount_tag=rp,security_model=none,id=rp"
		-netdev "$netdev"
	)
	[ -z "$share" ] || args+=(-virtfs "local,path=$(realpath "$share"),mount_tag=rpshare,security_model=none,readonly=on,id=rpshare")
	echo "qemu-system-x86_64 ${args[*]}" >"$d/qemu.cmd"
	if [ "$shell" = 1 ]; then
		qemu-system-x86_64 "${args[@]}" 0<&0 2>"$d/qemu.log" &
	else
		qemu-system-x86_64 "${args[@]}" </dev/null >"$d/qemu.log" 2>&1 &
	fi
	pids+=($!)
}

for ((i = 0; i < nvms; i++)); do
	d=$out/vm$i
	rm -rf "$d"
	mkdir -p "$d"
	j=${jobs[$i]:-$default_job}
	[ -z "$j" ] || cp "$j" "$d/job.sh"
done

if [ -n "$mcast" ]; then
	# The caller's group (it joins it to see and inject frames).
	for ((i = 0; i < nvms; i++)); do
		start_vm "$i" "socket,id=n0,mcast=$mcast,localaddr=127.0.0.1"
	done
	echo "mcast $mcast" >"$out/net"
elif [ "$nvms" = 2 ]; then
	# vm0 listens; vm1 connects once the port is open. Retry on a port race.
	for attempt in 1 2 3 4 5; do
		port=$(free_port)
		start_vm 0 "socket,id=n0,listen=127.0.0.1:$port"
		ok=0
		for _ in $(seq 100); do
			if tcp_listening "$port"; then
				ok=1
				break
			fi
			kill -0 "${pids[0]}" 2>/dev/null || break
			sleep 0.1
		done
		[ "$ok" = 1 ] && break
		cleanup
		[ "$attempt" -lt 5 ] || die "vm0 did not listen on a TCP port; see $out/vm0/qemu.log"
	done
	start_vm 1 "socket,id=n0,connect=127.0.0.1:$port"
	echo "tcp 127.0.0.1:$port" >"$out/net"
else
	# One VM, or a hub of 3 or more: UDP multicast on loopback.
	port=$(free_port)
	for ((i = 0; i < nvms; i++)); do
		start_vm "$i" "socket,id=n0,mcast=230.9.$((port % 250)).$((port / 250 % 250)):$port,localaddr=127.0.0.1"
	done
	echo "mcast 230.9.$((port % 250)).$((port / 250 % 250)):$port" >"$out/net"
fi
echo "rxe-vm: $nvms VM(s) booting, results in $out" >&2

# Wait for every qemu to exit, or the deadline.
declare -A boot_s=() done_s=()
timed_out=0
while :; do
	alive=0
	now=$(date +%s.%N)
	for ((i = 0; i < nvms; i++)); do
		log=$out/vm$i/console.log
		if [ -z "${boot_s[$i]:-}" ] && grep -qs '^RP-MARK ready' "$log"; then
			boot_s[$i]=$(awk -v a="$start" -v b="$now" 'BEGIN { printf "%.1f", b - a }')
		fi
		if kill -0 "${pids[$i]}" 2>/dev/null; then
			alive=$((alive + 1))
		elif [ -z "${done_s[$i]:-}" ]; then
			done_s[$i]=$(awk -v a="$start" -v b="$now" 'BEGIN { printf "%.1f", b - a }')
		fi
	done
	[ "$alive" -gt 0 ] || break
	if [ "$(date +%s)" -ge "$deadline" ]; then
		timed_out=1
		echo "rxe-vm: timeout after ${timeout_s}s, killing $alive VM(s)" >&2
		break
	fi
	sleep 0.5
done
cleanup

rc=0
summary=$out/summary.txt
: >"$summary"
for ((i = 0; i < nvms; i++)); do
	d=$out/vm$i
	job_rc=$(cat "$d/rc" 2>/dev/null || echo none)
	guest_boot=$(sed -n 's/^RP-MARK ready .* t=\([0-9.]*\).*/\1/p' "$d/console.log" 2>/dev/null | head -n1)
	line="vm$i ip=10.9.0.$((i + 1)) rc=$job_rc boot_s=${boot_s[$i]:-none} guest_boot_s=${guest_boot:-none} end_s=${done_s[$i]:-killed}"
	echo "$line" >>"$summary"
	echo "rxe-vm: $line" >&2
	if [ "$job_rc" != 0 ]; then
		[ "$rc" != 0 ] || rc=1
		if [ "$job_rc" = none ]; then
			echo "rxe-vm: vm$i wrote no rc; last console lines ($d/console.log):" >&2
			tail -n 15 "$d/console.log" >&2 2>/dev/null || true
		else
			echo "rxe-vm: vm$i job exited $job_rc; last stderr lines ($d/stderr):" >&2
			tail -n 10 "$d/stderr" >&2 2>/dev/null || true
		fi
	fi
done
[ "$timed_out" = 0 ] || rc=124
total=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
echo "rxe-vm: $nvms VM(s), ${total}s, exit $rc, results in $out" >&2
exit "$rc"
