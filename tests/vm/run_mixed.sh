#!/usr/bin/env bash
# vm-run-mixed: one `roceprobe run` job of both engines across three Soft-RoCE VMs, started
# by mpirun inside the VM lab (run.sh --mpi): a verbs all-to-all as the workload while a DPDK
# host injects a burst at the workload's receiver h0's VM in a known window; then the same
# job with one verbs rank killed (kill -9) mid-run.
#
#   vm0 10.9.0.1  rank 0 h0 (verbs, rxe0)    rank 1 dr (dpdk, net_af_packet on eth0, 10.9.0.101,
#                                                        eth0's MAC: the burst lands in vm0's kernel)
#   vm1 10.9.0.2  rank 2 h1 (verbs, rxe0)
#   vm2 10.9.0.3  rank 3 h2 (verbs, rxe0)    rank 4 ds (dpdk, net_af_packet on eth0, 10.9.0.103)
#   all on one qemu multicast hub (one Ethernet segment): RoCE v2 of rxe, DPDK frames, MPI (TCP)
#   workload: all-to-all h0,h1,h2 (6 flows of RC QPs, send 1 KiB at 500 kbit/s) for 8 s
#   aggression: ds -> dr, 1 KiB RoCEv2 WRITEs (one frame each) at 8 Mbit/s in [3 s, 5 s) after T0
#   (the DPDK ranks sleep 200 us when a poll moved nothing, --idle-us: they share 1 vCPU with rxe)
#
# Asserts, on rank 0's merged result.json (the known answers in brackets):
#   - kind "mixed"; every verbs flow: tx == rx, lost 0 [RC is reliable: every message delivered];
#   - the DPDK flow: rx == the frames vm0's kernel counted in /proc/net/snmp Ip InAddrErrors
#     around the run [vm0 does not forward: a frame to 10.9.0.101 (not its address) reaching its
#     IP layer is counted there and dropped; nothing else on the segment goes to that address],
#     and tx >= rx (the hub may drop);
#   - aggression.windows == [{burst, 3 s, 5 s + at most one frame}] [the profile's start and
#     duration; its last frame takes (1098 + 24) B x 8 / 8 Mbit/s = 1.122 ms];
#   - the latency table has a "during" and an "outside" row, each with samples; the during row's
#     count, p50, p99 and max recomputed in this test from the per-bin histograms of result.json
#     (bins whose window is "during": [[upper_ns, count], ...] pooled, the ceil(n p)-th sample's
#     bucket bound, clamped to [min, max]) are the row's [the merge is bucket by bucket];
#   - during + outside + edge samples == the verbs flows' latency samples [two paths of the
#     accountant: per-bin histograms, per-flow histograms];
#   - every verbs host's pause is "not available" (rxe on virtio_net has no pause counters),
#     never a 0; the DPDK hosts' pause is the PFC/PAUSE frames their ports received [0: nobody
#     sends any];
#   - kill -9 of rank 2 (h1) 3 s into the traffic of a 60 s job (by vm1's own job): rank 0 and
#     the other survivors exit 3 by themselves (each rank's wrapper writes its exit code; it
#     would die at mpirun's SIGTERM, 10 s after the death, had the rank not ended by then),
#     result.json has incomplete == ["h1"], h1's four flows marked, the flows between living
#     verbs hosts still tx == rx; rank 0's traffic ended within 5 s of its seeing the death
#     (elapsed_ns - cluster.lost_at_ns).
set -euo pipefail

roceprobe=${1:?usage: run_mixed.sh PATH/TO/roceprobe}
start=$(date +%s)
work=$(mktemp -d /tmp/vm-run-mixed.XXXXXX)
keep=1
trap '[ "$keep" = 1 ] || rm -rf "$work"' EXIT
fail() {
	echo "vm-run-mixed: FAIL: $*; logs kept in $work/out" >&2
	exit 1
}
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

# A roceprobe linked with shared DPDK (meson -Ddpdk_link=shared, or the static link's
# fallback) finds its mempool and af_packet drivers as plugins (dlopened from the PMD
# directory on the host): they go into the image next to the libraries ldd lists, and EAL
# loads them by -d. Linked statically (the default) it holds every driver itself.
pmds=/usr/lib/x86_64-linux-gnu/dpdk/pmds-23.0
plugins=()
mkdir -p "$work/share"
eal="-m 256"
if ldd "$roceprobe" | grep -q 'librte_eal\.so'; then
	for so in librte_mempool_ring.so.23 librte_net_af_packet.so.23; do
		[ -e "$pmds/$so" ] || fail "no $pmds/$so (Debian's dpdk package)"
		plugins+=(--extra "$(readlink -f "$pmds/$so")") # the image keeps the file's own name
		eal+=" -d /usr/lib/x86_64-linux-gnu/$(basename "$(readlink -f "$pmds/$so")")"
	done
