#!/usr/bin/python3
"""Routed RoCEv2 from DPDK ports through Linux routers nobody here wrote.

    one router (v4, v6, tbf, jumbo, bad input):

    [h1 DPDK af_packet] rp11-a0 ~~ rp11-a1 -- netns rp11-r1 -- rp11-b1 ~~ rp11-b0 [h2 DPDK af_packet]
         10.1.0.2/24 gw 10.1.0.1      10.1.0.1/24  ip_forward=1  10.2.0.1/24      10.2.0.2/24 gw 10.2.0.1
         fd00:1::2/64 gw fd00:1::1    fd00:1::1/64               fd00:2::1/64     fd00:2::2/64 gw fd00:2::1

    two routers in series (TTL 62; h2 with mac: auto, its veth's own MAC); the same with h1 and
    h2 on two MPI ranks (mpirun -np 2, each rank's port in the root namespace), each host
    behind its own router, each resolving its own router by ARP (and both behind the one
    router above: TTL 63):

    [h1] rp11-a0 ~~ rp11-a1 -- rp11-r1 -- rp11-c0 ~~ rp11-c1 -- rp11-r2 -- rp11-b1 ~~ rp11-b0 [h2]
                    10.1.0.1            10.9.0.1/30  10.9.0.2/30          10.2.0.1

    v6ll: the same with both hosts' gateway the router's link-local fe80::1 (added on rp11-a1
    and rp11-b1 beside the kernel's own), found by ND from the hosts' global addresses.

    next hop moves (one router, IPv4): mid-run `ip link set dev rp11-a1 address 02:aa:...`;
    the router says nothing about it (arp_notify 0), so h1 learns the new MAC only by
    asking again (an ARP request every 1 s, the default --neigh-refresh).

Both hosts run in ONE `roceprobe run` (two net_af_packet ports, root namespace); the
routers live in network namespaces with the veths' other ends. Nobody gives a MAC for a
next hop: roceprobe resolves the router by ARP/ND, the kernel resolves h1 and h2 by
ARP/ND (roceprobe answers). Known answers:
- every data frame at h2 has TTL (hop limit) 64 - routers, DSCP 26 and ECN ect0 as sent,
  source MAC the last router's, destination MAC h2's, and a valid ICRC (decode icrc_ok);
- 2000 packets sent on purpose, loss 0; the router's ForwDatagrams (Ip6OutForwDatagrams)
  went up by exactly 2000, and its interface counters equal roceprobe's data plus the
  ARP/ND frames roceprobe counted on the same wire;
- tbf 20 Mbit/s on the router's egress to h2 with 50 Mbit/s offered: per-flow lost ==
  the qdisc's dropped counter, exactly;
- mtu 4096 on veths with MTU 9000: 4170 B frames arrive whole (wire length 4170), ICRC valid;
- next hop moves: its flow follows (mac_changes 1, the new MAC in next_hops); the frames
  lost are exactly the ones the router's kernel dropped as not its own (rx_otherhost_dropped
  on rp11-a1, read over netlink), at most one refresh interval of them (bound worked below);
- bad input: one line, exit 2, nothing sent.

usage: router_check.py ROCEPROBE [CASE...]   (exit 77 = skipped: no netns/veth here; cases
v4 v6 v6ll two tbf jumbo xdp limits macmove macmove6 bad bad6 pmtu by default, mpi on request)
"""
import fcntl
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from check import expect, finish, sh, read_pcap  # noqa: E402

ROCEPROBE = sys.argv[1]
MPIRUN = shutil.which("mpirun")
NS = ["rp11-r1", "rp11-r2"]
ROOT_IFS = ["rp11-a0", "rp11-b0", "rp11-t0"]
PACKETS = 2000


def nsx(ns, cmd, check=True):
    return sh(f"ip netns exec {ns} {cmd}", check)


def teardown():
    for i in ROOT_IFS:
        sh(f"ip link del {i} 2>/dev/null", check=False)
    for ns in NS:
        sh(f"ip netns del {ns} 2>/dev/null", check=False)


def veth(a, b, ns_b, mtu, index=None):
    sh(f"ip link add {a}{f' index {index}' if index else ''} mtu {mtu} type veth peer name {b} mtu {mtu}")
    sh(f"ip link set {b} netns {ns_b}")


def setup(routers=1, v6=False, mtu=1500, far_indexes=False):
    """The drawing above; IPv6 off everywhere unless v6 (no stray ND/MLD in the IPv4 counts)."""
    teardown()
    for ns in NS[:routers]:
        sh(f"ip netns add {ns}")
        nsx(ns, "sysctl -qw net.ipv4.ip_forward=1")
        nsx(ns, "sysctl -qw net.ipv6.conf.all.forwarding=1")
        nsx(ns, "ip link set lo up")
    last = NS[routers - 1]
    # Two processes (ranks) on af_packet: DPDK 22.11 numbers its PACKET_FANOUT group
    # (getpid() ^ ifindex) & 0xffff, and near pids on near indexes can collide (EINVAL, see
    # tests/cluster/run_check.py, which takes 0x5a00 + 0x1111 k): root-side indexes far apart in XOR.
    veth("rp11-a0", "rp11-a1", NS[0], mtu, 0x3c00 if far_indexes else None)
    veth("rp11-b0", "rp11-b1", last, mtu, 0x4d11 if far_indexes else None)
    if routers == 2:
        sh(f"ip netns exec {NS[0]} ip link add rp11-c0 mtu {mtu} type veth peer name rp11-c1 mtu {mtu}")
        nsx(NS[0], f"ip link set rp11-c1 netns {NS[1]}")
    ifs = [(None, "rp11-a0"), (None, "rp11-b0"), (NS[0], "rp11-a1"), (last, "rp11-b1")]
    if routers == 2:
        ifs += [(NS[0], "rp11-c0"), (NS[1], "rp11-c1")]
    for ns, i in ifs:
        run = (lambda c: nsx(ns, c)) if ns else sh
        run(f"sysctl -qw net.ipv6.conf.{i}.disable_ipv6={0 if v6 else 1}")
        if v6 and ns is None:  # the DPDK side: no kernel ND/MLD/RS from the root namespace
            run(f"sysctl -qw net.ipv6.conf.{i}.disable_ipv6=1")
        if v6 and ns:
            run(f"sysctl -qw net.ipv6.conf.{i}.accept_dad=0")
        run(f"ip link set {i} up")
    nsx(NS[0], "ip addr add 10.1.0.1/24 dev rp11-a1")
    nsx(last, "ip addr add 10.2.0.1/24 dev rp11-b1")
    if v6:
        nsx(NS[0], "ip -6 addr add fd00:1::1/64 dev rp11-a1 nodad")
        nsx(last, "ip -6 addr add fd00:2::1/64 dev rp11-b1 nodad")
    if routers == 2:
        nsx(NS[0], "ip addr add 10.9.0.1/30 dev rp11-c0")
        nsx(NS[1], "ip addr add 10.9.0.2/30 dev rp11-c1")
        nsx(NS[0], "ip route add 10.2.0.0/24 via 10.9.0.2")
        nsx(NS[1], "ip route add 10.1.0.0/24 via 10.9.0.1")


