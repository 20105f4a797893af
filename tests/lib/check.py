"""What the Python tests share, one copy each: the expect() tally and one pcap reader/writer.

    import os, sys
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
    from check import expect, finish, read_pcap, write_pcap  # noqa: E402

    expect(n == 1431, "1431 lost: 1428 with i % 7 == 6 and the last 3")
    ...
    finish("name")   # prints "name: N failed", exits 1 on any failure, else 0
"""
import json
import os
import re
import socket
import struct
import subprocess
import sys

failures = []


def expect(cond, what):
    """One line per check ("ok    what" / "FAIL  what"); a failure is tallied for finish()."""
    print(("ok    " if cond else "FAIL  ") + what, flush=True)
    if not cond:
        failures.append(what)
    return cond


def finish(name):
    """The closing line, "NAME: N failed", and the exit code: 1 on any failure, else 0."""
    print(f"{name}: {len(failures)} failed", flush=True)
    sys.exit(1 if failures else 0)


PCAP_US, PCAP_NS = 0xA1B2C3D4, 0xA1B23C4D


def read_pcap(path):
    """A classic pcap of either byte order and precision:
    {"nano": bool, "snaplen": int, "linktype": int, "recs": [(ts_ns, bytes, wire_len)]}.
    Raises ValueError if it is not a pcap or a record is cut short."""
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 24:
        raise ValueError(f"{path}: {len(data)} bytes, shorter than a pcap header")
    for end in "<>":
        magic = struct.unpack(end + "I", data[:4])[0]
        if magic in (PCAP_US, PCAP_NS):
            break
    else:
        raise ValueError(f"{path}: not a classic pcap (magic {data[:4].hex()})")
    scale = 1 if magic == PCAP_NS else 1000
    snaplen, linktype = struct.unpack(end + "II", data[16:24])
    off, recs = 24, []
    while off < len(data):
        if off + 16 > len(data):
            raise ValueError(f"{path}: record header cut at byte {off}")
        sec, frac, caplen, wire = struct.unpack(end + "IIII", data[off:off + 16])
        if off + 16 + caplen > len(data):
            raise ValueError(f"{path}: record data cut at byte {off}")
        recs.append((sec * 10**9 + frac * scale, data[off + 16:off + 16 + caplen], wire))
        off += 16 + caplen
    return {"nano": magic == PCAP_NS, "snaplen": snaplen, "linktype": linktype, "recs": recs}


