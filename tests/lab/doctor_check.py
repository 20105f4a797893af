#!/usr/bin/python3
"""roceprobe doctor on this machine's own ports, against the kernel's tools.

    h1  net_af_packet0,iface=rp24d0   veth rp24d0 <-> rp24d1 (made here, MTU 1500, up)
    h2  net_tap0,iface=rp24t0         tap rp24t0 (made here with ip tuntap)
    h3  net_null0                     no device, no netdev

    each sends WRITEs of 4 KiB at mtu 4096 to the next: frames of 4170 B
    (14 Ethernet + 20 IPv4 + 8 UDP + 12 BTH + 16 RETH + 4096 + 4 ICRC), IP packets of 4156 B

Known answers:
  - driver, MTU and speed equal `ethtool -i`, `ip -d link` and /sys/class/net/IF/speed
  - veth MTU 1500 < 4156: mtu FAIL naming 'mtu 4156' and the profile's 'mtu: 1024'
    (4170 - 4096 + 1024 = 1098 B frames, IP 1084 <= 1500; 2048 would make 2108 > 1500)
  - DCB: veth and tap have none ('not offered', as `dcb pfc show` fails); net_null no netdev
  - speed: virtual ports, the profile's 100G stays (INFO)
  - hugepages: none on this machine -> WARN with the mount command (skipped if some are set)
  - exit 1 with the FAIL; 0 once the profile's mtu is 1024; 2 for a missing profile, a
    bad option, a bad profile (one line each)

Preflight (run/gen/certify do doctor's checks at start, before any port opens):
  - gen of h1 alone (mtu 4096 on the veth's MTU 1500): exit 2, one line, the preflight's
    mtu FAIL with its fix (mtu 4156, mtu: 1024), and nothing from DPDK: no EAL started
    (the reference binary started it and said "takes frames" from its own port check)
  - certify --engine run of it (no launcher: every host here): the same FAIL line, exit 2,
    DIR never made
  - the same with --no-preflight: gen's own port check after the EAL ("takes frames")
  - run of two net_null hosts: exit 0, result.json written, one preflight WARN line for
    the hugepages (when none are set) and not the EAL's second "no hugepages mounted"
usage: doctor_check.py ROCEPROBE      (exit 77: skipped without root or veth)
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from check import expect, finish  # noqa: E402

ROCEPROBE = sys.argv[1]
VETH, PEER, TAP = "rp24d0", "rp24d1", "rp24t0"

PROFILE = """
defaults: {speed: 100G}
hosts:
  - {name: h1, mac: "02:00:00:00:00:01", ipv4: 192.0.2.1, port: "net_af_packet0,iface=%s"}
  - {name: h2, mac: "02:00:00:00:00:02", ipv4: 192.0.2.2, port: "net_tap0,iface=%s"}
  - {name: h3, mac: "02:00:00:00:00:03", ipv4: 192.0.2.3, port: "net_null0"}
traffic:
  - {name: a, pattern: flow, src: h1, dst: h2, rate: 1G, messages: 10, message_size: 4KiB, mtu: MTU}
  - {name: b, pattern: flow, src: h2, dst: h3, rate: 1G, messages: 10, message_size: 4KiB, mtu: MTU}
