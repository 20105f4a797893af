#!/usr/bin/env bash
# vm-ep-cm: `roceprobe ep --cm` (QPs connected by rdma_cm) between two Soft-RoCE VMs.
#
#   vm0 10.9.0.1 rxe0 ---- qemu socket netdev (virtual Ethernet) ---- vm1 10.9.0.2 rxe0
#   roceprobe ep --server (x3)                                    roceprobe ep --client:
#                                                                   write latency, TCP exchange
#                                                                   write latency, --cm
#                                                                   write bandwidth, --cm, 2 QPs
#
# With --cm the client resolves 10.9.0.1 through the kernel (rdma_resolve_addr/route), and
# each QP is connected by a REQ/REP/RTU exchange on QP1 carrying the buffer keys as private
# data; the session's control lines stay on TCP.
# Asserts: every run completes (200 latency samples; 2 x 50 bandwidth messages); client and
# server result.json say "connect": "rdma_cm" for the --cm runs and "tcp" for the other; the
# --cm latency median is within a factor 2 of the TCP-exchange one in the same VMs (same QPs,
# same path: only the way they were connected differs; TCG jitter is large, hence the factor).
set -euo pipefail

roceprobe=${1:?usage: ep_cm.sh PATH/TO/roceprobe}
start=$(date +%s)
iters=200

work=$(mktemp -d /tmp/vm-ep-cm.XXXXXX)
keep=1
trap '[ "$keep" = 1 ] || rm -rf "$work"' EXIT
fail() {
	echo "vm-ep-cm: FAIL: $*; logs kept in $work/out" >&2
	exit 1
}
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

cat >"$work/server.sh" <<'JOB'
for r in lat-tcp lat-cm bw-cm; do
	roceprobe ep --server --bind 10.9.0.1 --dev "$RP_DEV" -o $r >$r.txt 2>&1 || { cat $r.txt; exit 1; }
done
echo server done
JOB
cat >"$work/client.sh" <<JOB
# ep clients retry their TCP connection by themselves (--connect-timeout).
roceprobe ep --client 10.9.0.1 --dev "\$RP_DEV" -n $iters -o lat-tcp >lat-tcp.txt 2>&1 || { cat lat-tcp.txt; exit 1; }
roceprobe ep --client 10.9.0.1 --cm --dev "\$RP_DEV" -n $iters -o lat-cm >lat-cm.txt 2>&1 || { cat lat-cm.txt; exit 1; }
roceprobe ep --client 10.9.0.1 --cm --dev "\$RP_DEV" --mode bw --size 16KiB -n 50 --qps 2 -o bw-cm >bw-cm.txt 2>&1 ||
	{ cat bw-cm.txt; exit 1; }
echo client done
JOB

vm_run_pair --extra "$roceprobe" --timeout 300
grep -h "connected by rdma_cm" "$work/out/vm1/lat-cm.txt" | sed 's/^/vm-ep-cm: /'

/usr/bin/python3 - "$work/out" "$iters" <<'PY' || fail "see above"
import json, sys
out, iters = sys.argv[1], int(sys.argv[2])
def load(vm, name):
    with open(f"{out}/{vm}/{name}/result.json") as f:
        return json.load(f)
bad = []
for name, want in (("lat-tcp", "tcp"), ("lat-cm", "rdma_cm"), ("bw-cm", "rdma_cm")):
    for vm in ("vm0", "vm1"):
        got = load(vm, name)["config"].get("connect")
        if got != want:
            bad.append(f"{vm} {name}: config.connect is {got!r}, not {want!r}")
tcp = load("vm1", "lat-tcp")["results"][0]["latency_ns"]
cm = load("vm1", "lat-cm")["results"][0]["latency_ns"]
for name, r in (("tcp", tcp), ("cm", cm)):
    if r["count"] != iters:
        bad.append(f"latency ({name}) has {r['count']} samples, not {iters}")
ratio = cm["p50"] / tcp["p50"]
print(f"vm-ep-cm: write latency 2 B median: --cm {cm['p50']/1e3:.1f} usec, TCP exchange {tcp['p50']/1e3:.1f} usec, ratio {ratio:.2f}")
if not 0.5 <= ratio <= 2.0:
    bad.append(f"--cm median is {ratio:.2f} x the TCP-exchange one")
bw = load("vm1", "bw-cm")
r = bw["results"][0]
print(f"vm-ep-cm: write bandwidth 16 KiB x 2 QPs over rdma_cm: {r['bw_gbps']*1e3:.1f} Mbit/s, {r['messages']} messages")
if r["messages"] != 100 or r["bw_gbps"] <= 0 or bw["config"]["qps"] != 2:
    bad.append(f"bandwidth: {r['messages']} messages, {r['bw_gbps']} Gbit/s, {bw['config']['qps']} QPs")
for b in bad:
    print("vm-ep-cm: FAIL:", b, file=sys.stderr)
sys.exit(1 if bad else 0)
PY
sed 's/^/vm-ep-cm: /' "$work/out/summary.txt"
echo "vm-ep-cm: PASS, total $(($(date +%s) - start)) s"
keep=0
