#!/usr/bin/python3
"""--share on net_af_xdp (issue 32): roceprobe's XDP program hands the run's RoCEv2 frames and
PFC/PAUSE to the AF_XDP socket and passes everything else to the kernel, on a veth here.

    netns rp32x-m (the machine roceprobe shares)        netns rp32x-p (a station on the wire)
    [h2 DPDK af_xdp, --share] rp32x-a ~~~~~~ rp32x-b --+
      kernel 10.32.0.1/24 (h2's ipv4: netdev)           |-- bridge rp32x-br 10.32.0.2/24 (ping, UDP)
      and 10.32.0.9/24 (the kernel's "own RDMA")        |
    [h1 DPDK af_xdp, --share] rp32x-c ~~~~~~ rp32x-d --+
      no kernel address, ARP off; h1 is 10.32.0.3

One `roceprobe run` in rp32x-m: h1 sends N RoCEv2 WRITEs to h2 across the bridge. While it
runs, the neighbour tables are flushed on both sides and rp32x-p pings 10.32.0.1 (so ARP
really happens during the run), sends UDP to 10.32.0.9:4791 (RoCE port, an address not the
run's: the kernel's) and to 10.32.0.1:4792, and one PFC frame straight out of rp32x-b.
Known answers:
- share: ping 5/5 and the kernel's ARP entry is rp32x-a's MAC; h2 received exactly the N
  frames h1 sent (lost 0) and the PFC frame, and no ARP request (the kernel had them); the
  kernel of rp32x-m saw exactly the 5 echo requests and the 10 UDP datagrams (Udp NoPorts +10:
  none of the N RoCE frames), rp32x-a's XDP redirected exactly N + 1 frames (ethtool -S
  rx_queue_0_xdp_redirect) and passed the rest; the
  bridge port facing h1 received exactly h1's data and ARP frames; the program on rp32x-a is
  rp_share during the run, gone after it (and so are its file and the interface's PROMISC flag);
- without --share (DPDK's default program: every frame to the socket) ping gets no answer
  (roceprobe answers ARP for h2's address itself, the echo requests go to the socket);
- devargs with their own xdp_prog=: one line, that program stays (ours unfilled: no frame
  comes to the run, the kernel gets the RoCE: NoPorts + N).

usage: xdp_share_check.py ROCEPROBE BPF_OBJECT|"" [CASE...] (cases share v6vlan default own; exit 77 = skipped: no netns/veth/XDP here)
"""
import fcntl
import json
import os
import re
import socket
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from check import expect, finish, read_pcap, sh, until_progress  # noqa: E402

ROCEPROBE = sys.argv[1]
BPF_OBJECT = sys.argv[2] if len(sys.argv) > 2 and sys.argv[2] else None
M, P = "rp32x-m", "rp32x-p"
N = 6000  # at 20 Mbit/s about 2.7 s of traffic: time for the pings during it
PINGS = 5
UDP = 5  # datagrams to each of the two kernel destinations


def nsx(ns, cmd, check=True):
    return sh(f"ip netns exec {ns} {cmd}", check)


def teardown():
    for ns in (M, P):
        sh(f"ip netns del {ns} 2>/dev/null", check=False)


