#!/usr/bin/python3
"""roceprobe replay infer: lab runs captured at every host (overlapping evidence: each
frame at its sender and at its receiver), inferred back, against the original profile's
known values (its text and `roceprobe plan --json`, never replay's own code).

    incast:  h1..h8 --\\
                       sw0 (100G, PFC prio 3) --> h0       profiles/incast-8to1.yaml
    mix:     h1 -> h0 write 48KiB x2 QPs | h2 -> h3 send 3000 B MTU 1024 over IPv6 |
             h3 -> h1 write_imm 8KiB x4 QPs VLAN 100 | h0 -> h2 write 1000 B not-ECT |
             h1 -> h3 read_resp 16KiB DSCP 46; one switch, nothing oversubscribed
             tests/data/profiles/replay-mix.yaml
    mix64:   the same captured with --snaplen 64 (the IPv6 flow as IPv4: 64 B cut an IPv6
             BTH): RETH and probes cut off (each QP a flow
             of its own to the accountant: QPs of one pair and keys at once are one flow)
    rotate:  incast with --capture-rotate 1MiB: h0's capture in several files, one host
    a2a:     profiles/all-to-all-8.yaml, 2 rounds: 56 flows -> `pattern: all-to-all`
    ecn:     profiles/incast-32to1-ecn.yaml: DCQCN, CNPs to each of 32 senders (33 captures)
    lossy:   profiles/lossy-lossless-mix.yaml: the lossy incast's tail drops are frames at
             their sender's capture and not at the receiver's: lost, not received
    victim:  profiles/victim-flow.yaml (leaf-spine): h7 -> h1 paused behind h0's incast; the
             lab's own victims (pause_propagation.victims) are the known answer
    bad:     an empty file, a pcap of no frames, a pcap without RoCE, a text file, a
             host the --fabric does not have: one line each, exit 2, no DIR

Known answers:
- every frame is counted once: unique == the original's tx_packets + cnp_rx + acks + naks,
  and those that arrived are in two captures: matched == the same with rx_packets;
- each original flow (plan --json) found once by (src, dst) with its IP version, DSCP, ECN,
  VLAN and PCP, QPs, opcode, start (within 2 us of its start - the earliest start: the first frame leaves at
  its due time), messages, MTU where a message spans packets, message_size exact (RETH,
  or the whole FIRST..LAST span when the snaplen cut the RETH);
- rates: mix within 0.1% of the profile's rate (nothing holds a sender back); a2a within
  1% of line rate (a pair's 2 messages 7 phases apart: rate x ((r-1)(N-1)+1)/r); incast:
  what each sender achieved, within 5% of 100G / 8 (h0's link shared by 8, PFC pacing
  the senders), and the 8 flows are `pattern: incast` with `receiver: h0`;
- incident.json from the same accountant: each flow's CE == the lab's, each sender's
  PFC frames and paused ns on priority 3 == the lab's port result, congested [h0],
  no victims;
- the inferred profile loads (`roceprobe plan`) and runs in the lab: the same flows
  (src, dst, dscp, tx_bytes) as the original run.

usage: replay_check.py ROCEPROBE PROFILES_DIR CASE
"""
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from check import expect, finish, write_pcap  # noqa: E402

ROCEPROBE, PROFILES, CASE = sys.argv[1], sys.argv[2], sys.argv[3]
DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "profiles")


def rp(*args, ok=True):
    p = subprocess.run([ROCEPROBE, *args], capture_output=True, text=True, timeout=120)
    if ok and p.returncode != 0:
        sys.exit(f"roceprobe {' '.join(args)} failed ({p.returncode}): {p.stderr.strip()[-500:]}")
    return p


def plan(path, *args):
    return json.loads(rp("plan", "--json", path, *args).stdout)


def lab(path, out, *args):
    rp("lab", path, "-o", out, "-q", *args)
    return json.load(open(os.path.join(out, "result.json")))


def flows_of(result):
    return sorted((f["src"], f["dst"], f["dscp"], f["tx_bytes"]) for f in result["flows"])


