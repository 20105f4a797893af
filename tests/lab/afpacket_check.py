#!/usr/bin/python3
"""capture and run on net_af_packet ports, which take frames up to 1514 B (1518 with FCS).

    capture:  python AF_PACKET socket --> rp9dp0 ~~veth~~ rp9dp1 --> [roceprobe capture
              net_af_packet0,iface=rp9dp1]: 100 frames put there on purpose (60..1514 B),
              the pcap must hold exactly those bytes.
    run:      [h1] net_af_packet0,iface=rp9dp0 ~~veth~~ rp9dp1,net_af_packet1 [h2]
              4 KiB writes at mtu 4096: one line saying what to change, exit 2; at mtu 1024: h2
              receives all 400 frames (100 messages of 4), at its own port.
    lcores:   the same run (mtu 1024, 8 QPs) with --lcores 2: each one-queue port polled by one
              lcore (a line each), 400 of 400 received; with qpairs=2 on both ports, one line and
              exit 2 (it used to run and count 300 of the 400 lost: the frames the kernel's fanout
              put on the second socket were never read).
    pace:     [gen h1] net_af_packet0,iface=rp9dp0 ~~veth~~ rp9dp1 --> python AF_PACKET socket with
              the kernel's receive times: gen's stamps and the kernel's clock run at one rate.

The veth pair (rp9dp0/rp9dp1, names no other test uses) is created here and removed at the
end, IPv6 off so the kernel sends nothing on it. usage: afpacket_check.py ROCEPROBE CASE
(CASE: capture, run, lcores, pace). Exit 77 = skipped (not root, or no veth).
"""
import json
import os
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from check import expect, finish, read_pcap  # noqa: E402

ROCEPROBE, CASE = sys.argv[1], sys.argv[2]
A, B = "rp9dp0", "rp9dp1"



def sh(cmd, check=True):
    return subprocess.run(cmd, shell=True, capture_output=True, text=True, check=check)


def setup():
    if os.geteuid() != 0:
        print("skipped: needs root for veth")
        sys.exit(77)
    sh(f"ip link del {A} 2>/dev/null", check=False)
    if sh(f"ip link add {A} type veth peer name {B}", check=False).returncode != 0:
        print("skipped: no veth here")
        sys.exit(77)
    for i in (A, B):
        sh(f"sysctl -qw net.ipv6.conf.{i}.disable_ipv6=1", check=False)
        sh(f"ip link set {i} up")


def teardown():
    sh(f"ip link del {A} 2>/dev/null", check=False)


def pcap_frames(path):
    """(wire length, captured bytes) of each record (tests/lib/check.py reads the file)."""
    return [(w, b) for _, b, w in read_pcap(path)["recs"]]


