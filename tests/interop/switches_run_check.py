#!/usr/bin/python3
"""roceprobe run's counters.switches[]: a profile's `switches:` sampled through a run, against
a real redis-server loaded as a SONiC switch's COUNTERS_DB (sonic_check.py's fixture) whose
counters the test moves by known amounts while the run goes on.

    [tx] pair:l0:0 ===== RDMA WRITE 1024 B, 10 Mbit/s, 3 s =====> pair:l0:1 [rx]
                        (in one roceprobe run process)
    switches: sw1 = sonic://127.0.0.1:P, interval 100ms, ports {Ethernet0: tx, Ethernet4: rx}
    redis-server 127.0.0.1:P  <- the test: HINCRBY during the run (after run's first progress
                                 line, so after the start sample; done ~1.5 s before the end)
        Ethernet0 prio 3 pfc_rx   (SAI_PORT_STAT_PFC_3_RX_PKTS)   +3 +5 +7 +11 +13 = 39
        Ethernet4 queue 3 drops   (SAI_QUEUE_STAT_DROPPED_PACKETS) +2 x 5       = 10

    ok        exit 0; counters.switches[0] names sw1, its source, interval_ns 1e8, optional
              false, the ports map as written, no reason; samples: 3 <= n <= wall/100ms + 2,
              t_ns increasing, dur_ns >= 0, every sample all 3 ports of the fixture in the
              counters --json shape; summed deltas: the two moved counters exactly what the test
              added, every other count 0 (counts: what the start sample, the baseline, has 0)
    down      a switch nothing listens for, optional false: exit 2, one line naming sw1 and its
              source, no result directory
    optional  the same with optional: true: exit 0, a warning line, counters.switches[0].reason
              set and no samples
    midrun    the server starts wanting a password during a run (CONFIG SET requirepass after the
              first progress line): exit 0, one line naming sw1, its reason says so, the samples
              before it kept (at least the start), none after

usage: switches_run_check.py ROCEPROBE     (exit 77 = skipped: no redis-server)
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
sys.path.insert(0, HERE)
from check import expect, finish, free_port, until_progress  # noqa: E402
from sonic_check import PORTS, QUEUES, load_commands  # noqa: E402  (the one fixture)
import redis_srv  # noqa: E402
from redis_srv import cli  # noqa: E402

RP = sys.argv[1]
INTERVAL_S = 0.1
PFC_BUMPS = [3, 5, 7, 11, 13]
DROP_BUMPS = [2, 2, 2, 2, 2]

PROFILE = """name: swrun
defaults: {{speed: 1G, opcode: write, message_size: 1024, mtu: 1024}}
hosts:
  - {{name: tx, mac: "02:00:00:00:00:01", ipv4: 192.0.2.1, port: "pair:l0:0"}}
  - {{name: rx, mac: "02:00:00:00:00:02", ipv4: 192.0.2.2, port: "pair:l0:1"}}
traffic:
  - {{name: f, pattern: flow, src: tx, dst: rx, rate: 10M, duration: {dur}}}
switches:
  - name: sw1
    source: "{src}"
    interval: 100ms
    optional: {opt}
    ports: {{Ethernet0: tx, Ethernet4: rx}}
