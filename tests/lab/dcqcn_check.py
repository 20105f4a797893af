"""DCQCN in the lab against answers worked by hand from the DCQCN paper (Zhu et al., SIGCOMM 2015)
and mlx5's parameters (NVIDIA DOCA "DCQCN CC Parameters"; issue 31).

incast: 8:1, every data frame CE-marked at the receiver on purpose (impair ce_every: 1), each
cnp_mode, fabric.dcqcn with mlx5's defaults (cnp_interval 4 us, G 1019, alpha period 1 us,
initial alpha 1023/1024, monitor period 4 us, min_dec_fac 50):

    h1..h8 ==100G, 500 ns==> [sw0] ==100G, 500 ns==> h0  (impair: ce_every 1; respond: cnp)
           <================ CNPs (DSCP 48) ==========

    A frame: WRITE ONLY, 4096 B payload: 14 + 20 + 8 + 12 BTH + 16 RETH + 4096 + 4 ICRC = 4170 B,
    4194 B on the wire (+ 24 preamble, IFG): 4194 x 8 / 100 Gbit/s = 335.52 ns (the lab carries
    the sub-ns rest: 335, 336, 335, ...). A CNP: 74 B, 98 on the wire: 7.84 ns (7).
    - The first frame of every sender leaves at 0 and reaches h0 at 335 + 500 + 335 + 500 =
      1670 ns; the eight queue at the switch and reach h0 one per 335.52 ns: 1670, 2006 (1670 +
      335.52 = 2005.5, the rest carried), 2341, 2677, 3012, 3348, 3683, 4019 (at h0: the arrival's
      last bit). Each is its QP's first mark: a CNP at once in both modes, 8 QPs.
    - Each CNP reaches its sender 2 x (7 + 500) = 1014 ns later: the rate is cut to 100 x (1 -
      alpha/2) with alpha = 1023/1024: 50.048828125 Gbit/s, a frame every 4194 x 8 / 50.048828125
      = 670.39 ns (670): the departure already waiting is re-timed to the last one + 670.
    - paper: every QP's frames keep arriving marked, one per 8 x 335.52 = 2684 ns (< 4 us), so
      each QP's next CNP is at the end of its window: its first + 4000 ns exactly (later ones
      too while its marks come less than 4 us apart). first: a mark inside the window is forgotten; the next CNP
      is at its QP's first mark at or after first + 4000 (by the rule over h0's capture).
    - A sender's second cut (paper), CNP 2 arriving 4000 ns after CNP 1: alpha's expiries at
      +1000 (a CNP in the period: alpha1 = (1019/1024)(1023/1024) + 5/1024 = 1047557/1048576),
      +2000, +3000, +4000 (quiet: x 1019/1024 each): alpha = 0.9844653434; the rate 50.048828125
      x (1 - alpha/2) = 25.413159742 Gbit/s: a frame every 4194 x 8 / 25.413159742 = 1320.26 ns.

stagger: two flows, h1 from 0, h2 from 20 us, the same receiver and marks, each cnp_mode.

    h1 ==100G==> [sw0] ==> h0 (ce_every 1)       h2 ==100G, start 20 us==> [sw0]

    - h1 alone: its first frame at h0 at 1670 (no queue), a CNP at once; at h1 2684 = 1670 +
      1014; the 9th frame, due 8 x 335.52 = 2684.2 (2684), goes after the cut: 2348 + 670 = 3018.
      paper: its next CNPs at 5670, 9670, 13670, 17670, 21670 (its frames arrive less than 4 us
      apart while its rate is above 4194 x 8 / 4000 ns = 8.4 Gbit/s).
    - h2's first frame leaves at 20000 and reaches h0 at 21670 (h1, cut, leaves the link idle):
      its CNP at once. paper: h1's window-end CNP is due at 21670 too and was queued first, so
      h2's leaves one CNP later: 21677; first: 21670. h2's cut: the CNP reaches h2 1014 ns
      later; its next departure is the last one + 670.

ksweep: issue 31's "lab today" K sweep, the old lab's values translated (docs/lab.md, "What raising K
buys"): 8:1 incast of 200 64 KiB writes each at 100G, PFC xoff 128 KiB, a step ECN threshold K = 6, 25,
100 frames of 4 KiB (kmin = kmax = K x 4096 B, pmax 100%), N = 50 us, alpha every 55 us with G = 1023
(g = 1/1024: the old lab read 1019 as g = 1/1019), rpg_time_reset 55 us, every cut sets the target
(clamp_tgt_rate on: the old lab's rule), each cnp_mode:
    - the step threshold holds the median queue of h0's port at or below K x 4096 B (24576, 102400,
      409600), and with first at K=100 it stands above K=25's threshold (102400 B);
    - the line-rate time: a WRITE is 16 frames, 4194 B on the wire with its RETH and 15 x 4178 B
      without: 66864 B; 8 x 200 x 66864 B x 8 / 100 Gbit/s = 8558592 ns, + 1670 ns for a frame to
      reach h0: 8560262 ns. first, K=100: the standing queue keeps the link busy, the run ends
      within 3% of it (measured 1.7%); K=6: the queue drains after the cuts and the last flows
      straggle, 10% or more after it (14.4%): the growth with K the issue saw (85.6 -> 96.3
      Gbit/s). paper, K=100: its window-end CNPs cut more, the run ends 5% or more after first's
      (8.4%); paper grows with K too here (82.0 -> 88.9 Gbit/s), so "flat within 5%" is not asserted.

badrange: a dcqcn value outside mlx5's range (dce_tcp_g 1024, dce_tcp_rtt 55ns, initial_alpha_value
0) is one line saying the meaning changed, exit 2, no output directory.

usage: dcqcn_check.py ROCEPROBE CASE
"""
import json
import os
import subprocess
import sys
import tempfile
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from check import expect, finish, read_pcap  # noqa: E402

