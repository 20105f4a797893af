#!/usr/bin/env bash
# vm-run-verbs: `roceprobe run` with engine: verbs hosts, started by mpirun across three
# Soft-RoCE VMs (Open MPI and dropbear in the image: run.sh --mpi).
#
#   vm0 10.9.0.1 h0 rank 0 ---+
#   vm1 10.9.0.2 h1 rank 1 ---+--- qemu multicast hub (one Ethernet segment) --- RoCE v2 + MPI
#   vm2 10.9.0.3 h2 rank 2 ---+
#   vm0's job: mpirun -np 3 --host 10.9.0.1,10.9.0.2,10.9.0.3 (dbclient as the rsh agent)
#              roceprobe run profile -o /rp/clean, then netem loss 5% on vm1's eth0 (egress)
#              and the same run again -o /rp/loss; rxe's hw_counters and tc -s read from
#              sysfs/tc in every VM around each run by the job itself (over dbclient).
#   traffic: all-to-all h0,h1,h2 (6 flows, send, 4 KiB, 60 rounds) and 2:1 incast h1,h2 -> h0
#            (write_imm, 16 KiB, 2 QPs per flow, 60 messages each): 8 flows of real RC QPs.
#
# Asserts, on rank 0's merged result.json (the known answers in brackets):
#   - every flow: tx == rx == 60 messages, lost 0 [the profile's messages; RC is reliable];
#     one-way latency samples + clock_skew (probes that beat their stamp: the VMs' clock
#     offsets are known within ms) == 60, p50 plausible under TCG [10 us .. 5 s];
#   - every QP of every flow has one row, the sender's and the receiver's halves joined:
#     tx_messages == tx_completed == rx_messages [60; incast 30 per QP: messages take the
#     2 QPs in turn], completion latencies == its messages;
#   - every host has rxe's counters with its rank, device rxe0 and the GID of its address;
#     its sent/received packet deltas in result.json == the ones the job read from sysfs
#     around the mpirun [rxe's own hw_counters; MPI is TCP, it moves none], and at least the
#     data packets of its messages [4 per 4 KiB, 16 per 16 KiB at MTU 1024];
#   - Ctrl-C to mpirun 10 s after rank 0 made DIR, a 90 s incast running: the ranks stop at
#     Open MPI's SIGTERM (+15 s: odls_base_sigkill_timeout 15), the merged result says interrupted, each flow sent > 0 messages and
#     received every one of them;
#     counters.nics[] has each host's rdma:rxe0 series (its rank's, shipped to rank 0), whose
#     summed tx/rx_packets lie between those data packets and sysfs's change;
#   - a device missing on one rank (--set hosts.2.device=mlx5_9): mpirun exits 2, rank 0
#     prints one line naming rank 2, node vm2, host h2 and the device; no result directory;
#   - with 5% netem loss on vm1: netem dropped packets [tc -s qdisc: dropped > 0], rxe's
#     own duplicate/out-of-sequence/retry counters (read from sysfs by the job, not by
#     roceprobe) rose, every message still arrived (tx == rx, lost 0), and the tail of the
#     incast flow that leaves vm1 grows: its completion p90 is above its twin's from vm2
#     (same receiver, size, rate, QPs) in the same run, by more than in the clean run.
set -euo pipefail

roceprobe=${1:?usage: run_verbs.sh PATH/TO/roceprobe}
start=$(date +%s)
work=$(mktemp -d /tmp/vm-run-verbs.XXXXXX)
keep=1
trap '[ "$keep" = 1 ] || rm -rf "$work"' EXIT
fail() {
	echo "vm-run-verbs: FAIL: $*; logs kept in $work/out" >&2
	exit 1
}
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

netem=$(vm_netem_module)
tc_bin=$(command -v tc) || fail "tc (iproute2) is not installed on the host"
mkdir -p "$work/share"
cat >"$work/share/profile.yaml" <<'EOF'
name: vm-verbs
defaults:
  engine: verbs
  device: rxe0
  speed: 1G
  mtu: 1024
  dscp: 26
  ecn: ect0
hosts:
  - {name: h0, ipv4: 10.9.0.1, node: vm0}
  - {name: h1, ipv4: 10.9.0.2, node: vm1}
  - {name: h2, ipv4: 10.9.0.3, node: vm2}
