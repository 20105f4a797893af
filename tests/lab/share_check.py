#!/usr/bin/python3
"""Sharing a port with the kernel (issue 32, docs/hardware.md): what this machine can prove
without a NIC.

    net_null0 --share      -> net_null refuses rte_flow isolated mode: exit 2, one line that
                              says so and names --exclusive; run's DIR never made
    net_null0 --exclusive  -> runs as before (and so does the default: net_null is not mlx5)
    --share --exclusive    -> exit 2, one line
    net_tap --share        -> the tap PMD's isolated mode and rules are tc flower filters
                              (isolation asked once its queues exist: lib/dp/flow.c
                              rp_dp_isolate_after_queues) and this host's kernel has no
                              flower: exit 2, one line saying it refuses isolated mode (the
                              VM lab's kernel has flower: tests/vm/tap_share.sh)

    run --rx-clock nic on a port without RX timestamps -> exit 2, one line naming the offload
                              (net_null)
    run --rx-clock nic on net_pcap rx_pcap= -> DPDK 22.11's pcap PMD stamps every frame with
                              its record's time (us) without offering the offload: clock
                              "file", and the run's capture of the port has the input's
                              spacing to the us (tshark on both: the truth), where
                              --rx-clock poll squeezes the 49.8 ms into the polls' pace
    run --rx-clock poll / auto on virtual ports -> runs; result.json says clock "poll" per
                              port (environment.ports[].rx_clock) and flow (latency_clock)
    run --rx-clock nic on net_pcap rx_iface= (CASE rxiface) -> the kernel's receive time, as
                              the host's (clock "host"): a veth's frames, captured by the
                              run and by dumpcap (Wireshark's capture engine, another socket
                              on the same veth: the truth), within 1 ms of each other, frame
                              by frame (measured: 0-23 us; the poll's clock: 62 us-16 ms)
    run --tx-start nic        -> no PMD here sends on a timestamp: exit 2, one line naming the
                              offload; --tx-start host says so per port (tx_start)

usage: share_check.py ROCEPROBE CASE   (CASE: null, tap, rxclock, rxiface)
"""
import os
import subprocess
import sys
import tempfile
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from check import expect, finish  # noqa: E402

ROCEPROBE, CASE = sys.argv[1], sys.argv[2]

PROFILE = """
hosts:
  - {{name: a, mac: "02:00:00:00:00:01", ipv4: 192.0.2.1, port: "{a}"}}
  - {{name: b, mac: "02:00:00:00:00:02", ipv4: 192.0.2.2, port: "net_null9,no-rx=1"}}
traffic:
  - {{name: f, pattern: flow, src: a, dst: b, opcode: send, rate: 1G, messages: 200, message_size: 1KiB}}
"""


def rp(*args, timeout=120):
    return subprocess.run([ROCEPROBE, *args], capture_output=True, text=True, timeout=timeout)


def said(p):
    # Lines roceprobe says (not DPDK's own log lines, not the hugepages WARN of this machine).
    return [ln for ln in p.stderr.strip().splitlines() if ln.startswith("roceprobe") and "hugepages" not in ln]


def one_line_exit2(p, what, *needles):
    lines = said(p)
    expect(p.returncode == 2 and len(lines) == 1 and all(n in lines[0] for n in needles),
           f"{what}: exit 2 and one line with {needles} (rc {p.returncode}, stderr {p.stderr.strip()!r})")


def case_null(tmp):
    prof = os.path.join(tmp, "p.yaml")
    with open(prof, "w") as f:
        f.write(PROFILE.format(a="net_null0,no-rx=1"))
    out = os.path.join(tmp, "out")
    p = rp("run", prof, "-o", out, "--share")
    one_line_exit2(p, "run --share on net_null", "net_null0 (net_null) cannot be shared with the kernel",
                   "isolated mode", "--exclusive")
    expect(not os.path.exists(out), "run --share refused: its DIR was never made")
    p = rp("gen", prof, "--share")
    one_line_exit2(p, "gen --share on net_null", "cannot be shared with the kernel", "--exclusive")
    for how in (["--exclusive"], []):
        p = rp("run", prof, "-o", out, "--force", *how)
        expect(p.returncode == 0 and os.path.exists(os.path.join(out, "result.json")),
               f"run {' '.join(how) or '(default)'} on net_null: as before (rc {p.returncode}: {p.stderr.strip()[-300:]!r})")
    p = rp("gen", prof, "--share", "--exclusive")
    one_line_exit2(p, "gen --share --exclusive", "--share and --exclusive: give one")