""" % (VETH, TAP)


def sh(*args):
    return subprocess.run(list(args), capture_output=True, text=True, timeout=30)


def rp(*args):
    return subprocess.run([ROCEPROBE, *args], capture_output=True, text=True, timeout=60)


def one_line_exit2(p, what, needle):
    lines = p.stderr.strip().splitlines()
    expect(p.returncode == 2 and len(lines) == 1 and needle in lines[0] and p.stdout == "",
           f"{what}: exit 2, one line with '{needle}', nothing on stdout (rc {p.returncode}, {p.stderr.strip()!r})")


def finding(doc, host, check):
    for f in doc["findings"]:
        if f["host"] == host and f["check"] == check:
            return f
    return None


def sys_int(path):
    try:
        with open(path) as f:
            return int(f.read())
    except (OSError, ValueError):
        return None


def main(tmp):
    prof = os.path.join(tmp, "p.yaml")
    with open(prof, "w") as f:
        f.write(PROFILE.replace("MTU", "4096"))
    p = rp("doctor", prof, "--json")
    expect(p.returncode == 1, f"a FAIL (the veth's MTU) exits 1 (rc {p.returncode}, {p.stderr.strip()!r})")
    doc = json.loads(p.stdout)
    expect(doc["schema"] == "roceprobe.doctor/1" and doc["verdict"] == "FAIL", "schema and verdict FAIL")
    ports = {q["host"]: q for q in doc["ports"]}

    # the kernel's own tools
    for host, dev in (("h1", VETH), ("h2", TAP)):
        q = ports[host]
        drv = re.search(r"^driver: (\S+)", sh("ethtool", "-i", dev).stdout, re.M)
        expect(drv and q["driver"] == drv.group(1), f"{host}: driver {q['driver']} == ethtool -i's {drv and drv.group(1)}")
        mtu = re.search(r" mtu (\d+) ", sh("ip", "-d", "link", "show", dev).stdout)
        expect(mtu and q["mtu"] == int(mtu.group(1)), f"{host}: mtu {q['mtu']} == ip -d link's {mtu and mtu.group(1)}")
        speed = re.search(r"Speed: (\d+)Mb/s", sh("ethtool", dev).stdout)
        expect(speed and q["ethtool_speed_mbps"] == int(speed.group(1)),
               f"{host}: ethtool speed {q['ethtool_speed_mbps']} == ethtool's {speed and speed.group(1)}")
        expect(q["sysfs_speed_mbps"] == sys_int(f"/sys/class/net/{dev}/speed"),
               f"{host}: sysfs speed {q['sysfs_speed_mbps']} == /sys/class/net/{dev}/speed")
        expect(q["virtual"] and q["speed_bps"] == 100_000_000_000, f"{host}: virtual, the profile's 100G stays")
        expect(finding(doc, host, "speed")["status"] == "INFO", f"{host}: speed INFO (made up)")
        # no DCB: `dcb pfc show` fails too
        expect(sh("dcb", "pfc", "show", "dev", dev).returncode != 0 and q["dcb"] == "not offered"
               and "not offered" in finding(doc, host, "dcb")["finding"], f"{host}: DCB not offered, as dcb says")
        expect(finding(doc, host, "roce")["finding"].startswith("not applicable"), f"{host}: roce not applicable")
    expect(ports["h1"]["driver"] == "veth" and ports["h2"]["driver"] == "tun", "veth's driver veth, tap's tun")
    expect(ports["h1"]["mtu"] == 1500, "the veth's MTU 1500")
    # 14 + 20 + 8 + 12 + 16 + 4096 + 4
    expect(ports["h1"]["max_frame"] == 4170 and ports["h3"]["max_frame"] == 4170, "frames of 4170 B")
    mtu = finding(doc, "h1", "mtu")
    expect(mtu["status"] == "FAIL" and f"ip link set dev {VETH} mtu 4156" in mtu["fix"] and "mtu: 1024" in mtu["fix"],
           f"h1: MTU 1500 < 4156 FAILs naming mtu 4156 and mtu: 1024 ({mtu})")
    expect(finding(doc, "h2", "mtu")["status"] == "FAIL", "h2: the tap's 1500 too")
    q = ports["h3"]
    expect(q["kind"] == "null" and q["netdev"] is None and q["dcb"] is None, "h3: net_null, no netdev")
    expect(finding(doc, "h3", "dcb")["finding"].startswith("not offered"), "h3: DCB not offered")
    expect(finding(doc, "h3", "mtu")["status"] == "INFO", "h3: no MTU on the way")
    huge = finding(doc, None, "hugepages")
    if sum(sys_int(f"/sys/kernel/mm/hugepages/{d}/nr_hugepages") or 0
           for d in os.listdir("/sys/kernel/mm/hugepages")) == 0:
        expect(huge["status"] == "WARN" and "mount -t hugetlbfs" in huge["fix"] and doc["machine"]["hugepages"] == 0,
               f"no hugepages: WARN with the fix ({huge})")

    # the text table says the same, exit 1
    p = rp("doctor", prof)
    expect(p.returncode == 1 and re.search(r"^h1 +mtu +FAIL", p.stdout, re.M) and "fix: ip link set dev" in p.stdout,
           f"text: h1 mtu FAIL and its fix (rc {p.returncode})")

    # mtu 1024 (frames of 1098 B) fits 1500: nothing FAILs, exit 0
    with open(prof, "w") as f:
        f.write(PROFILE.replace("MTU", "1024"))
    p = rp("doctor", prof)
    expect(p.returncode == 0 and "FAIL" not in p.stdout.split("\n\n")[1],
           f"mtu 1024: exit 0, no FAIL (rc {p.returncode}, {p.stderr.strip()!r})")
    expect(re.search(r"^h1 +mtu +PASS", p.stdout, re.M), "h1: MTU 1500 carries 1098 B frames")

    one_line_exit2(rp("doctor", os.path.join(tmp, "missing.yaml")), "a missing profile", "missing.yaml")
    one_line_exit2(rp("doctor", prof, "--jsn"), "a bad option", "--jsn")
    one_line_exit2(rp("doctor"), "no profile", "PROFILE")
    with open(prof, "w") as f:
        f.write("hosts: [{name: h1}]\n")
    one_line_exit2(rp("doctor", prof), "a bad profile", "p.yaml")
    p = rp("doctor", "--help")
    expect(p.returncode == 0 and "not offered" in p.stdout and "Exit status" in p.stdout, "--help teaches")
    preflight(tmp)


NULLS = """
defaults: {speed: 10G}
hosts:
  - {name: n1, mac: "02:00:00:00:00:11", ipv4: 192.0.2.11, port: "net_null0"}
  - {name: n2, mac: "02:00:00:00:00:12", ipv4: 192.0.2.12, port: "net_null1"}
