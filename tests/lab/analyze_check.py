#!/usr/bin/python3
"""roceprobe analyze on captures built here, byte by byte, against known answers.

    h1 192.0.2.1 --- flow 3 (probes, QP 0x200) --------+
    h2 192.0.2.2 --- QP 0x300 (no probes, PSN only) ---+--> capture point --> rx 192.0.2.9
    switch       --- PFC prio 3 / PAUSE ---------------+

Flow 3: 1005 RDMA WRITE_ONLY packets, probe seq 0..1004, PSN 100..1104; every
10th (i % 10 == 9) dropped before the capture point: 100 lost; every 7th of
those that remain is CE-marked. rx answers the CE-marked ones with a CNP to
QP 0x100 of h1 (its only QP, so analyze learns it).
QP 0x300: 505 probe-less packets, PSN 0xFFFF00.. (wrapping past 2^24), every
10th dropped (50), plus 5 resends after a NAK: go-back-N once.
PFC: XOFF prio 3 with 65535 quanta at 100G (335539 ns), then XON 100 us
later: paused 100000 ns exactly.

usage: analyze_check.py ROCEPROBE
"""
import json
import os
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "interop"))
from roce_icrc import icrc_wire  # noqa: E402
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from check import expect, finish, write_pcap  # noqa: E402

roceprobe = sys.argv[1]



def ip4(s):
    return bytes(int(x) for x in s.split("."))


def csum(b):
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


MAC = {"h1": b"\x02\0\0\0\0\x01", "h2": b"\x02\0\0\0\0\x02", "h3": b"\x02\0\0\0\0\x03",
       "rx": b"\x02\0\0\0\0\x09", "sw": b"\x02\0\0\0\0\xfe"}
IP = {"h1": ip4("192.0.2.1"), "h2": ip4("192.0.2.2"), "h3": ip4("192.0.2.3"), "rx": ip4("192.0.2.9")}


def roce(src, dst, opcode, dqpn, psn, payload=b"", ce=False, becn=False, ack_req=False, ext=b"", dscp=26):
    """An untagged IPv4 RoCEv2 frame with a valid ICRC."""
    pad = (4 - len(payload) % 4) % 4
    bth = struct.pack("!BBHII", opcode, pad << 4, 0xFFFF, (0x40 if becn else 0) << 24 | dqpn,
                      (0x80000000 if ack_req else 0) | (psn & 0xFFFFFF))
    l4 = bth + ext + payload + b"\0" * pad
    udp_len = 8 + len(l4) + 4
    tos = dscp << 2 | (3 if ce else 2)
    iph = struct.pack("!BBHHHBBH4s4s", 0x45, tos, 20 + udp_len, 0, 0x4000, 64, 17, 0, IP[src], IP[dst])
    iph = iph[:10] + struct.pack("!H", csum(iph)) + iph[12:]
    l3 = iph + struct.pack("!HHHH", 0xC000, 4791, udp_len, 0) + l4
    frame = MAC[dst] + MAC[src] + b"\x08\x00" + l3 + icrc_wire(l3)
    return frame + b"\0" * max(0, 60 - len(frame))


def probe(flow, seq, tx_ns):
    return struct.pack("!IIQQ", 0x52505242, flow, seq, tx_ns) + b"\0" * 40


def pfc(enable, quanta):
    q = [0] * 8
    for p, v in quanta.items():
        q[p] = v
    f = b"\x01\x80\xc2\x00\x00\x01" + MAC["sw"] + b"\x88\x08" + struct.pack("!HH8H", 0x0101, enable, *q)
    return f + b"\0" * (60 - len(f))




T0 = 1700000000 * 1000000000
frames = []
lost3 = ce3 = 0
for i in range(1005):
    t = T0 + i * 1000
    if i % 10 == 9:
        lost3 += 1
        continue
    ce = (i - lost3) % 7 == 0
    ce3 += ce
    frames.append((t + 500, roce("h1", "rx", 0x0A, 0x200, 100 + i, probe(3, i, t), ce=ce,
                                 ext=struct.pack("!QII", 0x1000, 0x55, 64))))
    if ce:
        frames.append((t + 700, roce("rx", "h1", 0x81, 0x100, 0, b"\0" * 16, becn=True, dscp=48)))

lost_q = 0
psn0 = 0xFFFF00
for i in range(505):
    if i % 10 == 9:
        lost_q += 1
        continue
    frames.append((T0 + 300 + i * 1000, roce("h2", "rx", 0x04, 0x300, psn0 + i, b"x" * 32)))
