#!/usr/bin/python3
"""roceprobe switch in real time between veths, with roceprobe run as the endpoints:
a 2:1 incast into a 100 Mbit/s port, lossless (PFC) and lossy.

    roceprobe run (CPU 0)                   roceprobe switch (CPU 1), 100 Mbit/s ports
    [A] net_af_packet0 hA0 ~~ hA1  port 0 --+
    [B] net_af_packet1 hB0 ~~ hB1  port 1 --+--> port 2  hC1 ~~ hC0 net_af_packet2 [C]
    A -> C and B -> C, RDMA WRITE 1 KiB (frames 1098 B), DSCP 26 (priority 3), 80 Mbit/s
    each for 1 s: 160 Mbit/s offered to 100 Mbit/s. Static MAC table (--fdb).

lossless (--profile with the run's profile plus `fabric: {ecn: {priorities: []}}`: the
lab's defaults, priority 3 lossless; then --xoff 64KiB --headroom 128KiB): the switch's
config is that section changed by the flags (lossless_mask 8, XOFF 65536, XON delta the
lab's 18432, headroom 131072), and it must pause A and B. Expected: no flow loses a frame;
every PFC frame the switch sent on port 0 (1) is one A (B) received; A and B were paused
(paused_ns > 0); nothing dropped in the switch; C received exactly what left port 2.
lossy (no --lossless, 256 KiB buffer): the switch tail-drops. Expected: the run's per-flow
lost, summed, == the drops the switch reports, exactly; the switch holds nothing at the end.

Frames can also be lost in the kernel between the two processes: a veth backlog drop
(`ip -s link` dropped, read and counted in), or a full af_packet RX ring when a poller is
held back (the socket's tp_drops: DPDK 22.11's af_packet PMD does not report it and
nothing outside the socket shows it). The rings here hold 4096 frames (~0.4 s of this
traffic), so only a machine that starves a poller that long loses frames there; the
per-port equalities (switch rx == host sent, port 2 sent == C received) then fail and
say on which side.

usage: switch_check.py ROCEPROBE   (exit 77 = skipped: not root, or no veth here)
"""
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from check import expect, finish, sh  # noqa: E402

ROCEPROBE = sys.argv[1]
HOSTS = ["A", "B", "C"]
MACS = {"A": "02:00:00:00:00:0a", "B": "02:00:00:00:00:0b", "C": "02:00:00:00:00:0c"}


def ifaces():
    return [f"h{h}{i}" for h in HOSTS for i in (0, 1)]


def teardown():
    for h in HOSTS:
        sh(f"ip link del h{h}0 2>/dev/null", check=False)


def setup():
    # DPDK's af_packet PMD joins each socket to PACKET_FANOUT group (pid ^ ifindex) & 0xffff:
    # the run's end of a veth and the switch's end (adjacent ifindexes, pids often adjacent
    # too) can land on the same group id, which the kernel refuses (EINVAL). Ifindexes
    # far apart keep the two processes' groups apart.
    teardown()
    for k, h in enumerate(HOSTS):
        if subprocess.run(f"ip link add h{h}0 index {21001 + k} type veth peer name h{h}1 index {25001 + k}",
                          shell=True, capture_output=True).returncode != 0:
            sh(f"ip link add h{h}0 type veth peer name h{h}1")
    for i in ifaces():
        sh(f"sysctl -qw net.ipv6.conf.{i}.disable_ipv6=1", check=False)
        sh(f"ip link set {i} up")


def kernel_drops():
    drops = {}
    for i in ifaces():
        st = json.loads(sh(f"ip -s -j link show {i}"))[0]["stats64"]
        drops[i] = st["rx"]["dropped"] + st["tx"]["dropped"]
    return drops


PROFILE = """name: switch-incast
defaults: {speed: 100M, opcode: write, message_size: 1024, mtu: 1024, dscp: 26, ecn: not-ect}
hosts:
  - {name: A, mac: "02:00:00:00:00:0a", ipv4: 10.98.0.1, port: "net_af_packet0,iface=hA0,framecnt=4096"}
  - {name: B, mac: "02:00:00:00:00:0b", ipv4: 10.98.0.2, port: "net_af_packet1,iface=hB0,framecnt=4096"}
  - {name: C, mac: "02:00:00:00:00:0c", ipv4: 10.98.0.3, port: "net_af_packet2,iface=hC0,framecnt=4096"}
traffic:
  - {name: incast, pattern: incast, senders: [A, B], receiver: C, rate: 80M, duration: 1s}
"""