fi
echo "$eal" >"$work/share/eal.txt"
cat >"$work/share/mixed.yaml" <<'EOF'
name: vm-mixed
defaults: {speed: 1G, mtu: 1024, dscp: 26, ecn: ect0}
hosts:
  - {name: h0, engine: verbs, device: rxe0, ipv4: 10.9.0.1, node: vm0}
  - {name: h1, engine: verbs, device: rxe0, ipv4: 10.9.0.2, node: vm1}
  - {name: h2, engine: verbs, device: rxe0, ipv4: 10.9.0.3, node: vm2}
  - {name: dr, port: "net_af_packet0,iface=eth0", mac: auto, ipv4: 10.9.0.101, node: vm0}
  - {name: ds, port: "net_af_packet0,iface=eth0", mac: auto, ipv4: 10.9.0.103, node: vm2}
traffic:
  - {name: a2a, pattern: all-to-all, hosts: [h0, h1, h2], opcode: send, message_size: 1KiB, rate: 500kbit/s,
     duration: 8s}
  - {name: burst, pattern: flow, src: ds, dst: dr, opcode: write, message_size: 1KiB, rate: 8Mbit/s,
     start: 3s, duration: 2s}
EOF
# The kill case: the same hosts for 60 s.
sed -e 's/duration: 8s/duration: 60s/' -e 's/start: 3s, duration: 2s/start: 2s, duration: 50s/' \
	-e 's/rate: 8Mbit/rate: 2Mbit/' -e 's/name: vm-mixed/name: vm-mixed-kill/' \
	"$work/share/mixed.yaml" >"$work/share/kill.yaml"
# Each rank's own exit code, in its VM's /rp (mpirun reports only one).
cat >"$work/share/rank.sh" <<'EOF'
tag=$1
shift
/usr/local/bin/roceprobe "$@"
rc=$?
echo $rc >/rp/$tag.rc.$OMPI_COMM_WORLD_RANK
exit $rc
EOF

cat >"$work/job0.sh" <<'EOF'
peers="10.9.0.1 10.9.0.2 10.9.0.3"
done_all() { for p in 10.9.0.2 10.9.0.3; do $RP_SSH root@$p touch /tmp/rp-done 2>/dev/null; done; }
for p in $peers; do rp-retry 60 $RP_SSH root@$p true 2>/dev/null || { echo "no ssh to $p"; done_all; exit 1; }; done
# EAL loads a plugin only from a path no one else may write to (the initramfs root is 0777).
prep='chmod go-w / /usr /usr/lib /usr/lib/x86_64-linux-gnu && mkdir -p /var/run'
for p in $peers; do $RP_SSH root@$p "$prep" 2>/dev/null || { echo "cannot prepare $p for DPDK"; done_all; exit 1; }; done
up() { cut -d' ' -f1 /proc/uptime; }
eal=$(cat /share/eal.txt)
mpi() { # mpi TAG PROFILE [ARGS]: 5 ranks, h0 and dr on vm0, h1 on vm1, h2 and ds on vm2
	tag=$1 prof=$2
	shift 2
	mpirun --allow-run-as-root -np 5 --host 10.9.0.1:2,10.9.0.2:1,10.9.0.3:2 --mca plm_rsh_agent "$RP_SSH" \
		--mca btl self,tcp --mca btl_tcp_if_include eth0 --mca oob_tcp_if_include eth0 \
		--mca mpi_yield_when_idle 1 --mca odls_base_sigkill_timeout 10 -x IBV_DRIVERS=rxe \
		/bin/sh /share/rank.sh $tag run /share/$prof -o /rp/$tag --eal "$eal" --idle-us 200 "$@" >/rp/$tag.txt 2>&1
}
cp /proc/net/snmp snmp-before.txt
t0=$(up)
mpi mixed mixed.yaml || { cat /rp/mixed.txt; done_all; exit 1; }
t1=$(up)
cp /proc/net/snmp snmp-after.txt
# kill -9 of h1's rank once the traffic runs: vm1's own job does it (an ssh takes seconds
# under TCG), 3 s after its rxe starts receiving.
$RP_SSH root@10.9.0.2 touch /tmp/rp-kill-armed 2>/dev/null || { echo "cannot arm the kill on vm1"; done_all; exit 1; }
t2=$(up)
mpi kill kill.yaml
echo $? >kill.mpirc
t3=$(up)
echo "mixed run $t0..$t1, kill run $t2..$t3" >times.txt
done_all
echo job0 done
EOF
cat >"$work/jobw.sh" <<'EOF'
# Serves as an MPI node (dropbear runs already) until vm0's job is done; once vm0 arms it
# (vm1 only), kills this VM's roceprobe 3 s after rxe0 starts receiving.
up() { cut -d' ' -f1 /proc/uptime; }
ctr=/sys/class/infiniband/rxe0/ports/1/hw_counters/rcvd_pkts
while [ ! -e /tmp/rp-done ]; do
	if [ -e /tmp/rp-kill-armed ]; then
		rm /tmp/rp-kill-armed
		base=$(cat $ctr)
		i=0
		while [ "$(cat $ctr)" = "$base" ] && [ $i -lt 1200 ]; do sleep 0.1; i=$((i + 1)); done
		sleep 3
		up >/rp/kill.at
		kill -9 $(pidof roceprobe)
		echo "killed $(pidof roceprobe)" >>/rp/kill.at
	fi
	sleep 0.2
