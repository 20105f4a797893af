#!/usr/bin/python3
"""roceprobe counters against truths it did not compute.

    files   the saved dumps of tests/data/counters through the command (--json, text), and
            bad input: one line on stderr, exit 2, nothing on stdout
    watch   --watch 50ms --json on sysfs:lo, stopped by SIGINT and by SIGTERM: every line
            whole JSON, the first the snapshot, then deltas, t_ns increasing
    veth    a veth pair of its own (rp24c0 in the root namespace, rp24c1 in netns rp24c-ns,
            IPv6 off so nothing talks but us):
              ethtool:rp24c0's names and values == `ethtool -S rp24c0`
              sysfs:rp24c0's --watch deltas over 5 datagrams, summed == `ip -s link`'s change
            (exit 77 = skipped: not root, no veth/netns, no ethtool)
    run     `roceprobe run` on a veth pair of its own (rp24r0 -> rp24r1, net_af_packet, both in
            the root namespace, IPv6 off) for --duration 1 at --counter-interval 200ms, plus
            two net_null hosts; result.json counters.nics[]:
              sysfs: summed deltas + the ARP frames the run sent/received before its first
              sample (environment.ports[].neigh) == `ip -s link`'s change, every key
              ethtool: summed deltas == `ethtool -S`'s change, every counter
              samples: start + elapsed/200ms + end, worked by hand (+-1), t_ns increasing
              net_null: a series with no source and the reason
            --counter-interval below 1ms or not a duration: one line, exit 2, no DIR

usage: counters_check.py ROCEPROBE DATA_DIR CASE
"""
import fcntl
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from check import expect, finish  # noqa: E402

RP, DATA, CASE = sys.argv[1], sys.argv[2], sys.argv[3]


def rp(*args):
    return subprocess.run([RP, "counters", *args], capture_output=True, text=True, timeout=60)


def one_line_exit2(p, what, needle):
    expect(p.returncode == 2 and p.stdout == "" and p.stderr.count("\n") == 1 and needle in p.stderr,
           f"{what}: exit 2, one line naming it ({p.returncode}: {p.stderr.strip()!r})")


def prio(port, q):
    return next((e for e in port["prio"] if e["prio"] == q), {})


