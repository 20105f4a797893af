#!/usr/bin/python3
"""roceprobe run under srun: a single-node Slurm of its own (Debian's slurm-wlm 22.05 and munge),
started here and stopped at the end, runs run_check.py's cases with `srun --mpi=pmix -n 4`.

    munged (own key and socket) <- slurmctld + slurmd (own slurm.conf, ports 16817/16818,
    state in a temporary directory; the node declared with 4 CPUs, config_overrides)
        srun --mpi=pmix -n 4 --oversubscribe roceprobe run ...   (Open MPI 4.1 ranks, PMIx 4)

Cases (run_check.py with RP_LAUNCHER=srun, same topology and expectations):
  incast   3:1 incast through tc tbf: merged per-flow loss == the kernel's drops, exactly;
           the result's cluster.launcher is "srun".
  kill     kill -9 of rank 1 mid-run. Slurm's mpi/pmix plugin answers the PMIx event of a
           lost client with slurm_kill_job_step(SIGKILL) (src/plugins/mpi/pmix/pmixp_client_v2.c,
           _errhandler): every task is killed at once, so no rank can write a result. Expected
           here: srun exits non-zero, every rank is gone within 5 s, and DIR holds no result
           and no temporary file (docs/cluster.md).

usage: slurm_check.py ROCEPROBE CASE   (exit 77 = skipped, with the reason Slurm could not start)
"""
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from check import expect, finish  # noqa: E402
from cluster_case import rank_pids  # noqa: E402

ROCEPROBE, CASE = sys.argv[1], sys.argv[2]
HERE = os.path.dirname(os.path.abspath(__file__))
TOOLS = {t: shutil.which(t) or (f"/usr/sbin/{t}" if os.path.exists(f"/usr/sbin/{t}") else None)
         for t in ("munged", "slurmctld", "slurmd", "srun", "sinfo")}


def skip(why):
    print(f"skipped: {why}")
    sys.exit(77)


if not all(TOOLS.values()):
    skip(f"Slurm or munge is missing ({[t for t, p in TOOLS.items() if not p]}; tools/bootstrap.sh installs them)")

CONF = """ClusterName=rp
SlurmctldHost={node}
AuthType=auth/munge
AuthInfo=socket={d}/munge.sock
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
SlurmctldPort=16817
SlurmdPort=16818
StateSaveLocation={d}/state
SlurmdSpoolDir={d}/spool
TmpFS={d}/tmp
SlurmctldPidFile={d}/slurmctld.pid
SlurmdPidFile={d}/slurmd.pid
SlurmctldLogFile={d}/slurmctld.log
SlurmdLogFile={d}/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SlurmdParameters=config_overrides
ReturnToService=2
MpiDefault=none
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
NodeName={node} CPUs=4 Boards=1 SocketsPerBoard=1 CoresPerSocket=4 ThreadsPerCore=1 RealMemory=1000 State=UNKNOWN
PartitionName=rp Nodes={node} Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4
"""


def start(d):
    """munged, slurmctld, slurmd of our own; the environment for srun. Skips when Slurm cannot start."""
    os.makedirs(f"{d}/state")
    os.makedirs(f"{d}/spool")
    os.makedirs(f"{d}/tmp")  # TmpFS: the pmix plugin's spmix_appdir_* (a step killed leaves one in /tmp, and the next
    #                         Slurm's step 1.0 then fails "File exists")
    with open(f"{d}/munge.key", "wb") as f:
        f.write(os.urandom(1024))
    os.chmod(f"{d}/munge.key", 0o600)
    with open(f"{d}/slurm.conf", "w") as f:
        f.write(CONF.format(node=socket.gethostname().split(".")[0], d=d))
    env = dict(os.environ, SLURM_CONF=f"{d}/slurm.conf")
    steps = [[TOOLS["munged"], f"--socket={d}/munge.sock", f"--pid-file={d}/munged.pid", f"--log-file={d}/munged.log",
              f"--seed-file={d}/munge.seed", f"--key-file={d}/munge.key"],
             [TOOLS["slurmctld"], "-f", f"{d}/slurm.conf"], [TOOLS["slurmd"], "-f", f"{d}/slurm.conf"]]
    for cmd in steps:
        p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=30)
        if p.returncode != 0:
            skip(f"{os.path.basename(cmd[0])} did not start: {(p.stderr or p.stdout).strip()[-300:]}")
        time.sleep(0.5)
    for _ in range(60):
        p = subprocess.run([TOOLS["sinfo"], "-h", "-o", "%t"], capture_output=True, text=True, env=env, timeout=30)
        if p.stdout.strip() in ("idle", "mix", "alloc"):
            break
        time.sleep(0.5)
    else:
        logs = "".join(open(f"{d}/{n}.log").read()[-300:] for n in ("slurmctld", "slurmd") if os.path.exists(f"{d}/{n}.log"))
        skip(f"the Slurm node did not come up ({p.stdout.strip()} {p.stderr.strip()}): {logs}")
    p = subprocess.run([TOOLS["srun"], "--mpi=list"], capture_output=True, text=True, env=env, timeout=30)
    if "pmix" not in p.stdout + p.stderr:
        skip(f"this Slurm has no PMIx plugin (srun --mpi=list: {(p.stdout + p.stderr).split()})")
    return env


