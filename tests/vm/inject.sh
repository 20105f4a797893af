#!/usr/bin/env bash
# vm-inject: RDMA WRITEs built by lib/wire on the host are valid RoCEv2 for a real stack.
#
#   host: tests/vm/inject (lib/wire, no verbs)          vm0 10.9.0.1 52:54:00:9a:00:01
#   fake RC peer 10.9.0.200 02:00:00:00:00:c8 QP 0xc8    rxe0, tests/vm/rxe_target: MR + RC QP,
#        |                                               RTR/RTS toward the fake peer (static
#        +==== qemu UDP multicast group on 127.0.0.1 ====+ neighbour entry for 10.9.0.200)
#              (run.sh --mcast: one datagram = one Ethernet frame)
#
# Asserts (inject prints one "ok"/"FAIL" line per check):
#   - a host-built RC RDMA WRITE ONLY (RETH with the VM's VA/rkey, PSN the VM expects, pad 3,
#     ICRC from lib/wire) is ACKed by rxe: opcode 0x11, AETH ACK, MSN 1, our QPN and PSN,
#     valid ICRC, UDP source port = lib/wire's Linux flow-label port for the QP pair;
#   - the same WRITE with a corrupted ICRC gets no answer, and the next valid WRITE at the
#     same PSN is ACKed with MSN 2 (the bad packet consumed nothing);
#   - the VM's memory region afterwards holds exactly the two valid payloads;
#   - the VM's UDP stack delivered 3 datagrams to rxe's port-4791 socket (Udp InDatagrams +3)
#     but rxe counted only 2 (hw_counters rcvd_pkts +2: rxe_rcv counts a packet after its
#     ICRC check) and sent 2 (sent_pkts +2, the ACKs): so the corrupted packet reached rxe and
#     rxe dropped it. (Kernels before 6.1.x's backports also log "bad ICRC from 10.9.0.200";
#     Debian's 6.1.0-57 has no such message and no ICRC counter.) The QP is still RTS.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
run=$here/../../tools/rxe-vm/run.sh
inject=${1:?usage: inject.sh PATH/TO/inject PATH/TO/rxe_target}
target=${2:?usage: inject.sh PATH/TO/inject PATH/TO/rxe_target}
start=$(date +%s)
peer_ip=10.9.0.200 peer_mac=02:00:00:00:00:c8 peer_qpn=0xc8

work=$(mktemp -d /tmp/vm-inject.XXXXXX)
out=$work/out
keep=1
run_pid=
inject_pid=
cleanup() {
	[ -z "$inject_pid" ] || kill -TERM "$inject_pid" 2>/dev/null || true
	[ -z "$run_pid" ] || kill -TERM "$run_pid" 2>/dev/null || true
	[ -z "$run_pid" ] || wait "$run_pid" 2>/dev/null || true
	[ "$keep" = 1 ] || rm -rf "$work"
}
trap cleanup EXIT
fail() {
	echo "vm-inject: FAIL: $*; logs kept in $work" >&2
	exit 1
}

cat >"$work/target.sh" <<JOB
# rxe answers the fake peer without ARP; modify_qp(RTR) resolves its MAC from this entry.
# (iproute2's ip by its path: busybox sh would run its own ip applet, which has no neigh add.)
/usr/bin/ip neigh replace $peer_ip lladdr $peer_mac dev eth0 nud permanent || exit 1
snap() { for f in /sys/class/infiniband/\$RP_DEV/ports/1/hw_counters/*; do echo "\${f##*/} \$(cat \$f)"; done; }
snap >ctr-before.txt
grep '^Udp:' /proc/net/snmp >udp-before.txt
rxe_target --dev "\$RP_DEV" --gid-index "\$RP_GID_INDEX" --peer-ip $peer_ip --peer-qpn $peer_qpn \\
	--info target.txt --done inject.done --dump mr.bin --wait 150 || exit 1
snap >ctr-after.txt
grep '^Udp:' /proc/net/snmp >udp-after.txt
dmesg >dmesg.txt
JOB

