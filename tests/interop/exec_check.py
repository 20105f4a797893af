#!/usr/bin/python3
"""roceprobe counters exec:CMD --map FILE against a command whose JSON the test writes.

The command is a small script printing a JSON file the test rewrites, in the shape of a
NOS's CLI JSON (interfaces by name, PFC per priority in an array, queues by id) and of
`ip -j -s link` (an array of interfaces picked by [ifname=...]). The expected numbers are
the literals the test wrote.

    read    every mapped counter per port and priority == the literals; a path that
            finds nothing leaves the counter out; an unknown name stays raw
    watch   --watch 200ms: the deltas == the moves; a count going backwards: one line, exit 2
    bad     one line, exit 2, nothing on stdout: the command exits 1 (its stderr line named),
            prints no JSON, prints a word where a count goes, lacks a port of the map;
            no --map, a map that is not one, --map without exec:

usage: exec_check.py ROCEPROBE
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from check import expect, finish  # noqa: E402

RP = sys.argv[1]
D = tempfile.mkdtemp(prefix="rp-exec-")
STATE, MAP, LINK_MAP = os.path.join(D, "state.json"), os.path.join(D, "map.json"), os.path.join(D, "link.json")
CMD = f"exec:cat {STATE}"

NOS = {"interfaces": {
    "Ethernet1": {"pfc": [{"rx": 0, "tx": 0}, {"rx": 0, "tx": 0}, {"rx": 0, "tx": 0}, {"rx": 1200, "tx": 17},
                          {"rx": 35, "tx": "4"}, {"rx": 0, "tx": 0}, {"rx": 0, "tx": 0}, {"rx": 0, "tx": 0}],
                  "inOctets": 1051000000, "outOctets": 2000, "vendorThing": 9},
    "Ethernet2": {"pfc": [{"rx": 0, "tx": 0}, {"rx": 0, "tx": 0}, {"rx": 0, "tx": 0}, {"rx": 2, "tx": 880}],
                  "inOctets": 314400000}}}
LINK = [{"ifindex": 1, "ifname": "lo", "stats64": {"rx": {"bytes": 10, "packets": 1}, "tx": {"bytes": 10, "packets": 1}}},
        {"ifindex": 7, "ifname": "up1", "stats64": {"rx": {"bytes": 6000, "packets": 4}, "tx": {"bytes": 9000, "packets": 6}}},
        {"ifindex": 8, "ifname": "up2", "stats64": {"rx": {"bytes": 3000, "packets": 2}, "tx": {"bytes": 1500, "packets": 1}}}]


def write(path, obj):
    with open(path + ".new", "w") as f:
        json.dump(obj, f)
    os.replace(path + ".new", path)


def rp(*args):
    return subprocess.run([RP, "counters", *args], capture_output=True, text=True, timeout=30)


def one_line_exit2(p, what, needle):
    expect(p.returncode == 2 and p.stdout == "" and p.stderr.count("\n") == 1 and needle in p.stderr,
           f"{what}: exit 2, one line naming it ({p.returncode}: {p.stderr.strip()!r})")


def port(snap, name):
    return next((p for p in snap["ports"] if p["name"] == name), None)


def prio(p, q):
    return next((e for e in (p or {}).get("prio", []) if e["prio"] == q), {})


def main():
    write(STATE, NOS)
    write(MAP, {"ports": ["Ethernet1", "Ethernet2"],
                "counters": {"pfc_rx": "interfaces.{port}.pfc[{prio}].rx", "pfc_tx": "interfaces.{port}.pfc[{prio}].tx",
                             "rx_bytes": "interfaces.{port}.inOctets", "tx_bytes": "interfaces.{port}.outOctets",
                             "vendor_thing": "interfaces.{port}.vendorThing"}})
    p = rp(CMD, "--map", MAP, "--json")
    expect(p.returncode == 0 and p.stderr == "", f"exec: exit 0 ({p.returncode} {p.stderr!r})")
    if p.returncode:
        finish("exec")
    snap = json.loads(p.stdout)
    e1, e2 = port(snap, "Ethernet1"), port(snap, "Ethernet2")
    expect([x["name"] for x in snap["ports"]] == ["Ethernet1", "Ethernet2"], "the map's ports, in its order")
    expect(prio(e1, 3) == {"prio": 3, "pfc_rx": 1200, "pfc_tx": 17} and prio(e1, 4) == {"prio": 4, "pfc_rx": 35, "pfc_tx": 4},
           f"Ethernet1 prio 3 rx 1200 tx 17, prio 4 rx 35 tx 4 (a count written as a string) ({e1['prio']})")
    expect(len(e1["prio"]) == 8 and len(e2["prio"]) == 4,
           "every priority the array has (Ethernet2's has 4: the others are left out, not 0)")
    expect(prio(e2, 3) == {"prio": 3, "pfc_rx": 2, "pfc_tx": 880}, "Ethernet2 prio 3 rx 2 tx 880")
    expect(e1.get("rx_bytes") == 1051000000 and e1.get("tx_bytes") == 2000 and e2.get("rx_bytes") == 314400000
           and "tx_bytes" not in e2, "octets; Ethernet2 has no outOctets: no tx_bytes")
    expect(e1["raw"] == {"vendor_thing": 9} and e2["raw"] == {}, "a name outside the vocabulary stays raw")

    write(LINK_MAP, {"ports": ["up1", "up2"],
                     "counters": {"rx_bytes": "[ifname={port}].stats64.rx.bytes",
                                  "tx_bytes": "[ifname={port}].stats64.tx.bytes",
                                  "tx_packets": "[ifindex=8].stats64.tx.packets"}})
    link = os.path.join(D, "link-out.json")
    write(link, LINK)
    p = rp(f"exec:cat {link}", "--map", LINK_MAP, "--json")
    s2 = json.loads(p.stdout) if p.returncode == 0 else {"ports": []}
    u1, u2 = port(s2, "up1") or {}, port(s2, "up2") or {}
    expect((u1.get("rx_bytes"), u1.get("tx_bytes"), u2.get("rx_bytes"), u2.get("tx_bytes")) == (6000, 9000, 3000, 1500)
           and u1.get("tx_packets") == 1, "ip -j -s link's shape: [ifname={port}] and [ifindex=8] select array elements")

    w = subprocess.Popen([RP, "counters", CMD, "--map", MAP, "--watch", "200ms", "--json"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    json.loads(w.stdout.readline())
    NOS["interfaces"]["Ethernet1"]["pfc"][3]["rx"] = 1205
    NOS["interfaces"]["Ethernet2"]["inOctets"] = 314400000 + 4096
    write(STATE, NOS)
    deltas, t0 = [], time.monotonic()
    while time.monotonic() - t0 < 5:
        deltas.append(json.loads(w.stdout.readline()))
        if sum(prio(port(x, "Ethernet1"), 3).get("pfc_rx", 0) for x in deltas) >= 5:
            break
    rx = sum(prio(port(x, "Ethernet1"), 3).get("pfc_rx", 0) for x in deltas)
    ob = sum(port(x, "Ethernet2").get("rx_bytes", 0) for x in deltas)
    expect((rx, ob) == (5, 4096), f"--watch: pfc_rx +5, rx_bytes +4096 ({rx}, {ob})")
    NOS["interfaces"]["Ethernet1"]["pfc"][4]["rx"] = 3
    write(STATE, NOS)
    try:
        _, err = w.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        w.kill()
        _, err = w.communicate()
    expect(w.returncode == 2 and err.count("\n") == 1 and "Ethernet1 prio 4 pfc_rx went backwards from 35 to 3" in err,
           f"a count going backwards: one line, exit 2 ({w.returncode}: {err.strip()!r})")

    one_line_exit2(rp("exec:echo 'no such switch' >&2; exit 1", "--map", MAP), "the command fails",
                   "exited 1: no such switch")
    one_line_exit2(rp("exec:echo hello", "--map", MAP), "no JSON", "its output is not JSON")
    NOS["interfaces"]["Ethernet1"]["inOctets"] = "n/a"
    write(STATE, NOS)
    one_line_exit2(rp(CMD, "--map", MAP), "a word where a count goes",
                   'rx_bytes at interfaces.Ethernet1.inOctets is "n/a", not a count')
    del NOS["interfaces"]["Ethernet2"]
    NOS["interfaces"]["Ethernet1"]["inOctets"] = 1
    write(STATE, NOS)
    one_line_exit2(rp(CMD, "--map", MAP), "a port of the map missing", "finds anything for port Ethernet2")
    one_line_exit2(rp(CMD), "no --map", "exec: needs --map FILE")
    write(os.path.join(D, "bad.json"), {"ports": "Ethernet1"})
    one_line_exit2(rp(CMD, "--map", os.path.join(D, "bad.json")), "a map that is not one", "expected {\"ports\"")
    one_line_exit2(rp("sysfs:lo", "--map", MAP), "--map without exec:", "--map is for exec: sources")
    shutil.rmtree(D, ignore_errors=True)
    finish("exec")


main()