def start_switch(tmp, extra):
    args = [ROCEPROBE, "switch", "--port", f"net_af_packet0,iface=hA1,{RING}", "--port", f"net_af_packet1,iface=hB1,{RING}",
            "--port", f"net_af_packet2,iface=hC1,{RING}", "--speed", "100M", "--duration", "30", "--json"]
    for i, h in enumerate(HOSTS):
        args += ["--fdb", f"{MACS[h]}={i}"]
    out = open(os.path.join(tmp, "switch.json"), "w")
    err = open(os.path.join(tmp, "switch.err"), "w")
    p = subprocess.Popen(args + extra, stdout=out, stderr=err)
    deadline = time.time() + 20
    while time.time() < deadline and p.poll() is None:
        if "switch " in open(os.path.join(tmp, "switch.err")).read():
            return p  # the first progress line: the poller runs
        time.sleep(0.1)
    p.kill()
    p.wait()
    sys.exit("switch did not start: " + open(os.path.join(tmp, "switch.err")).read().strip())


def stop_switch(p, tmp):
    p.send_signal(signal.SIGINT)
    try:
        rc = p.wait(timeout=10)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
        sys.exit("switch did not stop on SIGINT")
    expect(rc == 0, f"switch exits 0 on SIGINT ({rc})")
    return json.load(open(os.path.join(tmp, "switch.json")))