traffic:
  - name: a2a
    pattern: all-to-all
    opcode: send
    message_size: 4KiB
    rate: 2Mbit/s
    messages: 60
  - name: incast
    pattern: incast
    senders: [h1, h2]
    receiver: h0
    opcode: write_imm
    qps: 2
    message_size: 16KiB
    rate: 4Mbit/s
    messages: 60
EOF

# Ctrl-C mid-run: an incast that would run for 90 s.
cat >"$work/share/long.yaml" <<'EOF'
name: vm-verbs-long
defaults: {engine: verbs, device: rxe0, speed: 1G, mtu: 1024}
hosts:
  - {name: h0, ipv4: 10.9.0.1, node: vm0}
  - {name: h1, ipv4: 10.9.0.2, node: vm1}
  - {name: h2, ipv4: 10.9.0.3, node: vm2}
traffic:
  - {pattern: incast, senders: [h1, h2], receiver: h0, opcode: send, message_size: 4KiB, rate: 2Mbit/s,
     duration: 90s}
EOF

cat >"$work/job0.sh" <<'EOF'
peers="10.9.0.1 10.9.0.2 10.9.0.3"
t_ready=$(cut -d' ' -f1 /proc/uptime)
for p in $peers; do rp-retry 60 $RP_SSH root@$p true 2>/dev/null || { echo "no ssh to $p"; exit 1; }; done
t_ssh=$(cut -d' ' -f1 /proc/uptime)
# rxe's own counters, as sysfs has them, in every VM: "NAME VALUE" lines.
counters() { # counters TAG
	for p in $peers; do
		$RP_SSH root@$p 'cd /sys/class/infiniband/rxe0/ports/1/hw_counters && for f in *; do echo "$f $(cat $f)"; done' \
			>"ctr-$1-$p.txt" 2>/dev/null || return 1
	done
}
mpi() { # mpi OUTDIR [ARGS]
	out=$1
	shift
	date +%s >"$out.launched"
	mpirun --allow-run-as-root -np 3 --host 10.9.0.1,10.9.0.2,10.9.0.3 --mca plm_rsh_agent "$RP_SSH" \
		--mca btl self,tcp --mca btl_tcp_if_include eth0 --mca oob_tcp_if_include eth0 \
		--mca mpi_yield_when_idle 1 -x IBV_DRIVERS=rxe \
		/usr/local/bin/roceprobe run /share/profile.yaml -o "$out" "$@" >"$out.txt" 2>&1
}
# What a launch costs under TCG: mpirun of a program that does nothing.
t_a=$(cut -d' ' -f1 /proc/uptime)
mpirun --allow-run-as-root -np 3 --host 10.9.0.1,10.9.0.2,10.9.0.3 --mca plm_rsh_agent "$RP_SSH" \
	--mca btl self,tcp --mca btl_tcp_if_include eth0 --mca oob_tcp_if_include eth0 /bin/true >/dev/null 2>&1 ||
	{ echo "mpirun /bin/true failed"; exit 1; }
t_b=$(cut -d' ' -f1 /proc/uptime)
counters clean-before || { echo "cannot read counters"; exit 1; }
t0=$(cut -d' ' -f1 /proc/uptime)
mpi /rp/clean || { cat /rp/clean.txt; exit 1; }
t1=$(cut -d' ' -f1 /proc/uptime)
counters clean-after
$RP_SSH root@10.9.0.2 'insmod /usr/local/bin/sch_netem.ko && /usr/local/bin/tc qdisc add dev eth0 root netem loss 5%' 2>/dev/null ||
	{ echo "netem on vm1 failed"; exit 1; }
counters loss-before
mpi /rp/loss || { cat /rp/loss.txt; exit 1; }
t2=$(cut -d' ' -f1 /proc/uptime)
counters loss-after
$RP_SSH root@10.9.0.2 '/usr/local/bin/tc -s qdisc show dev eth0' >netem.txt 2>/dev/null
$RP_SSH root@10.9.0.2 '/usr/local/bin/tc qdisc del dev eth0 root' 2>/dev/null
# Ctrl-C to mpirun once traffic runs (rank 0 made DIR, then the QPs, clocks and T0 follow).
mpirun --allow-run-as-root -np 3 --host 10.9.0.1,10.9.0.2,10.9.0.3 --mca plm_rsh_agent "$RP_SSH" \
	--mca btl self,tcp --mca btl_tcp_if_include eth0 --mca oob_tcp_if_include eth0 \
	--mca mpi_yield_when_idle 1 --mca odls_base_sigkill_timeout 15 -x IBV_DRIVERS=rxe \
	/usr/local/bin/roceprobe run /share/long.yaml -o /rp/sigint >/rp/sigint.txt 2>&1 &
