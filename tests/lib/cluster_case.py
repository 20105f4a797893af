"""What the cluster tests (tests/cluster/*_check.py) share, one copy each: running one case
under the machine-wide lock, finding the ranks' processes, and running a job that may hang.

    from cluster_case import run_case, rank_pids, run_ranks
    run_case(globals()["case_" + CASE], "rpc-", teardown, f"cluster-run-{CASE}")
"""
import fcntl
import os
import shutil
import signal
import subprocess
import sys
import tempfile

import check
from check import finish

# The rp*- interfaces are one machine's, and the cluster tests share its CPUs: two checkouts'
# suites running at once would tear down each other's topology and send through each other's
# bridge. One case at a time, machine-wide, for every cluster test.
LOCK = "/tmp/rpc-cluster.lock"


def run_case(case, prefix, teardown, name):
    """case(tmpdir) under the lock; teardown() always runs (also on meson's timeout, SIGTERM);
    a topology this machine cannot build is a skip (77), not a failure. tmpdir (profiles,
    results, captures: ~3 MB a case, ~80 MB a suite) is removed when every check passed and
    kept, its path printed, when one failed. Exits via finish(name)."""
    lock = open(LOCK, "w")
    fcntl.flock(lock, fcntl.LOCK_EX)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))  # finally still runs
    tmp = tempfile.mkdtemp(prefix=prefix)
    try:
        case(tmp)
    except (subprocess.CalledProcessError, FileNotFoundError) as e:
        teardown()
        shutil.rmtree(tmp, ignore_errors=True)
        print(f"skipped: cannot build the veth/bridge topology here ({e})")
        sys.exit(77)
    finally:
        teardown()
    if check.failures or os.environ.get("ROCEPROBE_KEEP_TMP"):  # kept: to compare two builds' results
        print(f"kept for a look: {tmp}")
    else:
        shutil.rmtree(tmp, ignore_errors=True)
    finish(name)


def roceprobe_pids():
    """Every roceprobe process on the machine (its ranks, whoever started them)."""
    pids = []
    for d in os.listdir("/proc"):
        try:
            if d.isdigit() and open(f"/proc/{d}/comm").read().strip() == "roceprobe":
                pids.append(int(d))
        except OSError:  # gone meanwhile
            continue
    return sorted(pids)


RANK_VARS = (b"OMPI_COMM_WORLD_RANK=", b"PMIX_RANK=")  # Open MPI's (mpirun), PMIx's (srun)


def rank_pids(path):
    """{rank: pid} of this job's `roceprobe run` processes (its profile path on the command line),
    each by the rank its launcher gave it (RANK_VARS in its environment)."""
    pids = {}
    for pid in roceprobe_pids():
        try:
            cmd = open(f"/proc/{pid}/cmdline", "rb").read().split(b"\0")
            env = open(f"/proc/{pid}/environ", "rb").read().split(b"\0")
        except OSError:
            continue
        if path.encode() not in cmd or b"run" not in cmd:
            continue
        rank = next((e.split(b"=", 1)[1] for e in env for v in RANK_VARS if e.startswith(v)), None)
        if rank is not None and rank.isdigit():
            pids[int(rank)] = pid
    return pids


def run_ranks(argv, timeout, **kw):
    """subprocess.run(argv, capture_output=True, text=True, timeout=timeout) for a launcher
    (mpirun, srun) of roceprobe ranks. On the timeout, before anything is killed, every
    roceprobe process's threads' stacks (gdb) and the launcher's stderr so far are printed (a
    hang then says where each rank stood), the launcher gets SIGTERM (it stops its ranks),
    SIGKILL 20 s later, and TimeoutExpired is raised as subprocess.run would."""
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        gdb = shutil.which("gdb")
        for pid in roceprobe_pids():
            print(f"--- roceprobe pid {pid} after {timeout} s: its threads' stacks")
            if gdb:
                bt = subprocess.run([gdb, "-p", str(pid), "-batch", "-ex", "thread apply all bt"],
                                    capture_output=True, text=True, timeout=60)
                print("\n".join(ln for ln in bt.stdout.splitlines() if ln.startswith(("#", "Thread"))))
            else:
                print("(no gdb on this machine)")
        p.terminate()
        try:
            out, err = p.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            p.kill()
            out, err = p.communicate()
        print(f"--- the launcher's stderr:\n{err[-4000:]}")
        raise
    return subprocess.CompletedProcess(argv, p.returncode, out, err)