def run_case(name, extra, fabric=None):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "p.yaml")
        with open(path, "w") as f:
            f.write(PROFILE)
        if fabric:
            with open(os.path.join(tmp, "switch.yaml"), "w") as f:
                f.write(PROFILE + fabric)
            extra = ["--profile", os.path.join(tmp, "switch.yaml")] + extra
        before = kernel_drops()
        sw = start_switch(tmp, extra)
        try:
            r = subprocess.Popen([ROCEPROBE, "run", path, "-o", os.path.join(tmp, "out"), "--duration", "3"],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            out, err = r.communicate(timeout=60)
            p = subprocess.CompletedProcess(r.args, r.returncode, out, err)
            time.sleep(0.2)
        finally:
            s = stop_switch(sw, tmp)
        if p.returncode != 0:
            sys.exit(f"run failed ({p.returncode}): {p.stderr.strip()}")
        j = json.load(open(os.path.join(tmp, "out", "result.json")))
        after = kernel_drops()
    kd = {k: after[k] - before[k] for k in after if after[k] - before[k]}
    kd.update({f"port {k} PMD missed": q["pmd_missed"] for k, q in enumerate(s["ports"]) if q["pmd_missed"]})
    print(f"--- {name}: frames lost in the kernel between the processes: {kd or 0}")
    if kd:
        print("    (a poller was late: the machine is busy; the checks below then count these)")
    return j, s, kd


def switch_ring_drops(kd, iface):
    return sum(v for k, v in kd.items() if k.startswith(iface + " ring"))


RING = "framecnt=4096"  # 8 MiB rings: a poller the machine holds back for < 0.4 s loses nothing


def node(j, n):
    return next(p for p in j["ports"] if p["node"] == n)


def prio3(port):
    return next(q for q in port["prio"] if q["prio"] == 3)


def neigh_tx(j, h, kinds=("arp_requests_tx", "arp_replies_tx", "nd_solicits_tx", "nd_adverts_tx")):
    """The ARP/ND frames host h's port sent (its probe and gratuitous ARP at start, answers)."""
    n = next(p for p in j["environment"]["ports"] if p["node"] == h).get("neigh", {})
    return sum(n.get(k, 0) for k in kinds)


def common(j, s, kd):
    flows = {f["src"]: f for f in j["flows"]}
    for i, h in enumerate(["A", "B"]):
        got, ring = s["ports"][i]["edge"]["rx_frames"], switch_ring_drops(kd, f"h{h}1")
        want = flows[h]["tx_packets"] + neigh_tx(j, h)
        expect(got + ring == want, f"switch port {i} received {got} (+ {ring} lost in its ring) == {h} sent "
                                   f"{flows[h]['tx_packets']} data + {neigh_tx(j, h)} ARP/ND")
    expect([p["port"] for p in s["ports"]] == [0, 1, 2], "ports[].port numbers the ports from 0")
    expect(all([q["prio"] for q in p["prio"]] == list(range(8)) for p in s["ports"]), "every port lists priorities 0..7")
    never = [q["pg"]["first_xoff_ns"] for p in s["ports"] for q in p["prio"] if q["pg"]["xoff_sent"] == 0]
    expect(all(v is None for v in never), f"first_xoff_ns is null for {len(never)} groups that never sent XOFF")
    c_tx = s["ports"][2]["tx_pkts"]
    c_rx = sum(f["rx_packets"] for f in j["flows"])
    ring = switch_ring_drops(kd, "hC0")
    # A's and B's ARP probes and gratuitous ARPs are broadcasts: the switch floods them to C too.
    flood = sum(neigh_tx(j, h, ("arp_requests_tx", "nd_solicits_tx")) for h in ("A", "B"))
    expect(c_tx == c_rx + ring + flood, f"port 2 sent {c_tx} frames == C received {c_rx} data (+ {ring} lost in its "
                                        f"ring) + {flood} flooded ARP/ND")
    m = s["ports"][2]
    busy = (m["tx_bytes"] + 24 * m["tx_pkts"]) * 8 * 10**9 // 10**8
    expect(abs(m["busy_ns"] - busy) <= m["tx_pkts"], f"port 2 busy {m['busy_ns']} ns == (bytes + 24/frame) x 8 / 100M = {busy}")
    expect(s["buffer"]["held_pkts"] == 0, "the switch holds nothing at the end")
    expect(all(f["duplicates"] == 0 and f["reordered"] == 0 for f in j["flows"]), "no duplicates, no reordering")


def case_lossless():
    j, s, kd = run_case("lossless", ["--xoff", "64KiB", "--headroom", "128KiB"], "fabric:\n  ecn: {priorities: []}\n")
    c = s["config"]
    expect((c["lossless_mask"], c["xoff_bytes"], c["xon_delta_bytes"], c["headroom_bytes"]) == (8, 65536, 18432, 131072),
           f"--profile's fabric: section then the flags: {c}")
    expect(all(q["lossless"] == (q["prio"] == 3) for p in s["ports"] for q in p["prio"]), "priority 3 alone is lossless")
    expect(all(q["queue"]["ecn_marked"] == 0 for p in s["ports"] for q in p["prio"]), "ecn.priorities [] marks nothing")
    common(j, s, kd)
    lost = sum(f["lost"] for f in j["flows"])
    sent = sum(f["tx_packets"] for f in j["flows"])
    kernel = sum(kd.values())
    expect(lost == s["drops"] + kernel, f"lost {lost} == switch drops {s['drops']} + kernel {kernel}")
    if kernel:
        print(f"note  {kernel} frames lost in the kernel: the loss-free checks are skipped")
        return
    expect(lost == 0, f"lossless: no flow lost a frame ({lost} of {sent})")
    expect(s["drops"] == 0, f"the switch dropped nothing ({s['drops']})")
    for i, h in enumerate(["A", "B"]):
        q, pg = prio3(node(j, h)), s["ports"][i]["prio"][3]["pg"]
        sw_pfc = s["ports"][i]["edge"]["tx_pfc"]
        expect(pg["xoff_sent"] > 0 and q["pfc_rx"] > 0, f"the switch paused {h}: XOFF {pg['xoff_sent']}, XON {pg['xon_sent']}")
        expect(q["pfc_rx"] == sw_pfc, f"{h} received {q['pfc_rx']} PFC frames == the switch sent {sw_pfc} on port {i}")
        expect(q["paused_ns"] > 0, f"{h} was paused {q['paused_ns'] / 1e6:.1f} ms (switch PG in XOFF {pg['xoff_ns'] / 1e6:.1f} ms)")
        # The host sees XOFF and XON when its poller comes round: on a quiet machine the two
        # times agree within 1-2%; a busy one stretches the host's side (XON read late).
        expect(q["paused_ns"] >= 0.5 * pg["xoff_ns"], f"{h}'s paused time is at least half the switch's XOFF time")
        expect(pg["max_headroom_bytes"] <= s["config"]["headroom_bytes"], f"port {i} headroom used {pg['max_headroom_bytes']} B")


def case_lossy():
    j, s, kd = run_case("lossy", ["--buffer", "256KiB"])
    common(j, s, kd)
    lost, kernel = sum(f["lost"] for f in j["flows"]), sum(kd.values())
    expect(s["drops"] > 0, f"the switch dropped ({s['drops_by_reason']})")
    expect(lost == s["drops"] + kernel, f"per-flow lost summed {lost} == the switch's drops {s['drops']}"
           + (f" + {kernel} lost in the kernel" if kernel else ""))
    expect(all(prio3(node(j, h))["pfc_rx"] == 0 for h in HOSTS), "no PFC from a lossy switch")


if os.geteuid() != 0:
    print("skipped: needs root for veths")
    sys.exit(77)
try:
    setup()
except (subprocess.CalledProcessError, FileNotFoundError) as e:
    teardown()
    print(f"skipped: cannot create veth pairs here ({e})")
    sys.exit(77)
signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))  # meson's timeout: finally still runs
try:
    case_lossless()
    case_lossy()
finally:
    teardown()
finish("switch")
