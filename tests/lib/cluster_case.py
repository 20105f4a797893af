"""What the cluster tests (tests/cluster/*_check.py) share, one copy each: running one case
under the machine-wide lock, and finding a rank's process.

    from cluster_case import run_case, rank_pid
    run_case(globals()["case_" + CASE], "rpc-", teardown, f"cluster-run-{CASE}")
"""
import fcntl
import os
import signal
import subprocess
import sys
import tempfile

from check import finish

# The rp*- interfaces are one machine's, and the cluster tests share its CPUs: two checkouts'
# suites running at once would tear down each other's topology and send through each other's
# bridge. One case at a time, machine-wide, for every cluster test.
LOCK = "/tmp/rpc-cluster.lock"


def run_case(case, prefix, teardown, name):
    """case(tmpdir) under the lock; teardown() always runs (also on meson's timeout, SIGTERM);
    a topology this machine cannot build is a skip (77), not a failure. Exits via finish(name)."""
    lock = open(LOCK, "w")
    fcntl.flock(lock, fcntl.LOCK_EX)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))  # finally still runs
    try:
        case(tempfile.mkdtemp(prefix=prefix))
    except (subprocess.CalledProcessError, FileNotFoundError) as e:
        teardown()
        print(f"skipped: cannot build the veth/bridge topology here ({e})")
        sys.exit(77)
    finally:
        teardown()
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
