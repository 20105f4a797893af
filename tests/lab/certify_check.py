#!/usr/bin/python3
"""roceprobe certify against known answers in the lab.

    certify-good.yaml (one switch)          certify-leaf-spine.yaml
       h0 .. h7                               leaf0: h0..h3     leaf1: h4..h7
         \\ | /   100G, 500 ns cables            \\    2 x 200G up   /
          sw0                                     spine0   spine1

good      certify-good: every test PASS (9 ecmp SKIP on one switch; 6 pause-storm SKIP
          without --allow-pause-storm, PASS with it); exit 0. certify-leaf-spine: tests 7 and 9
          run with fabric.seed 6..10 (the shipped 6 and the next four) and disagree: 7 fails
          at seed 8 (a host at 89% of line), 9 passes at seed 6 alone (ECMP collisions of 32 QPs
          over 2 uplinks): both MARGINAL, not certified, exit 1. A 2-host profile (8 of 9 tests
          SKIP, test 1 among them): exit 1, "not certified: 1 of 9 tests judged"; with
          --only 7 (the one judged): exit 0
misconfig each misconfiguration put there on purpose fails exactly the test
          meant to catch it (every other test PASS or SKIP), with its cause code:
            fabric.pfc.enabled=off         -> 1 pfc-off
            fabric.pfc.priorities=[0, 3]   -> 2 pfc-on-lossy   (certify: lossy 0)
            ecn.kmin 200KB > xoff 128KiB   -> 3 ecn-after-pfc
            fabric.dscp_map={26: 0}        -> 4 dscp-map       (hosts send 26 as prio 3)
            fabric.pfc.headroom=8KiB       -> 5 headroom       (formula: 40304 B, below)
            --allow-pause-storm, pfc.watchdog=off -> 6 no-watchdog
            uplink.speed=50G (4:1)         -> 7 and 9 oversubscribed
          exit 1
suggest   --suggest on each: a setting is found; certify with it applied passes
          every test (exit 0). Not for the leaf-spine's 50G uplinks: up to the 1:1 speed
          (200G) test 7 is at best MARGINAL (the shipped profile's own), so nothing passes
numbers   hand-worked: the headroom formula at 100G, 500 ns (100 m) cable, max_frame
          9216 + 4: MTU 9240 + PFC 84 + cable 2 x 500 ns x 100G = 12500 + peer MTU 9240
          + frame being received 9240 = 40304 B, and beside it `roceprobe headroom`'s
          96240 B for the same link (+ response 394 x 64 = 25216, + MAC/PHY 2 x 1228.8 ns
          at 100G = 30720), the terms that differ named; an N:1 incast of 8 messages of 64 KiB
          at MTU 4096 sends 16 x 8 x N packets
cli       bad profile key / bad --only / missing -o: exit 2, one line, DIR not made;
          SIGINT mid-run: result.json with "interrupted": true, whole files
progress  (issue 28) every test's line says "N of M done", N counting up; certify-good (0.1 s
          in all) says no time left and no line as a test starts; certify-leaf-spine --only
          1,7,8,9 with 256-message workloads (test 7 alone runs seconds): once certify has run a
          second, a line as each later test starts ("test 8 latency (3 of 4), about N s left ...")
          and the time left on the done lines
reports   report.html self-contained (no src=/href= to anything outside, inline <svg>),
          report.md names every test

usage: certify_check.py ROCEPROBE PROFILES CASE
"""
import json
import os
import signal
import subprocess
import sys
import tempfile
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from check import expect, finish  # noqa: E402

ROCEPROBE, PROFILES, CASE = sys.argv[1], sys.argv[2], sys.argv[3]
GOOD = os.path.join(PROFILES, "certify-good.yaml")
LS = os.path.join(PROFILES, "certify-leaf-spine.yaml")
TMP = tempfile.mkdtemp(prefix="rp-certify-")

