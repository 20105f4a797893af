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
  --engine run and an unknown engine;
- signal: SIGINT in a long reproduction: exit 130, OUT absent.

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

ROCEPROBE, PROFILES, CASE = sys.argv[1], sys.argv[2], sys.argv[3]
TOL = {"goodput": 0.10, "ce_fraction": 0.25, "cnp_rate": 0.25, "loss": 0.25, "retransmissions": 0.25,
       "pfc_frames": 0.25, "paused_timeline": 0.20, "victims": 0.34, "pause_order": 0.34}  # docs/replay.md


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


def rel(o, r):
    return (0.0 if r == 0 else 1.0) if o == 0 else abs(r - o) / abs(o)


def flow_keys(inc):
    out, seen = {}, {}
    for f in inc["flows"]:
        k = f"{f['src']} -> {f['dst']} prio {f['prio']}"
        seen[k] = seen.get(k, 0) + 1
        out[k if seen[k] == 1 else f"{k} #{seen[k]}"] = f["goodput_gbps"]
    return out


def points(inc):
    return {(p["node"], x["prio"]): x["paused_fraction_bins"] for p in inc["ports"] for x in p["prio"]}


def jaccard_distance(a, b):
    return 1 - len(a & b) / len(a | b) if a | b else 0.0


def order_set(inc):
    po, s = inc["pause_order"], set()
    for x in po:
        a = f"{x['host']} prio {x['prio']}"
        s.add(a)
        s.update(f"{a} < {y['host']} prio {y['prio']}" for y in po if y["first_pause_ns"] - x["first_pause_ns"] > inc["bin_ns"])
    return s


def distances(o, r):
    """Every symptom's distance by docs/replay.md's formulas, from the two incident.json files."""
    go, gr = flow_keys(o), flow_keys(r)
    d = {"goodput": max([rel(v, gr[k]) if k in gr else 1.0 for k, v in go.items()] + [1.0 for k in gr if k not in go])}
    for name, key in (("ce_fraction", "ce_fraction"), ("cnp_rate", "cnp_per_s"), ("loss", "lost"),
                      ("retransmissions", "retransmissions")):
        d[name] = rel(o["totals"][key], r["totals"][key])
    d["pfc_frames"] = rel(*(sum(x["pfc_rx"] for p in i["ports"] for x in p["prio"]) for i in (o, r)))
    po, pr = points(o), points(r)
    # the reproduction's bins moved so that both first data frames share a bin
    shift = round((min(f["start_ns"] for f in o["flows"]) - min(f["start_ns"] for f in r["flows"])) / o["bin_ns"])
    num = den = 0.0
    for k in set(po) | set(pr):
        a, b = po.get(k, []), pr.get(k, [])
        a, b = ([0.0] * -shift + a, b) if shift < 0 else (a, [0.0] * shift + b)
        n = max(len(a), len(b))
        a, b = a + [0.0] * (n - len(a)), b + [0.0] * (n - len(b))
        num += sum(abs(x - y) for x, y in zip(a, b))
        den += sum(a) + sum(b)
    d["paused_timeline"] = num / den if den else 0.0
    d["victims"] = jaccard_distance(*({f"{v['src']} -> {v['dst']} prio {v['prio']}" for v in i["victims"]} for i in (o, r)))
    d["pause_order"] = jaccard_distance(order_set(o), order_set(r))
    return d


def verdict(d, t):
    return "REPRODUCED" if d <= t else "PARTLY" if d <= 2 * t else "NOT"


def replay_run(tmp, rep, name, *args):
    """replay run: (exit code, result.json, the reproduction's incident.json, DIR's incident.json);
    every distance and verdict checked against the recomputed ones."""
    out = os.path.join(tmp, name)
    p = rp("replay", "run", rep, "-q", "-o", out, *args)
    if not expect(p.returncode in (0, 1) and os.path.exists(os.path.join(out, "result.json")),
                  f"{name}: replay run exits {p.returncode} with a result ({p.stderr.strip()[-300:]})"):
        return p.returncode, None, None, None
    res = json.load(open(os.path.join(out, "result.json")))
    o = json.load(open(os.path.join(rep, "incident.json")))
    r = json.load(open(os.path.join(out, "incident.json")))
    want = distances(o, r)
    got = {s["name"]: s["distance"] for s in res["symptoms"]}
    expect(res["schema"] == "roceprobe.replay/1" and r["schema"] == "roceprobe.incident/1" and
           all(abs(got[k] - want[k]) < 1e-6 for k in want) and set(got) == set(want),
           f"{name}: every distance == the one recomputed from the two incident.json files: " +
           ", ".join(f"{k} {got.get(k, -1):.4f} ({want[k]:.4f})" for k in want))
    sv = {s["name"]: s["verdict"] for s in res["symptoms"]}
    expect(all(sv[k] == verdict(want[k], TOL[k]) for k in want), f"{name}: each verdict by its tolerance: {sv}")
    v = ("REPRODUCED" if all(x == "REPRODUCED" for x in sv.values()) else
         "NOT" if all(sv[s["name"]] == "NOT" for s in res["symptoms"] if s["in_incident"]) else "PARTLY")
    expect(res["verdict"] == v and p.returncode == (0 if v == "REPRODUCED" else 1),
           f"{name}: verdict {res['verdict']} ({v}), exit {p.returncode}")
    md, html = (open(os.path.join(out, f)).read() for f in ("report.md", "report.html"))
    npts = len(points(o).keys() | points(r).keys())
    expect(f"# replay run: {v}" in md and html.count("<svg") == min(npts, 16) and
           html.count("<polyline") == 2 * min(npts, 16) and "<script" not in html and "http://" not in
           html.replace("xmlns='http://www.w3.org/2000/svg'", ""),
           f"{name}: report.md says {v}; report.html has {npts} plots of two lines each, inline, nothing fetched")
    return p.returncode, res, r, o


