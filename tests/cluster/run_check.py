#!/usr/bin/python3
"""roceprobe run across ranks: one profile, four processes under mpirun, one merged result.

    rank 0 [s1] rpc-s1 ~~ rpc-s1p --+
    rank 1 [s2] rpc-s2 ~~ rpc-s2p --+-- bridge rpc-br -- rpc-rp ~~ rpc-r [rx] rank 3
    rank 2 [s3] rpc-s3 ~~ rpc-s3p --+                    tbf 100 Mbit/s (incast)
    DPDK net_af_packet on the outer veth ends, each host in its own process.

Cases:
  incast     3 x 60 Mbit/s into tbf 100 Mbit/s: the merged per-flow lost == every drop the
             kernel counts on the path (tc -s qdisc, ip -s link), exactly; every sender's tx is
             in the merged result; the "cluster" section lists the four ranks and hosts.
  all2all    no tbf: a 4-host all-to-all (3 phases); every pair's rx == tx; from the captures,
             no receiver gets data from two senders inside one phase.
  sigint     Ctrl-C to mpirun mid-run: the merged result is written, interrupted, and its
             loss still equals the kernel's drops (every rank drained before counting).
  missing    rank 2's port names an interface that does not exist: exit 2, one line naming the
             host, the rank and its node; no rank sends a frame (the kernel counters stay at 0).
  template   the hosts come from a host_template (count: ranks, port iface=rpt-t{rank}, mac:
             auto, ipv4: netdev) on four veths rpt-t0..3 through a bridge rpt-br, each with a
             kernel address 10.98.0.(k+1)/24: an all-to-all, every pair accounted, nothing
             lost; result.json's hosts carry the MAC and address each rank read from its port
             and netdev, equal to `ip -j link` / `ip -j addr` of those veths (the truth), and
             `plan --ranks 4` shows them as read on rank k at start.

usage: run_check.py ROCEPROBE CASE   (exit 77 = skipped: no mpirun, veth or bridge)
"""
import json
import os
import shutil
import socket
import subprocess
import sys
import signal
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import check  # noqa: E402
from check import expect, finish, sh, read_pcap  # noqa: E402

ROCEPROBE, CASE = sys.argv[1], sys.argv[2]
HOSTS = ["s1", "s2", "s3", "r"]
MPIRUN = shutil.which("mpirun")
if not MPIRUN:
    print("skipped: mpirun is missing (openmpi-bin)")
    sys.exit(77)


def ifaces():
    return [f"rpc-{h}" for h in HOSTS] + [f"rpc-{h}p" for h in HOSTS] + ["rpc-br"]


TEMPLATED = [f"t{k}" for k in range(4)]  # the template case's hosts, on rpt-t0..3 through rpt-br


def teardown():
    links = ["rpc-br"] + [f"rpc-{h}" for h in HOSTS] if CASE != "template" else \
        ["rpt-br"] + [f"rpt-{h}" for h in TEMPLATED]
    for i in links:
        sh(f"ip link del {i} 2>/dev/null", check=False)


def setup(tbf):
    teardown()
    sh("ip link add rpc-br type bridge")
    # DPDK 22.11's net_af_packet joins a PACKET_FANOUT group numbered (getpid() ^ ifindex) &
    # 0xffff; two processes whose numbers collide on different interfaces fail to open the
    # port (EINVAL). Ranks have near pids: give their interfaces indexes far apart in XOR.
    for k, h in enumerate(HOSTS):
        sh(f"ip link add rpc-{h} index {0x5a00 + 0x1111 * k} type veth peer name rpc-{h}p")
        sh(f"ip link set rpc-{h}p master rpc-br")
    for i in ifaces():
        sh(f"sysctl -qw net.ipv6.conf.{i}.disable_ipv6=1", check=False)
        sh(f"ip link set {i} up")
    for k, h in enumerate(HOSTS):  # static entries: no flooding, no learning race
        sh(f"bridge fdb add 02:00:00:00:00:{k + 1:02x} dev rpc-{h}p master static")
    if tbf:
        sh("tc qdisc add dev rpc-rp root tbf rate 100mbit burst 32kb limit 64kb")


def kernel_drops():
    return check.kernel_drops(ifaces(), "rpc-rp")


