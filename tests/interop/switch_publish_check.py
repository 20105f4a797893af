#!/usr/bin/python3
"""roceprobe switch --publish redis://: the switch's own counters in a real redis-server, in
SONiC's COUNTERS_DB layout, read back by redis-cli and by `roceprobe counters sonic://`.

    roceprobe run (CPU 0)                    roceprobe switch (CPU 1), 100 Mbit/s ports
    [A] net_af_packet0 hPA0 ~~ hPA1  port 0 --+        --publish redis://127.0.0.1:PORT
    [B] net_af_packet1 hPB0 ~~ hPB1  port 1 --+--> port 2  hPC1 ~~ hPC0 net_af_packet2 [C]
    A -> C and B -> C, RDMA WRITE 1 KiB, DSCP 26 (priority 3), ECT(0), 80 Mbit/s each for
    1 s: 160 Mbit/s offered to 100 Mbit/s (switch_check.py's incast, with ECN marking on).

The switch is lossless on priority 3 (--xoff 64KiB --headroom 128KiB) and marks ECN on it
(--ecn 5KB,60KB,10%): it pauses A and B (PFC out of ports 0 and 1, into the switch from
nobody) and marks frames leaving port 2. It publishes every 200 ms and once more after
SIGINT. The truth is the switch's own --json summary (its model's counters, written by
lib/report/switch_json.c, not by the publisher): after the stop, every published cell
(redis-cli HGETALL of the name maps and of each COUNTERS:oid / watermark hash) must equal
the summary's number, and `roceprobe counters sonic://` must read the same numbers.
A second switch watches priority 3 with a PFC watchdog (--profile's fabric.pfc.watchdog,
detect 20 ms, restore 100 ms) while C floods PFC for priority 3 (65535 quanta, 335 ms at
100 Mbit/s, 20 a second for 300 ms: a storm) and A writes to C on it: port 2's queue 3 is
held paused with frames waiting, the watchdog finds the storm and, once C has been quiet for
restore, ends it. The published PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED / _RESTORED of each
lossless queue == the summary's wd_storms / wd_restored (and nothing of the watchdog on the
queues it does not watch), and `counters sonic://` reads them as wd_storms_detected/_restored.
Then: a bad URL and a server that is not there (exit 2, one line, no port opened), a
server that goes away mid-run (one line, the switch goes on and exits 0), and SIGTERM
before the first interval (the final publish is there).

usage: switch_publish_check.py ROCEPROBE   (exit 77 = skipped: no redis-server, not root, no veth)
"""
import json
import re
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from check import expect, finish, free_port, sh  # noqa: E402
import redis_srv  # noqa: E402

ROCEPROBE = sys.argv[1]
HOSTS = ["A", "B", "C"]
MACS = {"A": "02:00:00:00:00:0a", "B": "02:00:00:00:00:0b", "C": "02:00:00:00:00:0c"}
RING = "framecnt=4096"
INTERVAL = "200ms"
MPORT = free_port()

PROFILE = """name: switch-publish
defaults: {speed: 100M, opcode: write, message_size: 1024, mtu: 1024, dscp: 26, ecn: ect0}
hosts:
  - {name: A, mac: "02:00:00:00:00:0a", ipv4: 10.97.0.1, port: "net_af_packet0,iface=hPA0,framecnt=4096"}
  - {name: B, mac: "02:00:00:00:00:0b", ipv4: 10.97.0.2, port: "net_af_packet1,iface=hPB0,framecnt=4096"}
  - {name: C, mac: "02:00:00:00:00:0c", ipv4: 10.97.0.3, port: "net_af_packet2,iface=hPC0,framecnt=4096"}
traffic:
  - {name: incast, pattern: incast, senders: [A, B], receiver: C, rate: 80M, duration: 1s}
"""
# The switch's own description (--profile): the watchdog on priority 3 (its flags set the rest).
WD_SWITCH = PROFILE + """fabric:
  pfc: {priorities: [3], watchdog: {detect: 20ms, restore: 100ms}}
"""
STORM = PROFILE.split("traffic:")[0] + """traffic:
  - {name: storm, kind: pfc, host: C, frame: pfc, priorities: [3], quanta: 65535, fps: 20, duration: 300ms}
  - {name: victim, pattern: flow, src: A, dst: C, rate: 20M, duration: 1s}
"""


def teardown():
    for h in HOSTS:
        sh(f"ip link del hP{h}0 2>/dev/null", check=False)