# a NAK for PSN psn0 + 499 (lost), then the resend of 499..503 (499 fills the gap, 500..503 were seen)
t_nak = T0 + 300 + 505 * 1000
frames.append((t_nak, roce("rx", "h2", 0x11, 0x301, psn0 + 499, ext=struct.pack("!I", 0x60 << 24 | 7))))
for k, i in enumerate(range(499, 504)):
    frames.append((t_nak + 2000 + k * 100, roce("h2", "rx", 0x04, 0x300, psn0 + i, b"x" * 32)))
lost_q -= 1  # 499 arrived in the end

# QP 0x500 of h3 (no probes): PSN 0..19 with 5 and 7 lost before the capture
# point; NAK(5); go-back-N resends 5..14: N = 10 retransmitted, k = 2 of them
# (5, 7) fill the gaps, N - k = 8 were seen before (duplicates); then 20..24,
# 26 before 25 (late, no NAK: reordered, not resent), 27. By hand:
# rx 18 + 10 + 5 + 3 = 36, retransmissions 10, duplicates 8, reordered 1, lost 0.
t5 = T0 + 350000
gbn = [p for p in range(20) if p not in (5, 7)]
for k, p in enumerate(gbn):
    frames.append((t5 + k * 100, roce("h3", "rx", 0x04, 0x500, p, b"y" * 64)))
t5 += len(gbn) * 100
frames.append((t5, roce("rx", "h3", 0x11, 0x501, 5, ext=struct.pack("!I", 0x60 << 24 | 3))))
for k, p in enumerate(list(range(5, 15)) + [20, 21, 22, 23, 24, 26, 25, 27]):
    frames.append((t5 + 1000 + k * 100, roce("h3", "rx", 0x04, 0x500, p, b"y" * 64)))

frames.append((T0 + 200000, pfc(0x08, {3: 65535})))
frames.append((T0 + 300000, pfc(0x08, {3: 0})))