def setup():
    teardown()
    for ns in (M, P):
        sh(f"ip netns add {ns}")
        nsx(ns, "ip link set lo up")
        nsx(ns, "sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1")
    sh(f"ip link add rp32x-a netns {M} type veth peer name rp32x-b netns {P}")
    sh(f"ip link add rp32x-c netns {M} type veth peer name rp32x-d netns {P}")
    nsx(P, "ip link add rp32x-br type bridge")
    nsx(P, "ip link set rp32x-b master rp32x-br")
    nsx(P, "ip link set rp32x-d master rp32x-br")
    nsx(P, "ip addr add 10.32.0.2/24 dev rp32x-br")
    nsx(M, "ip addr add 10.32.0.1/24 dev rp32x-a")
    nsx(M, "ip addr add 10.32.0.9/24 dev rp32x-a")
    nsx(M, "ip link set rp32x-c arp off")  # h1's port: its kernel answers nothing
    for i in ("rp32x-a", "rp32x-c"):
        nsx(M, f"ip link set {i} up")
    for i in ("rp32x-b", "rp32x-d", "rp32x-br"):
        nsx(P, f"ip link set {i} up")
    # the v6vlan case: IPv6 on rp32x-a and the bridge alone (the kernel here has no 802.1Q:
    # the run's frames are tagged, the kernel's untagged)
    for ns, dev, addrs in ((M, "rp32x-a", ("fd32::1", "fd32::9")), (P, "rp32x-br", ("fd32::2",))):
        nsx(ns, f"sysctl -qw net.ipv6.conf.{dev}.disable_ipv6=0")
        for a in addrs:
            nsx(ns, f"ip -6 addr add {a}/64 dev {dev} nodad")


def profile(h2_port="net_af_xdp1,iface=rp32x-a", v6vlan=False):
    """h2 is the kernel's own address: 10.32.0.1 (ipv4: netdev), or fd32::1 on VLAN 32."""
    a1, a2, vlan = ("ipv6: fd32::3", "ipv6: fd32::1", ", vlan: 32") if v6vlan else ("ipv4: 10.32.0.3", "ipv4: netdev", "")
    return f"""name: xdp-share
defaults: {{speed: 1G, opcode: write, message_size: 1024, mtu: 1024{vlan}}}
hosts:
  - {{name: h1, mac: "02:00:00:00:32:03", {a1}, port: "net_af_xdp0,iface=rp32x-c"}}
  - {{name: h2, mac: auto, {a2}, port: "{h2_port}"}}
traffic:
  - {{name: f, pattern: flow, src: h1, dst: h2, rate: 20M, packets: {N}}}
"""


def link(ns, i):
    return json.loads(nsx(ns, f"ip -d -s -j link show {i}"))[0]


def xdp_stats(i):
    t = nsx(M, f"ethtool -S {i}")
    return {k: int(v) for k, v in re.findall(r"^\s*rx_queue_0_(xdp_packets|xdp_redirect):\s*(\d+)$", t, re.M)}


def snmp():
    out = {}
    for proto in ("Ip", "Icmp", "Udp"):
        lines = [ln.split() for ln in nsx(M, "cat /proc/net/snmp").splitlines() if ln.startswith(proto + ":")]
        out.update({f"{proto}.{k}": int(v) for k, v in zip(lines[0][1:], lines[1][1:])})
    out.update({k: int(v) for k, v in re.findall(r"^(\S+)\s+(\d+)$", nsx(M, "cat /proc/net/snmp6"), re.M)})
    return out


