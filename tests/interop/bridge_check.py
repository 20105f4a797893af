#!/usr/bin/python3
"""A device under test nobody here wrote: a Linux bridge with tc tbf on the
receiver's egress, and a 3:1 incast overload through it.

    [s1] rpb-s1 ~~ rpb-s1p --+
    [s2] rpb-s2 ~~ rpb-s2p --+-- bridge rpb-br -- rpb-rp ~~ rpb-r [rx]
    [s3] rpb-s3 ~~ rpb-s3p --+                    tbf 100 Mbit/s
    DPDK net_af_packet on the outer veth ends; 3 x 60 Mbit/s offered to 100 Mbit/s.

Expectation: per-flow lost summed == every drop the kernel reports on the path
(tc -s qdisc, ip -s link), exactly.

usage: bridge_check.py ROCEPROBE   (exit 77 = skipped: no veth/bridge/tbf here)
"""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import check  # noqa: E402
from check import expect, finish  # noqa: E402

ROCEPROBE = sys.argv[1]
SENDERS = ["s1", "s2", "s3"]


TOPO = check.BridgeTbf("rpb", SENDERS, "02:00:00:00:00:10", "100mbit")
ifaces, teardown, setup = TOPO.ifaces, TOPO.teardown, TOPO.setup


def kernel_drops():
    return check.kernel_drops(ifaces(), "rpb-rp")


PROFILE = """name: bridge-incast
defaults: {speed: 1G, opcode: write, message_size: 1024, mtu: 1024, dscp: 26, ecn: not-ect}
hosts:
  - {name: s1, mac: "02:00:00:00:00:01", ipv4: 10.99.0.1, port: "net_af_packet0,iface=rpb-s1"}
  - {name: s2, mac: "02:00:00:00:00:02", ipv4: 10.99.0.2, port: "net_af_packet1,iface=rpb-s2"}
  - {name: s3, mac: "02:00:00:00:00:03", ipv4: 10.99.0.3, port: "net_af_packet2,iface=rpb-s3"}
  - {name: rx, mac: "02:00:00:00:00:10", ipv4: 10.99.0.10, port: "net_af_packet3,iface=rpb-r"}
traffic:
  - {name: incast, pattern: incast, senders: [s1, s2, s3], receiver: rx, rate: 60M, duration: 1s}
"""

try:
    setup()
except (subprocess.CalledProcessError, FileNotFoundError) as e:
    teardown()
    print(f"skipped: cannot build the veth/bridge/tbf topology here ({e})")
    sys.exit(77)
try:
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "p.yaml")
        with open(path, "w") as f:
            f.write(PROFILE)
        before = kernel_drops()
        p = subprocess.run([ROCEPROBE, "run", path, "-o", os.path.join(tmp, "out")], capture_output=True, text=True,
                           timeout=120)
        if p.returncode != 0:
            sys.exit(f"run failed ({p.returncode}): {p.stderr.strip()}")
        after = kernel_drops()
        j = json.load(open(os.path.join(tmp, "out", "result.json")))
    drops = {k: v - before.get(k, 0) for k, v in after.items() if v - before.get(k, 0)}
    lost = sum(f["lost"] for f in j["flows"])
    sent = sum(f["tx_packets"] for f in j["flows"])
    got = sum(f["rx_packets"] for f in j["flows"])
    print(f"sent {sent}, received {got}, lost {lost}; kernel drops {drops}")
    expect(drops.get("tbf", 0) > 0, "the tbf overflowed: 180 Mbit/s into 100 Mbit/s")
    expect(lost == sum(drops.values()), f"per-flow lost {lost} == kernel drops {sum(drops.values())}")
    expect(sent == got + lost, "sent == received + lost")
    expect(all(f["duplicates"] == 0 and f["reordered"] == 0 for f in j["flows"]), "no duplicates, no reordering")
finally:
    teardown()
finish("bridge")