pid=$!
i=0
while [ ! -d /rp/sigint ] && [ $i -lt 120 ]; do sleep 1; i=$((i + 1)); done
sleep 10
date +%s >/rp/sigint.killed
kill -INT $pid
wait $pid
echo $? >/rp/sigint.rc
# A rank that cannot start: h2's device does not exist on vm2.
mpi /rp/nodev --set hosts.2.device=mlx5_9
echo $? >/rp/nodev.rc
echo "guest uptime: ready=$t_ready ssh_to_all=$t_ssh mpirun_true=$t_a..$t_b clean_run=$t0..$t1 loss_run=..$t2" >times.txt
for p in 10.9.0.2 10.9.0.3; do $RP_SSH root@$p touch /tmp/rp-done 2>/dev/null; done
echo job0 done
EOF
cat >"$work/jobw.sh" <<'EOF'
# Serves as an MPI node (dropbear runs already) until vm0's job is done.
while [ ! -e /tmp/rp-done ]; do sleep 1; done
echo done
EOF

rc=0
"$vm_run" --vms 3 --mpi --job0 "$work/job0.sh" --job "$work/jobw.sh" --share "$work/share" \
	--extra "$roceprobe" --extra "$netem" --extra "$tc_bin" --timeout 540 --out "$work/out" || rc=$?
if [ "$rc" != 0 ]; then
	vm_dump_logs "$work/out"
	fail "run.sh exited $rc"
fi

/usr/bin/python3 - "$work/out" "$(dirname "$(realpath "${BASH_SOURCE[0]}")")/../lib" <<'PY' || fail "see above"
import json, re, sys
sys.path.insert(0, sys.argv[2])
from check import expect, finish  # noqa: E402
out = sys.argv[1]
def load(name):
    with open(f"{out}/vm0/{name}/result.json") as f:
        return json.load(f)
def ctr(tag, ip):  # rxe's hw_counters as the job read them from sysfs
    d = {}
    for line in open(f"{out}/vm0/ctr-{tag}-{ip}.txt"):
        k, v = line.split()
        d[k] = int(v)
    return d
ips = {"h0": "10.9.0.1", "h1": "10.9.0.2", "h2": "10.9.0.3"}
def want(flow):  # the profile: flows 0-5 all-to-all (60 rounds, one message each), 6-7 incast (60)
    return 60
def pkts(flow):  # data packets per message at MTU 1024: 4 KiB all-to-all, 16 KiB incast
    return 16 if flow >= 6 else 4