def case_files():
    p = rp(f"ethtool-file:{DATA}/counters/mlx5_core.txt", "--json")
    lines = p.stdout.splitlines()
    expect(p.returncode == 0 and len(lines) == 1, f"mlx5_core dump --json: one line, exit 0 ({p.returncode}, {len(lines)})")
    r = json.loads(lines[0])
    port = r["ports"][0]
    expect(r["schema"] == "roceprobe.counters/1" and r["kind"] == "snapshot" and port["name"] == "mlx5_core.txt",
           "schema, kind snapshot, the port named after the file")
    # en_stats.c names; PFC on priorities 3 and 4 (values in the dump, chosen by hand)
    expect(prio(port, 3).get("pfc_rx") == 120 and prio(port, 3).get("pause_us_rx") == 4500
           and prio(port, 3).get("xoff_to_xon") == 60 and prio(port, 4).get("pfc_rx") == 8,
           f"prio 3: pfc_rx 120, pause_us_rx 4500, xoff_to_xon 60; prio 4 pfc_rx 8 ({prio(port, 3)})")
    expect(port.get("rx_out_of_buffer") == 7 and port.get("rx_discards_phy") == 11
           and port.get("pause_storm_events") == 1 and port["raw"].get("ch0_events") == 12345,
           "rx_out_of_buffer 7, rx_discards_phy 11, pause_storm_events 1, ch0_events 12345 raw")
    # ice: XON + XOFF per priority (40 + 100 = 140; 5 + 0 = 5)
    port = json.loads(rp(f"ethtool-file:{DATA}/counters/ice.txt", "--json").stdout)["ports"][0]
    expect(prio(port, 3).get("pfc_rx") == 140 and prio(port, 4).get("pfc_rx") == 5,
           f"ice: pfc_rx prio 3 140 (40 XON + 100 XOFF), prio 4 5 (XON alone) ({prio(port, 3)}, {prio(port, 4)})")
    # two sources: one line each, in order
    p = rp(f"ethtool-file:{DATA}/counters/bnxt_en.txt", f"rdma-dir:{DATA}/counters/rxe0-hw_counters", "--json")
    lines = [json.loads(x) for x in p.stdout.splitlines()]
    expect([x["source"].split(":")[0] for x in lines] == ["ethtool-file", "rdma-dir"]
           and lines[1]["ports"][0].get("retransmissions") == 7 and lines[1]["ports"][0]["gauges"] == {"lifespan": 10},
           "two sources: two lines; rxe's completer_retry_err 7 as retransmissions, lifespan a gauge")
    p = rp(f"ethtool-file:{DATA}/counters/mlx5_core.txt")
    expect(p.returncode == 0 and "pfc_rx" in p.stdout and "rx_vport_rdma_unicast_packets" in p.stdout,
           "text: the priority table and the raw names")
    one_line_exit2(rp("snmp:switch1"), "unknown kind", "ethtool:IFACE")
    one_line_exit2(rp("ethtool:rp24-none0"), "missing interface", "rp24-none0")
    one_line_exit2(rp("sysfs:rp24-none0"), "missing interface (sysfs)", "rp24-none0")
    one_line_exit2(rp("ethtool-file:/nonexistent/eth0.txt"), "missing file", "/nonexistent/eth0.txt")
    one_line_exit2(rp(f"ethtool-file:{DATA}/vectors.txt"), "not ethtool -S output", "line ")
    one_line_exit2(rp("rdma:rp24_none"), "missing RDMA device", "rp24_none")
    one_line_exit2(rp("sysfs:lo", "--port", "1"), "--port without rdma:", "--port")
    one_line_exit2(rp("sysfs:lo", "--watch", "0"), "--watch 0", "--watch")
    one_line_exit2(rp(), "no source", "SOURCE")
    # a good source before a bad one: still nothing printed
    one_line_exit2(rp("sysfs:lo", "ethtool-file:/nonexistent/x"), "good then bad source", "/nonexistent/x")
    p = rp("--help")
    expect(p.returncode == 0 and "example" in p.stdout and "rdma-dir:PATH" in p.stdout, "--help teaches, exit 0")