def kernel_tx_packets():
    return sum(json.loads(sh(f"ip -s -j link show rpc-{h}"))[0]["stats64"]["tx"]["packets"] for h in HOSTS)


def profile(traffic, port_of=lambda k, h: f"net_af_packet{k},iface=rpc-{h}"):
    hosts = "\n".join(f'  - {{name: {h}, mac: "02:00:00:00:00:{k + 1:02x}", ipv4: 10.97.0.{k + 1}, '
                      f'port: "{port_of(k, h)}"}}' for k, h in enumerate(HOSTS))
    return f"""name: ranks-{CASE}
defaults: {{speed: 1G, opcode: write, message_size: 1024, mtu: 1024, dscp: 26, ecn: not-ect}}
hosts:
{hosts}
traffic:
{traffic}
"""


def said(p):
    """roceprobe's own lines (not the hugepage notice, not mpirun's banner)."""
    return [ln for ln in p.stderr.splitlines() if ln.startswith("roceprobe") and "hugepages" not in ln]


def mpirun(tmp, text, *args):
    path, out = os.path.join(tmp, "p.yaml"), os.path.join(tmp, "out")
    with open(path, "w") as f:
        f.write(text)
    p = subprocess.run([MPIRUN, "--allow-run-as-root", "--oversubscribe", "-np", "4", ROCEPROBE, "run", path,
                        "-o", out, *args], capture_output=True, text=True, timeout=180)
    return p, out


def case_incast(tmp):
    setup(tbf=True)
    before = kernel_drops()
    p, out = mpirun(tmp, profile("  - {name: incast, pattern: incast, senders: [s1, s2, s3], receiver: r, "
                                 "rate: 60M, duration: 1s}"))
    expect(p.returncode == 0, f"mpirun -np 4 roceprobe run: exit 0 ({p.returncode}: {said(p)})")
    if p.returncode != 0:
        return
    after = kernel_drops()
    j = json.load(open(os.path.join(out, "result.json")))
    drops = {k: v - before.get(k, 0) for k, v in after.items() if v - before.get(k, 0)}
    lost = sum(f["lost"] for f in j["flows"])
    sent = sum(f["tx_packets"] for f in j["flows"])
    got = sum(f["rx_packets"] for f in j["flows"])
    print(f"sent {sent}, received {got}, lost {lost}; kernel drops {drops}")
    expect(all(f["tx_packets"] > 0 for f in j["flows"]) and len(j["flows"]) == 3,
           "three flows, each with its sender's tx (from ranks 0, 1, 2)")
    expect(drops.get("tbf", 0) > 0, "the tbf overflowed: 180 Mbit/s into 100 Mbit/s")
    expect(lost == sum(drops.values()), f"merged per-flow lost {lost} == kernel drops {sum(drops.values())}")
    expect(sent == got + lost, "sent == received + lost")
    c = j.get("cluster", {})
    expect(c.get("size") == 4 and [r["hosts"] for r in c.get("ranks", [])] == [["s1"], ["s2"], ["s3"], ["r"]],
           f"cluster: 4 ranks, host i on rank i ({[r.get('hosts') for r in c.get('ranks', [])]})")
    expect(all(r["node"] == socket.gethostname() for r in c.get("ranks", [])), "every rank's node is this machine")
    expect(len(j["environment"]["ports"]) == 4, "environment.ports: every rank's port")


