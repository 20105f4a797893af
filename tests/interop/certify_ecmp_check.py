#!/usr/bin/python3
"""roceprobe certify --engine run, test 9 (ECMP balance) on two Linux routers doing ECMP.

    [h0 DPDK af_packet] rpe9-a0 ~~ rpe9-a1 -- netns rpe9-r1 == up1 ~~ up1 == netns rpe9-r2 -- rpe9-b1 ~~ rpe9-b0 [h1]
         10.1.0.2/24 gw 10.1.0.1   10.1.0.1/24           10.9.1.1/30  10.9.1.2/30          10.2.0.1/24   10.2.0.2/24 gw 10.2.0.1
                                                    == up2 ~~ up2 ==
                                                         10.9.2.1/30  10.9.2.2/30
    each router: `ip route add <the other's hosts> nexthop via ... dev up1 nexthop via ... dev up2`,
    static neighbours on the uplinks (no ARP on them), IPv6 off, MTU 9000 everywhere.

One `roceprobe run` child (no launcher: both af_packet ports in the root namespace) runs test
9's permutation of the two hosts: h0 -> h1 and h1 -> h0, 8 QPs each, UDP source ports
49152..49159 (sport per-qp), 32 messages of 64 KiB per flow at 50 Mbit/s. The profile's
`switches:` are r1 and r2, each `exec:ip -n NS -j -s link` with a map of `ip -j -s link`
(tx_bytes of [ifname={port}]), interval 200 ms, `ports:` up1 -> the other's up1, up2 -> up2.

    balanced    net.ipv4.fib_multipath_hash_policy=1 (L4: the source ports spread the QPs) and a
                net.ipv4.fib_multipath_hash_seed for which the kernel itself (`ip route get ...
                ipproto udp sport S dport 4791 iif ...`) puts 4 of the 8 QPs on each uplink
    skewed      the same with a seed for which it puts 2 and 6 (share 75%: FAIL)
    unbalanced  hash policy 0 (L3: source and destination address only): every QP of a flow on
                one uplink

Known answers, each case: test 9's measured uplinks' tx_bytes == the kernel's own tx bytes
deltas of up1/up2 in each router (`ip -n NS -s -j link`, read by this test before and after
certify), exactly (nothing else crosses the uplinks); the verdict is PASS iff every router's
uplink shares (the kernel's) are within certify.ecmp.tolerance (25%) of 1/2, else FAIL
ecmp-imbalance; the balanced case PASSes, the skewed and unbalanced ones FAIL. About 5 s.

usage: certify_ecmp_check.py ROCEPROBE   (exit 77 = skipped: no netns/veth here, or no fib_multipath_hash_seed)
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from check import expect, sh  # noqa: E402
from cluster_case import run_case  # noqa: E402

ROCEPROBE = sys.argv[1]
NS = ["rpe9-r1", "rpe9-r2"]
ROOT_IFS = ["rpe9-a0", "rpe9-b0"]
UPS = ["up1", "up2"]
SPORTS = range(49152, 49160)  # sport_base 49152 + QP index 0..7 (test 9's 8 QPs a flow)
TOLERANCE = 0.25  # certify.ecmp.tolerance's default
# Per router: its own hosts' port, its subnet, the other's subnet and host, its uplink addresses (.1 on r1, .2 on r2).
R = [{"ns": NS[0], "down": "rpe9-a1", "net": "10.1.0", "far": "10.2.0.0/24", "src": "10.1.0.2", "dst": "10.2.0.2", "me": 1},
     {"ns": NS[1], "down": "rpe9-b1", "net": "10.2.0", "far": "10.1.0.0/24", "src": "10.2.0.2", "dst": "10.1.0.2", "me": 2}]

if os.geteuid() != 0:
    print("skipped: needs root for netns and veths")
    sys.exit(77)
if not os.path.exists("/proc/sys/net/ipv4/fib_multipath_hash_seed"):
    print("skipped: this kernel has no net.ipv4.fib_multipath_hash_seed (Linux 6.11 on): the balanced split cannot be chosen")
    sys.exit(77)


def nsx(ns, cmd):
    return sh(f"ip netns exec {ns} {cmd}")


def teardown():
    for i in ROOT_IFS:
        sh(f"ip link del {i} 2>/dev/null", check=False)
    for ns in NS:
        sh(f"ip netns del {ns} 2>/dev/null", check=False)


def setup():
    teardown()
    for ns in NS:
        sh(f"ip netns add {ns}")
        nsx(ns, "sysctl -qw net.ipv4.ip_forward=1")
        nsx(ns, "sysctl -qw net.ipv6.conf.all.disable_ipv6=1")
        nsx(ns, "sysctl -qw net.ipv6.conf.default.disable_ipv6=1")
        nsx(ns, "ip link set lo up")
    # One DPDK process with two af_packet ports: far-apart indexes all the same (PACKET_FANOUT
    # group (getpid() ^ ifindex) & 0xffff; router_check.py takes 0x3c00/0x4d11).
    for root, peer, ns, idx in (("rpe9-a0", "rpe9-a1", NS[0], 0x6a00), ("rpe9-b0", "rpe9-b1", NS[1], 0x7b11)):
        sh(f"ip link add {root} index {idx} mtu 9000 type veth peer name {peer} mtu 9000")
        sh(f"ip link set {peer} netns {ns}")
        sh(f"sysctl -qw net.ipv6.conf.{root}.disable_ipv6=1")
        sh(f"ip link set {root} up")
    for u in UPS:
        sh(f"ip -n {NS[0]} link add {u} mtu 9000 type veth peer name {u} mtu 9000 netns {NS[1]}")
    for k, r in enumerate(R):
        ns = r["ns"]
        for i in [r["down"]] + UPS:
            nsx(ns, f"ip link set {i} up")
        nsx(ns, f"ip addr add {r['net']}.1/24 dev {r['down']}")
        for n, u in enumerate(UPS, 1):
            nsx(ns, f"ip addr add 10.9.{n}.{r['me']}/30 dev {u}")
        # The uplinks' neighbours as the kernel would learn them, but permanent: no ARP on the uplinks.
        other = R[1 - k]["ns"]
        for n, u in enumerate(UPS, 1):
            mac = json.loads(sh(f"ip -n {other} -j link show {u}"))[0]["address"]
            nsx(ns, f"ip neigh replace 10.9.{n}.{3 - r['me']} lladdr {mac} dev {u} nud permanent")
        hops = " ".join(f"nexthop via 10.9.{n}.{3 - r['me']} dev {u}" for n, u in enumerate(UPS, 1))
        nsx(ns, f"ip route add {r['far']} {hops}")


def hash_policy(policy, seed):
    for ns in NS:
        nsx(ns, f"sysctl -qw net.ipv4.fib_multipath_hash_policy={policy}")
        if seed is not None:
            nsx(ns, f"sysctl -qw net.ipv4.fib_multipath_hash_seed={seed}")


def kernel_split(r):
    """The uplink the kernel picks for each of the flow's QPs leaving router r: {up: QPs}."""
    got = {u: 0 for u in UPS}
    for s in SPORTS:
        out = nsx(r["ns"], f"ip -j route get {r['dst']} from {r['src']} iif {r['down']} ipproto udp sport {s} dport 4791")
        got[json.loads(out)[0]["dev"]] += 1
    return got


