#!/usr/bin/python3
"""What a new user meets first: output paths, reused directories, sweeps, durations, settings
the fabric cannot honour (XOFF above the shared buffer, too few PFC quanta).

    roceprobe lab|run|capture|gen  -o / -w / tx_pcap= under parents that do not exist yet
                                    -> made like mkdir -p; the run's files are there
    -o DIR that holds a run         -> refused, exit 2, one line; --force replaces
                                       roceprobe's files and keeps the user's
    lab --sweep with one bad value  -> exit 2 before any point runs: DIR never made
    --duration 500ms / 1s / 2       -> accepted; 'soon' -> exit 2, one line
    run with engine: verbs hosts and no RDMA device -> exit 2, one line naming the host,
                                       DIR never made; gen refuses verbs hosts

usage: cli_check.py ROCEPROBE CASE   (CASE: lab, dpdk)
"""
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from check import expect, finish, free_port, write_pcap  # noqa: E402

ROCEPROBE, CASE = sys.argv[1], sys.argv[2]
PROFILES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "profiles")



def rp(*args, timeout=120):
    return subprocess.run([ROCEPROBE, *args], capture_output=True, text=True, timeout=timeout)


def one_line_exit2(p, what, needle):
    # DPDK commands say once that they run without hugepages (the preflight's WARN, or the
    # EAL's line): information, not the error.
    lines = [ln for ln in p.stderr.strip().splitlines() if "hugepages" not in ln]
    expect(p.returncode == 2 and len(lines) == 1 and needle in lines[0],
           f"{what}: exit 2 and one line with '{needle}' (rc {p.returncode}, stderr {p.stderr.strip()!r})")


SMALL = """
hosts:
  - {name: h1, mac: "02:00:00:00:00:01", ipv4: 192.0.2.1, port: "pair:c:0"}
  - {name: h2, mac: "02:00:00:00:00:02", ipv4: 192.0.2.2, port: "pair:c:1"}
traffic:
  - {name: f, pattern: flow, src: h1, dst: h2, rate: 1G, messages: 200, message_size: 1KiB, mtu: 1024}
"""


