#!/usr/bin/python3
"""DPDK telemetry (issue 28): Debian's dpdk-telemetry.py attaches to a running roceprobe.

    [gen: tx0] --net_null0-->      dpdk-telemetry.py -f rpPID  (/var/run/dpdk/rpPID/dpdk_telemetry.v2)
    [gen: tx1] --net_null1-->        /ethdev/list: [0, 1]; /ethdev/stats,N: opackets grows while
                                     gen runs and is at most gen's final tx_packets of port N
    [run: a] ==pair:t:0 -- pair:t:1==> [run: b]   /ethdev/list names both ends; opackets grows
    gen --no-telemetry: no socket, no prefix in `dpdk-telemetry.py -l`
    certify --engine run --no-telemetry: its `roceprobe run` children get --no-telemetry
    every run: /var/run/dpdk/rpPID gone at exit (normal end and SIGINT)

usage: telemetry_check.py ROCEPROBE   (exit 77: no dpdk-telemetry.py, Debian's dpdk package)
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from check import expect, finish, until_progress  # noqa: E402

ROCEPROBE = sys.argv[1]
TELEMETRY = shutil.which("dpdk-telemetry.py")
if not TELEMETRY:
    print("SKIP: no dpdk-telemetry.py (Debian package dpdk)")
    sys.exit(77)

GEN = """name: telemetry
defaults: {speed: 10G, opcode: send, message_size: 64, mtu: 1024}
hosts:
  - {name: tx0, mac: "02:00:00:00:00:01", ipv4: 192.0.2.1, port: "net_null0,no-rx=1"}
  - {name: tx1, mac: "02:00:00:00:00:02", ipv4: 192.0.2.2, port: "net_null1,no-rx=1"}
  - {name: rx, mac: "02:00:00:00:00:03", ipv4: 192.0.2.3}
traffic:
  - {name: f0, pattern: flow, src: tx0, dst: rx, rate: 100M, duration: 60s}
  - {name: f1, pattern: flow, src: tx1, dst: rx, rate: 200M, duration: 60s}
"""

RUN = """name: telemetry-run
defaults: {speed: 10G, opcode: send, message_size: 64, mtu: 1024}
hosts:
  - {name: a, mac: "02:00:00:00:00:01", ipv4: 192.0.2.1, port: "pair:t:0"}
  - {name: b, mac: "02:00:00:00:00:02", ipv4: 192.0.2.2, port: "pair:t:1"}
traffic:
  - {name: f, pattern: flow, src: a, dst: b, rate: 100M, duration: 60s}