def watch(sig):
    p = subprocess.Popen([RP, "counters", "sysfs:lo", "--watch", "50ms", "--json"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    time.sleep(0.7)
    p.send_signal(sig)
    out, err = p.communicate(timeout=10)
    name = signal.Signals(sig).name
    lines = out.split("\n")
    expect(p.returncode == 0 and out.endswith("\n") and err == "", f"{name}: exit 0, output ends with a whole line ({p.returncode}, {err!r})")
    try:
        recs = [json.loads(x) for x in lines[:-1]]
    except ValueError as e:
        expect(False, f"{name}: every line is JSON ({e})")
        return
    expect(len(recs) >= 5, f"{name}: {len(recs)} lines in 0.7 s at 50 ms (>= 5)")
    expect(recs[0]["kind"] == "snapshot" and all(r["kind"] == "delta" for r in recs[1:]),
           f"{name}: the first line the snapshot, then deltas")
    ts = [r["t_ns"] for r in recs]
    expect(all(b > a for a, b in zip(ts, ts[1:])), f"{name}: t_ns increases")
    iv = [r["interval_ns"] for r in recs[1:]]
    expect(all(30e6 < x < 200e6 for x in iv), f"{name}: interval_ns near 50 ms ({min(iv)}..{max(iv)})")


def case_watch():
    watch(signal.SIGINT)
    watch(signal.SIGTERM)
    p = subprocess.Popen([RP, "counters", "sysfs:lo", "--watch", "50ms"], stdout=subprocess.PIPE, text=True)
    time.sleep(0.3)
    p.send_signal(signal.SIGINT)
    out, _ = p.communicate(timeout=10)
    expect(p.returncode == 0 and out.endswith("\n") and " sysfs:lo" in out, "text --watch: lines, exit 0 at SIGINT")


A, B, NS = "rp24c0", "rp24c1", "rp24c-ns"


def sh(cmd, check=True):
    return subprocess.run(cmd, shell=True, capture_output=True, text=True, check=check)


def teardown():
    sh(f"ip link del {A} 2>/dev/null", check=False)
    sh(f"ip netns del {NS} 2>/dev/null", check=False)


def ethtool_s(iface):
    """`ethtool -S IFACE` as {name: value} (everything before the last ':' is the name)."""
    out = sh(f"ethtool -S {iface}").stdout
    stats = {}
    for line in out.splitlines()[1:]:
        name, _, value = line.strip().rpartition(":")
        stats[name.strip()] = int(value)
    return stats


def ip_stats(iface):
    s = json.loads(sh(f"ip -s -j link show {iface}").stdout)[0]["stats64"]
    return {"rx_packets": s["rx"]["packets"], "rx_bytes": s["rx"]["bytes"], "rx_errors": s["rx"]["errors"],
            "rx_dropped": s["rx"]["dropped"], "tx_packets": s["tx"]["packets"], "tx_bytes": s["tx"]["bytes"],
            "tx_errors": s["tx"]["errors"], "tx_dropped": s["tx"]["dropped"]}


def case_veth():
    if os.geteuid() != 0 or not shutil.which("ethtool"):
        print("skipped: needs root and ethtool")
        sys.exit(77)
    lock = open("/tmp/roceprobe-rp24c.lock", "w")  # every worktree has these names
    fcntl.flock(lock, fcntl.LOCK_EX)
    teardown()
    try:
        sh(f"ip netns add {NS}")
        sh(f"ip link add {A} type veth peer name {B} netns {NS}")
    except subprocess.CalledProcessError as e:
        teardown()
        print(f"skipped: no veth/netns here ({e.stderr.strip()})")
        sys.exit(77)
    try:
        sh(f"sysctl -qw net.ipv6.conf.{A}.disable_ipv6=1")
        sh(f"ip netns exec {NS} sysctl -qw net.ipv6.conf.{B}.disable_ipv6=1")
        sh(f"ip addr add 10.24.99.1/30 dev {A}")
        sh(f"ip link set {A} up")
        sh(f"ip netns exec {NS} ip addr add 10.24.99.2/30 dev {B}")
        sh(f"ip netns exec {NS} ip link set {B} up")
        time.sleep(0.3)
        # the ioctl reader against ethtool's own: same names, same values (veth's are
        # peer_ifindex, a gauge, and per-queue XDP counts that no traffic moves here)
        truth = ethtool_s(A)
        p = rp(f"ethtool:{A}", "--json")
        port = json.loads(p.stdout)["ports"][0]
        mine = dict(port["raw"], **port["gauges"])
        for k in port:
            if k not in ("name", "driver", "prio", "raw", "gauges"):
                mine[k] = port[k]
        expect(len(truth) > 1 and mine == truth, f"ethtool:{A} == ethtool -S {A} ({len(truth)} names)")
        expect(port.get("driver") == "veth" and port["gauges"].get("peer_ifindex") == truth.get("peer_ifindex"),
               f"driver veth; peer_ifindex {truth.get('peer_ifindex')} a gauge")
        # sysfs deltas over traffic against ip -s link's change
        before = ip_stats(A)
        w = subprocess.Popen([RP, "counters", f"sysfs:{A}", "--watch", "100ms", "--json"], stdout=subprocess.PIPE,
                             text=True)
        first = json.loads(w.stdout.readline())
        snap0 = {k: first["ports"][0][k] for k in before}
        # 5 UDP datagrams of 100 bytes to the peer (no ping here): ARP, then 5 frames out
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as u:
            for _ in range(5):
                u.sendto(b"x" * 100, ("10.24.99.2", 9))
                time.sleep(0.1)
        time.sleep(0.5)
        after = ip_stats(A)
        time.sleep(0.3)
        w.send_signal(signal.SIGINT)
        out, _ = w.communicate(timeout=10)
        sums = dict.fromkeys(before, 0)
        for line in out.splitlines():
            d = json.loads(line)["ports"][0]
            for k in sums:
                sums[k] += d[k]
        change = {k: after[k] - before[k] for k in before}
        expect(snap0 == before, f"first line == ip -s link before ({snap0} vs {before})")
        expect(sums == change, f"summed deltas == ip -s link's change {change}")
        # out: one ARP request (42 B) and the 5 datagrams, 14 + 20 + 8 + 100 = 142 B each:
        # 6 frames, 42 + 5 x 142 = 752 B
        expect(sums["tx_packets"] == 6 and sums["tx_bytes"] == 752,
               f"tx: 6 frames, 752 bytes (ARP + 5 x 142) ({sums['tx_packets']}, {sums['tx_bytes']})")
    finally:
        teardown()


RUN_PROFILE = """name: ctr
defaults: {speed: 1G, opcode: write, message_size: 4096, mtu: 1024, dscp: 26, ecn: ect0}
hosts:
  - {name: h1, mac: "02:00:00:00:00:01", ipv4: 10.24.98.1, port: "net_af_packet0,iface=rp24r0"}
  - {name: h2, mac: "02:00:00:00:00:02", ipv4: 10.24.98.2, port: "net_af_packet1,iface=rp24r1"}
  - {name: h3, mac: "02:00:00:00:00:03", ipv4: 10.24.98.3, port: "net_null0"}
  - {name: h4, mac: "02:00:00:00:00:04", ipv4: 10.24.98.4, port: "net_null1"}
traffic:
  - {name: f, pattern: flow, src: h1, dst: h2, rate: 50M, messages: 1000000}
  - {name: n, pattern: flow, src: h3, dst: h4, rate: 1M, messages: 10}
"""


def case_run():
    if os.geteuid() != 0 or not shutil.which("ethtool"):
        print("skipped: needs root and ethtool")
        sys.exit(77)
    ra, rb = "rp24r0", "rp24r1"
    lock = open("/tmp/roceprobe-rp24r.lock", "w")  # every worktree has these names
    fcntl.flock(lock, fcntl.LOCK_EX)
    sh(f"ip link del {ra} 2>/dev/null", check=False)
    if sh(f"ip link add {ra} type veth peer name {rb}", check=False).returncode != 0:
        print("skipped: no veth here")
        sys.exit(77)
    tmp = f"/tmp/rp24r-{os.getpid()}"
    try:
        for i in (ra, rb):
            sh(f"sysctl -qw net.ipv6.conf.{i}.disable_ipv6=1")
            sh(f"ip link set {i} up")
        time.sleep(0.3)
        os.makedirs(tmp)
        with open(f"{tmp}/p.yaml", "w") as f:
            f.write(RUN_PROFILE)
        before = {i: ip_stats(i) for i in (ra, rb)}
        eth_before = {i: ethtool_s(i) for i in (ra, rb)}
        p = subprocess.run([RP, "run", f"{tmp}/p.yaml", "-o", f"{tmp}/out", "--duration", "1", "--counter-interval",
                            "200ms", "--neigh-refresh", "off"], capture_output=True, text=True, timeout=60)
        after = {i: ip_stats(i) for i in (ra, rb)}
        eth_after = {i: ethtool_s(i) for i in (ra, rb)}
        if not expect(p.returncode == 0, f"run exits 0 ({p.returncode}: {p.stderr.strip()[-300:]})"):
            return
        res = json.load(open(f"{tmp}/out/result.json"))
        nics = res["counters"]["nics"]
        neigh = {q["node"]: q["neigh"] for q in res["environment"]["ports"]}
        series = {(n["host"], n["source"]): n for n in nics}
        expect(sorted(series) == sorted([("h1", f"ethtool:{ra}"), ("h1", f"sysfs:{ra}"), ("h2", f"ethtool:{rb}"),
                                         ("h2", f"sysfs:{rb}"), ("h3", None), ("h4", None)]),
               f"a series per source: ethtool and sysfs of each veth, none for net_null ({sorted(series, key=str)})")
        for h, iface in (("h1", ra), ("h2", rb)):
            n = series.get((h, f"sysfs:{iface}"))
            if not n:
                continue
            sums = dict.fromkeys(before[iface], 0)
            for smp in n["samples"]:
                for k in sums:
                    sums[k] += smp.get(k, 0)
            # before the first sample (at T0) the run's ARP probes and announcements, which
            # environment.ports[].neigh counts, 60 B each on the wire (padded)
            q = neigh[h]
            tx0 = q["arp_requests_tx"] + q["arp_replies_tx"] + q["nd_solicits_tx"] + q["nd_adverts_tx"]
            rx0 = q["arp_requests_rx"] + q["arp_replies_rx"] + q["nd_solicits_rx"] + q["nd_adverts_rx"]
            setup = dict.fromkeys(sums, 0)
            setup.update(tx_packets=tx0, tx_bytes=60 * tx0, rx_packets=rx0, rx_bytes=60 * rx0)
            change = {k: after[iface][k] - before[iface][k] for k in sums}
            mine = {k: sums[k] + setup[k] for k in sums}
            expect(mine == change, f"{h} sysfs:{iface}: summed deltas + set-up ARP {setup} == ip -s link's "
                                   f"change {change} ({mine})")
            # 8 frames of 1078 B per 4 KiB message at mtu 1024 (the FIRST 1098 B): frames moved
            moved = sums["tx_packets"] if h == "h1" else sums["rx_packets"]
            expect(moved > 1000, f"{h}: the run's frames are in the series ({moved})")
            # start + one per 200 ms of the run + the end (after its last frame)
            want = 2 + res["elapsed_ns"] // 200_000_000
            ts = [smp["t_ns"] for smp in n["samples"]]
            expect(abs(len(ts) - want) <= 1 and n["interval_ns"] == 200_000_000,
                   f"{h}: {len(ts)} samples, start + {res['elapsed_ns'] / 1e9:.3f} s / 200 ms + end = {want} (+-1)")
            expect(ts == sorted(ts) and ts[0] < 200_000_000 and ts[-1] >= res["elapsed_ns"] - 1_000_000,
                   f"{h}: t_ns increasing from the start to the end of the run ({ts[0]} .. {ts[-1]})")
        for h, iface in (("h1", ra), ("h2", rb)):
            n = series.get((h, f"ethtool:{iface}"))
            if not n:
                continue
            sums = {}
            for smp in n["samples"]:
                flat = dict(smp["raw"])
                flat.update({k: v for k, v in smp.items() if isinstance(v, int) and k != "t_ns"})
                for k, v in flat.items():
                    sums[k] = sums.get(k, 0) + v
            change = {k: eth_after[iface][k] - eth_before[iface][k] for k in eth_after[iface] if k != "peer_ifindex"}
            mine = {k: sums.get(k, 0) for k in change}
            expect(len(change) > 1 and mine == change and n["samples"][0]["gauges"].get("peer_ifindex")
                   == eth_after[iface]["peer_ifindex"],
                   f"{h} ethtool:{iface}: summed deltas == ethtool -S's change ({len(change)} counters), "
                   f"peer_ifindex a gauge")
        for bad in ("10us", "x", "-1"):
            b = subprocess.run([RP, "run", f"{tmp}/p.yaml", "-o", f"{tmp}/bad", "--counter-interval", bad],
                               capture_output=True, text=True, timeout=60)
            expect(b.returncode == 2 and b.stderr.count("\n") == 1 and "--counter-interval" in b.stderr
                   and not os.path.exists(f"{tmp}/bad"), f"--counter-interval {bad}: one line, exit 2 ({b.stderr!r})")
        for h in ("h3", "h4"):
            n = series.get((h, None))
            expect(n and n["samples"] == [] and "no Linux netdev" in n.get("reason", ""),
                   f"{h} (net_null): no source, the reason said ({n and n.get('reason')})")
    finally:
        sh(f"ip link del {ra} 2>/dev/null", check=False)
        shutil.rmtree(tmp, ignore_errors=True)


{"files": case_files, "watch": case_watch, "veth": case_veth, "run": case_run}[CASE]()
finish(f"counters-{CASE}")