"""


def write_profile(tmp, src, opt, dur):
    path = os.path.join(tmp, f"p-{opt}-{dur}.yaml")
    with open(path, "w") as f:
        f.write(PROFILE.format(src=src, opt=opt, dur=dur))
    return path


def counts(port):
    """{(scope, index, name): value} of a port object of roceprobe.counters/1, gauges left out."""
    out = {}
    for k, v in port.items():
        if isinstance(v, int) and k not in ("speed_bps",):
            out[("port", -1, k)] = v
    for e in port.get("prio", []):
        out.update({("prio", e["prio"], k): v for k, v in e.items() if k != "prio"})
    for scope, idx in (("queues", "queue"), ("pgs", "pg")):
        for e in port.get(scope, []):
            out.update({(scope, e[idx], k): v for k, v in e.items() if k != idx})
    out.update({("raw", -1, k): v for k, v in port.get("raw", {}).items()})
    return out


def case_ok(tmp, spec):
    path = write_profile(tmp, spec, "false", "3s")
    out = os.path.join(tmp, "out-ok")
    t0 = time.monotonic()
    p = subprocess.Popen([RP, "run", path, "-o", out], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    err, line = until_progress(p, "run")
    if line:  # traffic runs: the start sample is taken
        for a, b in zip(PFC_BUMPS, DROP_BUMPS):
            cli(PORT, "SELECT 2", f"HINCRBY COUNTERS:{PORTS['Ethernet0']} SAI_PORT_STAT_PFC_3_RX_PKTS {a}",
                f"HINCRBY COUNTERS:{QUEUES['Ethernet4:3'][0]} SAI_QUEUE_STAT_DROPPED_PACKETS {b}")
            time.sleep(0.15)
    rest_out, rest_err = p.communicate(timeout=60)
    wall = time.monotonic() - t0
    expect(bool(line), "the run's first progress line came (the bumps went in during the run)")
    if not expect(p.returncode == 0, f"run exits 0 ({p.returncode}: {(err + rest_err).strip()[-300:]})"):
        return
    with open(os.path.join(out, "result.json")) as f:
        sw = json.load(f)["counters"]["switches"]
    expect(len(sw) == 1, f"counters.switches: one switch ({len(sw)})")
    s = sw[0]
    expect(s["name"] == "sw1" and s["source"] == spec and s["interval_ns"] == 100000000 and s["optional"] is False,
           f"sw1: name, source, interval_ns 100000000, optional false ({s['name']}, {s['source']}, "
           f"{s['interval_ns']}, {s['optional']})")
    expect(s["ports"] == {"Ethernet0": "tx", "Ethernet4": "rx"}, f"the ports map as written ({s['ports']})")
    expect("reason" not in s, f"no reason ({s.get('reason')})")
    sm = s["samples"]
    top = int(wall / INTERVAL_S) + 2
    expect(3 <= len(sm) <= top, f"samples: 3 <= {len(sm)} <= {top} (the process's {wall:.2f} s / 100 ms + 2)")
    ts = [x["t_ns"] for x in sm]
    expect(all(a < b for a, b in zip(ts, ts[1:])), f"t_ns increasing ({ts[:3]} .. {ts[-1:]})")
    expect(all(isinstance(x["dur_ns"], int) and 0 <= x["dur_ns"] < 5 * 10**9 for x in sm),
           "every sample has its read's dur_ns")
    names = sorted(PORTS)
    expect(all(sorted(q["name"] for q in x["ports"]) == names for x in sm),
           f"every sample has every port of the switch ({names})")
    expect(all(q["resets"] == [] for x in sm for q in x["ports"]), "no resets")
    base = {q["name"]: counts(q) for q in sm[0]["ports"]}
    zero = {(n, k) for n, c in base.items() for k, v in c.items() if v == 0}  # counts: 0 at the baseline
    expect(("Ethernet0", ("prio", 3, "pfc_rx")) in zero and ("Ethernet4", ("queues", 3, "drops")) in zero,
           "the start sample is the baseline: the moved counters 0 in it")
    total = {}
    for x in sm[1:]:
        for q in x["ports"]:
            for k, v in counts(q).items():
                if (q["name"], k) in zero:
                    total[(q["name"], k)] = total.get((q["name"], k), 0) + v
    pfc = total.pop(("Ethernet0", ("prio", 3, "pfc_rx")), 0)
    drops = total.pop(("Ethernet4", ("queues", 3, "drops")), 0)
    expect(pfc == sum(PFC_BUMPS), f"Ethernet0 prio 3 pfc_rx: summed deltas {pfc} == {sum(PFC_BUMPS)} added")
    expect(drops == sum(DROP_BUMPS), f"Ethernet4 queue 3 drops: summed deltas {drops} == {sum(DROP_BUMPS)} added")
    moved = {k: v for k, v in total.items() if v}
    expect(not moved and len(zero) > 20, f"every other count ({len(zero) - 2}) summed 0 ({moved})")
    expect(sum(1 for x in sm[1:] for q in x["ports"] if counts(q)) >= 1,
           "the moves are in samples after the start")


def case_down(tmp, opt):
    spec = f"sonic://127.0.0.1:{free_port()}"
    path = write_profile(tmp, spec, opt, "200ms")
    out = os.path.join(tmp, f"out-{opt}")
    p = subprocess.run([RP, "run", path, "-o", out], capture_output=True, text=True, timeout=60)
    mine = [ln for ln in p.stderr.splitlines() if ln.startswith("roceprobe")]
    about = [ln for ln in mine if "switch sw1" in ln]
    if opt == "false":  # the machine's own lines (no hugepages here) may come before it
        expect(p.returncode == 2 and len(about) == 1 and spec in about[0] and mine[-1] == about[0],
               f"unreachable, optional false: exit 2, one line naming sw1 and {spec}, the last ({p.returncode}: "
               f"{mine})")
        expect(not os.path.exists(out), f"no result directory ({out})")
        return
    warn = [ln for ln in about if spec in ln and "warning" in ln]
    expect(p.returncode == 0 and len(warn) == 1 and len(about) == 1, f"unreachable, optional true: exit 0, one warning line ({p.returncode}: "
                                                 f"{mine})")
    if p.returncode == 0:
        with open(os.path.join(out, "result.json")) as f:
            s = json.load(f)["counters"]["switches"][0]
        expect(s["optional"] is True and s.get("reason") and s["samples"] == [],
               f"its entry: optional true, the reason, no samples ({s.get('reason')!r}, {len(s['samples'])})")


def case_midrun(tmp, spec):
    path = write_profile(tmp, spec, "false", "2s")
    out = os.path.join(tmp, "out-midrun")
    p = subprocess.Popen([RP, "run", path, "-o", out], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    err, line = until_progress(p, "run")
    if line:
        cli(PORT, "CONFIG SET requirepass s3cret")
    _, rest = p.communicate(timeout=60)
    about = [ln for ln in (err + rest).splitlines() if "switch sw1" in ln]
    expect(p.returncode == 0 and len(about) == 1 and "password" in about[0],
           f"stops answering mid-run: exit 0, one line naming sw1 ({p.returncode}: {about})")
    if p.returncode == 0:
        with open(os.path.join(out, "result.json")) as f:
            s = json.load(f)["counters"]["switches"][0]
        n, last = len(s["samples"]), (s["samples"] or [{"t_ns": -1}])[-1]["t_ns"]
        # the start at T0 and one per 100 ms until the first progress line (1 s in); none after
        # the password: no end sample (the traffic alone lasts 2 s from T0)
        expect("password" in s.get("reason", "") and n >= 1 and 0 <= last < 2 * 10**9,
               f"its reason ({s.get('reason')!r}), the {n} samples before it kept, none after (the last at "
               f"{last} ns < 2 s)")


def main():
    global PORT
    if not redis_srv.present():
        print("no redis-server/redis-cli (tools/bootstrap.sh --tests)")
        sys.exit(77)
    d = tempfile.mkdtemp(prefix="rp-swrun-")
    srv, PORT = redis_srv.start(d)
    try:
        cli(PORT, *load_commands())
        case_ok(d, f"sonic://127.0.0.1:{PORT}")
        case_down(d, "false")
        case_down(d, "true")
        case_midrun(d, f"sonic://127.0.0.1:{PORT}")  # last: the server wants a password after it
    finally:
        redis_srv.stop(srv)
        shutil.rmtree(d, ignore_errors=True)
    finish("switches-run")


PORT = 0
main()