def round_trip(tmp, profile, snaplen, rate_of, sets=(), lab_args=()):
    """rate_of(flow of the original plan) -> (the rate expected in bit/s, relative bound)."""
    name = os.path.basename(profile)
    run1, rep, run2 = (os.path.join(tmp, d) for d in ("run1", "rep", "run2"))
    r1 = lab(profile, run1, "--capture", "--snaplen", str(snaplen), *sets, *lab_args)
    caps = sorted(glob.glob(os.path.join(run1, "capture-*.pcap")))
    p = rp("replay", "infer", *caps, "--fabric", profile, "-o", rep, ok=False)
    if not expect(p.returncode == 0, f"{name}: replay infer on {len(caps)} captures exits 0 ({p.stderr.strip()[-300:]})"):
        return
    text = open(os.path.join(rep, "profile.yaml")).read()
    inc = json.load(open(os.path.join(rep, "incident.json")))
    # RoCE frames: data sent, and what came back to the senders (CNPs, ACKs, NAKs); those that
    # arrived are at their sender's capture and their receiver's
    back = sum(f["cnp_rx"] + f["acks"] + f["naks"] for f in r1["flows"])
    sent, arrived = sum(f["tx_packets"] for f in r1["flows"]) + back, sum(f["rx_packets"] for f in r1["flows"]) + back
    ev = inc["evidence"]
    expect(ev["unique"] == sent and ev["matched"] == arrived,
           f"{name}: {sent} RoCE frames (data, CNPs, ACKs, NAKs) counted once ({ev['unique']}), the {arrived} that "
           f"arrived seen twice ({ev['matched']} matched)")
    orig, got = plan(profile, *sets), plan(os.path.join(rep, "profile.yaml"))
    expect(True, f"{name}: the inferred profile loads (plan: {len(got['flows'])} flows)")
    t0 = min(f["start_ns"] for f in orig["flows"])
    by_pair = {}
    for f in got["flows"]:
        by_pair.setdefault((f["src"], f["dst"]), []).append(f)
    for o in orig["flows"]:
        pair = (o["src"], o["dst"])
        g = by_pair.get(pair, [])
        if not expect(len(g) == 1, f"{name}: flow {o['src']} -> {o['dst']} found once ({len(g)})"):
            continue
        g = g[0]
        keys = ("ip", "dscp", "ecn", "vlan", "prio", "qps", "opcode", "message_size", "messages")
        expect(all(g[k] == o[k] for k in keys),
               f"{name}: {pair}: " + ", ".join(f"{k} {g[k]} (profile {o[k]})" for k in keys))
        if o["message_size"] > o["mtu"]:
            expect(g["mtu"] == o["mtu"], f"{name}: {pair}: mtu {g['mtu']} (profile {o['mtu']})")
        want = o["start_ns"] - t0
        expect(abs(g["start_ns"] - want) <= 2000, f"{name}: {pair}: start {g['start_ns']} ns (profile {want} ns, +-2 us)")
        rate, bound = rate_of(o)
        if rate is not None:
            expect(abs(g["rate_bps"] / rate - 1) <= bound,
                   f"{name}: {pair}: rate {g['rate_bps'] / 1e9:.4f} Gbit/s, {rate / 1e9:.4f} expected +-{bound:.1%}")
    how = "RETH cut by the snaplen" if snaplen < 70 else "size from RETH DMA length"
    expect(how in text and ("rate over" in text or "mean of" in text),
           f"{name}: every value commented ('{how}', the rate's span and frames)")
    # the symptoms, by the accountant the lab uses: CE per flow, PFC per sender
    ce = {(f["src"], f["dst"]): f["ce"] for f in r1["flows"]}
    ice = {(f["src"], f["dst"]): f["ce"] for f in inc["flows"]}
    expect(ice == ce, f"{name}: incident CE per flow == the lab's ({sum(ce.values())} in all)")
    lab_pause = {p["node"]: (x["pfc_rx"], x["paused_ns"]) for p in r1["ports"] for x in p["prio"] if x.get("pfc_rx")}
    inc_pause = {p["node"]: (x["pfc_rx"], x["paused_ns"]) for p in inc["ports"] for x in p["prio"]}
    expect(inc_pause == lab_pause, f"{name}: incident PFC frames and paused ns per host == the lab's "
           f"({len(lab_pause)} hosts paused)")
    # without --fabric: hosts from the frames (h0.. in MAC order), a profile plan still loads
    bare = os.path.join(tmp, "bare")
    rp("replay", "infer", *caps, "-o", bare)
    pb = plan(os.path.join(bare, "profile.yaml"))
    expect(len(pb["flows"]) == len(got["flows"]) and len(pb["hosts"]) == len({h for f in orig["flows"]
                                                                             for h in (f["src"], f["dst"])}),
           f"{name}: without --fabric: {len(pb['hosts'])} hosts from the frames, {len(pb['flows'])} flows, loads")
    r2 = lab(os.path.join(rep, "profile.yaml"), run2)
    round_trip.r1 = r1
    expect(flows_of(r2) == flows_of(r1), f"{name}: the inferred profile in the lab: the same {len(r1['flows'])} flows "
           "(src, dst, dscp, tx_bytes)")
    return text, inc


