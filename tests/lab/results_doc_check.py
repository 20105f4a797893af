#!/usr/bin/python3
"""Every key a result carries is documented in docs/results.md, and every key the
tables there name is one some result carries.

    roceprobe lab  (single switch, leaf-spine with victims, lossy drops, DCQCN, --capture)
    roceprobe lab --sweep (two points)                               -> sweep.json
    roceprobe run  (back to back on DPDK pair: ports, --capture)     -> result.json
    roceprobe analyze --json (the run's capture)                     -> analyze JSON
    roceprobe replay infer (the lab incast's captures, mirror, counters) -> incident.json
    roceprobe replay run (that incident reproduced)                  -> result.json (replay/1)
    roceprobe gen --json (back to back, 200 ms)                      -> gen JSON
        every key, at any depth  ==  a `key` in docs/results.md

A key counts as documented when it stands in backticks in the document. Documented
keys no result carries are listed too: a table row describing a field nobody writes
(as `timeseries.flows` once was) is a promise the tool does not keep. Objects whose
keys are names from elsewhere (a PMD's xstats, a sweep point's profile keys) are
documented as such; their keys are not checked.

timeseries.flows (per-flow series, kept for runs of at most 64 flows) is checked
against known counts: incast-8to1 (8 flows of 100 messages x 16 packets: 1600
each, no loss), 64 flows of one packet (kept, 64 series summing to 1), 65 (not
kept), and the back-to-back run (80000 packets, every 999th dropped: 79920).

usage: results_doc_check.py ROCEPROBE PROFILES_DIR DOC [dpdk [mpi]]
"""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from check import expect, finish  # noqa: E402

ROCEPROBE, PROFILES, DOC = sys.argv[1], sys.argv[2], sys.argv[3]
DPDK = len(sys.argv) > 4 and sys.argv[4] == "dpdk"
MPI = len(sys.argv) > 5 and sys.argv[5] == "mpi"  # roceprobe was built with the MPI control plane



DYNAMIC = {"pause_xstats", "at", "raw", "gauges", "xstats", "samples"}  # keyed by names from elsewhere: not descended into


def keys(o, path, out):
    """Every key name with the first path it was seen at."""
    if isinstance(o, dict):
        for k, v in o.items():
            out.setdefault(k, f"{path}.{k}")
            if k not in DYNAMIC:
                keys(v, f"{path}.{k}", out)
    elif isinstance(o, list):
        for v in o:
            keys(v, f"{path}[]", out)


