#!/usr/bin/python3
"""roceprobe replay run: incidents made on purpose in the lab (captured at every host),
inferred by `replay infer`, then reproduced and judged. Every distance result.json reports
is recomputed here from the two incident.json files (the incident's and the
reproduction's, both "roceprobe.incident/1") by the formulas docs/replay.md states, and
the reproductions are checked against what the original lab runs counted themselves.

    incast:  h1..h8 --\\
                       sw0 (100G, PFC prio 3, ECN) --> h0          profiles/incast-8to1.yaml
    victim:  leaf-spine, h2..h6 -> h0 incast; h7 -> h1 paused behind it (a victim two hops
             from the congestion)                                  profiles/victim-flow.yaml

Known answers:
- incast, as inferred from the evidence alone: the senders' offered rate is the pace of
  their first frames before the first pause (100%, the original profile's, not the 12.5G
  each achieved): REPRODUCED, exit 0, every distance within its tolerance, and the
  reproduction's PFC frames per host == the original lab run's result.json;
- incast at 12.5G each, what the senders achieved (--set: 8 x 12.5G fills h0's 100G link
  and nothing more): goodput comes back within 10% but the PFC storm does not (fewer PFC
  frames than the original lab run's own count): PARTLY, exit 1;
- incast at 6.25G each (8 x 6.25G = 50G < 100G: nothing queues): per-flow goodput halves
  (relative error 0.5 +- 0.05), no PFC frame, no pause: NOT, exit 1;
- victim, as inferred (100% and 50G, the original's): REPRODUCED, the victim h7 -> h1 as
  the lab's own pause_propagation.victims; with PFC off: the victim and the pauses NOT (no
  PFC frame at all), exit 1;
- storm: profiles/pfc-storm.yaml (20 ms): h1 sends 4000 PFC frames/s of 65535 quanta on
  priority 3 (134% of the time paused), h0 -> h1 at 50G behind it; inferred from the
  captures alone: h1 a `kind: pfc` source of priority 3, 65535 quanta, 4000 fps (+-0.1%),
  as many frames as tshark counts from h1's MAC in its capture (MAC Control, CBFC,
  class 3), the flow's offered 50G; reproduced: REPRODUCED, the same PFC frames;
- elephants: tests/data/profiles/replay-elephants.yaml, h0 -> h2 and h1 -> h3 at 100%
  whose UDP source ports (49152, 49154) take one spine uplink: 48.8G each (two 100G flows
  through one 100G uplink: at most 50G each), PFC back to both; inferred: both flows at
  100% offered, each pinned to the UDP source port tshark reads in its sender's capture;
  reproduced: REPRODUCED; with the ports left to the QP numbers (--set sport=linux) the
  two take two uplinks: goodput NOT (each near 100G), no PFC frame;
- bursts: tests/data/profiles/replay-bursts.yaml, 40G in bursts of 20 us every 100 us:
  inferred burst_on + burst_off = 100 us (+-10 ns), burst_on 20 us and at most one
  message (4 frames of 8848 bits at 40G: 885 ns) more (a message started is finished),
  the rate the pace within a burst (40G +-0.1%, not the 8.4G averaged over the gaps);
  reproduced: REPRODUCED;
- phases: tests/data/profiles/replay-phases.yaml, h0 -> h1 at 30% of 100G, then 90% from
  1.05 ms to 2.5 ms (1 KiB WRITE ONLY frames of 1098 B, 8976 bits on the wire: 299.2 ns at
  30G, 99.73 ns at 90G): the first phase starts ceil(1.05 ms / 299.2 ns) = 3510 messages,
  the next due at 3510 x 299.2 = 1050192 ns where 90G starts, the rest ceil((2.5 ms -
  1050192 ns) / 99.73 ns) more; tshark at h1 counts per 100 us bin from the first frame
  1e5 / 299.2 = 334.2 frames (334 or 335) in bins wholly at 30G and 1002.7 (1002 or 1003)
  at 90G, in the original and in the reproduction; inferred: `phases:` of two, 30G and 90G
  within the bound each phase's comment states, the change at 1050192 ns within one frame
  at 30G (299.2 ns; a bin is 100 us); reproduced: REPRODUCED, as many frames +-1;
- headroom: profiles/headroom-too-small.yaml, lossless frames dropped by a headroom too
  small: the incident's loss == the lab's own switch drops (result.json), and reproduced
  from the captures alone: REPRODUCED, the reproduction's loss the same;
- bad input: one line, exit 2, no OUT (nor OUT.part-*): no DIR, no incident.json, another
  schema, a broken profile, a bad --set, bad --tolerance, a non-empty OUT (left as it was),
  --engine run of a profile whose hosts have no port:, an unknown engine;
- signal: SIGINT, and SIGTERM, in a long reproduction: exit 130, OUT absent.

usage: replay_run_check.py ROCEPROBE PROFILES_DIR CASE
"""
import glob
import json
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from check import expect, finish  # noqa: E402
from fidelity import flow_keys, rel, replay_run  # noqa: E402

