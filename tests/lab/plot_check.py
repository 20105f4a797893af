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
  counters  counters.png (issue 24) from a hand-made result.json with literal samples: every
         rate drawn is the interval's change / its length, worked by hand below; 20 hosts: the
         median and the top 5.
  counters-switches  counters.png with result.json's counters.switches[] (issue 25): below the
         hosts' panels, the switch ports' PFC frames (rates worked by hand from cumulative
         counts) and queue/PG watermarks (the values read, never a delta), each port named by
         the entry's ports map; 40 ports: the median and the top 5; a result whose switches
         have no samples draws the NIC panels alone; samples going back: exit 2, no PNG.
  counters-series  the same from roceprobe.counters/1 lines (tools/plot --counters): literal
         ones, a real `roceprobe counters sysfs:lo --watch 50ms --json`; bad input: exit 2,
         one line, no PNG.
"""
import json
import os
import signal
import struct
import subprocess
import sys
import tempfile
import time

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


def result_dir(tmp, name, nics, switches=None):
    """A run's result.json reduced to what tools/plot reads, with these counters.nics[] (and
    counters.switches[] when given)."""
    d = os.path.join(tmp, name)
    os.makedirs(d)
    counters = {"nics": nics} if switches is None else {"nics": nics, "switches": switches}
    json.dump({"schema": "roceprobe.result/1", "kind": "run", "profile": {"name": name}, "flows": [],
               "pairs": {"rows": []}, "counters": counters}, open(os.path.join(d, "result.json"), "w"))
    return d


def panels(path):
    return {p["family"]: p for p in (described(path) or {}).get("panels", [])}


def series(panel):
    return {s["name"]: (s["to_ms"], s["rate"], s["events"]) for s in panel.get("drawn", [])}


def no_png(p, d, needle, what):
    err = p.stderr.strip().splitlines()
    expect(p.returncode == 2 and len(err) == 1 and needle in err[0] and p.stdout == ""
           and not [n for n in os.listdir(d) if n.endswith(".png")],
           f"{what}: exit 2, one line naming {needle!r}, no PNG ({p.returncode}, {err})")


# Samples as run writes them: t_ns from T0; the first the baseline (every counter at 0), each
# later one the change since the one before it, only what moved. Start at 40 us, then 100 ms,
# 100 ms and an end 50 ms later.
T = [40_000, 100_040_000, 200_040_000, 250_040_000]
NICS = [
    {"host": "h1", "source": "ethtool:eth2", "interval_ns": 100_000_000, "port": "eth2", "driver": "mlx5_core",
     "samples": [
         {"t_ns": T[0], "rx_out_of_buffer": 0, "prio": [{"prio": 3, "pfc_rx": 0, "pfc_tx": 0}, {"prio": 4, "pfc_rx": 0}],
          "raw": {"ch0_events": 0}, "gauges": {"module_temp": 51}, "resets": []},
         {"t_ns": T[1], "prio": [{"prio": 3, "pfc_rx": 250, "pfc_tx": 10}], "raw": {"ch0_events": 9},
          "gauges": {"module_temp": 51}, "resets": []},
         {"t_ns": T[2], "rx_out_of_buffer": 7, "prio": [{"prio": 3, "pfc_rx": 50}], "raw": {},
          "gauges": {"module_temp": 52}, "resets": []},
         {"t_ns": T[3], "prio": [{"prio": 3, "pfc_rx": 5}], "raw": {}, "gauges": {"module_temp": 53}, "resets": []}]},
    {"host": "h2", "source": "sysfs:eth3", "interval_ns": 100_000_000, "port": "eth3", "driver": None,
     "samples": [
         {"t_ns": T[0], "rx_dropped": 0, "tx_dropped": 0, "rx_packets": 0, "prio": [], "raw": {}, "gauges": {}, "resets": []},
         {"t_ns": T[1], "rx_dropped": 3, "rx_packets": 9000, "prio": [], "raw": {}, "gauges": {}, "resets": []},
         {"t_ns": T[2], "rx_packets": 9000, "prio": [], "raw": {}, "gauges": {}, "resets": []},
         {"t_ns": T[3], "rx_dropped": 1, "prio": [], "raw": {}, "gauges": {}, "resets": []}]},
    {"host": "h2", "source": "rdma:mlx5_1", "interval_ns": 100_000_000, "port": "mlx5_1", "driver": "mlx5",
     "samples": [
         {"t_ns": T[0], "cnp_sent": 0, "ecn_ce_received": 0, "prio": [], "raw": {}, "gauges": {}, "resets": []},
         {"t_ns": T[1], "cnp_sent": 40, "prio": [], "raw": {}, "gauges": {}, "resets": []},
         {"t_ns": T[2], "cnp_sent": 0, "ecn_ce_received": 12, "prio": [], "raw": {}, "gauges": {}, "resets": ["cnp_sent"]},
         {"t_ns": T[3], "prio": [], "raw": {}, "gauges": {}, "resets": []}]},
    {"host": "h3", "source": None, "reason": "port net_null0 has no Linux netdev", "interval_ns": 100_000_000,
     "port": None, "driver": None, "samples": []},
]
TO_MS = [100.04, 200.04, 250.04]  # the intervals' ends: (t_ns - T0 = 0) / 1e6


def case_counters(tmp):
    d = result_dir(tmp, "ctr", NICS)
    p = plot(d)
    expect(p.returncode == 0 and p.stdout.split() == [os.path.join(d, n) for n in PNGS + ("counters.png",)],
           f"a run with counter samples: the four PNGs and counters.png ({p.returncode}, {p.stderr.strip()[-200:]})")
    c = panels(os.path.join(d, "counters.png"))
    expect(list(c) == ["pfc_rx", "pfc_tx", "drops", "cnp_ecn", "gauges"], f"panels: PFC rx, PFC tx, drops, CNP/ECN, gauges ({list(c)})")
    # h1 prio 3 pfc_rx: 250 in 100 ms = 2500/s, 50 in 100 ms = 500/s, 5 in the last 50 ms = 100/s;
    # prio 4 offered but 0: counted, not drawn
    rx = c.get("pfc_rx", {})
    expect(series(rx) == {"h1 ethtool:eth2 prio 3 pfc_rx": (TO_MS, [2500.0, 500.0, 100.0], 305)}
           and (rx.get("hosts"), rx.get("series"), rx.get("nonzero")) == (1, 2, 1),
           f"pfc_rx: h1 prio 3 at 2500, 500, 100 frames/s (250/0.1, 50/0.1, 5/0.05); prio 4 at 0 ({rx})")
    # 10 in the first 100 ms = 100/s, then nothing moved
    expect(series(c.get("pfc_tx", {})) == {"h1 ethtool:eth2 prio 3 pfc_tx": (TO_MS, [100.0, 0.0, 0.0], 10)},
           f"pfc_tx: 10 / 0.1 s = 100 frames/s, then 0 ({c.get('pfc_tx')})")
    # rx_out_of_buffer 7 / 0.1 s = 70/s; sysfs rx_dropped 3 / 0.1 s = 30/s and 1 / 0.05 s = 20/s;
    # tx_dropped at 0; rx_packets is no drop (not in the panel)
    dr = c.get("drops", {})
    expect(series(dr) == {"h1 ethtool:eth2 rx_out_of_buffer": (TO_MS, [0.0, 70.0, 0.0], 7),
                          "h2 sysfs:eth3 rx_dropped": (TO_MS, [30.0, 0.0, 20.0], 4)}
           and (dr.get("hosts"), dr.get("series"), dr.get("nonzero")) == (2, 3, 2),
           f"drops: rx_out_of_buffer 70/s, rx_dropped 30/s and 20/s, tx_dropped 0 ({dr})")
    # cnp_sent 40 / 0.1 s = 400/s, then reset (shown 0, marked at 200.04 ms); ECN CE 12 / 0.1 s
    ce = c.get("cnp_ecn", {})
    expect(series(ce) == {"h2 rdma:mlx5_1 cnp_sent": (TO_MS, [400.0, 0.0, 0.0], 40),
                          "h2 rdma:mlx5_1 ecn_ce_received": (TO_MS, [0.0, 120.0, 0.0], 12)}
           and [s["resets_ms"] for s in ce.get("drawn", [])] == [[200.04], []],
           f"CNP/ECN: cnp_sent 400/s and its reset at 200.04 ms, ECN CE 120/s ({ce})")
    g = [(s["name"], s["t_ms"], s["value"]) for s in c.get("gauges", {}).get("drawn", [])]
    expect(g == [("h1 ethtool:eth2 module_temp", [0.04, 100.04, 200.04, 250.04], [51, 51, 52, 53])],
           f"gauges: the values read at each sample, 51 51 52 53 ({g})")
    # 20 sources in one file: source k's prio 3 received 10k PFC frames in 100 ms = 100k frames/s;
    # the median of 100..2000 is (1000 + 1100) / 2 = 1050, over the one 100 ms bin (centre 50 ms);
    # the top 5 named, ethtool:p20 first at 200 / 0.1 s = 2000
    many = [ctr("snapshot", R, f"ethtool:p{k}", [{"name": f"p{k}", "prio": [{"prio": 3, "pfc_rx": 0}]}])
            for k in range(1, 21)]
    many += [ctr("delta", R + 100_000_000, f"ethtool:p{k}", [{"name": f"p{k}", "prio": [{"prio": 3, "pfc_rx": 10 * k}]}],
                 100_000_000) for k in range(1, 21)]
    p = subprocess.run([PLOT, "--counters", jsonl(os.path.join(tmp, "many.jsonl"), many), os.path.join(tmp, "many")],
                       capture_output=True, text=True, timeout=60)
    rx = panels(os.path.join(tmp, "many", "counters.png")).get("pfc_rx", {})
    expect(p.returncode == 0 and rx.get("hosts") == 20 and rx.get("median") == {"t_ms": [50.0], "rate": [1050.0]}
           and [s["host"] for s in rx.get("drawn", [])] == [f"ethtool:p{k}" for k in (20, 19, 18, 17, 16)]
           and rx["drawn"][0]["rate"] == [2000.0],
           f"20 hosts: median 1050 frames/s, p20..p16 named, p20 at 200 / 0.1 s = 2000 ({rx})")


# A switch as run samples it (docs/results.md counters.switches[]), at the NICs' times T: the
# counters' absolute values the switch holds at each sample (as pfcstat would print them), and
# the watermarks read (gauges). The samples carry the first as the baseline (counts 0) and then
# each count's change; the test works the rates out from the absolute values by hand.
SW_CUM = {  # (port, key): the switch's own count of PFC frames of priority 3 at T[0..3]
    ("Ethernet0", "pfc_tx"): [1000, 1040, 1050, 1055],  # the switch paused h1: +40, +10, +5
    ("Ethernet4", "pfc_rx"): [7, 27, 27, 27],  # h2 paused the switch: +20 in the first 100 ms
    ("Ethernet8", "pfc_rx"): [0, 0, 0, 0],
}
SW_WM = {  # (port, "qN"/"pgN", key): the value read at T[0..3]
    ("Ethernet0", "q3", "shared_wm_bytes"): [1000, 5000, 8000, 8000],
    ("Ethernet0", "pg3", "headroom_wm_bytes"): [0, 0, 2048, 2048],
    ("Ethernet4", "q3", "shared_wm_bytes"): [0, 0, 0, 0],
}


def sw_samples(cum, wm, times):
    out = []
    for i, t in enumerate(times):
        ports = {}
        for (port, key), v in cum.items():
            p = ports.setdefault(port, {"name": port, "prio": [], "queues": [], "pgs": [], "raw": {},
                                        "gauges": {"prio3_queue": 3, "prio3_pg": 3}, "resets": []})
            d = 0 if i == 0 else v[i] - v[i - 1]
            if i == 0 or d:  # the baseline lists every count; later samples what moved
                e = next((e for e in p["prio"] if e["prio"] == 3), None) or {"prio": 3}
                e[key] = d
                if e not in p["prio"]:
                    p["prio"].append(e)
        for (port, obj, key), v in wm.items():
            scope, idx = ("queues", "queue") if obj[0] == "q" else ("pgs", "pg")
            n = int(obj.lstrip("qpg"))
            lst = ports[port][scope]
            e = next((e for e in lst if e[idx] == n), None) or {idx: n}
            e[key] = v[i]
            if i == 0:
                e["drops"] = 0  # a count beside the gauges: no watermark
            if e not in lst:
                lst.append(e)
        out.append({"t_ns": times[i], "dur_ns": 3_000_000, "ports": list(ports.values())})
    return out


def case_counters_switches(tmp):
    sw = {"name": "leaf1", "source": "sonic://127.0.0.1:6379", "interval_ns": 100_000_000, "optional": False,
          "ports": {"Ethernet0": "h1", "Ethernet4": "h2"}, "samples": sw_samples(SW_CUM, SW_WM, T)}
    d = result_dir(tmp, "sw", NICS, [sw])
    p = plot(d)
    expect(p.returncode == 0 and p.stdout.split() == [os.path.join(d, n) for n in PNGS + ("counters.png",)],
           f"a run with switch samples: the four PNGs and counters.png ({p.returncode}, {p.stderr.strip()[-200:]})")
    desc = described(os.path.join(d, "counters.png")) or {}
    c = panels(os.path.join(d, "counters.png"))
    expect(list(c) == ["pfc_rx", "pfc_tx", "drops", "cnp_ecn", "gauges", "switch_pfc_rx", "switch_pfc_tx",
                       "switch_watermarks"] and desc.get("switch_ports") == 3 and desc.get("sources") == 3,
           f"panels: the hosts' five, then the switch's PFC rx, PFC tx, watermarks; 3 switch ports ({list(c)}, {desc.get('switch_ports')})")
    expect(series(c.get("pfc_rx", {})) == {"h1 ethtool:eth2 prio 3 pfc_rx": (TO_MS, [2500.0, 500.0, 100.0], 305)},
           "the hosts' panels as without switches (h1 prio 3 pfc_rx 2500, 500, 100)")
    # rates from the switch's own counts: (1040 - 1000) / 0.1 s = 400, (1050 - 1040) / 0.1 = 100,
    # (1055 - 1050) / 0.05 = 100; (27 - 7) / 0.1 = 200, then 0; Ethernet8's at 0 (offered, not drawn)
    cum = SW_CUM[("Ethernet0", "pfc_tx")]
    want_tx = [(cum[i + 1] - cum[i]) * 1e9 / (T[i + 1] - T[i]) for i in range(3)]
    expect(want_tx == [400.0, 100.0, 100.0], f"the hand-worked rates: 400, 100, 100 ({want_tx})")
    tx = c.get("switch_pfc_tx", {})
    expect(series(tx) == {"leaf1:Ethernet0 (to h1) prio 3 pfc_tx": (TO_MS, want_tx, 55)}
           and (tx.get("hosts"), tx.get("series"), tx.get("nonzero")) == (1, 1, 1),
           f"switch PFC sent: Ethernet0, facing h1, at 400, 100, 100 frames/s, 55 in all ({tx})")
    rx = c.get("switch_pfc_rx", {})
    expect(series(rx) == {"leaf1:Ethernet4 (to h2) prio 3 pfc_rx": (TO_MS, [200.0, 0.0, 0.0], 20)}
           and (rx.get("hosts"), rx.get("series"), rx.get("nonzero")) == (2, 2, 1),
           f"switch PFC received: Ethernet4, facing h2, at 200/s; Ethernet8 (no ports: entry) offered at 0 ({rx})")
    drawn = tx.get("drawn", [{}])[0]
    expect((drawn.get("switch"), drawn.get("port"), drawn.get("faces")) == ("leaf1", "Ethernet0", "h1"),
           f"each series says its switch, port and the host it faces ({drawn})")
    # watermarks: the values read at every sample (a delta would be 4000, 3000, 0), from T0 = 0
    wm = {s["name"]: (s["t_ms"], s["value"]) for s in c.get("switch_watermarks", {}).get("drawn", [])}
    at = [t / 1e6 for t in T]
    expect(wm == {"leaf1:Ethernet0 (to h1) q3.shared_wm_bytes": (at, SW_WM[("Ethernet0", "q3", "shared_wm_bytes")]),
                  "leaf1:Ethernet0 (to h1) pg3.headroom_wm_bytes": (at, SW_WM[("Ethernet0", "pg3", "headroom_wm_bytes")])}
           and c["switch_watermarks"]["series"] == 3,
           f"watermarks as read: q3 1000 5000 8000 8000, pg3 headroom 0 0 2048 2048; Ethernet4's at 0 ({wm})")
    # 40 switch ports: port k received 10k frames in 100 ms (100k/s); the median of 100..4000 is
    # (2000 + 2100) / 2 = 2050 over the one bin (centre 50 ms); the top 5 named, Ethernet156 first
    many = {(f"Ethernet{4 * (k - 1)}", "pfc_rx"): [0, 10 * k] for k in range(1, 41)}
    big = dict(sw, ports={f"Ethernet{4 * (k - 1)}": f"h{k}" for k in range(1, 41)},
               samples=sw_samples(many, {}, [0, 100_000_000]))
    d = result_dir(tmp, "sw40", [], [big])
    p = plot(d)
    c = panels(os.path.join(d, "counters.png"))
    rx = c.get("switch_pfc_rx", {})
    expect(p.returncode == 0 and list(c) == ["switch_pfc_rx", "switch_pfc_tx"]
           and rx.get("hosts") == 40 and rx.get("median") == {"t_ms": [50.0], "rate": [2050.0]}
           and [s["port"] for s in rx.get("drawn", [])] == [f"Ethernet{4 * (k - 1)}" for k in (40, 39, 38, 37, 36)]
           and rx["drawn"][0]["rate"] == [4000.0] and rx["drawn"][0]["name"] == "leaf1:Ethernet156 (to h40) prio 3 pfc_rx",
           f"40 ports, no NIC samples: the switch panels alone, median 2050, Ethernet156..140 named, 4000/s ({p.stderr.strip()[-200:]} {list(c)} {rx})")
    # no switch samples (optional and unreachable) or none at all: the NIC panels alone, as before
    for name, sws in (("sw-none", []), ("sw-down", [dict(sw, optional=True, reason="unreachable", samples=[])])):
        d = result_dir(tmp, name, NICS, sws)
        p = plot(d)
        desc = described(os.path.join(d, "counters.png")) or {}
        expect(p.returncode == 0 and list(panels(os.path.join(d, "counters.png"))) == ["pfc_rx", "pfc_tx", "drops", "cnp_ecn", "gauges"]
               and desc.get("switch_ports") == 0,
               f"{name}: the hosts' five panels, no switch panel ({p.returncode}, {desc.get('switch_ports')})")
    back = dict(sw, samples=json.loads(json.dumps(sw["samples"])))
    back["samples"][2]["t_ns"] = 50_000_000
    d = result_dir(tmp, "sw-back", NICS, [back])
    no_png(plot(d), d, "counters.switches[0].samples[2]", "a switch sample before the one before it")


def jsonl(path, lines):
    with open(path, "w") as f:
        for line in lines:
            f.write((line if isinstance(line, str) else json.dumps(line)) + "\n")
    return path


def ctr(kind, t, source, ports, interval=None):
    line = {"schema": "roceprobe.counters/1", "kind": kind, "t_ns": t, "source": source, "ports": ports}
    if interval:
        line["interval_ns"] = interval
    return line


R = 1796612676_000_000_000  # CLOCK_REALTIME of the first line
SERIES = [
    ctr("snapshot", R, "ethtool:eth2", [{"name": "eth2", "driver": "mlx5_core", "rx_out_of_buffer": 1000,
                                         "prio": [{"prio": 3, "pfc_rx": 77000, "pfc_tx": 5}], "raw": {}, "gauges": {}}]),
    ctr("snapshot", R + 2_000_000, "rdma:mlx5_0", [{"name": "mlx5_0/1", "cnp_handled": 9, "prio": [], "raw": {}, "gauges": {}},
                                                   {"name": "mlx5_0/2", "cnp_handled": 0, "prio": [], "raw": {}, "gauges": {}}]),
    # read 100,000,700 ns later by the wall clock, 100 ms by the monotonic one: the rate is over interval_ns
    ctr("delta", R + 100_000_700, "ethtool:eth2", [{"name": "eth2", "driver": "mlx5_core", "rx_out_of_buffer": 0,
                                                    "prio": [{"prio": 3, "pfc_rx": 300, "pfc_tx": 0}], "raw": {},
                                                    "gauges": {}, "resets": []}], 100_000_000),
    ctr("delta", R + 102_000_000, "rdma:mlx5_0", [{"name": "mlx5_0/1", "cnp_handled": 25, "prio": [], "raw": {}, "gauges": {}, "resets": []},
                                                  {"name": "mlx5_0/2", "cnp_handled": 0, "prio": [], "raw": {}, "gauges": {}, "resets": []}],
        100_000_000),
    ctr("delta", R + 200_000_700, "ethtool:eth2", [{"name": "eth2", "driver": "mlx5_core", "rx_out_of_buffer": 2,
                                                    "prio": [{"prio": 3, "pfc_rx": 40, "pfc_tx": 0}], "raw": {},
                                                    "gauges": {}, "resets": []}], 80_000_000),
]


def case_counters_series(tmp):
    out = os.path.join(tmp, "series")
    # the series appended to: eth2 read again from a snapshot at 300 ms, then 10 PFC frames in 100 ms
    again = [ctr("snapshot", R + 300_000_000, "ethtool:eth2", [{"name": "eth2", "rx_out_of_buffer": 1002,
                                                                 "prio": [{"prio": 3, "pfc_rx": 77350}]}]),
             ctr("delta", R + 400_000_000, "ethtool:eth2", [{"name": "eth2", "prio": [{"prio": 3, "pfc_rx": 10}]}],
                 100_000_000)]
    f = jsonl(os.path.join(tmp, "series.jsonl"), SERIES + again)
    p = subprocess.run([PLOT, "--counters", f, out], capture_output=True, text=True, timeout=60)
    expect(p.returncode == 0 and p.stdout.split() == [os.path.join(out, "counters.png")],
           f"--counters FILE.jsonl OUTDIR: counters.png alone ({p.returncode}, {p.stderr.strip()[-200:]})")
    c = panels(os.path.join(out, "counters.png"))
    # ms since the first line: 100,000,700 ns -> 100.0007 ms; 300 / 0.1 s = 3000/s; then 40 over an
    # interval_ns of 80 ms = 500/s; the snapshots' absolute 77000 and 77350 are no rate; after the
    # second snapshot 10 / 0.1 s = 100/s to 400 ms, one line with a gap from 200.0007 to 300 ms
    rx = c.get("pfc_rx", {}).get("drawn", [{}])
    expect(series(c.get("pfc_rx", {})) == {"ethtool:eth2 prio 3 pfc_rx": ([100.0007, 200.0007, 400.0],
                                                                           [3000.0, 500.0, 100.0], 350)},
           f"jsonl pfc_rx: 300 / 0.1 s = 3000, 40 / 0.08 s = 500, 10 / 0.1 s = 100 frames/s ({rx})")
    expect(series(c.get("drops", {})) == {"ethtool:eth2 rx_out_of_buffer": ([100.0007, 200.0007, 400.0],
                                                                            [0.0, 25.0, 0.0], 2)},
           f"jsonl drops: rx_out_of_buffer 2 / 0.08 s = 25/s ({c.get('drops')})")
    # the RDMA device's two ports, each its own line: port 1 25 / 0.1 s = 250/s, port 2 at 0
    ce = c.get("cnp_ecn", {})
    expect(series(ce) == {"rdma:mlx5_0 mlx5_0/1 cnp_handled": ([102.0], [250.0], 25)} and ce.get("series") == 2,
           f"jsonl cnp_handled: mlx5_0/1 at 250/s, mlx5_0/2 at 0 ({ce})")
    # a real series: roceprobe counters on lo for about 0.4 s; each rate the line's change / interval_ns
    real = os.path.join(tmp, "lo.jsonl")
    with open(real, "w") as fo:
        w = subprocess.Popen([ROCEPROBE, "counters", "sysfs:lo", "--watch", "50ms", "--json"], stdout=fo)
        time.sleep(0.4)
        w.send_signal(signal.SIGINT)
        w.wait(timeout=10)
    lines = [json.loads(x) for x in open(real)]
    deltas = [x for x in lines if x["kind"] == "delta"]
    p = subprocess.run([PLOT, "--counters", real, os.path.join(tmp, "lo")], capture_output=True, text=True, timeout=60)
    dr = series(panels(os.path.join(tmp, "lo", "counters.png")).get("drops", {}))
    want = [x["ports"][0].get("rx_dropped", 0) * 1e9 / x["interval_ns"] for x in deltas]
    got = panels(os.path.join(tmp, "lo", "counters.png")).get("drops", {})
    expect(p.returncode == 0 and len(deltas) >= 3 and got.get("series") == 2
           and dr.get("sysfs:lo rx_dropped", ([], want, 0))[1] == want,
           f"a real sysfs:lo series ({len(deltas)} deltas): rx_dropped and tx_dropped, rates = change / interval_ns ({got})")
    case_counters_bad(tmp)


def case_counters_bad(tmp):
    def bad(name, lines, needle, what):
        d = os.path.join(tmp, "bad-" + name)
        f = jsonl(os.path.join(tmp, name + ".jsonl"), lines)
        os.makedirs(d)
        no_png(subprocess.run([PLOT, "--counters", f, d], capture_output=True, text=True, timeout=60), d, needle, what)
    bad("cut", [json.dumps(SERIES[0]), json.dumps(SERIES[1]), json.dumps(SERIES[2])[:70]], "cut.jsonl:3",
        "a series cut in line 3")
    bad("schema", [dict(SERIES[0], schema="roceprobe.incident/1")], "not a roceprobe.counters/1 line", "another schema")
    bad("orphan", [SERIES[2]], "before its snapshot", "a delta with no snapshot before it")
    bad("snaponly", SERIES[:2], "no delta line", "snapshots only")
    bad("nointerval", [SERIES[0], {k: v for k, v in SERIES[2].items() if k != "interval_ns"}], "interval_ns",
        "a delta without interval_ns")
    bad("empty", [], "no counter lines", "an empty file")
    # a result.json whose samples go back in time: none of the five PNGs
    back = json.loads(json.dumps(NICS))
    back[1]["samples"][2]["t_ns"] = 50_000_000
    d = result_dir(tmp, "back", back)
    no_png(plot(d), d, "counters.nics[1].samples[2]", "a result.json sample before the one before it")


with tempfile.TemporaryDirectory() as tmp:
    {"large": case_large, "small": case_small, "counters": case_counters,
     "counters-series": case_counters_series, "counters-switches": case_counters_switches}[CASE](tmp)
sys.exit(1 if failed else 0)
