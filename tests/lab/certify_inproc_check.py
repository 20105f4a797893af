#!/usr/bin/python3
"""roceprobe certify --engine run without --launcher: every test's run in certify's own process
(lib/run, one DPDK EAL kept for all of them), against the child-process path (`--launcher env`:
the same binary forked as `env roceprobe run ...`, what every run did before).

The profile: certify-good's h0..h3, h0 and h1 wired back to back (pair:a:0, pair:a:1), h2 and
h3 on net_null (they send; nothing arrives from them). --only 1,7: test 1's 2:1 and 3:1
incasts to h0 and test 7's all-to-all, three runs.

  inproc   Known answers:
           - in process: no child process of certify's ever exists (its /proc children, read
             every few ms while it runs: the same reader sees the `--launcher env` children, so
             it can fail), each run's log starts "-- in process PID" with certify's own PID, and
             environment.children[].in_process is true (false under --launcher);
           - each run's flows from the run's own traffic (its --set in the command): tx_packets
             = messages x 16 (64 KiB messages at MTU 4096), a flow from h1 (the pair) received
             whole, a flow from h2/h3 (net_null) lost whole, a flow to h2/h3 never received;
           - the forked runs give the same counts, flow by flow and port by port (time fields
             left out), and the same verdicts.
  sigint   SIGINT, then SIGTERM, while test 1's second run runs (long runs: certify.messages
           10000): exit 1, certify's result.json whole with interrupted true, every run's
           result.json whole, the stopped run's interrupted true, report.md and report.html
           written; --run-timeout 0.2: the run stopped, one line, exit 2, no DIR left.

usage: certify_inproc_check.py ROCEPROBE PROFILES CASE
"""
import glob
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from check import expect, finish  # noqa: E402

ROCEPROBE, PROFILES, CASE = sys.argv[1], sys.argv[2], sys.argv[3]
TMP = tempfile.mkdtemp(prefix="certinproc-")
PORTS = ["--set", "hosts.0.port=pair:a:0", "--set", "hosts.1.port=pair:a:1", "--set", "hosts.2.port=net_null0",
         "--set", "hosts.3.port=net_null1"]
COUNTS = ("tx_packets", "tx_bytes", "rx_packets", "rx_bytes", "lost", "reordered", "duplicates", "ce", "cnp_tx",
          "cnp_rx", "acks", "naks", "misdelivered", "icrc_bad", "tx_unsent")


def four_hosts():
    path = os.path.join(TMP, "four.yaml")
    with open(os.path.join(PROFILES, "certify-good.yaml")) as f:
        lines = [ln for ln in f if not any(f"name: h{i}," in ln for i in range(4, 8))]
    with open(path, "w") as f:
        f.write("".join(lines).replace("hosts: [h0, h1, h2, h3, h4, h5, h6, h7]", "hosts: [h0, h1, h2, h3]"))
    return path


def children_of(pid):
    """Every child process of pid now (/proc/PID/task/*/children)."""
    kids = []
    for t in glob.glob(f"/proc/{pid}/task/*/children"):
        try:
            with open(t) as f:
                kids += f.read().split()
        except OSError:
            pass
    return kids