def rp(*args):
    p = subprocess.run([ROCEPROBE, *args], capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        sys.exit(f"roceprobe {' '.join(args)} failed ({p.returncode}): {p.stderr.strip()[-500:]}")
    return p.stdout


def flow_series(r, what, packets):
    """timeseries.flows: one series per flow, in flow order, summing to the flow's
    rx counters; packets: the known rx_packets per flow (None: only the sums)."""
    ts = r["timeseries"].get("flows")
    if not expect(ts is not None, f"{what}: timeseries.flows present ({len(r['flows'])} flows)"):
        return
    expect([f["id"] for f in ts] == [f["id"] for f in r["flows"]], f"{what}: one series per flow, ids in flow order")
    expect(all(len(f["rx_packets"]) == r["timeseries"]["bins"] == len(f["rx_bytes"]) for f in ts),
           f"{what}: every series has timeseries.bins ({r['timeseries']['bins']}) bins")
    sums = [sum(f["rx_packets"]) for f in ts]
    expect(r["timeseries"]["outside"] == 0 and sums == [f["rx_packets"] for f in r["flows"]]
           and [sum(f["rx_bytes"]) for f in ts] == [f["rx_bytes"] for f in r["flows"]],
           f"{what}: series sum to the flows' rx_packets and rx_bytes (nothing outside)")
    if packets is not None:
        expect(sums == packets, f"{what}: rx_packets per flow {sorted(set(sums))} == {sorted(set(packets))}")


def many_flows(n):
    """A lab profile of n one-packet flows h1 -> h0 (4 KiB at MTU 4096)."""
    lines = ["name: flows-%d" % n, "defaults: {speed: 100G, opcode: write, message_size: 4KiB, mtu: 4096}",
             "hosts:", '  - {name: h0, mac: "02:00:00:00:00:00", ipv4: 10.0.0.100, port: net_null0}',
             '  - {name: h1, mac: "02:00:00:00:00:01", ipv4: 10.0.0.1, port: net_null1}', "traffic:"]
    lines += ["  - {name: f%d, pattern: flow, src: h1, dst: h0, rate: 1G, messages: 1}" % i for i in range(n)]
    return "\n".join(lines) + "\n"


seen = {}
with tempfile.TemporaryDirectory() as tmp:
    for name in ("incast-8to1", "victim-flow", "lossy-lossless-mix", "incast-32to1-ecn", "headroom-too-small"):
        out = os.path.join(tmp, name)
        evidence = ["--mirror", "sw0:0", "--counters", "100us"] if name == "incast-8to1" else []
        rp("lab", os.path.join(PROFILES, name + ".yaml"), "-o", out, "-q", "--capture", *evidence)
        r = json.load(open(os.path.join(out, "result.json")))
        keys(r, "lab", seen)
        if name == "incast-8to1":
            flow_series(r, "lab incast-8to1", [1600] * 8)
            caps = sorted(os.path.join(out, f) for f in os.listdir(out) if f.endswith(".pcap"))
            series = os.path.join(out, "counters.jsonl")
            for line in open(series):
                keys(json.loads(line), "lab-counters", seen)
            rp("replay", "infer", *caps, series, "-o", os.path.join(tmp, "replay"))
            keys(json.load(open(os.path.join(tmp, "replay", "incident.json"))), "incident", seen)
            # replay run: exit 0 or 1 (its verdict), either way a result
            subprocess.run([ROCEPROBE, "replay", "run", os.path.join(tmp, "replay"), "-q", "-o",
                            os.path.join(tmp, "replayrun")], capture_output=True, timeout=120)
            keys(json.load(open(os.path.join(tmp, "replayrun", "result.json"))), "replay", seen)
    # interrupted_in and interrupted_skipped: a run of 36,672 flows stopped by SIGINT once it runs
    out = os.path.join(tmp, "stopped")
    p = subprocess.Popen([ROCEPROBE, "lab", os.path.join(PROFILES, "all-to-all-192.yaml"), "-o", out],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    for line in p.stderr:
        if line.startswith("lab: virtual "):
            break
    p.send_signal(signal.SIGINT)
    p.communicate(timeout=60)
    r = json.load(open(os.path.join(out, "result.json")))
    expect(r.get("interrupted_in") in ("run", "write") and r.get("interrupted_skipped"),
           f"all-to-all-192 stopped in its run: interrupted_in, interrupted_skipped ({r.get('interrupted_in')})")
    keys(r, "lab", seen)
    # pause_propagation.sender_limited's keys: flows late from their own sender's NIC
    out = os.path.join(tmp, "sender-limited")
    rp("lab", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "profiles", "sender-limited.yaml"),
       "-o", out, "-q")
    keys(json.load(open(os.path.join(out, "result.json"))), "lab", seen)
    out = os.path.join(tmp, "sweep")
    rp("lab", os.path.join(PROFILES, "incast-8to1.yaml"), "-o", out, "-q", "--sweep", "fabric.pfc.xoff=100KiB,200KiB")
    keys(json.load(open(os.path.join(out, "sweep.json"))), "sweep", seen)
    for n in (64, 65):
        prof = os.path.join(tmp, f"flows-{n}.yaml")
        with open(prof, "w") as f:
            f.write(many_flows(n))
        out = os.path.join(tmp, f"flows-{n}")
        rp("lab", prof, "-o", out, "-q")
        r = json.load(open(os.path.join(out, "result.json")))
        if n == 64:
            flow_series(r, "lab 64 one-packet flows", [1] * 64)
        else:
            expect(len(r["flows"]) == 65 and "flows" not in r["timeseries"],
                   "lab 65 flows: no timeseries.flows (kept for at most 64)")
    if DPDK:
        out = os.path.join(tmp, "b2b")
        rp("run", os.path.join(PROFILES, "back-to-back.yaml"), "-o", out, "--capture")
        r = json.load(open(os.path.join(out, "result.json")))
        keys(r, "run", seen)
        flow_series(r, "run back-to-back", [79920])
        rtt = os.path.join(tmp, "b2b-rtt")  # the round-trip keys come with echoes (rtt: on)
        rp("run", os.path.join(PROFILES, "back-to-back.yaml"), "-o", rtt, "--set", "traffic.0.rtt=on")
        keys(json.load(open(os.path.join(rtt, "result.json"))), "run-rtt", seen)
        keys(json.loads(rp("analyze", "--json", os.path.join(out, "capture-h2.pcap"))), "analyze", seen)
        keys(json.loads(rp("gen", os.path.join(PROFILES, "back-to-back.yaml"), "--json", "--duration", "200ms")),
             "gen", seen)
        mpirun = shutil.which("mpirun")
        if mpirun and MPI:  # two ranks (net_null ports: what is sent is lost; the keys are the point)
            path, out = os.path.join(tmp, "ranks.yaml"), os.path.join(tmp, "ranks")
            with open(path, "w") as f:
                f.write('hosts:\n'
                        '  - {name: a, mac: "02:00:00:00:00:01", ipv4: 10.96.0.1, port: net_null0}\n'
                        '  - {name: b, mac: "02:00:00:00:00:02", ipv4: 10.96.0.2, port: net_null1}\n'
                        'traffic:\n  - {pattern: flow, src: a, dst: b, rate: 1G, packets: 100}\n')
            p = subprocess.run([mpirun, "--allow-run-as-root", "--oversubscribe", "-np", "2", ROCEPROBE, "run", path,
                                "-o", out], capture_output=True, text=True, timeout=120)
            if p.returncode != 0:
                sys.exit(f"mpirun -np 2 roceprobe run failed ({p.returncode}): {p.stderr.strip()[-500:]}")
            keys(json.load(open(os.path.join(out, "result.json"))), "run-ranks", seen)

# roceprobe counters (roceprobe.counters/1) on the saved dumps of tests/data/counters, and a
# delta line (--watch on sysfs:lo, stopped after its second line).
data = os.path.join(os.path.dirname(os.path.abspath(DOC)), "..", "tests", "data", "counters")
for src in ("ethtool-file:mlx5_core.txt", "ethtool-file:ice.txt", "ethtool-file:bnxt_en.txt",
            "rdma-dir:rxe0-hw_counters"):
    kind, name = src.split(":")
    for line in rp("counters", f"{kind}:{os.path.join(data, name)}", "--json").splitlines():
        keys(json.loads(line), "counters", seen)
w = subprocess.Popen([ROCEPROBE, "counters", "sysfs:lo", "--json", "--watch", "20ms"], stdout=subprocess.PIPE, text=True)
for _ in range(2):
    keys(json.loads(w.stdout.readline()), "counters-watch", seen)
w.terminate()
w.communicate(timeout=10)

doc = open(DOC).read()
KEY = r"`([A-Za-z_][A-Za-z0-9_-]*)`"  # drop reasons have hyphens: no-route
documented = set(re.findall(KEY, doc))
missing = sorted(path for k, path in seen.items() if k not in documented)
expect(not missing, f"every key of {len(seen)} is in {os.path.basename(DOC)} (missing: {missing})")

# The tables' first column names fields: each of those must be a key some result has.
rows = set()
for line in doc.splitlines():
    m = re.match(r"\|\s*(`[^|]*`)\s*\|", line)
    if m:
        rows.update(re.findall(KEY, m.group(1)))

# Drop reasons (keys of drops{}): the document lists every name rp_switch_drop_name can
# return (lib/fabric/switch.c), though the shipped profiles drop only for some reasons.
src = open(os.path.join(os.path.dirname(os.path.abspath(DOC)), "..", "lib", "fabric", "switch.c")).read()
m = re.search(r"rp_switch_drop_name\(.*?names\[RP_DROP_REASONS\] = \{(.*?)\}", src, re.S)
reasons = set(re.findall(r'"([^"]+)"', m.group(1) if m else "")) - {"none"}
expect(len(reasons) >= 6 and reasons <= rows,
       f"every drop reason rp_switch_drop_name returns ({sorted(reasons)}) has a row (missing: {sorted(reasons - rows)})")
# engine: verbs needs an RDMA device (the VM lab's tests/vm/run_verbs.sh checks those results,
# and tests/vm/run_mixed.sh the "aggression" of a mixed run).
only_verbs = set()
# roceprobe.counters/1: most of its vocabulary comes only from real NICs and RDMA devices.
for section in ('"verbs"', '"aggression"', 'roceprobe.counters/1'):
    m = re.search(r'^## ' + section + r'.*?(?=^## )', doc, re.S | re.M)
    for line in (m.group(0) if m else "").splitlines():
        c = re.match(r"\|\s*(`[^|]*`)\s*\|", line)
        if c:
            only_verbs.update(re.findall(KEY, c.group(1)))
if DPDK:  # run, analyze and gen keys are only known with DPDK; without it, lab keys are a subset
    only_ranks = set() if MPI else {"launcher", "latency_bound_ns", "ranks"}  # the "cluster" section's own keys
    only_ranks |= only_verbs - set(seen)
    unseen = sorted(rows - set(seen) - reasons - only_ranks)
    expect(not unseen, f"every field a table names appears in some result (never seen: {unseen})")
finish("results-doc")
