#!/usr/bin/python3
"""roceprobe run --lcores N on multi-queue pair: links: the same answers as on one lcore.

    [tx1] pair:a:0 ====== f1: 1 QP, 10001 msgs ========> pair:a:1 [rx1]  impair: drop every 10th, CE every 7th
    [tx2] pair:b:0 ====== f2: 8 QPs, 10001 msgs =======> pair:b:1 [rx2]  impair: drop frames 500..599
    [tx3] pair:c:0 ====== f3: 4 QPs, 3000 msgs ========> pair:c:1 [rx3]
                   ====== f4: 2 QPs, 2000 msgs ========>
    (WRITE 1024 B = one frame a message, 1 Gbit/s each; no responder: only data frames move)

With N lcores every port has N RX and N TX queues; lcore q sends flow j of its host when
j % N == q and accounts RX queue q of every port. A pair: link puts each frame on the RX
queue RSS would pick: Toeplitz(UDP source port) % 128 % N. f2's 8 QPs (8 source ports) land
on several queues, so two lcores each see part of one flow: still lost 100 (the burst), no
false reordering. Known answers, worked by hand:
  f1: 10001 sent; every 10th of the link's data frames dropped: 1000 lost, 9001 received;
      every 7th marked CE unless dropped: 1428 - 142 (multiples of 70) = 1286 CE
  f2: frames 500..599 of the link dropped: 100 lost, 9901 received
  f3, f4: nothing dropped: 3000 and 2000 received, none lost
  every flow: one latency sample per frame received; no reordering, no duplicates
Which lcore gets what: the 1-lcore run's capture of each sender (every frame it sent)
counted by UDP source port, each port's queue computed here by a Toeplitz hash of our own
(checked against the published RSS verification vectors), summed per queue: each lcore's
rx_packets must be exactly that.

sigint: Ctrl-C 2.5 s into a 60 s run on 2 lcores whose receiver drops every 10th frame and
delays the rest by 1 ms (frames held on both lcores), while it sends the sender 100 PFC
frames (prio 3): exit 0, valid result.json, lost == dropped on purpose == sent // 10
exactly (the lcores drain what is in flight before the count), and every PFC frame the
receiver sent reached the sender (its pause gate, shared by its queues).

    [tx] pair:l0:0 ====== f: 4 QPs, 1 Gbit/s =====> pair:l0:1 [rx]  impair: drop 10th, delay 1 ms
         <============ PFC prio 3, 1000 fps x 100 ms ==  respond: cnp, ack

capture-N: the first profile on N lcores with --capture (one lane per lcore, merged by one
writer per port in time order) and --snaplen 1100 (whole 1098 B frames). Known answers, from
the profile (no responder: a sender's port only sends, a receiver's only receives, after the
impairments): capture-tx1 10001, rx1 9001, tx2 10001, rx2 9901, tx3 5000 (3000 + 2000), rx3
5000 frames, each counted by tshark and by our pcap reader; every file's timestamps
non-decreasing (tshark's frame.time_epoch and the records); every frame's ICRC right
(roce_icrc.py, from rxe_icrc.c); each file's frames (headers up to the RETH, and length)
the same multiset as the 1-lcore run's, but rx2's: which 100 of f2's frames are the link's
500..599 depends on how the lcores' RX interleave, so rx2's are 9901 of tx2's.

capture-sample: --sample 10 --snaplen 64 on 1 and 2 lcores keeps the 1st, 11th, ... data
frame of each port and direction, and every control frame (here: the CE-marked ones): tx1
ceil(10001/10) = 1001, tx2 1001, tx3 ceil(5000/10) = 500, rx2 ceil(9901/10) = 991, rx3 500;
rx1 the 1286 CE-marked frames + ceil((9001 - 1286)/10) = 772 = 2058; every record 64 B of a
1098 B frame. --capture-filter control on 2 lcores: rx1's 1286 CE-marked frames, nothing else.

capture-sigint: the sigint profile with --capture on 2 lcores, Ctrl-C mid-run: every file
reads to its end in tshark, and holds exactly the frames result.json counts at the stop for
its port (sent: tx_packets + replies_sent; received: rx_frames), in time order.

ports: one-queue ports spread over the lcores. Two receivers on net_pcap (one RX queue each,
replaying once what gen sent them, split by destination MAC) and the sender on net_null:

    [tx] net_null0 (sends f1, f2; no RX)
    [rx1] net_pcap1 rx_pcap=in1.pcap <== f1: 8 QPs, 600 msgs (82 B SEND)
    [rx2] net_pcap2 rx_pcap=in2.pcap <== f2: 8 QPs, 400 msgs

--lcores 2: port i of fewer queues than lcores is polled by lcore i mod 2 (rx1 by lcore 1,
rx2 by lcore 0), with one line saying so. Known answers: each receiver's frames are its
capture's, counted by tshark (600 and 400); each flow tx 600 / 400 (gen's count), rx the
same, lost 0, on 1 and 2 lcores; lcore 1 received tshark's count of in1.pcap, lcore 0 of
in2.pcap.

usage: lcores_check.py ROCEPROBE N|sigint|capture-N|capture-sigint|ports
       (N: 2 or 4; 4 lcores oversubscribe a 2-core machine)
"""
import collections
import json
import os
import subprocess
import sys
import tempfile
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from check import expect, finish, read_pcap, split_by_dst_mac, until_progress  # noqa: E402
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "interop"))
from roce_icrc import icrc_check  # noqa: E402