def certify(out, *extra):
    """certify, its children watched every 2 ms: (exit, stderr, result.json or None, children seen)."""
    p = subprocess.Popen([ROCEPROBE, "certify", four_hosts(), "-o", out, "--engine", "run", "--only", "1,7", "-q",
                          "--no-preflight", *PORTS, *extra], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    seen = set()

    def watch():
        while p.poll() is None:
            seen.update(children_of(p.pid))
            time.sleep(0.002)
    w = threading.Thread(target=watch)
    w.start()
    _, err = p.communicate(timeout=120)
    w.join()
    try:
        with open(os.path.join(out, "result.json")) as f:
            res = json.load(f)
    except (OSError, ValueError):
        res = None
    return p, err, res, seen


def flows_of(run_dir):
    with open(os.path.join(run_dir, "result.json")) as f:
        doc = json.load(f)
    flows = [{k: fl.get(k) for k in COUNTS} | {"src": fl["src"], "dst": fl["dst"]} for fl in doc["flows"]]
    ports = [{k: v for k, v in pt.items() if isinstance(v, int) and not k.endswith("_ns")} for pt in doc["ports"]]
    return doc, flows, ports


def case_inproc():
    here, fork = os.path.join(TMP, "here"), os.path.join(TMP, "fork")
    p, err, res, seen = certify(here)
    expect(p.returncode in (0, 1) and res is not None, f"in process: certify ends with result.json (exit {p.returncode}, "
           f"{err.strip()[-300:]!r})")
    if res is None:
        return
    kids = res["environment"]["children"]
    expect(len(kids) >= 2, f"in process: {len(kids)} runs (test 1's two incasts, test 7's all-to-all)")
    expect(not seen, f"in process: certify started no child process ({sorted(seen)})")
    expect(all(k["in_process"] is True for k in kids), "in process: children[].in_process true")
    for k in kids:
        with open(k["dir"] + ".log") as f:
            first = f.readline()
        expect(first.startswith(f"-- in process {p.pid} "), f"{k['name']}: its log says in process {p.pid} ({first[:60]!r})")
    pf, errf, resf, seenf = certify(fork, "--launcher", "env")
    expect(resf is not None and len(seenf) >= len(kids), f"--launcher env: the watcher sees its {len(seenf)} children")
    if resf is None:
        return
    kf = resf["environment"]["children"]
    expect(all(k["in_process"] is False for k in kf), "--launcher env: children[].in_process false")
    expect([k["dir"].replace(fork, "") for k in kf] == [k["dir"].replace(here, "") for k in kids],
           "the same runs both ways")
    for k in kids:
        doc, flows, ports = flows_of(k["dir"])
        cmd = " ".join(k["command"])
        msgs = int(re.search(r"messages: (\d+)", cmd).group(1))
        expect(re.search(r"message_size: 64KiB, mtu: 4096", cmd) is not None, f"{k['dir']}: 64 KiB messages at MTU 4096")
        hosts = [h["name"] for h in doc["hosts"]] if "hosts" in doc else ["h0", "h1", "h2", "h3"]
        for fl in flows:
            src, dst = fl["src"], fl["dst"]
            src, dst = (hosts[src] if isinstance(src, int) else src), (hosts[dst] if isinstance(dst, int) else dst)
            pair = {src, dst} == {"h0", "h1"}
            ok = fl["tx_packets"] == msgs * 16 and fl["rx_packets"] == (msgs * 16 if pair else 0) and \
                fl["lost"] == (0 if pair else msgs * 16)
            expect(ok, f"{os.path.basename(k['dir'])} {src}->{dst}: tx {fl['tx_packets']} = {msgs} x 16, rx "
                   f"{fl['rx_packets']}, lost {fl['lost']} ({'the pair: all arrive' if pair else 'net_null: none'})")
        _, fflows, fports = flows_of(os.path.join(fork, os.path.relpath(k["dir"], here)))
        expect(flows == fflows, f"{os.path.basename(k['dir'])}: every flow's counts as the forked run's")
        expect(ports == fports, f"{os.path.basename(k['dir'])}: every port's counts as the forked run's")
    v = {t["id"]: t["verdict"] for t in res["tests"]}
    vf = {t["id"]: t["verdict"] for t in resf["tests"]}
    expect(v == vf, f"the same verdicts both ways ({v} / {vf})")


def stop_one(sig):
    name = signal.Signals(sig).name
    out = os.path.join(TMP, name)
    p = subprocess.Popen([ROCEPROBE, "certify", four_hosts(), "-o", out, "--engine", "run", "--only", "1,7",
                          "--no-preflight", "--set", "certify.messages=10000", *PORTS], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    lines = []
    for line in p.stderr:
        lines.append(line)
        if "run 2 (" in line and "(in process)" in line:
            time.sleep(0.1)  # into the run's traffic (its set-up takes ~20 ms)
            p.send_signal(sig)
            break
    _, err = p.communicate(timeout=60)
    expect(p.returncode == 1, f"{name}: exit 1 (got {p.returncode}; {(''.join(lines) + err).strip()[-300:]!r})")
    try:
        with open(os.path.join(out, "result.json")) as f:
            res = json.load(f)
    except (OSError, ValueError) as e:
        expect(False, f"{name}: certify's result.json whole ({e})")
        return
    expect(res["interrupted"] is True, f"{name}: interrupted true")
    kids = res["environment"]["children"]
    expect(len(kids) == 2 and kids[-1]["interrupted"] is True, f"{name}: the second run stopped, interrupted "
           f"({[(k['dir'], k['interrupted']) for k in kids]})")
    for k in kids:
        try:
            with open(os.path.join(k["dir"], "result.json")) as f:
                doc = json.load(f)
            expect(doc["interrupted"] == k["interrupted"], f"{name}: {os.path.basename(k['dir'])}/result.json "
                   f"whole, interrupted {doc['interrupted']}")
        except (OSError, ValueError) as e:
            expect(False, f"{k['dir']}: result.json whole ({e})")
    for f in ("report.md", "report.html"):
        expect(os.path.getsize(os.path.join(out, f)) > 0, f"{name}: {f} written")


def case_sigint():
    stop_one(signal.SIGINT)
    stop_one(signal.SIGTERM)
    # --run-timeout stops the run by its own flag: one line, exit 2, no DIR (as a child's)
    out = os.path.join(TMP, "timeout")
    p = subprocess.run([ROCEPROBE, "certify", four_hosts(), "-o", out, "--engine", "run", "--only", "1", "-q",
                        "--no-preflight", "--set", "certify.messages=10000", "--run-timeout", "0.2", *PORTS],
                       capture_output=True, text=True, timeout=60)
    lines = p.stderr.strip().splitlines()
    expect(p.returncode == 2 and len(lines) == 1 and "still running after" in lines[0] and "--run-timeout" in lines[0],
           f"--run-timeout 0.2: exit 2, one line (got {p.returncode}, {lines})")
    expect(not os.path.exists(out), "--run-timeout: DIR removed")


try:
    {"inproc": case_inproc, "sigint": case_sigint}[CASE]()
finally:
    shutil.rmtree(TMP, ignore_errors=True)  # profiles and certify DIRs: nothing is left in /tmp
finish("certify-inproc-" + CASE)