def setup():
    # far-apart ifindexes (docs/switch.md "af_packet"), apart from switch_check.py's too
    teardown()
    for k, h in enumerate(HOSTS):
        if subprocess.run(f"ip link add hP{h}0 index {21101 + k} type veth peer name hP{h}1 index {25101 + k}",
                          shell=True, capture_output=True).returncode != 0:
            sh(f"ip link add hP{h}0 type veth peer name hP{h}1")
    for h in HOSTS:
        for i in (0, 1):
            sh(f"sysctl -qw net.ipv6.conf.hP{h}{i}.disable_ipv6=1", check=False)
            sh(f"ip link set hP{h}{i} up")


def hgetall(port, key):
    """redis-cli -n 2 HGETALL key -> dict (redis-cli prints field and value on lines of their own)."""
    out = subprocess.run(["redis-cli", "-p", str(port), "-n", "2", "--raw", "HGETALL", key], capture_output=True,
                         text=True, timeout=10).stdout.splitlines()
    return dict(zip(out[0::2], out[1::2]))


def wait_progress(p, errpath, deadline_s=20):
    deadline = time.time() + deadline_s
    while time.time() < deadline and p.poll() is None:
        if "switch " in open(errpath).read():
            return True
        time.sleep(0.1)
    return False


def stop(p):
    p.send_signal(signal.SIGINT)
    try:
        return p.wait(timeout=10)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
        sys.exit("switch did not stop on SIGINT")


def case_traffic(tmp, rport, storm=False):
    # an earlier run's port, not this switch's: it must leave the maps at the first publish
    subprocess.run(["redis-cli", "-p", str(rport), "-n", "2", "HSET", "COUNTERS_PORT_NAME_MAP", "Ethernet9",
                    "oid:0x1000000000099"], capture_output=True, timeout=10, check=True)
    tag = "storm" if storm else "p"
    prof = os.path.join(tmp, f"{tag}.yaml")
    with open(prof, "w") as f:
        f.write(STORM if storm else PROFILE)
    mport = free_port() if storm else MPORT
    args = [ROCEPROBE, "switch", "--speed", "100M", "--duration", "25", "--json", "--lossless", "3", "--xoff", "64KiB",
            "--headroom", "128KiB", "--ecn", "5KB,60KB,10%", "--publish", f"redis://127.0.0.1:{rport}",
            "--publish-interval", INTERVAL, "--metrics", str(mport), "--metrics-linger", "3s"]
    if storm:
        swprof = os.path.join(tmp, "wd-switch.yaml")
        with open(swprof, "w") as f:
            f.write(WD_SWITCH)
        args += ["--profile", swprof]
    for i, h in enumerate(HOSTS):
        args += ["--port", f"net_af_packet{i},iface=hP{h}1,{RING}", "--fdb", f"{MACS[h]}={i}"]
    errpath, outpath = os.path.join(tmp, f"switch-{tag}.err"), os.path.join(tmp, f"switch-{tag}.json")
    sw = subprocess.Popen(args, stdout=open(outpath, "w"), stderr=open(errpath, "w"))
    try:
        if not wait_progress(sw, errpath):
            sw.kill()
            sw.wait()
            sys.exit("switch did not start: " + open(errpath).read().strip())
        time.sleep(0.5)  # two intervals: published while it runs
        live = hgetall(rport, "COUNTERS_PORT_NAME_MAP")
        expect(sorted(live) == ["Ethernet0", "Ethernet1", "Ethernet2"],
               f"while it runs: COUNTERS_PORT_NAME_MAP names Ethernet0..2, not an earlier Ethernet9 ({sorted(live)})")
        r = subprocess.run([ROCEPROBE, "run", prof, "-o", os.path.join(tmp, f"out-{tag}"), "--duration", "3"] +
                           (["--allow-pause-storm"] if storm else []), capture_output=True, text=True, timeout=60)
        time.sleep(0.3 if storm else 0.2)  # the storm's restore (100 ms) is long over: run waited its 3 s
    finally:
        sw.send_signal(signal.SIGINT)
    # The final snapshot (the one published last) served while it lingers.
    final = ""
    for _ in range(50):
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{mport}/metrics", timeout=2) as u:
                final = u.read().decode()
            if "\nroceprobe_done 1\n" in final:
                break
        except OSError:
            pass
        time.sleep(0.1)
    try:
        rc = sw.wait(timeout=30)  # after its 3 s linger (a second SIGINT would end it at once, exit 130)
    except subprocess.TimeoutExpired:
        sw.kill()
        rc = sw.wait()
    expect(rc == 0, f"switch exits 0 on SIGINT, once its metrics linger is over ({rc})")
    if r.returncode != 0:
        sys.exit(f"run failed ({r.returncode}): {r.stderr.strip()}")
    s = json.load(open(outpath))
    check_metrics(s, final)
    err = open(errpath).read()
    expect("publish" not in err, f"nothing about publishing on stderr ({[ln for ln in err.splitlines() if 'publish' in ln]})")
    return s