def check_run(tag, r):
    expect(r["schema"] == "roceprobe.result/1" and r["kind"] == "verbs", f"{tag}: kind verbs ({r.get('kind')})")
    flows = r["flows"]
    expect(len(flows) == 8, f"{tag}: 8 flows (6 all-to-all + 2 incast): {len(flows)}")
    for f in flows:
        n, l = want(f["id"]), f["latency_ns"]
        expect(f["tx_packets"] == n and f["rx_packets"] == n and f["lost"] == 0 and f["duplicates"] == 0,
               f"{tag}: flow {f['id']} {f['src']}->{f['dst']}: tx {f['tx_packets']} rx {f['rx_packets']} lost {f['lost']}"
               f" dup {f['duplicates']} == {n}/{n}/0/0 (RC is reliable)")
        expect(l["count"] + f["clock_skew"] == n,
               f"{tag}: flow {f['id']}: one-way latency samples {l['count']} + clock_skew {f['clock_skew']} == {n}")
        expect(l["count"] > 0 and 10e3 <= l["p50"] <= 5e9, f"{tag}: flow {f['id']}: one-way p50 {l['p50']} ns in 10 us..5 s")
    qps = r["verbs"]["qps"]
    expect(len(qps) == 6 + 2 * 2, f"{tag}: 10 QP rows (incast: 2 QPs per flow): {len(qps)}")
    comp = {}
    for q in qps:
        n = want(q["flow"]) // (2 if q["flow"] >= 6 else 1)  # messages go to the QPs in turn
        c, l = q.get("completion_ns", {}), q.get("latency_ns", {})
        expect(q.get("tx_messages") == n and q.get("tx_completed") == n and q.get("rx_messages") == n,
               f"{tag}: flow {q['flow']} QP {q['qp']} (QPN {q['src_qpn']} -> {q['dst_qpn']}): tx {q.get('tx_messages')}"
               f" completed {q.get('tx_completed')} rx {q.get('rx_messages')} == {n}")
        expect(c.get("count") == n and 10e3 <= c.get("p50", 0) <= 5e9 and 0 < l.get("count", 0) <= n,
               f"{tag}: flow {q['flow']} QP {q['qp']}: {c.get('count')} completion latencies (p50 {c.get('p50')} ns),"
               f" {l.get('count')} one-way")
        comp.setdefault(q["flow"], []).extend(c.get("histogram", []))
    hosts = {h["host"]: h for h in r["verbs"]["hosts"]}
    expect(sorted(hosts) == ["h0", "h1", "h2"], f"{tag}: verbs hosts h0 h1 h2: {sorted(hosts)}")
    for name, h in sorted(hosts.items()):
        expect(h["device"] == "rxe0" and h["gid"] == "::ffff:" + ips[name] and h["rank"] == int(name[1]),
               f"{tag}: {name}: rank {h['rank']}, {h['device']}, GID {h['gid']}")
        before, after = ctr(tag + "-before", ips[name]), ctr(tag + "-after", ips[name])
        # At least the data packets of the messages it sent or received, ACKs aside.
        least = {"sent_pkts": sum(pkts(f["id"]) * want(f["id"]) for f in flows if f["src"] == name),
                 "rcvd_pkts": sum(pkts(f["id"]) * want(f["id"]) for f in flows if f["dst"] == name)}
        for k in ("sent_pkts", "rcvd_pkts"):
            truth, mine = after[k] - before[k], h["counters"]["raw_delta"].get("hw/" + k)
            # rxe's counters move with RoCE only (MPI is TCP): the run's delta is all of it.
            expect(mine is not None and least[k] <= mine == truth,
                   f"{tag}: {name} hw/{k}: result.json {mine} >= {least[k]}, == sysfs's {truth} around the mpirun")
        # issue 24: the rank's NIC counter series (rdma:rxe0 sampled from T0 to its end, shipped
        # to rank 0 in its record): at least the data packets, at most sysfs's change around
        # the mpirun (which also holds anything before T0)
        nics = [n for n in r["counters"]["nics"] if n["host"] == name]
        ts = [m["t_ns"] for m in nics[0]["samples"]] if len(nics) == 1 else []
        for k, key in (("sent_pkts", "tx_packets"), ("rcvd_pkts", "rx_packets")):
            got = sum(m.get(key, 0) for m in nics[0]["samples"]) if len(nics) == 1 else None
            truth = after[k] - before[k]
            expect(len(nics) == 1 and nics[0]["source"] == "rdma:rxe0" and len(ts) >= 2 and ts == sorted(ts)
                   and got is not None and least[k] <= got <= truth,
                   f"{tag}: {name} counters.nics rdma:rxe0 {key}: {got} summed over {len(ts)} samples, "
                   f">= {least[k]}, <= sysfs's {truth}")
    return comp
clean = check_run("clean", load("clean"))
loss = check_run("loss", load("loss"))
netem = open(f"{out}/vm0/netem.txt").read()
m = re.search(r"dropped (\d+)", netem)
dropped = int(m.group(1)) if m else 0
expect(dropped > 0, f"netem on vm1's eth0 dropped packets (tc -s qdisc): {dropped}")
moved = {}
for ip in ips.values():
    b, a = ctr("loss-before", ip), ctr("loss-after", ip)
    for k in ("rcvd_seq_err", "duplicate_request", "out_of_sequence", "completer_retry_err"):
        if a.get(k, 0) > b.get(k, 0):
            moved[f"{ip} {k}"] = a[k] - b.get(k, 0)
expect(moved, f"rxe's retransmission/sequence counters (sysfs) rose under 5% loss: {moved}")
def pct(hist, p):  # the p-quantile's bucket bound of the pooled [[upper_ns, count], ...] buckets
    hist, n, acc = sorted(hist), sum(c for _, c in hist), 0
    for upper, c in hist:
        acc += c
        if acc >= p * n:
            return upper
    return 0