def case_all2all(tmp):
    setup(tbf=False)
    p, out = mpirun(tmp, profile("  - {name: a2a, pattern: all-to-all, hosts: [s1, s2, s3, r], rate: 20M, "
                                 "message_size: 64KiB, messages: 2}"), "--capture")
    expect(p.returncode == 0, f"mpirun -np 4 roceprobe run (all-to-all): exit 0 ({p.returncode}: {said(p)})")
    if p.returncode != 0:
        return
    j = json.load(open(os.path.join(out, "result.json")))
    pairs = {(f["src"], f["dst"]): f for f in j["flows"]}
    expect(len(pairs) == 12, f"12 ordered pairs accounted ({len(pairs)})")
    expect(all(f["rx_packets"] == f["tx_packets"] > 0 and f["lost"] == 0 for f in j["flows"]),
           "every pair: rx == tx, nothing lost")
    # From each receiver's own capture: who sent it data, when. The plan gives every receiver
    # one sender per phase (phase k: host i -> host i+k; 3 phases of L = 64 KiB at 20 Mbit/s =
    # 28.3 ms, see `roceprobe plan`). The ranks start at a common T0, so at receiver h the
    # frames of phase k arrive in [k*L, (k+1)*L) after its first frame, give or take how
    # late a sender on a shared CPU runs (frames spill over a window's edge): in every window
    # the planned sender must bring most of the frames (ranks started at random offsets
    # would put another sender first in about two windows of three).
    ips = {f"10.97.0.{k + 1}": h for k, h in enumerate(HOSTS)}
    L = 64 * (1098 + 24) * 8 / 20e6 * 1e9  # 64 frames of 1098 B + 24 B of layer 1 at 20 Mbit/s
    n = len(HOSTS)
    for k, h in enumerate(HOSTS):
        cap = read_pcap(os.path.join(out, f"capture-{h}.pcap"))
        frames = []
        for t, fr, _ in cap["recs"]:
            if len(fr) > 42 and fr[12:14] == b"\x08\x00" and fr[23] == 17 and fr[36:38] == b"\x12\xb7" \
                    and fr[42] not in (0x11, 0x12, 0x81):  # RoCE data (not ACK, atomic ACK, CNP)
                src = ips.get(".".join(str(b) for b in fr[26:30]))
                if src and src != h:
                    frames.append((t, src))
        t0 = frames[0][0] if frames else 0
        windows = {}
        for t, src in frames:
            windows.setdefault(int((t - t0) // L), {}).setdefault(src, 0)
            windows[int((t - t0) // L)][src] += 1
        # Windows 0..5 are the plan's (2 rounds x 3 phases); later frames are the last spilling over.
        wrong = {w: c for w, c in windows.items()
                 if w < 6 and max(c, key=c.get) != HOSTS[(k - (w % (n - 1) + 1)) % n]}
        expect(frames and len(windows) >= 6 and not wrong,
               f"{h}: in each of its {len(windows)} phase windows the planned sender sent most frames "
               f"(wrong: {wrong})")


def case_sigint(tmp):
    # Ctrl-C to mpirun 3 s into a 30 s incast: Open MPI sends every rank SIGTERM, and SIGKILL
    # odls_base_sigkill_timeout (default 1 s) later: given 10 s here, as docs/cluster.md says
    # to for runs whose result takes longer to write on a loaded machine. Each rank stops
    # sending, drains what is in flight once all have stopped, and rank 0 writes the merged
    # result, interrupted, with lost == the kernel's drops exactly.
    setup(tbf=True)
    before = kernel_drops()
    path, out = os.path.join(tmp, "p.yaml"), os.path.join(tmp, "out")
    with open(path, "w") as f:
        f.write(profile("  - {name: incast, pattern: incast, senders: [s1, s2, s3], receiver: r, "
                        "rate: 60M, duration: 30s}"))
    p = subprocess.Popen([MPIRUN, "--allow-run-as-root", "--oversubscribe", "--mca", "odls_base_sigkill_timeout",
                          "10", "-np", "4", ROCEPROBE, "run", path, "-o", out],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(3)
    p.send_signal(signal.SIGINT)
    try:
        _, err = p.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        p.kill()
        _, err = p.communicate()
    print("\n".join(ln for ln in err.splitlines() if "hugepages" not in ln)[-1500:])
    ok = os.path.exists(os.path.join(out, "result.json"))
    expect(ok, "rank 0 wrote result.json after Ctrl-C to mpirun")
    if not ok:
        return
    j = json.load(open(os.path.join(out, "result.json")))
    drops = {k: v - before.get(k, 0) for k, v in kernel_drops().items() if v - before.get(k, 0)}
    lost = sum(f["lost"] for f in j["flows"])
    expect(j["interrupted"] is True, "interrupted: true")
    expect(all(f["tx_packets"] > 0 for f in j["flows"]), "every sender's count is in it")
    expect(lost == sum(drops.values()), f"merged lost {lost} == kernel drops {sum(drops.values())} (drained)")
    expect(not [n for n in os.listdir(out) if ".tmp" in n], "no temporary file left")


def case_missing(tmp):
    setup(tbf=False)
    before = kernel_tx_packets()
    p, _ = mpirun(tmp, profile("  - {name: incast, pattern: incast, senders: [s1, s2, s3], receiver: r, "
                               "rate: 60M, duration: 1s}",
                               lambda k, h: f"net_af_packet{k},iface=rpc-none" if h == "s3" else
                               f"net_af_packet{k},iface=rpc-{h}"))
    ours = said(p)
    expect(p.returncode == 2 and len(ours) == 1 and "rank 2" in ours[0] and "s3" in ours[0]
           and socket.gethostname() in ours[0], f"exit 2, one line naming s3, rank 2 and its node ({ours})")
    sent = kernel_tx_packets() - before
    expect(sent == 0, f"no rank sent a frame ({sent})")


def case_template(tmp):
    # rank k [t{k}] rpt-t{k} 10.98.0.(k+1)/24 ~~ rpt-t{k}p --+-- bridge rpt-br (learns the MACs)
    teardown()
    sh("ip link add rpt-br type bridge")
    for k, h in enumerate(TEMPLATED):  # indexes far apart in XOR (see setup), not setup's own
        sh(f"ip link add rpt-{h} index {0x3c00 + 0x1111 * k} type veth peer name rpt-{h}p")
        sh(f"ip link set rpt-{h}p master rpt-br")
    for i in ["rpt-br"] + [f"rpt-{h}{e}" for h in TEMPLATED for e in ("", "p")]:
        sh(f"sysctl -qw net.ipv6.conf.{i}.disable_ipv6=1", check=False)
        sh(f"ip link set {i} up")
    # The kernel holds the addresses (what ipv4: netdev reads) but stays out of the way: no
    # ARP answers of its own, on the veths nor on the bridge (which would answer a port's
    # probe for any local address: a duplicate), and the RoCE frames to it land in a UDP
    # socket below instead of drawing ICMP port-unreachables onto the wire.
    sh("sysctl -qw net.ipv4.conf.rpt-br.arp_ignore=8")
    for k, h in enumerate(TEMPLATED):
        sh(f"sysctl -qw net.ipv4.conf.rpt-{h}.arp_ignore=8")
        sh(f"ip addr add 10.98.0.{k + 1}/24 dev rpt-{h}")
    sink = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sink.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sink.bind(("0.0.0.0", 4791))
    text = """name: ranks-template
defaults: {speed: 1G, opcode: write, message_size: 1024, mtu: 1024, dscp: 26, ecn: not-ect}
host_template:
  count: ranks
  name: "t{i}"
  port: "net_af_packet{i},iface=rpt-t{rank}"
  mac: auto
  ipv4: netdev
traffic:
  - {name: a2a, pattern: all-to-all, hosts: "t*", rate: 20M, message_size: 64KiB, messages: 2}
"""
    # The truth: what the kernel says about those veths.
    link = {h: json.loads(sh(f"ip -j link show rpt-{h}"))[0]["address"] for h in TEMPLATED}
    addr = {}
    for h in TEMPLATED:
        a = [x for x in json.loads(sh(f"ip -j addr show rpt-{h}"))[0]["addr_info"] if x["family"] == "inet"][0]
        addr[h] = (a["local"], a["prefixlen"])
    path = os.path.join(tmp, "p.yaml")
    with open(path, "w") as f:
        f.write(text)
    pl = subprocess.run([ROCEPROBE, "plan", path, "--ranks", "4", "--json"], capture_output=True, text=True)
    expect(pl.returncode == 0, f"plan --ranks 4: exit 0 ({pl.stderr.strip()})")
    if pl.returncode == 0:
        ph = json.loads(pl.stdout)["hosts"]
        expect([(h["name"], h["rank"], h["port"], h["mac"], h.get("ipv4")) for h in ph] ==
               [(f"t{k}", k, f"net_af_packet{k},iface=rpt-t{k}", None, None) for k in range(4)],
               f"plan: t0..t3 on ranks 0..3, ports rpt-t0..3, MAC and address left to their ranks ({ph})")
        txt = subprocess.run([ROCEPROBE, "plan", path, "--ranks", "4"], capture_output=True, text=True).stdout
        expect("(netdev, rank 2)" in txt and "(port's, rank 3)" in txt, "plan's text: read on rank R at start")
    nope = subprocess.run([ROCEPROBE, "plan", path, "--ranks", "4", "--set", "host_template.count=5"],
                          capture_output=True, text=True)
    expect(nope.returncode == 2 and len(nope.stderr.strip().splitlines()) == 1 and "5 hosts" in nope.stderr
           and "4 ranks" in nope.stderr, f"count 5 with 4 ranks: one line, exit 2 ({nope.stderr.strip()})")
    p, out = mpirun(tmp, text, "--capture")
    sink.close()
    expect(p.returncode == 0, f"mpirun -np 4 roceprobe run (template): exit 0 ({p.returncode}: {said(p)})")
    if p.returncode != 0:
        return
    j = json.load(open(os.path.join(out, "result.json")))
    pairs = {(f["src"], f["dst"]): f for f in j["flows"]}
    want = {(a, b) for a in TEMPLATED for b in TEMPLATED if a != b}
    expect(set(pairs) == want, f"every one of the 12 ordered pairs accounted ({sorted(pairs)})")
    expect(all(f["tx_packets"] == 128 and f["rx_packets"] == 128 and f["lost"] == 0 for f in j["flows"]),
           "every pair: 2 messages x 64 packets (64 KiB / 1024 B MTU) sent, all received, none lost "
           f"({[(f['src'], f['dst'], f['tx_packets'], f['rx_packets']) for f in j['flows']]})")
    hosts = {h["name"]: h for h in j.get("hosts", [])}
    for k, h in enumerate(TEMPLATED):
        got = hosts.get(h, {})
        expect(got.get("mac") == link[h] and got.get("mac_from") == "port",
               f"{h}: MAC {got.get('mac')} == ip link's {link[h]} (its port's own, read on rank {k})")
        expect((got.get("ipv4"), got.get("ipv4_prefix")) == addr[h] and got.get("ip_from") == "netdev",
               f"{h}: {got.get('ipv4')}/{got.get('ipv4_prefix')} == ip addr's {addr[h][0]}/{addr[h][1]}")
        expect(got.get("rank") == k, f"{h} ran on rank {k} ({got.get('rank')})")
        # Its port probes and announces the netdev's address (RFC 5227), from its capture:
        # ARP (0x0806) with the sender MAC (bytes 22..27) the veth's, target IP (38..41) its own.
        arps = [fr for _, fr, _ in read_pcap(os.path.join(out, f"capture-{h}.pcap"))["recs"]
                if fr[12:14] == b"\x08\x06" and fr[22:28].hex(":") == link[h]]
        mine = [".".join(str(b) for b in fr[38:42]) for fr in arps]
        expect(addr[h][0] in mine, f"{h}: its port sent ARP for its netdev address {addr[h][0]} ({mine})")
    c = j.get("cluster", {})
    expect([r["hosts"] for r in c.get("ranks", [])] == [[h] for h in TEMPLATED],
           f"cluster: t{{k}} on rank k ({[r.get('hosts') for r in c.get('ranks', [])]})")
    # t3's kernel address becomes t0's: only the exchange can see it (each rank reads its
    # own); every rank stops before any frame, rank 0 says which hosts, no DIR is made.
    sh("ip addr flush dev rpt-t3")
    sh("ip addr add 10.98.0.1/24 dev rpt-t3")
    before = sum(json.loads(sh(f"ip -s -j link show rpt-{h}"))[0]["stats64"]["tx"]["packets"] for h in TEMPLATED)
    dup = os.path.join(tmp, "dup")
    os.makedirs(dup)
    p, out = mpirun(dup, text)
    ours = said(p)
    sent = sum(json.loads(sh(f"ip -s -j link show rpt-{h}"))[0]["stats64"]["tx"]["packets"] for h in TEMPLATED) - before
    expect(p.returncode == 2 and len(ours) == 1 and "hosts 't0' (its netdev's) and 't3' (its netdev's) have the same "
           "IPv4 address 10.98.0.1" in ours[0], f"one address on two netdevs: exit 2, one line naming t0 and t3 ({ours})")
    expect(not os.path.exists(out), "no result directory")
    expect(sent == 0, f"no rank sent a frame ({sent})")


try:
    globals()["case_" + CASE](tempfile.mkdtemp(prefix="rpt-" if CASE == "template" else "rpc-"))
except (subprocess.CalledProcessError, FileNotFoundError) as e:
    teardown()
    print(f"skipped: cannot build the veth/bridge topology here ({e})")
    sys.exit(77)
finally:
    teardown()
finish(f"cluster-run-{CASE}")
