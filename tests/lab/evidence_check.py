#!/usr/bin/python3
"""The lab leaves the evidence a real fabric does (issue 26): `lab --mirror SWITCH:PORT`
(a SPAN port's pcap) and `lab --counters DURATION` (a roceprobe.counters/1 series), and
`replay infer` reads counter series beside captures.

    h1..h8 --\\
              sw0 (100G, PFC prio 3, 500 ns cables) --> h0      profiles/incast-8to1.yaml
    mirrored: sw0:0 (h0's port: the congested one) and sw0:1 (h1's)

Known answers, worked from the profile by hand (8 senders x 100 messages x 64 KiB / 4096 B
MTU = 16 packets a message):
- mirror: tshark reads sw0:0's pcap as 8 x 100 x 16 = 12800 RoCE frames, all to h0, none
  from it; sw0:1's as 100 x 16 = 1600 RoCE frames from h1 and the PFC frames the switch
  sent it, the same frames (ip, PSN, opcode) as h1's own capture (--capture) holds, each
  mirrored (last bit into the switch) (len + 24) x 8 / 100G + 500 ns after h1's capture
  stamped it leaving (its first bit);
- counters: the first line of each source a snapshot at 0 (every count 0), then deltas
  every 100 us; summed, h0 received 12800 frames and h1 sent 1600 (by hand), sw0's
  Ethernet0 sent 12800, and every switch port's rx/tx packets and bytes, per-priority
  PFC sent and received, queue packets, drops and ECN marks equal result.json's
  switches[].ports[] and each host's rx/tx and PFC its hosts[] and ports[]; the queue
  watermark gauge at the end is result.json's max_depth_bytes;
- bad --mirror / --counters: one line, exit 2, no DIR.

usage: evidence_check.py ROCEPROBE PROFILES_DIR CASE
"""
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from check import expect, finish  # noqa: E402

ROCEPROBE, PROFILES, CASE = sys.argv[1], sys.argv[2], sys.argv[3]
INCAST = os.path.join(PROFILES, "incast-8to1.yaml")
TSHARK = shutil.which("tshark")
SENDERS, MESSAGES, PKTS = 8, 100, 64 * 1024 // 4096
H0, H1 = "02:00:00:00:00:00", "02:00:00:00:00:01"


def rp(*args, ok=True):
    p = subprocess.run([ROCEPROBE, *args], capture_output=True, text=True, timeout=120)
    if ok and p.returncode != 0:
        sys.exit(f"roceprobe {' '.join(args)} failed ({p.returncode}): {p.stderr.strip()[-500:]}")
    return p


def lab(out, *args):
    rp("lab", INCAST, "-o", out, "-q", *args)
    return json.load(open(os.path.join(out, "result.json")))


def tshark(path, *fields, filt=None):
    """tshark's rows of fields (its exit status checked)."""
    cmd = [TSHARK, "-r", path, "-T", "fields"]
    if filt:
        cmd += ["-Y", filt]
    for f in fields:
        cmd += ["-e", f]
    p = subprocess.run(cmd, capture_output=True, text=True)
    expect(p.returncode == 0, f"tshark reads {os.path.basename(path)}{' (' + filt + ')' if filt else ''}")
    return [line.split("\t") for line in p.stdout.splitlines()]