done
echo done
EOF

rc=0
"$vm_run" --vms 3 --mpi --mem 1024 --job0 "$work/job0.sh" --job "$work/jobw.sh" --share "$work/share" \
	--extra "$roceprobe" "${plugins[@]}" \
	--timeout 300 --out "$work/out" || rc=$?
if [ "$rc" != 0 ]; then
	vm_dump_logs "$work/out"
	fail "run.sh exited $rc"
fi

/usr/bin/python3 - "$work/out" "$(dirname "$(realpath "${BASH_SOURCE[0]}")")/../lib" <<'PY' || fail "see above"
import json, sys
sys.path.insert(0, sys.argv[2])
from check import expect, finish  # noqa: E402
out = sys.argv[1]
def load(name):
    with open(f"{out}/vm0/{name}/result.json") as f:
        return json.load(f)
def snmp(tag):  # vm0's /proc/net/snmp: the Ip header line and its values
    lines = [ln.split() for ln in open(f"{out}/vm0/snmp-{tag}.txt") if ln.startswith("Ip:")]
    return dict(zip(lines[0][1:], map(int, lines[1][1:])))
r = load("mixed")
expect(r["kind"] == "mixed", f"kind mixed ({r.get('kind')})")
flows = {f["id"]: f for f in r["flows"]}
expect(len(flows) == 7, f"7 flows (6 all-to-all of verbs + 1 DPDK burst): {len(flows)}")
for f in flows.values():
    if f["src"] == "ds":
        continue
    expect(f["tx_packets"] > 0 and f["tx_packets"] == f["rx_packets"] and f["lost"] == 0,
           f"verbs flow {f['id']} {f['src']}->{f['dst']}: tx {f['tx_packets']} == rx {f['rx_packets']}, lost {f['lost']}")
burst = [f for f in flows.values() if f["src"] == "ds"][0]
addr_err = snmp("after")["InAddrErrors"] - snmp("before")["InAddrErrors"]
# 2 s at 8 Mbit/s: 1783 frames planned (roceprobe plan); a TCG guest sends fewer (the pacer
# restarts when it falls behind), and the hub may drop some on the way: vm0's kernel is the truth.
expect(burst["tx_packets"] > 100, f"DPDK burst ds->dr sent {burst['tx_packets']} frames (1783 planned)")
expect(burst["rx_packets"] == addr_err and burst["tx_packets"] >= burst["rx_packets"] > 0,
       f"DPDK burst: rx {burst['rx_packets']} == vm0's Ip InAddrErrors delta {addr_err}, <= tx {burst['tx_packets']}")
ag = r["aggression"]
# The last message starts before 5 s and ends within one frame time: (1098 + 24) B x 8 / 8 Mbit/s.
w = ag["windows"]
expect(len(w) == 1 and w[0]["name"] == "burst" and w[0]["start_ns"] == 3_000_000_000 and
       5_000_000_000 <= w[0]["end_ns"] <= 5_000_000_000 + 1_122_000, f"aggression window: burst [3 s, 5 s + a frame) ({w})")
rows = {x["window"]: x for x in ag["latency"]}
expect(set(rows) == {"during", "outside"} and all(x["latency_ns"]["count"] > 0 for x in rows.values()),
       f"latency rows during/outside with samples: {[(k, v['latency_ns']['count']) for k, v in rows.items()]}")