with tempfile.TemporaryDirectory() as d:
    pcap = os.path.join(d, "incident.pcap")
    write_pcap(pcap, frames, nano=True)
    p = subprocess.run([roceprobe, "analyze", "--json", pcap], capture_output=True, text=True)
    expect(p.returncode == 0, f"analyze --json exits 0 ({p.stderr.strip()})")
    j = json.loads(p.stdout) if p.returncode == 0 else {"flows": [], "ports": []}
    expect(j.get("schema") == "roceprobe.analyze/1", "schema roceprobe.analyze/1")
    flows = {f["qpn"]: f for f in j["flows"]}
    f3 = flows.get(0x200, {})
    fq = flows.get(0x300, {})
    expect(f3.get("id") == 3, "the probe's flow id names the flow")
    expect(f3.get("lost") == lost3 == 100, f"flow 3: lost {f3.get('lost')} == {lost3} (every 10th of 1005)")
    expect(f3.get("rx_packets") == 1005 - 100, f"flow 3: rx_packets {f3.get('rx_packets')} == 905")
    expect(f3.get("ce") == ce3, f"flow 3: ce {f3.get('ce')} == {ce3}")
    expect(f3.get("cnp_rx") == ce3, f"flow 3: cnp_rx {f3.get('cnp_rx')} == {ce3} (one CNP per CE)")
    expect(f3.get("reordered") == 0 and f3.get("duplicates") == 0, "flow 3: nothing reordered or duplicated")
    expect(fq.get("lost") == lost_q == 49, f"QP 0x300: lost {fq.get('lost')} == {lost_q} (50 gaps, one refilled)")
    # go-back-N from 499: 499..503 resent (N = 5), 499 filled its gap (k = 1),
    # 500..503 were seen before: retransmitted 5, duplicates 4
    expect(fq.get("retransmissions") == 5, f"QP 0x300: 5 packets resent after the NAK ({fq.get('retransmissions')})")
    expect(fq.get("duplicates") == 4, f"QP 0x300: 4 of them seen before ({fq.get('duplicates')})")
    expect(fq.get("reordered") == 0, f"QP 0x300: the gap filled by the resend is not a reorder ({fq.get('reordered')})")
    f5 = flows.get(0x500, {})
    q5 = (f5.get("qps") or [{}])[0]
    expect((f5.get("rx_packets"), f5.get("retransmissions"), f5.get("duplicates"), f5.get("reordered"), f5.get("lost"),
            f5.get("go_back_n")) == (36, 10, 8, 1, 0, 1),
           "QP 0x500: rx 36, retransmissions 10, duplicates 8, reordered 1, lost 0, go-back-N 1: "
           f"{(f5.get('rx_packets'), f5.get('retransmissions'), f5.get('duplicates'), f5.get('reordered'), f5.get('lost'), f5.get('go_back_n'))}")
    expect((q5.get("retransmissions"), q5.get("duplicates"), q5.get("filled"), q5.get("reordered")) == (10, 8, 3, 1),
           f"QP 0x500 per QP: retransmissions 10, duplicates 8, filled 3, reordered 1 ({q5})")
    expect(fq.get("go_back_n") == 1, "QP 0x300: one go-back-N episode after the NAK")
    expect(fq.get("naks") == 1, "QP 0x300: the NAK is counted for it")
    expect(fq.get("nak_to_resend_ns", {}).get("max") == 2000, "NAK -> resend 2000 ns")
    expect(all(k in f3 for k in ("tx_packets", "rx_bytes", "acks", "goodput_gbps", "latency_ns")),
           "flow fields named as in result.json")
    prio3 = j["ports"][0]["prio"][3] if j["ports"] else {}
    expect(prio3.get("pfc_rx") == 2, "prio 3: 2 PFC frames")
    expect(prio3.get("paused_ns") == 100000, f"prio 3: paused_ns {prio3.get('paused_ns')} == 100000 (XOFF, XON 100 us later)")
    # times are since the capture's first frame (T0 + 300)
    expect(prio3.get("first_pause_ns") == 200000 - 300, "prio 3: first pause at +199.7 us")
    ts = j.get("timeseries", {})
    expect(sum(ts.get("ce", [])) == ce3, "time series: CE adds up")
    paused = [pp for pp in ts.get("ports", [{}])[0].get("prio", []) if pp["prio"] == 3]
    expect(paused and sum(paused[0]["paused_ns"]) == 100000, "time series: paused ns add up")

    t = subprocess.run([roceprobe, "analyze", pcap], capture_output=True, text=True)
    expect(t.returncode == 0 and "lost before the capture point" in t.stdout, "the text summary explains the loss")

    bad = os.path.join(d, "bad.pcap")
    with open(bad, "wb") as f:
        f.write(b"not a capture")
    b = subprocess.run([roceprobe, "analyze", bad], capture_output=True, text=True)
    expect(b.returncode == 2 and b.stderr.count("\n") == 1, "unreadable input: exit 2, one line")
    # Goodput from the wire lengths: 1001 RDMA WRITE_ONLY of 1024 B payload, one
    # every 8192 ns, so 1001 * 1024 * 8 bits over the 1000 * 8192 ns between the
    # first and the last = 8200192 / 8192000 = 1.001 Gbit/s, with the frames
    # whole or cut by a 128-byte snaplen (which holds 58 payload bytes of each).
    big = [(T0 + i * 8192, roce("h1", "rx", 0x0A, 0x400, i, probe(5, i, T0 + i * 8192) + b"\xab" * (1024 - 64),
                                ext=struct.pack("!QII", 0x1000, 0x55, 1024))) for i in range(1001)]
    for snap in (65535, 128):
        gp = os.path.join(d, "goodput-%d.pcap" % snap)
        write_pcap(gp, big, nano=True, snaplen=snap)
        g = subprocess.run([roceprobe, "analyze", "--json", gp], capture_output=True, text=True)
        gf = json.loads(g.stdout)["flows"][0] if g.returncode == 0 else {}
        expect(abs(gf.get("goodput_gbps", 0) - 1.001) < 1e-9,
               f"snaplen {snap}: goodput {gf.get('goodput_gbps')} == 1.001 Gbit/s")
        expect(gf.get("rx_bytes") == 1001 * (14 + 20 + 8 + 12 + 16 + 1024 + 4),
               f"snaplen {snap}: rx_bytes {gf.get('rx_bytes')} == 1001 x 1098 wire bytes")
        dj = subprocess.run([roceprobe, "decode", "--json", gp], capture_output=True, text=True)
        plens = {json.loads(ln).get("payload_len") for ln in dj.stdout.splitlines()[:-1]}
        expect(dj.returncode == 0 and plens == {1024}, f"snaplen {snap}: decode payload_len {plens} == {{1024}}")

    # Snaplen cuts before a header or a probe (tcpdump -s 64 / -s 80 of roceprobe's 4 KiB
    # writes): 30 messages of WRITE FIRST (RETH, probe at byte 70), MIDDLE, LAST (probe at
    # 54), probe seq = PSN = 0..89, PSN 31 dropped; 5 CNPs back to h1. At 64 B the RETH
    # and the CNPs' 16 reserved bytes are cut, at 80 the FIRSTs' probes: every frame still
    # counts (data 89, cnp 5, none malformed), lost 1, bytes from the wire lengths (was:
    # at 80 every FIRST's seq counted lost, 31; at 64 the FIRSTs and CNPs malformed).
    wr, t = [], T0
    for i in range(90):
        op, ext = [(0x06, struct.pack("!QII", 0x1000, 0x55, 3 * 64)), (0x07, b""), (0x08, b"")][i % 3]
        if i != 31:
            wr.append((t, roce("h1", "rx", op, 0x200, i, probe(7, i, t), ext=ext)))
        if i % 18 == 17:
            wr.append((t + 500, roce("rx", "h1", 0x81, 0x100, 0, ext=b"\0" * 16, becn=True)))
        t += 1000
    wire_data = sum(len(fr) for _, fr in wr if fr[42] != 0x81)
    for snap in (65535, 80, 64):
        sp = os.path.join(d, "cut-%d.pcap" % snap)
        write_pcap(sp, wr, snaplen=snap)
        sj = json.loads(subprocess.run([roceprobe, "analyze", "--json", sp], capture_output=True, text=True).stdout)
        cl, sf = sj["capture"]["classes"], (sj["flows"] or [{}])[0]
        got = (cl["data"], cl["cnp"], cl["malformed"], sf.get("rx_packets"), sf.get("lost"), sf.get("cnp_rx"), sf.get("rx_bytes"))
        expect(got == (89, 5, 0, 89, 1, 5, wire_data),
               f"snaplen {snap}: data, cnp, malformed, rx, lost, cnp_rx, bytes {got} == (89, 5, 0, 89, 1, 5, {wire_data})")

    # A pause that runs past the last captured frame counts to its expiry:
    # 65535 quanta x 512 bit times = 33553920 bits; at 100 Gbit/s that is
    # 335539.2 ns -> 335539 (whole ns, rounded down); at 25G 1342156.8 -> 1342156.
    # (a) the XOFF is the last frame: all of it is after the last frame;
    # (b) the XOFF, then data for 100 us: 100000 ns inside, 235539 after.
    data10 = [(T0 + i * 1000, roce("h1", "rx", 0x04, 0x600, i, b"z" * 64)) for i in range(10)]
    cases = [("last", data10 + [(T0 + 10000, pfc(0x08, {3: 0xFFFF}))], [], 335539, 335539),
             ("last-25G", data10 + [(T0 + 10000, pfc(0x08, {3: 0xFFFF}))], ["--speed", "25G"], 1342156, 1342156),
             ("mid", [(T0, pfc(0x08, {3: 0xFFFF}))] + [(T0 + 10000 * (i + 1), fr) for i, (_, fr) in enumerate(data10)],
              [], 335539, 335539 - 100000)]
    for name, frs, opts, want, past in cases:
        pp = os.path.join(d, "pause-%s.pcap" % name)
        write_pcap(pp, frs, nano=True)
        r = subprocess.run([roceprobe, "analyze", "--json"] + opts + [pp], capture_output=True, text=True)
        pj = json.loads(r.stdout) if r.returncode == 0 else {"ports": [{"prio": [{}] * 8}], "findings": []}
        p3 = pj["ports"][0]["prio"][3]
        expect(p3.get("paused_ns") == want and p3.get("xoff_to_xon") == 1,
               f"pause {name}: paused_ns {p3.get('paused_ns')} == {want} (to its expiry), one XOFF->XON")
        expect(any(f"{past} ns of it after the last frame" in x for x in pj["findings"]),
               f"pause {name}: the finding says {past} ns ran past the last frame")

    # --latency: flow 3's probes were stamped at t and captured at t + 500 (one
    # clock): min = max = 500 ns. Probes stamped by another clock: a monotonic
    # one (5 ms after boot) under a capture in Unix time gives delays of
    # 1.7e18 ns, and the reverse gives probes that arrive before they were sent;
    # both: one line on stderr, exit 2, nothing on stdout.
    lj = subprocess.run([roceprobe, "analyze", "--json", "--latency", pcap], capture_output=True, text=True)
    lat = json.loads(lj.stdout)["latency_ns"] if lj.returncode == 0 else {}
    expect(lat.get("min") == 500 and lat.get("max") == 500, f"--latency, one clock: min {lat.get('min')} max {lat.get('max')} == 500")
    w = lambda i: struct.pack("!QII", 0x1000, 0x55, 64)  # noqa: E731
    clocks = {"monotonic-probes": [(T0 + i * 1000, roce("h1", "rx", 0x0A, 0x200, i, probe(3, i, 5000000 + i * 1000), ext=w(i)))
                                   for i in range(10)],
              "probes-ahead": [(5000000 + i * 1000 + 700, roce("h1", "rx", 0x0A, 0x200, i, probe(3, i, T0 + i * 1000), ext=w(i)))
                               for i in range(10)]}
    for name, frs in clocks.items():
        cp = os.path.join(d, "clock-%s.pcap" % name)
        write_pcap(cp, frs, nano=True)
        for opts in (["--latency"], ["--latency", "--json"]):
            c = subprocess.run([roceprobe, "analyze"] + opts + [cp], capture_output=True, text=True)
            expect(c.returncode == 2 and c.stderr.count("\n") == 1 and "clock" in c.stderr and c.stdout == "",
                   f"analyze {' '.join(opts)}, {name}: exit {c.returncode}, one line ({c.stderr.strip()})")
        c = subprocess.run([roceprobe, "analyze", cp], capture_output=True, text=True)
        expect(c.returncode == 0, f"analyze without --latency, {name}: exit 0 (nothing to refuse)")

    # Standard input, from a pipe (read twice, so analyze keeps a copy): the same
    # analysis as from the file, for analyze and for decode.
    whole = os.path.join(d, "goodput-65535.pcap")
    with open(whole, "rb") as fh:
        raw = fh.read()
    byfile = subprocess.run([roceprobe, "analyze", "--json", whole], capture_output=True, text=True)
    bypipe = subprocess.run([roceprobe, "analyze", "--json", "-"], input=raw, capture_output=True)
    jf, jp = json.loads(byfile.stdout), json.loads(bypipe.stdout) if bypipe.returncode == 0 else {}
    jf["capture"].pop("file"), jp.get("capture", {}).pop("file", None)
    expect(bypipe.returncode == 0 and jp == jf, f"analyze - (a pipe): exit {bypipe.returncode}, same JSON as the file")
    dpipe = subprocess.run([roceprobe, "decode", "-"], input=raw, capture_output=True)
    dfile = subprocess.run([roceprobe, "decode", whole], capture_output=True)
    expect(dpipe.returncode == 0 and dpipe.stdout == dfile.stdout, "decode - (a pipe): same lines as the file")

    # A file cut inside a record: 24 bytes of file header, records of 16 + 1098
    # bytes; cut 100 bytes into the 501st. Analysed: the 500 whole frames, so
    # 500 x 1024 x 8 bits over 499 x 8192 ns = 500/499 Gbit/s; one line on stderr.
    cutfile = os.path.join(d, "cut-mid-record.pcap")
    with open(cutfile, "wb") as fh:
        fh.write(raw[:24 + 500 * (16 + 1098) + 100])
    for args in (["--json"], [], ["--json", "-"]):
        stdin = raw[:24 + 500 * (16 + 1098) + 100] if "-" in args else None
        cmd = [roceprobe, "analyze"] + args + ([] if "-" in args else [cutfile])
        c = subprocess.run(cmd, input=stdin, capture_output=True)
        err = c.stderr.decode()
        expect(c.returncode == 0 and err.count("\n") == 1 and "truncated at frame 501" in err,
               f"analyze {' '.join(args)} of a truncated file: exit {c.returncode}, one line naming frame 501 ({err.strip()})")
        if "--json" in args and c.returncode == 0:
            cj = json.loads(c.stdout)
            cf = cj["flows"][0] if cj["flows"] else {}
            expect(cj["capture"]["frames"] == 500 and cj["capture"]["truncated"] is True and cf.get("rx_packets") == 500,
                   f"truncated: 500 frames analysed ({cj['capture']['frames']}), capture.truncated true")
            expect(abs(cf.get("goodput_gbps", 0) - 500 / 499) < 1e-9, f"truncated: goodput {cf.get('goodput_gbps')} == 500/499")
            expect(any("truncated at frame 501" in x for x in cj["findings"]), "truncated: a finding says so")
    dc = subprocess.run([roceprobe, "decode", cutfile], capture_output=True, text=True)
    expect(dc.returncode == 0 and dc.stdout.splitlines()[-1].startswith("500 frames:") and
           dc.stderr.count("\n") == 1 and "truncated at frame 501" in dc.stderr,
           f"decode of the truncated file: 500 frames, the same one line ({dc.stderr.strip()})")
    expect(json.loads(byfile.stdout)["capture"].get("truncated") is False, "a whole file: capture.truncated false")

    # RC used both ways: h1's QP 0x100 and h2's QP 0x101 send to each other and ACK each
    # other, so h2's data to h1 and h2's ACKs of h1's data carry the same addresses and
    # DestQP (0x100). 4 SEND ONLY h1 -> h2 (PSN 0..3), 3 h2 -> h1 (PSN 500..502), each
    # ACKed: data 7, ack 7, two flows, nothing unmatched (was: data 4, ack 10, or 3 and 11).
    aeth = lambda msn: struct.pack("!I", 0x1F << 24 | msn)  # noqa: E731  AETH: ACK, credits 31
    both, t = [], T0
    for i in range(4):
        both += [(t, roce("h1", "h2", 0x04, 0x101, i, b"\x11" * 200)),
                 (t + 100, roce("h2", "h1", 0x11, 0x100, i, ext=aeth(i + 1)))]
        if i < 3:  # h2's data first: its DestQP is 0x100 before h2's first ACK names it
            both += [(t + 200, roce("h2", "h1", 0x04, 0x100, 500 + i, b"\x22" * 200)),
                     (t + 300, roce("h1", "h2", 0x11, 0x101, 500 + i, ext=aeth(i + 1)))]
        t += 1000
    bp = os.path.join(d, "both-ways.pcap")
    write_pcap(bp, both)
    bj = json.loads(subprocess.run([roceprobe, "analyze", "--json", bp], capture_output=True, text=True).stdout)
    bf = {(f["src"], f["dst"]): f for f in bj["flows"]}
    f12, f21 = bf.get(("192.0.2.1", "192.0.2.2"), {}), bf.get(("192.0.2.2", "192.0.2.1"), {})
    bc = bj["capture"]
    expect((bc["classes"]["data"], bc["classes"]["ack"], bc["unmatched"]) == (7, 7, 0),
           f"both ways: data 7, ack 7, unmatched 0 ({bc['classes']['data']}, {bc['classes']['ack']}, {bc['unmatched']})")
    got = tuple(f.get(k) for f in (f12, f21) for k in ("rx_packets", "acks", "lost"))
    expect(got == (4, 4, 0, 3, 3, 0), f"both ways: h1->h2 4 packets 4 acks, h2->h1 3 and 3, none lost {got}")

    # RDMA READ: a request takes one PSN per response packet. h1 (QP 0x400) reads 600 B
    # from h2 (QP 0x401) at PSN 50 (responses 50..52 of 256, 256, 88 B), writes at 53
    # (ACKed), reads 512 B at 54 and writes at 56 before that read's responses (54, 55)
    # come back. No PSN is lost (was: 2 of 5 then 3 lost, the responses a data flow).
    reth = lambda n: struct.pack("!QII", 0x1000, 0x55, n)  # noqa: E731  RETH: va, rkey, length
    rd = [(T0 + 0, roce("h1", "h2", 0x0C, 0x401, 50, ext=reth(600))),
          (T0 + 1000, roce("h2", "h1", 0x0D, 0x400, 50, b"\x33" * 256, ext=aeth(1))),
          (T0 + 2000, roce("h2", "h1", 0x0E, 0x400, 51, b"\x33" * 256)),
          (T0 + 3000, roce("h2", "h1", 0x0F, 0x400, 52, b"\x33" * 88, ext=aeth(1))),
          (T0 + 4000, roce("h1", "h2", 0x0A, 0x401, 53, b"\x44" * 64, ext=reth(64))),
          (T0 + 5000, roce("h2", "h1", 0x11, 0x400, 53, ext=aeth(2))),
          (T0 + 6000, roce("h1", "h2", 0x0C, 0x401, 54, ext=reth(512))),
          (T0 + 7000, roce("h1", "h2", 0x0A, 0x401, 56, b"\x44" * 64, ext=reth(64))),
          (T0 + 8000, roce("h2", "h1", 0x0D, 0x400, 54, b"\x33" * 256, ext=aeth(3))),
          (T0 + 9000, roce("h2", "h1", 0x0F, 0x400, 55, b"\x33" * 256, ext=aeth(3))),
          (T0 + 10000, roce("h2", "h1", 0x11, 0x400, 56, ext=aeth(4)))]
    rp_ = os.path.join(d, "reads.pcap")
    write_pcap(rp_, rd)
    rj = json.loads(subprocess.run([roceprobe, "analyze", "--json", rp_], capture_output=True, text=True).stdout)
    rf = rj["flows"][0] if len(rj["flows"]) == 1 else {}
    rq = rf.get("qps", [{}])[0]
    rc_ = rj["capture"]
    got = (len(rj["flows"]), rf.get("rx_packets"), rf.get("lost"), rq.get("lost"), rc_["unmatched"])
    expect(got == (1, 4, 0, 0, 0), f"reads: one flow, its 4 requests, 0 lost (QP too), nothing unmatched {got}")
    expect((rc_["classes"]["data"], rc_["classes"]["ack"]) == (4, 7),
           f"reads: data 4 (requests), ack 7 (5 read responses, 2 ACKs) ({rc_['classes']})")

    # A capture not in time order (pcapng merged from two interfaces): a flow spans its
    # earliest to its latest frame. Frames at +4000, 0, 2000, 1000, 8000 ns, 100 B of
    # payload each: first 0, last 8000, goodput over the active time 5 x 800 bits x 4/5 /
    # 8000 ns = 0.4 Gbit/s (was first 4000, active 4000).
    ooo = os.path.join(d, "out-of-order.pcap")
    with open(ooo, "wb") as fh:
        fh.write(struct.pack("<IHHiIII", 0xa1b23c4d, 2, 4, 0, 0, 65535, 1))
        for i, t in enumerate((4000, 0, 2000, 1000, 8000)):
            fr = roce("h1", "rx", 0x0A, 0x200, i, b"\x66" * 100, ext=reth(100))
            fh.write(struct.pack("<IIII", (T0 + t) // 10**9, (T0 + t) % 10**9, len(fr), len(fr)) + fr)
    oj = json.loads(subprocess.run([roceprobe, "analyze", "--json", ooo], capture_output=True, text=True).stdout)
    of = oj["flows"][0]
    expect((of["first_rx_ns"], of["last_rx_ns"], of["active_ns"]) == (0, 8000, 8000)
           and abs(of["goodput_active_gbps"] - 0.4) < 1e-9,
           f"out of time order: first, last, active {(of['first_rx_ns'], of['last_rx_ns'], of['active_ns'])} == "
           f"(0, 8000, 8000), goodput_active {of['goodput_active_gbps']} == 0.4")

    # Loss before the first probe: probes from seq 3000 (a capture started mid-run, or a
    # run that lost its first 3000) count 3000 lost, and a finding says which they are; with
    # seqs 5, 6, 2, 7 the head is seqs 0 and 1 (2 came late), the loss 0, 1, 3, 4.
    for name, seqs, lost, head in (("mid-run", range(3000, 3010), 3000, 3000), ("late-low", (5, 6, 2, 7), 4, 2)):
        hp = os.path.join(d, name + ".pcap")
        write_pcap(hp, [(T0 + i * 1000, roce("h1", "rx", 0x0A, 0x200, i, probe(9, q, T0), ext=reth(64)))
                        for i, q in enumerate(seqs)])
        hj = json.loads(subprocess.run([roceprobe, "analyze", "--json", hp], capture_output=True, text=True).stdout)
        says = [x for x in hj["findings"] if "probes before its first one here" in x]
        expect(hj["flows"][0]["lost"] == lost and len(says) == 1 and says[0].startswith(f"flow 9: {head} of those"),
               f"{name}: lost {hj['flows'][0]['lost']} == {lost}, {head} of them before the first probe: {says}")

    # Frames no flow takes say why: 4100 QPs of one frame each (analyze follows 4096 flows),
    # and a probe flow id that a second host pair reuses (h1 sends 3 of flow 7, then h2 2).
    many = [(T0 + i * 1000, roce("h1", "rx", 0x0A, 0x1000 + i, 0, b"\x55" * 64, ext=reth(64))) for i in range(4100)]
    clash = [(T0 + i * 1000, roce("h1" if i < 3 else "h2", "rx", 0x0A, 0x200, i, probe(7, i, T0), ext=reth(64)))
             for i in range(5)]
    for name, frames, want, say in (("4100-qps", many, (4096, 4), "4 data frames are in no flow: analyze follows "
                                     "the first 4096 flows, and 4 frames came for more"),
                                    ("id-clash", clash, (3, 2), "2 data frames are in no flow (their probe's flow id "
                                     "is another host pair's)")):
        up = os.path.join(d, name + ".pcap")
        write_pcap(up, frames)
        uj = json.loads(subprocess.run([roceprobe, "analyze", "--json", up], capture_output=True, text=True).stdout)
        ucl = uj["capture"]["classes"]
        expect((ucl["data"], ucl["other"]) == want and say in uj["findings"],
               f"{name}: data, other {(ucl['data'], ucl['other'])} == {want}; findings {uj['findings']}")

    # Bad ICRCs: 50 SEND ONLY h1 -> rx (QP 0x700, PSN 0..49, 64 B payload), the 5th, 10th,
    # ..., 50th (i % 5 == 4) with one payload byte flipped after its ICRC. A NIC drops
    # those 10: rx 40, icrc_bad 10, lost 10 (the 50th too: it holds its place though
    # nothing follows it), data 40 + icrc_bad 10 frames, and a finding names the ICRC
    # (was: rx 50, lost 0, "nothing wrong"; only ports[0].icrc_bad knew).
    ib = []
    for i in range(50):
        fr = roce("h1", "rx", 0x04, 0x700, i, b"\x5a" * 64)
        if i % 5 == 4:
            fr = fr[:60] + bytes([fr[60] ^ 1]) + fr[61:]  # byte 60: the payload's 7th (14 + 20 + 8 + 12 = 54)
        ib.append((T0 + i * 1000, fr))
    ibp = os.path.join(d, "icrc-bad.pcap")
    write_pcap(ibp, ib, nano=True)
    ij = json.loads(subprocess.run([roceprobe, "analyze", "--json", ibp], capture_output=True, text=True).stdout)
    iff = ij["flows"][0] if ij["flows"] else {}
    got = (iff.get("rx_packets"), iff.get("icrc_bad"), iff.get("lost"), ij["capture"]["classes"].get("data"),
           ij["capture"]["classes"].get("icrc_bad"), ij["ports"][0]["icrc_bad"])
    expect(got == (40, 10, 10, 40, 10, 10), f"bad ICRC: rx, icrc_bad, lost, data, class icrc_bad, port icrc_bad {got} "
           "== (40, 10, 10, 40, 10, 10)")
    expect(any("10 data frames with a bad ICRC" in x for x in ij["findings"])
           and not any(x.startswith("nothing wrong") for x in ij["findings"]),
           f"bad ICRC: a finding names the ICRC, not 'nothing wrong': {ij['findings']}")
    dj = subprocess.run([roceprobe, "decode", "--json", ibp], capture_output=True, text=True)
    expect(json.loads(dj.stdout.splitlines()[-1]).get("icrc_bad") == 10, "bad ICRC: decode counts the same 10")

    # Reordering is a finding: PSN 0, 1, 2, 4, 3, 5, 6 (one late, no NAK, no resend).
    ro = [(T0 + k * 1000, roce("h1", "rx", 0x04, 0x700, p_, b"\x5a" * 64)) for k, p_ in enumerate((0, 1, 2, 4, 3, 5, 6))]
    rop = os.path.join(d, "reordered.pcap")
    write_pcap(rop, ro, nano=True)
    roj = json.loads(subprocess.run([roceprobe, "analyze", "--json", rop], capture_output=True, text=True).stdout)
    rof = roj["flows"][0] if roj["flows"] else {}
    expect(rof.get("reordered") == 1 and rof.get("lost") == 0 and
           roj["findings"] == ["flow 0: 1 packets arrived late (reordered: after a later one, not resent), which a RoCE "
                               "NIC takes for loss and answers with a NAK"],
           f"reordered 1, lost 0, and a finding says so: {roj['findings']}")

    # Two QPs of one host pair over the same PSNs, each with its own NAK: h1 -> rx QP 0x300
    # (NAKs to h1's 0x301) and 0x500 (NAKs to 0x501), PSN 0..9 interleaved, 0x300 loses
    # 3 and 0x500 loses 6 before the capture point; NAK(3) to 0x301, NAK(6) to 0x501; then
    # 0x300 resends 3..9 and 0x500 6..9. Both PSN ranges hold 3 and 6, but only 0x300
    # misses 3: NAK(3) is 0x300's, and NAK(6) the other's. By hand: 0x300 rx 9 + 7 = 16,
    # 7 resent (go-back-N), 6 seen before, 0 late, 0 lost; 0x500 rx 9 + 4 = 13, resent 4,
    # duplicates 3 (was: both NAKs matched no flow, go-back-N 0, reordered 1 each).
    nq, t = [], T0
    for p_ in range(10):
        if p_ != 3:
            nq.append((t, roce("h1", "rx", 0x04, 0x300, p_, b"a" * 32)))
        if p_ != 6:
            nq.append((t + 50, roce("h1", "rx", 0x04, 0x500, p_, b"b" * 32)))
        t += 100
    nq += [(t, roce("rx", "h1", 0x11, 0x301, 3, ext=struct.pack("!I", 0x60 << 24 | 1))),
           (t + 100, roce("rx", "h1", 0x11, 0x501, 6, ext=struct.pack("!I", 0x60 << 24 | 1)))]
    t += 200
    for p_ in range(3, 10):
        nq.append((t, roce("h1", "rx", 0x04, 0x300, p_, b"a" * 32)))
        t += 100
    for p_ in range(6, 10):
        nq.append((t, roce("h1", "rx", 0x04, 0x500, p_, b"b" * 32)))
        t += 100
    nqp = os.path.join(d, "two-qps-naks.pcap")
    write_pcap(nqp, nq, nano=True)
    nj = json.loads(subprocess.run([roceprobe, "analyze", "--json", nqp], capture_output=True, text=True).stdout)
    nf = {f["qpn"]: f for f in nj["flows"]}
    got = [tuple(nf.get(q, {}).get(k) for k in ("rx_packets", "naks", "go_back_n", "retransmissions", "duplicates",
                                                 "reordered", "lost")) for q in (0x300, 0x500)]
    expect(got == [(16, 1, 1, 7, 6, 0, 0), (13, 1, 1, 4, 3, 0, 0)] and nj["capture"]["unmatched"] == 0,
           f"two QPs, overlapping PSNs: (rx, naks, go-back-N, resent, duplicates, reordered, lost) {got} == "
           f"[(16, 1, 1, 7, 6, 0, 0), (13, 1, 1, 4, 3, 0, 0)], unmatched {nj['capture']['unmatched']} == 0")
    senders = [(nf.get(q, {}).get("qps") or [{}])[0].get("sender_qpn") for q in (0x300, 0x500)]
    expect(senders == [0x301, 0x501], f"two QPs: sender QPs learned from their NAKs {senders} == [0x301, 0x501]")

    h = subprocess.run([roceprobe, "analyze", "--help"], capture_output=True, text=True)
    expect(h.returncode == 0 and "--json" in h.stdout, "--help teaches")

finish("analyze")
