"""replay run's distances and verdicts recomputed from two roceprobe.incident/1 documents by
the formulas docs/replay.md states (never by roceprobe's code), and one `replay run` checked
against them: what tests/lab and tests/interop replay_run_check.py share.

    from fidelity import replay_run
    rc, res, repro_incident, incident = replay_run(ROCEPROBE, tmp, DIR, "name", "--set", ...)
"""
import json
import os
import subprocess

from check import expect

TOL = {"goodput": 0.10, "ce_fraction": 0.25, "cnp_rate": 0.25, "loss": 0.25, "retransmissions": 0.25,
       "pfc_frames": 0.25, "paused_timeline": 0.20, "victims": 0.34, "pause_order": 0.34}  # docs/replay.md


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


def replay_run(roceprobe, tmp, rep, name, *args, tol=None):
    """replay run: (exit code, result.json, the reproduction's incident.json, DIR's incident.json);
    every distance and verdict checked against the recomputed ones."""
    out = os.path.join(tmp, name)
    tol = dict(TOL, **(tol or {}))
    args = [*args, *(f"--tolerance={k}={v}" for k, v in tol.items() if v != TOL[k])]
    p = subprocess.run([roceprobe, "replay", "run", rep, "-q", "-o", out, *args], capture_output=True, text=True,
                       timeout=120)
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
    expect(all(sv[k] == verdict(want[k], tol[k]) for k in want), f"{name}: each verdict by its tolerance: {sv}")
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
