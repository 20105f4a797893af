#!/usr/bin/python3
"""roceprobe counters snmp:// against a real snmpd whose values come from a pass_persist script.

The test starts snmpd on 127.0.0.1 and a free UDP port (its own config: a v2c community and
an SNMPv3 user, snmpd's own IF-MIB tables switched off) and serves IF-MIB's ifXTable/ifTable
and CISCO-PFC-EXT-MIB from a pass_persist script reading a JSON file the test rewrites.

    read    the walk equals the script's values (literals below) and net-snmp's own
            snmpwalk of the same agent; v2c and v3 (authPriv) alike; the interface
            the PFC table does not name (eth0) is left out
    watch   --watch 300ms: a Counter32 PFC count and a Counter32 discard count that
            wrap are counted through the wrap (+396, +16); a Counter32 reset (more than
            line rate could count in the interval) is one line and exit 2
    bad     one line, exit 2, nothing on stdout: nothing listening, a wrong community
            (the agent stays silent), a wrong v3 passphrase, an unknown user, no
            --credentials, a credentials file with a bad line; a file others may read:
            a warning line and the numbers

usage: snmp_check.py ROCEPROBE        (exit 77 = skipped: no snmpd)
"""
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from check import expect, finish  # noqa: E402

RP = sys.argv[1]
IFX = ".1.3.6.1.2.1.31.1.1.1"     # IF-MIB ifXEntry (RFC 2863)
IFT = ".1.3.6.1.2.1.2.2.1"        # IF-MIB ifEntry
PFC = ".1.3.6.1.4.1.9.9.813.1.2.1"  # CISCO-PFC-EXT-MIB cpfcIfPriorityEntry: .2 Requests, .3 Indications
CSQ = ".1.3.6.1.4.1.9.9.580.1.5.5.1.4"  # CISCO-SWITCH-QOS-MIB csqIfQosGroupStatsValue.ifIndex.dir.queue.type
IEEE = ".1.3.111.2.802.1.1.21.1.1.1"  # IEEE8021-PFC-MIB ieee8021PfcIfEntry: .2 Requests, .3 Indications

# ifIndex -> name, ifHighSpeed (Mbit/s)
PORTS = {1: ("Ethernet0", 100000), 5: ("Ethernet4", 100000), 9: ("Ethernet8", 40000), 20: ("Ethernet16", 25000),
         100: ("eth0", 1000)}
# ifIndex -> (Requests = sent, Indications = received), Counter32, every priority: Ethernet16 has
# only this table (another NOS's agent), Ethernet0 both
IEEE_PFC = {1: (22, 4294967200), 20: (9, 31)}
# (ifIndex, prio) -> (type, sent = Requests, received = Indications)
PFC_VALUES = {(1, 3): ("counter", 17, 4294967000), (1, 4): ("counter64", 5, 7000000000),
              (5, 3): ("counter", 0, 2), (5, 4): ("counter", 880, 1000),
              (9, 3): ("counter", 12, 1000000)}
OCTETS = {1: (1051000000, 2000), 5: (314400000, 0), 9: (0, 0), 20: (64, 0), 100: (9, 9)}  # (in, out), Counter64
DISCARDS = {1: (4294967290, 3), 5: (0, 0), 9: (7, 0), 20: (0, 1), 100: (0, 0)}           # (in, out), Counter32
# (ifIndex, direction, queue 1-based, type) -> value, as sonic-snmpagent's CounterMap numbers the
# types: 1 UC packets, 2 UC bytes, 3 MC packets, 5 UC drops, 6 UC drop bytes; direction 1
# (ingress) is not served by SONiC and must be left out
QOS = {(1, 2, 4, 1): 1000000, (1, 2, 4, 2): 1048000000, (1, 2, 4, 3): 7, (1, 2, 4, 5): 12, (1, 2, 4, 6): 12576,
       (5, 2, 4, 1): 300000, (5, 2, 4, 5): 5, (1, 1, 4, 1): 999}

PASS_PERSIST = r'''
import json, sys
path = sys.argv[1]
def key(o): return tuple(int(x) for x in o.strip(".").split("."))
for line in sys.stdin:
    cmd = line.strip()
    if cmd == "PING":
        print("PONG", flush=True)
    elif cmd in ("get", "getnext"):
        o = key(sys.stdin.readline())
        with open(path) as f:
            vals = sorted((key(k), k, v) for k, v in json.load(f).items())
        hit = next((e for e in vals if (e[0] == o if cmd == "get" else e[0] > o)), None)
        print(f"{hit[1]}\n{hit[2][0]}\n{hit[2][1]}" if hit else "NONE", flush=True)
    elif cmd == "set":
        sys.stdin.readline(); sys.stdin.readline()
        print("not-writable", flush=True)
    else:
        break
'''