MISCONFIG = [
    (GOOD, ["--set", "fabric.pfc.enabled=off"], {1}, "pfc-off"),
    (GOOD, ["--set", "fabric.pfc.priorities=[0, 3]"], {2}, "pfc-on-lossy"),
    (GOOD, ["--set", "fabric.ecn.kmin=200KB", "--set", "fabric.ecn.kmax=400KB"], {3}, "ecn-after-pfc"),
    (GOOD, ["--set", "fabric.dscp_map={26: 0}"], {4}, "dscp-map"),
    (GOOD, ["--set", "fabric.pfc.headroom=8KiB"], {5}, "headroom"),
    (GOOD, ["--allow-pause-storm", "--set", "fabric.pfc.watchdog=off"], {6}, "no-watchdog"),
    (LS, ["--set", "fabric.uplink.speed=50G"], {7, 9}, "oversubscribed"),
]


def certify(profile, *args, out=None):
    out = out or tempfile.mkdtemp(prefix="c-", dir=TMP)
    p = subprocess.run([ROCEPROBE, "certify", profile, "-o", out, "--force", "-q", *args], capture_output=True,
                       text=True, timeout=300)
    res = None
    if os.path.exists(os.path.join(out, "result.json")):
        with open(os.path.join(out, "result.json")) as f:
            res = json.load(f)
    return p, res, out


def verdicts(res):
    return {t["id"]: t["verdict"] for t in res["tests"]}


def two_hosts():
    """certify-good with h0 and h1 alone."""
    path = os.path.join(TMP, "two.yaml")
    with open(GOOD) as f:
        lines = [ln for ln in f if not any(f"name: h{i}," in ln for i in range(2, 8))]
    with open(path, "w") as f:
        f.write("".join(lines).replace("hosts: [h0, h1, h2, h3, h4, h5, h6, h7]", "hosts: [h0, h1]"))
    return path


def case_good():
    for prof, skips, flags, marginal in ((GOOD, {6, 9}, [], set()), (LS, {6}, [], {7, 9}),
                                         (GOOD, {9}, ["--allow-pause-storm"], set()),
                                         (LS, set(), ["--allow-pause-storm"], {7, 9})):
        p, res, _ = certify(prof, *flags)
        name = os.path.basename(prof)
        rc = 1 if marginal else 0
        expect(p.returncode == rc, f"{name}: exit {rc} (got {p.returncode}: {p.stdout[-400:]})")
        expect(res["schema"] == "roceprobe.result/1" and res["kind"] == "certify", f"{name}: schema and kind")
        expect(res["verdict"] == ("MARGINAL" if marginal else "PASS") and res.get("certified") is not bool(marginal),
               f"{name}: verdict {res['verdict']}, certified {res.get('certified')}")
        v = verdicts(res)
        expect(sorted(v) == list(range(1, 10)), f"{name}: one entry per test 1..9 (got {sorted(v)})")
        for i in range(1, 10):
            want = "SKIP" if i in skips else "MARGINAL" if i in marginal else "PASS"
            expect(v.get(i) == want, f"{name}: test {i} {want} (got {v.get(i)})")
        for t in res["tests"]:
            if t["id"] in marginal:
                seeds = [(s["seed"], s["verdict"]) for s in t["seeds"]]
                expect([s for s, _ in seeds] == [6, 7, 8, 9, 10], f"{name}: test {t['id']} ran seeds 6..10 ({seeds})")
                expect({x for _, x in seeds} == {"PASS", "FAIL"} and "PASS with" in t["reason"] and "FAIL with"
                       in t["reason"], f"{name}: test {t['id']} PASS and FAIL among the seeds, said ({t['reason']})")
                expect(len(t["evidence"]["runs"]) == 5, f"{name}: test {t['id']} one run per seed")
            elif t["id"] in (7, 9) and t["verdict"] == "PASS":
                expect(len(t["seeds"]) == 5, f"{name}: test {t['id']} PASS with all 5 seeds")
        if marginal:
            expect("not certified: 9 of 9 tests judged" in p.stdout or "not certified: 8 of 9" in p.stdout,
                   f"{name}: 'not certified' in the summary")
        for t in res["tests"]:
            if t["verdict"] == "SKIP":
                expect(bool(t["reason"]), f"{name}: test {t['id']} SKIP says why")
            expect(all("want" in c and "got" in c for c in t["criteria"]), f"{name}: test {t['id']} criteria")
    two = two_hosts()
    p, res, _ = certify(two)
    v = verdicts(res)
    expect(p.returncode == 1 and v[1] == "SKIP" and v[7] == "PASS" and res.get("certified") is False,
           f"2 hosts: test 1 not judged, exit 1 (got {p.returncode}, {v})")
    expect("not certified: 1 of 9 tests judged" in p.stdout, f"2 hosts: 'not certified: 1 of 9 tests judged' "
           f"({p.stdout.strip().splitlines()[-4:]})")
    p, res, _ = certify(two, "--only", "7")
    expect(p.returncode == 0 and res.get("certified") is True, f"2 hosts --only 7: judged and passed, exit 0 "
           f"(got {p.returncode})")