# The incast's two senders are alike (same receiver h0, size, rate, QPs) but for one thing:
# flow 6 leaves h1 through netem, flow 7 leaves h2 untouched. What netem drops, h1's requester
# resends (after a NAK, or its 67 ms ACK timeout: 4.096 us x 2^14), so flow 6's completion tail
# grows against flow 7's in the same run (the machine's load hits both) and against the
# clean run's.
ratio = {}
for tag, c in (("clean", clean), ("loss", loss)):
    for p in (0.5, 0.9):
        print(f"vm-run-verbs: {tag}: completion p{p * 100:g} flow 6 (h1) {pct(c[6], p) / 1e6:.2f} ms, "
              f"flow 7 (h2) {pct(c[7], p) / 1e6:.2f} ms")
    ratio[tag] = pct(c[6], 0.9) / max(pct(c[7], 0.9), 1)
expect(ratio["loss"] > 1, f"under loss, flow 6's completion p90 is above flow 7's: ratio {ratio['loss']:.2f}")
expect(ratio["loss"] > ratio["clean"], f"flow 6's p90 against flow 7's grew from the clean run's {ratio['clean']:.2f}")
# The rank that could not open its device stopped every rank before any QP: exit 2, one
# roceprobe line from rank 0 naming rank, node, host and the device, no DIR on vm0.
import os
rc = int(open(f"{out}/vm0/nodev.rc").read())
lines = [ln for ln in open(f"{out}/vm0/nodev.txt").read().splitlines() if ln.startswith("roceprobe")]
expect(rc == 2 and lines == ["roceprobe run: rank 2 (node vm2): host 'h2': RDMA device 'mlx5_9' not found (have: rxe0)"],
       f"a missing device on rank 2: mpirun exit 2 ({rc}) and one line ({lines})")
expect(not os.path.exists(f"{out}/vm0/nodev"), "a missing device on rank 2: no result directory")
# Ctrl-C to mpirun mid-run: every rank stops posting, lets its posted messages complete,
# and rank 0 writes the merged result: interrupted, every posted message received.
s = load("sigint")
fl = s["flows"]
expect(s["interrupted"] is True and len(fl) == 2, f"Ctrl-C: interrupted result of 2 flows ({s['interrupted']}, {len(fl)})")
for f in fl:
    expect(0 < f["tx_packets"] == f["rx_packets"] and f["lost"] == 0,
           f"Ctrl-C: flow {f['id']} {f['src']}->{f['dst']}: {f['tx_packets']} posted, {f['rx_packets']} received, lost 0")
killed = int(open(f"{out}/vm0/sigint.killed").read())
# Open MPI's orteds send SIGCONT at once, wait odls_base_sigkill_timeout (15 s here), send
# SIGTERM, wait 15 s more, then SIGKILL. The launcher's SIGCONT is a stop (lib/cluster/guard.c):
# the ranks stop within a second or two of the Ctrl-C (they waited for the SIGTERM at +15 s
# before), long before the SIGTERM and the incast's 90 s.
stopped = s["cluster"]["start_ns"] / 1e9 + s["elapsed_ns"] / 1e9 - killed
expect(0 <= stopped < 5, f"Ctrl-C: the ranks stopped {stopped:.1f} s after the signal (its SIGCONT; SIGTERM at +15 s)")
print(f"vm-run-verbs: Ctrl-C: T0 {s['cluster']['start_ns'] / 1e9 - killed:+.0f} s from the signal, traffic "
      f"{s['elapsed_ns'] / 1e9:.2f} s, mpirun exit {open(f'{out}/vm0/sigint.rc').read().strip()}")
print("vm-run-verbs: " + open(f"{out}/vm0/times.txt").read().strip())
for tag in ("clean", "loss"):
    r, t = load(tag), int(open(f"{out}/vm0/{tag}.launched").read())
    print(f"vm-run-verbs: {tag}: mpirun to T0 {r['cluster']['start_ns'] / 1e9 - t:.0f} s (+-1), traffic "
          f"{r['elapsed_ns'] / 1e9:.2f} s, clock bound {r['cluster']['latency_bound_ns'] / 1e6:.2f} ms, "
          f"worst start skew {max(k['start_skew_ns'] for k in r['cluster']['ranks']) / 1e6:.2f} ms")
finish("vm-run-verbs")
PY
sed 's/^/vm-run-verbs: /' "$work/out/summary.txt"
echo "vm-run-verbs: total $(($(date +%s) - start)) s"
keep=0
