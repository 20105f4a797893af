#!/usr/bin/python3
"""roceprobe lab, watched live and stopped (issue 28): progress with time left, and stops that
are prompt in every phase with files whole or absent.

The profile, made here: all-to-all among the 432 hosts of a k=12 fat-tree (186,192 single-packet
flows), 100G everywhere. On a 2-core VM: ~1.5 s of set-up (accounting, hosts), ~2 s of run,
~2 s of writing (pairs, flows.jsonl 98 MB, pairs.jsonl 39 MB, result.json):

        core0 .. core35
       /               \\
    pod0 (6 aggs, 6 leaves) .. pod11      36 hosts a pod, 6 a leaf

  setup     SIGINT 0.5 s in: set-up stops; result.json alone, "interrupted_in": "set-up"
  run       SIGINT after the first progress line: "interrupted_in": "run", no flows.jsonl or
            pairs.jsonl ("interrupted_skipped"), summary.txt says so
  write     SIGINT once flows.jsonl is being written: it is removed, "interrupted_in": "write"
  twice     SIGINT after the first progress line, another 50 ms later: exit 130 at once, no file
            cut (each whole or absent, no temporary file left)
  term      SIGTERM after the first progress line: as SIGINT
  progress  a whole run: its progress lines carry the share of the planned virtual time and the
            time left; result.json has no interrupted_in

Each stop: exit within 3 s of the signal (1 s asked; 3 s on a loaded machine), exit 0 (130 for
the second signal), every file in -o valid (json.load, each .jsonl line json.loads, summary.txt
whole) or absent.

usage: live_check.py ROCEPROBE CASE
"""
import glob
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from check import expect, finish  # noqa: E402

ROCEPROBE, CASE = sys.argv[1], sys.argv[2]
BOUND_S = 3.0


def profile(tmp, k=12):
    n = k ** 3 // 4
    hosts = "".join(f'  - {{name: h{i}, mac: "02:00:00:10:{i >> 8 & 255:02x}:{i & 255:02x}", '
                    f'ipv4: 10.{16 + i // 250}.0.{i % 250 + 1}}}\n' for i in range(n))
    names = ", ".join(f"h{i}" for i in range(n))
    path = os.path.join(tmp, "fat-tree-432.yaml")
    with open(path, "w") as f:
        f.write(f"name: fat-tree-{n}\n"
                "defaults: {speed: 100G, opcode: write, message_size: 4KiB, mtu: 4096, dscp: 26, ecn: ect0}\n"
                f"hosts:\n{hosts}"
                f"traffic:\n  - name: a2a\n    pattern: all-to-all\n    hosts: [{names}]\n    rate: 100%\n"
                f"    messages: 1\nfabric:\n  topology: fat-tree\n  k: {k}\n")
    return path


def start(prof, out):
    return subprocess.Popen([ROCEPROBE, "lab", prof, "-o", out], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True)


def until_line(p, prefix, lines):
    """stderr lines up to the first that starts with prefix (True), or its end (False)."""
    for line in p.stderr:
        lines.append(line.rstrip("\n"))
        if line.startswith(prefix):
            return True
    return False


def stop(p, sig, lines, second=None):
    """Signals p (and, second seconds later, again); its exit code and seconds from the first."""
    t = time.monotonic()
    p.send_signal(sig)
    if second is not None:
        time.sleep(second)
        p.send_signal(sig)
    try:
        rc = p.wait(timeout=60)
    except subprocess.TimeoutExpired:
        p.kill()
        rc = p.wait()
    took = time.monotonic() - t
    lines.extend(p.stderr.read().splitlines())
    return rc, took


def whole_or_absent(out, what):
    """Every file in out is whole: no temporary one, JSON that loads, summary.txt to its end."""
    names = sorted(os.listdir(out)) if os.path.isdir(out) else []
    tmp = [n for n in names if ".tmp" in n]
    expect(not tmp, f"{what}: no temporary file left ({tmp or 'none'})")
    bad = []
    for n in names:
        path = os.path.join(out, n)
        try:
            if n.endswith(".json"):
                json.load(open(path))
            elif n.endswith(".jsonl"):
                with open(path) as f:
                    for line in f:
                        json.loads(line)
            elif n == "summary.txt":
                text = open(path).read()
                if not (text.startswith("roceprobe lab: ") and text.endswith("\n") and "victim" in text):
                    bad.append(n)
            elif n == "qdepth.csv":
                rows = open(path).read()
                if not rows.endswith("\n") or len({r.count(",") for r in rows.splitlines()}) != 1:
                    bad.append(n)
        except (ValueError, OSError):
            bad.append(n)
    expect(not bad, f"{what}: every file whole ({names}; bad: {bad or 'none'})")
    return names