def seed_where(want):
    """A hash seed for which every router's split of its flow's 8 QPs (by the kernel's `ip route get`) is
    want, sorted ([4, 4]: balanced; [2, 6]: skewed)."""
    for seed in range(1, 400):
        hash_policy(1, seed)
        if all(sorted(kernel_split(r).values()) == want for r in R):
            return seed
    return None


def tx_bytes():
    """Each router's uplinks' tx bytes, from the kernel: {(router, up): bytes}."""
    out = {}
    for k, ns in enumerate(NS):
        for e in json.loads(sh(f"ip -n {ns} -s -j link")):
            if e["ifname"] in UPS:
                out[(f"r{k + 1}", e["ifname"])] = e["stats64"]["tx"]["bytes"]
    return out


def write_profile(tmp):
    maps = []
    for k, r in enumerate(R):
        path = os.path.join(tmp, f"r{k + 1}.map.json")
        with open(path, "w") as f:
            json.dump({"ports": [r["down"]] + UPS, "counters": {"tx_bytes": "[ifname={port}].stats64.tx.bytes",
                                                                  "rx_bytes": "[ifname={port}].stats64.rx.bytes"}}, f)
        maps.append(path)
    text = f"""name: certify-ecmp
defaults: {{speed: 20M, dscp: 24, ecn: not-ect}}
hosts:
  - {{name: h0, mac: "02:00:00:00:09:01", ipv4: 10.1.0.2/24, gateway: 10.1.0.1, port: "net_af_packet0,iface=rpe9-a0,framecnt=2048"}}
  - {{name: h1, mac: "02:00:00:00:09:02", ipv4: 10.2.0.2/24, gateway: 10.2.0.1, port: "net_af_packet1,iface=rpe9-b0,framecnt=2048"}}
traffic:
  - {{name: any, pattern: flow, src: h0, dst: h1, rate: 10%, messages: 1}}
certify: {{lossless: [3], lossy: 0, messages: 8}}
switches:
  - name: r1
    source: "exec:ip -n {NS[0]} -j -s link"
    map: {maps[0]}
    interval: 200ms
    ports: {{rpe9-a1: h0, up1: "r2:up1", up2: "r2:up2"}}
  - name: r2
    source: "exec:ip -n {NS[1]} -j -s link"
    map: {maps[1]}
    interval: 200ms
    ports: {{rpe9-b1: h1, up1: "r1:up1", up2: "r1:up2"}}
"""
    path = os.path.join(tmp, "p.yaml")
    with open(path, "w") as f:
        f.write(text)
    return path


