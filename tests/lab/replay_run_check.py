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
- incast, as inferred: rates are what the senders achieved (12.5G each: 8 x 12.5G fills
  h0's 100G link and nothing more), so goodput comes back within 10% but the PFC storm
  does not (fewer PFC frames than the original lab run's own count): PARTLY, exit 1;
- incast with the profile's offered rate restored (--set traffic.0.rate=100%, the
  original's): REPRODUCED, exit 0, every distance within its tolerance, and the
  reproduction's PFC frames per host == the original lab run's result.json;
- incast at half the inferred rate (8 x 6.4G = 51G < 100G: nothing queues): per-flow goodput
  halves (relative error 0.5 +- 0.05), no PFC frame, no pause: NOT, exit 1;
- victim with the offered rates (100%, 50G): REPRODUCED, the victim h7 -> h1 as the lab's
  own pause_propagation.victims; with PFC off: the victim and the pauses NOT (no PFC frame
  at all), exit 1;
- bad input: one line, exit 2, no OUT (nor OUT.part-*): no DIR, no incident.json, another
  schema, a broken profile, a bad --set, bad --tolerance, a non-empty OUT (left as it was),
  --engine run of a profile whose hosts have no port:, an unknown engine;
- signal: SIGINT, and SIGTERM, in a long reproduction: exit 130, OUT absent.

usage: replay_run_check.py ROCEPROBE PROFILES_DIR CASE
"""
import glob
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
from fidelity import flow_keys, rel, replay_run  # noqa: E402

ROCEPROBE, PROFILES, CASE = sys.argv[1], sys.argv[2], sys.argv[3]
def rp(*args):
    return subprocess.run([ROCEPROBE, *args], capture_output=True, text=True, timeout=120)


def incident(tmp, profile):
    """lab --capture, replay infer --fabric: (the lab's result.json, DIR)."""
    run1, rep = os.path.join(tmp, "run1"), os.path.join(tmp, "rep")
    p = rp("lab", profile, "-o", run1, "-q", "--capture")
    if p.returncode:
        sys.exit(f"lab failed: {p.stderr}")
    p = rp("replay", "infer", *sorted(glob.glob(os.path.join(run1, "capture-*.pcap"))), "--fabric", profile, "-o", rep)
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
        rate = re.search(r"\n\s+rate: ([0-9.]+)G", open(os.path.join(rep, "profile.yaml")).read())
        rc, res, r, o = replay_run(ROCEPROBE, tmp, rep, "as-inferred")
        if res:
            sv = {s["name"]: s for s in res["symptoms"]}
            expect(sv["goodput"]["verdict"] == "REPRODUCED" and sv["pfc_frames"]["reproduction"] <
                   sum(lab_pfc_by_host(lab1).values()) and res["verdict"] == "PARTLY" and rc == 1,
                   f"as inferred (achieved rates): goodput reproduced, fewer PFC frames "
                   f"({sv['pfc_frames']['reproduction']:.0f} < the lab's {sum(lab_pfc_by_host(lab1).values())}): PARTLY")
        rc, res, r, o = replay_run(ROCEPROBE, tmp, rep, "offered", "--set", "traffic.0.rate=100%")
        if res:
            expect(rc == 0 and res["verdict"] == "REPRODUCED" and res["sets"] == ["traffic.0.rate=100%"],
                   "the offered rate (100%, the original profile's) restored: REPRODUCED, exit 0")
            expect(pfc_by_host(r) == lab_pfc_by_host(lab1),
                   f"the reproduction's PFC frames per host == the original lab run's own ({lab_pfc_by_host(lab1)})")
        half = float(rate.group(1)) / 2
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
        rc, res, r, o = replay_run(ROCEPROBE, tmp, rep, "offered", "--set", "traffic.0.rate=100%", "--set", "traffic.1.rate=50G")
        if res:
            sv = {s["name"]: s for s in res["symptoms"]}
            expect(rc == 0 and res["verdict"] == "REPRODUCED" and
                   sorted(x.rsplit(" prio", 1)[0] for x in sv["victims"]["reproduction_set"]) == lv == ["h7 -> h1"],
                   f"the offered rates restored: REPRODUCED, victim {sv['victims']['reproduction_set']} as the lab's {lv}")
        rc, res, r, o = replay_run(ROCEPROBE, tmp, rep, "nopfc", "--set", "traffic.0.rate=100%", "--set", "traffic.1.rate=50G",
                                   "--set", "fabric.pfc.enabled=false")
        if res:
            sv = {s["name"]: s for s in res["symptoms"]}
            expect(rc == 1 and sv["victims"]["verdict"] == "NOT" and sv["victims"]["distance"] == 1 and
                   sv["pfc_frames"]["reproduction"] == 0 and sv["pause_order"]["verdict"] == "NOT",
                   f"PFC off: no PFC frame, the victim NOT, the pause order NOT, exit 1 ({res['verdict']})")
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