def check_metrics(s, text):
    """--metrics' final scrape == the switch's --json (the same snapshot as the last publish)."""
    expect("\nroceprobe_done 1\n" in text, "switch --metrics: the final values served after SIGINT, while it lingers")
    got = {(m.group(1), m.group(2), m.group(3)): m.group(4) for m in re.finditer(
        r'^(roceprobe_switch_[a-z_]+)\{port="(\d+)"(?:,(?:prio|queue|pg)="(\d+)")?\} (\S+)$', text, re.M)}
    bad = []
    for i, p in enumerate(s["ports"]):
        want = {("roceprobe_switch_rx_bytes_total", str(i), None): p["rx_bytes"],
                ("roceprobe_switch_tx_bytes_total", str(i), None): p["tx_bytes"]}
        for x in p["prio"]:
            q, g, k = x["queue"], x["pg"], str(x["prio"])
            want[("roceprobe_switch_pfc_rx_frames_total", str(i), k)] = q["pfc_rx"]
            want[("roceprobe_switch_pfc_tx_frames_total", str(i), k)] = g["xoff_sent"] + g["xon_sent"]
            want[("roceprobe_switch_queue_ecn_marked_total", str(i), k)] = q["ecn_marked"]
            want[("roceprobe_switch_queue_watermark_bytes", str(i), k)] = q["max_depth_bytes"]
            want[("roceprobe_switch_pg_headroom_watermark_bytes", str(i), k)] = g["max_headroom_bytes"]
        bad += [f"{key} {got.get(key)} != {v}" for key, v in want.items() if got.get(key) != str(v)]
    expect(not bad, f"switch --metrics: every port's bytes, PFC, ECN marks and watermarks == its --json ({bad[:3]})")


