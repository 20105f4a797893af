"""A real redis-server for a test: on 127.0.0.1 at a free private port, no persistence,
stopped by the test (tests/interop/sonic_check.py, switch_publish_check.py,
switches_run_check.py, tests/cluster/certify_check.py)."""
import shutil
import signal
import subprocess
import sys
import time

from check import free_port


def present():
    """redis-server and redis-cli are installed (tools/bootstrap.sh --tests); else the
    test is skipped (exit 77)."""
    return bool(shutil.which("redis-server") and shutil.which("redis-cli"))


def cmd(port, *args):
    """One redis-cli command's stdout (e.g. cmd(p, "-n", "2", "EXISTS", "KEY"))."""
    return subprocess.run(["redis-cli", "-p", str(port), *args], capture_output=True, text=True, timeout=10).stdout


def cli(port, *cmds):
    """Commands through one redis-cli session (SELECT holds); any ERR ends the test."""
    r = subprocess.run(["redis-cli", "-p", str(port)], input="\n".join(cmds) + "\n", capture_output=True,
                       text=True, timeout=20)
    if r.returncode or "ERR" in r.stdout:
        raise SystemExit(f"redis-cli failed: {r.stdout} {r.stderr}")


def start(d):
    """(server process, port), answering PING; its files in d."""
    port = free_port()
    srv = subprocess.Popen(["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly",
                            "no", "--dir", d], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(100):
        if cmd(port, "PING") == "PONG\n":
            return srv, port
        time.sleep(0.05)
    srv.kill()
    sys.exit("redis-server did not start")


def stop(srv):
    srv.send_signal(signal.SIGTERM)
    try:
        srv.wait(timeout=10)
    except subprocess.TimeoutExpired:
        srv.kill()
        srv.wait()
