#!/usr/bin/python3
"""roceprobe plan on the shipped profiles against numbers worked out by hand.

    h1..h8 --100G each--> h0      (incast-8to1: 100 WRITEs of 64 KiB per sender, MTU 4096)

usage: plan_check.py ROCEPROBE PROFILES_DIR
"""
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from check import expect, finish  # noqa: E402

roceprobe, profiles = sys.argv[1], sys.argv[2]


def plan(name, *args):
    p = subprocess.run([roceprobe, "plan", f"{profiles}/{name}", "--json", *args], capture_output=True, text=True)
    return p.returncode, (json.loads(p.stdout) if p.returncode == 0 else p.stderr)


rc, j = plan("incast-8to1.yaml")
expect(rc == 0, "incast-8to1 plans")
expect(len(j["flows"]) == 8, "8 flows")
expect(all(p["dst"] == "h0" and p["bytes"] == 100 * 65536 for p in j["pairs"]), "each sender -> h0: 100 x 64 KiB = 6553600 B")
expect(all(p["packets"] == 100 * 16 for p in j["pairs"]), "each pair: 100 messages x 16 packets at MTU 4096")
h0 = next(p for p in j["ports"] if p["host"] == "h0")
expect(h0["rx_pct"] == 800.0 and h0["oversubscribed"], "h0 is offered 800% of its link")

rc, j = plan("incast-8to1.yaml", "--set", "traffic.0.rate=25%", "--set", "traffic.0.messages=3")
expect(rc == 0 and all(p["bytes"] == 3 * 65536 for p in j["pairs"]), "--set messages=3 gives 196608 B per pair")
h0 = next(p for p in j["ports"] if p["host"] == "h0")
expect(h0["rx_pct"] == 200.0, "--set rate=25% offers h0 200%")

rc, err = plan("pfc-storm.yaml")
expect(rc == 2 and "--allow-pause-storm" in err and err.count("\n") == 1, "a pause storm needs --allow-pause-storm (one line, exit 2)")
rc, _ = plan("pfc-storm.yaml", "--allow-pause-storm")
expect(rc == 0, "with --allow-pause-storm it plans")

# Routed hosts (issue 11): each host's subnet, its next hops and how their MACs are found,
# read off the profile by hand: h1 -> h3 is on h1's /24 and h3 has mac: auto (ARP finds it);
# h1 -> h2 leaves the /24 through 10.1.0.1 with no gateway_mac (ARP); h2's gateway has a
# gateway_mac; h3 -> h4 is IPv6 off fd00:1::/64 through fd00:1::1 (Neighbour Discovery).
ROUTED = """name: routed
defaults: {speed: 1G, opcode: write, message_size: 1024, mtu: 1024}
hosts:
  - {name: h1, mac: "02:00:00:00:00:01", ipv4: 10.1.0.2/24, gateway: 10.1.0.1, port: "net_null0"}
  - {name: h2, mac: auto, ipv4: 10.2.0.2/24, gateway: 10.2.0.1, gateway_mac: "02:00:00:00:00:fe", port: "net_null1"}
  - {name: h3, mac: auto, ipv4: 10.1.0.3/24, ipv6: fd00:1::3/64, gateway: [10.1.0.1, "fd00:1::1"], port: "net_null2"}
  - {name: h4, mac: auto, ipv6: fd00:2::4/64, gateway: "fd00:2::1", port: "net_null3"}
traffic:
  - {name: f, pattern: flow, src: h1, dst: h2, rate: 50M, packets: 10}
  - {name: g, pattern: flow, src: h2, dst: h1, rate: 50M, packets: 10}
  - {name: k, pattern: flow, src: h1, dst: h3, rate: 50M, packets: 10}
  - {name: m, pattern: flow, src: h3, dst: h4, rate: 50M, packets: 10, ip: 6}
"""
with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as t:
    t.write(ROUTED)
p = subprocess.run([roceprobe, "plan", t.name], capture_output=True, text=True)
os.unlink(t.name)
out = p.stdout
expect(p.returncode == 0, f"routed profile plans ({p.stderr.strip()})")
for what, pat in [
        ("h2's MAC is its port's", r"\n  h2 +\S+ +auto \(port's\) +10\.2\.0\.2 "),
        ("h1: subnet 10.1.0.2/24, h3 on the link found by ARP", r"\n  h1 +10\.1\.0\.2/24 +\(destination\) +arp +1 on the link\n"),
        ("h1: through 10.1.0.1, found by ARP", r"\n +10\.1\.0\.1 +arp +1 through the gateway\n"),
        ("h2: through 10.2.0.1, its gateway_mac", r"\n  h2 +10\.2\.0\.2/24 .*\n +10\.2\.0\.1 +gateway_mac +1 through the gateway\n"),
        ("h3: fd00:1::3/64 through fd00:1::1, found by ND", r"\n  h3 +fd00:1::3/64 .*\n +fd00:1::1 +nd +1 through the gateway\n"),
        ("the refresh is said", r"again every second\s+during a run")]:
    expect(re.search(pat, out) is not None, f"plan next hops: {what}")

finish("plan")