def case_lab(tmp):
    incast = os.path.join(PROFILES, "incast-8to1.yaml")
    out = os.path.join(tmp, "no", "such", "parents", "lab")
    p = rp("lab", incast, "-o", out, "-q")
    expect(p.returncode == 0 and os.path.isfile(os.path.join(out, "result.json")),
           f"lab -o under missing parents: made, result.json written (rc {p.returncode} {p.stderr.strip()!r})")

    p = rp("lab", incast, "-o", out, "-q")
    one_line_exit2(p, "lab -o a directory holding a run", "--force")
    with open(os.path.join(out, "capture-h9.pcap"), "w") as f:  # a stale capture of another run
        f.write("old")
    with open(os.path.join(out, "notes.txt"), "w") as f:  # the user's own file
        f.write("mine")
    p = rp("lab", incast, "-o", out, "-q", "--force")
    left = sorted(os.listdir(out))
    expect(p.returncode == 0 and left == ["notes.txt", "qdepth.csv", "result.json", "summary.txt"],
           f"lab --force: the old capture is gone, the user's file stays ({left})")

    sweep = os.path.join(tmp, "deeper", "sweep")
    p = rp("lab", incast, "-o", sweep, "-q", "--sweep", "fabric.pfc.xoff=64KiB,banana")
    expect(p.returncode == 2 and not os.path.exists(sweep),
           f"sweep with a bad second value: exit 2, nothing made (rc {p.returncode}, exists {os.path.exists(sweep)})")
    one_line_exit2(p, "sweep with a bad value", "banana")
    p = rp("lab", incast, "-o", sweep, "-q", "--sweep", "fabric.pfc.xoff=64KiB,256KiB")
    expect(p.returncode == 0 and os.path.isfile(os.path.join(sweep, "point-1", "result.json"))
           and os.path.isfile(os.path.join(sweep, "sweep.csv")), "sweep under missing parents: both points written")
    p = rp("lab", incast, "-o", sweep, "-q", "--force", "--sweep", "fabric.pfc.xoff=64KiB")
    expect(p.returncode == 0 and not os.path.exists(os.path.join(sweep, "point-1")),
           "sweep --force with one point: the old point-1 is gone")

    # XON at xoff - xon_delta: a delta of xoff or more is refused from a profile (--set) as
    # from switch --xon-delta (it ran, XON waiting for an empty buffer).
    xon = os.path.join(tmp, "xon")
    one_line_exit2(rp("lab", incast, "-o", xon, "--set", "fabric.pfc.xon_delta=200KiB"), "lab xon_delta above xoff",
                   "xon_delta (204800 B) must be below xoff (131072 B)")
    expect(not os.path.exists(xon), "lab xon_delta above xoff: nothing made")

    # issue 30.4: XOFF not below the shared buffer it fills is refused in lab and certify (certify
    # ran it: test 1 FAIL pfc-off, test 2 FAIL blamed on headroom). certify-good: 4 MiB less 8
    # ports x 40304 B of headroom `auto` (test_fabric_cfg works it) = 3871872 B.
    good = os.path.join(PROFILES, "certify-good.yaml")
    for cmd in ("lab", "certify"):
        out = os.path.join(tmp, f"xoff-{cmd}")
        one_line_exit2(rp(cmd, good, "-o", out, "--set", "fabric.pfc.xoff=8MiB"), f"{cmd} xoff 8MiB above a 4 MiB buffer",
                       "fabric: switch sw0: xoff 8388608 B (priority 3) is not below the shared buffer it fills, 3871872 B")
        expect(not os.path.exists(out), f"{cmd} xoff 8MiB: nothing made")
        # issue 30.5: one quantum (5.12 ns at 100G) is shorter than a PFC frame (6.72 ns): certify
        # blamed headroom. The smallest, worked in test_fabric_cfg: 292 for 9216 B frames.
        out = os.path.join(tmp, f"quanta-{cmd}")
        one_line_exit2(rp(cmd, good, "-o", out, "--set", "fabric.pfc.quanta=1"), f"{cmd} pfc.quanta 1",
                       "key 'fabric.pfc.quanta': 1 quanta (1 x 512 bit times) cannot hold a sender between refreshes")
        expect(not os.path.exists(out), f"{cmd} pfc.quanta 1: nothing made")
    # Below the shared buffer but more than half of it: two PGs fill the pool, the next frame
    # spills into headroom (XOFF). XON came at its first frame out, into a full pool, and the
    # next XOFF found the headroom still full: test 2 lost 699 frames on the lossless priority.
    out = os.path.join(tmp, "xoff-2m")
    p = rp("certify", good, "-o", out, "-q", "--only", "2", "--set", "fabric.pfc.xoff=2MiB")
    t2 = json.load(open(os.path.join(out, "result.json")))["tests"][0] if p.returncode in (0, 1) else {}
    expect(p.returncode == 0 and t2.get("verdict") == "PASS",
           f"certify --only 2 at xoff 2MiB: lossless priority loses nothing (rc {p.returncode}, "
           f"{t2.get('verdict')} {(t2.get('cause') or {}).get('text', '')!r})")
    p = rp("lab", good, "-o", os.path.join(tmp, "quanta-lab"), "--set", "fabric.pfc.quanta=291")
    expect(p.returncode == 2 and "the smallest that works is 292" in p.stderr, f"lab pfc.quanta 291: 292 named ({p.stderr.strip()!r})")
    p = rp("certify", good, "-o", os.path.join(tmp, "quanta-292"), "-q", "--only", "1,2,5", "--set", "fabric.pfc.quanta=292")
    expect(p.returncode == 0, f"certify --only 1,2,5 with pfc.quanta 292: certified (rc {p.returncode} {p.stderr.strip()[-200:]!r})")

    # A bad option is one line naming it (getopt's own message was a second line before ours).
    cmds = ["analyze", "decode", "run", "gen", "capture", "plan", "lab", "switch", "certify", "cluster", "headroom", "ep"]
    for c in cmds:
        one_line_exit2(rp(c, "--bogus", "x"), f"{c} --bogus", f"unknown option '--bogus' (try 'roceprobe {c} --help')")
    for c in ("infer", "run"):
        one_line_exit2(rp("replay", c, "--bogus", "x"), f"replay {c} --bogus", "unknown option '--bogus' (try "
                       f"'roceprobe replay{' run' if c == 'run' else ''} --help')")
    one_line_exit2(rp("analyze", "x.pcap", "--bin-us"), "analyze --bin-us without a value", "option '--bin-us' needs a value")
    one_line_exit2(rp("run", "-o"), "run -o without a value", "option '-o' needs a value")
    one_line_exit2(rp("lab", "-Z"), "lab -Z", "unknown option '-Z'")
    one_line_exit2(rp("decode", "--json=1", "x.pcap"), "decode --json=1", "option '--json' takes no value")

    # ep's server on every address without a key says so; on 127.0.0.1 (its default) it does not.
    # Both in a network namespace of their own (loopback only): the one on every address is
    # reachable by nothing but this test.
    ns = f"rpcli-{os.getpid()}"
    subprocess.run(["ip", "netns", "add", ns], check=True)
    try:
        subprocess.run(["ip", "-n", ns, "link", "set", "lo", "up"], check=True)
        for bind, warned in (("0.0.0.0", True), ("127.0.0.1", False)):
            port = free_port()
            s = subprocess.Popen(["ip", "netns", "exec", ns, ROCEPROBE, "ep", "--bind", bind, "-p", str(port)],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            for _ in range(100):  # until it listens (ip netns exec execs it: s.pid is ep's)
                tcp = subprocess.run(["ip", "netns", "exec", ns, "cat", "/proc/net/tcp"], capture_output=True,
                                     text=True).stdout
                if f":{port:04X} " in tcp:
                    break
                time.sleep(0.02)
            s.send_signal(signal.SIGINT)
            err = s.communicate(timeout=20)[1]
            said = f"listening on {bind}:{port} without a key" in err
            expect(said == warned, f"ep --bind {bind} without a key: {'a' if warned else 'no'} warning "
                   f"({err.strip()!r})")
    finally:
        subprocess.run(["ip", "netns", "del", ns], capture_output=True)

    # What a command prints must reach its file: /dev/full takes the open and refuses every write.
    for args in (["plan", incast], ["lab", incast, "-o", os.path.join(tmp, "full")]):
        with open("/dev/full", "w") as full:
            p = subprocess.run([ROCEPROBE, *args], stdout=full, stderr=subprocess.PIPE, text=True, timeout=120)
        lines = p.stderr.strip().splitlines()
        expect(p.returncode == 1 and lines and "writing standard output failed: No space left" in lines[-1],
               f"{args[0]} > /dev/full: exit 1 and the write error said last (rc {p.returncode}, {lines[-1:]})")

    # plan applies the run's rule for pair: ports.
    path = os.path.join(tmp, "pair2.yaml")
    with open(path, "w") as f:
        f.write(SMALL.replace("pair:c:1", "pair:c:2"))
    one_line_exit2(rp("plan", path), "plan with pair:c:2", "expected pair:LINK:0 or pair:LINK:1")


def case_dpdk(tmp):
    path = os.path.join(tmp, "small.yaml")
    with open(path, "w") as f:
        f.write(SMALL)
    out = os.path.join(tmp, "a", "b", "run")
    p = rp("run", path, "-o", out, "--capture", "--duration", "2s")
    expect(p.returncode == 0 and all(os.path.isfile(os.path.join(out, n))
                                     for n in ("result.json", "summary.txt", "capture-h1.pcap", "capture-h2.pcap")),
           f"run -o under missing parents, --duration 2s: result and captures written ({p.stderr.strip()[-200:]!r})")
    if p.returncode == 0:
        j = json.load(open(os.path.join(out, "result.json")))
        f = j["flows"][0]
        expect(f["tx_packets"] == 200 and f["rx_packets"] == 200, f"run: 200 sent, 200 received ({f['tx_packets']}, {f['rx_packets']})")
    one_line_exit2(rp("run", path, "-o", out), "run -o a directory holding a run", "--force")
    p = rp("run", path, "-o", out, "--force", "--duration", "500ms")
    expect(p.returncode == 0 and not os.path.exists(os.path.join(out, "capture-h1.pcap")),
           "run --force without --capture: the previous run's captures are gone")
    one_line_exit2(rp("run", path, "-o", os.path.join(tmp, "x"), "--duration", "soon"), "run --duration soon", "--duration")
    one_line_exit2(rp("gen", path, "--duration", "-1"), "gen --duration -1", "--duration")
    # net_af_packet's qpairs= spreads the interface's frames over sockets by the kernel's fanout
    # hash, polled or not: refused (frames never read would count lost), with and without --lcores
    afp = os.path.join(tmp, "afp.yaml")
    with open(afp, "w") as f:
        f.write(SMALL.replace('"pair:c:0"', '"net_af_packet0,iface=lo,qpairs=2"'))
    for extra in ([], ["--lcores", "2"]):
        one_line_exit2(rp("run", afp, "-o", os.path.join(tmp, "afp"), *extra), f"run {extra} on net_af_packet qpairs=2",
                       "drop qpairs=")
        expect(not os.path.exists(os.path.join(tmp, "afp")), f"run {extra} on net_af_packet qpairs=2: no result directory")
    one_line_exit2(rp("capture", "--port", "net_af_packet0,iface=lo,qpairs=2", "-w", os.path.join(tmp, "afp.pcap"),
                      "--duration", "1"), "capture on net_af_packet qpairs=2", "drop qpairs=")
    expect(not os.path.exists(os.path.join(tmp, "afp.pcap")), "capture on net_af_packet qpairs=2: no pcap")
    # A sender on a pair: end nobody has the other end of: one line (the run never ended).
    half = os.path.join(tmp, "half.yaml")
    with open(half, "w") as f:
        f.write(SMALL.replace('"pair:c:1"', '"pair:d:1"'))
    one_line_exit2(rp("run", half, "-o", os.path.join(tmp, "half")), "run with half a pair link",
                   "host 'h1' sends on pair:c:0, whose other end (pair:c:1) no host has")
    expect(not os.path.exists(os.path.join(tmp, "half")), "run with half a pair link: no result directory")

    # Two hosts on one port: its frames would all count for one of them (h3 given h2's iface=
    # ran, lost 0, while the kernel saw one veth send both hosts' frames). Refused, one line
    # naming both, before any port opens: the same interface under two devices, the same device.
    three = """
hosts:
  - {name: h1, mac: "02:00:00:00:00:01", ipv4: 192.0.2.1, port: "P1"}
  - {name: h2, mac: "02:00:00:00:00:02", ipv4: 192.0.2.2, port: "P2"}
  - {name: h3, mac: "02:00:00:00:00:03", ipv4: 192.0.2.3, port: "P3"}
traffic:
  - {name: a, pattern: flow, src: h1, dst: h2, rate: 1G, messages: 20, message_size: 1KiB, mtu: 1024}
  - {name: b, pattern: flow, src: h3, dst: h1, rate: 1G, messages: 20, message_size: 1KiB, mtu: 1024}
"""
    for ports, says in ((("net_af_packet0,iface=lo", "net_null0,no-rx=1", "net_af_packet1,iface=lo"),
                         "hosts 'h1' and 'h3' are on one port (interface lo)"),
                        (("net_null1", "net_null0", "net_null0"), "hosts 'h2' and 'h3' are on one port (net_null0)")):
        shared = os.path.join(tmp, f"shared-{ports[2].split(',')[0]}.yaml")
        text = three
        for k, port in enumerate(ports):
            text = text.replace(f'"P{k + 1}"', f'"{port}"')
        with open(shared, "w") as f:
            f.write(text)
        sout = shared[:-len(".yaml")]
        one_line_exit2(rp("run", shared, "-o", sout), f"run with {ports[2]} twice", says)
        expect(not os.path.exists(sout), f"run with {ports[2]} twice: no result directory")
    # gen opens senders' ports only: h1 and h3 both send on lo
    one_line_exit2(rp("gen", os.path.join(tmp, "shared-net_af_packet1.yaml"), "--duration", "1"),
                   "gen with iface=lo twice", "hosts 'h1' and 'h3' are on one port (interface lo)")

    # Set-up that fails after DIR was made (a gateway nobody answers ARP for): DIR and the
    # captures it had opened are gone again (an empty DIR was left behind).
    gw = os.path.join(tmp, "gw.yaml")
    with open(gw, "w") as f:
        f.write(SMALL.replace('ipv4: 192.0.2.1, port: "pair:c:0"',
                              'ipv4: 198.51.100.1/24, gateway: 198.51.100.254, port: "pair:c:0"'))
    gwout = os.path.join(tmp, "gw", "out")
    one_line_exit2(rp("run", gw, "-o", gwout, "--capture"), "run with a silent gateway", "no answer to ARP for 198.51.100.254")
    expect(not os.path.exists(gwout), "run with a silent gateway: no result directory left")

    # An rx_pcap= that is no capture: one line naming the file, before DPDK says three of its own
    # and "no DPDK port" blamed the driver.
    junk = os.path.join(tmp, "junk.pcap")
    with open(junk, "wb") as f:
        f.write(b"this is not a capture at all")
    for bad, says in ((junk, "is not a pcap or pcapng file"), (os.path.join(tmp, "absent.pcap"), "No such file")):
        one_line_exit2(rp("capture", "--port", f"net_pcap0,rx_pcap={bad}", "-w", os.path.join(tmp, "j.pcap"),
                          "--duration", "1"), f"capture of rx_pcap={os.path.basename(bad)}", says)
    # -w the file the port reads: refused before it is wiped (it kept 5 of 20000 frames).
    same = os.path.join(tmp, "same.pcap")
    write_pcap(same, [((1700000000 + i) * 10**9, bytes(60)) for i in range(10)])
    before = open(same, "rb").read()
    one_line_exit2(rp("capture", "--port", f"net_pcap0,rx_pcap={same}", "-w", os.path.join(tmp, ".", "same.pcap"),
                      "--duration", "1"), "capture -w its own rx_pcap", "is the port's rx_pcap= input")
    expect(open(same, "rb").read() == before, "capture -w its own rx_pcap: the input is untouched")
    # infinite_rx=1 keeps every frame of the file in mbufs: a 20000-frame capture (more than a
    # port's pool held) replays; it used to fail with "Not enough mbufs" and "setup failed".
    many = os.path.join(tmp, "many.pcap")
    frame = bytes.fromhex("020000000002" "020000000001" "88b5") + bytes(46)
    write_pcap(many, [((1700000000 + i) * 10**9, frame) for i in range(20000)])
    p = rp("capture", "--port", f"net_pcap0,rx_pcap={many},infinite_rx=1", "-w", os.path.join(tmp, "many-out.pcap"),
           "--count", "25000", "--duration", "20", "--json")
    jm = json.loads(p.stdout) if p.returncode == 0 else {}
    expect(p.returncode == 0 and jm.get("written") == 25000,
           f"infinite_rx=1 of 20000 frames: 25000 captured (rc {p.returncode}, {jm.get('written')}, {p.stderr.strip()[-200:]!r})")

    # net_pcap reads each rx_pcap= on a queue of its own: a capture polls one (it kept the first file's frames only)
    two = os.path.join(tmp, "two.pcap")
    with open(two, "wb") as f:  # an empty capture: the pcap file header alone (LINKTYPE_ETHERNET)
        f.write(bytes.fromhex("d4c3b2a1" "0200" "0400" "00000000" "00000000" "ffff0000" "01000000"))
    one_line_exit2(rp("capture", "--port", f"net_pcap0,rx_pcap={two},rx_pcap={two}", "-w", os.path.join(tmp, "two-out.pcap"),
                      "--duration", "1"), "capture of two rx_pcap= streams", "2 RX streams")
    expect(not os.path.exists(os.path.join(tmp, "two-out.pcap")), "capture of two rx_pcap= streams: no pcap")
    one_line_exit2(rp("run", path, "-o", os.path.join(tmp, "y"), "--neigh-refresh", "often"),
                   "run --neigh-refresh often", "--neigh-refresh")
    expect(not os.path.exists(os.path.join(tmp, "y", "result.json")), "run --neigh-refresh often: no result")
    # issue 30.4/30.5: switch refuses an XOFF its shared buffer cannot reach and quanta that cannot
    # hold a sender, one line each. 2 ports at 10G (switch's default), 500 ns, max_frame 9216
    # (net_null sets no lower limit): headroom 9240 + 84 + 1250 + 9240 + 9240 = 29054 B a port; 4 MiB - 2 x 29054
    # = 4136196 B. Quanta: (84 + 9240) x 8 / 50% / 512 = 291.4 -> 292.
    nulls = ["--port", "net_null0,no-rx=1", "--port", "net_null1,no-rx=1", "--lossless", "3", "--duration", "1"]
    one_line_exit2(rp("switch", *nulls, "--buffer", "4MiB", "--xoff", "8MiB"), "switch --xoff 8MiB --buffer 4MiB",
                   "switch settings: xoff 8388608 B (priority 3) is not below the shared buffer it fills, 4136196 B")
    one_line_exit2(rp("switch", *nulls, "--quanta", "1"), "switch --quanta 1",
                   "switch settings: PFC quanta 1 cannot hold a sender between refreshes")

    # pair: ports with profile MACs resolve nothing: nothing to keep fresh, said as 0
    p = rp("run", path, "-o", os.path.join(tmp, "z"), "--neigh-refresh", "250ms", "--duration", "500ms")
    n = json.load(open(os.path.join(tmp, "z", "result.json")))["environment"]["ports"][0]["neigh"] \
        if p.returncode == 0 else {}
    expect(n.get("refresh_ns") == 0 and n.get("next_hops") == [] and n.get("refresh_tx") == 0,
           f"run --neigh-refresh 250ms with no next hop to resolve: refresh_ns 0, no next_hops ({n})")

    pcap = os.path.join(tmp, "g", "h", "out.pcap")
    p = rp("gen", path, "--duration", "1", "--set", f"hosts.0.port=net_pcap0,tx_pcap={pcap}")
    expect(p.returncode == 0 and os.path.getsize(pcap) > 24 if os.path.exists(pcap) else False,
           f"gen tx_pcap= under missing parents: the pcap is written ({p.stderr.strip()[-200:]!r})")

    # mac: auto on a port with no MAC of its own (a pair: link's rings say 00:00:00:00:00:00)
    with open(path, "w") as f:
        f.write(SMALL.replace('mac: "02:00:00:00:00:02"', "mac: auto"))
    one_line_exit2(rp("run", path, "-o", os.path.join(tmp, "auto")), "mac: auto on a pair: port",
                   "host 'h2' has mac: auto, but port pair:c:1 (net_ring) has no unicast MAC of its own "
                   "(00:00:00:00:00:00): give the host a mac:")
    with open(path, "w") as f:
        f.write(SMALL)

    # engine: verbs hosts where there is no RDMA device (this lab machine's kernel has no RDMA):
    # exit 2 and one line naming the host, before DIR is made; gen does not run verbs hosts.
    with open(path, "w") as f:
        f.write("hosts:\n  - {name: h0, ipv4: 10.9.0.1, engine: verbs}\n  - {name: h1, ipv4: 10.9.0.2, engine: verbs}\n"
                "traffic:\n  - {pattern: flow, src: h0, dst: h1, opcode: send, messages: 10}\n")
    if not (os.path.isdir("/sys/class/infiniband") and os.listdir("/sys/class/infiniband")):
        out_v = os.path.join(tmp, "verbs", "out")
        one_line_exit2(rp("run", path, "-o", out_v), "run engine: verbs without an RDMA device", "host 'h0'")
        expect(not os.path.exists(os.path.dirname(out_v)), "run engine: verbs without an RDMA device: DIR never made")
    one_line_exit2(rp("gen", path), "gen with engine: verbs hosts", "run their QPs under `roceprobe run`")
    with open(path, "w") as f:
        f.write(SMALL)

    cap = os.path.join(tmp, "c", "d", "cap.pcap")
    p = rp("capture", "--port", "net_ring0", "-w", cap, "--duration", "300ms")
    expect(p.returncode == 0 and os.path.isfile(cap), f"capture -w under missing parents ({p.stderr.strip()[-200:]!r})")


with tempfile.TemporaryDirectory() as tmp:
    globals()["case_" + CASE](tmp)
finish(CASE)
