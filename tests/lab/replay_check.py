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
    erspan, erspan64: mix's captures (snaplen 128, 64) as a mirror sends them, built by
             scapy: each file's frames in ERSPAN type II, and in type III (100 ns
             timestamps of the original times; the records' own times late by 25 us plus
             up to 30 us of jitter), a session id per file: the same flows, starts and
             rates as from the plain captures; tshark decodes as many RoCE frames inside
             ERSPAN as h1's plain file holds; analyze reads the mirror's copy as the frame
    sampled: incast-8to1's captures, every 16th frame of each kept (a Python filter):
             each rate within its stated bound of the true 100G / 8; sizes exact from RETH
    perm:    tests/data/profiles/replay-perm.yaml, a permutation of 5 hosts drawn by seed 7:
             one `pattern: permutation` whose plan has the original's (src, dst) pairs
    clock:   mix's captures at h1 and h3 (flows both ways between them), h3's shifted by
             +3.7 ms: the offset found within its residual (a few us), every start as in
             the unshifted case within it; h1 and h2 (no frame in common) with h2 10 s
             later: one line, exit 2, no DIR; unshifted (overlapping) they are read

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
from check import expect, finish, read_pcap, write_pcap  # noqa: E402

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
    expect(how in text and ("rate over" in text or "mean of" in text or "offered: the pace of" in text),
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


def inferred(tmp, caps, name, *extra):
    """replay infer on caps: (profile text, incident, plan of the profile by (src, dst))."""
    out = os.path.join(tmp, name)
    p = rp("replay", "infer", *caps, *extra, "-o", out, ok=False)
    if p.returncode != 0:
        sys.exit(f"replay infer {name} failed ({p.returncode}): {p.stderr.strip()[-500:]}")
    pl = plan(os.path.join(out, "profile.yaml"))
    return (open(os.path.join(out, "profile.yaml")).read(), json.load(open(os.path.join(out, "incident.json"))),
            {(f["src"], f["dst"]): f for f in pl["flows"]})


def tshark_count(path, flt):
    p = subprocess.run(["tshark", "-r", path, "-Y", flt, "-T", "fields", "-e", "frame.number"],
                       capture_output=True, text=True, timeout=120)
    return len(p.stdout.split()) if p.returncode == 0 else -1


def encapsulate(src, dst, typ, session, seed):
    """src's frames as a mirror sends them in ERSPAN type typ (scapy builds the outer
    headers; the inner frame's bytes as captured, its wire length kept). Type III: the
    mirror's 100 ns timestamp of the original time; the record late by 25 us plus up to
    30 us of jitter (none on the first: the session's anchor), in order (a tunnel is a
    FIFO). The outer IP length counts the whole mirrored frame, as sent."""
    import random
    from scapy.contrib.erspan import ERSPAN_II, ERSPAN_III
    from scapy.layers.inet import IP
    from scapy.layers.l2 import GRE, Ether
    rnd = random.Random(seed)
    cap = read_pcap(src)
    recs, prev = [], 0
    for i, (t, fr, wire) in enumerate(cap["recs"]):
        cut = int(len(fr) < wire)
        if typ == 2:
            hdr = GRE(seqnum_present=1, sequence_number=i, proto=0x88BE) / ERSPAN_II(ver=1, session_id=session,
                                                                                      t=cut, index=7)
            at = t
        else:
            hdr = GRE(seqnum_present=1, sequence_number=i, proto=0x22EB) / ERSPAN_III(
                session_id=session, t=cut, timestamp=(t // 100) & 0xFFFFFFFF, gra=1, ft=0)
            at = max(prev + 1, t + 25000 + (rnd.randrange(30000) if i else 0))
        prev = at
        ip_len = 20 + len(bytes(hdr)) + wire
        outer = bytes(Ether(src="02:aa:00:00:00:01", dst="02:aa:00:00:00:02") /
                      IP(src="192.0.2.100", dst="192.0.2.200", proto=47, len=ip_len) / hdr)
        recs.append((at, outer + fr, len(outer) + wire))
    write_pcap(dst, recs, nano=True)
    return len(recs)


def same_flows(name, a, b, start_tol_ns, rate_tol):
    keys = ("ip", "dscp", "ecn", "vlan", "prio", "qps", "opcode", "message_size", "messages")
    expect(sorted(a) == sorted(b), f"{name}: the same host pairs ({sorted(b)})")
    for pair in sorted(set(a) & set(b)):
        x, y = a[pair], b[pair]
        expect(all(x[k] == y[k] for k in keys) and abs(x["start_ns"] - y["start_ns"]) <= start_tol_ns and
               abs(x["rate_bps"] / y["rate_bps"] - 1) <= rate_tol,
               f"{name}: {pair}: keys as from the plain captures, start {x['start_ns']} ns ({y['start_ns']}, "
               f"+-{start_tol_ns} ns), rate {x['rate_bps'] / 1e9:.4f} Gbit/s ({y['rate_bps'] / 1e9:.4f}, "
               f"+-{rate_tol:.2%})")


def erspan_case(tmp, snaplen):
    name = f"erspan (snaplen {snaplen})"
    run1 = os.path.join(tmp, "run1")
    sets = ("--set", "traffic.1.ip=4") if snaplen < 74 else ()
    lab(os.path.join(DATA, "replay-mix.yaml"), run1, "--capture", "--snaplen", str(snaplen), *sets)
    caps = sorted(glob.glob(os.path.join(run1, "capture-*.pcap")))
    _, _, plain = inferred(tmp, caps, "plain")
    # tshark (its start-up takes seconds): h1's file, the 128 B variant
    roce = {c: tshark_count(c, "udp.port == 4791") for c in caps if c.endswith("-h1.pcap")} if snaplen >= 128 else {}
    for typ in (2, 3):
        enc = []
        for i, c in enumerate(caps):
            e = os.path.join(tmp, f"e{typ}-{os.path.basename(c)}")
            encapsulate(c, e, typ, 100 + i, i)
            enc.append(e)
            if c in roce:
                inner = tshark_count(e, "erspan && udp.port == 4791")
                expect(roce[c] > 0 and inner == roce[c], f"{name}: type {typ}: tshark decodes {inner} RoCE frames in "
                       f"ERSPAN in {os.path.basename(e)}, {roce[c]} in the plain file")
        text, inc, got = inferred(tmp, enc, f"type{typ}")
        # type III: the mirror's 100 ns timestamps, anchored 25 us late in every file alike: each
        # time within 100 ns, a rate over 200 us or more within 200 ns of it (0.1%); the records'
        # own times (jittered by up to 30 us) would be off by far more
        same_flows(f"{name}: type {typ}", got, plain, 200 if typ == 3 else 0, 1e-3 if typ == 3 else 0)
        nodes = sorted(c["node"] for c in inc["evidence"]["captures"])
        want = sorted(f"h{k}:erspan-{100 + i}" for i, k in enumerate(
            int(re.search(r"capture-h(\d+)", c).group(1)) for c in caps))
        expect(nodes == want and all(c["erspan"]["type"] == typ for c in inc["evidence"]["captures"]),
               f"{name}: type {typ}: each session a capture point of its own ({nodes})")
        clk = inc["evidence"]["clocks"]
        frames = sum(len(read_pcap(c)["recs"]) for c in caps)
        used = sum(c["erspan_ts_mirror"] for c in clk)
        expect(sum(c["erspan_frames"] for c in clk) == frames and used == (frames if typ == 3 else 0),
               f"{name}: type {typ}: {frames} frames read out of ERSPAN, {used} timed by the mirror")
        expect(("ERSPAN type III" if typ == 3 else "ERSPAN type II session") in text,
               f"{name}: type {typ}: the profile's header names the mirror's sessions")
    # analyze reads captures through the same reader: the mirror's copy is the frame
    a = json.loads(rp("analyze", "--json", caps[0]).stdout)
    b = json.loads(rp("analyze", "--json", os.path.join(tmp, "e2-" + os.path.basename(caps[0]))).stdout)
    fa = sorted((f.get("src"), f.get("dst"), f.get("rx_packets"), f.get("rx_bytes")) for f in a["flows"])
    fb = sorted((f.get("src"), f.get("dst"), f.get("rx_packets"), f.get("rx_bytes")) for f in b["flows"])
    expect(fa == fb and fa, f"{name}: analyze of the type II copy: the same flows, packets and bytes ({len(fa)} flows)")


def sampled_case(tmp):
    run1 = os.path.join(tmp, "run1")
    profile = os.path.join(PROFILES, "incast-8to1.yaml")
    lab(profile, run1, "--capture", "--snaplen", "128")
    caps = sorted(glob.glob(os.path.join(run1, "capture-*.pcap")))
    samp = []
    for c in caps:
        cap = read_pcap(c)
        out = os.path.join(tmp, "s-" + os.path.basename(c))
        write_pcap(out, cap["recs"][::16], nano=cap["nano"], snaplen=cap["snaplen"])
        samp.append(out)
    text, inc, got = inferred(tmp, samp, "samp", "--sampled", "16", "--fabric", profile)
    orig = {(f["src"], f["dst"]): f for f in plan(profile)["flows"]}
    bounds = [float(b) / 100 for b in re.findall(r"rate from a 1-in-16 sample: \+-(\d+)%", text)]
    expect(len(bounds) >= 1 and all(0 < b < 0.5 for b in bounds), f"incast sampled: every rate states its bound {bounds}")
    bound = max(bounds) if bounds else 0
    expect(sorted(got) == sorted(orig), f"incast sampled: the 8 flows found ({len(got)})")
    for pair, o in sorted(orig.items()):
        g = got.get(pair)
        if not g:
            continue
        # the truth: 8 senders share h0's 100G (layer 1), each 1/8 of it; messages 100 of 16 frames
        expect(abs(g["rate_bps"] / (100e9 / 8) - 1) <= bound + 0.05 and g["message_size"] == o["message_size"] and
               abs(g["messages"] / o["messages"] - 1) <= bound,
               f"incast sampled: {pair}: rate {g['rate_bps'] / 1e9:.3f} Gbit/s (12.5 +-{bound:.0%} and the "
               f"unsampled 5%), size {g['message_size']} from RETH ({o['message_size']}), messages {g['messages']} "
               f"({o['messages']} +-{bound:.0%})")
    expect("size from RETH DMA length" in text and "SAMPLED 1 in 16" in text and inc["evidence"]["sampled"] == 16
           and all(f["lost"] is None for f in inc["flows"]),
           "incast sampled: sizes from RETH (exact), the header says SAMPLED, loss not measured (null)")
    # mix sampled: flows whose sample has no size nor LAST packet still make a profile that loads
    run2 = os.path.join(tmp, "run2")
    lab(os.path.join(DATA, "replay-mix.yaml"), run2, "--capture")
    mcaps = []
    for c in sorted(glob.glob(os.path.join(run2, "capture-*.pcap"))):
        cap = read_pcap(c)
        mcaps.append(os.path.join(tmp, "m-" + os.path.basename(c)))
        write_pcap(mcaps[-1], cap["recs"][::16], nano=cap["nano"])
    _, _, mix = inferred(tmp, mcaps, "msamp", "--sampled", "16")
    expect(len(mix) == 5, f"mix sampled 1 in 16: the 5 flows, and the profile loads ({sorted(mix)})")
    # the bound, by hand: k frames sampled, 2 sqrt((N-1)/(N k))
    ks = [int(k) for k in re.findall(r"k = (\d+) frames sampled", text)]
    expect(ks and all(abs(b - 2 * (15 / (16 * k)) ** 0.5) < 0.006 for b, k in zip(bounds, ks)),
           f"incast sampled: bounds {bounds} == 2 sqrt(15 / (16 k)) for k = {ks}")


def shifted(src, dst, ns):
    cap = read_pcap(src)
    write_pcap(dst, [(t + ns, fr, w) for t, fr, w in cap["recs"]], nano=True, snaplen=cap["snaplen"])


def clock_case(tmp):
    run1 = os.path.join(tmp, "run1")
    lab(os.path.join(DATA, "replay-mix.yaml"), run1, "--capture")
    h1, h2, h3 = (os.path.join(run1, f"capture-h{i}.pcap") for i in (1, 2, 3))
    h3s, h2s = os.path.join(tmp, "h3-shifted.pcap"), os.path.join(tmp, "h2-later.pcap")
    shifted(h3, h3s, 3700000)
    shifted(h2, h2s, 10 * 10**9)
    _, inc0, plain = inferred(tmp, [h1, h3], "plain")
    text, inc, got = inferred(tmp, [h1, h3s], "shift")
    c0, c = inc0["evidence"]["clocks"][1], inc["evidence"]["clocks"][1]
    res = c["residual_ns"]
    # the lab's captures share one clock: unshifted, one clock fits the frames (offset 0); shifted,
    # NTP's midpoint, off by half the difference of the fastest delays each way, within the residual
    expect(res is not None and res < 5000 and c0["offset_ns"] == 0 and abs(c["offset_ns"] + 3700000) <= res,
           f"clock: h3 +3.7 ms: offset {c['offset_ns']} ns (-3700000 +-{res} ns; unshifted {c0['offset_ns']} "
           f"+-{c0['residual_ns']} ns) from {c['matched']} frames both ways")
    expect(f"{c['offset_ns'] / 1e3:+.3f} us" in text and "residual" in text,
           "clock: the profile's header says the offset and residual")
    same_flows("clock: h3 +3.7 ms", got, plain, abs(c["offset_ns"] + 3700000), 1e-9)
    out = os.path.join(tmp, "disjoint")
    p = rp("replay", "infer", h1, h2s, "-o", out, ok=False)
    lines = p.stderr.strip().splitlines()
    expect(p.returncode == 2 and len(lines) == 1 and "do not overlap" in p.stderr and not os.path.exists(out),
           f"clock: no frame in common and 10 s apart: exit {p.returncode}, one line, no DIR: {lines}")
    _, inc2, both = inferred(tmp, [h1, h2], "overlap")
    cl = inc2["evidence"]["clocks"][1]
    expect(len(both) == 5 and not cl["aligned"] and cl["offset_ns"] == 0,
           f"clock: h1 and h2 overlapping, no frame in common: read on one clock, not aligned ({len(both)} flows)")


with tempfile.TemporaryDirectory() as tmp:
    if CASE == "incast":
        # 8 senders share h0's 100G link, each achieving 1/8 of it; paused, they offered 100%: the
        # pace of their first frames, before h0's port paused them (the original profile's rate)
        text, inc = round_trip(tmp, os.path.join(PROFILES, "incast-8to1.yaml"), 128, lambda o: (o["rate_bps"], 0.001))
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
        text, inc = round_trip(tmp, os.path.join(PROFILES, "incast-8to1.yaml"), 128, lambda o: (o["rate_bps"], 0.001),
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
        # offered rates, though paused: the incast's 100% and the victim's 50G (the profile's)
        text, inc = round_trip(tmp, os.path.join(PROFILES, "victim-flow.yaml"), 128, lambda o: (o["rate_bps"], 0.001))
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
        # offered 100%, though CNPs and pauses cut it: the pace before the first CNP or pause
        text, inc = round_trip(tmp, os.path.join(PROFILES, "incast-32to1-ecn.yaml"), 128, lambda o: (o["rate_bps"], 0.001))
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
    elif CASE in ("erspan", "erspan64"):
        erspan_case(tmp, 64 if CASE == "erspan64" else 128)
    elif CASE == "perm":
        prof = os.path.join(DATA, "replay-perm.yaml")
        text, inc = round_trip(tmp, prof, 128, lambda o: (10e9, 0.001))
        got = plan(os.path.join(tmp, "rep", "profile.yaml"))
        want = sorted((f["src"], f["dst"]) for f in plan(prof)["flows"])
        expect(len(re.findall(r"pattern: permutation\b", text)) == 1 and "seed: 1" in text and
               sorted((f["src"], f["dst"]) for f in got["flows"]) == want,
               f"replay-perm: one `pattern: permutation` (seed 1, hosts in the order that draws it) planning the "
               f"original's pairs {want}")
    elif CASE == "sampled":
        sampled_case(tmp)
    elif CASE == "clock":
        clock_case(tmp)
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
        p = rp("replay", "infer", os.path.join(run1, "capture-h0.pcap"), os.path.join(tmp, "noroce.pcap"), "-o",
               os.path.join(tmp, "out"), ok=False)
        expect("no RoCEv2" in p.stderr, "a good capture and one without RoCE (years apart): the line says no RoCE, "
               "not that their times do not overlap")
    else:
        sys.exit(f"unknown case {CASE}")
finish("replay-" + CASE)
