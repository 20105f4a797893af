#!/usr/bin/python3
"""Hosts of several NICs across ranks: a rail-optimised fabric in miniature under mpirun.

    rank 0: host h0                      rail 0                         rank 1: host h1
      h0.nic0  rpm-00 ~~ rpm-00p --+-- bridge rpm-br0 --+-- rpm-10p ~~ rpm-10  h1.nic0
                                   |                    +-- rpm-20p ~~ rpm-20  h2.nic0 --+
      h0.nic1  rpm-01 ~~ rpm-01p --+-- bridge rpm-br1 --+-- rpm-11p ~~ rpm-11  h1.nic1    |  rank 2:
                                       rail 1           +-- rpm-21p ~~ rpm-21  h2.nic1 --+  host h2
                                                              (tbf 10 Mbit/s: case tbf)

    mpirun -np 3 roceprobe run: each rank one host of 2 NICs (nics: [{port: ...}, {port: ...}]),
    each NIC a DPDK net_af_packet port on its own veth; NIC r of every host plugs into rail r's
    Linux bridge, so a frame can only reach the other hosts' NIC r. Static fdb entries (no
    flooding, no learning race), IPv6 off on every interface.

Cases:
  rails     all-to-all on each rail ("*.nic0", "*.nic1": 2 x 64 KiB per pair), then an all-to-all
            between the whole hosts spread by nic_spread: round-robin and one by nic_spread: hash.
            Known answers:
            - every flow stays on its rail (src NIC r -> dst NIC r, docs/profiles.md's rule) and
              arrives whole: a rail flow 2 x 64 KiB / 1024 B MTU = 128 packets, a spread flow 64;
            - round-robin: each host's two whole-host flows are its spread entry's flows 0 and 1,
              on NIC 0 and NIC 1 (k-th flow on NIC k mod 2): one per NIC;
            - per NIC, the kernel's truth (ip -s -j link on its veth, before/after): its tx ==
              the merged result's tx of the flows it sent + the ARP frames it announced (counted
              on the rail's bridge by a raw socket, by source MAC), its rx == the merged rx of
              the flows to it + the ARP broadcasts of the rail's other NICs + what the bridge sent
              itself (its own tx, ip -s link: 0, mcast_snooping is off); environment.ports'
              tx_packets of that NIC (the PMD's count, shipped from its rank) == the same flows;
            - nothing crosses rails: per rail bridge, the data frames its ports took in (each
              bridge port's rx less that NIC's ARP) == the tx of that rail's flows, so the other
              rail's flows brought it 0; the bridge itself saw no flooded RoCE frame;
            - each NIC's capture (--capture, written on its rank), read by tshark: the RoCE frames
              to its MAC came from rail r's NICs only, as many as the merged rx of its flows;
            - result.json's hosts list every NIC (h{k}.nic{r}) with rank k, this node, host h{k},
              nic r, and the MAC/address derived by hand from the host's (MAC + r, /24 r subnets
              up); cluster.ranks[k].hosts == [h{k}.nic0, h{k}.nic1].
  tbf       rail-aligned incast: h0.nic0 and h1.nic0 at 60 Mbit/s each into h2 (its NIC 0 by the
            rail rule), h0.nic1 and h1.nic1 the same into h2's NIC 1, for 1 s, with tc tbf
            10 Mbit/s on rail 1's port to h2 (rpm-21p): 120 Mbit/s into 10 overflows it (even at a
            quarter of the rate, as two NICs on one lcore reach on a loaded machine). Host hk
            says rank: (k + 1) % 3: the receiver h2 on rank 0, each host with both NICs. Rail
            1's flows lose exactly the kernel's drops on rail 1 (tbf's dropped, tc -s; plus any
            veth drop, ip -s link), rail 0's lose 0, as the kernel dropped nothing there.
  kill      the incast of case tbf without the tbf, 20 Mbit/s for 10 s; kill -9 of rank 1 (h1) once
            both its NICs' veths sent 500 frames: rank 0 writes result.json with incomplete: both
            NICs of h1; each of h1's flows marked sender, its rx == what the kernel saw its veth
            send (less its ARP); h0's flows whole (tx == rx == its veth's kernel tx, lost 0).
  missing   every host placed by node: (this machine: host k on its local rank k), and h2's
            NIC 1 names an interface that does not exist: exit 2, one line naming h2.nic1
            (host h2, NIC 1), rank 2, its node and the reason; no rank sends a frame (every veth's
            kernel tx stays where it was).
  template  the hosts come from a host_template (count: ranks, nics: a list of 2 ports from
            {rank}, mac: auto, ipv4: netdev), each veth with its kernel address 10.95.r.(k+1)/24:
            per-rail all-to-all, every pair 128/128, nothing lost; every NIC's MAC and address
            in result.json == `ip -j link` / `ip -j addr` of its veth (each read on its own rank
            and sent to the others in the host allgather, or no frame would have reached it);
            and `plan --ranks 32` of profiles/cluster-rails-4nic.yaml: 128 NICs, server k's 4 on
            rank k, 4 x 32 x 31 = 3968 flows, each NIC r -> NIC r.

usage: rails_check.py ROCEPROBE CASE   (exit 77 = skipped: no mpirun, veth or bridge)
"""
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import check  # noqa: E402
from check import expect, sh  # noqa: E402
from cluster_case import run_case, rank_pids, run_ranks  # noqa: E402