def values():
    v = {}
    for i, (name, mbps) in PORTS.items():
        v[f"{IFX}.1.{i}"] = ["string", name]
        v[f"{IFX}.15.{i}"] = ["gauge", str(mbps)]
        v[f"{IFX}.6.{i}"] = ["counter64", str(OCTETS[i][0])]
        v[f"{IFX}.10.{i}"] = ["counter64", str(OCTETS[i][1])]
        v[f"{IFT}.13.{i}"] = ["counter", str(DISCARDS[i][0])]
        v[f"{IFT}.19.{i}"] = ["counter", str(DISCARDS[i][1])]
    for (i, q), (t, tx, rx) in PFC_VALUES.items():
        v[f"{PFC}.2.{i}.{q}"] = [t, str(tx)]
        v[f"{PFC}.3.{i}.{q}"] = [t, str(rx)]
    for i, (tx, rx) in IEEE_PFC.items():
        v[f"{IEEE}.2.{i}"] = ["counter", str(tx)]
        v[f"{IEEE}.3.{i}"] = ["counter", str(rx)]
    for idx, val in QOS.items():
        v[CSQ + "." + ".".join(map(str, idx))] = ["counter64", str(val)]
    return v


def write_values(path):
    with open(path + ".new", "w") as f:
        json.dump(values(), f)
    os.replace(path + ".new", path)


def free_udp_port():
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def rp(*args, timeout=30):
    return subprocess.run([RP, "counters", *args], capture_output=True, text=True, timeout=timeout)


def one_line_exit2(p, what, needle):
    expect(p.returncode == 2 and p.stdout == "" and p.stderr.count("\n") == 1 and needle in p.stderr,
           f"{what}: exit 2, one line naming it ({p.returncode}: {p.stderr.strip()!r})")


def port(snap, name):
    return next((p for p in snap["ports"] if p["name"] == name), None)


def prio(p, q):
    return next((e for e in (p or {}).get("prio", []) if e["prio"] == q), {})


def check_read(snap, how):
    expect([p["name"] for p in snap["ports"]] == ["Ethernet0", "Ethernet4", "Ethernet8", "Ethernet16"],
           f"{how}: the ports a PFC table names, in ifIndex order; eth0 left out ({[p['name'] for p in snap['ports']]})")
    bad = [(i, port(snap, PORTS[i][0])) for i, (tx, rx) in IEEE_PFC.items()
           if (port(snap, PORTS[i][0]).get("pfc_tx"), port(snap, PORTS[i][0]).get("pfc_rx")) != (tx, rx)]
    expect(not bad and "pfc_tx" not in port(snap, "Ethernet4"),
           f"{how}: IEEE8021-PFC-MIB Requests/Indications == the port's pfc_tx/pfc_rx {bad}")
    bad = []
    for (i, q), (t, tx, rx) in PFC_VALUES.items():
        e = prio(port(snap, PORTS[i][0]), q)
        if (e.get("pfc_tx"), e.get("pfc_rx")) != (tx, rx):
            bad.append(f"{PORTS[i][0]} prio{q}: {e} != tx {tx} rx {rx}")
    expect(not bad, f"{how}: pfc_tx/pfc_rx of the 5 (port, priority) pairs == the script's {bad}")
    bad = []
    for i in (1, 5, 9, 20):
        p = port(snap, PORTS[i][0])
        want = {"speed_bps": PORTS[i][1] * 1000000, "rx_bytes": OCTETS[i][0], "tx_bytes": OCTETS[i][1],
                "rx_discards": DISCARDS[i][0], "tx_discards": DISCARDS[i][1]}
        if any(p.get(k) != v for k, v in want.items()):
            bad.append(f"{PORTS[i][0]}: {p}")
    expect(not bad, f"{how}: speed (ifHighSpeed * 1e6), octets, discards == the script's {bad}")
    # queue 4 (1-based) is queues[3]: UC packets/bytes/drops/drop_bytes, MC packets as mc_packets
    q0 = next((q for q in port(snap, "Ethernet0").get("queues", []) if q["queue"] == 3), None)
    q4 = next((q for q in port(snap, "Ethernet4").get("queues", []) if q["queue"] == 3), None)
    expect(q0 == {"queue": 3, "packets": 1000000, "bytes": 1048000000, "mc_packets": 7, "drops": 12,
                  "drop_bytes": 12576} and q4 == {"queue": 3, "packets": 300000, "drops": 5}
           and len(port(snap, "Ethernet0")["queues"]) == 1,
           f"{how}: CISCO-SWITCH-QOS-MIB egress queue 4 -> queues[3]; ingress left out ({q0}, {q4})")