def check_cells(s, rport, wd_on=False):
    ports = hgetall(rport, "COUNTERS_PORT_NAME_MAP")
    queues = hgetall(rport, "COUNTERS_QUEUE_NAME_MAP")
    pgs = hgetall(rport, "COUNTERS_PG_NAME_MAP")
    qidx, gidx = hgetall(rport, "COUNTERS_QUEUE_INDEX_MAP"), hgetall(rport, "COUNTERS_PG_INDEX_MAP")
    expect(sorted(queues) == sorted(f"Ethernet{i}:{q}" for i in range(3) for q in range(8)) and
           sorted(pgs) == sorted(queues), "queue and PG name maps: Ethernet<i>:<0..7> of every port")
    oids = list(ports.values()) + list(queues.values()) + list(pgs.values())
    expect(len(set(oids)) == len(oids) and all(o.startswith("oid:0x") for o in oids), "object ids distinct, oid:0x...")
    expect(all(qidx.get(queues[f"Ethernet{i}:{q}"]) == str(q) and gidx.get(pgs[f"Ethernet{i}:{q}"]) == str(q)
               for i in range(3) for q in range(8)), "index maps give each queue's and PG's index")
    bad = []

    def cell(h, field, want, what):
        if h.get(field) != str(want):
            bad.append(f"{what} {field} {h.get(field)} != {want}")

    for i, p in enumerate(s["ports"]):
        name = f"Ethernet{i}"
        c = hgetall(rport, f"COUNTERS:{ports[name]}")
        cell(c, "SAI_PORT_STAT_IF_IN_OCTETS", p["rx_bytes"], name)
        cell(c, "SAI_PORT_STAT_IF_OUT_OCTETS", p["tx_bytes"], name)
        cell(c, "SAI_PORT_STAT_IF_IN_DISCARDS", p["drop_pkts"], name)
        cell(c, "SAI_PORT_STAT_IF_OUT_DISCARDS", sum(x["queue"]["drop_pkts"] for x in p["prio"]), name)
        cell(c, "SAI_PORT_STAT_IF_IN_UCAST_PKTS", p["rx_pkts"], name)
        cell(c, "SAI_PORT_STAT_IF_OUT_UCAST_PKTS", p["tx_pkts"], name)
        for x in p["prio"]:
            q, g, k = x["queue"], x["pg"], x["prio"]
            cell(c, f"SAI_PORT_STAT_PFC_{k}_RX_PKTS", q["pfc_rx"], name)
            cell(c, f"SAI_PORT_STAT_PFC_{k}_TX_PKTS", g["xoff_sent"] + g["xon_sent"], name)
            cell(c, f"SAI_PORT_STAT_PFC_{k}_RX_PAUSE_DURATION_US", q["paused_ns"] // 1000, name)
            cell(c, f"SAI_PORT_STAT_PFC_{k}_TX_PAUSE_DURATION_US", g["xoff_ns"] // 1000, name)
            qo, go = queues[f"{name}:{k}"], pgs[f"{name}:{k}"]
            h = hgetall(rport, f"COUNTERS:{qo}")
            cell(h, "SAI_QUEUE_STAT_PACKETS", q["tx_pkts"], f"{name}:{k}")
            cell(h, "SAI_QUEUE_STAT_BYTES", q["tx_bytes"], f"{name}:{k}")
            cell(h, "SAI_QUEUE_STAT_DROPPED_PACKETS", q["drop_pkts"], f"{name}:{k}")
            cell(h, "SAI_QUEUE_STAT_DROPPED_BYTES", q["drop_bytes"], f"{name}:{k}")
            cell(h, "SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS", q["ecn_marked"], f"{name}:{k}")
            h = hgetall(rport, f"COUNTERS:{go}")
            cell(h, "SAI_INGRESS_PRIORITY_GROUP_STAT_PACKETS", g["rx_pkts"], f"{name} PG{k}")
            cell(h, "SAI_INGRESS_PRIORITY_GROUP_STAT_DROPPED_PACKETS", g["drop_pkts"], f"{name} PG{k}")
            for t in ("USER_WATERMARKS", "PERSISTENT_WATERMARKS"):
                cell(hgetall(rport, f"{t}:{qo}"), "SAI_QUEUE_STAT_SHARED_WATERMARK_BYTES", q["max_depth_bytes"],
                     f"{t} {name}:{k}")
                h = hgetall(rport, f"{t}:{go}")
                cell(h, "SAI_INGRESS_PRIORITY_GROUP_STAT_SHARED_WATERMARK_BYTES", g["max_bytes"], f"{t} {name} PG{k}")
                cell(h, "SAI_INGRESS_PRIORITY_GROUP_STAT_XOFF_ROOM_WATERMARK_BYTES", g["max_headroom_bytes"],
                     f"{t} {name} PG{k}")
            # the PFC watchdog's: on the queues it watches (lossless, watchdog on), else none
            h = hgetall(rport, f"COUNTERS:{qo}")
            wd = {f: v for f, v in h.items() if f.startswith("PFC_WD_")}
            if wd_on and x["lossless"]:
                want = {"PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED": str(q["wd_storms"]),
                        "PFC_WD_QUEUE_STATS_DEADLOCK_RESTORED": str(q["wd_restored"]),
                        "PFC_WD_STATUS": "stormed" if q["wd_storms"] > q["wd_restored"] else "operational"}
            else:
                want = {}
            if wd != want:
                bad.append(f"{name}:{k} watchdog {wd} != {want}")
        pfc_tx = sum(int(c[f"SAI_PORT_STAT_PFC_{k}_TX_PKTS"]) for k in range(8))
        per = {x["prio"]: (x["pg"]["xoff_sent"], x["pg"]["xon_sent"], x["pg"]["refresh_sent"]) for x in p["prio"]
               if x["pg"]["xoff_sent"] + x["pg"]["xon_sent"]}
        expect(pfc_tx == p["pfc_tx"],
               f"{name}: PFC TX over the 8 priorities {pfc_tx} == the port's pfc_tx {p['pfc_tx']} "
               f"(prio: xoff, xon, refresh {per})")
    expect(not bad, f"every published cell == the switch's --json ({len(bad)} differ: {bad[:4]})")
    return ports


def check_reader(s, rport, wd_on=False):
    spec = f"sonic://127.0.0.1:{rport}"
    p = subprocess.run([ROCEPROBE, "counters", spec, "--json"], capture_output=True, text=True, timeout=20)
    expect(p.returncode == 0 and p.stderr == "", f"roceprobe counters {spec} --json: exit 0 ({p.returncode} {p.stderr!r})")
    if p.returncode:
        return
    snap = json.loads(p.stdout)
    expect([x["name"] for x in snap["ports"]] == ["Ethernet0", "Ethernet1", "Ethernet2"], "the reader's ports in order")
    bad = []
    for i, sp in enumerate(s["ports"]):
        rp = snap["ports"][i]
        if rp.get("rx_bytes") != sp["rx_bytes"] or rp.get("tx_bytes") != sp["tx_bytes"]:
            bad.append(f"Ethernet{i} bytes {rp.get('rx_bytes')}/{rp.get('tx_bytes')}")
        for x in sp["prio"]:
            k, q, g = x["prio"], x["queue"], x["pg"]
            e = next((y for y in rp.get("prio", []) if y["prio"] == k), {})
            want = {"pfc_rx": q["pfc_rx"], "pfc_tx": g["xoff_sent"] + g["xon_sent"]}
            for key, v in want.items():
                if e.get(key, 0) != v:
                    bad.append(f"Ethernet{i} prio{k} {key} {e.get(key)} != {v}")
            rq = next((y for y in rp.get("queues", []) if y["queue"] == k), {})
            for key, v in (("packets", q["tx_pkts"]), ("bytes", q["tx_bytes"]), ("drops", q["drop_pkts"]),
                           ("ecn_marked", q["ecn_marked"]), ("shared_wm_bytes", q["max_depth_bytes"])):
                if rq.get(key, 0) != v:
                    bad.append(f"Ethernet{i} queue{k} {key} {rq.get(key)} != {v}")
            watched = wd_on and x["lossless"]
            for key, v in (("wd_storms_detected", q["wd_storms"]), ("wd_storms_restored", q["wd_restored"])):
                if rq.get(key) != (v if watched else None):
                    bad.append(f"Ethernet{i} queue{k} {key} {rq.get(key)} != {v if watched else None}")
            rg = next((y for y in rp.get("pgs", []) if y["pg"] == k), {})
            for key, v in (("packets", g["rx_pkts"]), ("drops", g["drop_pkts"]), ("shared_wm_bytes", g["max_bytes"]),
                           ("headroom_wm_bytes", g["max_headroom_bytes"])):
                if rg.get(key, 0) != v:
                    bad.append(f"Ethernet{i} PG{k} {key} {rg.get(key)} != {v}")
    expect(not bad, f"roceprobe counters sonic:// reads the switch's numbers ({len(bad)} differ: {bad[:4]})")


def case_storm(tmp):
    srv, port = redis_srv.start(tmp)
    try:
        s = case_traffic(tmp, port, storm=True)
        q = s["ports"][2]["prio"][3]["queue"]
        others = sum(x["queue"]["wd_storms"] for p in s["ports"] for x in p["prio"]) - q["wd_storms"]
        print(f"--- storm: port 2 queue 3 watchdog detected {q['wd_storms']}, restored {q['wd_restored']}")
        # C's PFC held port 2's queue 3 (A's frames waiting) past detect: found, and over
        # once C was quiet for restore; no other queue was held
        expect(q["wd_storms"] >= 1 and q["wd_restored"] == q["wd_storms"] and others == 0,
               f"C's storm: the watchdog found it on port 2 queue 3 and ended it ({q['wd_storms']}, "
               f"{q['wd_restored']}; elsewhere {others})")
        check_cells(s, port, wd_on=True)
        check_reader(s, port, wd_on=True)
    finally:
        redis_srv.stop(srv)


def one_line_exit2(args, what, needle):
    p = subprocess.run([ROCEPROBE, "switch", *args], capture_output=True, text=True, timeout=20)
    expect(p.returncode == 2 and p.stdout == "" and p.stderr.count("\n") == 1 and needle in p.stderr
           and "EAL" not in p.stderr, f"{what}: exit 2, one line ({p.returncode}: {p.stderr.strip()!r})")


def case_bad(tmp):
    # net_null ports: nothing to set up; the error must come before the EAL starts
    null = ["--port", "net_null0,no-rx=1", "--duration", "1"]
    one_line_exit2(null + ["--publish", "http://127.0.0.1:6379"], "--publish http://", "expected redis://HOST[:PORT]")
    one_line_exit2(null + ["--publish", "redis://127.0.0.1:0"], "--publish port 0", "expected redis://HOST[:PORT]")
    one_line_exit2(null + ["--publish", f"redis://127.0.0.1:{free_port()}"], "nothing listening", "cannot connect")
    one_line_exit2(null + ["--publish-interval", "1s"], "--publish-interval alone", "give --publish")
    one_line_exit2(null + ["--publish", "redis://127.0.0.1:6379", "--publish-interval", "0"], "--publish-interval 0",
                   "--publish-interval: expected seconds")


def case_gone(tmp):
    srv, port = redis_srv.start(tmp)
    errpath = os.path.join(tmp, "gone.err")
    sw = subprocess.Popen([ROCEPROBE, "switch", "--port", "net_null0,no-rx=1", "--port", "net_null1,no-rx=1",
                           "--duration", "3", "--publish", f"redis://127.0.0.1:{port}", "--publish-interval", INTERVAL,
                           "--json"], stdout=subprocess.PIPE, stderr=open(errpath, "w"), text=True)
    try:
        ok = wait_progress(sw, errpath)
        expect(ok and sorted(hgetall(port, "COUNTERS_PORT_NAME_MAP")) == ["Ethernet0", "Ethernet1"],
               "net_null switch publishes its two ports")
    finally:
        redis_srv.stop(srv)  # the server goes away mid-run
    try:
        out, _ = sw.communicate(timeout=15)
    except subprocess.TimeoutExpired:
        sw.kill()
        sw.communicate()
        sys.exit("switch did not end after --duration 3")
    err = [ln for ln in open(errpath).read().splitlines() if "publish" in ln]  # the EAL's own notes aside
    expect(sw.returncode == 0 and json.loads(out)["schema"] == "roceprobe.switch/2",
           f"server gone mid-run: the switch runs to its end, exit 0, its summary ({sw.returncode})")
    expect(len(err) == 1 and "the server went away" in err[0] and "publishing stops" in err[0],
           f"... and says so in one line ({err})")


def case_sigterm(tmp):
    """An interval longer than the run: what is in redis after SIGTERM is the final publish alone."""
    srv, port = redis_srv.start(tmp)
    errpath = os.path.join(tmp, "term.err")
    try:
        sw = subprocess.Popen([ROCEPROBE, "switch", "--port", "net_null0,no-rx=1", "--duration", "20", "--publish",
                               f"redis://127.0.0.1:{port}", "--publish-interval", "60", "--json"],
                              stdout=subprocess.PIPE, stderr=open(errpath, "w"), text=True)
        ok = wait_progress(sw, errpath)
        before = hgetall(port, "COUNTERS_PORT_NAME_MAP")
        sw.send_signal(signal.SIGTERM)
        try:
            out, _ = sw.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            sw.kill()
            sw.communicate()
            sys.exit("switch did not stop on SIGTERM")
        after = hgetall(port, "COUNTERS_PORT_NAME_MAP")
        s = json.loads(out)
        c = hgetall(port, f"COUNTERS:{after.get('Ethernet0')}")
        expect(ok and before == {} and list(after) == ["Ethernet0"] and sw.returncode == 0 and s["interrupted"],
               f"SIGTERM before the first interval: exit 0, and then Ethernet0 is published ({before} -> {after})")
        expect(c.get("SAI_PORT_STAT_IF_IN_OCTETS") == str(s["ports"][0]["rx_bytes"]) and len(c) == 38,
               f"... with its 38 port fields, IN_OCTETS == the summary's rx_bytes ({len(c)} fields)")
    finally:
        redis_srv.stop(srv)


def main():
    if not redis_srv.present():
        print("skipped: no redis-server/redis-cli (tools/bootstrap.sh --tests)")
        sys.exit(77)
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
    tmp = tempfile.mkdtemp(prefix="rp-swpub-")
    srv = None
    try:
        srv, rport = redis_srv.start(tmp)
        s = case_traffic(tmp, rport)
        p2, pfc = s["ports"][2]["prio"][3]["queue"], [s["ports"][i]["pfc_tx"] for i in (0, 1)]
        print(f"--- switch: PFC sent on ports 0, 1: {pfc}; port 2 queue 3 ECN marked {p2['ecn_marked']}, "
              f"sent {p2['tx_pkts']}")
        # which sender is paused more depends on who the poller serves first; that PFC and
        # marks happened at all is what matters here (the cells below are then not all 0)
        expect(sum(pfc) > 0 and p2["ecn_marked"] > 0,
               f"the incast made PFC (ports 0, 1: {pfc}) and ECN marks (port 2: {p2['ecn_marked']})")
        check_cells(s, rport)
        check_reader(s, rport)
        case_storm(tmp)
        case_bad(tmp)
        case_gone(tmp)
        case_sigterm(tmp)
    finally:
        if srv:
            redis_srv.stop(srv)
        teardown()
        shutil.rmtree(tmp, ignore_errors=True)
    finish("switch-publish")


main()