ROCEPROBE, PROFILES, CASE = sys.argv[1], sys.argv[2], sys.argv[3]
def rp(*args):
    return subprocess.run([ROCEPROBE, *args], capture_output=True, text=True, timeout=120)


def incident(tmp, profile, *lab_args, caps="capture-*.pcap"):
    """lab --capture, replay infer --fabric: (the lab's result.json, DIR)."""
    run1, rep = os.path.join(tmp, "run1"), os.path.join(tmp, "rep")
    p = rp("lab", profile, "-o", run1, "-q", "--capture", *lab_args)
    if p.returncode:
        sys.exit(f"lab failed: {p.stderr}")
    p = rp("replay", "infer", *sorted(glob.glob(os.path.join(run1, caps))), "--fabric", profile, "-o", rep)
    if p.returncode:
        sys.exit(f"replay infer failed: {p.stderr}")
    return json.load(open(os.path.join(run1, "result.json"))), rep


def pfc_by_host(inc):
    return {p["node"]: sum(x["pfc_rx"] for x in p["prio"]) for p in inc["ports"] if p["prio"]}


def lab_pfc_by_host(lab):
    return {p["node"]: sum(x.get("pfc_rx", 0) for x in p["prio"]) for p in lab["ports"]
            if any(x.get("pfc_rx") for x in p["prio"])}