def snmpwalk(port_, oid):
    r = subprocess.run(["snmpwalk", "-v2c", "-c", "s3cret-ro", "-On", "-Oq", "-m", "", f"127.0.0.1:{port_}", oid],
                       capture_output=True, text=True, timeout=20, env=dict(os.environ, MIBS=""))
    return {ln.split()[0]: int(ln.split()[1]) for ln in r.stdout.splitlines() if len(ln.split()) == 2}


def main():
    if not shutil.which("snmpd"):
        print("no snmpd (tools/bootstrap.sh --tests)")
        sys.exit(77)
    d = tempfile.mkdtemp(prefix="rp-snmp-")
    vals, script = os.path.join(d, "values.json"), os.path.join(d, "pp.py")
    write_values(vals)
    with open(script, "w") as f:
        f.write(PASS_PERSIST)
    port_ = free_udp_port()
    conf = os.path.join(d, "snmpd.conf")
    with open(conf, "w") as f:
        f.write("rocommunity s3cret-ro 127.0.0.1\n"
                'createUser roce SHA "authpass123" AES "privpass123"\nrouser roce authpriv\n'
                + "".join(f"pass_persist {o} /usr/bin/python3 {script} {vals}\n" for o in (IFX, IFT, ".1.3.6.1.4.1.9.9.813", ".1.3.6.1.4.1.9.9.580", ".1.3.111.2.802.1.1.21")))
    creds = {}
    for name, text, mode in (("v2", "community s3cret-ro\n", 0o600),
                             ("v3", "# SNMPv3, authPriv\nuser roce\nauth SHA authpass123\npriv AES privpass123\n", 0o600),
                             ("open", "community s3cret-ro\n", 0o644),
                             ("wrongcomm", "community public\n", 0o600),
                             ("wrongpass", "user roce\nauth SHA wrongpass123\npriv AES privpass123\n", 0o600),
                             ("nouser", "user nobody\nauth SHA authpass123\n", 0o600),
                             ("badline", "community s3cret-ro\npassword hunter2\n", 0o600)):
        creds[name] = os.path.join(d, name + ".cred")
        with open(creds[name], "w") as f:
            f.write(text)
        os.chmod(creds[name], mode)
    srv = subprocess.Popen(["snmpd", "-f", "-Lf", os.path.join(d, "log"), "-C", "-c", conf, "-p", os.path.join(d, "pid"),
                            "-I", "-ifTable,ifXTable", f"udp:127.0.0.1:{port_}"],
                           env=dict(os.environ, SNMP_PERSISTENT_DIR=os.path.join(d, "persist"), MIBS=""),
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    spec = f"snmp://127.0.0.1:{port_}"
    try:
        for _ in range(100):
            if snmpwalk(port_, IFX + ".15"):
                break
            time.sleep(0.05)
        # net-snmp's own walk of the agent: the script's values, which roceprobe must match too
        walked = snmpwalk(port_, PFC)
        expect(walked.get(f"{PFC}.3.1.3") == 4294967000 and walked.get(f"{PFC}.2.5.4") == 880 and len(walked) == 10,
               f"snmpwalk sees the script's 10 PFC values ({len(walked)})")
        for how in ("v2", "v3"):
            p = rp(spec, "--credentials", creds[how], "--json")
            expect(p.returncode == 0 and p.stderr == "", f"{how}: exit 0, nothing on stderr ({p.returncode} {p.stderr!r})")
            if p.returncode:
                finish("snmp")
            snap = json.loads(p.stdout)
            check_read(snap, how)
            got = {f"{PFC}.{2 if k == 'pfc_tx' else 3}.{i}.{e['prio']}": e[k]
                   for i, (name, _) in PORTS.items() if port(snap, name) for e in port(snap, name)["prio"]
                   for k in ("pfc_tx", "pfc_rx") if k in e}
            expect(got == walked, f"{how}: every PFC value == snmpwalk's")
        p = rp(spec, "--credentials", creds["open"], "--json")
        expect(p.returncode == 0 and p.stdout.count("\n") == 1 and p.stderr.count("\n") == 1
               and "may be read by others (mode 644): chmod 600" in p.stderr,
               f"a credentials file others may read: one warning line, the numbers ({p.stderr.strip()!r})")

        w = subprocess.Popen([RP, "counters", spec, "--credentials", creds["v2"], "--watch", "300ms", "--json"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        first = json.loads(w.stdout.readline())
        expect(first["kind"] == "snapshot", "--watch: the snapshot first")
        # Counter32 wraps: 4294967000 -> 100 is 100 + 2^32 - 4294967000 = 396 PFC frames;
        # 4294967290 -> 10 is 16 discards; at 100 Gbit/s (148,809,523 frames a second at
        # most) both fit 0.3 s easily. A plain move: Ethernet4 prio 4 sent 880 -> 1880.
        PFC_VALUES[(1, 3)] = ("counter", 17, 100)
        PFC_VALUES[(5, 4)] = ("counter", 1880, 1000)
        DISCARDS[1] = (10, 3)
        IEEE_PFC[1] = (22, 50)  # 50 + 2^32 - 4294967200 = 146
        write_values(vals)
        deltas, t0 = [], time.monotonic()
        while time.monotonic() - t0 < 5:
            deltas.append(json.loads(w.stdout.readline()))
            if sum(prio(port(x, "Ethernet0"), 3).get("pfc_rx", 0) for x in deltas) >= 396:
                break
        rx = sum(prio(port(x, "Ethernet0"), 3).get("pfc_rx", 0) for x in deltas)
        tx = sum(prio(port(x, "Ethernet4"), 4).get("pfc_tx", 0) for x in deltas)
        disc = sum(port(x, "Ethernet0").get("rx_discards", 0) for x in deltas)
        ieee = sum(port(x, "Ethernet0").get("pfc_rx", 0) for x in deltas)
        expect((rx, tx, disc, ieee) == (396, 1000, 16, 146),
               f"--watch: Counter32 wraps counted through (prio3 pfc_rx +396, rx_discards +16, the port's IEEE pfc_rx "
               f"+146), a plain move +1000 ({rx}, {tx}, {disc}, {ieee})")
        expect(all(p["resets"] == [] for x in deltas for p in x["ports"]), "no resets among them")
        # a reset: 1000000 -> 5 would be 4,293,967,301 frames, more than 40 Gbit/s can carry in
        # 0.3 s (40e9 / 672 * 0.3 = 17,857,142)
        PFC_VALUES[(9, 3)] = ("counter", 12, 5)
        write_values(vals)
        try:
            rest, err = w.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            w.kill()
            rest, err = w.communicate()
        expect(w.returncode == 2 and err.count("\n") == 1 and
               "Ethernet8 prio 3 pfc_rx went backwards from 1000000 to 5 (a Counter32, and no wrap" in err,
               f"a Counter32 reset: one line, exit 2 ({w.returncode}: {err.strip()!r})")
        expect(all(json.loads(ln) for ln in rest.splitlines()), "every line before it whole JSON")

        one_line_exit2(rp(f"snmp://127.0.0.1:{free_udp_port()}", "--credentials", creds["v2"]), "nothing listening",
                       "no answer to IF-MIB ifName")
        one_line_exit2(rp(spec, "--credentials", creds["wrongcomm"]), "a wrong community", "no answer")
        one_line_exit2(rp(spec, "--credentials", creds["wrongpass"]), "a wrong v3 passphrase", "Authentication failure")
        one_line_exit2(rp(spec, "--credentials", creds["nouser"]), "an unknown v3 user", "Unknown user name")
        one_line_exit2(rp(spec), "no --credentials", "snmp:// needs --credentials FILE")
        one_line_exit2(rp(spec, "--credentials", creds["badline"]), "a bad credentials line", "line 2: expected")
        one_line_exit2(rp("sysfs:lo", "--credentials", creds["v2"]), "--credentials without snmp://",
                       "--credentials is for snmp:// sources")
        one_line_exit2(rp("snmp://127.0.0.1:0", "--credentials", creds["v2"]), "port 0", "not 1..65535")
    finally:
        srv.send_signal(signal.SIGTERM)
        try:
            srv.wait(timeout=10)
        except subprocess.TimeoutExpired:
            srv.kill()
        shutil.rmtree(d, ignore_errors=True)
    finish("snmp")


main()
