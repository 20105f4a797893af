#!/usr/bin/python3
"""roceprobe plan --size: the lab's predicted peak memory against what the kernel measures.

  small   `plan --size` against the maximum resident set (the kernel's, wait4's rusage of
          the `lab` child) of a real run, within 20%:
            profiles/incast-8to1.yaml   one switch, 8 senders -> h0 (every sender paused)
            leaf-spine-128              htsim.sh's 128-host permutation (8 leaves x 16 hosts,
                                        16 spines, 100G, 1:1) of 300 4 KiB WRITEs a host:

              spine0 .. spine15
              leaf0 ... leaf7
              h0..h15 ... h112..h127

  big     the 8192-NIC profiles are planned and sized only (a run is a bench: minutes and
          GBs): the parts' counts against the shapes worked by hand (k=32 fat-tree: 32 pods x
          (16 leaves + 16 aggs) + 256 cores = 1280 switches of 32 ports; 8 pods x 8 rails = 64
          rail leaves of 128 + 128 ports and 128 spines of 64), flows and packets from the
          traffic (8192 flows x 128 one-packet messages)

          and the limit: 2048 servers of 8 NICs (16384 NICs, 16 pods) planned and sized

  bad     a fabric the lab refuses (8192 hosts on one switch), --size with --json, 2049
          servers of 8 NICs (16392, over 16384): one line, exit 2, nothing on stdout

usage: size_check.py ROCEPROBE PROFILES CASE
"""
import os
import re
import subprocess
import sys
import tempfile
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from check import expect, finish  # noqa: E402

ROCEPROBE, PROFILES, CASE = sys.argv[1], sys.argv[2], sys.argv[3]


def size(profile, *args):
    """plan --size's parts: {part: (bytes, the rest of its line)}."""
    p = subprocess.run([ROCEPROBE, "plan", profile, "--size", *args], capture_output=True, text=True, timeout=120)
    if not expect(p.returncode == 0, f"plan --size {os.path.basename(profile)} exits 0 ({p.stderr.strip()[:200]})"):
        return {}
    parts = {}
    for line in p.stdout.splitlines()[1:]:
        m = re.match(r"\s+(\w+)\s+(\d+) B\s+[\d.]+ MiB\s*(.*)$", line)
        if m:
            parts[m.group(1)] = (int(m.group(2)), m.group(3))
    return parts


def max_rss(cmd):
    """The child's maximum resident set in bytes, as the kernel counted it (wait4)."""
    child = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, ru = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    err = child.stderr.read().decode()
    child.stderr.close()
    expect(child.returncode == 0, f"{' '.join(cmd[1:3])} exits 0 ({err.strip()[:200]})")
    return ru.ru_maxrss * 1024


def leafspine(path, messages):
    """tools/bench/htsim.sh's leafspine_profile, with fewer messages (the peak comes in the first few)."""
    hosts = "".join(f'  - {{name: h{i}, mac: "02:00:00:20:00:{i:02x}", ipv4: 10.32.0.{i + 1}}}\n' for i in range(128))
    with open(path, "w") as f:
        f.write("name: leaf-spine-128-permutation\n"
                "defaults: {speed: 100G, opcode: write, message_size: 4KiB, mtu: 4096, dscp: 26}\n"
                f"hosts:\n{hosts}traffic:\n"
                f"  - {{pattern: permutation, hosts: all, rate: 100%, messages: {messages}}}\n"
                "fabric: {topology: leaf-spine, leaves: 8, spines: 16, hosts_per_leaf: 16}\n")


def small(tmp):
    ls = os.path.join(tmp, "ls128.yaml")
    leafspine(ls, 300)
    for name, prof in (("incast-8to1", os.path.join(PROFILES, "incast-8to1.yaml")), ("leaf-spine-128", ls)):
        parts = size(prof)
        if "total" not in parts:
            continue
        est = parts["total"][0]
        expect(est == sum(parts[k][0] for k in parts if k != "total"), f"{name}: total is the sum of its parts")
        got = max_rss([ROCEPROBE, "lab", prof, "-o", os.path.join(tmp, name), "-q"])
        expect(abs(est - got) <= 0.2 * got,
               f"{name}: estimate {est / 2**20:.1f} MiB within 20% of the measured {got / 2**20:.1f} MiB "
               f"({(est - got) / got * 100:+.1f}%)")