ROCEPROBE, CASE = sys.argv[1], sys.argv[2]
check.in_private_netns("rpc")  # mpirun's out-of-band listener binds every address: the job's own namespace
NHOSTS, RAILS = 3, 2
MPIRUN = shutil.which("mpirun")
if not MPIRUN:
    print("skipped: mpirun is missing (openmpi-bin)")
    sys.exit(77)

NICS = [(k, r) for k in range(NHOSTS) for r in range(RAILS)]


def veth(k, r):
    return f"rpm-{k}{r}"  # host k's NIC r; its peer rpm-{k}{r}p is a port of bridge rpm-br{r}


def nic(k, r):
    return f"h{k}.nic{r}"


def mac(k, r):  # the host's MAC 02:00:00:00:0{k+1}:00 + r (docs/profiles.md, "Hosts with several NICs")
    return f"02:00:00:00:{k + 1:02x}:{r:02x}"


def ifaces():
    return [f"rpm-br{r}" for r in range(RAILS)] + [veth(k, r) + e for k, r in NICS for e in ("", "p")]


def teardown():
    for i in [f"rpm-br{r}" for r in range(RAILS)] + [veth(k, r) for k, r in NICS]:
        sh(f"ip link del {i} 2>/dev/null", check=False)


def setup(static_fdb=True):
    teardown()
    for r in range(RAILS):
        # With multicast snooping a bridge joins 224.0.0.106 and sends IGMP reports at random
        # moments after link up; one that lands between two counter reads is counted on some ports
        # and not others. Snooping off, the bridge sends nothing of its own.
        sh(f"ip link add rpm-br{r} type bridge mcast_snooping 0")
    # DPDK 22.11's net_af_packet joins a PACKET_FANOUT group (getpid() ^ ifindex) & 0xffff; ranks
    # have near pids: interface indexes far apart in XOR (as run_check.py's), not theirs.
    for n, (k, r) in enumerate(NICS):
        sh(f"ip link add {veth(k, r)} index {0x4800 + 0x1111 * n} type veth peer name {veth(k, r)}p")
        sh(f"ip link set {veth(k, r)}p master rpm-br{r}")
    for i in ifaces():
        sh(f"sysctl -qw net.ipv6.conf.{i}.disable_ipv6=1", check=False)
        sh(f"ip link set {i} up")
    if static_fdb:
        for k, r in NICS:
            sh(f"bridge fdb add {mac(k, r)} dev {veth(k, r)}p master static")


def link(i):
    s = json.loads(sh(f"ip -s -j link show {i}"))[0]["stats64"]
    return {"tx": s["tx"]["packets"], "rx": s["rx"]["packets"]}