def certify9(tmp, path, name):
    out = os.path.join(tmp, name)
    before = tx_bytes()
    p = subprocess.run([ROCEPROBE, "certify", path, "-o", out, "--engine", "run", "--only", "9", "--run-timeout", "60"],
                       capture_output=True, text=True, timeout=120)
    after = tx_bytes()
    print(p.stderr.strip()[-2000:])
    delta = {k: after[k] - before[k] for k in after}
    ok = os.path.exists(os.path.join(out, "result.json"))
    expect(ok and p.returncode in (0, 1), f"{name}: certify wrote result.json, exit 0 or 1 ({p.returncode})")
    if not ok:
        return None, delta
    j = json.load(open(os.path.join(out, "result.json")))
    return next(t for t in j["tests"] if t["id"] == 9), delta


def judge(name, t, delta, want):
    m = t["measured"]
    ups = {(u["switch"], u["port"]): u for u in m.get("uplinks", [])}
    print(f"{name}: test 9 {t['verdict']} {t.get('reason') or ''} {t.get('cause')}; uplinks "
          f"{[(k, u['tx_bytes'], round(u['share'], 3)) for k, u in sorted(ups.items())]}; kernel {sorted(delta.items())}; "
          f"min_flow_share {m.get('min_flow_share')}, min_offered_share {m.get('min_offered_share')}")
    expect(set(ups) == set(delta), f"{name}: test 9 measured each router's two uplinks ({sorted(ups)})")
    for k, v in sorted(delta.items()):
        got = ups.get(k, {}).get("tx_bytes")
        expect(got == v, f"{name}: {k[0]} {k[1]} sent {got} B by test 9's measure, {v} B by the kernel's counters")
    fair = True
    for r in ("r1", "r2"):
        tot = sum(v for k, v in delta.items() if k[0] == r)
        shares = [delta[(r, u)] / tot if tot else 0 for u in UPS]
        fair = fair and tot > 0 and all(abs(s - 0.5) * 2 <= TOLERANCE for s in shares)
        print(f"{name}: {r}'s uplink shares by the kernel {[round(s, 3) for s in shares]}")
    expect(t["verdict"] == ("PASS" if fair else "FAIL"), f"{name}: test 9 {t['verdict']}: PASS iff the kernel's "
           f"uplink shares are within {TOLERANCE:.0%} of 1/2 ({fair})")
    if t["verdict"] == "FAIL":
        expect((t["cause"] or {}).get("code") == "ecmp-imbalance", f"{name}: cause ecmp-imbalance ({t['cause']})")
    expect(t["verdict"] == want, f"{name}: test 9 {want} ({t['verdict']})")


def dpdk_dirs():
    return set(d for d in os.listdir("/var/run/dpdk") if d.startswith("rp")) if os.path.isdir("/var/run/dpdk") else set()


def case(tmp):
    had = dpdk_dirs()
    setup()
    path = write_profile(tmp)
    for name, split, want in (("balanced", [4, 4], "PASS"), ("skewed", [2, 6], "FAIL")):
        seed = seed_where(split)
        expect(seed is not None, f"{name}: a fib_multipath_hash_seed splits each router's 8 QPs {split} (ip route get)")
        if seed is None:
            continue
        print(f"{name}: hash policy 1, seed {seed}: r1 {kernel_split(R[0])}, r2 {kernel_split(R[1])}")
        t, delta = certify9(tmp, path, name)
        if t:
            judge(name, t, delta, want)
    hash_policy(0, None)
    print(f"unbalanced: hash policy 0: r1 {kernel_split(R[0])}, r2 {kernel_split(R[1])}")
    t, delta = certify9(tmp, path, "unbalanced")
    if t:
        judge("unbalanced", t, delta, "FAIL")
    left = dpdk_dirs() - had
    expect(not left, f"no DPDK runtime directory left behind ({sorted(left)})")


run_case(case, "rpe9-", teardown, "certify-ecmp")
