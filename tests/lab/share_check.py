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
                              (net_null; and net_pcap: DPDK 22.11's reads the stamps but
                              advertises no RX offload, so ethdev refuses to configure it)
    run --rx-clock poll / auto on virtual ports -> runs; result.json says clock "poll" per
                              port (environment.ports[].rx_clock) and flow (latency_clock)

usage: share_check.py ROCEPROBE CASE   (CASE: null, tap, rxclock)
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


def case_rxclock(tmp):
    import json
    src = os.path.join(tmp, "empty.pcap")
    with open(src, "wb") as f:  # a classic pcap header, no frames
        f.write(bytes.fromhex("d4c3b2a1020004000000000000000000ffff000001000000"))
    out = os.path.join(tmp, "out")
    for port in ("net_null0,no-rx=1", "net_pcap0,rx_pcap=%s,tx_pcap=%s" % (src, os.path.join(tmp, "tx.pcap"))):
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


with tempfile.TemporaryDirectory() as tmp:
    {"null": case_null, "tap": case_tap, "rxclock": case_rxclock}[CASE](tmp)
finish("share-" + CASE)