def links():
    return {i: link(i) for i in ifaces()}


class BridgeSniff(threading.Thread):
    """What a rail's bridge floods to its own port (broadcasts; unknown unicast): ARP frames by
    source MAC, and RoCE frames (UDP 4791) it could not forward (a frame to a MAC not on this rail);
    and the frames the bridge sends itself (none, snooping off), which would reach every one of its ports."""
    def __init__(self, dev):
        super().__init__(daemon=True)
        self.sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x0003))
        self.sock.bind((dev, 0))
        self.sock.settimeout(0.2)
        self.arp, self.roce, self.other, self.own, self.done = {}, 0, 0, 0, False

    def run(self):
        while not self.done:
            try:
                fr, addr = self.sock.recvfrom(2048)
            except socket.timeout:
                continue
            if addr[2] == socket.PACKET_OUTGOING:  # the bridge's own: flooded to every port
                self.own += 1
            elif fr[12:14] == b"\x08\x06":
                src = fr[6:12].hex(":")
                self.arp[src] = self.arp.get(src, 0) + 1
            elif fr[12:14] == b"\x08\x00" and len(fr) > 37 and fr[23] == 17 and fr[36:38] == b"\x12\xb7":
                self.roce += 1
            else:
                self.other += 1

    def stop(self):
        time.sleep(0.3)
        self.done = True
        self.join()


def said(p):
    """roceprobe's own lines (not the hugepage notice, not mpirun's banner)."""
    return [ln for ln in p.stderr.splitlines() if ln.startswith("roceprobe") and "hugepages" not in ln]


def mpirun(tmp, text, *args):
    path, out = os.path.join(tmp, "p.yaml"), os.path.join(tmp, "out")
    with open(path, "w") as f:
        f.write(text)
    p = run_ranks([MPIRUN, "--allow-run-as-root", "--oversubscribe", "-np", str(NHOSTS), ROCEPROBE, "run", path,
                   "-o", out, *args], 180)
    return p, out


# 4096-frame af_packet rings (8 MiB): a receiver the loaded machine holds back for a moment
# loses nothing in its ring, whose drops no kernel counter shows.
def port(k, r, iface=None):
    return f"net_af_packet{r},iface={iface or veth(k, r)},framecnt=4096"


def profile(traffic, port_of=port, place=lambda k: ""):
    hosts = "\n".join(f'  - {{name: h{k}, mac: "{mac(k, 0)}", ipv4: 10.96.0.{k + 1}/24,{place(k)} nics: ['
                      + ", ".join(f'{{port: "{port_of(k, r)}"}}' for r in range(RAILS)) + "]}"
                      for k in range(NHOSTS))
    return f"""name: rails-{CASE}
defaults: {{speed: 1G, opcode: write, message_size: 1024, mtu: 1024, dscp: 26, ecn: not-ect}}
hosts:
{hosts}
traffic:
{traffic}
"""


def rail_of(name):
    return int(name.rsplit(".nic", 1)[1])


def host_of(name):
    return int(name.split(".")[0][1:])


