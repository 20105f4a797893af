#!/usr/bin/python3
"""replay run --engine run: a real-kernel incident reproduced on the same veths, the Linux
kernel's own drop counters as the known answer.

    [s1] rpr-s1 ~~ rpr-s1p --+
    [s2] rpr-s2 ~~ rpr-s2p --+-- bridge rpr-br -- rpr-rp ~~ rpr-r [rx]
    [s3] rpr-s3 ~~ rpr-s3p --+                    tbf 10 Mbit/s
    DPDK net_af_packet on the outer veth ends; 3 x 10 Mbit/s offered for 500 ms.

The incident: `roceprobe run`, captured by dumpcap (Wireshark's capture engine, not
roceprobe) on each sender's bridge port and on rx's interface, `replay infer --fabric` on
those captures. Then `replay run DIR --engine run` (roceprobe run in process, on the same veths):
- the reproduction's loss (its incident.json, PSN gaps at rx's capture) plus the frames its
  senders' captures hold past each flow's last PSN received at rx (read here; drops no gap
  shows) is what its run counted at its ports (sent - received), exactly; and that is the
  kernel's drops during it (tc -s qdisc, ip -s link), or at most what the tbf's 64 KiB still
  held when the run closed its ports;
- loss REPRODUCED: within 25% of the incident's; the goodput of the three flows together
  within 10% (the tbf's 10 Mbit/s shared: how it shares among flows depends on arrival
  phases, so per-flow goodput is judged but not expected to come back);
- every distance == the one recomputed from the two incident.json files (tests/lib/fidelity.py);
- a wrong reproduction, each sender at 2 Mbit/s (6 < 10 Mbit/s: nothing queues): no tbf
  drop, loss NOT (distance 1), exit 1.

usage: replay_run_check.py ROCEPROBE   (exit 77 = skipped: no veth/bridge/tbf or no root)
"""
import glob
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import check  # noqa: E402
from check import expect, finish  # noqa: E402
from fidelity import flow_keys, replay_run  # noqa: E402

ROCEPROBE = sys.argv[1]
# The whole test in a namespace of its own: the reproduction under mpirun (Open MPI's
# out-of-band listener binds every address) is then reachable by the job alone.
check.in_private_netns("rpr")
SENDERS = ["s1", "s2", "s3"]
PROFILE = """name: tbf-incast
defaults: {speed: 1G, opcode: write, message_size: 1024, mtu: 1024, dscp: 26, ecn: not-ect}
hosts:
  - {name: s1, mac: "02:00:00:00:07:01", ipv4: 10.97.0.1, port: "net_af_packet0,iface=rpr-s1"}
  - {name: s2, mac: "02:00:00:00:07:02", ipv4: 10.97.0.2, port: "net_af_packet1,iface=rpr-s2"}
  - {name: s3, mac: "02:00:00:00:07:03", ipv4: 10.97.0.3, port: "net_af_packet2,iface=rpr-s3"}
  - {name: rx, mac: "02:00:00:00:07:10", ipv4: 10.97.0.10, port: "net_af_packet3,iface=rpr-r"}
traffic:
  - {name: incast, pattern: incast, senders: [s1, s2, s3], receiver: rx, rate: 10M, duration: 500ms}
"""


TOPO = check.BridgeTbf("rpr", SENDERS, "02:00:00:00:07:10", "10mbit")
teardown, setup = TOPO.teardown, TOPO.setup