def big():
    ft = size(os.path.join(PROFILES, "fat-tree-8192.yaml"))
    if ft:
        k = 32
        nsw = k * (k // 2 + k // 2) + (k // 2) ** 2
        expect(nsw == 1280, "k=32: 1280 switches by hand")
        expect(ft["hosts"][1] == "8192 hosts", f"fat-tree-8192: 8192 hosts ({ft['hosts'][1]})")
        expect(ft["switches"][1] == f"{nsw} switches, {nsw * k} ports",
               f"fat-tree-8192: {nsw} switches of {k} ports ({ft['switches'][1]})")
        expect(ft["flows"][1] == "8192 flows", f"fat-tree-8192: 8192 flows ({ft['flows'][1]})")
        expect(f"{8192 * 128} sent" in ft["frames"][1], f"fat-tree-8192: 1048576 packets sent ({ft['frames'][1]})")
        expect(ft["total"][0] < 16 << 30, f"fat-tree-8192: predicted under 16 GiB ({ft['total'][0] / 2**30:.2f} GiB)")
    rail = size(os.path.join(PROFILES, "rail-pods-8192.yaml"))
    if rail:
        leaves, spines = 8 * 8, 128
        ports = leaves * (128 + spines) + spines * leaves
        expect(rail["hosts"][1] == "8192 hosts", f"rail-pods-8192: 8192 NICs ({rail['hosts'][1]})")
        expect(rail["switches"][1] == f"{leaves + spines} switches, {ports} ports",
               f"rail-pods-8192: {leaves} leaves + {spines} spines, {ports} ports ({rail['switches'][1]})")
        expect(rail["flows"][1] == "8192 flows", f"rail-pods-8192: 8 rails x 1024 flows ({rail['flows'][1]})")
        expect(rail["total"][0] < 16 << 30,
               f"rail-pods-8192: predicted under 16 GiB ({rail['total'][0] / 2**30:.2f} GiB)")
    most = size(os.path.join(PROFILES, "rail-pods-8192.yaml"), "--set", "host_template.count=2048")
    if most:  # the limit: 2048 servers x 8 NICs = 16384, 16 pods of 8 rail leaves
        expect(most["hosts"][1] == "16384 hosts" and most["flows"][1] == "16384 flows",
               f"2048 servers x 8 NICs: 16384 NICs and flows ({most['hosts'][1]}, {most['flows'][1]})")
        expect(most["switches"][1] == f"{16 * 8 + 128} switches, {16 * 8 * 256 + 128 * 128} ports",
               f"16 pods: 128 leaves + 128 spines ({most['switches'][1]})")


def bad():
    ft = os.path.join(PROFILES, "fat-tree-8192.yaml")
    rail = os.path.join(PROFILES, "rail-pods-8192.yaml")
    for prof, args, want in ((ft, ["--set", "fabric.topology=single"], "one switch has at most 256 ports; 8192 hosts"),
                             (ft, ["--json"], "--size prints text"),
                             (rail, ["--set", "host_template.count=2049"], "at most 16384 NICs in all hosts together")):
        p = subprocess.run([ROCEPROBE, "plan", prof, "--size", *args], capture_output=True, text=True, timeout=120)
        lines = p.stderr.strip().splitlines()
        expect(p.returncode == 2 and len(lines) == 1 and want in lines[0] and not p.stdout,
               f"{' '.join(args)}: exit 2 ({p.returncode}), one line with '{want}': {lines[:2]}")


with tempfile.TemporaryDirectory() as tmp:
    {"small": lambda: small(tmp), "big": big, "bad": bad}[CASE]()
finish("size-" + CASE)