def refused(args, what):
    """One line on stderr, exit 2, no DIR."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out")
        p = rp("lab", INCAST, "-o", out, "-q", *args, ok=False)
        lines = p.stderr.strip().splitlines()
        expect(p.returncode == 2 and len(lines) == 1 and not os.path.exists(out),
               f"{what}: exit {p.returncode} (2), {len(lines)} line (1), no DIR: {lines[:1]}")


def case_mirror(tmp):
    out = os.path.join(tmp, "m")
    r = lab(out, "--capture", "--mirror", "sw0:0,sw0:Ethernet1")
    if not TSHARK:
        sys.exit("tshark is not installed (tools/bootstrap.sh installs it)")
    m0, m1 = os.path.join(out, "mirror-sw0-0.pcap"), os.path.join(out, "mirror-sw0-1.pcap")
    rows = tshark(m0, "eth.src", "eth.dst", "udp.dstport")
    roce = [x for x in rows if x[2] == "4791"]
    want = SENDERS * MESSAGES * PKTS
    expect(len(rows) == want and len(roce) == want, f"sw0:0 mirror: {len(rows)} frames, {len(roce)} RoCE == 8 x 100 x 16 = {want}")
    expect(all(x[1] == H0 for x in rows), "sw0:0 mirror: every frame to h0 (h0 sends nothing: no ACKs in the profile)")
    rows = tshark(m1, "eth.src", "eth.dst", "eth.type", "ip.src", "ip.dst", "infiniband.bth.psn", "infiniband.bth.opcode")
    data = [x for x in rows if x[0] == H1 and x[2] == "0x0800"]
    pfc = [x for x in rows if x[2] == "0x8808"]
    expect(len(data) == MESSAGES * PKTS, f"sw0:1 mirror: {len(data)} RoCE frames from h1 == 100 x 16 = {MESSAGES * PKTS}")
    sw1 = r["switches"][0]["ports"][1]
    expect(len(pfc) == sw1["pfc_tx"] > 0 and len(rows) == len(data) + len(pfc),
           f"sw0:1 mirror: {len(pfc)} PFC frames == the switch's pfc_tx to h1 {sw1['pfc_tx']}, nothing else")
    host = tshark(os.path.join(out, "capture-h1.pcap"), "eth.src", "eth.dst", "eth.type", "ip.src", "ip.dst",
                  "infiniband.bth.psn", "infiniband.bth.opcode")
    expect(sorted(rows) == sorted(host), f"sw0:1 mirror: the same {len(rows)} frames as h1's own capture ({len(host)})")
    # time: h1's capture stamps a frame as its first bit leaves, the mirror as its last
    # bit reaches the switch: (len + 24) x 8 / 100G + 500 ns later
    mt = tshark(m1, "frame.time_epoch", "frame.len", "infiniband.bth.psn", filt=f"eth.src == {H1}")
    ht = tshark(os.path.join(out, "capture-h1.pcap"), "frame.time_epoch", "frame.len", "infiniband.bth.psn",
                filt=f"eth.src == {H1}")
    bad = 0
    for (tm, ln, psn), (th, ln2, psn2) in zip(mt[:50], ht[:50]):
        d = round((float(tm) - float(th)) * 1e9)
        ser = (int(ln) + 24) * 8 / 100
        bad += not (psn == psn2 and abs(d - (ser + 500)) <= 1.0)
    expect(len(mt) == len(ht) == 1600 and bad == 0,
           f"sw0:1 mirror: h1's first 50 frames (len + 24) x 8 / 100G + 500 ns after h1's stamps ({bad} off)")
    caps = {c["node"]: c for c in r["capture"]}
    expect(caps.get("sw0:0", {}).get("frames") == want and caps.get("sw0:1", {}).get("path") == "mirror-sw0-1.pcap",
           f"result.json capture[] names the mirrors: {[(k, v['frames']) for k, v in caps.items() if ':' in k]}")
    refused(["--mirror", "sw9:0"], "--mirror sw9:0 (no such switch)")
    refused(["--mirror", "sw0:9"], "--mirror sw0:9 (sw0 has ports 0..8)")
    refused(["--mirror", "sw0"], "--mirror sw0 (no port)")
    refused(["--mirror", "sw0:Ethernetx"], "--mirror sw0:Ethernetx")


def series(path):
    """{source: [lines]} in file order."""
    by = {}
    for line in open(path):
        j = json.loads(line)
        by.setdefault(j["source"], []).append(j)
    return by


def summed(lines):
    """(port, where, key) -> the sum of the delta lines; gauges: the last value."""
    s = {}
    for j in lines[1:]:
        for p in j["ports"]:
            for k, v in p.items():
                if isinstance(v, int) and k != "speed_bps":
                    s[(p["name"], "port", k)] = s.get((p["name"], "port", k), 0) + v
            for x in p.get("prio", []):
                for k, v in x.items():
                    if k != "prio":
                        s[(p["name"], f"prio{x['prio']}", k)] = s.get((p["name"], f"prio{x['prio']}", k), 0) + v
            for x in p.get("queues", []):
                for k, v in x.items():
                    if k == "queue":
                        continue
                    key = (p["name"], f"q{x['queue']}", k)
                    s[key] = v if "wm" in k else s.get(key, 0) + v
            for k, v in p.get("gauges", {}).items():
                s[(p["name"], "gauge", k)] = v
    return s


def case_counters(tmp):
    out = os.path.join(tmp, "c")
    r = lab(out, "--counters", "100us")
    by = series(os.path.join(out, "counters.jsonl"))
    hosts = [f"lab:h{i}" for i in range(9)]
    expect(sorted(by) == sorted(["lab:sw0"] + hosts), f"sources: {sorted(by)}")
    end = r["elapsed_ns"]
    ok = True
    for src, lines in by.items():
        ok &= lines[0]["kind"] == "snapshot" and lines[0]["t_ns"] == 0
        ok &= all(j["schema"] == "roceprobe.counters/1" and j["kind"] == "delta" for j in lines[1:])
        ok &= all(j["interval_ns"] == 100000 for j in lines[1:-1]) and lines[-1]["t_ns"] == end
        ok &= all(b["t_ns"] - a["t_ns"] == b["interval_ns"] for a, b in zip(lines, lines[1:]))
        ok &= all(v == 0 for p in lines[0]["ports"] for k, v in p.items() if isinstance(v, int))
    n = len(by["lab:sw0"])
    expect(ok and n == (end + 99999) // 100000 + 1,
           f"each source: a snapshot at 0 of zeros, then {n - 1} deltas 100 us apart, the last at the run's end {end} ns")
    sw = summed(by["lab:sw0"])
    want = SENDERS * MESSAGES * PKTS
    expect(sw[("Ethernet0", "port", "tx_packets")] == want,
           f"sw0 Ethernet0 tx_packets summed {sw[('Ethernet0', 'port', 'tx_packets')]} == 8 x 100 x 16 = {want}")
    h0, h1 = summed(by["lab:h0"]), summed(by["lab:h1"])
    expect(h0[("h0", "port", "rx_packets")] == want and h1[("h1", "port", "tx_packets")] == MESSAGES * PKTS,
           f"h0 rx_packets {h0[('h0', 'port', 'rx_packets')]} == {want}, h1 tx_packets {h1[('h1', 'port', 'tx_packets')]} "
           f"== 100 x 16")
    bad = []
    for port in r["switches"][0]["ports"]:
        name = f"Ethernet{port['port']}"
        pairs = [("rx_packets", port["rx_pkts"]), ("tx_packets", port["tx_pkts"]), ("rx_bytes", port["rx_bytes"]),
                 ("tx_bytes", port["tx_bytes"]), ("rx_discards", port["drop_pkts"])]
        for k, v in pairs:
            if sw.get((name, "port", k)) != v:
                bad.append((name, k, sw.get((name, "port", k)), v))
        for x in port["prio"]:
            q, g, t = x["queue"], x["pg"], x["prio"]
            for where, k, v in [(f"prio{t}", "pfc_tx", g["xoff_sent"] + g["xon_sent"]), (f"prio{t}", "pfc_rx", q["pfc_rx"]),
                                (f"q{t}", "packets", q["tx_pkts"]), (f"q{t}", "bytes", q["tx_bytes"]),
                                (f"q{t}", "drops", q["drop_pkts"]), (f"q{t}", "ecn_marked", q["ecn_marked"]),
                                (f"q{t}", "shared_wm_bytes", q["max_depth_bytes"])]:
                if sw.get((name, where, k)) != v:
                    bad.append((name, where, k, sw.get((name, where, k)), v))
    expect(not bad, f"sw0's ports summed == result.json switches[0].ports[] (rx/tx, PFC, queue, drops, ECN, watermark): {bad[:4]}")
    ecn = sw[("Ethernet0", "q3", "ecn_marked")]
    expect(ecn > 0 and sw[("Ethernet1", "prio3", "pfc_tx")] > 0, f"the incast shows: {ecn} ECN marks on h0's queue 3, "
           f"{sw[('Ethernet1', 'prio3', 'pfc_tx')]} PFC frames to h1")
    bad = []
    for i, h in enumerate(r["hosts"]):
        s = summed(by[f"lab:{h['name']}"])
        port = r["ports"][i]
        got = [s[(h["name"], "port", k)] for k in ("rx_packets", "rx_bytes", "tx_packets", "tx_bytes")]
        if got != [h["rx_frames"], h["rx_bytes"], h["tx_frames"], h["tx_bytes"]]:
            bad.append((h["name"], got))
        for x in port["prio"]:
            if (s.get((h["name"], f"prio{x['prio']}", "pfc_rx")), s.get((h["name"], f"prio{x['prio']}", "pfc_tx"))) != (
                    x["pfc_rx"], x["pfc_tx"]):
                bad.append((h["name"], x["prio"]))
    expect(not bad, f"every host summed == result.json hosts[] and ports[].prio[] (rx/tx, PFC): {bad[:4]}")
    refused(["--counters", "0"], "--counters 0")
    refused(["--counters", "abc"], "--counters abc")
    refused(["--counters", "100ns"], "--counters 100ns (under 1us)")


CASES = {"mirror": case_mirror, "counters": case_counters}

with tempfile.TemporaryDirectory() as tmp:
    CASES[CASE](tmp)
finish(f"evidence-{CASE}")