def write_pcap(path, frames, nano=False, snaplen=65535):
    """Writes a little-endian Ethernet pcap (microsecond unless nano). frames: bytes, one
    second apart from 1700000000 s, or (ts_ns, bytes) pairs, or (ts_ns, bytes, wire_len)
    as read_pcap returns them; written in time order. Frames are cut to snaplen as
    `tcpdump -s N` does: the record keeps the wire length."""
    recs = [fr if isinstance(fr, tuple) else ((1700000000 + i) * 10**9, fr) for i, fr in enumerate(frames)]
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", PCAP_NS if nano else PCAP_US, 2, 4, 0, 0, snaplen, 1))
        for r in sorted(recs, key=lambda r: r[0]):
            t, fr, wire = r[0], r[1], r[2] if len(r) > 2 else len(r[1])
            frac = t % 10**9 if nano else t % 10**9 // 1000
            fr = fr[:snaplen]
            f.write(struct.pack("<IIII", t // 10**9, frac, len(fr), wire))
            f.write(fr)


def split_by_dst_mac(path, outs):
    """Each frame of the pcap at path to the file of its destination MAC: outs maps
    6-byte MACs to paths (frames to other MACs are left out). Returns {path: frames}."""
    cap = read_pcap(path)
    n = {}
    for mac, out in outs.items():
        recs = [r for r in cap["recs"] if r[1][:6] == mac]
        write_pcap(out, recs, nano=cap["nano"])
        n[out] = len(recs)
    return n


def free_port():
    """A TCP port on 127.0.0.1 nobody listens on now (a test's private server, a fixed watch port)."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def sh(cmd, check=True):
    """A shell command's stdout (for ip, tc, bridge, sysctl in the topology tests)."""
    return subprocess.run(cmd, shell=True, capture_output=True, text=True, check=check).stdout


def until_progress(p, cmd):
    """Reads p's stderr (a Popen with text pipes) up to cmd's first progress line ("run ...
    Mpps", "gen ... Mpps": traffic is running, about a second in) and returns (what it read,
    that line, "" when stderr ended first): a test that interrupts a run waits for that, not a
    fixed time (set-up took 1.1 s of a 2.5 s sleep on an idle machine here, and all of it on a
    loaded one: 18 packets sent)."""
    err = ""
    for line in p.stderr:
        err += line
        if line.startswith(cmd + " ") and "Mpps" in line:
            return err, line
    return err, ""


def in_private_netns(name):
    """Runs this script again inside a network namespace of its own (made here, its loopback
    up, removed after) and exits with its code; in that run (RP_NETNS set) returns at once.
    What the script starts that listens on every address (mpirun's out-of-band TCP, which
    Open MPI 4.1 binds to INADDR_ANY whatever oob_tcp_if_include says) is then reachable from
    nowhere but the job's own processes: the namespace holds nothing else."""
    if os.environ.get("RP_NETNS") == name:
        return
    ns = f"{name}-{os.getpid()}"
    if subprocess.run(["ip", "netns", "add", ns], capture_output=True).returncode != 0:
        print(f"skipped: cannot make a network namespace ({ns})")
        sys.exit(77)
    try:
        subprocess.run(["ip", "-n", ns, "link", "set", "lo", "up"], check=True)
        env = dict(os.environ, RP_NETNS=name)
        rc = subprocess.run(["ip", "netns", "exec", ns, sys.executable, *sys.argv], env=env).returncode
    finally:
        subprocess.run(["ip", "netns", "del", ns], capture_output=True)
    sys.exit(rc)


class BridgeTbf:
    """Senders into one receiver through a Linux bridge, a tbf on the receiver's port:

        [s] P-s ~~ P-sp --+-- bridge P-br -- P-rp ~~ P-r [r]      tbf RATE on P-rp

    the receiver's MAC static in the bridge (no flooding); IPv6 off (no stray frames)."""

    def __init__(self, prefix, senders, rx_mac, rate):
        self.p, self.senders, self.rx_mac, self.rate = prefix, senders, rx_mac, rate

    def ifaces(self):
        p = self.p
        return [f"{p}-{s}" for s in self.senders] + [f"{p}-{s}p" for s in self.senders] + [f"{p}-r", f"{p}-rp", f"{p}-br"]

    def teardown(self):
        for i in [f"{self.p}-br"] + [f"{self.p}-{s}" for s in self.senders] + [f"{self.p}-r"]:
            sh(f"ip link del {i} 2>/dev/null", check=False)

    def setup(self):
        self.teardown()
        p = self.p
        sh(f"ip link add {p}-br type bridge mcast_snooping 0")
        for s in self.senders + ["r"]:
            sh(f"ip link add {p}-{s} type veth peer name {p}-{s}p")
            sh(f"ip link set {p}-{s}p master {p}-br")
        for i in self.ifaces():
            sh(f"sysctl -qw net.ipv6.conf.{i}.disable_ipv6=1", check=False)
            sh(f"ip link set {i} up")
        sh(f"bridge fdb add {self.rx_mac} dev {p}-rp master static")
        sh(f"tc qdisc add dev {p}-rp root tbf rate {self.rate} burst 32kb limit 64kb")


def kernel_drops(ifaces, qdisc_dev=None):
    """Every drop the kernel counts on the path: {"tbf": the qdisc's on qdisc_dev (tc -s),
    iface: rx + tx dropped (ip -s link) for each interface that dropped anything}."""
    drops = {}
    if qdisc_dev:
        q = sh(f"tc -s qdisc show dev {qdisc_dev}")
        drops["tbf"] = sum(int(x) for x in re.findall(r"dropped (\d+)", q))
    for i in ifaces:
        st = json.loads(sh(f"ip -s -j link show {i}"))[0]["stats64"]
        d = st["rx"]["dropped"] + st["tx"]["dropped"]
        if d:
            drops[i] = d
    return drops


def twice_identical(lab, path, tmp, pcaps, runs_what="", pcaps_what=""):
    """A lab profile run twice (lab(path, out, "--capture") returns result.json): expects the
    same result.json bar its environment, and `pcaps` pcaps byte for byte. Returns the first
    run's result.json (environment removed) and its directory."""
    import filecmp
    import os
    runs = []
    for r in ("a", "b"):
        out = os.path.join(tmp, r)
        j = lab(path, out, "--capture")
        j.pop("environment", None)
        runs.append((out, json.dumps(j, sort_keys=True)))
    expect(runs[0][1] == runs[1][1], f"two runs{runs_what}: the same result.json (bar environment)")
    pc = sorted(f for f in os.listdir(runs[0][0]) if f.endswith(".pcap"))
    expect(len(pc) == pcaps and all(filecmp.cmp(os.path.join(runs[0][0], f), os.path.join(runs[1][0], f),
                                                shallow=False) for f in pc),
           f"the same {len(pc)} pcaps{pcaps_what}, byte for byte")
    return json.loads(runs[0][1]), runs[0][0]