ROCEPROBE, CASE = sys.argv[1], sys.argv[2]
SIGINT_PROFILE = """name: lcores-sigint
defaults: {speed: 10G, opcode: write, message_size: 1024, mtu: 1024, dscp: 26, ecn: ect0}
hosts:
  - {name: tx, mac: "02:00:00:00:00:01", ipv4: 192.0.2.1, port: "pair:l0:0"}
  - {name: rx, mac: "02:00:00:00:00:02", ipv4: 192.0.2.2, port: "pair:l0:1", impair: {drop_every: 10, delay: 1ms},
     respond: {cnp: on, ack: on}}
traffic:
  - {name: f, pattern: flow, src: tx, dst: rx, rate: 1G, duration: 60s, qps: 4}
  - {name: p, kind: pfc, host: rx, frame: pfc, priorities: [3], quanta: 1000, fps: 1000, duration: 100ms}
"""

PROFILE = """name: lcores
defaults: {speed: 10G, opcode: write, message_size: 1024, mtu: 1024, dscp: 26, ecn: ect0}
hosts:
  - {name: tx1, mac: "02:00:00:00:00:01", ipv4: 192.0.2.1, port: "pair:a:0"}
  - {name: rx1, mac: "02:00:00:00:00:02", ipv4: 192.0.2.2, port: "pair:a:1", impair: {drop_every: 10, ce_every: 7}}
  - {name: tx2, mac: "02:00:00:00:00:03", ipv4: 192.0.2.3, port: "pair:b:0"}
  - {name: rx2, mac: "02:00:00:00:00:04", ipv4: 192.0.2.4, port: "pair:b:1", impair: {drop_from: 500, drop_count: 100}}
  - {name: tx3, mac: "02:00:00:00:00:05", ipv4: 192.0.2.5, port: "pair:c:0"}
  - {name: rx3, mac: "02:00:00:00:00:06", ipv4: 192.0.2.6, port: "pair:c:1"}
traffic:
  - {name: f1, pattern: flow, src: tx1, dst: rx1, rate: 1G, messages: 10001}
  - {name: f2, pattern: flow, src: tx2, dst: rx2, rate: 1G, messages: 10001, qps: 8}
  - {name: f3, pattern: flow, src: tx3, dst: rx3, rate: 1G, messages: 3000, qps: 4}
  - {name: f4, pattern: flow, src: tx3, dst: rx3, rate: 1G, messages: 2000, qps: 2}
"""
#          tx     rx    lost  ce
KNOWN = {0: (10001, 9001, 1000, 1286), 1: (10001, 9901, 100, 0), 2: (3000, 3000, 0, 0), 3: (2000, 2000, 0, 0)}

