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
- drops (profiles/headroom-too-small.yaml, lossy-lossless-mix.yaml): the series' PG drops
  (headroom overflow of the lossless class) and queue drops (the lossy class's tail drops)
  summed == the RoCE frames tshark finds leaving the senders' captures less those reaching
  the receivers', and the headroom watermark never above the 20 KiB the profile reserves;
- CNPs and CE (profiles/incast-32to1-ecn.yaml, 32:1 with DCQCN): h0's cnp_sent and
  ecn_ce_received summed == the CNPs (BTH opcode 0x81) tshark finds leaving h0's capture and
  the CE-marked RoCE frames reaching it; h1's and h32's cnp_handled == the CNPs reaching
  theirs;
- a stop: SIGINT mid-run leaves counters.jsonl whole, its last reading where the run
  stopped, and summed it equals the interrupted result.json;
- determinism: two runs write the same counters.jsonl and mirror pcap, byte for byte;
- bad --mirror / --counters: one line, exit 2, no DIR;
- replay infer with every host's capture and the series (renamed series.pcap, the capture
  h0.jsonl: told apart by content): incident.json's counters hold each switch port's PFC
  frames sent on priority 3 == the lab's switches[].ports[].pfc_tx, each host's received ==
  the lab's ports[].prio[3].pfc_rx == what the captures show at that host (incident ports[]),
  and per 100 us bin the PFC frames tshark finds in h1's capture in that bin ((k, k+1] x
  100 us: a reading at T holds what happened up to T); h0's queue 3 ECN marks and
  watermark == the lab's; h0's ecn_ce_received == the CE marks its capture shows;
- only the congested port mirrored (sw0:0, no host capture): replay infer finds the
  original profile's 8 flows (plan --json): endpoints, DSCP, QPs, opcode, message size and
  messages, as one incast to h0, ECN as sent (ECT(0): the mirror saw CE marks the
  switch made);
- bad counter evidence: counters of another fabric (a leaf-spine lab's, and a port sw0
  has not), readings 10 s after the captures, a line that is not counters/1, series
  without captures: one line, exit 2, no DIR.