def case_capture(tmp):
    # Frame i: to 02:00:00:00:00:02 from :01, EtherType 0x88b5 (local experimental),
    # payload bytes (i, i+1, ...), length 60 + i * 14 (60..1446), and the last one 1514.
    frames = []
    for i in range(100):
        n = 1514 if i == 99 else 60 + i * 14
        head = bytes.fromhex("020000000002" "020000000001" "88b5")
        frames.append(head + bytes((i + k) & 0xFF for k in range(n - len(head))))
    out = os.path.join(tmp, "c.pcap")
    p = subprocess.Popen([ROCEPROBE, "capture", "--port", f"net_af_packet0,iface={B}", "-w", out,
                          "--snaplen", "1514", "--count", "100", "--duration", "20", "--json"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(3)  # the EAL and the port come up
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((A, 0))
    for f in frames:
        s.send(f)
        time.sleep(0.001)
    s.close()
    stdout, stderr = p.communicate(timeout=60)
    expect(p.returncode == 0, f"capture on net_af_packet exit {p.returncode} ({stderr.strip()[-300:]})")
    expect("takes frames up to 1514 B" in stderr, "capture says it clamps the frame size to what the port takes")
    if p.returncode != 0:
        return
    j = json.loads(stdout)
    got = pcap_frames(out)
    expect(j["received"] == 100 and len(got) == 100, f"100 frames sent, {j['received']} received, {len(got)} written")
    expect([b for _, b in got] == frames, "the pcap holds exactly the bytes sent, 60..1514 B")


# Addresses no interface of this machine holds: the root namespace's kernel answers ARP
# for any of its own addresses on the veth too (arp_ignore 0; eth0 here has 192.0.2.2),
# and run refuses an address someone else answers for (a duplicate).
def af_profile(mtu, devargs="", qps=1):
    return f"""name: af
defaults: {{speed: 1G, opcode: write, message_size: 4096, mtu: {mtu}, dscp: 26, ecn: ect0}}
hosts:
  - {{name: h1, mac: "02:00:00:00:00:01", ipv4: 10.99.9.1, port: "net_af_packet0,iface={A}{devargs}"}}
  - {{name: h2, mac: "02:00:00:00:00:02", ipv4: 10.99.9.2, port: "net_af_packet1,iface={B}{devargs}"}}
traffic:
  - {{name: f, pattern: flow, src: h1, dst: h2, rate: 100M, messages: 100, qps: {qps}}}
"""


def case_run(tmp):
    path = os.path.join(tmp, "p.yaml")
    with open(path, "w") as f:
        f.write(af_profile(4096))
    # --no-preflight: the port's own frame check after the EAL (the preflight's mtu FAIL, which
    # comes first otherwise, is doctor_check.py's)
    p = subprocess.run([ROCEPROBE, "run", path, "-o", os.path.join(tmp, "o1"), "--no-preflight"], capture_output=True,
                       text=True, timeout=60)
    lines = [l for l in p.stderr.splitlines() if "takes frames" in l]
    expect(p.returncode == 2, f"mtu 4096 on net_af_packet: exit {p.returncode} (want 2)")
    # 4096 B messages; the FIRST packet (with RETH) is the largest: 14 + 20 + 8 + 12 + 16 + MTU + 4 B
    # ICRC: 4170 B at MTU 4096, 1098 B at MTU 1024
    expect(len(lines) == 1 and "up to 1514 B" in lines[0] and "mtu 4096 makes frames of 4170 B" in lines[0]
           and "set mtu: 1024 (frames of 1098 B)" in lines[0],
           f"one line says what to change: {lines}")
    expect("Invalid argument" not in p.stderr, "not DPDK's own message")
    with open(path, "w") as f:
        f.write(af_profile(1024))
    out = os.path.join(tmp, "o2")
    p = subprocess.run([ROCEPROBE, "run", path, "-o", out], capture_output=True, text=True, timeout=60)
    expect(p.returncode == 0, f"mtu 1024: exit {p.returncode} ({p.stderr.strip()[-200:]})")
    if p.returncode == 0:
        fl = json.load(open(os.path.join(out, "result.json")))["flows"][0]
        expect(fl["tx_packets"] == 400 and fl["rx_packets"] == 400 and fl["lost"] == 0 and fl["misdelivered"] == 0,
               f"h2 received {fl['rx_packets']} of {fl['tx_packets']} at its own port, lost {fl['lost']}")


def case_lcores(tmp):
    path = os.path.join(tmp, "p.yaml")
    with open(path, "w") as f:
        f.write(af_profile(1024, qps=8))
    out = os.path.join(tmp, "o")
    p = subprocess.run([ROCEPROBE, "run", path, "-o", out, "--lcores", "2"], capture_output=True, text=True, timeout=60)
    expect(p.returncode == 0, f"--lcores 2 on net_af_packet: exit {p.returncode} ({p.stderr.strip()[-300:]})")
    said = [l for l in p.stderr.splitlines() if "has 1 queue for 2 lcores" in l]
    expect(len(said) == 2 and "net_af_packet0" in said[0] and "environment.lcores[0] alone polls it" in said[0]
           and "net_af_packet1" in said[1] and "environment.lcores[1] alone polls it" in said[1],
           f"one line per port names the lcore that polls it: {said}")
    if p.returncode == 0:
        j = json.load(open(os.path.join(out, "result.json")))
        fl = j["flows"][0]
        expect(fl["tx_packets"] == 400 and fl["rx_packets"] == 400 and fl["lost"] == 0,
               f"--lcores 2: h2 received {fl['rx_packets']} of {fl['tx_packets']}, lost {fl['lost']} (400, 400, 0)")
        lc = j["environment"]["lcores"]
        expect(len(lc) == 2 and lc[0]["tx_packets"] == 400 and lc[1]["rx_packets"] >= 400,
               f"lcore 0 sent the 400 (h1's port), lcore 1 received them (h2's): {lc}")
    with open(path, "w") as f:
        f.write(af_profile(1024, ",qpairs=2", qps=8))
    out = os.path.join(tmp, "q")
    p = subprocess.run([ROCEPROBE, "run", path, "-o", out], capture_output=True, text=True, timeout=60)
    lines = [l for l in p.stderr.splitlines() if "hugepages" not in l]
    expect(p.returncode == 2 and len(lines) == 1 and "qpairs=2" in lines[0] and "drop qpairs=" in lines[0],
           f"qpairs=2: one line and exit 2 (rc {p.returncode}, {lines})")
    expect(not os.path.exists(out), "qpairs=2: no result directory")


SO_TIMESTAMPNS, SO_RCVBUFFORCE = 35, 33  # asm-generic/socket.h


class KernelStamps(threading.Thread):
    """Every probe that arrives at the veth's far end: (the kernel's receive time, from
    SO_TIMESTAMPNS, on CLOCK_MONOTONIC; the probe's tx_ns, the sender's packet clock). A RoCEv2
    SEND ONLY frame: Ethernet 14, IPv4 20, UDP 8, BTH 12, then the probe (magic RPRB, flow id,
    seq, tx_ns). The kernel stamps on CLOCK_REALTIME; the packet clock's rate is measured on
    CLOCK_MONOTONIC. NTP slews both alike, but a machine of this kind steps REALTIME apart (0.5 ms
    about ten times a second: 0.5% fast, measured), so each stamp is moved to MONOTONIC by the
    two clocks' offset read right after it arrives (a step in between moves one stamp only)."""
    def __init__(self, dev):
        super().__init__(daemon=True)
        self.sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x0003))
        self.sock.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 8 << 20)
        self.sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
        self.sock.bind((dev, 0))
        self.sock.settimeout(0.2)
        self.pairs, self.done = [], False

    def run(self):
        while not self.done:
            try:
                fr, anc, _, _ = self.sock.recvmsg(2048, 64)
                off = time.clock_gettime_ns(time.CLOCK_REALTIME) - time.clock_gettime_ns(time.CLOCK_MONOTONIC)
            except socket.timeout:
                continue
            if len(fr) < 78 or fr[12:14] != b"\x08\x00" or fr[36:38] != b"\x12\xb7" or fr[54:58] != b"RPRB":
                continue
            for level, kind, data in anc:
                if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS:
                    sec, nsec = struct.unpack("qq", data[:16])
                    self.pairs.append((sec * 10**9 + nsec - off, struct.unpack(">Q", fr[70:78])[0]))

    def stop(self):
        time.sleep(0.5)
        self.done = True
        self.join()