def case_tap(tmp):
    prof = os.path.join(tmp, "p.yaml")
    with open(prof, "w") as f:
        f.write(PROFILE.format(a="net_tap0,iface=rpsh%d" % (os.getpid() % 10000)))
    # Does this kernel take a flower filter? Asked in a netns of our own.
    ns = "rpsh%d" % os.getpid()
    subprocess.run(["ip", "netns", "add", ns], check=True)
    try:
        subprocess.run(["ip", "netns", "exec", ns, "tc", "qdisc", "add", "dev", "lo", "ingress"], capture_output=True)
        flower = subprocess.run(["ip", "netns", "exec", ns, "tc", "filter", "add", "dev", "lo", "ingress", "protocol",
                                 "ip", "flower", "ip_proto", "udp"], capture_output=True).returncode == 0
    finally:
        subprocess.run(["ip", "netns", "del", ns])
    if flower:
        print("share_check tap: this kernel has cls_flower: the refusal is not tried here")
        finish("share-tap")
    p = rp("gen", prof, "--share")
    one_line_exit2(p, "gen --share on net_tap without tc flower", "net_tap0 (net_tap) cannot be shared with the kernel",
                   "refuses rte_flow isolated mode (TC rule creation failed)", "--exclusive")


def epoch_offsets(path):
    # Each frame's time from the first, in us, as tshark reads the file.
    from decimal import Decimal
    out = subprocess.run(["tshark", "-r", path, "-T", "fields", "-e", "frame.time_epoch"], capture_output=True,
                         text=True, check=True).stdout.split()
    t = [Decimal(x) for x in out]
    return [int((x - t[0]) * 1000000) for x in t]


def case_file_clock(tmp, src):
    import json
    # What a sends, as net_pcap wrote it; then re-timed by scapy at irregular us gaps.
    sent, timed = os.path.join(tmp, "sent.pcap"), os.path.join(tmp, "timed.pcap")
    pcap = "net_pcap{n},rx_pcap={rx},tx_pcap={tx}"
    prof = os.path.join(tmp, "f.yaml")
    with open(prof, "w") as f:
        f.write(PROFILE.format(a=pcap.format(n=0, rx=src, tx=sent)))
    p = rp("run", prof, "-o", os.path.join(tmp, "o1"))
    expect(p.returncode == 0, f"run writing a's frames to {sent} (rc {p.returncode}: {p.stderr[-300:]!r})")
    gaps = [(i * 7919) % 500 + 1 for i in range(200)]  # us
    subprocess.run(["/usr/bin/python3", "-c", f'''
from decimal import Decimal
from scapy.all import rdpcap, wrpcap
pk, t = rdpcap({sent!r}), Decimal("1700000000")
for p, g in zip(pk, {gaps!r}):
    t += Decimal(g) / 1000000
    p.time = t
wrpcap({timed!r}, pk)
'''], check=True)
    want = epoch_offsets(timed)
    expect(len(want) == 200 and want[-1] == sum(gaps[1:]), f"the re-timed input: 200 frames over {sum(gaps[1:])} us")
    with open(prof, "w") as f:  # b receives the file; a's frames go to a file nobody reads
        f.write(PROFILE.replace('"net_null9,no-rx=1"', '"{b}"').format(
            a=pcap.format(n=0, rx=src, tx=os.path.join(tmp, "a.pcap")), b=pcap.format(n=1, rx=timed, tx=os.path.join(tmp, "b.pcap"))))
    spans = {}
    for how in ("nic", "poll"):
        out = os.path.join(tmp, "o-" + how)
        p = rp("run", prof, "-o", out, "--rx-clock", how, "--capture")
        expect(p.returncode == 0, f"run --rx-clock {how} on net_pcap rx_pcap= (rc {p.returncode}: {p.stderr[-300:]!r})")
        r = json.load(open(os.path.join(out, "result.json")))
        b = [q["rx_clock"] for q in r["environment"]["ports"] if q["node"] == "b"][0]
        got = epoch_offsets(os.path.join(out, "capture-b.pcap"))
        spans[how] = got[-1] if got else 0
        if how == "nic":
            expect(b == {"clock": "file", "stamped": 200, "unstamped": 0, "bound_ns": 999},
                   f"--rx-clock nic: b's port on the file's clock, 200 frames stamped ({b})")
            expect(r["flows"][0]["rx_packets"] == 200 and r["flows"][0]["latency_clock"]["rx"] == "file",
                   f"flow f: 200 received, latency_clock.rx 'file' ({r['flows'][0]['latency_clock']})")
            bad = [i for i, (x, y) in enumerate(zip(want, got)) if x != y]
            expect(len(got) == 200 and not bad, f"the run's capture of b: every frame at the input's offset, to the us "
                   f"({len(got)} frames, {len(bad)} differ, first {bad[:1]})")
        else:
            expect(b["clock"] == "poll" and b["stamped"] == 0, f"--rx-clock poll: b's port on the poll's clock ({b})")
    expect(spans["poll"] * 2 < spans["nic"], f"the poll's pace is not the file's: {spans['poll']} us against "
           f"{spans['nic']} (the test can tell the clocks apart)")