# Sent from rp32x-p: UDP to the kernel's addresses, and a PFC frame out of rp32x-b (a bridge
# never forwards 01:80:c2:00:00:01). No apostrophe in it: it goes in a shell's quotes.
SEND = r"""
import socket, struct, sys
v6 = sys.argv[2] == "6"
u = socket.socket(socket.AF_INET6 if v6 else socket.AF_INET, socket.SOCK_DGRAM)
u.bind(("fd32::2" if v6 else "10.32.0.2", 0))  # from the peer address, never every address
for _ in range(int(sys.argv[1])):
    u.sendto(b"not roce" * 4, ("fd32::9" if v6 else "10.32.0.9", 4791))
    u.sendto(b"not roce" * 4, ("fd32::1" if v6 else "10.32.0.1", 4792))
r = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
r.bind(("rp32x-b", 0))
src = open("/sys/class/net/rp32x-b/address").read().strip()
pfc = bytes.fromhex("0180c2000001") + bytes.fromhex(src.replace(":", "")) + struct.pack("!HHH", 0x8808, 0x0101, 1 << 3)
pfc += struct.pack("!8H", 0, 0, 0, 16, 0, 0, 0, 0)
r.send(pfc.ljust(60, b"\0"))
if v6:  # RoCEv2-shaped frames straight out of rp32x-b, so the program on rp32x-a sees their tags
    # (the bridge keeps a tag aside, and veth hands XDP the frame without it): to fd32::1 under
    # one tag and under two (802.1ad + 802.1Q), and to fd32::9 (the kernel address) under one
    dst = bytes.fromhex(sys.argv[3].replace(":", ""))
    def roce(to, tags):
        bth = bytes([0x0a, 0, 0xff, 0xff, 0, 0, 0, 1, 0, 0, 0, 0]) + b"\0" * 4
        udp = struct.pack("!HHHH", 49152, 4791, 8 + len(bth), 0) + bth
        ip6 = struct.pack("!IHBB", 6 << 28, len(udp), 17, 64) + socket.inet_pton(socket.AF_INET6, "fd32::2")
        ip6 += socket.inet_pton(socket.AF_INET6, to) + udp
        eth = dst + bytes.fromhex(src.replace(":", ""))
        for tpid in tags:
            eth += struct.pack("!HH", tpid, 32)
        return eth + struct.pack("!H", 0x86DD) + ip6
    for _ in range(int(sys.argv[1])):
        r.send(roce("fd32::1", (0x8100,)))
        r.send(roce("fd32::1", (0x88A8, 0x8100)))
        r.send(roce("fd32::9", (0x8100,)))
"""


def during(p, with_ping=True, v6vlan=False):
    """Once traffic runs: neighbours flushed, ping, the UDP datagrams and the PFC frame."""
    err, line = until_progress(p, "run")
    if not line:
        return err, None
    h2 = "fd32::1" if v6vlan else "10.32.0.1"
    nsx(P, "ip neigh flush dev rp32x-br")
    nsx(M, "ip neigh flush dev rp32x-a")
    prog = link(M, "rp32x-a").get("xdp", {}).get("prog", {}).get("name")
    ping = nsx(P, f"ping -c {PINGS} -i 0.2 -W 1 {h2}", check=False) if with_ping else ""
    nsx(P, f"/usr/bin/python3 -c '{SEND}' {UDP} {6 if v6vlan else 4} {link(M, 'rp32x-a')['address']}")
    got = re.search(r"(\d+) received", ping)
    neigh = nsx(P, f"ip -j neigh show {h2} dev rp32x-br", check=False)
    return err, {"received": int(got.group(1)) if got else -1, "prog": prog,
                 "neigh": (json.loads(neigh or "[]") or [{}])[0].get("lladdr")}