def case_rails(tmp):
    setup()
    sniff = [BridgeSniff(f"rpm-br{r}") for r in range(RAILS)]
    for s in sniff:
        s.start()
    before = links()
    p, out = mpirun(tmp, profile(
        "  - {name: r0, pattern: all-to-all, hosts: \"*.nic0\", rate: 20M, message_size: 64KiB, messages: 2}\n"
        "  - {name: r1, pattern: all-to-all, hosts: \"*.nic1\", rate: 20M, message_size: 64KiB, messages: 2}\n"
        "  - {name: rr, pattern: all-to-all, hosts: all, nic_spread: round-robin, rate: 20M, message_size: 64KiB, "
        "messages: 1}\n"
        "  - {name: hashed, pattern: all-to-all, hosts: all, nic_spread: hash, rate: 20M, message_size: 64KiB, "
        "messages: 1}"), "--capture")
    after = links()
    for s in sniff:
        s.stop()
    expect(p.returncode == 0, f"mpirun -np 3 roceprobe run (2 NICs a host): exit 0 ({p.returncode}: {said(p)})")
    if p.returncode != 0:
        return
    d = {i: {x: after[i][x] - before[i][x] for x in ("tx", "rx")} for i in after}
    j = json.load(open(os.path.join(out, "result.json")))
    flows = j["flows"]
    print("flows", [(f["src"], f["dst"], f["tx_packets"], f["rx_packets"], f["lost"]) for f in flows])
    print("ARP per rail", [s.arp for s in sniff], "flooded RoCE", [s.roce for s in sniff],
          "bridge's own", [s.own for s in sniff], "other", [s.other for s in sniff])
    print("kernel", {i: v for i, v in d.items() if not i.endswith("p")})
    n = NHOSTS * (NHOSTS - 1)
    expect(len(flows) == 4 * n, f"4 entries x {n} ordered pairs = {4 * n} flows ({len(flows)})")
    expect(all(rail_of(f["src"]) == rail_of(f["dst"]) for f in flows),
           "every flow stays on its rail: NIC r -> NIC r "
           f"({[(f['src'], f['dst']) for f in flows if rail_of(f['src']) != rail_of(f['dst'])]})")
    want = {f["id"]: 128 if k < 2 * n else 64 for k, f in enumerate(flows)}
    expect(all(f["tx_packets"] == f["rx_packets"] == want[f["id"]] and f["lost"] == 0 for f in flows),
           "every flow whole: rail flows 2 x 64 packets, spread flows 64, rx == tx, lost 0")
    rr = flows[2 * n:3 * n]
    for k in range(NHOSTS):
        mine = sorted(rail_of(f["src"]) for f in rr if host_of(f["src"]) == k)
        expect(mine == [0, 1], f"nic_spread round-robin: h{k}'s two whole-host flows on NIC 0 and NIC 1 ({mine})")
    hashed = flows[3 * n:]
    print("nic_spread hash put", [(f["src"], f["dst"]) for f in hashed])
    ports = {q["node"]: q for q in j["environment"]["ports"]}
    for k, r in NICS:
        name, v, arp = nic(k, r), veth(k, r), sniff[r].arp
        tx = sum(f["tx_packets"] for f in flows if f["src"] == name)
        rx = sum(f["rx_packets"] for f in flows if f["dst"] == name)
        own_arp = arp.get(mac(k, r), 0)
        others_arp = sum(c for m, c in arp.items() if m != mac(k, r))
        expect(d[v]["tx"] == tx + own_arp,
               f"{name}: kernel tx on {v} {d[v]['tx']} == merged tx of its flows {tx} + its ARP {own_arp}")
        own = d[f"rpm-br{r}"]["tx"]  # what the bridge device sent itself, flooded to every port
        expect(d[v]["rx"] == rx + others_arp + own,
               f"{name}: kernel rx on {v} {d[v]['rx']} == merged rx of the flows to it {rx} + rail {r}'s "
               f"other ARP {others_arp} + its bridge's own frames {own}")
        expect(ports.get(name, {}).get("tx_packets") == tx,
               f"{name}: environment.ports tx_packets {ports.get(name, {}).get('tx_packets')} == its flows' tx {tx}")
    for r in range(RAILS):
        took = sum(d[veth(k, r) + "p"]["rx"] - sniff[r].arp.get(mac(k, r), 0) for k in range(NHOSTS))
        ours = sum(f["tx_packets"] for f in flows if rail_of(f["src"]) == r)
        expect(took == ours, f"rail {r}'s bridge took in {took} data frames == its flows' tx {ours}: "
                             f"{took - ours} of the other rail's")
        expect(sniff[r].roce == 0, f"rail {r}'s bridge flooded no RoCE frame ({sniff[r].roce})")
    # Each NIC's own capture (rank k wrote h{k}.nic{r}'s), read by tshark: the RoCE frames to its MAC
    # came from rail r's NICs only (source MAC and address), as many as the merged rx of its flows.
    tshark = shutil.which("tshark")
    if not tshark:
        print("note: no tshark (package tshark): the captures are not read")
    for k, r in NICS if tshark else []:
        cap = os.path.join(out, f"capture-{nic(k, r)}.pcap")
        t = subprocess.run([tshark, "-r", cap, "-Y", f"udp.dstport == 4791 && eth.dst == {mac(k, r)}", "-T", "fields",
                            "-e", "eth.src", "-e", "ip.src"], capture_output=True, text=True)
        seen = {}
        for ln in t.stdout.split("\n"):
            if ln:
                seen[tuple(ln.split("\t"))] = seen.get(tuple(ln.split("\t")), 0) + 1
        rail = {(mac(q, r), f"10.96.{r}.{q + 1}") for q in range(NHOSTS) if q != k}
        rx = sum(f["rx_packets"] for f in flows if f["dst"] == nic(k, r))
        expect(t.returncode == 0 and set(seen) <= rail and sum(seen.values()) == rx,
               f"{nic(k, r)}'s capture (tshark): {sum(seen.values())} RoCE frames to it == merged rx {rx}, all from "
               f"rail {r}'s NICs ({seen})")
    node = socket.gethostname()
    hosts = {h["name"]: h for h in j.get("hosts", [])}
    expect(sorted(hosts) == sorted(nic(k, r) for k, r in NICS), f"hosts: every NIC listed ({sorted(hosts)})")
    for k, r in NICS:
        h = hosts.get(nic(k, r), {})
        got = (h.get("rank"), h.get("node"), h.get("host"), h.get("nic"), h.get("mac"), h.get("ipv4"),
               h.get("ipv4_prefix"))
        expect(got == (k, node, f"h{k}", r, mac(k, r), f"10.96.{r}.{k + 1}", 24),
               f"hosts[{nic(k, r)}]: rank {k}, node {node}, host h{k}, nic {r}, {mac(k, r)}, 10.96.{r}.{k + 1}/24 "
               f"({got})")
    ranks = j.get("cluster", {}).get("ranks", [])
    expect([x["hosts"] for x in ranks] == [[nic(k, 0), nic(k, 1)] for k in range(NHOSTS)],
           f"cluster.ranks: rank k runs both NICs of h{{k}} ({[x.get('hosts') for x in ranks]})")