ROCEPROBE, CASE = sys.argv[1], sys.argv[2]


def lab(tmp, name, text, *args):
    path, out = os.path.join(tmp, name + ".yaml"), os.path.join(tmp, name)
    with open(path, "w") as f:
        f.write(text)
    p = subprocess.run([ROCEPROBE, "lab", path, "-o", out, *args], capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        sys.exit(f"lab failed ({p.returncode}): {p.stderr.strip()}")
    with open(os.path.join(out, "result.json")) as f:
        return json.load(f), out


def ip(net, i):
    return bytes([10, net, 0, i + 1])


def cnps_to(frames, dst):
    """Capture times of the CNPs (BTH opcode 0x81) in h0's capture that go to IP dst."""
    return [t for t, b in frames if len(b) > 54 and b[23] == 17 and b[42] == 0x81 and b[30:34] == dst]


def data_from(frames, src):
    return [t for t, b in frames if len(b) > 54 and b[23] == 17 and b[42] != 0x81 and b[26:30] == src]


def first_rule(arrivals, interval=4000):
    """CNP times by the first rule for one QP's marked arrivals (every one is marked here)."""
    out = []
    for t in arrivals:
        if not out or t - out[-1] >= interval:
            out.append(t)
    return out


def frames(path):
    return [(t, b) for t, b, _ in read_pcap(path)["recs"]]


def host(i, net, extra=""):
    return f'  - {{name: h{i}, mac: "02:00:00:00:{net:02x}:{i:02x}", ipv4: 10.{net}.0.{i + 1}{extra}}}\n'


def case_incast(tmp):
    cnps = {}
    for mode in ("paper", "first"):
        text = (f"name: dcqcn-incast-{mode}\n"
                "defaults: {speed: 100G, opcode: write, message_size: 4096, mtu: 4096, dscp: 26, ecn: ect0}\n"
                "hosts:\n" + host(0, 32, f", impair: {{ce_every: 1}}, respond: {{cnp: on, cnp_mode: {mode}}}") +
                "".join(host(i, 32) for i in range(1, 9)) +
                "traffic:\n  - {name: incast, pattern: incast, receiver: h0, senders: [h1, h2, h3, h4, h5, h6, h7, h8], "
                "rate: 100%, messages: 40}\n"
                "fabric:\n  topology: single\n  link: {delay: 500ns}\n  buffer: 16MiB\n  pfc: {priorities: [3], xoff: 4MiB}\n"
                "  dcqcn: {enabled: on}\n")
        j, out = lab(tmp, "incast-" + mode, text, "--capture")
        h0 = frames(os.path.join(out, "capture-h0.pcap"))
        firsts = sorted(cnps_to(h0, ip(32, i))[0] for i in range(1, 9))
        expect(firsts == [1670, 2006, 2341, 2677, 3012, 3348, 3683, 4019],
               f"{mode}: the 8 QPs' first CNPs at h0 as their first frames arrive, 335.52 ns apart from 1670: {firsts}")
        total = sum(d["cnps"] for d in j["lab"]["dcqcn"])
        cnps[mode] = total
        for i in range(1, 9):
            c = cnps_to(h0, ip(32, i))
            if mode == "paper":
                expect(c[1] - c[0] == 4000, f"paper h{i}: CNP 2 at its window's end, +4000 ns: {c[:2]}")
            else:
                want = first_rule(data_from(h0, ip(32, i)))
                expect(c[:4] == want[:4] and c[1] - c[0] > 4000,
                       f"first h{i}: CNP 2 at its first mark at or after +4000 (the rule over h0's capture): {c[:4]} == {want[:4]}")
            tx = data_from(frames(os.path.join(out, f"capture-h{i}.pcap")), ip(32, i))
            arrive = c[0] + 1014
            before = [t for t in tx if t < arrive]
            after = [t for t in tx if t >= arrive]
            expect(all(b - a in (335, 336) for a, b in zip(before, before[1:])) and after[0] - before[-1] == 670,
                   f"{mode} h{i}: line rate until its CNP lands at {arrive}, then the departure waiting re-timed "
                   f"to the last + 670 ns (50.048828125 Gbit/s): {before[-1]} -> {after[0]}")
            if mode == "paper":
                arrive2 = c[1] + 1014
                last = [t for t in tx if t < arrive2][-1]
                nxt = [t for t in tx if t >= arrive2][0]
                expect(nxt - last == 1320, f"paper h{i}: the second cut, 25.413159742 Gbit/s: {last} -> {nxt} (+1320)")
        first_cuts = [d["cuts"] for d in j["lab"]["dcqcn"]]
        expect(all(x >= 2 for x in first_cuts), f"{mode}: every sender cut at least twice: {first_cuts}")
    expect(cnps["paper"] > cnps["first"], f"paper sends more CNPs than first for the same marks: {cnps}")


def case_stagger(tmp):
    for mode in ("paper", "first"):
        text = (f"name: dcqcn-stagger-{mode}\n"
                "defaults: {speed: 100G, opcode: write, message_size: 4096, mtu: 4096, dscp: 26, ecn: ect0}\n"
                "hosts:\n" + host(0, 33, f", impair: {{ce_every: 1}}, respond: {{cnp: on, cnp_mode: {mode}}}") +
                host(1, 33) + host(2, 33) +
                "traffic:\n  - {name: a, pattern: flow, src: h1, dst: h0, rate: 100%, messages: 40}\n"
                "  - {name: b, pattern: flow, src: h2, dst: h0, rate: 100%, messages: 40, start: 20us}\n"
                "fabric:\n  topology: single\n  link: {delay: 500ns}\n  dcqcn: {enabled: on}\n")
        j, out = lab(tmp, "stagger-" + mode, text, "--capture")
        h0 = frames(os.path.join(out, "capture-h0.pcap"))
        c1, c2 = cnps_to(h0, ip(33, 1)), cnps_to(h0, ip(33, 2))
        tx1 = data_from(frames(os.path.join(out, "capture-h1.pcap")), ip(33, 1))
        tx2 = data_from(frames(os.path.join(out, "capture-h2.pcap")), ip(33, 2))
        expect(c1[0] == 1670 and tx1[7:9] == [2348, 3018],
               f"{mode} h1: CNP at 1670, lands at 2684; frame 9 due 2684 goes at 2348 + 670 = 3018: {c1[0]}, {tx1[7:9]}")
        expect(data_from(h0, ip(33, 2))[0] == 21670, f"{mode} h2: its first frame at h0 at 21670")
        if mode == "paper":
            expect(c1[:6] == [1670, 5670, 9670, 13670, 17670, 21670], f"paper h1: CNPs every 4000 ns: {c1[:6]}")
            expect(c2[0] == 21677, f"paper h2: its first CNP after h1's window-end CNP due at the same ns: {c2[0]}")
        else:
            want = first_rule(data_from(h0, ip(33, 1)))
            expect(c1[:5] == want[:5] and c1[1] > 5670, f"first h1: CNPs by the first rule: {c1[:5]} == {want[:5]}")
            expect(c2[0] == 21670, f"first h2: its first CNP as its first frame arrives: {c2[0]}")
        arrive = c2[0] + 1014
        last = [t for t in tx2 if t < arrive][-1]
        nxt = [t for t in tx2 if t >= arrive][0]
        expect(nxt - last == 670, f"{mode} h2: cut to 50.048828125 Gbit/s when its CNP lands at {arrive}: {last} -> {nxt}")


def ksweep_profile(mode, k):
    b = k * 4096
    return ("name: ksweep\n"
            "defaults: {speed: 100G, opcode: write, message_size: 64KiB, mtu: 4096, dscp: 26, ecn: ect0}\n"
            "hosts:\n" + host(0, 34, f", respond: {{cnp: on, cnp_interval: 50us, cnp_mode: {mode}}}") +
            "".join(host(i, 34) for i in range(1, 9)) +
            "traffic:\n  - {name: incast, pattern: incast, receiver: h0, senders: [h1, h2, h3, h4, h5, h6, h7, h8], "
            "rate: 100%, messages: 200}\n"
            "fabric:\n  topology: single\n  link: {delay: 500ns}\n  buffer: 16MiB\n  pfc: {priorities: [3], xoff: 128KiB}\n"
            f"  ecn: {{priorities: [3], kmin: {b}, kmax: {b}, pmax: 100%}}\n"
            "  dcqcn: {enabled: on, rpg_time_reset: 55us, dce_tcp_g: 1023, dce_tcp_rtt: 55us, alpha_update: periodic, "
            "clamp_tgt_rate: on}\n")


def median_queue(out, virtual_ns):
    """h0's port (sw0 port 0, priority 3) over the run's bins, from qdepth.csv."""
    import csv
    import statistics
    with open(os.path.join(out, "qdepth.csv")) as f:
        q = [int(r["sw0:0:3"]) for r in csv.DictReader(f)]
    return statistics.median(q[:max(1, virtual_ns // 10000)])


# The line-rate time of the whole incast: a 64 KiB WRITE is 16 frames on the wire, the first with
# its RETH (4194 B) and 15 without (4178 B): 66864 B; 8 senders x 200 WRITEs x 66864 B x 8 /
# 100 Gbit/s = 8558592 ns, + 1670 ns for a frame to reach h0: 8560262 ns.
IDEAL_NS = 8 * 200 * (4194 + 15 * 4178) * 8 // 100 + 1670


def case_ksweep(tmp):
    end, med = {}, {}
    for mode in ("first", "paper"):
        for k in (6, 25, 100):
            j, out = lab(tmp, f"k-{mode}-{k}", ksweep_profile(mode, k))
            h = j["headline"]
            end[(mode, k)], med[(mode, k)] = h["virtual_ns"], median_queue(out, h["virtual_ns"])
            print(f"      {mode} K={k}: goodput {h['goodput_gbps']:.1f} Gbit/s, median queue "
                  f"{med[(mode, k)] / 1000:.0f} KB, ends {h['virtual_ns'] / IDEAL_NS:.3f} x the line-rate time, "
                  f"{sum(d['cnps'] for d in j['lab']['dcqcn'])} CNPs")
    for key, m in med.items():
        expect(m <= key[1] * 4096, f"{key}: the step threshold holds the median queue at or below K x 4096 B: {m}")
    expect(med[("first", 100)] >= 25 * 4096,
           f"first K=100: the queue stands above K=25's threshold (102400 B): {med[('first', 100)]}")
    f6, f100, p100 = end[("first", 6)], end[("first", 100)], end[("paper", 100)]
    expect(f100 <= IDEAL_NS * 1.03,
           f"first K=100: the standing queue keeps h0's link busy, the run ends within 3% of {IDEAL_NS} ns: {f100}")
    expect(f6 >= IDEAL_NS * 1.10,
           f"first K=6: the queue drains after the cuts, the run ends 10% or more after {IDEAL_NS} ns: {f6}")
    expect(p100 >= f100 * 1.05,
           f"paper K=100: the window-end CNPs cut more, 5% or more later than first's {f100} ns: {p100}")


def case_badrange(tmp):
    base = ("name: bad\ndefaults: {speed: 100G}\nhosts:\n" + host(0, 35) + host(1, 35) +
            "traffic:\n  - {name: f, pattern: flow, src: h1, dst: h0, messages: 1}\nfabric:\n  topology: single\n")
    for kv, words in (("dce_tcp_g: 1024", "1024 is outside mlx5's 0..1023: its meaning changed"),
                      ("dce_tcp_rtt: 200ms", "200000 us is outside mlx5's 1..131071 us: its meaning changed"),
                      ("dce_tcp_rtt: 1500ns", "1500 ns is not whole microseconds"),
                      ("initial_alpha_value: 0", "0 is outside mlx5's 1..1023: its meaning changed")):
        path, out = os.path.join(tmp, "bad.yaml"), os.path.join(tmp, "bad-out")
        with open(path, "w") as f:
            f.write(base + f"  dcqcn: {{enabled: on, {kv}}}\n")
        p = subprocess.run([ROCEPROBE, "lab", path, "-o", out], capture_output=True, text=True, timeout=60)
        lines = p.stderr.strip().splitlines()
        expect(p.returncode == 2 and len(lines) == 1 and words in lines[0] and not os.path.exists(out),
               f"{kv}: exit {p.returncode}, one line: {lines}")


with tempfile.TemporaryDirectory() as tmp:
    {"incast": case_incast, "stagger": case_stagger, "ksweep": case_ksweep, "badrange": case_badrange}[CASE](tmp)
finish(CASE)