def path_drops(last):
    """What the kernel dropped on the last hop: the router's egress veth (tx dropped: the
    receiver's backlog was full) and the receiver's end (rx dropped)."""
    b1 = json.loads(nsx(last, "ip -s -j link show rp11-b1"))[0]["stats64"]
    b0 = json.loads(sh("ip -s -j link show rp11-b0"))[0]["stats64"]
    return b1["tx"]["dropped"] + b1["rx"]["dropped"] + b0["rx"]["dropped"] + b0["tx"]["dropped"]


def link_stats(ns, i):
    st = json.loads(nsx(ns, f"ip -s -j link show {i}"))[0]["stats64"]
    return st["rx"]["packets"], st["tx"]["packets"]


# struct rtnl_link_stats64 (include/uapi/linux/if_link.h): rx_otherhost_dropped is its 25th
# u64 (Linux 5.19 on); iproute2 6.1 does not print it, so it is read over rtnetlink here.
OTHERHOST = r"""
import socket, struct, sys
idx = socket.if_nametoindex(sys.argv[1])
s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0)
s.bind((0, 0))
req = struct.pack("=BBHiII", 0, 0, 0, idx, 0, 0)
s.send(struct.pack("=IHHII", 16 + len(req), 18, 1, 1, 0) + req)  # RTM_GETLINK, NLM_F_REQUEST
msg = s.recv(65536)
off = 16 + 16
while off + 4 <= len(msg):
    alen, atype = struct.unpack_from("=HH", msg, off)
    if atype == 23 and alen - 4 >= 25 * 8:  # IFLA_STATS64
        print(struct.unpack_from("=25Q", msg, off + 4)[24])
        sys.exit(0)
    off += (alen + 3) & ~3
sys.exit("no IFLA_STATS64 with rx_otherhost_dropped")
"""


def otherhost_dropped(ns, i):
    return int(nsx(ns, f"/usr/bin/python3 -c '{OTHERHOST}' {i}"))


def snmp(ns, v6):
    if v6:
        t = nsx(ns, "cat /proc/net/snmp6")
        return {k: int(v) for k, v in re.findall(r"^(\S+)\s+(\d+)$", t, re.M)}
    lines = [ln.split() for ln in nsx(ns, "cat /proc/net/snmp").splitlines() if ln.startswith("Ip:")]
    return dict(zip(lines[0][1:], (int(x) for x in lines[1][1:])))


def profile(v6=False, mtu=1024, rate="50M", extra_h1="", h1_addr=None, h1_gw=None, packets=PACKETS, h2_mac="02:00:00:00:00:02",
            h1_port="net_af_packet0,iface=rp11-a0", h2_gw=None):
    a1 = h1_addr or ("fd00:1::2/64" if v6 else "10.1.0.2/24")
    g1 = h1_gw or ("fd00:1::1" if v6 else "10.1.0.1")
    fam = "ipv6" if v6 else "ipv4"
    a2, g2 = ("fd00:2::2/64", "fd00:2::1") if v6 else ("10.2.0.2/24", "10.2.0.1")
    g2 = h2_gw or g2
    return f"""name: routed
defaults: {{speed: 1G, opcode: write, message_size: {mtu}, mtu: {mtu}, dscp: 26, ecn: ect0}}
hosts:
  - {{name: h1, mac: "02:00:00:00:00:01", {fam}: {a1}, gateway: {g1}, port: "{h1_port}"{extra_h1}}}
  - {{name: h2, mac: {'auto' if h2_mac == 'auto' else '"' + h2_mac + '"'}, {fam}: {a2}, gateway: {g2}, port: "net_af_packet1,iface=rp11-b0"}}
traffic:
  - {{name: f, pattern: flow, src: h1, dst: h2, rate: {rate}, packets: {packets}}}
"""


def run(tmp, text, name, snaplen=128, extra=(), ranks=0):
    path = os.path.join(tmp, f"{name}.yaml")
    with open(path, "w") as f:
        f.write(text)
    out = os.path.join(tmp, name)
    launch = [MPIRUN, "--allow-run-as-root", "--oversubscribe", "-np", str(ranks)] if ranks else []
    p = subprocess.run([*launch, ROCEPROBE, "run", path, "-o", out, "--capture", "--snaplen", str(snaplen), *extra],
                       capture_output=True, text=True, timeout=120)
    return p, out