def stop(d):
    """Our daemons only, by the pids they wrote."""
    for name in ("slurmd", "slurmctld", "munged"):
        try:
            pid = int(open(f"{d}/{name}.pid").read().split()[0])
        except (OSError, ValueError, IndexError):
            continue
        try:
            os.kill(pid, signal.SIGTERM)
            for _ in range(50):
                os.kill(pid, 0)
                time.sleep(0.1)
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


PROGRESS = re.compile(r"run +[\d.]+s\b[^|]*\| ")  # the elapsed time, the share and time left when known, then " | "


def case_kill(env, tmp):
    # run_check.py's topology for this case is a plain 3:1 incast into r, no tbf; the ranks only
    # need to be sending when rank 1 dies.
    sys.path.insert(0, HERE)
    path, out = os.path.join(tmp, "p.yaml"), os.path.join(tmp, "out")
    hosts = "\n".join(f'  - {{name: {h}, mac: "02:00:00:00:00:{k + 1:02x}", ipv4: 10.97.0.{k + 1}, '
                      f'port: "net_null{k},no-rx=1"}}' for k, h in enumerate(["s1", "s2", "s3", "r"]))
    with open(path, "w") as f:
        f.write(f"name: srun-kill\ndefaults: {{speed: 1G, mtu: 1024, message_size: 1024}}\nhosts:\n{hosts}\n"
                "traffic:\n  - {pattern: incast, senders: [s1, s2, s3], receiver: r, rate: 20M, duration: 30s}\n")
    p = subprocess.Popen([TOOLS["srun"], "--mpi=pmix", "-n", "4", "--oversubscribe", ROCEPROBE, "run", path, "-o", out],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    lines = []
    reader = threading.Thread(target=lambda: lines.extend(iter(p.stderr.readline, "")), daemon=True)
    reader.start()
    pids, killed = {}, None
    for _ in range(1200):
        pids = rank_pids(path)
        # rank 0's progress line ("run    1.0s of 30.0s (3%), 29 s left | ...", once a second
        # from T0): the ranks send
        if len(pids) == 4 and any(PROGRESS.match(ln) for ln in lines):
            os.kill(pids[1], signal.SIGKILL)
            killed = time.time()
            break
        time.sleep(0.05)
    expect(killed is not None, "rank 1 killed mid-run")
    gone = None
    while killed and time.time() < killed + 30:
        if not any(os.path.exists(f"/proc/{v}") for k, v in pids.items() if k != 1):
            gone = time.time() - killed
            break
        time.sleep(0.02)
    try:
        p.wait(timeout=60)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
    reader.join(timeout=10)
    err = "".join(lines)
    for v in pids.values():  # SIGKILLed EALs leave these: once each is gone (not a zombie), within 10 s
        for _ in range(200):
            if not os.path.exists(f"/proc/{v}"):
                subprocess.run(["rm", "-rf", f"/var/run/dpdk/rp{v}"], check=False)
                break
            time.sleep(0.05)
    print(err[-1200:])
    print(f"srun exit {p.returncode}; the other ranks gone {gone} s after the kill")
    expect(p.returncode != 0, f"srun exits non-zero ({p.returncode})")
    expect(gone is not None and gone < 5, f"every rank gone within 5 s ({gone})")
    names = os.listdir(out) if os.path.isdir(out) else []
    expect(not [n for n in names if ".tmp" in n], f"no temporary file in DIR ({names})")
    if "result.json" in names:  # a run fast enough to finish before Slurm's SIGKILL
        j = json.load(open(os.path.join(out, "result.json")))
        expect(j.get("incomplete") == ["s2"], f"a result written in time says incomplete: [s2] ({j.get('incomplete')})")
    else:
        print("no result.json: Slurm's pmix plugin SIGKILLed the step before rank 0 could write (expected)")


tmp = tempfile.mkdtemp(prefix="rpslurm-")
os.chmod(tmp, 0o755)  # munged wants its socket directory searchable by all
try:
    env = start(tmp)
    if CASE == "kill":
        case_kill(env, tmp)
    else:
        p = subprocess.run(["/usr/bin/python3", os.path.join(HERE, "run_check.py"), ROCEPROBE, CASE],
                           env=dict(env, RP_LAUNCHER="srun"), capture_output=True, text=True, timeout=300)
        print(p.stdout[-4000:], p.stderr[-2000:])
        expect(p.returncode == 0, f"run_check.py {CASE} under srun --mpi=pmix -n 4 (exit {p.returncode})")
finally:
    stop(tmp)
    shutil.rmtree(tmp, ignore_errors=True)
finish(f"slurm-{CASE}")