RSS_KEY = bytes.fromhex("6d5a56da255b0ec24167253d43a38fb0d0ca2bcbae7b30b477cb2da38030f20c6a42b73bbeac01fa")


def toeplitz(data, key=RSS_KEY):
    """The Toeplitz hash of RSS: for every set bit i of the input (MSB first), XOR in key bits i..i+31."""
    k, klen, h = int.from_bytes(key, "big"), len(key) * 8, 0
    for i in range(len(data) * 8):
        if data[i // 8] & (0x80 >> (i % 8)):
            h ^= (k >> (klen - 32 - i)) & 0xFFFFFFFF
    return h


def queue_of(sport, n):
    """A 128-entry table filled i % n, indexed by the hash of the source port (destination port left out)."""
    return toeplitz(sport.to_bytes(2, "big") + b"\0\0") % 128 % n


def run(tmp, *args):
    path, out = os.path.join(tmp, "p.yaml"), tempfile.mkdtemp(prefix="out-", dir=tmp)
    with open(path, "w") as f:
        f.write(PROFILE)
    p = subprocess.run([ROCEPROBE, "run", path, "-o", out, *args], capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        sys.exit(f"run {' '.join(args)} failed ({p.returncode}): {p.stderr.strip()}")
    with open(os.path.join(out, "result.json")) as f:
        return json.load(f), out, p.stderr


def sent_by_sport(out):
    """UDP source port -> RoCE data frames sent, from the senders' captures (IPv4, no VLAN here)."""
    n = collections.Counter()
    for h in ("tx1", "tx2", "tx3"):
        for _, b, _ in read_pcap(os.path.join(out, f"capture-{h}.pcap"))["recs"]:
            if len(b) >= 42 and b[12:14] == b"\x08\x00" and b[23] == 17 and b[36:38] == (4791).to_bytes(2, "big"):
                n[int.from_bytes(b[34:36], "big")] += 1
    return n


def check_known(j, label):
    flows = sorted(j["flows"], key=lambda f: f["id"])
    expect(len(flows) == 4, f"{label}: 4 flows")
    for f in flows:
        tx, rx, lost, ce = KNOWN[f["id"]]
        got = (f["tx_packets"], f["rx_packets"], f["lost"], f["ce"])
        expect(got == (tx, rx, lost, ce), f"{label}: flow {f['id']} tx/rx/lost/ce {got} == {(tx, rx, lost, ce)}")
        expect(f["reordered"] == 0 and f["duplicates"] == 0,
               f"{label}: flow {f['id']} reordered {f['reordered']} duplicates {f['duplicates']} == 0")
        expect(f["latency_ns"]["count"] == rx, f"{label}: flow {f['id']} latency samples {f['latency_ns']['count']} == {rx}")
    # The bins span twice the plan and a second more: a run the machine's load stretched
    # beyond that puts its last frames outside (timeseries.outside), counted in the totals only.
    if j["timeseries"]["outside"] == 0:
        bins = sum(j["timeseries"]["rx_packets"])
        expect(bins == sum(k[1] for k in KNOWN.values()), f"{label}: the time bins hold {bins} frames received, every one")
    drops = {p["node"]: p["impair_dropped"] for p in j["environment"]["ports"]}
    expect(drops["rx1"] == 1000 and drops["rx2"] == 100, f"{label}: impair dropped {drops['rx1']} and {drops['rx2']}")


def case_sigint():
    import signal
    import time
    with tempfile.TemporaryDirectory(prefix="rp-lcores-") as tmp:
        path, out = os.path.join(tmp, "p.yaml"), os.path.join(tmp, "out")
        with open(path, "w") as f:
            f.write(SIGINT_PROFILE)
        p = subprocess.Popen([ROCEPROBE, "run", path, "-o", out, "--lcores", "2"], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
        # Ctrl-C once traffic runs (the first progress line, a second in; the set-up may
        # take seconds on a loaded machine), and a second more.
        err, progress = until_progress(p, "run")
        time.sleep(1)
        p.send_signal(signal.SIGINT)
        _, rest = p.communicate(timeout=60)
        err += rest
        expect(p.returncode == 0, f"exit 0 after SIGINT (got {p.returncode}; {err.strip()[-200:]})")
        j = json.load(open(os.path.join(out, "result.json")))
        f = next(x for x in j["flows"] if x["src"] == "tx")
        dropped = next(q for q in j["environment"]["ports"] if q["node"] == "rx")["impair_dropped"]
        expect(j["interrupted"] is True, "result.json says interrupted")
        expect(dropped == f["tx_packets"] // 10 > 100, f"dropped on purpose {dropped} == {f['tx_packets']} sent // 10")
        expect(f["lost"] == dropped, f"lost {f['lost']} == {dropped} dropped on purpose (nothing in flight counted lost)")
        expect(f["rx_packets"] == f["tx_packets"] - dropped, f"rx_packets {f['rx_packets']} == sent - dropped")
        expect(f["latency_ns"]["min"] >= 1000000, f"every frame delayed 1 ms (min {f['latency_ns']['min']} ns)")
        ports = {q["node"]: q for q in j["ports"]}
        sent, got = ports["rx"]["prio"][3]["pfc_tx"], ports["tx"]["prio"][3]["pfc_rx"]
        expect(sent > 0 and got == sent, f"PFC frames: rx sent {sent}, tx received {got}")
        expect(len(j["environment"]["lcores"]) == 2, "two lcores in environment.lcores")
        expect(progress.count(" busy ") == 2 and "| lcore 1 " in progress and "| lcore 2 " in progress,
               f"the progress line shows each polling lcore's rate and busy share: {progress.strip()!r}")
    finish("lcores-sigint")


FILES = {"tx1": 10001, "rx1": 9001, "tx2": 10001, "rx2": 9901, "tx3": 5000, "rx3": 5000}


def tshark_times(path):
    """frame.time_epoch of every record as tshark reads it (ns as integers), and its exit code."""
    p = subprocess.run(["tshark", "-r", path, "-T", "fields", "-e", "frame.time_epoch"], capture_output=True,
                       text=True, timeout=300)
    ts = []
    for line in p.stdout.split():
        sec, _, frac = line.partition(".")
        ts.append(int(sec) * 10**9 + int((frac + "000000000")[:9]))
    return ts, p.returncode, p.stderr.strip()


def in_order(ts):
    return all(a <= b for a, b in zip(ts, ts[1:]))


def port_counts(j):
    """Frames result.json says each port put on its wire or took off it."""
    env = {p["node"]: p for p in j["environment"]["ports"]}
    return {p["node"]: env[p["node"]]["tx_packets"] + env[p["node"]]["replies_sent"] + p["rx_frames"] for p in j["ports"]}


def check_files(out, j, label, known=None):
    """Every port's file read by tshark to its end, in time order, holding what result.json counts."""
    counts, caps, recs = port_counts(j), {c["node"]: c for c in j["capture"]}, {}
    for node, want in counts.items():
        path = os.path.join(out, f"capture-{node}.pcap")
        ts, rc, err = tshark_times(path)
        r = read_pcap(path)["recs"]
        recs[node] = r
        if known:
            expect(len(r) == known[node], f"{label}: capture-{node} holds {len(r)} frames == {known[node]}")
        expect(rc == 0 and len(ts) == len(r) == want,
               f"{label}: tshark reads capture-{node} to its end (exit {rc}{' ' + err[-80:] if rc else ''}): {len(ts)} frames == "
               f"{len(r)} records == {want} the port sent + received (result.json)")
        expect(caps[node]["written"] == len(r) and caps[node]["dropped"] == 0,
               f"{label}: capture-{node} written {caps[node]['written']}, dropped {caps[node]['dropped']} == 0")
        expect(in_order(ts) and in_order([x[0] for x in r]), f"{label}: capture-{node} timestamps non-decreasing")
    return recs


def case_capture(n):
    with tempfile.TemporaryDirectory(prefix="rp-lcores-") as tmp:
        one, out1, _ = run(tmp, "--capture", "--snaplen", "1100")
        many, outn, _ = run(tmp, "--lcores", str(n), "--capture", "--snaplen", "1100")
        check_known(many, f"{n} lcores")
        r1 = check_files(out1, one, "1 lcore", FILES)
        rn = check_files(outn, many, f"{n} lcores", FILES)
        for node, recs in rn.items():
            bad = sum(1 for _, b, w in recs if len(b) != w or not icrc_check(b[14:]))
            expect(bad == 0, f"{n} lcores: capture-{node}: every frame whole and its ICRC right ({bad} not)")
            key = collections.Counter((b[:70], w) for _, b, w in recs)
            if node == "rx2":
                sent = collections.Counter((b[:70], w) for _, b, w in rn["tx2"])
                expect(not key - sent and sum(key.values()) == 9901,
                       f"{n} lcores: capture-rx2's 9901 frames are frames of capture-tx2")
            else:
                ref = collections.Counter((b[:70], w) for _, b, w in r1[node])
                expect(key == ref, f"{n} lcores: capture-{node}'s frames are the 1-lcore run's ({sum((key - ref).values())}"
                       f" not there, {sum((ref - key).values())} missing)")
    finish(f"lcores-capture-{n}")


SAMPLED = {"tx1": 1001, "rx1": 1286 + 772, "tx2": 1001, "rx2": 991, "tx3": 500, "rx3": 500}
CONTROL = {"tx1": 0, "rx1": 1286, "tx2": 0, "rx2": 0, "tx3": 0, "rx3": 0}


def case_capture_sample():
    with tempfile.TemporaryDirectory(prefix="rp-lcores-") as tmp:
        for n, args, known in ((1, ["--sample", "10"], SAMPLED), (2, ["--sample", "10"], SAMPLED),
                               (2, ["--capture-filter", "control"], CONTROL)):
            label = f"{n} lcore{'s' if n > 1 else ''} {' '.join(args)}"
            j, out, _ = run(tmp, "--lcores", str(n), "--capture", "--snaplen", "64", *args)
            caps = {c["node"]: c for c in j["capture"]}
            for node, want in known.items():
                r = read_pcap(os.path.join(out, f"capture-{node}.pcap"))["recs"]
                c = caps[node]
                expect(len(r) == want == c["written"], f"{label}: capture-{node} holds {len(r)} frames == {want}")
                expect(all(len(b) == 64 and w == 1098 for _, b, w in r), f"{label}: capture-{node}: 64 B of 1098 B frames")
                expect(in_order([x[0] for x in r]), f"{label}: capture-{node} timestamps non-decreasing")
                expect(c["offered"] == FILES[node] and c["dropped"] == 0 and
                       (c["sampled_out"] == FILES[node] - want if args[0] == "--sample" else c["sampled_out"] == 0),
                       f"{label}: capture-{node} offered {c['offered']} == {FILES[node]}, sampled out "
                       f"{c['sampled_out']}, dropped {c['dropped']}")
    finish("lcores-capture-sample")


def case_capture_sigint():
    import signal
    import time
    with tempfile.TemporaryDirectory(prefix="rp-lcores-") as tmp:
        path, out = os.path.join(tmp, "p.yaml"), os.path.join(tmp, "out")
        with open(path, "w") as f:
            f.write(SIGINT_PROFILE)
        p = subprocess.Popen([ROCEPROBE, "run", path, "-o", out, "--lcores", "2", "--capture"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        err, _ = until_progress(p, "run")
        time.sleep(1)
        p.send_signal(signal.SIGINT)
        _, rest = p.communicate(timeout=60)
        err += rest
        expect(p.returncode == 0, f"exit 0 after SIGINT (got {p.returncode}; {err.strip()[-200:]})")
        j = json.load(open(os.path.join(out, "result.json")))
        expect(j["interrupted"] is True, "result.json says interrupted")
        recs = check_files(out, j, "sigint")
        f = next(x for x in j["flows"] if x["src"] == "tx")
        expect(len(recs["tx"]) >= f["tx_packets"] > 100000, f"capture-tx holds the flow's {f['tx_packets']} frames")
    finish("lcores-capture-sigint")


def main():
    # The published RSS verification vectors (IPv4: 66.9.149.187:2794 -> 161.142.100.80:1766).
    v = bytes([66, 9, 149, 187, 161, 142, 100, 80])
    expect(toeplitz(v) == 0x323E8FC2, f"our Toeplitz, IPv4 vector: {toeplitz(v):#x} == 0x323e8fc2")
    v += (2794).to_bytes(2, "big") + (1766).to_bytes(2, "big")
    expect(toeplitz(v) == 0x51CCC178, f"our Toeplitz, IPv4+ports vector: {toeplitz(v):#x} == 0x51ccc178")
    with tempfile.TemporaryDirectory(prefix="rp-lcores-") as tmp:
        one, out1, _ = run(tmp, "--capture", "--snaplen", "64")
        check_known(one, "1 lcore")
        sent = sent_by_sport(out1)
        expect(sum(sent.values()) == 10001 + 10001 + 3000 + 2000, f"the senders' captures hold {sum(sent.values())} data frames")
        expect(len(sent) == 15, f"{len(sent)} UDP source ports, one per QP (1 + 8 + 4 + 2)")
        many, _, _ = run(tmp, "--lcores", str(N))
        check_known(many, f"{N} lcores")
        lc = many["environment"]["lcores"]
        expect(len(lc) == N, f"environment.lcores has {len(lc)} entries == {N}")
        want = collections.Counter()
        for sport, n in sent.items():
            want[queue_of(sport, N)] += n
        for q in range(N):
            got = lc[q]["rx_packets"] if q < len(lc) else None
            expect(got == want[q], f"lcore {q} received {got} == {want[q]}, the frames of the ports hashing to queue {q}")
        f2_queues = {queue_of(s, N) for s in sent if sent[s] in (1250, 1251)}
        expect(len(f2_queues) > 1, f"f2's 8 QPs land on {len(f2_queues)} queues: two lcores see halves of one flow")
        tx = [l["tx_packets"] for l in lc]
        expect(tx[0] == 10001 + 10001 + 3000 and tx[1] == 2000 and sum(tx) == 25002,
               f"lcore TX {tx}: flow j of a host on lcore j % {N} (tx3's f4 on lcore 1)")
        expect(all(0 < l["busy_polls"] <= l["polls"] and 0 < l["busy_share"] <= 1 for l in lc[:2]),
               "lcores 0 and 1 found work in some polls (busy_share in (0, 1])")
    finish(f"lcores-{N}")


def ports_profile(tx_port, rx1="", rx2=""):
    return f"""name: lcores-ports
defaults: {{speed: 100G, opcode: send, message_size: 24, mtu: 4096, dscp: 26, ecn: ect0}}
hosts:
  - {{name: tx, mac: "02:00:00:00:00:01", ipv4: 192.0.2.1, port: "{tx_port}"}}
  - {{name: rx1, mac: "02:00:00:00:00:02", ipv4: 192.0.2.2{rx1}}}
  - {{name: rx2, mac: "02:00:00:00:00:03", ipv4: 192.0.2.3{rx2}}}
traffic:
  - {{name: f1, pattern: flow, src: tx, dst: rx1, qps: 8, rate: 1G, messages: 600}}
  - {{name: f2, pattern: flow, src: tx, dst: rx2, qps: 8, rate: 1G, messages: 400}}
"""


def case_ports():
    with tempfile.TemporaryDirectory(prefix="rp-lcores-") as tmp:
        caps = [os.path.join(tmp, f"in{k}.pcap") for k in (1, 2)]
        path, both = os.path.join(tmp, "make.yaml"), os.path.join(tmp, "both.pcap")
        with open(path, "w") as f:
            f.write(ports_profile(f"net_pcap0,tx_pcap={both}"))
        p = subprocess.run([ROCEPROBE, "gen", path], capture_output=True, text=True, timeout=120)
        if p.returncode != 0:
            sys.exit(f"gen {path} failed ({p.returncode}): {p.stderr.strip()}")
        # each receiver's frames (its MAC as the destination) in a file of its own
        split_by_dst_mac(both, {bytes([2, 0, 0, 0, 0, 2 + k]): c for k, c in enumerate(caps)})
        counts = [len(subprocess.run(["tshark", "-r", c], capture_output=True, text=True, timeout=120).stdout.splitlines())
                  for c in caps]
        expect(counts == [600, 400], f"tshark reads {counts} frames in the two captures == [600, 400]")
        path = os.path.join(tmp, "p.yaml")
        with open(path, "w") as f:
            f.write(ports_profile("net_null0,no-rx=1", f', port: "net_pcap1,rx_pcap={caps[0]}"',
                                  f', port: "net_pcap2,rx_pcap={caps[1]}"'))
        for n in (1, 2):
            out = os.path.join(tmp, f"out{n}")
            p = subprocess.run([ROCEPROBE, "run", path, "-o", out, "--lcores", str(n), "--duration", "3"],
                               capture_output=True, text=True, timeout=120)
            if p.returncode != 0:
                sys.exit(f"run --lcores {n} failed ({p.returncode}): {p.stderr.strip()}")
            with open(os.path.join(out, "result.json")) as f:
                j = json.load(f)
            for fl in sorted(j["flows"], key=lambda f: f["id"]):
                want = counts[fl["id"]]
                got = (fl["tx_packets"], fl["rx_packets"], fl["lost"])
                expect(got == (want, want, 0), f"{n} lcore(s): flow {fl['id']} tx/rx/lost {got} == {(want, want, 0)}")
            lc = [l["rx_packets"] for l in j["environment"]["lcores"]]
            if n == 1:
                expect(lc == [sum(counts)], f"1 lcore received {lc} == [{sum(counts)}]")
                continue
            expect(lc == [counts[1], counts[0]], f"2 lcores received {lc} == [{counts[1]}, {counts[0]}]: rx2's port "
                   "(index 2) on lcore 0, rx1's (index 1) on lcore 1")
            said = [l for l in p.stderr.splitlines() if "has 1 queue for 2 lcores" in l]
            expect(len(said) == 2 and "net_pcap1" in said[0] and "environment.lcores[1]" in said[0]
                   and "environment.lcores[0]" in said[1], f"one line a one-queue port, naming its lcore: {said}")
    finish("lcores-ports")


if __name__ == "__main__":
    if CASE == "ports":
        case_ports()
    if CASE == "sigint":
        case_sigint()
    if CASE == "capture-sigint":
        case_capture_sigint()
    if CASE == "capture-sample":
        case_capture_sample()
    if CASE.startswith("capture-"):
        case_capture(int(CASE[8:]))
    N = int(CASE)
    main()