def decode(path):
    p = subprocess.run([ROCEPROBE, "decode", "--json", path], capture_output=True, text=True, check=True)
    return [json.loads(ln) for ln in p.stdout.splitlines() if ln.strip()]


def port(j, node):
    return next(x for x in j["environment"]["ports"] if x["node"] == node)


def check_routed(tmp, name, routers, v6, mtu=1024, vethmtu=1500, h2_auto=False, h1_port="net_af_packet0,iface=rp11-a0",
                 ranks=0, gw=None):
    setup(routers, v6, vethmtu, far_indexes=ranks > 0)
    if gw:  # the routers' next hop address: link-local fe80::1 on both links, as routers advertise
        nsx(NS[0], f"ip -6 addr add {gw}/64 dev rp11-a1 nodad")
        nsx(NS[routers - 1], f"ip -6 addr add {gw}/64 dev rp11-b1 nodad")
    fam = "IPv6" if v6 else "IPv4"
    last = NS[routers - 1]
    if v6:
        wait_quiet(last, "rp11-b1")
    before = {ns: snmp(ns, v6) for ns in NS[:routers]}
    lb = {i: link_stats(ns, i) for ns, i in ((NS[0], "rp11-a1"), (last, "rp11-b1"))}
    d0 = path_drops(last)
    p, out = run(tmp, profile(v6, mtu, h2_mac="auto" if h2_auto else "02:00:00:00:00:02",
                              h1_port=h1_port, h1_gw=gw, h2_gw=gw),
                 name, snaplen=mtu + 200, ranks=ranks)
    err = "" if p.returncode == 0 else f": {p.stderr.strip()[-300:]}"
    if not expect(p.returncode == 0, f"{name}: run exits 0 ({p.returncode}{err})"):
        return
    after = {ns: snmp(ns, v6) for ns in NS[:routers]}
    la = {i: link_stats(ns, i) for ns, i in ((NS[0], "rp11-a1"), (last, "rp11-b1"))}
    j = json.load(open(os.path.join(out, "result.json")))
    f = j["flows"][0]
    if ranks:
        c = j.get("cluster", {})
        expect(c.get("size") == ranks and [r["hosts"] for r in c.get("ranks", [])] == [["h1"], ["h2"]],
               f"{name}: {ranks} ranks, h1 on rank 0 and h2 on rank 1 ({[r.get('hosts') for r in c.get('ranks', [])]})")
    expect(f["misdelivered"] == 0, f"{name}: routed frames (router's source MAC, h2's destination MAC) count at h2, "
           f"misdelivered {f['misdelivered']} == 0")
    drops = path_drops(last) - d0
    if drops:  # a receiver the loaded machine left waiting: the veth's backlog overflowed
        print(f"{name}: the kernel dropped {drops} on the last hop (rp11-b1/rp11-b0 dropped counters)")
    expect(f["tx_packets"] == PACKETS and f["rx_packets"] == PACKETS - drops and f["lost"] == drops,
           f"{name}: {PACKETS} sent, {PACKETS - drops} received, lost {drops} == the kernel's drops on the last "
           f"hop (tx {f['tx_packets']} rx {f['rx_packets']} lost {f['lost']})")
    key = "Ip6OutForwDatagrams" if v6 else "ForwDatagrams"
    for ns in NS[:routers]:
        fwd = after[ns][key] - before[ns][key]
        expect(fwd == PACKETS, f"{name}: {ns} {key} +{fwd} == {PACKETS} sent")
    if v6:
        rcv = after[NS[0]]["Ip6InReceives"] - before[NS[0]]["Ip6InReceives"]
        nd_in = sum(port(j, h)["neigh"]["nd_solicits_tx"] + port(j, h)["neigh"]["nd_adverts_tx"] for h in ("h1", "h2"))
        # Ip6InReceives (all the router's interfaces): the data, plus every ND frame h1
        # and h2 sent it (DAD NS, NS for the gateway, unsolicited NA, answers).
        expect(rcv == PACKETS + nd_in, f"{name}: {NS[0]} Ip6InReceives +{rcv} == {PACKETS} data + {nd_in} ND "
               "frames from h1 and h2")
    h1, h2 = port(j, "h1"), port(j, "h2")
    n1, n2 = h1["neigh"], h2["neigh"]
    neigh_tx1 = n1["arp_requests_tx"] + n1["arp_replies_tx"] + n1["nd_solicits_tx"] + n1["nd_adverts_tx"]
    rx_a1 = la["rp11-a1"][0] - lb["rp11-a1"][0]
    expect(rx_a1 == h1["tx_packets"] + neigh_tx1,
           f"{name}: router rx on rp11-a1 {rx_a1} == h1's {h1['tx_packets']} data + {neigh_tx1} {fam} ARP/ND frames")
    neigh_rx2 = n2["arp_requests_rx"] + n2["arp_replies_rx"] + n2["nd_solicits_rx"] + n2["nd_adverts_rx"]
    tx_b1 = la["rp11-b1"][1] - lb["rp11-b1"][1]
    if not v6:
        expect(tx_b1 == f["rx_packets"] + neigh_rx2,
               f"{name}: router tx on rp11-b1 {tx_b1} == h2's {f['rx_packets']} data + {neigh_rx2} ARP frames")
    # Every frame the router sent h2 (IPv6: data, ND and its MLD reports) is in h2's capture,
    # as the frames from the router's MAC (the kernel's, read from the interface).
    capst = next(c for c in j["capture"] if c["node"] == "h2")
    rmac = json.loads(nsx(last, "ip -j link show rp11-b1"))[0]["address"]
    got = [b for _, b, _ in read_pcap(os.path.join(out, "capture-h2.pcap"))["recs"] if b[6:12].hex(":") == rmac]
    expect(capst["dropped"] == 0 and len(got) == tx_b1,
           f"{name}: router tx on rp11-b1 {tx_b1} == {len(got)} frames h2 captured from it (writer dropped "
           f"{capst['dropped']})")
    expect(n2["arp_replies_tx" if not v6 else "nd_adverts_tx"] >= 1,
           f"{name}: h2 answered the router's {'ARP' if not v6 else 'NS'} "
           f"({n2['arp_replies_tx'] if not v6 else n2['nd_adverts_tx']} answers)")
    expect((n1["arp_replies_rx"] if not v6 else n1["nd_adverts_rx"]) >= 1, f"{name}: h1 got the router's answer")
    recs = decode(os.path.join(out, "capture-h2.pcap"))
    data = [r for r in recs if r.get("kind") == "roce" and r.get("dst") == ("fd00:2::2" if v6 else "10.2.0.2")]
    want_ttl = 64 - routers
    ttl_key = "hop_limit" if v6 else "ttl"
    expect(len(data) == PACKETS - drops, f"{name}: h2's capture holds {len(data)} data frames == {PACKETS - drops}")
    expect(all(r.get("icrc_ok") is True for r in data), f"{name}: icrc_ok on every routed frame")
    ttls = sorted({r.get(ttl_key) for r in data})
    expect(ttls == [want_ttl], f"{name}: {ttl_key} {ttls} == [{want_ttl}]")
    expect({(r.get("dscp"), r.get("ecn")) for r in data} == {(26, 2)},  # decode: ecn 2 = ECT(0)
           f"{name}: DSCP 26 and ECN ect0 as sent ({sorted({(r.get('dscp'), r.get('ecn')) for r in data})})")
    # UDP to h2's address (a shared machine's other tests put frames of their own on veths)
    h2ip = bytes.fromhex("fd000002" + "00" * 11 + "02") if v6 else bytes([10, 2, 0, 2])
    udp = (lambda b: b[12:14] == b"\x86\xdd" and b[20] == 17 and b[38:54] == h2ip) if v6 else \
        (lambda b: b[12:14] == b"\x08\x00" and b[23] == 17 and b[30:34] == h2ip)
    frames = [b for _, b, _ in read_pcap(os.path.join(out, "capture-h2.pcap"))["recs"] if udp(b)]
    macs = {(b[6:12].hex(":"), b[0:6].hex(":")) for b in frames}
    # mac: auto: h2's MAC is its port's own, the veth's (net_af_packet reads it from the interface)
    h2mac = json.loads(sh("ip -j link show rp11-b0"))[0]["address"] if h2_auto else "02:00:00:00:00:02"
    expect(len(frames) == PACKETS - drops and macs == {(rmac, h2mac)},
           f"{name}: {len(frames)} data frames from the router's MAC {rmac} to h2's {h2mac} ({macs})")
    if mtu > 1024:  # RDMA WRITE Only: 14 + 20 + 8 + 12 BTH + 16 RETH + mtu + 4 ICRC
        lens = sorted({r.get("len") for r in data})
        expect(lens == [mtu + 74], f"{name}: frames of {lens} B == [{mtu + 74}] arrive whole")
    arp = [r for r in recs if r.get("kind") not in ("roce",)]
    expect(len(arp) >= 1, f"{name}: the capture keeps the ARP/ND frames ({len(arp)} non-RoCE frames)")