def pfc_by_host(inc):
    return {p["node"]: sum(x["pfc_rx"] for x in p["prio"]) for p in inc["ports"] if p["prio"]}


def lab_pfc_by_host(lab):
    return {p["node"]: sum(x.get("pfc_rx", 0) for x in p["prio"]) for p in lab["ports"]
            if any(x.get("pfc_rx") for x in p["prio"])}


with tempfile.TemporaryDirectory() as tmp:
    if CASE == "incast":
        lab1, rep = incident(tmp, os.path.join(PROFILES, "incast-8to1.yaml"))
        rate = re.search(r"\n\s+rate: ([0-9.]+)G", open(os.path.join(rep, "profile.yaml")).read())
        rc, res, r, o = replay_run(tmp, rep, "as-inferred")
        if res:
            sv = {s["name"]: s for s in res["symptoms"]}
            expect(sv["goodput"]["verdict"] == "REPRODUCED" and sv["pfc_frames"]["reproduction"] <
                   sum(lab_pfc_by_host(lab1).values()) and res["verdict"] == "PARTLY" and rc == 1,
                   f"as inferred (achieved rates): goodput reproduced, fewer PFC frames "
                   f"({sv['pfc_frames']['reproduction']:.0f} < the lab's {sum(lab_pfc_by_host(lab1).values())}): PARTLY")
        rc, res, r, o = replay_run(tmp, rep, "offered", "--set", "traffic.0.rate=100%")
        if res:
            expect(rc == 0 and res["verdict"] == "REPRODUCED" and res["sets"] == ["traffic.0.rate=100%"],
                   "the offered rate (100%, the original profile's) restored: REPRODUCED, exit 0")
            expect(pfc_by_host(r) == lab_pfc_by_host(lab1),
                   f"the reproduction's PFC frames per host == the original lab run's own ({lab_pfc_by_host(lab1)})")
        half = float(rate.group(1)) / 2
        rc, res, r, o = replay_run(tmp, rep, "half", "--set", f"traffic.0.rate={half:.4f}G")
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
        rc, res, r, o = replay_run(tmp, rep, "offered", "--set", "traffic.0.rate=100%", "--set", "traffic.1.rate=50G")
        if res:
            sv = {s["name"]: s for s in res["symptoms"]}
            expect(rc == 0 and res["verdict"] == "REPRODUCED" and
                   sorted(x.rsplit(" prio", 1)[0] for x in sv["victims"]["reproduction_set"]) == lv == ["h7 -> h1"],
                   f"the offered rates restored: REPRODUCED, victim {sv['victims']['reproduction_set']} as the lab's {lv}")
        rc, res, r, o = replay_run(tmp, rep, "nopfc", "--set", "traffic.0.rate=100%", "--set", "traffic.1.rate=50G",
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
                 ("--engine run", [rep, "--engine", "run"], "out"),
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
        out = os.path.join(tmp, "again")
        p = subprocess.Popen([ROCEPROBE, "replay", "run", rep, "-o", out, "--set", "traffic.0.messages=1000000"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        for line in p.stderr:
            if line.startswith("lab: virtual "):
                break
        p.send_signal(signal.SIGINT)
        _, err = p.communicate(timeout=60)
        expect(p.returncode == 130 and not os.path.exists(out) and not glob.glob(out + ".part-*") and
               "stopped by a signal" in err, f"SIGINT in the reproduction: exit {p.returncode}, OUT absent: {err.strip()}")
    else:
        sys.exit(f"unknown case {CASE}")
finish("replay-run-" + CASE)