def case_misconfig():
    for prof, args, fails, code in MISCONFIG:
        p, res, _ = certify(prof, *args)
        what = " ".join(args)
        expect(p.returncode == 1, f"{what}: exit 1 (got {p.returncode})")
        v = verdicts(res)
        failed = {i for i, x in v.items() if x == "FAIL"}
        expect(failed == fails, f"{what}: fails exactly {sorted(fails)} (got {sorted(failed)})")
        for t in res["tests"]:
            if t["id"] in fails:
                expect(t["cause"] and t["cause"]["code"] == code,
                       f"{what}: test {t['id']} cause {code} (got {t['cause']})")
                expect(len(t["cause"]["text"]) > 40, f"{what}: test {t['id']} cause in words")


def case_suggest():
    for prof, args, fails, code in MISCONFIG:
        p, res, _ = certify(prof, *args, "--suggest")
        what = " ".join(args)
        s = res["suggest"]
        if prof == LS:
            tried = [x["verdict"] for x in s["steps"][0]["tried"]] if s and s["steps"] else []
            expect(s and not s["found"] and tried == ["FAIL", "MARGINAL"],
                   f"{what}: nothing passes; 100G FAIL, 200G (1:1) MARGINAL ({tried})")
            continue
        expect(s and s["found"], f"{what}: --suggest found a setting (got {s and s.get('steps')})")
        if not (s and s["found"]):
            continue
        sets = []
        for x in s["sets"]:
            sets += ["--set", x]
        expect(all(st["before"] and st["after"] is not None for st in s["steps"]),
               f"{what}: numbers before and after")
        p2, res2, _ = certify(prof, *args, *sets)
        expect(p2.returncode == 0, f"{what} + {s['sets']}: certify passes (exit {p2.returncode}: "
               f"{[ (t['id'], t['verdict']) for t in res2['tests']]})")