# A group and port of our own: nobody else's VMs on this segment.
group=230.9.$((RANDOM % 250)).$((RANDOM % 250)):$((20000 + RANDOM % 40000))
echo "vm-inject: booting 1 VM on multicast group $group"
"$run" --vms 1 --mcast "$group" --job "$work/target.sh" --extra "$target" --timeout 240 --out "$out" \
	>"$work/run.log" 2>&1 &
run_pid=$!

# The injector gives up by itself when the VM's job ends (its rc appears); stop it here when
# run.sh ends without one (setup error, host timeout).
"$inject" --mcast "$group" --info "$out/vm0/target.txt" --done "$out/vm0/inject.done" --dump "$out/vm0/mr.bin" \
	--mac "$peer_mac" --ip "$peer_ip" --qpn "$peer_qpn" --timeout 200 --abort-if "$out/vm0/rc" &
inject_pid=$!
while kill -0 "$inject_pid" 2>/dev/null; do
	if ! kill -0 "$run_pid" 2>/dev/null && ! [ -e "$out/vm0/rc" ]; then
		echo "vm-inject: run.sh ended without the VM's rc; stopping the injector" >&2
		kill -TERM "$inject_pid" 2>/dev/null || true
		break
	fi
	sleep 0.5
done
irc=0
wait "$inject_pid" || irc=$?
inject_pid=
touch "$out/vm0/inject.done" 2>/dev/null || true # let the VM finish whatever happened

rrc=0
wait "$run_pid" || rrc=$?
run_pid=
sed 's/^/vm-inject: /' "$work/run.log"
[ "$irc" = 0 ] || fail "inject exited $irc"
if [ "$rrc" != 0 ]; then
	tail -n 20 "$out/vm0/stderr" "$out/vm0/stdout" >&2 || true
	fail "run.sh exited $rrc"
fi
sed 's/^/vm-inject: vm0: /' "$out/vm0/stdout"

# rxe's counters and log, read in the VM before and after.
/usr/bin/python3 - "$out/vm0" <<'PY' || fail "see above"
import sys
d = sys.argv[1]
def load(name):
    return {k: int(v) for k, v in (l.split() for l in open(f"{d}/{name}") if l.strip())}
before, after = load("ctr-before.txt"), load("ctr-after.txt")
delta = {k: after[k] - before.get(k, 0) for k in after}
print("vm-inject: rxe0 hw_counters delta:", " ".join(f"{k}={v}" for k, v in sorted(delta.items()) if v) or "(none)")
bad = []
if delta.get("rcvd_pkts") != 2:
    bad.append(f"rcvd_pkts went up by {delta.get('rcvd_pkts')}, not 2 (two valid writes; the corrupted one is dropped uncounted)")
if delta.get("sent_pkts") != 2:
    bad.append(f"sent_pkts went up by {delta.get('sent_pkts')}, not 2 (two ACKs)")
def udp(name):
    names, values = (l.split()[1:] for l in open(f"{d}/{name}"))
    return dict(zip(names, map(int, values)))
ub, ua = udp("udp-before.txt"), udp("udp-after.txt")
udelta = {k: ua[k] - ub[k] for k in ua}
print("vm-inject: VM /proc/net/snmp Udp delta:", " ".join(f"{k}={v}" for k, v in udelta.items() if v) or "(none)")
if udelta["InDatagrams"] != 3:
    bad.append(f"Udp InDatagrams went up by {udelta['InDatagrams']}, not 3 (three writes reaching rxe's socket)")
icrc = [l.rstrip() for l in open(f"{d}/dmesg.txt") if "ICRC" in l]
print("vm-inject: VM kernel log:", icrc[0] if icrc else "(no ICRC message; this rxe has none)")
if "QP state RTS" not in open(f"{d}/stdout").read():
    bad.append("the VM's QP is not RTS after the injection")
for b in bad:
    print("vm-inject: FAIL:", b, file=sys.stderr)
sys.exit(1 if bad else 0)
PY
sed 's/^/vm-inject: /' "$out/summary.txt"
echo "vm-inject: PASS, total $(($(date +%s) - start)) s"
keep=0