def dumpcaps(d):
    """dumpcap on each sender's bridge port (what it sent, before the tbf) and on rx's
    interface (what came through): {host: Popen}, once every file exists."""
    at = {s: f"rpr-{s}p" for s in SENDERS}
    at["rx"] = "rpr-r"
    ps = {h: subprocess.Popen(["dumpcap", "-q", "-i", i, "-P", "-w", os.path.join(d, f"dumpcap-{h}.pcap"), "-f",
                               "udp port 4791"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
          for h, i in at.items()}
    for _ in range(100):
        if all(os.path.exists(os.path.join(d, f"dumpcap-{h}.pcap")) for h in ps):
            break
        time.sleep(0.1)
    time.sleep(0.5)
    return ps


def tail_unseen(out):
    """Frames the senders' captures hold past the last PSN rx's capture received, per flow (by
    the sender's MAC): drops after a flow's last received frame, which no PSN gap shows."""
    def psns(path):
        by = {}
        for _, b, _ in check.read_pcap(path)["recs"]:
            if len(b) >= 54 and b[12:14] == b"\x08\x00" and b[23] == 17 and b[36:38] == b"\x12\xb7" and b[42] < 32:
                by.setdefault(b[6:12], []).append(int.from_bytes(b[51:54], "big"))
        return by
    got = psns(os.path.join(out, "reproduction", "capture-rx.pcap"))
    n = 0
    for s in SENDERS:
        for mac, sent in psns(os.path.join(out, "reproduction", f"capture-{s}.pcap")).items():
            n += sum(1 for x in sent if x > max(got.get(mac, [-1])))
    return n


QUEUE_FRAMES = 64 * 1024 // 1100  # the tbf's limit (64 KiB) in frames of 1024 B payload (1100 B on the wire)
IFACES = TOPO.ifaces()


def tbf_drops():
    """Every drop the kernel counts on the path: the tbf's, and any interface's (ip -s link)."""
    return sum(check.kernel_drops(IFACES, "rpr-rp").values())


try:
    setup()
except (subprocess.CalledProcessError, FileNotFoundError) as e:
    teardown()
    print(f"skipped: cannot build the veth/bridge/tbf topology here ({e})")
    sys.exit(77)
try:
    with tempfile.TemporaryDirectory() as tmp:
        path, run1, rep = (os.path.join(tmp, x) for x in ("p.yaml", "run1", "rep"))
        with open(path, "w") as f:
            f.write(PROFILE)
        caps = os.path.join(tmp, "dumpcap")
        os.mkdir(caps)
        dc = dumpcaps(caps)
        p = subprocess.run([ROCEPROBE, "run", path, "-o", run1], capture_output=True, text=True, timeout=120)
        time.sleep(0.5)
        for x in dc.values():
            x.send_signal(signal.SIGINT)
            x.wait(timeout=10)
        if p.returncode not in (0, 1):
            sys.exit(f"run failed ({p.returncode}): {p.stderr.strip()[-500:]}")
        inc_run = json.load(open(os.path.join(run1, "result.json")))
        p = subprocess.run([ROCEPROBE, "replay", "infer", *sorted(glob.glob(os.path.join(caps, "dumpcap-*.pcap"))),
                            "--fabric", path, "-o", rep], capture_output=True, text=True, timeout=120)
        if p.returncode:
            sys.exit(f"replay infer failed: {p.stderr.strip()}")
        ptext = open(os.path.join(rep, "profile.yaml")).read()
        entries = len(re.findall(r"^  - name: ", ptext, re.M))
        # Each sender ran one rate (p.yaml): a real host's jitter in its pace is not a phase.
        expect("phases:" not in ptext, "the senders' one rate each comes back as one rate: no phases: in the inferred "
               "profile (a real host's jitter is not a change of rate)")
        o = json.load(open(os.path.join(rep, "incident.json")))
        sent = sum(f["tx_packets"] for f in inc_run["flows"])
        got = sum(f["rx_packets"] for f in inc_run["flows"])
        expect(o["evidence"]["unique"] == sent and got <= o["totals"]["rx_packets"] <= got + QUEUE_FRAMES,
               f"dumpcap's evidence holds the run's {sent} frames sent, once each ({o['evidence']['unique']}), and its "
               f"{got} received, with at most {QUEUE_FRAMES} more the tbf still held when the run closed its ports "
               f"({o['totals']['rx_packets']})")

        before = tbf_drops()
        rc, res, r, o = replay_run(ROCEPROBE, tmp, rep, "again", "--engine", "run")
        drops = tbf_drops() - before
        if res:
            lost, tail = r["totals"]["lost"], tail_unseen(os.path.join(tmp, "again"))
            run = json.load(open(os.path.join(tmp, "again", "reproduction", "result.json")))
            gone = sum(f["tx_packets"] - f["rx_packets"] for f in run["flows"])
            expect(lost + tail == gone, f"the reproduction's loss {lost} + {tail} sent past each flow's last received "
                   f"PSN (its captures, read here) == what its run counted at its ports, sent - received ({gone})")
            expect(0 < drops <= gone <= drops + QUEUE_FRAMES,
                   f"that is the kernel's drops during it ({drops}) and at most {QUEUE_FRAMES} more, what the tbf still "
                   f"held when the run closed its ports ({gone - drops})")
            sv = {s["name"]: s for s in res["symptoms"]}
            go, gr = sum(flow_keys(o).values()), sum(flow_keys(r).values())
            expect(sv["loss"]["verdict"] == "REPRODUCED" and abs(gr / go - 1) <= 0.10 and
                   res["engine"] == "run" and len(res["reproduction"]["captures"]) == 4,
                   f"loss reproduced ({o['totals']['lost']} -> {lost}, distance {sv['loss']['distance']:.3f}); "
                   f"goodput of the three flows {go * 1e3:.2f} -> {gr * 1e3:.2f} Mbit/s (+-10%); per flow "
                   f"distance {sv['goodput']['distance']:.3f} ({sv['goodput']['verdict']})")

        # the same under mpirun: a rank per host (host i on rank i), as a fabric's hosts run
        launcher = "mpirun --allow-run-as-root --oversubscribe -np 4"
        rc, res, r, o = replay_run(ROCEPROBE, tmp, rep, "launched", "--engine", "run", "--launcher", launcher)
        if res:
            sv = {s["name"]: s for s in res["symptoms"]}
            log = open(os.path.join(tmp, "launched", "reproduction.log")).read()
            run = json.load(open(os.path.join(tmp, "launched", "reproduction", "result.json")))
            expect(sv["loss"]["verdict"] == "REPRODUCED" and len(run.get("cluster", {}).get("ranks", [])) == 4 and
                   len(res["reproduction"]["captures"]) == 4,
                   f"under {launcher}: 4 ranks ({len(run.get('cluster', {}).get('ranks', []))}), loss reproduced "
                   f"({o['totals']['lost']} -> {r['totals']['lost']}), its output in reproduction.log ({len(log)} B)")

        sets = [x for i in range(entries) for x in ("--set", f"traffic.{i}.rate=2M")]
        before = tbf_drops()
        rc, res, r, o = replay_run(ROCEPROBE, tmp, rep, "slow", "--engine", "run", *sets)
        drops = tbf_drops() - before
        if res:
            sv = {s["name"]: s for s in res["symptoms"]}
            expect(drops == 0 and r["totals"]["lost"] == 0 and sv["loss"]["verdict"] == "NOT" and
                   sv["loss"]["distance"] == 1 and rc == 1,
                   f"3 x 2 Mbit/s under the tbf's 10: no drop ({drops}), loss NOT, exit {rc} ({res['verdict']})")
finally:
    teardown()
finish("replay-run-tbf")