def result(out):
    path = os.path.join(out, "result.json")
    return json.load(open(path)) if os.path.exists(path) else None


def stopped_case(tmp, sig, wait, where, second=None):
    prof, out, lines = profile(tmp), os.path.join(tmp, "out"), []
    p = start(prof, out)
    if wait == "setup":
        time.sleep(0.5)
    elif wait == "run":
        expect(until_line(p, "lab: virtual ", lines), f"a progress line before the signal ({lines[-3:]})")
    elif wait == "write":
        t0 = time.monotonic()
        while not glob.glob(os.path.join(out, "flows.jsonl.tmp*")) and p.poll() is None and time.monotonic() - t0 < 60:
            time.sleep(0.002)
        expect(p.poll() is None, "flows.jsonl being written when the signal comes")
    rc, took = stop(p, sig, lines, second)
    what = f"{signal.Signals(sig).name} in {wait}" + (" twice" if second is not None else "")
    code = 128 + sig if second is not None else 0
    expect(rc == code and took <= BOUND_S,
           f"{what}: exit {code} within {BOUND_S:g} s (exit {rc} after {took:.2f} s; {lines[-2:]})")
    names = whole_or_absent(out, what)
    j = result(out)
    if second is not None:
        expect(j is None or j["interrupted"] is True, f"{what}: result.json absent, or says interrupted")
        return
    expect(j is not None and j["interrupted"] is True and j.get("interrupted_in") == where,
           f"{what}: result.json says interrupted in {where} "
           f"({j and (j['interrupted'], j.get('interrupted_in'), j.get('interrupted_skipped'))})")
    if where == "set-up":
        expect(names == ["result.json"] and "flows" not in j, f"{what}: nothing ran: result.json alone ({names})")
    else:
        skipped = j.get("interrupted_skipped") or []
        expect("flows.jsonl" not in names and "pairs.jsonl" not in names and "flows.jsonl" in skipped
               and "pairs.jsonl" in skipped and "flows_file" not in j and j["flows_summary"]["file"] is None,
               f"{what}: no flows.jsonl or pairs.jsonl, and result.json says they were left out ({skipped})")
        expect(j["flows_summary"]["flows"] == 186192, f"{what}: flows_summary counts every flow "
               f"({j['flows_summary']['flows']})")
        expect("summary.txt" in names and "the stop left" in open(os.path.join(out, "summary.txt")).read(),
               f"{what}: summary.txt says what the stop left out")


def case_setup(tmp):
    stopped_case(tmp, signal.SIGINT, "setup", "set-up")


def case_run(tmp):
    stopped_case(tmp, signal.SIGINT, "run", "run")


def case_write(tmp):
    stopped_case(tmp, signal.SIGINT, "write", "write")


def case_twice(tmp):
    stopped_case(tmp, signal.SIGINT, "run", "run", second=0.05)


def case_term(tmp):
    stopped_case(tmp, signal.SIGTERM, "run", "run")


def case_progress(tmp):
    prof, out = profile(tmp), os.path.join(tmp, "out")
    p = subprocess.run([ROCEPROBE, "lab", prof, "-o", out], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       text=True, timeout=300)
    expect(p.returncode == 0, f"a whole run: exit 0 ({p.returncode})")
    runs = [l for l in p.stderr.splitlines() if l.startswith("lab: virtual ")]
    # "lab: virtual 0.045 of 0.155 ms (29%), 1.48 M events/s, about 1.3 s left"
    shaped = [l for l in runs if " of " in l and "%), " in l and " left" in l]
    expect(runs and shaped == runs, f"every progress line has the planned end, a share and the time left ({runs})")
    j = result(out)
    expect(j["interrupted"] is False and "interrupted_in" not in j and "interrupted_skipped" not in j,
           "result.json: not interrupted, no interrupted_in or interrupted_skipped")
    whole_or_absent(out, "a whole run")


with tempfile.TemporaryDirectory(prefix="rp-live-") as tmp:
    globals()["case_" + CASE](tmp)
finish("live " + CASE)
