#!/usr/bin/python3
"""tools/plot at the scale it is for, against known answers.

  large  65 hosts all-to-all on a leaf-spine (65 x 64 = 4160 flows: more than result.json
         keeps, so the flows and pairs are in flows.jsonl and pairs.jsonl), one 8 KiB WRITE
         each (2 packets of 4 KiB):

             spine0  spine1
              |  \\  /  |
           leaf0 .. leaf4        (13 hosts each, 100G down, 2 x 400G up)
           h0..h12 .. h52..h64

         Every PNG says in its Description chunk what it drew: goodput as a distribution of
         4160 flows read from flows.jsonl, a 65 x 65 heatmap of 4160 pairs (every cell but the
         diagonal), one latency class of 4160 x 2 = 8320 samples, PFC tiers hosts, leaf, spine.
         Then bad input: that flows.jsonl cut in the middle of line 101, a result.json of
         another schema: exit 2, one line on stderr, no PNG written.
  small  incast-8to1 (8 flows): one bar a flow; 9 hosts and 8 pairs (one column) in the heatmap.
"""
import json
import os
import struct
import subprocess
import sys
import tempfile

ROCEPROBE, PROFILES, CASE = sys.argv[1], sys.argv[2], sys.argv[3]
PLOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools", "plot")
PNGS = ("latency_cdf.png", "pfc_timeline.png", "goodput.png", "heatmaps.png")
failed = []


