#!/bin/sh
# certify --engine run, in process against forked: the same certify (certify-good's h0..h3,
# h0-h1 a pair: link, h2 and h3 on net_null; every test, 7 runs) run ROUNDS times (default
# 5) each way in alternating rounds: in process (no launcher: lib/run in certify's process,
# one DPDK EAL) and forked (`--launcher env`: each run a `roceprobe run` child, as before).
# Prints each round's CPU seconds (user + sys of certify and every child it waited for)
# and wall seconds, the medians, and the ratio forked / in process of the CPU medians.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
exe=${ROCEPROBE:-$root/build/app/roceprobe}
rounds=${ROUNDS:-5}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 - "$exe" "$root/profiles/certify-good.yaml" "$tmp" "$rounds" <<'PY'
import os, statistics, subprocess, sys, time
exe, good, tmp, rounds = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
prof = os.path.join(tmp, "four.yaml")
with open(good) as f:
    lines = [ln for ln in f if not any(f"name: h{i}," in ln for i in range(4, 8))]
with open(prof, "w") as f:
    f.write("".join(lines).replace("hosts: [h0, h1, h2, h3, h4, h5, h6, h7]", "hosts: [h0, h1, h2, h3]"))
ports = ["--set", "hosts.0.port=pair:a:0", "--set", "hosts.1.port=pair:a:1", "--set", "hosts.2.port=net_null0",
         "--set", "hosts.3.port=net_null1"]
res = {"inproc": [], "fork": []}
for r in range(rounds):
    for mode in (("inproc", "fork") if r % 2 == 0 else ("fork", "inproc")):
        out = os.path.join(tmp, f"{mode}-{r}")
        cmd = [exe, "certify", prof, "-o", out, "--engine", "run", "-q", "--no-preflight", *ports]
        if mode == "fork":
            cmd += ["--launcher", "env"]
        t0 = time.monotonic()
        p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.monotonic() - t0
        runs = len([d for d in os.listdir(os.path.join(out, "runs")) if d.endswith(".log")])
        cpu = ru.ru_utime + ru.ru_stime
        res[mode].append((cpu, wall))
        print(f"round {r} {mode:6s} cpu_s={cpu:.3f} wall_s={wall:.3f} runs={runs} exit={os.waitstatus_to_exitcode(status)}")
med = {m: (statistics.median(c for c, _ in v), statistics.median(w for _, w in v)) for m, v in res.items()}
for m, (c, w) in med.items():
    print(f"median {m:6s} cpu_s={c:.3f} wall_s={w:.3f}")
print(f"ratio fork/inproc cpu={med['fork'][0] / med['inproc'][0]:.2f} wall={med['fork'][1] / med['inproc'][1]:.2f}")
PY