def case_numbers():
    p, res, _ = certify(GOOD, "--only", "1,5")
    t = {x["id"]: x for x in res["tests"]}
    expect(sorted(t) == [1, 5], "--only 1,5 runs tests 1 and 5")
    link = t[5]["measured"]["links"][0]
    expect(link["required_bytes"] == 40304, f"headroom formula 40304 B (got {link['required_bytes']})")
    expect(link["terms"]["cable"] == 12500, f"cable term 12500 B (got {link['terms']['cable']})")
    # `roceprobe headroom` for the same link with its own defaults, the IEEE 802.3 bounds at
    # 100G: 394 quanta x 64 B = 25216 B of response, 2 x 1228.8 ns MAC/PHY delay x 12.5 B/ns
    # = 30720 B: 40304 + 25216 + 30720 = 96240 B. The report lists both, term by term, and
    # which terms differ (the lab's hosts answer PFC in fabric.pfc.response = 0 quanta and
    # the lab has no MAC/PHY delay), with the commands that give each number.
    d = link.get("headroom_defaults") or {}
    expect(d.get("required_bytes") == 96240 and d.get("terms", {}).get("phy") == 30720 and
           d.get("terms", {}).get("response") == 25216, f"headroom's defaults: 96240 B (got {d})")
    expect(link.get("differs") == ["phy", "response"], f"the terms that differ: phy, response ({link.get('differs')})")
    for cmd, want in ((link.get("headroom_command"), 40304), (d.get("command"), 96240)):
        if not cmd:
            expect(False, f"a headroom command for {want} B")
            continue
        h = subprocess.run([ROCEPROBE] + cmd.split()[1:] + ["--json"], capture_output=True, text=True, timeout=30)
        got = json.loads(h.stdout).get("total_bytes") if h.returncode == 0 else h.stderr
        expect(got == want, f"`{cmd}` gives {want} B (got {got})")
    rows = {r["term"]: r for r in t[5]["measured"].get("terms_vs_headroom", [])}
    expect(rows.get("total", {}).get("certify_bytes") == 40304 and rows.get("total", {}).get("headroom_bytes") == 96240
           and [k for k, r in rows.items() if r["differs"]] == ["MAC/PHY delay, both ways", "peer response", "total"],
           f"the side-by-side table ({[(k, r['certify_bytes'], r['headroom_bytes']) for k, r in rows.items()]})")
    for r in t[1]["measured"]["runs"]:
        expect(r["tx_packets"] == 128 * r["n"], f"{r['n']}:1 sends 128 x N packets (got {r['tx_packets']})")
        expect(r["lost"] == 0 and r["senders_paused"] == r["n"], f"{r['n']}:1 lossless, every sender paused")
    expect([r["n"] for r in t[1]["measured"]["runs"]] == [2, 4, 7], "N = 2, 4, 7 for 8 hosts")


def case_cli():
    bad = os.path.join(TMP, "bad.yaml")
    with open(GOOD) as f:
        text = f.read()
    with open(bad, "w") as f:
        f.write(text.replace("  dscp: [26]\n", "  dscp: [26]\n  jian: 0.9\n"))
    for args, needle in (([bad], "certify.jian"), ([GOOD, "--only", "1,zz"], "--only"),
                         ([GOOD, "--set", "certify.all_to_all.goodput=190%"], "goodput"),
                         ([GOOD, "--engine", "fpga"], "--engine"),
                         ([GOOD, "--launcher", "mpirun -np 4"], "--engine run"),
                         ([GOOD, "--engine", "run"], "port:"),  # the lab profile's hosts have no port
                         ([GOOD, "--engine", "run", "--set", "hosts.0.port=net_null0", "--suggest"], "--suggest"),
                         ([GOOD, "--engine", "run", "--set", "hosts.0.port=net_null0", "--launcher", "mpirun 'x"],
                          "unbalanced")):
        out = os.path.join(TMP, "never")
        p = subprocess.run([ROCEPROBE, "certify", *args, "-o", out], capture_output=True, text=True, timeout=60)
        lines = p.stderr.strip().splitlines()
        expect(p.returncode == 2, f"{args}: exit 2 (got {p.returncode})")
        expect(len(lines) == 1 and lines[0].startswith("roceprobe certify:") and needle in lines[0],
               f"{args}: one line naming {needle} (got {lines})")
        expect(not os.path.exists(out), f"{args}: DIR not made")
    p = subprocess.run([ROCEPROBE, "certify", GOOD], capture_output=True, text=True, timeout=60)
    expect(p.returncode == 2 and "-o DIR" in p.stderr, "without -o: exit 2")
    # SIGINT while tests run: the tests done so far, interrupted: true, whole files
    out = os.path.join(TMP, "sig")
    pr = subprocess.Popen([ROCEPROBE, "certify", LS, "-o", out], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True)
    # The signal goes right after test 1's progress line: 8 tests (most of the run) are
    # still to come, however fast the machine (a fixed 0.6 s sleep saw all 9 done).
    first = pr.stderr.readline()
    pr.send_signal(signal.SIGINT)
    _, err = pr.communicate(timeout=60)
    err = first + err
    expect(first.startswith("certify: test 1 "), f"SIGINT: sent after test 1's progress line ({first.strip()})")
    with open(os.path.join(out, "result.json")) as f:
        res = json.load(f)
    expect(res["interrupted"] is True, f"SIGINT: interrupted true (tests done: {len(res['tests'])})")
    expect(len(res["tests"]) < 9, "SIGINT: not every test ran")
    expect(pr.returncode == 1, f"SIGINT: exit 1, not certified (got {pr.returncode})")
    for f in ("report.md", "report.html"):
        expect(os.path.getsize(os.path.join(out, f)) > 0, f"SIGINT: {f} written")


