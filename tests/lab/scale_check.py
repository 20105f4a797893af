#!/usr/bin/python3
"""roceprobe lab at cluster scale: ECMP spread, 3-tier and rail fabrics, memory.

  ecmp    128 hosts, 8 leaves x 16 hosts, 16 spines, 100G everywhere (1:1), a permutation:

            spine0 .. spine15          (ECMP at each leaf over the UDP source port)
              |  \\  ...  /  |
            leaf0 ... leaf7            (16 x 100G down, 16 x 100G up)
            h0..h15  ...  h112..h127

usage: scale_check.py ROCEPROBE CASE
"""
import json
import math
import os
import subprocess
import sys
import tempfile
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from check import expect, finish  # noqa: E402

ROCEPROBE, CASE = sys.argv[1], sys.argv[2]


def lab(profile, out, *args, timeout=300):
    p = subprocess.run([ROCEPROBE, "lab", profile, "-o", out, "-q", "--force", *args], capture_output=True, text=True,
                       timeout=timeout)
    if p.returncode != 0:
        sys.exit(f"lab failed ({p.returncode}): {p.stderr.strip()}")
    with open(os.path.join(out, "result.json")) as f:
        return json.load(f)


def hosts_yaml(n, speed="100G"):
    return "".join(f'  - {{name: h{i}, mac: "02:00:00:{i >> 16 & 255:02x}:{i >> 8 & 255:02x}:{i & 255:02x}", '
                   f'ipv4: 10.{i >> 16 & 255}.{i >> 8 & 255}.{i & 255}, speed: {speed}}}\n' for i in range(n))


def write(tmp, name, text):
    path = os.path.join(tmp, name + ".yaml")
    with open(path, "w") as f:
        f.write(text)
    return path


def spine_packets(j, role="spine"):
    """Data packets each switch of that role sent (its ports' tx_pkts), by switch name."""
    return {s["name"]: sum(p["tx_pkts"] for p in s["ports"]) for s in j["switches"] if s["role"] == role}


def case_ecmp(tmp):
    # A permutation (Sattolo: one cycle) of 128 hosts: a flow leaves its leaf unless its
    # receiver is on the same leaf, which for a random receiver is 15/127: about 112 of the
    # 128 flows cross a spine. With QP numbers drawn per host, a flow's UDP source port is
    # as good as random, so the 112 flows are balls thrown into 16 bins (spines):
    #   P(a given spine gets none) = (15/16)^112 = 7.2e-4, x 16 spines: 1.2% that any is idle;
    #   flows per spine ~ Binomial(112, 1/16): mean 7, sd 2.56; P(>= 18) (Poisson(7) tail)
    #   = 3.3e-4, x 16 = 0.5% that any spine carries 18 or more.
    # The run is seeded, so it is one fixed draw; these bounds fail a polarised hash (the
    # bug: every host's QPs from 0x100 put all flows on 3 of 16 spines) and pass a fair one.
    n = 128
    base = (f"name: ecmp128\ndefaults: {{speed: 100G, opcode: write, message_size: 4KiB, mtu: 4096, dscp: 26}}\n"
            f"hosts:\n{hosts_yaml(n)}traffic:\n"
            f"  - {{pattern: permutation, hosts: [{', '.join(f'h{i}' for i in range(n))}], rate: 100%, "
            f"messages: MSGS, qps: QPS}}\n"
            f"fabric: {{topology: leaf-spine, leaves: 8, spines: 16, hosts_per_leaf: 16}}\n")
    path = write(tmp, "ecmp1", base.replace("MSGS", "4").replace("QPS", "1"))
    j = lab(path, os.path.join(tmp, "one"))
    per = {k: v // 4 for k, v in spine_packets(j).items()}  # 4 packets per flow
    crossing = sum(per.values())
    expect(len(per) == 16, f"16 spines ({len(per)})")
    expect(100 <= crossing <= 124, f"{crossing} flows cross a spine (about 112 = 128 x 112/127)")
    expect(all(v > 0 for v in per.values()), f"every spine carries flows: {sorted(per.values())}")
    expect(max(per.values()) < 18, f"no spine carries 18 or more of {crossing} (balls into 16 bins): "
           f"max {max(per.values())}")
    # 16 QPs per flow (messages go round robin, 2 per QP): 16 x crossing QPs, each its own
    # source port, into 16 bins: per spine mean m = crossing, sd s = sqrt(16 c (1/16)(15/16));
    # every spine within m +- 4 s (P(one bin beyond 4 sd) = 6e-5, x 16 = 1e-3).
    path = write(tmp, "ecmp16", base.replace("MSGS", "32").replace("QPS", "16"))
    j = lab(path, os.path.join(tmp, "sixteen"))
    qps = {k: v // 2 for k, v in spine_packets(j).items()}  # 2 single-packet messages per QP
    total = sum(qps.values())
    mean, sd = total / 16, math.sqrt(total * (1 / 16) * (15 / 16))
    share = sorted(round(v / total * 16, 3) for v in qps.values())
    expect(total == 16 * crossing, f"{total} QPs cross a spine == 16 x {crossing}")
    expect(all(abs(v - mean) <= 4 * sd for v in qps.values()),
           f"every spine's share within 4 sd ({4 * sd / mean:.0%}) of 1/16: shares x 16 = {share}")
    # The same permutation with every host's QPs from 0x100 (qpn_seed: 0): only a handful
    # of source ports exist, so each leaf puts its flows on a few of its 16 uplinks.
    j = lab(path.replace("ecmp16", "ecmp1"), os.path.join(tmp, "polar"), "--set", "qpn_seed=0")
    used = [sum(1 for p in s["ports"][16:] if p["tx_pkts"]) for s in j["switches"] if s["role"] == "leaf"]
    expect(max(used) <= 4, f"qpn_seed 0 (all QPs from 0x100): each leaf uses at most 4 of 16 uplinks ({used})")


with tempfile.TemporaryDirectory() as tmp:
    globals()["case_" + CASE](tmp)
finish(CASE)