with tempfile.TemporaryDirectory() as tmp:
    if CASE == "incast":
        lab1, rep = incident(tmp, os.path.join(PROFILES, "incast-8to1.yaml"))
        rate = re.search(r"\n\s+rate: (\S+)  # offered: ", open(os.path.join(rep, "profile.yaml")).read())
        expect(rate and rate.group(1) == "100%", f"the senders' offered rate inferred: 100% (the original's), not the "
               f"12.5G each achieved ({rate.group(1) if rate else None})")
        rc, res, r, o = replay_run(ROCEPROBE, tmp, rep, "as-inferred")
        if res:
            expect(rc == 0 and res["verdict"] == "REPRODUCED" and res["sets"] == [],
                   "as inferred, from the evidence alone: REPRODUCED, exit 0")
            expect(pfc_by_host(r) == lab_pfc_by_host(lab1),
                   f"the reproduction's PFC frames per host == the original lab run's own ({lab_pfc_by_host(lab1)})")
        rc, res, r, o = replay_run(ROCEPROBE, tmp, rep, "achieved", "--set", "traffic.0.rate=12.5G")
        if res:
            sv = {s["name"]: s for s in res["symptoms"]}
            expect(sv["goodput"]["verdict"] == "REPRODUCED" and sv["pfc_frames"]["reproduction"] <
                   sum(lab_pfc_by_host(lab1).values()) and res["verdict"] == "PARTLY" and rc == 1,
                   f"at the rates achieved (12.5G): goodput reproduced, fewer PFC frames "
                   f"({sv['pfc_frames']['reproduction']:.0f} < the lab's {sum(lab_pfc_by_host(lab1).values())}): PARTLY")
        half = 12.5 / 2
        rc, res, r, o = replay_run(ROCEPROBE, tmp, rep, "half", "--set", f"traffic.0.rate={half:.4f}G")
        if res:
            go, gr = flow_keys(o), flow_keys(r)
            g = [rel(go[k], gr[k]) for k in go if k in gr]
            sv = {s["name"]: s for s in res["symptoms"]}
            expect(len(g) == 8 and all(abs(x - 0.5) <= 0.05 for x in g) and sv["goodput"]["verdict"] == "NOT",
                   f"half the rate: each flow's goodput halves (relative errors {min(g):.3f}..{max(g):.3f}): NOT")
            expect(sv["pfc_frames"]["reproduction"] == 0 and sv["paused_timeline"]["verdict"] == "NOT" and
                   res["verdict"] == "NOT" and rc == 1,
                   f"8 x {half:.2f}G < 100G: no PFC frame, no pause: NOT, exit 1 ({res['verdict']})")
    elif CASE == "victim":
        lab1, rep = incident(tmp, os.path.join(PROFILES, "victim-flow.yaml"))
        lv = sorted(f"{v['src']} -> {v['dst']}" for v in lab1["pause_propagation"]["victims"])
        rates = re.findall(r"\n\s+rate: (\S+)  # offered: ", open(os.path.join(rep, "profile.yaml")).read())
        expect(len(rates) == 2 and rates[0] == "100%" and abs(float(rates[1].rstrip("G")) / 50 - 1) < 0.001,
               f"offered rates inferred: 100% and 50G, the original's ({rates})")
        rc, res, r, o = replay_run(ROCEPROBE, tmp, rep, "as-inferred")
        if res:
            sv = {s["name"]: s for s in res["symptoms"]}
            expect(rc == 0 and res["verdict"] == "REPRODUCED" and
                   sorted(x.rsplit(" prio", 1)[0] for x in sv["victims"]["reproduction_set"]) == lv == ["h7 -> h1"],
                   f"as inferred: REPRODUCED, victim {sv['victims']['reproduction_set']} as the lab's {lv}")
        rc, res, r, o = replay_run(ROCEPROBE, tmp, rep, "nopfc", "--set", "fabric.pfc.enabled=false")
        if res:
            sv = {s["name"]: s for s in res["symptoms"]}
            expect(rc == 1 and sv["victims"]["verdict"] == "NOT" and sv["victims"]["distance"] == 1 and
                   sv["pfc_frames"]["reproduction"] == 0 and sv["pause_order"]["verdict"] == "NOT",
                   f"PFC off: no PFC frame, the victim NOT, the pause order NOT, exit 1 ({res['verdict']})")
    elif CASE == "storm":
        short = [a for i in range(3) for a in ("--set", f"traffic.{i}.duration=20ms")]
        # h0's and h1's captures (h2's holds its one PAUSE frame, and no RoCE frame to tell its host by)
        lab1, rep = incident(tmp, os.path.join(PROFILES, "pfc-storm.yaml"), "--allow-pause-storm", *short,
                             caps="capture-h[01].pcap")
        t = subprocess.run(["tshark", "-r", os.path.join(tmp, "run1", "capture-h1.pcap"), "-Y",
                            "eth.src==02:00:00:00:02:01 && macc.cbfc.enbv.c3 == 1", "-T", "fields", "-e",
                            "macc.cbfc.pause_time.c3"], capture_output=True, text=True, check=True).stdout.split()
        text = open(os.path.join(rep, "profile.yaml")).read()
        m = re.search(r"- name: pfc-h1 .*\n\s+kind: pfc\n\s+host: h1\n\s+frame: pfc\n\s+priorities: \[3\].*\n"
                      r"\s+quanta: (\d+).*\n\s+fps: (\d+).*\n\s+start: \d+ns.*\n\s+packets: (\d+)", text)
        expect(len(t) >= 50 and set(t) == {"65535"} and m and int(m.group(1)) == 65535 and
               abs(int(m.group(2)) / 4000 - 1) <= 0.001 and int(m.group(3)) == len(t),
               f"h1's storm inferred: priority 3, quanta {m and m.group(1)}, fps {m and m.group(2)} (4000), "
               f"{m and m.group(3)} frames (tshark: {len(t)} from h1, quanta {set(t)})")
        v = re.search(r"\n\s+rate: ([0-9.]+)G  # offered: ", text)
        expect(v and abs(float(v.group(1)) / 50 - 1) < 0.001, f"the flow paused behind it: offered 50G ({v and v.group(1)})")
        rc, res, r, o = replay_run(ROCEPROBE, tmp, rep, "as-inferred")
        if res:
            sv = {s["name"]: s for s in res["symptoms"]}
            expect(rc == 0 and res["verdict"] == "REPRODUCED" and sv["pfc_frames"]["distance"] == 0,
                   f"the storm reproduced: REPRODUCED, PFC frames {sv['pfc_frames']['original']:.0f} -> "
                   f"{sv['pfc_frames']['reproduction']:.0f}")
    elif CASE == "elephants":
        prof = os.path.join(os.path.dirname(PROFILES), "tests", "data", "profiles", "replay-elephants.yaml")
        lab1, rep = incident(tmp, prof)
        gb = [f["goodput_gbps"] for f in lab1["flows"]]
        expect(len(gb) == 2 and all(45 < g <= 50 for g in gb), f"the original: two elephants on one uplink, each at "
               f"most 50G ({gb})")
        text = open(os.path.join(rep, "profile.yaml")).read()
        for host, dst in (("h0", "h2"), ("h1", "h3")):
            t = subprocess.run(["tshark", "-r", os.path.join(tmp, "run1", f"capture-{host}.pcap"), "-Y",
                                "udp.dstport == 4791 && infiniband.bth.opcode != 17", "-T", "fields", "-e",
                                "udp.srcport"], capture_output=True, text=True, check=True).stdout.split()
            m = re.search(rf"\n\s+src: {host}\n\s+dst: {dst}\n(?:.*\n)*?\s+sport: fixed.*\n\s+sport_base: (\d+)", text)
            expect(len(set(t)) == 1 and m and m.group(1) == t[0], f"{host} -> {dst}: pinned to UDP source port "
                   f"{m and m.group(1)} (tshark in {host}'s capture: {sorted(set(t))})")
        rates = re.findall(r"\n\s+rate: (\S+)  # offered: ", text)
        expect(rates == ["100%", "100%"], f"both offered 100% (achieved 48.8G each): {rates}")
        rc, res, r, o = replay_run(ROCEPROBE, tmp, rep, "as-inferred")
        if res:
            expect(rc == 0 and res["verdict"] == "REPRODUCED", f"the collision reproduced: {res['verdict']}")
        rc, res, r, o = replay_run(ROCEPROBE, tmp, rep, "unpinned", "--set", "traffic.0.sport=linux", "--set",
                                   "traffic.1.sport=linux")
        if res:
            sv = {s["name"]: s for s in res["symptoms"]}
            expect(rc == 1 and sv["goodput"]["verdict"] == "NOT" and sv["pfc_frames"]["reproduction"] == 0,
                   f"ports from the QP numbers: two uplinks, goodput NOT, no PFC ({res['verdict']})")
    elif CASE == "bursts":
        prof = os.path.join(os.path.dirname(PROFILES), "tests", "data", "profiles", "replay-bursts.yaml")
        lab1, rep = incident(tmp, prof)
        text = open(os.path.join(rep, "profile.yaml")).read()
        on = re.search(r"\n\s+burst_on: (\d+)ns", text)
        off = re.search(r"\n\s+burst_off: (\d+)ns", text)
        rate = re.search(r"\n\s+rate: ([0-9.]+)G  # offered: ", text)
        expect(on and off and abs(int(on.group(1)) + int(off.group(1)) - 100000) <= 10 and
               20000 <= int(on.group(1)) <= 20000 + 885,
               f"bursts: on {on and on.group(1)} ns, off {off and off.group(1)} ns (20 us in 100 us, a message more)")
        expect(rate and abs(float(rate.group(1)) / 40 - 1) <= 0.001, f"the pace within a burst: {rate and rate.group(1)}G (40G)")
        rc, res, r, o = replay_run(ROCEPROBE, tmp, rep, "as-inferred")
        if res:
            expect(rc == 0 and res["verdict"] == "REPRODUCED", f"the bursts reproduced: {res['verdict']}")
    elif CASE == "phases":
        prof = os.path.join(os.path.dirname(PROFILES), "tests", "data", "profiles", "replay-phases.yaml")
        lab1, rep = incident(tmp, prof)
        L1 = (14 + 20 + 8 + 12 + 16 + 1024 + 4 + 24) * 8  # 8976 bits
        gap0, gap1 = L1 / 30, L1 / 90  # ns per frame at 30G, 90G
        n0 = math.ceil(1.05e6 / gap0)
        switch = math.floor(n0 * gap0)  # 1050192: the first 90G frame
        n1 = math.ceil((2.5e6 - switch) / gap1)

        def bins(pcap):
            t = [int(x) for x in subprocess.run(
                ["tshark", "-r", pcap, "-Y", "infiniband", "-T", "fields", "-e", "frame.time_epoch"],
                capture_output=True, text=True, check=True).stdout.replace(".", "").split()]
            got = {}
            for x in t:
                got[(x - t[0]) // 100000] = got.get((x - t[0]) // 100000, 0) + 1
            return len(t), got

        def check_bins(what, pcap):
            n, got = bins(pcap)
            slow = [got.get(b, 0) for b in range(0, 10)]  # [0, 1 ms): 30G
            fast = [got.get(b, 0) for b in range(11, 24)]  # [1.1, 2.4 ms): 90G
            expect(n == n0 + n1, f"{what}: {n} frames at h1 == {n0} + {n1}")
            expect(all(334 <= x <= 335 for x in slow) and all(1002 <= x <= 1003 for x in fast),
                   f"{what}: frames per 100 us bin at h1: {slow} at 30G (334..335), {fast} at 90G (1002..1003)")

        check_bins("the incident", os.path.join(tmp, "run1", "capture-h1.pcap"))
        text = open(os.path.join(rep, "profile.yaml")).read()
        ph = re.findall(r"\n\s+- \{at: (\d+)ns, rate: ([0-9.]+)G\}  # [0-9.]+ Gbit/s over \d+ windows, \d+ frames: "
                        r"\+-([0-9.]+)%", text)
        expect(len(ph) == 2 and "\n    rate:" not in text.split("traffic:")[1],
               f"phases inferred, two, and no rate: key beside them: {ph}")
        if len(ph) == 2:
            (a0, r0, b0), (a1, r1, b1) = [(int(a), float(r), float(b) / 100) for a, r, b in ph]
            expect(a0 == 0 and abs(r0 / 30 - 1) <= b0, f"phase 1: at {a0}, {r0}G (30G +-{100 * b0:.3f}%)")
            expect(abs(r1 / 90 - 1) <= b1, f"phase 2: {r1}G (90G +-{100 * b1:.3f}%)")
            expect(abs(a1 - switch) <= gap0, f"phase 2 at {a1} ns: the first 90G frame at {switch} ns within one "
                   f"frame at 30G ({gap0:.1f} ns; a bin is 100 us)")
        rc, res, r, o = replay_run(ROCEPROBE, tmp, rep, "as-inferred")
        if res:
            expect(rc == 0 and res["verdict"] == "REPRODUCED", f"the phases reproduced: {res['verdict']}")
            check_bins("the reproduction", os.path.join(tmp, "as-inferred", "reproduction", "capture-h1.pcap"))
    elif CASE == "headroom":
        lab1, rep = incident(tmp, os.path.join(PROFILES, "headroom-too-small.yaml"))
        o = json.load(open(os.path.join(rep, "incident.json")))
        drops = sum(f["lost"] for f in lab1["flows"])
        expect(drops > 0 and o["totals"]["lost"] == drops, f"the incident's loss {o['totals']['lost']} == the lab's "
               f"lossless drops ({drops})")
        rc, res, r, o = replay_run(ROCEPROBE, tmp, rep, "as-inferred")
        if res:
            expect(rc == 0 and res["verdict"] == "REPRODUCED" and r["totals"]["lost"] == o["totals"]["lost"],
                   f"the headroom overflow reproduced: {res['verdict']}, loss {o['totals']['lost']} -> "
                   f"{r['totals']['lost']}")
    elif CASE == "bad":
        lab1, rep = incident(tmp, os.path.join(PROFILES, "incast-8to1.yaml"))

        def variant(name, edit):
            d = os.path.join(tmp, name)
            shutil.copytree(rep, d)
            edit(d)
            return d

        def put(path, text):
            with open(path, "w") as f:
                f.write(text)

        noinc = variant("noinc", lambda d: os.remove(os.path.join(d, "incident.json")))
        other = variant("other", lambda d: put(os.path.join(d, "incident.json"), '{"schema": "roceprobe.result/1"}'))
        broken = variant("broken", lambda d: put(os.path.join(d, "profile.yaml"), "hosts: [\n"))
        bare = os.path.join(tmp, "bare")  # without --fabric: hosts from the frames, no port:
        rp("replay", "infer", *sorted(glob.glob(os.path.join(tmp, "run1", "capture-*.pcap"))), "-o", bare)
        full = os.path.join(tmp, "full")
        os.makedirs(full)
        put(os.path.join(full, "keep.txt"), "mine\n")
        cases = [("no DIR", [os.path.join(tmp, "nosuch")], "out"),
                 ("no incident.json", [noinc], "out"),
                 ("another schema", [other], "out"),
                 ("a broken profile", [broken], "out"),
                 ("a bad --set", [rep, "--set", "fabric.pfc=off"], "out"),
                 ("a --set of no key", [rep, "--set", "traffic.0.nosuch=1"], "out"),
                 ("a tolerance of no symptom", [rep, "--tolerance", "nosuch=0.1"], "out"),
                 ("a tolerance not a number", [rep, "--tolerance", "goodput=abc"], "out"),
                 ("a negative tolerance", [rep, "--tolerance", "goodput=-1"], "out"),
                 ("--engine run of a profile without port:", [bare, "--engine", "run"], "out"),
                 ("an unknown engine", [rep, "--engine", "sim"], "out"),
                 ("a non-empty OUT", [rep], "full")]
        for what, args, outname in cases:
            out = os.path.join(tmp, outname)
            p = rp("replay", "run", *args, "-q", "-o", out)
            lines = p.stderr.strip().splitlines()
            kept = outname == "full" and os.listdir(full) == ["keep.txt"]
            expect(p.returncode == 2 and len(lines) == 1 and (kept or not os.path.exists(out)) and
                   not glob.glob(out + ".part-*"), f"{what}: exit {p.returncode}, one line, no OUT: {lines}")
        p = rp("replay", "run", rep, "-q", "-o", os.path.join(tmp, "tol"), "--tolerance", "goodput=0",
               "--tolerance", "pfc_frames=100%")
        res = json.load(open(os.path.join(tmp, "tol", "result.json")))
        expect(res["tolerances"]["goodput"] == 0 and res["tolerances"]["pfc_frames"] == 1 and
               {s["name"]: s["tolerance"] for s in res["symptoms"]}["goodput"] == 0,
               "--tolerance goodput=0 and pfc_frames=100% are the tolerances judged by")
    elif CASE == "signal":
        lab1, rep = incident(tmp, os.path.join(PROFILES, "incast-8to1.yaml"))
        for sig in (signal.SIGINT, signal.SIGTERM):
            out = os.path.join(tmp, f"again-{sig.name}")
            p = subprocess.Popen([ROCEPROBE, "replay", "run", rep, "-o", out, "--set", "traffic.0.messages=1000000"],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            for line in p.stderr:
                if line.startswith("lab: virtual "):
                    break
            p.send_signal(sig)
            _, err = p.communicate(timeout=60)
            expect(p.returncode == 130 and not os.path.exists(out) and not glob.glob(out + ".part-*") and
                   "stopped by a signal" in err,
                   f"{sig.name} in the reproduction: exit {p.returncode}, OUT absent: {err.strip()}")
    else:
        sys.exit(f"unknown case {CASE}")
finish("replay-run-" + CASE)