def case_reports():
    p, res, out = certify(GOOD, "--set", "fabric.pfc.headroom=8KiB")
    with open(os.path.join(out, "report.html")) as f:
        html = f.read()
    with open(os.path.join(out, "report.md")) as f:
        md = f.read()
    expect("<svg" in html and "<style>" in html, "report.html: inline CSS and SVG")
    expect(" src=" not in html and "href='http" not in html and 'href="http' not in html and "<link" not in html,
           "report.html: nothing fetched from outside")
    expect(html.rstrip().endswith("</html>"), "report.html: whole")
    for t in res["tests"]:
        expect(t["name"] in md, f"report.md names {t['name']}")
    expect("Likely cause" in md and "headroom" in md, "report.md: the cause of the FAIL")


def case_progress():
    import re
    out = os.path.join(TMP, "fast")
    p = subprocess.run([ROCEPROBE, "certify", GOOD, "-o", out], capture_output=True, text=True, timeout=120)
    lines = [ln for ln in p.stderr.splitlines() if ln.startswith("certify: test ")]
    done = [int(m.group(1)) for ln in lines for m in [re.search(r"; (\d+) of 9 done", ln)] if m]
    expect(done == list(range(1, 10)), f"certify-good: every test's line counts '1 of 9 done' .. '9 of 9 done' ({done})")
    expect(not any("left" in ln or " ..." in ln for ln in lines),
           f"certify-good (0.1 s): no time left and no start lines ({[ln for ln in lines if 'left' in ln][:2]})")
    out = os.path.join(TMP, "slow")
    p = subprocess.run([ROCEPROBE, "certify", LS, "-o", out, "--only", "1,7,8,9", "--set", "certify.messages=256"],
                       capture_output=True, text=True, timeout=300)
    lines = [ln for ln in p.stderr.splitlines() if ln.startswith("certify: test ")]
    done = [int(m.group(1)) for ln in lines for m in [re.search(r"; (\d+) of 4 done", ln)] if m]
    expect(done == [1, 2, 3, 4], f"--only 1,7,8,9: '1 of 4 done' .. '4 of 4 done' ({done})")
    starts = [ln for ln in lines if ln.endswith(" ...")]
    expect([ln.split(", about")[0] for ln in starts] == ["certify: test 8 latency (3 of 4)", "certify: test 9 ecmp (4 of 4)"],
           f"a line as tests 8 and 9 start, after test 7's seconds ({starts})")
    expect(all(re.search(r"about \d+(\.\d)? (s|min|h) left \.\.\.$", ln) for ln in starts),
           f"the start lines say about how long is left ({starts})")
    last = [ln for ln in lines if "; 4 of 4 done" in ln]
    expect(len(last) == 1 and "left" not in last[0], f"the last test's line says no time left ({last})")
    expect(any(re.search(r"; 3 of 4 done, about \d+(\.\d)? (s|min|h) left\)$", ln) for ln in lines),
           "the line of test 3 of 4 says about how long is left")


{"good": case_good, "misconfig": case_misconfig, "suggest": case_suggest, "numbers": case_numbers,
 "cli": case_cli, "reports": case_reports, "progress": case_progress}[CASE]()
subprocess.run(["rm", "-rf", TMP])
finish("certify-" + CASE)