usage: evidence_check.py ROCEPROBE PROFILES_DIR CASE
"""
import glob
import json
import os
import shutil
import signal
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
    ts = [float(x[0]) for x in tshark(m0, "frame.time_epoch")]
    expect(all(a <= b for a, b in zip(ts, ts[1:])), "sw0:0 mirror: records in time order")
    caps = {c["node"]: c for c in r["capture"]}
    expect(caps.get("sw0:0", {}).get("frames") == want and caps.get("sw0:1", {}).get("path") == "mirror-sw0-1.pcap",
           f"result.json capture[] names the mirrors: {[(k, v['frames']) for k, v in caps.items() if ':' in k]}")
    # a leaf-spine uplink (victim-flow: leaf0's ports 4, 5 go to spine0, spine1): a SPAN
    # there holds every frame the port received (data and PFC: rx_pkts) and sent (data
    # tx_pkts, PFC pfc_tx), as the switch counted them
    vout = os.path.join(tmp, "v")
    rp("lab", os.path.join(PROFILES, "victim-flow.yaml"), "-o", vout, "-q", "--mirror", "leaf0:Ethernet4,leaf0:5")
    vr = json.load(open(os.path.join(vout, "result.json")))
    leaf0 = [x for x in vr["switches"] if x["name"] == "leaf0"][0]
    for port in (4, 5):
        sp = leaf0["ports"][port]
        n = len(tshark(os.path.join(vout, f"mirror-leaf0-{port}.pcap"), "frame.number"))
        want = sp["rx_pkts"] + sp["tx_pkts"] + sp["pfc_tx"]
        expect(n == want > 0 and sp["peer"].startswith("spine"),
               f"leaf0:{port} (to {sp['peer']}) mirror: {n} frames == rx {sp['rx_pkts']} + tx {sp['tx_pkts']} + PFC sent "
               f"{sp['pfc_tx']}")
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
    again = [os.path.join(tmp, f"c{k}") for k in (1, 2)]
    for d in again:
        lab(d, "--counters", "100us", "--mirror", "sw0:0")
    same = all(open(os.path.join(again[0], f), "rb").read() == open(os.path.join(again[1], f), "rb").read()
               for f in ("counters.jsonl", "mirror-sw0-0.pcap"))
    expect(same and open(os.path.join(again[0], "counters.jsonl")).read() == open(os.path.join(out, "counters.jsonl")).read(),
           "the same profile twice: the same counters.jsonl and mirror pcap, byte for byte (--mirror changes no count)")
    refused(["--counters", "0"], "--counters 0")
    refused(["--counters", "abc"], "--counters abc")
    refused(["--counters", "100ns"], "--counters 100ns (under 1us)")


def infer(out, *evidence, ok=True):
    return rp("replay", "infer", *evidence, "--fabric", INCAST, "-o", out, ok=ok)


def case_infer(tmp):
    out = os.path.join(tmp, "i")
    r = lab(out, "--capture", "--counters", "100us")
    ev = os.path.join(tmp, "ev")
    os.mkdir(ev)
    caps = []
    for c in sorted(glob.glob(os.path.join(out, "capture-*.pcap"))):
        dst = os.path.join(ev, os.path.basename(c).replace("capture-", "").replace(".pcap", ".pcap" if "h0" not in c else ".jsonl"))
        shutil.copy(c, dst)
        caps.append(dst)
    series_file = os.path.join(ev, "series.pcap")
    shutil.copy(os.path.join(out, "counters.jsonl"), series_file)
    rep = os.path.join(tmp, "rep")
    infer(rep, series_file, *caps)
    inc = json.load(open(os.path.join(rep, "incident.json")))
    c = inc.get("counters", {})
    ports = {(p["source"], p["port"]): p for p in c.get("ports", [])}
    expect(len(c.get("files", [])) == 1 and c["files"][0]["lines"] == sum(1 for _ in open(series_file)),
           f"counters: one series read, every line: {c.get('files')}")

    def prio3(src, port, key):
        p = ports.get((src, port), {})
        x = [q for q in p.get("prio", []) if q["prio"] == 3]
        return (x[0][key], sum(x[0][key + "_bins"])) if x else (0, 0)

    bad = []
    for port in r["switches"][0]["ports"][1:]:
        got = prio3("lab:sw0", f"Ethernet{port['port']}", "pfc_tx")
        if got != (port["pfc_tx"], port["pfc_tx"]) or not port["pfc_tx"]:
            bad.append((port["port"], got, port["pfc_tx"]))
    expect(not bad, f"each sender's switch port: PFC sent on prio 3 (and its bins summed) == the lab's pfc_tx: {bad}")
    at_cap = {p["node"]: sum(x["pfc_rx"] for x in p["prio"] if x["prio"] == 3) for p in inc["ports"]}
    bad = []
    for i in range(1, 9):
        h = f"h{i}"
        lab_rx = [x["pfc_rx"] for x in r["ports"][i]["prio"] if x["prio"] == 3][0]
        got = prio3(f"lab:{h}", h, "pfc_rx")
        if got != (lab_rx, lab_rx) or at_cap.get(h) != lab_rx:
            bad.append((h, got, lab_rx, at_cap.get(h)))
    expect(not bad, f"each sender: PFC received on prio 3 from its counters == the lab's == its capture's: {bad}")
    t0 = inc["evidence"]["start_ns"]
    rows = tshark(os.path.join(ev, "h1.pcap"), "frame.time_epoch", filt="eth.type == 0x8808")
    nb = len(ports[("lab:h1", "h1")]["prio"][0]["pfc_rx_bins"])
    want = [0] * nb
    for (t,) in rows:
        ns = round(float(t) * 1e9) - t0
        k = max(0, -(-ns // 100000) - 1)  # the bin (k, k+1] x 100 us
        if k < nb:
            want[k] += 1
    got = ports[("lab:h1", "h1")]["prio"][0]["pfc_rx_bins"]
    expect(got == want and sum(want) == len(rows),
           f"h1's PFC per 100 us bin from its counters == tshark's count in its capture ({sum(got)} of {len(rows)}; "
           f"first bins {got[:6]} vs {want[:6]})")
    ce_flows = sum(f["ce"] for f in inc["flows"])
    ce_h0 = ports[("lab:h0", "h0")].get("ecn_ce_received")
    expect(ce_h0 == ce_flows > 0, f"h0's ecn_ce_received from its counters {ce_h0} == the CE-marked frames its "
           f"capture shows (incident flows[].ce summed) {ce_flows}")
    q = r["switches"][0]["ports"][0]["prio"]
    q3 = [x["queue"] for x in q if x["prio"] == 3][0]
    cq = [x for x in ports[("lab:sw0", "Ethernet0")]["queues"] if x["queue"] == 3]
    expect(cq and cq[0]["ecn_marked"] == q3["ecn_marked"] > 0 and cq[0]["wm_bytes"] == q3["max_depth_bytes"],
           f"h0's queue 3: ECN marks and watermark from the counters {cq} == the lab's "
           f"({q3['ecn_marked']}, {q3['max_depth_bytes']})")


def plan_flows(path):
    p = json.loads(rp("plan", "--json", path).stdout)
    return sorted((f["src"], f["dst"], f["dscp"], f["qps"], f["opcode"], f["message_size"], f["messages"])
                  for f in p["flows"])


def case_mirroronly(tmp):
    out = os.path.join(tmp, "mo")
    lab(out, "--mirror", "sw0:0")
    expect(not glob.glob(os.path.join(out, "capture-*")), "no host capture: the congested port's mirror alone")
    rep = os.path.join(tmp, "rep")
    infer(rep, os.path.join(out, "mirror-sw0-0.pcap"))
    prof = os.path.join(rep, "profile.yaml")
    orig, got = plan_flows(INCAST), plan_flows(prof)
    expect(got == orig and len(orig) == SENDERS,
           f"the {len(got)} inferred flows == the original's {len(orig)} (src, dst, dscp, qps, opcode, size, messages)")
    text = open(prof).read()
    expect(text.count("pattern: incast") == 1 and "senders: [h1, h2, h3, h4, h5, h6, h7, h8]" in text
           and "receiver: h0" in text and "ecn: ect0" in text,
           "one incast h1..h8 -> h0, ECN ect0 as sent (the mirror's CE marks are the switch's)")


def refused_infer(what, *evidence):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out")
        p = infer(out, *evidence, ok=False)
        lines = p.stderr.strip().splitlines()
        expect(p.returncode == 2 and len(lines) == 1 and not os.path.exists(out),
               f"{what}: exit {p.returncode} (2), {len(lines)} line (1), no DIR: {lines[:1]}")


def case_badcounters(tmp):
    out = os.path.join(tmp, "b")
    lab(out, "--capture", "--counters", "1ms")
    caps = sorted(glob.glob(os.path.join(out, "capture-*.pcap")))
    lines = open(os.path.join(out, "counters.jsonl")).read().splitlines()
    other = os.path.join(tmp, "other")
    rp("lab", os.path.join(PROFILES, "victim-flow.yaml"), "-o", other, "-q", "--counters", "1ms")
    refused_infer("counters of a leaf-spine lab", *caps, os.path.join(other, "counters.jsonl"))

    def variant(name, edit):
        path = os.path.join(tmp, name)
        with open(path, "w") as f:
            for line in lines:
                f.write(edit(json.loads(line)) + "\n")
        return path

    def port99(j):
        if j["source"] == "lab:sw0":
            j["ports"][0]["name"] = "Ethernet99"
        return json.dumps(j)

    def later(j):
        j["t_ns"] += 10 ** 10
        return json.dumps(j)

    refused_infer("a port sw0 has not (Ethernet99)", *caps, variant("p99.jsonl", port99))
    refused_infer("readings 10 s after the captures", *caps, variant("late.jsonl", later))
    garbage = os.path.join(tmp, "garbage.jsonl")
    with open(garbage, "w") as f:
        f.write(lines[0] + "\n" + '{"schema": "roceprobe.counters/1", "kind": "delta"}\n')
    refused_infer("a line without t_ns", *caps, garbage)
    refused_infer("counter series alone", os.path.join(out, "counters.jsonl"))


def roce_frames(path, src):
    return len(tshark(path, "frame.number", filt=f"udp.dstport == 4791 && eth.src == {src}"))


def drops_of(profile, tmp, tag):
    """(summed series of the switch, result.json, out dir) of a lab run with captures and counters."""
    out = os.path.join(tmp, tag)
    rp("lab", os.path.join(PROFILES, profile), "-o", out, "-q", "--capture", "--counters", "50us")
    r = json.load(open(os.path.join(out, "result.json")))
    return summed(series(os.path.join(out, "counters.jsonl"))["lab:sw0"]), r, out


def pg_summed(lines):
    s = {}
    for j in lines[1:]:
        for p in j["ports"]:
            for x in p.get("pgs", []):
                for k, v in x.items():
                    key = (p["name"], x["pg"], k)
                    s[key] = max(s.get(key, 0), v) if "wm" in k else s.get(key, 0) + v
    return s


def case_drops(tmp):
    """A dropped frame counts at its ingress PG (of the port it came in on) and its egress
    queue (lib/fabric's model): per sender from its PG, and in all at the receiver's queue."""
    for profile, tag, mac, senders, rx, prio, what in (
            ("headroom-too-small.yaml", "hr", "02:00:00:00:04:0", range(1, 5), 0, 3, "headroom overflow"),
            ("lossy-lossless-mix.yaml", "lossy", "02:00:00:00:05:0", range(4, 7), 7, 0, "lossy tail drops")):
        sw, r, out = drops_of(profile, tmp, tag)
        pg = pg_summed(series(os.path.join(out, "counters.jsonl"))["lab:sw0"])
        per, want = [], []
        arrived = tshark(os.path.join(out, f"capture-h{rx}.pcap"), "eth.src", filt=f"udp.dstport == 4791 && eth.dst == {mac}{rx}")
        for i in senders:
            sent = roce_frames(os.path.join(out, f"capture-h{i}.pcap"), src=f"{mac}{i}")
            got = sum(1 for x in arrived if x[0] == f"{mac}{i}")
            per.append(pg.get((f"Ethernet{i}", prio, "drops"), 0))
            want.append(sent - got)
        q = sw.get((f"Ethernet{rx}", f"q{prio}", "drops"))
        expect(per == want and sum(want) > 0 and q == sum(want) and sw.get((f"Ethernet{rx}", "port", "tx_discards")) == q,
               f"{what}: each sender's PG {prio} drops {per} == its frames sent less those at h{rx} (tshark) {want}; "
               f"h{rx}'s queue {prio} drops and tx_discards {q} == their sum")
        others = sum(v for (port, idx, k), v in pg.items() if k == "drops") - sum(per)
        expect(others == 0, f"{what}: no other PG dropped ({others})")
        if tag == "hr":
            hr = max(v for (port, idx, k), v in pg.items() if k in ("headroom_wm_bytes", "persistent_headroom_wm_bytes"))
            expect(0 < hr <= 20 * 1024, f"headroom watermark {hr} B within the 20 KiB the profile reserves")


def case_cnp(tmp):
    out = os.path.join(tmp, "e")
    rp("lab", os.path.join(PROFILES, "incast-32to1-ecn.yaml"), "-o", out, "-q", "--capture", "--counters", "100us")
    by = series(os.path.join(out, "counters.jsonl"))
    rows = tshark(os.path.join(out, "capture-h0.pcap"), "eth.src", "infiniband.bth.opcode", "ip.dsfield.ecn",
                  filt="udp.dstport == 4791")
    cnps = sum(1 for x in rows if x[1] == "129")
    ce = sum(1 for x in rows if x[1] != "129" and x[2] == "3")
    h0 = summed(by["lab:h0"])
    expect(h0[("h0", "port", "cnp_sent")] == cnps > 0 and h0[("h0", "port", "ecn_ce_received")] == ce > 0,
           f"h0: cnp_sent {h0[('h0', 'port', 'cnp_sent')]} == CNPs leaving its capture {cnps}; ecn_ce_received "
           f"{h0[('h0', 'port', 'ecn_ce_received')]} == CE-marked frames reaching it {ce} (tshark)")
    for h in ("h1", "h32"):
        n = len(tshark(os.path.join(out, f"capture-{h}.pcap"), "frame.number", filt="infiniband.bth.opcode == 129"))
        got = summed(by[f"lab:{h}"])[(h, "port", "cnp_handled")]
        expect(got == n > 0, f"{h}: cnp_handled {got} == CNPs reaching its capture {n} (tshark)")


def case_stop(tmp):
    out = os.path.join(tmp, "s")
    p = subprocess.Popen([ROCEPROBE, "lab", INCAST, "-o", out, "--set", "traffic.0.messages=100000", "--counters",
                          "20us"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    for line in p.stderr:
        if line.startswith("lab: virtual "):
            break
    p.send_signal(signal.SIGINT)
    p.communicate(timeout=60)
    r = json.load(open(os.path.join(out, "result.json")))
    by = series(os.path.join(out, "counters.jsonl"))
    end = r["elapsed_ns"]
    h0 = summed(by["lab:h0"])
    expect(p.returncode == 0 and r["interrupted"] and by["lab:h0"][-1]["t_ns"] == end
           and h0[("h0", "port", "rx_packets")] == r["hosts"][0]["rx_frames"] > 0
           and not os.path.exists(os.path.join(out, "counters.jsonl.part")),
           f"SIGINT at virtual {end} ns: counters.jsonl whole, its last reading there, h0's rx summed "
           f"{h0[('h0', 'port', 'rx_packets')]} == result.json's {r['hosts'][0]['rx_frames']}")


CASES = {"cnp": case_cnp, "drops": case_drops, "stop": case_stop, "mirror": case_mirror, "counters": case_counters, "infer": case_infer, "mirroronly": case_mirroronly,
         "badcounters": case_badcounters}

with tempfile.TemporaryDirectory() as tmp:
    CASES[CASE](tmp)
finish(f"evidence-{CASE}")
