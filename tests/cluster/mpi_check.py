#!/usr/bin/python3
"""roceprobe cluster under a real launcher (Open MPI's mpirun, 4 ranks on this host).

    mpirun -np 4:  rank 0 --MPI ping-pong-- rank 1, rank 2 (clock skewed +5 ms on purpose), rank 3
      every rank's offset to rank 0 is within its stated bound of the truth:
      +5 000 000 ns for rank 2, 0 for the others (one machine, one CLOCK_REALTIME)
    a 4-host profile on 2 ranks: h1, h2 on ranks 0, 1 (by index); h3, h4 name this node: its ranks 0, 1
    a 5-host profile on 4 ranks: exit 2, one line from rank 0 naming h5
    a profile placing a host on rank 1, started without a launcher: exit 2, one line

usage: mpi_check.py ROCEPROBE
"""
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import check  # noqa: E402
from check import expect, finish  # noqa: E402

ROCEPROBE = sys.argv[1]
check.in_private_netns("rpc")  # mpirun's out-of-band listener binds every address: the job's own namespace
MPIRUN = shutil.which("mpirun")
if not MPIRUN:
    print("mpirun is missing (openmpi-bin)")
    sys.exit(77)
MPI = [MPIRUN, "--allow-run-as-root", "--oversubscribe"]
SKEW = 5_000_000



def hosts(n, extra=lambda i: ""):
    lines = [f'  - {{name: h{i}, mac: "02:00:00:00:00:0{i}", ipv4: 10.0.0.{i}{extra(i)}}}' for i in range(1, n + 1)]
    return "hosts:\n" + "\n".join(lines) + "\ntraffic:\n  - {pattern: flow, src: h1, dst: h2}\n"


def ours(stderr):
    return [ln for ln in stderr.splitlines() if ln.startswith("roceprobe")]


with tempfile.TemporaryDirectory() as tmp:
    # Ranks 0, 1 plain; rank 2 with its clock 5 ms ahead; rank 3 plain (MPMD: one app context each).
    p = subprocess.run(MPI + ["-np", "2", ROCEPROBE, "cluster", "--json", ":",
                              "-np", "1", "-x", f"ROCEPROBE_CLOCK_SKEW_NS={SKEW}", ROCEPROBE, "cluster", "--json", ":",
                              "-np", "1", ROCEPROBE, "cluster", "--json"],
                       capture_output=True, text=True, timeout=60)
    expect(p.returncode == 0, f"mpirun -np 4 roceprobe cluster: exit 0 ({p.returncode}, {p.stderr.strip()[-300:]!r})")
    if p.returncode == 0:
        j = json.loads(p.stdout)
        expect(j["size"] == 4 and j["launcher"] == "mpirun", f"4 ranks under mpirun ({j['size']}, {j['launcher']})")
        node = socket.gethostname()
        expect([r["node"] for r in j["ranks"]] == [node] * 4 and [r["local_rank"] for r in j["ranks"]] == [0, 1, 2, 3],
               "every rank on this node, local ranks 0..3")
        for r in j["ranks"]:
            truth = SKEW if r["rank"] == 2 else 0
            off, bound = r["clock_offset_ns"], r["clock_bound_ns"]
            expect(abs(off - truth) <= bound and bound > 0 or r["rank"] == 0,
                   f"rank {r['rank']}: offset {off} +- {bound} ns holds the truth {truth}")
        expect(j["ranks"][2]["clock_bound_ns"] < 1_000_000, f"rank 2's bound below 1 ms ({j['ranks'][2]['clock_bound_ns']})")

    path4 = os.path.join(tmp, "four.yaml")
    with open(path4, "w") as f:
        f.write(hosts(4, lambda i: f", node: {socket.gethostname()}" if i in (3, 4) else ""))
    p = subprocess.run(MPI + ["-np", "2", ROCEPROBE, "cluster", "--json", path4], capture_output=True, text=True, timeout=60)
    j = json.loads(p.stdout) if p.returncode == 0 else {"hosts": []}
    # Two ranks: h1, h2 by index; h3, h4 name this node: its local ranks 0 and 1 in profile order.
    expect([h["rank"] for h in j["hosts"]] == [0, 1, 0, 1], f"binding h1..h4 -> ranks 0, 1, 0, 1 ({j['hosts']})")

    path5 = os.path.join(tmp, "five.yaml")
    with open(path5, "w") as f:
        f.write(hosts(5))
    p = subprocess.run(MPI + ["-np", "4", ROCEPROBE, "cluster", path5], capture_output=True, text=True, timeout=60)
    lines = ours(p.stderr)
    expect(p.returncode == 2 and len(lines) == 1 and "host 'h5'" in lines[0] and "4 ranks were started" in lines[0],
           f"5 hosts on 4 ranks: exit 2, one line ({p.returncode}, {lines})")

    path1 = os.path.join(tmp, "rank1.yaml")
    with open(path1, "w") as f:
        f.write(hosts(2, lambda i: f", rank: {i - 1}"))
    p = subprocess.run([ROCEPROBE, "cluster", path1], capture_output=True, text=True, timeout=60)
    lines = ours(p.stderr)
    expect(p.returncode == 2 and len(lines) == 1 and "start it with mpirun or srun" in lines[0],
           f"no launcher, a host on rank 1: exit 2, one line ({p.returncode}, {lines})")
finish("mpi-cluster")
