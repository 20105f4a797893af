#!/usr/bin/python3
"""roceprobe plan on the shipped profiles against numbers worked out by hand.

    h1..h8 --100G each--> h0      (incast-8to1: 100 WRITEs of 64 KiB per sender, MTU 4096)

usage: plan_check.py ROCEPROBE PROFILES_DIR
"""
import json
import os
import subprocess
import sys

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

finish("plan")