traffic:
  - {name: a, pattern: flow, src: n1, dst: n2, rate: 1G, messages: 100, message_size: 4KiB, mtu: 1024}
"""


def preflight(tmp):
    prof = os.path.join(tmp, "pf.yaml")
    with open(prof, "w") as f:  # h1 alone sends: gen opens only the veth
        f.write(PROFILE.replace("MTU", "4096").replace("  - {name: b,", "  # "))
    p = rp("gen", prof, "--duration", "1")
    lines = p.stderr.strip().splitlines()
    # 4170 B frames, IP 4156 B > 1500; mtu: 1024 makes 1098 B (IP 1084 <= 1500)
    expect(p.returncode == 2 and p.stdout == "" and len(lines) == 1
           and lines[0].startswith("roceprobe gen: preflight FAIL: host 'h1': mtu: rp24d0: MTU 1500 is below")
           and f"fix: ip link set dev {VETH} mtu 4156" in lines[0] and "set mtu: 1024 in the profile" in lines[0]
           and "--no-preflight" in lines[0],
           f"gen, mtu 4096 on MTU 1500: exit 2, one preflight FAIL line, no EAL (rc {p.returncode}, {lines})")
    cdir = os.path.join(tmp, "cert")
    p = rp("certify", prof, "--engine", "run", "-o", cdir)
    lines = p.stderr.strip().splitlines()
    expect(p.returncode == 2 and len(lines) == 1 and lines[0].startswith("roceprobe certify: preflight FAIL: host 'h1': mtu:")
           and not os.path.exists(cdir), f"certify --engine run: the same FAIL, exit 2, no DIR (rc {p.returncode}, {lines})")
    p = rp("gen", prof, "--duration", "1", "--no-preflight")
    lines = [ln for ln in p.stderr.strip().splitlines() if "preflight" in ln or "takes frames" in ln]
    expect(p.returncode == 2 and len(lines) == 1 and "takes frames up to 1514 B" in lines[0],
           f"--no-preflight: gen's own port check says it after the EAL ({lines})")
    with open(prof, "w") as f:
        f.write(NULLS)
    out = os.path.join(tmp, "null-run")
    p = rp("run", prof, "-o", out)
    warns = [ln for ln in p.stderr.splitlines() if "preflight" in ln]
    huge = [ln for ln in p.stderr.splitlines() if "hugepages" in ln]
    expect(p.returncode == 0 and os.path.isfile(os.path.join(out, "result.json")),
           f"run on net_null: proceeds past its WARNs (rc {p.returncode}, {p.stderr.strip()[-300:]!r})")
    if sum(sys_int(f"/sys/kernel/mm/hugepages/{d}/nr_hugepages") or 0
           for d in os.listdir("/sys/kernel/mm/hugepages")) == 0:
        expect(len(warns) == 1 and warns[0].startswith("roceprobe run: preflight WARN: hugepages: no hugepages")
               and "mount -t hugetlbfs" in warns[0] and huge == warns,
               f"run on net_null: one preflight WARN (hugepages, with the fix), no second hugepages line ({huge})")


if __name__ == "__main__":
    if os.geteuid() != 0 or not shutil.which("ethtool") or not shutil.which("dcb"):
        print("doctor: needs root, ethtool and dcb; skipped")
        sys.exit(77)
    for dev in (VETH, TAP):
        sh("ip", "link", "del", dev)
    if sh("ip", "link", "add", VETH, "type", "veth", "peer", "name", PEER).returncode != 0:
        print("doctor: cannot make a veth; skipped")
        sys.exit(77)
    try:
        sh("ip", "tuntap", "add", "dev", TAP, "mode", "tap")
        sh("ip", "link", "set", VETH, "up")
        sh("ip", "link", "set", PEER, "up")
        with tempfile.TemporaryDirectory() as tmp:
            main(tmp)
    finally:
        sh("ip", "link", "del", VETH)
        sh("ip", "link", "del", TAP)
    finish("doctor")