def case_pace(tmp):
    # gen paces and stamps its probes on its packet clock (the TSC); the kernel stamps their
    # arrival on CLOCK_REALTIME. Over 2 s the two must run at one rate: the median of the
    # slopes (kernel time / stamp) between probes half the capture apart is 1 within 0.02%
    # (2e-4: 400 us in 2 s). A packet clock at DPDK's rte_get_tsc_hz, rounded to 10 MHz, ran
    # 0.19% slow on a 2096.029 MHz TSC (2100 MHz assumed): 1.0019 here.
    path = os.path.join(tmp, "p.yaml")
    with open(path, "w") as f:
        f.write(f"""name: pace
defaults: {{speed: 1G, opcode: send, message_size: 64, mtu: 1024, dscp: 26, ecn: ect0}}
hosts:
  - {{name: h1, mac: "02:00:00:00:00:01", ipv4: 10.99.9.1, port: "net_af_packet0,iface={A}"}}
  - {{name: h2, mac: "02:00:00:00:00:02", ipv4: 10.99.9.2}}
traffic:
  - {{name: f, pattern: flow, src: h1, dst: h2, rate: 10M, duration: 2s}}
""")
    k = KernelStamps(B)
    k.start()
    p = subprocess.run([ROCEPROBE, "gen", path, "--json"], capture_output=True, text=True, timeout=60)
    k.stop()
    expect(p.returncode == 0, f"gen on net_af_packet: exit {p.returncode} ({p.stderr.strip()[-200:]})")
    if p.returncode != 0:
        return
    sent = json.loads(p.stdout)["flows"][0]["tx_packets"]
    got = sorted(k.pairs, key=lambda x: x[1])
    # 10 Mbit/s of 122 B frames (14 + 20 + 8 + 12 + 64 + 4) + 24 B of layer 1: 8562 a second
    # (at 50 Mbit/s, 42808 a second, this Python receiver takes most of a core of the two).
    expect(len(got) >= 0.9 * sent and abs(sent - 2 * 8562) < 0.02 * 2 * 8562,
           f"the kernel saw {len(got)} of the {sent} probes gen sent (2 s x 8562 planned)")
    half = len(got) // 2
    slopes = sorted((got[i + half][0] - got[i][0]) / (got[i + half][1] - got[i][1]) for i in range(half)
                    if got[i + half][1] > got[i][1])
    rate = slopes[len(slopes) // 2] if slopes else 0
    print(f"kernel ns per packet-clock ns: {rate:.6f} (median of {len(slopes)} slopes over ~1 s)")
    expect(abs(rate - 1) < 2e-4, f"gen's packet clock runs at the kernel clock's rate ({rate:.6f}, 1 within 2e-4)")


setup()
try:
    with tempfile.TemporaryDirectory() as tmp:
        {"capture": case_capture, "run": case_run, "lcores": case_lcores, "pace": case_pace}[CASE](tmp)
finally:
    teardown()
finish(CASE)
