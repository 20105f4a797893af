"""What the cluster tests (tests/cluster/*_check.py) share, one copy each: running one case
under the machine-wide lock, finding a rank's process, and running a job that may hang.

    from cluster_case import run_case, rank_pid, run_ranks
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
    if check.failures:
        print(f"kept for a look: {tmp}")
    else:
        shutil.rmtree(tmp, ignore_errors=True)
    finish(name)


def rank_pid(path, rank):
    """The pid of this job's `roceprobe run` (its profile path on the command line) with that
    rank (Open MPI's OMPI_COMM_WORLD_RANK or PMIx's PMIX_RANK), or None."""
    want = (f"OMPI_COMM_WORLD_RANK={rank}".encode(), f"PMIX_RANK={rank}".encode())
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            cmd = open(f"/proc/{d}/cmdline", "rb").read().split(b"\0")
            env = open(f"/proc/{d}/environ", "rb").read().split(b"\0")
        except OSError:
            continue
        if path.encode() in cmd and b"run" in cmd and any(w in env for w in want):
            return int(d)
    return None


def roceprobe_pids():
    """Every roceprobe process on the machine (its ranks, whoever started them)."""
    pids = []
    for d in os.listdir("/proc"):
        try:
            if d.isdigit() and open(f"/proc/{d}/comm").read().strip() == "roceprobe":
                pids.append(int(d))
        except OSError:
            continue
    return sorted(pids)


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