def wait_quiet(ns, i, secs=2.0, most=6.0):
    """The router's own MLD reports after its interfaces come up: let them pass first."""
    quiet_since, last_tx, t0 = time.monotonic(), None, time.monotonic()
    while time.monotonic() - t0 < most:
        tx = link_stats(ns, i)[1]
        if tx != last_tx:
            quiet_since, last_tx = time.monotonic(), tx
        elif time.monotonic() - quiet_since > secs:
            break
        time.sleep(0.2)


def check_mac_move(tmp, v6):
    """The router's MAC on h1's link changes while the flow runs.

    IPv4: rate 8.976 Mbit/s of 1098 B frames (RDMA WRITE Only: 14 eth + 20 IPv4 + 8 UDP + 12
    BTH + 16 RETH + 1024 payload + 4 ICRC), each taking (1098 + 24) * 8 = 8976 bits of the
    layer-1 rate: exactly 1000 frames/s, 6000 frames in 6 s. IPv6: 40 B of IP header, 1118 B
    frames, (1118 + 24) * 8 = 9136 bits: 9.136 Mbit/s is 1000 frames/s. h1 asks the router
    again every 1 s (ARP request / NS); after the change its frames go to the old MAC, which
    the router drops as not its own, until the answer to the next ask arrives: at most 1 s of
    frames, 1000, plus the time the answer takes (well under a ms on a veth; 0.2 s, 200
    frames, allowed for a loaded machine): lost <= 1200.
    """
    name = "mac-move6" if v6 else "mac-move"
    setup(1, v6)
    # Nothing of the router's own on the change: no gratuitous ARP, no unsolicited NA; and no
    # NUD probe of its own for h1 within the test (an entry used goes DELAY for 60 s, not 5:
    # the probes would otherwise come after h1's port closed, sent but never seen).
    nsx(NS[0], "sysctl -qw net.ipv4.conf.rp11-a1.arp_notify=0")
    nsx(NS[0], "sysctl -qw net.ipv4.neigh.rp11-a1.delay_first_probe_time=60")
    if v6:
        nsx(NS[0], "sysctl -qw net.ipv6.conf.rp11-a1.ndisc_notify=0")
        nsx(NS[0], "sysctl -qw net.ipv6.neigh.rp11-a1.delay_first_probe_time=60")
        wait_quiet(NS[0], "rp11-a1")
    old = json.loads(nsx(NS[0], "ip -j link show rp11-a1"))[0]["address"]
    new = "02:aa:00:00:0a:01"
    text = profile(v6=v6, rate="9.136M" if v6 else "8.976M", packets=6000)
    path = os.path.join(tmp, f"{name}.yaml")
    with open(path, "w") as f:
        f.write(text)
    out = os.path.join(tmp, name)
    before = snmp(NS[0], v6)
    oh0 = otherhost_dropped(NS[0], "rp11-a1")
    lb = {i: link_stats(NS[0], i) for i in ("rp11-a1", "rp11-b1")}
    p = subprocess.Popen([ROCEPROBE, "run", path, "-o", out, "--capture"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    moved = False
    t0 = time.monotonic()
    while p.poll() is None and time.monotonic() - t0 < 30:
        if link_stats(NS[0], "rp11-a1")[0] - lb["rp11-a1"][0] >= 2000:  # 2 s into the flow
            nsx(NS[0], f"ip link set dev rp11-a1 address {new}")
            moved = True
            break
        time.sleep(0.05)
    try:
        stdout, stderr = p.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        p.kill()
        stdout, stderr = p.communicate()
    err = "" if p.returncode == 0 else f": {stderr.strip()[-300:]}"
    if not expect(moved and p.returncode == 0, f"{name}: MAC changed mid-run ({moved}), run exits 0 "
                  f"({p.returncode}{err})"):
        return
    after = snmp(NS[0], v6)
    oh = otherhost_dropped(NS[0], "rp11-a1") - oh0
    la = {i: link_stats(NS[0], i) for i in ("rp11-a1", "rp11-b1")}
    j = json.load(open(os.path.join(out, "result.json")))
    f = j["flows"][0]
    n1 = port(j, "h1")["neigh"]
    hops = n1["next_hops"]
    gw = "fd00:1::1" if v6 else "10.1.0.1"
    print(f"{name}: sent {f['tx_packets']}, received {f['rx_packets']}, lost {f['lost']}, router dropped "
          f"{oh} as otherhost; h1 asked again {n1['refresh_tx']} times; next hops {hops}")
    expect(f["tx_packets"] == 6000, f"{name}: 6000 sent ({f['tx_packets']})")
    expect(n1["mac_changes"] == 1 and len(hops) == 1 and hops[0]["address"] == gw and
           hops[0]["resolved_mac"] == old and hops[0]["mac"] == new,
           f"{name}: h1's next hop {gw} moved once, {old} -> {new} ({n1['mac_changes']}, {hops})")
    expect(n1["refresh_tx"] >= 4, f"{name}: h1 asked again about once a second over 6 s ({n1['refresh_tx']} >= 4)")
    expect(f["lost"] == oh, f"{name}: lost {f['lost']} == the router's rx_otherhost_dropped on rp11-a1 {oh}")
    expect(f["lost"] <= 1200, f"{name}: lost {f['lost']} <= 1200 (one 1 s refresh at 1000 frames/s + 0.2 s)")
    key = "Ip6OutForwDatagrams" if v6 else "ForwDatagrams"
    fwd = after[key] - before[key]
    expect(fwd == f["rx_packets"] and f["tx_packets"] == f["rx_packets"] + f["lost"],
           f"{name}: router {key} +{fwd} == received {f['rx_packets']} == sent - lost")
    neigh_tx1 = n1["arp_requests_tx"] + n1["arp_replies_tx"] + n1["nd_solicits_tx"] + n1["nd_adverts_tx"]
    rx_a1 = la["rp11-a1"][0] - lb["rp11-a1"][0]
    expect(rx_a1 == f["tx_packets"] + neigh_tx1,
           f"{name}: router rx on rp11-a1 {rx_a1} == h1's {f['tx_packets']} data + {neigh_tx1} ARP/ND frames")
    # What the router sent h1 (the kernel's tx count) is in h1's capture as the frames from
    # either of its MACs; the ARP/ND ones are what h1 counted, answers to its asks only; IPv6
    # may add MLD reports.
    tx_a1 = la["rp11-a1"][1] - lb["rp11-a1"][1]
    answers = n1["nd_adverts_rx"] if v6 else n1["arp_replies_rx"]
    asks = n1["nd_solicits_rx"] if v6 else n1["arp_requests_rx"]
    fr = [b for _, b, _ in read_pcap(os.path.join(out, "capture-h1.pcap"))["recs"] if b[6:12].hex(":") in (old, new)]
    nd = [b for b in fr if b[12:14] == b"\x08\x06" or
          (b[12:14] == b"\x86\xdd" and len(b) > 54 and b[20] == 58 and 133 <= b[54] <= 137)]
    other = sorted({(b[12:14].hex(), b[54] if len(b) > 54 and b[20] == 58 else None) for b in fr if b not in nd})
    expect(len(fr) == tx_a1, f"{name}: router tx on rp11-a1 {tx_a1} == {len(fr)} frames from its MACs in h1's capture")
    expect(len(nd) == answers and asks == 0, f"{name}: of them ARP/ND {len(nd)} == the {answers} answers h1 counted, "
           f"and {asks} requests of the router's own == 0 (the rest: {other})")
    expect(all(e == "86dd" and t in (130, 131, 132, 143) for e, t in other),
           f"{name}: the router sent h1 nothing else but MLD ({other})")
    # h1 learnt the new MAC from the answer to a refresh: those are asked at whole seconds of
    # its packet clock (1 s, 2 s, ...) and a veth answers within a millisecond; 300 ms allowed
    # (a machine at load 8 ran the housekeeping pass 202 ms late once; a quiet one, < 5 ms).
    ch = hops[0]["last_change_ns"] if hops else 0
    expect(ch >= 1e9 and ch % 1_000_000_000 < 300_000_000,
           f"{name}: the move came with the answer to a refresh (at {ch / 1e9:.6f} s, within 300 ms after a whole second)")
    line = [ln for ln in stdout.splitlines() if ln.startswith(f"next hop {gw} of h1:")]
    expect(len(line) == 1 and f"{old} -> {new} (1 change" in line[0], f"{name}: the summary says so: {line}")


def check_pmtu(tmp):
    """The router's far veth (rp11-b1) at MTU 1500, everything else at 9000, the profile at mtu 4096:
    4170 B frames (14 + 20 + 8 + 12 BTH + 16 RETH + 4096 + 4 ICRC) both ways.

    h1 -> h2: the router takes them on rp11-a1 and cannot forward them (DF): it answers each with
    ICMP fragmentation needed, next-hop MTU 1500, which h1's capture holds (tshark counts them) and
    h1's port counts (icmp_too_big); the finding names the RoCE MTU to use: an IPv4 WRITE ONLY's
    headers and ICRC are 20 + 8 + 12 + 16 + 4 = 60 B, 60 + 1024 = 1084 <= 1500 < 60 + 2048 = 2108,
    so mtu: 1024.
    h2 -> h1: net_af_packet counts them sent, but rp11-b0's peer (MTU 1500) refuses them: the
    kernel's netdev sends only h2's ARP frames and counts drops; the frames after a drop stay in
    af_packet's ring. What the kernel counts (ip -s link) is in result.json, and the finding says
    the 200 data frames never left.
    """
    setup(1, False, 9000)
    nsx(NS[0], "ip link set rp11-b1 mtu 1500")
    st = lambda ns, i: json.loads(nsx(ns, f"ip -s -j link show {i}") if ns else sh(f"ip -s -j link show {i}"))[0]["stats64"]
    b0, b1, icmp0 = st(None, "rp11-b0"), st(NS[0], "rp11-b1"), snmp_icmp(NS[0])
    n = 200
    text = profile(mtu=4096, packets=n) + f"  - {{name: g, pattern: flow, src: h2, dst: h1, rate: 50M, packets: {n}}}\n"
    p, out = run(tmp, text, "pmtu", snaplen=256)
    if not expect(p.returncode == 0, f"pmtu: run exits 0 ({p.returncode}: {p.stderr.strip()[-300:]})"):
        return
    b0a, b1a, icmp = st(None, "rp11-b0"), st(NS[0], "rp11-b1"), snmp_icmp(NS[0])
    j = json.load(open(os.path.join(out, "result.json")))
    h1, h2 = port(j, "h1"), port(j, "h2")
    f, g = j["flows"]
    findings = j.get("findings", [])
    # h1: the router's ICMP, three ways: its own count, tshark's, roceprobe's
    t = subprocess.run(["tshark", "-r", os.path.join(out, "capture-h1.pcap"), "-Y", "icmp.type == 3 && icmp.code == 4",
                        "-T", "fields", "-e", "icmp.mtu"], capture_output=True, text=True)
    mtus = t.stdout.split()
    sent = icmp["OutDestUnreachs"] - icmp0["OutDestUnreachs"]
    print(f"pmtu: router sent {sent} destination unreachable, tshark finds {len(mtus)} fragmentation needed "
          f"(MTU {sorted(set(mtus))}) in h1's capture; h1 counted {h1.get('icmp_too_big')}")
    expect(len(mtus) == sent > 0 and set(mtus) == {"1500"},
           f"pmtu: tshark's {len(mtus)} ICMP fragmentation-needed frames in h1's capture == the router's "
           f"OutDestUnreachs +{sent}, all MTU 1500 ({sorted(set(mtus))})")
    expect(h1.get("icmp_too_big") == {"frames": len(mtus), "mtu": 1500},
           f"pmtu: h1's icmp_too_big {h1.get('icmp_too_big')} == {{frames: {len(mtus)}, mtu: 1500}}")
    expect(any("port h1:" in x and "path MTU 1500 below the frames (4170 B): set mtu: 1024" in x for x in findings),
           f"pmtu: a finding says 'path MTU 1500 below the frames (4170 B): set mtu: 1024' ({findings})")
    summary = open(os.path.join(out, "summary.txt")).read()
    expect("FINDING: port h1:" in summary and "set mtu: 1024" in summary, "pmtu: summary.txt says so too")
    # h2: what its netdev sent and dropped, as ip -s link counts it
    ktx, kdrop = b0a["tx"]["packets"] - b0["tx"]["packets"], b0a["tx"]["dropped"] - b0["tx"]["dropped"]
    peer_drop = b1a["rx"]["dropped"] - b1["rx"]["dropped"]
    nd = h2["neigh"]
    arp = nd["arp_requests_tx"] + nd["arp_replies_tx"]
    print(f"pmtu: rp11-b0 tx {ktx} dropped {kdrop}, rp11-b1 rx_dropped {peer_drop}; h2 {h2.get('netdev')}, "
          f"flow g tx {g['tx_packets']} unsent {g.get('tx_unsent')} lost {g['lost']}")
    expect(h2.get("netdev") == {"name": "rp11-b0", "tx_packets": ktx, "tx_dropped": kdrop, "tx_errors": 0},
           f"pmtu: h2's netdev counters {h2.get('netdev')} == ip -s link's rp11-b0 tx {ktx}, dropped {kdrop}")
    expect(ktx == arp and 0 < kdrop == peer_drop <= n,
           f"pmtu: rp11-b0 sent only h2's {arp} ARP frames ({ktx}) and dropped {kdrop} == its peer's rx_dropped "
           f"{peer_drop}, at most the {n} data frames")
    expect(any("port h2:" in x and "rp11-b0" in x and f"{n} never left" in x for x in findings),
           f"pmtu: a finding says h2's {n} data frames never left rp11-b0 ({findings})")
    # The PMD said sent: the flows count them so, and lost (none arrived).
    expect(f["tx_packets"] == n and f["lost"] == n and g["tx_packets"] == n and g["lost"] == n and
           f["tx_unsent"] == 0 and g["tx_unsent"] == 0,
           f"pmtu: both flows tx {n} (as the PMD said), lost {n}, tx_unsent 0 ({f['tx_packets']}/{f['lost']}/"
           f"{f.get('tx_unsent')}, {g['tx_packets']}/{g['lost']}/{g.get('tx_unsent')})")


def snmp_icmp(ns):
    lines = [ln.split() for ln in nsx(ns, "cat /proc/net/snmp").splitlines() if ln.startswith("Icmp:")]
    return dict(zip(lines[0][1:], (int(x) for x in lines[1][1:])))


def check_limits(tmp):
    """PMDs that cannot carry the profile's frames: one line saying what to change, exit 2,
    nothing sent. net_tap (DPDK 22.11) sends nothing longer than its ethdev MTU + 22 B and
    ethdev caps that MTU at 1504; net_af_xdp puts a frame in one 4 KiB UMEM page."""
    setup(1, False, 9000)
    lb = link_stats(NS[0], "rp11-a1")
    p, out = run(tmp, profile(mtu=4096, h1_port="net_af_xdp0,iface=rp11-a0"), "xdp-4096")
    one_line_exit2(p, "af_xdp mtu 4096", r"host 'h1': port net_af_xdp0 takes frames up to \d+ B: net_af_xdp puts a "
                   r"frame in one UMEM page .*: set mtu: 2048 \(frames of 2122 B\), or use net_af_packet")
    expect(link_stats(NS[0], "rp11-a1")[0] == lb[0], "af_xdp mtu 4096: nothing sent (the router saw no frame)")
    expect(not os.path.exists(os.path.join(out, "result.json")), "af_xdp mtu 4096: no result written")
    p, out = run(tmp, profile(mtu=4096, h1_port="net_tap0,iface=rp11-t0"), "tap-4096")
    one_line_exit2(p, "tap mtu 4096", r"host 'h1': port net_tap0 takes frames up to 1518 B: net_tap sends nothing "
                   r"longer than its ethdev MTU \+ 22 B.*: set mtu: 1024 \(frames of 1098 B\), or use net_af_packet")
    expect(not os.path.exists(os.path.join(out, "result.json")), "tap mtu 4096: no result written")


def check_ranks_no_arp(tmp):
    """Two ranks, h1's gateway answers nobody: every rank stops before traffic, one line."""
    setup(2, False, far_indexes=True)
    lb = link_stats(NS[1], "rp11-b1")
    la0 = link_stats(NS[0], "rp11-a1")
    p, out = run(tmp, profile(h1_gw="10.1.0.99"), "ranks-no-arp", ranks=2)
    lines = [ln for ln in p.stderr.splitlines() if ln.startswith("roceprobe") and "hugepages" not in ln]
    expect(p.returncode == 2 and len(lines) == 1 and re.search(r"host 'h1'.*no answer to ARP for 10\.1\.0\.99 "
                                                              r"\(its gateway\) on port net_af_packet0", lines[0]),
           f"two ranks, no ARP answer for h1's gateway: exit 2 ({p.returncode}), one line ({lines})")
    la = link_stats(NS[1], "rp11-b1")
    # h2's rank sent only its probe and gratuitous ARP (2 frames) and no data
    expect(la[0] - lb[0] == 2, f"two ranks, no ARP answer: h2 sent {la[0] - lb[0]} frames == 2 (probe, "
           "gratuitous ARP), no data")
    a1 = link_stats(NS[0], "rp11-a1")[0] - la0[0]
    expect(a1 == 5, f"two ranks, no ARP answer: h1 sent {a1} frames == 5 (probe, gratuitous ARP, 3 requests), no data")
    expect(not os.path.exists(os.path.join(out, "result.json")), "two ranks, no ARP answer: no result written")


def check_tbf(tmp):
    setup(1, False)
    nsx(NS[0], "tc qdisc add dev rp11-b1 root tbf rate 20mbit burst 16kb limit 32kb")
    # --capture-filter control: ARP is control, kept; the data is not.
    p, out = run(tmp, profile(rate="50M", packets=6000), "tbf", extra=("--capture-filter", "control"))
    if not expect(p.returncode == 0, f"tbf: run exits 0 ({p.stderr.strip()[-300:]})"):
        return
    q = nsx(NS[0], "tc -s qdisc show dev rp11-b1")
    drops = sum(int(x) for x in re.findall(r"dropped (\d+)", q))
    f = json.load(open(os.path.join(out, "result.json")))["flows"][0]
    print(f"tbf: sent {f['tx_packets']}, received {f['rx_packets']}, lost {f['lost']}, tbf dropped {drops}")
    expect(drops > 0, "tbf: the bottleneck dropped (50 Mbit/s into 20 Mbit/s)")
    expect(f["lost"] == drops, f"tbf: per-flow lost {f['lost']} == tbf dropped {drops}")
    expect(f["tx_packets"] == f["rx_packets"] + f["lost"], "tbf: sent == received + lost")
    recs = read_pcap(os.path.join(out, "capture-h2.pcap"))["recs"]
    arp = [b for _, b, _ in recs if b[12:14] == b"\x08\x06"]
    # h2's probe and gratuitous ARP, the router's request and h2's reply
    expect(len(arp) == 4 and len(recs) == 4, f"tbf: --capture-filter control kept h2's {len(arp)} ARP frames == 4 "
           f"and nothing else ({len(recs)} frames)")


def one_line_exit2(p, what, pattern):
    lines = [ln for ln in p.stderr.splitlines() if "roceprobe run:" in ln and "hugepages" not in ln]
    expect(p.returncode == 2, f"{what}: exit 2 ({p.returncode})")
    expect(len(lines) == 1 and re.search(pattern, lines[0]) is not None, f"{what}: one line: {lines}")


def check_bad6(tmp):
    setup(1, True)
    rmac = json.loads(nsx(NS[0], "ip -j link show rp11-a1"))[0]["address"]
    # h1 takes the router's own IPv6 address: the router answers h1's DAD solicitation.
    p, _ = run(tmp, profile(v6=True, h1_addr="fd00:1::1/64", h1_gw="fd00:1::fe"), "dup6")
    one_line_exit2(p, "duplicate IPv6 address", rf"host 'h1': its address fd00:1::1 is also held by {rmac}, which "
                   r"answered Neighbour Discovery on port net_af_packet0")
    p, _ = run(tmp, profile(v6=True, h1_gw="fd00:1::99"), "no-nd")
    one_line_exit2(p, "no answer to NS", r"host 'h1': no answer to Neighbour Solicitation for fd00:1::99 \(its gateway\) "
                   r"on port net_af_packet0 within 1000 ms \(3 tries\)")


def check_bad(tmp):
    setup(1, False)
    # A gateway outside the host's subnet: a profile error (lib/profile).
    p, _ = run(tmp, profile(h1_gw="10.3.0.1"), "bad-gw")
    one_line_exit2(p, "gateway outside the subnet", r"key 'hosts\[0\]\.gateway': 10\.3\.0\.1: expected one IPv4 next hop "
                   r"inside the host's subnet 10\.1\.0\.2/24")
    # A gateway nobody has: 3 ARP requests in 1 s, then one line; nothing sent.
    lb = link_stats(NS[0], "rp11-a1")
    t0 = time.monotonic()
    p, out = run(tmp, profile(h1_gw="10.1.0.99"), "no-arp")
    took = time.monotonic() - t0
    one_line_exit2(p, "no answer to ARP", r"host 'h1': no answer to ARP for 10\.1\.0\.99 \(its gateway\) on port "
                   r"net_af_packet0 within 1000 ms \(3 tries\)")
    expect(1.0 <= took < 10.0, f"no answer to ARP: given up after the 1 s timeout, not hung ({took:.2f} s with EAL "
           "start-up on a loaded machine)")
    la = link_stats(NS[0], "rp11-a1")
    # probe + gratuitous ARP + 3 requests, and no data
    expect(la[0] - lb[0] == 5, f"no answer to ARP: the router saw {la[0] - lb[0]} frames == 5 (probe, "
           "gratuitous ARP, 3 requests), no data")
    expect(not os.path.exists(os.path.join(out, "result.json")), "no answer to ARP: no result written")
    # h1 takes the router's own address: the router answers h1's probe for it.
    rmac = json.loads(nsx(NS[0], "ip -j link show rp11-a1"))[0]["address"]
    p, _ = run(tmp, profile(h1_addr="10.1.0.1/24", h1_gw="10.1.0.254"), "dup")
    one_line_exit2(p, "duplicate address", rf"host 'h1': its address 10\.1\.0\.1 is also held by {rmac}, which "
                   r"answered ARP on port net_af_packet0")


# Every worktree on this machine has this test and its rp11-* names: one at a time.
_lock = open("/tmp/roceprobe-rp11.lock", "w")
fcntl.flock(_lock, fcntl.LOCK_EX)
try:
    setup(1, False)
except (subprocess.CalledProcessError, FileNotFoundError) as e:
    teardown()
    print(f"skipped: cannot build the netns/veth topology here ({e})")
    sys.exit(77)
try:
    with tempfile.TemporaryDirectory() as tmp:
        # mpi runs in the cluster suite (tests/cluster/meson.build: cluster-routed)
        which = sys.argv[2:] or ["v4", "v6", "v6ll", "two", "tbf", "jumbo", "xdp", "limits", "macmove", "macmove6",
                                 "bad", "bad6", "pmtu"]
        if "v4" in which:
            check_routed(tmp, "v4", 1, False)
        if "v6" in which:
            check_routed(tmp, "v6", 1, True)
        if "v6ll" in which:  # issue 30: a link-local gateway was refused by the profile
            check_routed(tmp, "v6-link-local-gw", 1, True, gw="fe80::1")
        if "two" in which:
            check_routed(tmp, "two-routers", 2, False, h2_auto=True)
        if "tbf" in which:
            check_tbf(tmp)
        if "mpi" in which and MPIRUN:
            check_routed(tmp, "two-ranks", 2, False, ranks=2)
            check_routed(tmp, "two-ranks-one-router", 1, False, ranks=2)  # both behind one router: TTL 63
            check_ranks_no_arp(tmp)
        elif "mpi" in which:
            print("mpi: skipped, no mpirun (openmpi-bin)")
        if "jumbo" in which:
            check_routed(tmp, "jumbo", 1, False, mtu=4096, vethmtu=9000)
        if "xdp" in which:  # net_af_xdp carries up to one UMEM page: mtu 2048 (2122 B frames); XDP on a
            # veth refuses an MTU above about 3500
            check_routed(tmp, "af-xdp-2048", 1, False, mtu=2048, vethmtu=3000, h1_port="net_af_xdp0,iface=rp11-a0")
        if "limits" in which:
            check_limits(tmp)
        if "pmtu" in which:
            check_pmtu(tmp)
        if "macmove" in which:
            check_mac_move(tmp, False)
        if "macmove6" in which:
            check_mac_move(tmp, True)
        if "bad" in which:
            check_bad(tmp)
        if "bad6" in which:
            check_bad6(tmp)
finally:
    teardown()
finish("router")