def run(tmp, name, extra, with_ping=True, h2_port="net_af_xdp1,iface=rp32x-a", v6vlan=False):
    path = os.path.join(tmp, f"{name}.yaml")
    with open(path, "w") as f:
        f.write(profile(h2_port, v6vlan))
    out = os.path.join(tmp, name)
    # datagrams an earlier case left waiting for an ARP answer (the default case answers ARP for
    # 10.32.0.1 alone) would reach the kernel in this one: dropped with their neighbour entries
    nsx(P, "ip neigh flush dev rp32x-br")
    before = {"snmp": snmp(), "xdp": xdp_stats("rp32x-a"), "b": link(P, "rp32x-b")["stats64"],
              "d": link(P, "rp32x-d")["stats64"]}
    env = dict(os.environ, TMPDIR=os.path.join(tmp, "t"))
    os.makedirs(env["TMPDIR"], exist_ok=True)
    p = subprocess.Popen(["ip", "netns", "exec", M, ROCEPROBE, "run", path, "-o", out, *extra],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        err, seen = during(p, with_ping, v6vlan)
        stdout, rest = p.communicate(timeout=60)
    except BaseException:
        p.kill()
        p.wait()
        raise
    err += rest
    after = {"snmp": snmp(), "xdp": xdp_stats("rp32x-a"), "b": link(P, "rp32x-b")["stats64"],
             "d": link(P, "rp32x-d")["stats64"]}
    delta = {k: {x: after[k][x] - before[k].get(x, 0) for x in after[k] if isinstance(after[k][x], int)}
             for k in ("snmp", "xdp")}
    delta["b_tx"] = after["b"]["tx"]["packets"] - before["b"]["tx"]["packets"]
    delta["d_rx"] = after["d"]["rx"]["packets"] - before["d"]["rx"]["packets"]
    j = None
    if p.returncode == 0 and os.path.exists(os.path.join(out, "result.json")):
        with open(os.path.join(out, "result.json")) as f:
            j = json.load(f)
    return p.returncode, err, seen, delta, j, env["TMPDIR"]


def port(j, node):
    """A node's entry of result.json's ports[] (or of environment's, given j["environment"])."""
    return next(x for x in j["ports"] if x["node"] == node)


def check_share(tmp):
    rc, err, seen, d, j, tdir = run(tmp, "share", ["--share"])
    if not expect(rc == 0 and j and seen, f"share: run exits 0 with a result, traffic seen ({rc}: {err.strip()[-400:]})"):
        return
    amac = link(M, "rp32x-a")["address"]
    expect(seen["prog"] == "rp_share", f"share: rp32x-a runs roceprobe's XDP program during the run ({seen['prog']})")
    expect(seen["received"] == PINGS, f"share: ping through the kernel during the run: {seen['received']}/{PINGS} answered")
    expect(seen["neigh"] == amac, f"share: the flushed ARP entry came back as rp32x-a's MAC ({seen['neigh']} == {amac})")
    f = j["flows"][0]
    expect(f["tx_packets"] == N and f["rx_packets"] == N and f["lost"] == 0 and f["misdelivered"] == 0,
           f"share: h1 sent {f['tx_packets']}, h2 received {f['rx_packets']} == {N}, lost {f['lost']}")
    h2, e2 = port(j, "h2"), port(j["environment"], "h2")
    expect(h2["pfc_frames"] == 1 and h2["rx_frames"] == N + 1,
           f"share: h2's port got the {N} RoCE frames and the PFC frame, nothing else (rx_frames {h2['rx_frames']}, "
           f"pfc_frames {h2['pfc_frames']})")
    expect(e2["shared"] == {"isolated": False, "pause_steered": True, "xdp_program": True},
           f"share: result.json says h2's port is shared by the XDP program ({e2['shared']})")
    expect(e2["neigh"]["arp_requests_rx"] == 0, f"share: no ARP request reached h2's socket "
           f"({e2['neigh']['arp_requests_rx']}: the kernel answered)")
    s = d["snmp"]
    expect(s["Icmp.InEchos"] == PINGS and s["Icmp.OutEchoReps"] == PINGS,
           f"share: the kernel answered the pings (InEchos {s['Icmp.InEchos']}, OutEchoReps {s['Icmp.OutEchoReps']})")
    expect(s["Udp.NoPorts"] == 2 * UDP and s["Udp.InDatagrams"] == 0,
           f"share: the kernel got the {2 * UDP} UDP datagrams (to 10.32.0.9:4791 and 10.32.0.1:4792) and none of the "
           f"{N} RoCE frames (Udp NoPorts +{s['Udp.NoPorts']}, InDatagrams +{s['Udp.InDatagrams']})")
    # InDelivers, not InReceives: the bridge's IGMPv3 reports (to 224.0.0.22, a group nobody
    # here joined; multicast off does not stop them) reach IP and stop there
    expect(s["Ip.InDelivers"] == PINGS + 2 * UDP,
           f"share: the kernel's IP delivered {s['Ip.InDelivers']} == {PINGS} echo requests + {2 * UDP} datagrams "
           f"(received {s['Ip.InReceives']})")
    x = d["xdp"]
    expect(x["xdp_redirect"] == N + 1, f"share: rp32x-a's XDP redirected {x['xdp_redirect']} == {N} RoCE + 1 PFC "
           f"(ethtool -S), passed {x['xdp_packets'] - x['xdp_redirect']}")
    # the rest it passed: the echo requests and datagrams the kernel took, ARP, the bridge's
    # IGMP; rp32x-b may send a frame or two while no program is there (before the port opened,
    # after it closed: ARP, IGMP), so no exact count
    passed = x["xdp_packets"] - x["xdp_redirect"]
    expect(passed >= PINGS + 2 * UDP and x["xdp_packets"] <= d["b_tx"],
           f"share: the program passed {passed} >= {PINGS + 2 * UDP} frames the kernel took, of the {d['b_tx']} "
           f"rp32x-b sent")
    e1 = port(j["environment"], "h1")
    n1 = e1["neigh"]
    neigh1 = n1["arp_requests_tx"] + n1["arp_replies_tx"]
    expect(d["d_rx"] == e1["tx_packets"] + neigh1, f"share: the bridge port facing h1 received {d['d_rx']} == h1's "
           f"{e1['tx_packets']} data + {neigh1} ARP frames (ip -s link)")
    expect("xdp" not in link(M, "rp32x-a") and "xdp" not in link(M, "rp32x-c"),
           "share: no XDP program left on rp32x-a or rp32x-c after the run")
    flags = link(M, "rp32x-a")["flags"]
    expect("PROMISC" not in flags, f"share: rp32x-a is not left promiscuous ({flags})")
    expect(os.listdir(tdir) == [], f"share: the program's file is gone from TMPDIR ({os.listdir(tdir)})")


def check_v6vlan(tmp):
    """The same over IPv6, the run's frames in VLAN 32: ND and ping6 through the kernel."""
    rc, err, seen, d, j, _ = run(tmp, "v6vlan", ["--share", "--capture"], v6vlan=True)
    if not expect(rc == 0 and j and seen, f"v6vlan: run exits 0 with a result ({rc}: {err.strip()[-400:]})"):
        return
    amac = link(M, "rp32x-a")["address"]
    expect(seen["received"] == PINGS, f"v6vlan: ping -6 through the kernel during the run: "
           f"{seen['received']}/{PINGS} answered")
    expect(seen["neigh"] == amac, f"v6vlan: the flushed ND entry came back as rp32x-a's MAC ({seen['neigh']} == {amac})")
    f = j["flows"][0]
    expect(f["tx_packets"] == N and f["rx_packets"] == N and f["lost"] == 0 and f["misdelivered"] == 0,
           f"v6vlan: h1 sent {f['tx_packets']} tagged, h2 received {f['rx_packets']} == {N}, lost {f['lost']}")
    h2 = port(j, "h2")
    tagged = 2 * UDP  # the injected frames to fd32::1, one and two tags
    expect(h2["pfc_frames"] == 1 and h2["rx_frames"] == N + 1 + tagged,
           f"v6vlan: h2's port got the {N} RoCE frames, the PFC frame and the {tagged} tagged frames to fd32::1, "
           f"nothing else (rx_frames {h2['rx_frames']})")
    s = d["snmp"]
    expect(s.get("Icmp6InEchos") == PINGS and s.get("Icmp6OutEchoReplies") == PINGS,
           f"v6vlan: the kernel answered the pings (Icmp6InEchos {s.get('Icmp6InEchos')})")
    expect(s.get("Udp6NoPorts") == 2 * UDP and s.get("Udp6InDatagrams") == 0,
           f"v6vlan: the kernel got the {2 * UDP} datagrams (to fd32::9:4791 and fd32::1:4792) and none of the {N} "
           f"RoCE frames (Udp6NoPorts +{s.get('Udp6NoPorts')}, Udp6InDatagrams +{s.get('Udp6InDatagrams')})")
    expect(d["xdp"]["xdp_redirect"] == N + 1 + tagged, f"v6vlan: rp32x-a's XDP redirected {d['xdp']['xdp_redirect']} "
           f"== {N} RoCE + 1 PFC + {tagged} tagged (ethtool -S; not the {UDP} tagged to fd32::9)")
    # the socket hands over the frame as the program saw it: with its tags
    recs = read_pcap(os.path.join(tmp, "v6vlan", "capture-h2.pcap"))["recs"]
    one = [b for _, b, _ in recs if b[12:18] == bytes.fromhex("8100002086dd")]
    two = [b for _, b, _ in recs if b[12:22] == bytes.fromhex("88a800208100002086dd")]
    h2ip = socket.inet_pton(socket.AF_INET6, "fd32::1")
    # IPv6's destination: 24 B into its header, after 14 B of Ethernet and 4 B a tag
    expect(len(one) == UDP and len(two) == UDP and all(b[42:58] == h2ip for b in one) and
           all(b[46:62] == h2ip for b in two),
           f"v6vlan: h2's capture holds the {len(one)} == {UDP} frames under one tag and {len(two)} == {UDP} under "
           "two, all to fd32::1: the program parsed through the tags")


def check_default(tmp):
    rc, err, seen, d, j, _ = run(tmp, "default", [])
    if not expect(rc == 0 and j and seen, f"default: run exits 0 ({rc}: {err.strip()[-300:]})"):
        return
    expect(seen["prog"] != "rp_share", f"default: DPDK's own program on rp32x-a ({seen['prog']})")
    e2 = port(j["environment"], "h2")
    expect(not e2["shared"]["xdp_program"] and not e2["shared"]["isolated"],
           f"default: result.json says h2's port is not shared ({e2['shared']})")
    expect(seen["received"] == 0, f"default (no --share): ping gets no answer during the run ({seen['received']}/{PINGS}: "
           "every frame goes to the socket)")
    expect(d["snmp"]["Icmp.InEchos"] == 0, f"default: the kernel saw no echo request ({d['snmp']['Icmp.InEchos']})")
    f = j["flows"][0]
    expect(f["rx_packets"] == N, f"default: h2 still received {f['rx_packets']} == {N}")


def check_own_prog(tmp):
    if not BPF_OBJECT:
        print("own-prog: skipped, no BPF object given")
        return
    rc, err, seen, d, j, _ = run(tmp, "own", ["--share"], with_ping=False,
                                 h2_port=f"net_af_xdp1,iface=rp32x-a,xdp_prog={BPF_OBJECT}")
    lines = [ln for ln in err.splitlines() if "--share leaves port net_af_xdp1" in ln]
    expect(len(lines) == 1, f"own xdp_prog=: one line says --share leaves it ({lines})")
    if not expect(rc == 0 and j, f"own xdp_prog=: run exits 0 ({rc}: {err.strip()[-300:]})"):
        return
    f = j["flows"][0]
    expect(f["rx_packets"] == 0 and d["snmp"]["Udp.NoPorts"] == N + 2 * UDP,
           f"own xdp_prog= (its maps empty): the RoCE went to the kernel (rx {f['rx_packets']}, NoPorts "
           f"+{d['snmp']['Udp.NoPorts']} == {N} + {2 * UDP})")


# One at a time on this machine (every worktree has this test and its rp32x-* names).
_lock = open("/tmp/roceprobe-rp32x.lock", "w")
fcntl.flock(_lock, fcntl.LOCK_EX)
try:
    setup()
except (subprocess.CalledProcessError, FileNotFoundError) as e:
    teardown()
    print(f"skipped: cannot build the netns/veth topology here ({e})")
    sys.exit(77)
if not os.path.exists("/usr/bin/ping") and not subprocess.run(["which", "ping"], capture_output=True).stdout:
    teardown()
    print("skipped: no ping (iputils-ping)")
    sys.exit(77)
try:
    with tempfile.TemporaryDirectory() as tmp:
        which = sys.argv[3:] or ["share", "v6vlan", "default", "own"]
        if "share" in which:
            check_share(tmp)
        if "v6vlan" in which:
            check_v6vlan(tmp)
        if "default" in which:
            check_default(tmp)
        if "own" in which:
            check_own_prog(tmp)
finally:
    teardown()
finish("xdp-share")