def case_rxiface(tmp):
    import json
    import signal
    import time
    src = os.path.join(tmp, "empty.pcap")
    with open(src, "wb") as f:
        f.write(bytes.fromhex("d4c3b2a1020004000000000000000000ffff000001000000"))
    va, vb = "rpsa%d" % os.getpid(), "rpsb%d" % os.getpid()
    va, vb = va[:15], vb[:15]
    subprocess.run(["ip", "link", "add", va, "type", "veth", "peer", "name", vb], check=True)
    try:
        for v in (va, vb):
            subprocess.run(["sysctl", "-qw", f"net.ipv6.conf.{v}.disable_ipv6=1"], check=True)
            subprocess.run(["ip", "link", "set", v, "up"], check=True)
        prof = os.path.join(tmp, "i.yaml")
        with open(prof, "w") as f:
            f.write(PROFILE.replace('"net_null9,no-rx=1"', '"{b}"').format(
                a=f"net_pcap0,rx_pcap={src},tx_iface={va}", b=f"net_pcap1,rx_iface={vb},tx_pcap={tmp}/b.pcap"))
        truth, out = os.path.join(tmp, "truth.pcap"), os.path.join(tmp, "o")
        dc = subprocess.Popen(["dumpcap", "-q", "-i", vb, "-P", "-w", truth, "-f", "udp port 4791"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(50):  # dumpcap's file exists once it captures
            if os.path.exists(truth):
                break
            time.sleep(0.1)
        time.sleep(0.5)
        p = rp("run", prof, "-o", out, "--rx-clock", "nic", "--capture")
        time.sleep(0.5)
        dc.send_signal(signal.SIGINT)
        dc.wait(timeout=10)
        expect(p.returncode == 0, f"run --rx-clock nic on net_pcap rx_iface= (rc {p.returncode}: {p.stderr[-300:]!r})")
        r = json.load(open(os.path.join(out, "result.json")))
        b = [q["rx_clock"] for q in r["environment"]["ports"] if q["node"] == "b"][0]
        expect(b["clock"] == "host" and b["stamped"] == 200 and b["unstamped"] == 0,
               f"b's port on the host's clock, 200 frames stamped ({b})")
        from decimal import Decimal

        def epoch(path):
            out = subprocess.run(["tshark", "-r", path, "-T", "fields", "-e", "frame.time_epoch"],
                                 capture_output=True, text=True, check=True).stdout.split()
            return [Decimal(x) for x in out]
        want, got = epoch(truth), epoch(os.path.join(out, "capture-b.pcap"))
        d = [int((y - x) * 1000000) for x, y in zip(want, got)]
        expect(len(want) == 200 and len(got) == 200 and max(abs(x) for x in d) <= 1000,
               f"every frame within 1 ms of dumpcap's stamp ({len(want)}/{len(got)} frames, "
               f"us off: min {min(d, default=0)} max {max(d, default=0)})")
    finally:
        subprocess.run(["ip", "link", "del", va], stderr=subprocess.DEVNULL)


def case_rxclock(tmp):
    import json
    src = os.path.join(tmp, "empty.pcap")
    with open(src, "wb") as f:  # a classic pcap header, no frames
        f.write(bytes.fromhex("d4c3b2a1020004000000000000000000ffff000001000000"))
    case_file_clock(tmp, src)
    out = os.path.join(tmp, "out")
    for port in ("net_null0,no-rx=1",):
        prof = os.path.join(tmp, "p.yaml")
        with open(prof, "w") as f:
            f.write(PROFILE.format(a=port))
        name = port.split(",")[0]
        p = rp("run", prof, "-o", out, "--rx-clock", "nic")
        one_line_exit2(p, "run --rx-clock nic on " + name, "port %s (%s) has no RX timestamps" % (
            name, name.rstrip("0")), "RTE_ETH_RX_OFFLOAD_TIMESTAMP", "--rx-clock poll")
        expect(not os.path.exists(out), "--rx-clock nic refused: DIR never made")
        for how in ("poll", "auto"):
            p = rp("run", prof, "-o", out, "--force", "--rx-clock", how)
            expect(p.returncode == 0, f"run --rx-clock {how} on {name} (rc {p.returncode}: {p.stderr[-300:]!r})")
            r = json.load(open(os.path.join(out, "result.json")))
            clocks = {q["node"]: q["rx_clock"]["clock"] for q in r["environment"]["ports"]}
            expect(clocks == {"a": "poll", "b": "poll"}, f"--rx-clock {how} on {name}: every port 'poll' ({clocks})")
            lc = r["flows"][0]["latency_clock"]
            expect(lc == {"tx": "tsc", "rx": "poll", "bound_ns": 0}, f"flows[0].latency_clock ({lc})")
        subprocess.run(["rm", "-rf", out])
    p = rp("run", prof, "-o", out, "--rx-clock", "soon")
    one_line_exit2(p, "--rx-clock soon", "--rx-clock 'soon': auto, poll or nic")
    # --tx-start nic: no PMD here offers sending on a timestamp (tx_offload_capa)
    p = rp("run", prof, "-o", out, "--tx-start", "nic")
    one_line_exit2(p, "run --tx-start nic on net_null0", "port net_null0 (net_null) cannot send on a timestamp",
                   "RTE_ETH_TX_OFFLOAD_SEND_ON_TIMESTAMP", "--tx-start host")
    expect(not os.path.exists(out), "--tx-start nic refused: DIR never made")
    p = rp("run", prof, "-o", out, "--tx-start", "host")
    expect(p.returncode == 0, f"run --tx-start host (rc {p.returncode}: {p.stderr[-300:]!r})")
    r = json.load(open(os.path.join(out, "result.json")))
    starts = [q["tx_start"] for q in r["environment"]["ports"]]
    expect(starts == [{"clock": "host", "lead_ns": 0, "late": False}] * 2, f"--tx-start host: every port's tx_start ({starts})")
    p = rp("run", prof, "-o", out, "--force", "--tx-start", "soon")
    one_line_exit2(p, "--tx-start soon", "--tx-start 'soon': host or nic")


with tempfile.TemporaryDirectory() as tmp:
    {"null": case_null, "tap": case_tap, "rxclock": case_rxclock, "rxiface": case_rxiface}[CASE](tmp)
finish("share-" + CASE)