with tempfile.TemporaryDirectory() as tmp:
    if CASE == "incast":
        # 8 senders share h0's 100G link: each achieves 1/8 of it (layer 1, as rates are)
        text, inc = round_trip(tmp, os.path.join(PROFILES, "incast-8to1.yaml"), 128, lambda o: (100e9 / 8, 0.05))
        expect(re.search(r"pattern: incast\b.*\n\s+receiver: h0\n\s+senders: \[h1, h2, h3, h4, h5, h6, h7, h8\]", text),
               "incast-8to1: the 8 flows are one `pattern: incast`, receiver h0, senders h1..h8")
        expect(inc["congested"] == ["h0"] and inc["victims"] == [], f"incast-8to1: congested {inc['congested']}, "
               f"victims {inc['victims']}")
        order = [p["host"] for p in inc["pause_order"]]
        expect(sorted(order) == [f"h{i}" for i in range(1, 9)], f"incast-8to1: the 8 senders in the pause order {order}")
        prio3 = [x for p in inc["ports"] for x in p["prio"]]
        expect(len(prio3) == 8 and all(x["prio"] == 3 and 0.5 < x["paused_fraction"] < 1
                                       and len(x["paused_fraction_bins"]) == 43 for x in prio3),
               "incast-8to1: 8 senders paused on priority 3, 50..100% of the time, 43 bins of 100 us")
    elif CASE == "rotate":
        # h0's capture in 1 MiB files (capture-h0-0001.pcap, -0002, ...): several files of one host
        text, inc = round_trip(tmp, os.path.join(PROFILES, "incast-8to1.yaml"), 128, lambda o: (100e9 / 8, 0.05),
                               lab_args=("--capture-rotate", "1MiB"))
        nodes = [c["node"] for c in inc["evidence"]["captures"]]
        expect(nodes.count("h0") >= 2 and inc["totals"]["rx_packets"] == 12800 and inc["totals"]["lost"] == 0,
               f"incast-8to1 rotated: {nodes.count('h0')} files at h0, 12800 frames received, none lost")
    elif CASE == "a2a":
        # 8 hosts, 2 rounds of 7 phases of 1 MiB at 100%: each pair paced at line rate in its phase
        text, inc = round_trip(tmp, os.path.join(PROFILES, "all-to-all-8.yaml"), 128, lambda o: (100e9, 0.01),
                               ("--set", "traffic.0.messages=2"))
        expect(re.search(r"pattern: all-to-all\b.*\n\s+hosts: \[n0, n1, n2, n3, n4, n5, n6, n7\]", text),
               "all-to-all-8: the 56 flows are one `pattern: all-to-all` of n0..n7")
    elif CASE == "victim":
        # the lab's own verdict is the known answer: h7 -> h1 paused at h7 behind h0's incast
        text, inc = round_trip(tmp, os.path.join(PROFILES, "victim-flow.yaml"), 128, lambda o: (None, None))
        lv = round_trip.r1["pause_propagation"]["victims"]
        iv = [f for f in inc["flows"] if f["victim"]]
        expect([(f["src"], f["dst"], f["sender_paused_ns"]) for f in iv] ==
               [(v["src"], v["dst"], v["sender_paused_ns"]) for v in lv] and
               [inc["flows"][v["flow"]] for v in inc["victims"]] == iv,
               f"victim-flow: victims {[(f['src'], f['dst'], f['sender_paused_ns']) for f in iv]} == the lab's "
               f"{[(v['src'], v['dst'], v['sender_paused_ns']) for v in lv]}")
        expect(inc["congested"] == ["h0"], f"victim-flow: congested {inc['congested']} (h0's incast)")
        expect(re.search(r"pattern: incast\b.*\n\s+receiver: h0\n\s+senders: \[h2, h3, h4, h5, h6\]", text),
               "victim-flow: h2..h6 -> h0 is one `pattern: incast`, the victim a `pattern: flow`")
    elif CASE == "ecn":
        # 32 senders under DCQCN: CNPs back to each sender counted once across 33 captures
        text, inc = round_trip(tmp, os.path.join(PROFILES, "incast-32to1-ecn.yaml"), 128, lambda o: (None, None))
        r1 = round_trip.r1
        lab_cnp = sorted((f["src"], f["cnp_rx"]) for f in r1["flows"])
        expect(sorted((f["src"], f["cnp"]) for f in inc["flows"]) == lab_cnp and
               inc["totals"]["cnp"] == sum(c for _, c in lab_cnp) > 0,
               f"incast-32to1-ecn: CNPs per flow == the lab's cnp_rx ({inc['totals']['cnp']} in all)")
        expect(re.search(r"pattern: incast\b.*\n\s+receiver: h0\n", text) and "CNPs slowed them (DCQCN)" in text,
               "incast-32to1-ecn: one `pattern: incast` to h0, its rate's comment names the CNPs")
    elif CASE == "lossy":
        # the switch tail-drops the lossy incast: frames at their sender's capture, not at h7's
        text, inc = round_trip(tmp, os.path.join(PROFILES, "lossy-lossless-mix.yaml"), 128, lambda o: (None, None))
        r1 = round_trip.r1
        lab_rx = {(f["src"], f["dst"]): (f["rx_packets"], f["lost"], f["tx_packets"]) for f in r1["flows"]}
        ok = all(f["rx_packets"] == lab_rx[(f["src"], f["dst"])][0] and
                 f["lost"] <= lab_rx[(f["src"], f["dst"])][1] and
                 f["lost"] + f["rx_packets"] >= 0.95 * lab_rx[(f["src"], f["dst"])][2] for f in inc["flows"])
        expect(ok, "lossy-lossless-mix: rx_packets per flow == the lab's (counted at the receiver's capture); lost "
               "the PSN gaps: at most the lab's, all but the stream's tail: "
               f"{sorted((f['src'], f['rx_packets'], f['lost']) for f in inc['flows'])} vs "
               f"{sorted((k[0], v[0], v[1]) for k, v in lab_rx.items())}")
        expect(len(re.findall(r"pattern: incast\b", text)) == 2 and sorted(inc["congested"]) == ["h0", "h7"],
               f"lossy-lossless-mix: two incasts (to h0 and h7), congested {inc['congested']}")
    elif CASE in ("mix", "mix64"):
        rates = {"w": 20e9, "s": 5e9, "wi": 10e9, "one": 2e9, "rr": 5e9}
        # at snaplen 64 an IPv6 frame is cut inside its BTH (74 B needed): the IPv6 flow goes IPv4
        _, inc = round_trip(tmp, os.path.join(DATA, "replay-mix.yaml"), 64 if CASE == "mix64" else 128,
                            lambda o: (rates[o["traffic"]], 0.001), ("--set", "traffic.1.ip=4") if CASE == "mix64" else ())
        expect(inc["evidence"]["malformed"] == 0, "replay-mix: no frame unreadable")
    elif CASE == "bad":
        run1 = os.path.join(tmp, "run1")
        lab(os.path.join(DATA, "replay-mix.yaml"), run1, "--capture")
        files = {"empty.pcap": None, "noframes.pcap": [], "noroce.pcap": [b"\xff" * 6 + b"\x02" * 6 + b"\x08\x06" + b"\0" * 46]}
        for f, frames in files.items():
            path = os.path.join(tmp, f)
            if frames is None:
                open(path, "wb").close()
            else:
                write_pcap(path, frames)
        with open(os.path.join(tmp, "notes.txt"), "w") as f:
            f.write("not a capture\n")
        cases = [("an empty file", [os.path.join(tmp, "empty.pcap")], []),
                 ("a pcap of no frames", [os.path.join(tmp, "noframes.pcap")], []),
                 ("a pcap without RoCE", [os.path.join(tmp, "noroce.pcap")], []),
                 ("a text file", [os.path.join(tmp, "notes.txt")], []),
                 ("a good capture and a bad one", [os.path.join(run1, "capture-h0.pcap"), os.path.join(tmp, "noroce.pcap")], []),
                 ("hosts of another fabric", [os.path.join(run1, "capture-h0.pcap")],
                  ["--fabric", os.path.join(PROFILES, "incast-8to1.yaml")])]
        for what, caps, extra in cases:
            out = os.path.join(tmp, "out")
            p = rp("replay", "infer", *caps, *extra, "-o", out, ok=False)
            lines = p.stderr.strip().splitlines()
            expect(p.returncode == 2 and len(lines) == 1 and not os.path.exists(out),
                   f"{what}: exit {p.returncode}, one line, no DIR: {lines}")
        p = rp("replay", "infer", os.path.join(run1, "capture-h0.pcap"), "--fabric",
               os.path.join(PROFILES, "incast-8to1.yaml"), "-o", os.path.join(tmp, "out"), ok=False)
        expect("02:00:00:00:10:00" in p.stderr, "the host the fabric lacks is named by its MAC")
    else:
        sys.exit(f"unknown case {CASE}")
finish("replay-" + CASE)