def case_tbf(tmp):
    setup()
    sh("tc qdisc add dev rpm-21p root tbf rate 10mbit burst 32kb limit 64kb")
    rail_ifaces = {r: [f"rpm-br{r}"] + [veth(k, r) + e for k in range(NHOSTS) for e in ("", "p")] for r in range(RAILS)}
    before = {r: check.kernel_drops(rail_ifaces[r], "rpm-21p" if r == 1 else None) for r in range(RAILS)}
    p, out = mpirun(tmp, profile(
        "  - {name: i0, pattern: incast, senders: [h0.nic0, h1.nic0], receiver: h2, rate: 60M, duration: 1s}\n"
        "  - {name: i1, pattern: incast, senders: [h0.nic1, h1.nic1], receiver: h2, rate: 60M, duration: 1s}",
        place=lambda k: f" rank: {(k + 1) % NHOSTS},"))
    after = {r: check.kernel_drops(rail_ifaces[r], "rpm-21p" if r == 1 else None) for r in range(RAILS)}
    expect(p.returncode == 0, f"mpirun -np 3 roceprobe run (rail incast): exit 0 ({p.returncode}: {said(p)})")
    if p.returncode != 0:
        return
    drops = {r: {i: v - before[r].get(i, 0) for i, v in after[r].items() if v - before[r].get(i, 0)}
             for r in range(RAILS)}
    j = json.load(open(os.path.join(out, "result.json")))
    flows = j["flows"]
    print("flows", [(f["src"], f["dst"], f["tx_packets"], f["rx_packets"], f["lost"]) for f in flows],
          "kernel drops per rail", drops)
    expect(sorted((f["src"], f["dst"]) for f in flows) ==
           sorted((nic(k, r), nic(2, r)) for k in range(2) for r in range(RAILS)),
           "four flows, each into h2's NIC of its own rail")
    expect(all(f["tx_packets"] > 0 for f in flows), "every sender's tx is in the merged result (ranks 0 and 1)")
    lost = {r: sum(f["lost"] for f in flows if rail_of(f["src"]) == r) for r in range(RAILS)}
    expect(drops[1].get("tbf", 0) > 0, f"rail 1's tbf overflowed: 120 Mbit/s into 10 ({drops[1]})")
    expect(lost[1] == sum(drops[1].values()), f"rail 1 lost {lost[1]} == the kernel's drops on rail 1 "
                                              f"{sum(drops[1].values())} ({drops[1]})")
    expect(lost[0] == 0 and not drops[0], f"rail 0 lost {lost[0]}, the kernel dropped nothing there ({drops[0]})")
    expect(all(f["tx_packets"] == f["rx_packets"] + f["lost"] for f in flows), "every flow: tx == rx + lost")
    ranks = j.get("cluster", {}).get("ranks", [])
    expect([x["hosts"] for x in ranks] == [[nic(2, 0), nic(2, 1)], [nic(0, 0), nic(0, 1)], [nic(1, 0), nic(1, 1)]],
           f"rank: h0 on 1, h1 on 2, h2 on 0, each with both its NICs ({[x.get('hosts') for x in ranks]})")