"""


def runtime_dir(pid):
    base = "/var/run/dpdk" if os.geteuid() == 0 else os.path.join(os.environ.get("XDG_RUNTIME_DIR", "/tmp"), "dpdk")
    return os.path.join(base, f"rp{pid}")


def query(pid, *cmds):
    """dpdk-telemetry.py -f rpPID, not on a terminal: one command a line on its stdin, one
    JSON reply a line on its stdout. {command: reply} (without the leading "/...": key)."""
    p = subprocess.run([TELEMETRY, "-f", f"rp{pid}"], input="".join(c + "\n" for c in cmds),
                       capture_output=True, text=True, timeout=10)
    out = {}
    for line in p.stdout.splitlines():
        try:
            j = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(j, dict) and len(j) == 1:
            (k, v), = j.items()
            out[k] = v
    return out, p.stdout + p.stderr


def stats(raw):
    """Every /ethdev/stats reply in raw, in the order asked (they share one key)."""
    return [json.loads(l)["/ethdev/stats"] for l in raw.splitlines() if l.startswith("{") and "/ethdev/stats" in l]


def start(*cmd):
    return subprocess.Popen([ROCEPROBE, *cmd], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def stop(p):
    """SIGINT (gen and run stop cleanly with their final counters): (stdout, stderr)."""
    p.send_signal(signal.SIGINT)
    try:
        return p.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        p.kill()
        return p.communicate()


def case_gen(tmp):
    path = os.path.join(tmp, "gen.yaml")
    with open(path, "w") as f:
        f.write(GEN)
    p = start("gen", path, "--json")
    try:
        err, line = until_progress(p, "gen")
        expect(line != "", f"gen's traffic runs (first progress line){'' if line else ': ' + err.strip()[-300:]}")
        sock = os.path.join(runtime_dir(p.pid), "dpdk_telemetry.v2")
        expect(os.path.exists(sock), f"the telemetry socket is {sock} (roceprobe's --file-prefix rpPID)")
        first, raw = query(p.pid, "/ethdev/list", "/ethdev/stats,0", "/ethdev/stats,1")
        expect(first.get("/ethdev/list") == [0, 1], f"/ethdev/list: the two ports [0, 1] (got {first.get('/ethdev/list')}; {raw.strip()[:120]!r})")
        time.sleep(1.2)
        _, raw2 = query(p.pid, "/ethdev/stats,0", "/ethdev/stats,1")
    finally:
        out, err2 = stop(p)
    expect(p.returncode == 0, f"gen exits 0 after SIGINT (got {p.returncode}{'' if p.returncode == 0 else ': ' + err2.strip()[-300:]})")
    j = json.loads(out)
    s1, s2 = stats(raw), stats(raw2)
    expect(len(s1) == 2 and len(s2) == 2, f"/ethdev/stats,0 and ,1 answered twice ({len(s1)}, {len(s2)})")
    if len(s1) == 2 and len(s2) == 2:
        for i in (0, 1):
            sent = j["ports"][i]["tx_packets"]
            o1, o2 = s1[i]["opackets"], s2[i]["opackets"]
            expect(0 < o1 < o2, f"port {i}: opackets grows while gen runs ({o1} -> {o2})")
            expect(o2 <= sent, f"port {i}: opackets {o2} at most what gen says it sent at the end ({sent})")
        # f1 sends twice f0's rate: the counters are the ports' own, not one number twice
        ratio = s2[1]["opackets"] / max(1, s2[0]["opackets"])
        expect(1.6 < ratio < 2.4, f"port 1 (200M) sent about twice port 0 (100M): {ratio:.2f}")
    expect(not os.path.exists(runtime_dir(p.pid)), f"{runtime_dir(p.pid)} removed at the exit")


def case_run(tmp):
    path = os.path.join(tmp, "run.yaml")
    with open(path, "w") as f:
        f.write(RUN)
    p = start("run", path, "-o", os.path.join(tmp, "o"))
    try:
        err, line = until_progress(p, "run")
        expect(line != "", f"run's traffic runs (first progress line){'' if line else ': ' + err.strip()[-300:]}")
        first, raw = query(p.pid, "/ethdev/list", "/ethdev/stats,0")
        time.sleep(1.2)
        second, _ = query(p.pid, "/ethdev/stats,0")
    finally:
        out, err2 = stop(p)
    ports = first.get("/ethdev/list")
    expect(isinstance(ports, list) and len(ports) == 2, f"run: /ethdev/list has both pair: ends (got {ports}; {raw.strip()[:120]!r})")
    o1 = first.get("/ethdev/stats", {}).get("opackets", 0)
    o2 = second.get("/ethdev/stats", {}).get("opackets", 0)
    expect(0 < o1 < o2, f"run: port 0's opackets grows while run runs ({o1} -> {o2})")
    expect(p.returncode == 0, f"run exits 0 after SIGINT (got {p.returncode}{'' if p.returncode == 0 else ': ' + err2.strip()[-300:]})")
    expect(not os.path.exists(runtime_dir(p.pid)), f"{runtime_dir(p.pid)} removed at the exit")


def case_off(tmp):
    path = os.path.join(tmp, "gen.yaml")
    with open(path, "w") as f:
        f.write(GEN)
    p = start("gen", path, "--no-telemetry", "--duration", "3")
    try:
        err, line = until_progress(p, "gen")
        expect(line != "", f"gen --no-telemetry runs{'' if line else ': ' + err.strip()[-300:]}")
        sock = os.path.join(runtime_dir(p.pid), "dpdk_telemetry.v2")
        expect(not os.path.exists(sock), f"--no-telemetry: no {sock}")
        listed = subprocess.run([TELEMETRY, "-l"], capture_output=True, text=True, timeout=10).stdout
        expect(f"rp{p.pid}\n" not in listed, f"--no-telemetry: dpdk-telemetry.py -l does not list rp{p.pid}")
        out, err2 = p.communicate(timeout=30)
    finally:
        if p.poll() is None:
            p.kill()
            p.communicate()
    expect(p.returncode == 0, f"gen --no-telemetry --duration 3 exits 0 (got {p.returncode})")
    expect(not os.path.exists(runtime_dir(p.pid)), f"{runtime_dir(p.pid)} removed at the exit")


def case_certify(tmp):
    path = os.path.join(tmp, "cert.yaml")
    with open(path, "w") as f:
        f.write(RUN.replace("rate: 100M, duration: 60s", "rate: 10%, messages: 1") +
                "certify: {lossless: [3], lossy: 0, messages: 4}\n")
    cmds = {}
    for extra in ([], ["--no-telemetry"]):
        out = os.path.join(tmp, "cert" + "".join(extra))
        p = subprocess.run([ROCEPROBE, "certify", path, "-o", out, "--engine", "run", "--only", "7", "-q", *extra],
                           capture_output=True, text=True, timeout=120)
        try:
            with open(os.path.join(out, "result.json")) as f:
                kids = json.load(f)["environment"]["children"]
        except (OSError, ValueError, KeyError):
            kids = []
        cmds[bool(extra)] = [k["command"] for k in kids]
        expect(len(kids) >= 1, f"certify {' '.join(extra)}: a run child" + ('' if kids else f' ({p.stderr.strip()[-200:]!r})'))
    expect(all("--no-telemetry" in c for c in cmds[True]), "certify --no-telemetry: every run child has --no-telemetry")
    expect(not any("--no-telemetry" in c for c in cmds[False]), "certify: the run children keep telemetry by default")


with tempfile.TemporaryDirectory() as tmp:
    case_gen(tmp)
    case_run(tmp)
    case_off(tmp)
    case_certify(tmp)
finish("telemetry")