def expect(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failed.append(what)


def described(path):
    """A PNG's tEXt 'Description' as JSON (read chunk by chunk: no imaging library)."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    at = 8
    while at < len(data):
        n, kind = struct.unpack(">I4s", data[at:at + 8])
        body = data[at + 8:at + 8 + n]
        if kind == b"tEXt" and body.startswith(b"Description\0"):
            return json.loads(body[len(b"Description\0"):].decode("latin-1"))
        at += 12 + n
    return None


def lab(tmp, profile_text, name):
    prof = os.path.join(tmp, name + ".yaml")
    open(prof, "w").write(profile_text)
    out = os.path.join(tmp, name)
    p = subprocess.run([ROCEPROBE, "lab", prof, "-o", out, "-q"], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    return out


def plot(d, *args):
    return subprocess.run([PLOT, d, *args], capture_output=True, text=True, timeout=120)


def a2a_profile(n, leaves, spines):
    hosts = "\n".join(f'  - {{name: h{i}, mac: "02:00:00:41:00:{i:02x}", ipv4: 10.65.0.{i + 1}}}' for i in range(n))
    return f"""name: a2a-{n}
defaults: {{speed: 100G, opcode: write, message_size: 8KiB, mtu: 4096, dscp: 26, ecn: ect0}}
hosts:
{hosts}
traffic:
  - {{name: a2a, pattern: all-to-all, hosts: all, rate: 100%, messages: 1}}
fabric:
  topology: leaf-spine
  leaves: {leaves}
  spines: {spines}
  hosts_per_leaf: {n // leaves}
  uplink: {{speed: 400G}}
  pfc: {{priorities: [3], xoff: 64KiB}}
"""


def case_large(tmp):
    d = lab(tmp, a2a_profile(65, 5, 2), "large")
    j = json.load(open(os.path.join(d, "result.json")))
    expect(j["flows"] == [] and j.get("flows_file") == "flows.jsonl", "the lab put its 4160 flows in flows.jsonl")
    p = plot(d)
    expect(p.returncode == 0 and p.stdout.split() == [os.path.join(d, n) for n in PNGS],
           f"tools/plot wrote the four PNGs ({p.returncode}, {p.stdout.split()}, {p.stderr.strip()[-200:]})")
    g = described(os.path.join(d, "goodput.png")) or {}
    expect(g.get("flows") == 4160 and g.get("as") == "distribution" and g.get("key") == "goodput_active_gbps",
           f"goodput.png: the 65 x 64 = 4160 flows of flows.jsonl as a distribution ({g})")
    expect(len(g.get("slowest", [])) == 5 and g["min"] <= g["median"] <= g["max"] <= 100.0,
           "goodput.png: the 5 slowest named, min <= median <= max <= the 100G line")
    h = described(os.path.join(d, "heatmaps.png")) or {}
    expect(h.get("hosts") == 65 and h.get("pairs") == 4160 and h.get("goodput_gbps", {}).get("cells") == 4160
           and h.get("loss_pct", {}).get("cells") == 4160,
           f"heatmaps.png: 65 x 65 with every cell but the 65 on the diagonal (4225 - 65 = 4160) ({h})")
    lat = described(os.path.join(d, "latency_cdf.png")) or {}
    expect([(c["dscp"], c["prio"], c["samples"]) for c in lat.get("classes", [])] == [(26, 3, 8320)],
           f"latency_cdf.png: one class, DSCP 26 prio 3, 4160 flows x 2 packets = 8320 samples ({lat})")
    pfc = described(os.path.join(d, "pfc_timeline.png")) or {}
    tiers = pfc.get("tiers", [])
    expect([t["tier"].split(" ")[0] for t in tiers] == ["hosts", "leaf", "spine"]
           and tiers[0]["ports"] == 65 and all(len(t["named"]) <= 5 for t in tiers),
           f"pfc_timeline.png: hosts (65 ports), leaf, spine, at most 5 ports named each ({tiers})")
    for n in PNGS:
        os.remove(os.path.join(d, n))
    case_bad(tmp, d)


def case_small(tmp):
    d = lab(tmp, open(os.path.join(PROFILES, "incast-8to1.yaml")).read(), "small")
    out = os.path.join(tmp, "pngs")
    p = plot(d, "-o", out)
    expect(p.returncode == 0, f"tools/plot -o: exit {p.returncode} {p.stderr.strip()[-200:]}")
    g = described(os.path.join(out, "goodput.png")) or {}
    expect(g.get("flows") == 8 and g.get("as") == "bars", f"goodput.png: 8 flows, one bar each ({g})")
    # one number, one definition: the bars are result.json's goodput_active_gbps (named on the plot)
    active = sorted(f["goodput_active_gbps"] for f in json.load(open(os.path.join(d, "result.json")))["flows"])
    expect(g.get("key") == "goodput_active_gbps" and (g.get("min"), g.get("max")) == (active[0], active[-1]),
           f"goodput.png draws goodput_active_gbps: {g.get('min')}..{g.get('max')} == {active[0]}..{active[-1]}")
    h = described(os.path.join(out, "heatmaps.png")) or {}
    expect(h.get("hosts") == 9 and h.get("pairs") == 8 and h["goodput_gbps"]["cells"] == 8,
           f"heatmaps.png: 9 hosts (8 senders and h0), 8 pairs: one column filled ({h})")


def case_bad(tmp, d):
    lines = open(os.path.join(d, "flows.jsonl")).read().splitlines(True)
    with open(os.path.join(d, "flows.jsonl"), "w") as f:
        f.writelines(lines[:100] + [lines[100][:50]])  # a copy cut in the middle of line 101
    p = plot(d)
    err = p.stderr.strip().splitlines()
    expect(p.returncode == 2 and len(err) == 1 and "flows.jsonl:101" in err[0] and p.stdout == "",
           f"a cut flows.jsonl: exit 2, one line naming line 101 ({p.returncode}, {err})")
    expect(not any(os.path.exists(os.path.join(d, n)) for n in PNGS), "no PNG written")
    other = os.path.join(tmp, "other")
    os.makedirs(other)
    json.dump({"schema": "roceprobe.certify/1"}, open(os.path.join(other, "result.json"), "w"))
    p = plot(other)
    err = p.stderr.strip().splitlines()
    expect(p.returncode == 2 and len(err) == 1 and "not a roceprobe result" in err[0], f"another schema: {err}")
    expect(not any(os.path.exists(os.path.join(other, n)) for n in PNGS), "no PNG written")


with tempfile.TemporaryDirectory() as tmp:
    {"large": case_large, "small": case_small}[CASE](tmp)
sys.exit(1 if failed else 0)