def case_kill(tmp):
    setup()
    sniff = [BridgeSniff(f"rpm-br{r}") for r in range(RAILS)]
    for s in sniff:
        s.start()
    before = links()
    path, out = os.path.join(tmp, "p.yaml"), os.path.join(tmp, "out")
    with open(path, "w") as f:
        f.write(profile(
            "  - {name: i0, pattern: incast, senders: [h0.nic0, h1.nic0], receiver: h2, rate: 20M, duration: 10s}\n"
            "  - {name: i1, pattern: incast, senders: [h0.nic1, h1.nic1], receiver: h2, rate: 20M, duration: 10s}"))
    # Open MPI kills the job 1 s (SIGTERM) and 2 s (SIGKILL) after a rank dies: give the others 10 s.
    p = subprocess.Popen([MPIRUN, "--allow-run-as-root", "--oversubscribe", "--mca", "odls_base_sigkill_timeout", "10",
                          "-np", str(NHOSTS), ROCEPROBE, "run", path, "-o", out], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    pids, killed = {}, False
    deadline = time.time() + 60
    while time.time() < deadline and p.poll() is None:
        if len(pids) < NHOSTS:
            pids = rank_pids(path)
        if len(pids) == NHOSTS and all(link(veth(1, r))["tx"] - before[veth(1, r)]["tx"] >= 500 for r in range(RAILS)):
            os.kill(pids[1], signal.SIGKILL)
            killed = time.time()
            break
        time.sleep(0.05)
    gone = None
    while killed and time.time() < killed + 30 and gone is None:
        if all(not os.path.exists(f"/proc/{v}") or open(f"/proc/{v}/stat").read().split()[2] == "Z"
               for k, v in pids.items() if k != 1):
            gone = time.time() - killed
        time.sleep(0.02)
    try:
        _, err = p.communicate(timeout=40)
    except subprocess.TimeoutExpired:
        p.kill()
        _, err = p.communicate()
    print(f"ranks 0 and 2 gone {gone} s after the kill; mpirun exit {p.returncode} "
          f"{time.time() - killed if killed else None} s after")
    for v in pids.values():  # a killed EAL leaves /var/run/dpdk/rpPID
        for _ in range(100):
            if not os.path.exists(f"/proc/{v}"):
                break
            time.sleep(0.05)
        if not os.path.exists(f"/proc/{v}"):
            sh(f"rm -rf /var/run/dpdk/rp{v}", check=False)
    after = links()
    for s in sniff:
        s.stop()
    expect(killed, "rank 1 (h1, both its NICs sending) killed mid-run")
    expect(gone is not None and gone < 5, f"ranks 0 and 2 stopped within 5 s of the kill ({gone} s)")
    expect("result.json is incomplete (exit 3)" in err, "rank 0 says the result is incomplete, exit 3")
    ok = os.path.exists(os.path.join(out, "result.json"))
    expect(ok, "rank 0 wrote result.json")
    if not ok:
        return
    j = json.load(open(os.path.join(out, "result.json")))
    flows = {f["src"]: f for f in j["flows"]}
    print("flows", [(f["src"], f["dst"], f["tx_packets"], f["rx_packets"], f["lost"], f.get("incomplete"))
                    for f in j["flows"]], "ARP", [s.arp for s in sniff])
    expect(j.get("incomplete") == [nic(1, 0), nic(1, 1)], f"incomplete: both NICs of h1 ({j.get('incomplete')})")
    ranks = j.get("cluster", {}).get("ranks", [])
    expect([x.get("lost", False) for x in ranks] == [False, True, False], "cluster.ranks[1].lost, the others not")
    for r in range(RAILS):
        sent = {k: after[veth(k, r)]["tx"] - before[veth(k, r)]["tx"] - sniff[r].arp.get(mac(k, r), 0) for k in (0, 1)}
        dead, live = flows.get(nic(1, r), {}), flows.get(nic(0, r), {})
        expect(dead.get("incomplete") == "sender" and dead.get("lost") is None
               and dead.get("rx_packets") == sent[1] > 0,
               f"{nic(1, r)}'s flow marked sender, its rx {dead.get('rx_packets')} == what the kernel saw "
               f"{veth(1, r)} send {sent[1]} (less its ARP)")
        expect(live.get("tx_packets") == live.get("rx_packets") == sent[0] and live.get("lost") == 0,
               f"{nic(0, r)}'s flow whole: tx == rx == {veth(0, r)}'s kernel tx {sent[0]} (less its ARP), lost 0")


def case_missing(tmp):
    setup()
    before = links()
    p, out = mpirun(tmp, profile("  - {name: r0, pattern: all-to-all, hosts: \"*.nic0\", rate: 20M, messages: 2}\n"
                                 "  - {name: r1, pattern: all-to-all, hosts: \"*.nic1\", rate: 20M, messages: 2}",
                                 lambda k, r: port(k, r, "rpm-none") if (k, r) == (2, 1) else port(k, r),
                                 lambda k: f" node: {socket.gethostname()},"))
    after = links()
    ours = said(p)
    node = socket.gethostname()
    expect(p.returncode == 2 and len(ours) == 1 and "h2.nic1" in ours[0] and "rank 2" in ours[0] and node in ours[0]
           and "interface 'rpm-none' does not exist" in ours[0],
           f"exit 2, one line naming h2.nic1, rank 2, node {node}, the reason: no interface rpm-none ({ours})")
    sent = {v: after[v]["tx"] - before[v]["tx"] for v in (veth(k, r) for k, r in NICS)
            if after[v]["tx"] != before[v]["tx"]}
    expect(not sent, f"no rank sent a frame on any NIC ({sent})")
    expect(not os.path.exists(out), "no result directory")


def case_template(tmp):
    setup(static_fdb=False)  # the bridges learn the MACs the ports read for themselves
    # The kernel holds the addresses (what ipv4: netdev reads) but stays out of the way: no ARP
    # answers of its own, and the RoCE frames to it land in a UDP socket (no ICMP unreachables).
    for r in range(RAILS):
        sh(f"sysctl -qw net.ipv4.conf.rpm-br{r}.arp_ignore=8")
    for k, r in NICS:
        sh(f"sysctl -qw net.ipv4.conf.{veth(k, r)}.arp_ignore=8")
        sh(f"ip addr add 10.95.{r}.{k + 1}/24 dev {veth(k, r)}")
    sink = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sink.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sink.bind(("0.0.0.0", 4791))
    text = """name: rails-template
defaults: {speed: 1G, opcode: write, message_size: 1024, mtu: 1024, dscp: 26, ecn: not-ect}
host_template:
  count: ranks
  name: "h{i}"
  mac: auto
  ipv4: netdev
  nics:
    - {port: "net_af_packet0,iface=rpm-{rank}0,framecnt=4096"}
    - {port: "net_af_packet1,iface=rpm-{rank}1,framecnt=4096"}
traffic:
  - {name: r0, pattern: all-to-all, hosts: "*.nic0", rate: 20M, message_size: 64KiB, messages: 2}
  - {name: r1, pattern: all-to-all, hosts: "*.nic1", rate: 20M, message_size: 64KiB, messages: 2}
"""
    # The shipped profile of the same shape (32 servers x 4 NICs): its expansion, worked by hand.
    shipped = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "profiles",
                           "cluster-rails-4nic.yaml")
    pl = subprocess.run([ROCEPROBE, "plan", shipped, "--ranks", "32", "--json"], capture_output=True, text=True)
    expect(pl.returncode == 0, f"plan profiles/cluster-rails-4nic.yaml --ranks 32: exit 0 ({pl.stderr.strip()})")
    if pl.returncode == 0:
        pj = json.loads(pl.stdout)
        expect([(h["name"], h["host"], h["nic"], h["rank"]) for h in pj["hosts"]] ==
               [(f"gpu{k:02}.nic{r}", f"gpu{k:02}", r, k) for k in range(32) for r in range(4)],
               "cluster-rails-4nic: 32 servers x 4 NICs, server k's NICs all on rank k")
        expect(len(pj["flows"]) == 4 * 32 * 31 and all(f["src_nic"] == rail_of(f["dst"]) for f in pj["flows"]),
               f"cluster-rails-4nic: 4 rails x 32 x 31 = 3968 flows, each NIC r -> NIC r ({len(pj['flows'])})")
    truth = {}
    for k, r in NICS:  # what the kernel says about each NIC's veth
        a = [x for x in json.loads(sh(f"ip -j addr show {veth(k, r)}"))[0]["addr_info"] if x["family"] == "inet"][0]
        truth[nic(k, r)] = (json.loads(sh(f"ip -j link show {veth(k, r)}"))[0]["address"], a["local"], a["prefixlen"])
    p, out = mpirun(tmp, text)
    sink.close()
    expect(p.returncode == 0,
           f"mpirun -np 3 roceprobe run (template, 2 NICs a host): exit 0 ({p.returncode}: {said(p)})")
    if p.returncode != 0:
        return
    j = json.load(open(os.path.join(out, "result.json")))
    flows = j["flows"]
    want = {(nic(a, r), nic(b, r)) for r in range(RAILS) for a in range(NHOSTS) for b in range(NHOSTS) if a != b}
    expect({(f["src"], f["dst"]) for f in flows} == want and len(flows) == len(want),
           f"every one of the {len(want)} ordered pairs of each rail accounted")
    expect(all(f["tx_packets"] == f["rx_packets"] == 128 and f["lost"] == 0 for f in flows),
           "every pair: 2 x 64 packets sent, all received, none lost "
           f"({[(f['src'], f['dst'], f['tx_packets'], f['rx_packets']) for f in flows]})")
    hosts = {h["name"]: h for h in j.get("hosts", [])}
    for k, r in NICS:
        h = hosts.get(nic(k, r), {})
        got = (h.get("mac"), h.get("ipv4"), h.get("ipv4_prefix"), h.get("mac_from"), h.get("ip_from"), h.get("rank"))
        expect(got == (*truth[nic(k, r)], "port", "netdev", k),
               f"{nic(k, r)}: MAC and address == ip link / ip addr of {veth(k, r)} {truth[nic(k, r)]}, "
               f"read on rank {k} "
               f"({got})")

run_case(globals()["case_" + CASE], "rpm-", teardown, f"cluster-rails-{CASE}")