def recompute(side):  # the merged histogram of the side's bins, percentiles as a histogram gives them
    bins = [b["latency_ns"] for b in ag["bins"] if b["window"] == side]
    pooled = {}
    for b in bins:
        for upper, c in b["histogram"]:
            pooled[upper] = pooled.get(upper, 0) + c
    n, lo, hi = sum(pooled.values()), min(b["min"] for b in bins), max(b["max"] for b in bins)
    def pct(p):
        rank, acc = max(1, -(-n * p // 1)), 0
        for upper in sorted(pooled):
            acc += pooled[upper]
            if acc >= rank:
                return min(max(upper, lo), hi)
    return {"count": n, "p50": pct(0.5), "p99": pct(0.99), "max": hi, "bins": len(bins)}
for side, row in rows.items():
    mine, lat = recompute(side), row["latency_ns"]
    expect(mine == {"count": lat["count"], "p50": lat["p50"], "p99": lat["p99"], "max": lat["max"], "bins": row["bins"]},
           f"{side}: recomputed from the per-bin histograms {mine} == the row's count/p50/p99/max/bins")
print(f"vm-run-mixed: workload latency during the burst p50 {rows['during']['latency_ns']['p50'] / 1e6:.2f} ms "
      f"p99 {rows['during']['latency_ns']['p99'] / 1e6:.2f} ms ({rows['during']['latency_ns']['count']} messages); "
      f"outside p50 {rows['outside']['latency_ns']['p50'] / 1e6:.2f} ms p99 {rows['outside']['latency_ns']['p99'] / 1e6:.2f} ms "
      f"({rows['outside']['latency_ns']['count']})")
# The bins' histograms and the flows' histograms are filled by two paths of the accountant:
# every workload sample is in one row or an edge bin.
workload = sum(f["latency_ns"]["count"] for f in flows.values() if f["src"] != "ds")
binned = sum(x["latency_ns"]["count"] for x in rows.values()) + ag["edge_samples"]
expect(binned == workload, f"during + outside + edge samples {binned} == the verbs flows' latency samples {workload}")
expect(0 < rows["during"]["bins"] <= 200, f"during: {rows['during']['bins']} bins of 10 ms, within the 2 s window")
pause = {p["host"]: p for p in ag["pause"]}
for h in ("h0", "h1", "h2"):
    expect(pause[h].get("pause") == "not available" and "pfc_frames" not in pause[h] and "no pause counters" in pause[h]["why"],
           f"{h} (rxe): pause not available, not 0 ({pause[h]})")
for h in ("dr", "ds"):
    expect(pause[h].get("pfc_frames") == 0, f"{h} (dpdk): 0 PFC/PAUSE frames received ({pause[h]})")
summary = open(f"{out}/vm0/mixed/summary.txt").read()
expect("during" in summary and "not available" in summary, "summary.txt has the during/outside table and the pause lines")
# kill -9 of h1's rank.
k = load("kill")
rcs = {}
for vm, ranks in (("vm0", (0, 1)), ("vm2", (3, 4))):
    for n in ranks:
        try:
            rcs[n] = open(f"{out}/{vm}/kill.rc.{n}").read().strip()
        except OSError:
            rcs[n] = None  # its wrapper shell died: mpirun's SIGTERM came before it ended
expect(open(f"{out}/vm1/kill.at").read().strip(), "kill: vm1 killed its roceprobe")
expect(k.get("incomplete") == ["h1"], f"kill: incomplete == ['h1'] ({k.get('incomplete')})")
expect(rcs == {0: "3", 1: "3", 3: "3", 4: "3"}, f"kill: every survivor exited 3 by itself ({rcs})")
marked = sorted(f["id"] for f in k["flows"] if f.get("incomplete"))
expect(marked == sorted(f["id"] for f in k["flows"] if "h1" in (f["src"], f["dst"])),
       f"kill: the flows of h1 are marked incomplete ({marked})")
for f in k["flows"]:
    if "h1" in (f["src"], f["dst"]):
        continue
    dpdk = f["src"] == "ds"  # the hub may drop: rx <= tx (the kernel check is the first run's)
    expect(f["rx_packets"] > 0 and (f["tx_packets"] >= f["rx_packets"] if dpdk else f["tx_packets"] == f["rx_packets"]),
           f"kill: flow {f['src']}->{f['dst']} between living hosts: tx {f['tx_packets']} {'>=' if dpdk else '=='} rx "
           f"{f['rx_packets']}")
stop = (k["elapsed_ns"] - k["cluster"]["lost_at_ns"]) / 1e9
expect(0 <= stop <= 5, f"kill: rank 0's traffic ended {stop:.2f} s after it saw the death (<= 5 s)")
print(f"vm-run-mixed: kill: traffic {k['elapsed_ns'] / 1e9:.2f} s, death seen at {k['cluster']['lost_at_ns'] / 1e9:.2f} s, "
      f"stopped {stop:.2f} s later; mpirun exit {open(f'{out}/vm0/kill.mpirc').read().strip()}")
print("vm-run-mixed: guest uptimes: " + open(f"{out}/vm0/times.txt").read().strip())
finish("vm-run-mixed")
PY
sed 's/^/vm-run-mixed: /' "$work/out/summary.txt"
echo "vm-run-mixed: total $(($(date +%s) - start)) s"
keep=0
