#!/usr/bin/python3
"""roceprobe counters sonic:// against a real redis-server loaded as a SONiC switch's database.

The truth is SONiC's own tools: the data below is loaded in the layout sonic-swss orchagent
writes (COUNTERS_DB = db 2: name maps to oids, COUNTERS:oid, USER_/PERSISTENT_WATERMARKS:oid;
CONFIG_DB = db 4: PORT_QOS_MAP, TC_TO_QUEUE_MAP, TC_TO_PRIORITY_GROUP_MAP), and the expected
tables are what sonic-utilities' pfcstat, queuestat, wredstat, `pfcwd show stats` and
watermarkstat print for it, written by hand in their formats (tabulate 'simple'; pfcstat's
numbers with thousands commas). roceprobe's --json must equal them, cell by cell.

    read    the snapshot: every cell of those tables; ports in pfcstat's natural order
            (Ethernet4 before Ethernet12); CONFIG_DB's priority -> queue / PG maps
    watch   --watch 200ms --json while the test moves counters: the deltas equal the moves,
            a watermark going down is a gauge's new value (no reset); a counter going
            backwards is one line and exit 2
    bad     one line on stderr, exit 2, nothing on stdout: nothing listening, a server that
            is not SONiC's (empty COUNTERS_DB), a queue name map naming a port the port map
            lacks, a value that is not a number, a server that wants a password; bad specs

usage: sonic_check.py ROCEPROBE        (exit 77 = skipped: no redis-server)
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from check import expect, finish, free_port  # noqa: E402
import redis_srv  # noqa: E402
from redis_srv import cli  # noqa: E402

RP = sys.argv[1]

# ---- the switch: three ports, oids as a Broadcom SAI numbers them ------------------------
PORTS = {"Ethernet0": "oid:0x1000000000002", "Ethernet4": "oid:0x1000000000003",
         "Ethernet12": "oid:0x1000000000005"}
PFC_RX = {"Ethernet0": [0, 0, 0, 1200, 35, 0, 0, 0], "Ethernet4": [0, 0, 0, 2, 1000000, 0, 0, 0],
          "Ethernet12": [0, 0, 0, 5, 0, 0, 0, 0]}
PFC_TX = {"Ethernet0": [0, 0, 0, 17, 4, 0, 0, 0], "Ethernet4": [0, 0, 0, 880, 0, 0, 0, 0],
          "Ethernet12": [0, 0, 0, 123456, 0, 0, 0, 0]}
# queue name -> (oid, index, type, packets, bytes, drops, drop bytes, wred drops, wred drop
#                bytes, ecn marked, ecn marked bytes, wd detected, wd restored, wd tx ok, wd tx drop)
QUEUES = {
    "Ethernet0:3": ("oid:0x15000000000103", 3, "UNICAST", 1000000, 1048000000, 12, 12576, 0, 0, 4100, 4297000,
                    2, 1, 100, 300),
    "Ethernet0:4": ("oid:0x15000000000104", 4, "UNICAST", 500, 524000, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0),
    "Ethernet0:10": ("oid:0x1500000000010a", 10, "MULTICAST", 7, 448, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0),
    "Ethernet4:3": ("oid:0x15000000000203", 3, "UNICAST", 300000, 314400000, 5, 5240, 3, 3144, 77, 80696,
                    1, 1, 0, 0),
    "Ethernet12:3": ("oid:0x15000000000503", 3, "UNICAST", 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0),
}
# PG name -> (oid, index, packets, drops, user shared wm, user headroom wm, persistent shared, persistent headroom)
PGS = {
    "Ethernet0:3": ("oid:0x1a000000000103", 3, 990000, 6, 26624, 8192, 53248, 16384),
    "Ethernet0:4": ("oid:0x1a000000000104", 4, 700, 0, 0, 0, 1024, 0),
    "Ethernet4:3": ("oid:0x1a000000000203", 3, 300010, 0, 2048, 0, 4096, 512),
}
QUEUE_WM = {"Ethernet0:3": (196608, 262144), "Ethernet4:3": (1536, 9216)}  # (user, persistent) shared bytes


def load_commands():
    """The data as redis-cli commands, in SONiC's layout."""
    c = ["SELECT 2", "HSET COUNTERS_PORT_NAME_MAP " + " ".join(f"{p} {o}" for p, o in PORTS.items())]
    for p, oid in PORTS.items():
        f = []
        for q in range(8):
            f += [f"SAI_PORT_STAT_PFC_{q}_RX_PKTS {PFC_RX[p][q]}", f"SAI_PORT_STAT_PFC_{q}_TX_PKTS {PFC_TX[p][q]}"]
        if p == "Ethernet0":
            f += ["SAI_PORT_STAT_PFC_3_RX_PAUSE_DURATION_US 52000", "SAI_PORT_STAT_PFC_3_TX_PAUSE_DURATION_US 300",
                  "SAI_PORT_STAT_IF_IN_OCTETS 1051000000", "SAI_PORT_STAT_PFC_3_ON2OFF_RX_PKTS 600"]
        c.append(f"HSET COUNTERS:{oid} " + " ".join(f))
    for name, v in QUEUES.items():
        oid = v[0]
        c += [f"HSET COUNTERS_QUEUE_NAME_MAP {name} {oid}", f"HSET COUNTERS_QUEUE_INDEX_MAP {oid} {v[1]}",
              f"HSET COUNTERS_QUEUE_TYPE_MAP {oid} SAI_QUEUE_TYPE_{v[2]}",
              f"HSET COUNTERS_QUEUE_PORT_MAP {oid} {PORTS[name.split(':')[0]]}",
              f"HSET COUNTERS:{oid} SAI_QUEUE_STAT_PACKETS {v[3]} SAI_QUEUE_STAT_BYTES {v[4]} "
              f"SAI_QUEUE_STAT_DROPPED_PACKETS {v[5]} SAI_QUEUE_STAT_DROPPED_BYTES {v[6]} "
              f"SAI_QUEUE_STAT_WRED_DROPPED_PACKETS {v[7]} SAI_QUEUE_STAT_WRED_DROPPED_BYTES {v[8]} "
              f"SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS {v[9]} SAI_QUEUE_STAT_WRED_ECN_MARKED_BYTES {v[10]} "
              f"PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED {v[11]} PFC_WD_QUEUE_STATS_DEADLOCK_RESTORED {v[12]} "
              f"PFC_WD_QUEUE_STATS_TX_PACKETS {v[13]} PFC_WD_QUEUE_STATS_TX_DROPPED_PACKETS {v[14]} "
              # the last poll's own watermark, which the Lua plugin folds into the tables below
              f"SAI_QUEUE_STAT_SHARED_WATERMARK_BYTES 77"]
        if v[11]:  # a watchdog on the queue: its settings, timers and state, words among them
            c.append(f"HSET COUNTERS:{oid} PFC_WD_STATUS {'stormed' if v[11] > v[12] else 'operational'} "
                     f"PFC_WD_ACTION drop PFC_WD_DETECTION_TIME 200000 PFC_WD_DETECTION_TIME_LEFT 200000 "
                     f"PFC_WD_RESTORATION_TIME 400000 PFC_WD_RESTORATION_TIME_LEFT 150000 "
                     f"PFC_WD_QUEUE_STATS_TX_PACKETS_LAST 0 PFC_WD_QUEUE_STATS_TX_DROPPED_PACKETS_LAST {v[14]}")
        if name in QUEUE_WM:
            c += [f"HSET USER_WATERMARKS:{oid} SAI_QUEUE_STAT_SHARED_WATERMARK_BYTES {QUEUE_WM[name][0]}",
                  f"HSET PERSISTENT_WATERMARKS:{oid} SAI_QUEUE_STAT_SHARED_WATERMARK_BYTES {QUEUE_WM[name][1]}"]
    for name, v in PGS.items():
        oid = v[0]
        c += [f"HSET COUNTERS_PG_NAME_MAP {name} {oid}", f"HSET COUNTERS_PG_INDEX_MAP {oid} {v[1]}",
              f"HSET COUNTERS_PG_PORT_MAP {oid} {PORTS[name.split(':')[0]]}",
              f"HSET COUNTERS:{oid} SAI_INGRESS_PRIORITY_GROUP_STAT_PACKETS {v[2]} "
              f"SAI_INGRESS_PRIORITY_GROUP_STAT_DROPPED_PACKETS {v[3]}",
              f"HSET USER_WATERMARKS:{oid} SAI_INGRESS_PRIORITY_GROUP_STAT_SHARED_WATERMARK_BYTES {v[4]} "
              f"SAI_INGRESS_PRIORITY_GROUP_STAT_XOFF_ROOM_WATERMARK_BYTES {v[5]}",
              f"HSET PERSISTENT_WATERMARKS:{oid} SAI_INGRESS_PRIORITY_GROUP_STAT_SHARED_WATERMARK_BYTES {v[6]} "
              f"SAI_INGRESS_PRIORITY_GROUP_STAT_XOFF_ROOM_WATERMARK_BYTES {v[7]}"]
    # CONFIG_DB: SONiC's default lossless setup (TCs 3 and 4 to their own PGs, the rest to PG 0);
    # Ethernet4 in the older "[TABLE|NAME]" reference form; Ethernet12 without QoS maps
    c += ["SELECT 4",
          "HSET PORT_QOS_MAP|Ethernet0 tc_to_queue_map AZURE tc_to_pg_map AZURE pfc_enable 3,4",
          "HSET PORT_QOS_MAP|Ethernet4 tc_to_queue_map [TC_TO_QUEUE_MAP|AZURE] "
          "tc_to_pg_map [TC_TO_PRIORITY_GROUP_MAP|AZURE]",
          "HSET TC_TO_QUEUE_MAP|AZURE 0 0 1 1 2 2 3 3 4 4 5 5 6 6 7 7",
          "HSET TC_TO_PRIORITY_GROUP_MAP|AZURE 0 0 1 0 2 0 3 3 4 4 5 0 6 0 7 7"]
    return c


# ---- what SONiC's tools print for that data (by hand, in their formats) -------------------
PFCSTAT = """\
   Port Rx    PFC0    PFC1    PFC2    PFC3       PFC4    PFC5    PFC6    PFC7
----------  ------  ------  ------  ------  ---------  ------  ------  ------
 Ethernet0       0       0       0   1,200         35       0       0       0
 Ethernet4       0       0       0       2  1,000,000       0       0       0
Ethernet12       0       0       0       5          0       0       0       0

   Port Tx    PFC0    PFC1    PFC2     PFC3    PFC4    PFC5    PFC6    PFC7
----------  ------  ------  ------  -------  ------  ------  ------  ------
 Ethernet0       0       0       0       17       4       0       0       0
 Ethernet4       0       0       0      880       0       0       0       0
Ethernet12       0       0       0  123,456       0       0       0       0
"""
# queuestat (one table per port, as it prints them)
QUEUESTAT = """\
     Port    TxQ    Counter/pkts    Counter/bytes    Drop/pkts    Drop/bytes
---------  -----  --------------  ---------------  -----------  ------------
Ethernet0    UC3         1000000       1048000000           12         12576
Ethernet0    UC4             500           524000            0             0
Ethernet0   MC10               7              448            0             0

     Port    TxQ    Counter/pkts    Counter/bytes    Drop/pkts    Drop/bytes
---------  -----  --------------  ---------------  -----------  ------------
Ethernet4    UC3          300000        314400000            5          5240

      Port    TxQ    Counter/pkts    Counter/bytes    Drop/pkts    Drop/bytes
----------  -----  --------------  ---------------  -----------  ------------
Ethernet12    UC3               0                0            0             0
"""
WREDSTAT = """\
     Port    TxQ    WredDrp/pkts    WredDrp/bytes    EcnMarked/pkts    EcnMarked/bytes
---------  -----  --------------  ---------------  ----------------  -----------------
Ethernet0    UC3               0                0              4100            4297000
Ethernet4    UC3               3             3144                77              80696
"""
PFCWD_STATS = """\
      QUEUE       STATUS    STORM DETECTED/RESTORED    TX OK/DROP    RX OK/DROP    TX LAST OK/DROP    RX LAST OK/DROP
-----------  -----------  -------------------------  ------------  ------------  -----------------  -----------------
Ethernet0:3      stormed                        2/1       100/300           0/0              0/300                0/0
Ethernet4:3  operational                        1/1           0/0           0/0                0/0                0/0
"""
# watermarkstat: `show priority-group watermark headroom|shared` (USER_WATERMARKS),
# `show priority-group persistent-watermark ...` (PERSISTENT_WATERMARKS), `show queue watermark unicast`
WM_PG_HEADROOM_USER = """\
Ingress headroom per PG:
     Port    PG3    PG4
---------  -----  -----
Ethernet0   8192      0
Ethernet4      0    N/A
"""
WM_PG_SHARED_USER = """\
Ingress shared pool occupancy per PG:
     Port    PG3    PG4
---------  -----  -----
Ethernet0  26624      0
Ethernet4   2048    N/A
"""
WM_PG_HEADROOM_PERSISTENT = """\
Ingress headroom per PG:
     Port    PG3    PG4
---------  -----  -----
Ethernet0  16384      0
Ethernet4    512    N/A
"""
WM_PG_SHARED_PERSISTENT = """\
Ingress shared pool occupancy per PG:
     Port    PG3    PG4
---------  -----  -----
Ethernet0  53248   1024
Ethernet4   4096    N/A
"""
WM_Q_USER = """\
Egress shared pool occupancy per unicast queue:
     Port     UC3
---------  ------
Ethernet0  196608
Ethernet4    1536
"""
WM_Q_PERSISTENT = """\
Egress shared pool occupancy per unicast queue:
     Port     UC3
---------  ------
Ethernet0  262144
Ethernet4    9216
"""
# `show priority-group drop counters` (pg-drop -c show)
PG_DROP = """\
Ingress PG dropped packets:
     Port    PG3    PG4
---------  -----  -----
Ethernet0      6      0
Ethernet4      0    N/A
"""


def tables(text):
    """tabulate 'simple' tables -> lists of rows, each a dict header -> cell."""
    out, lines = [], text.splitlines()
    for i, ln in enumerate(lines):
        if i and re.fullmatch(r"-+(  -+)*", ln):
            hdr = re.split(r"\s{2,}", lines[i - 1].strip())
            rows = []
            for r in lines[i + 1:]:
                if not r.strip() or re.fullmatch(r"-+(  -+)*", r) or r.endswith(":"):
                    break
                rows.append(dict(zip(hdr, re.split(r"\s{2,}", r.strip()))))
            out.append(rows)
    return out


def num(cell):
    return int(cell.replace(",", ""))


def port(snap, name):
    return next((p for p in snap["ports"] if p["name"] == name), None)


def obj(p, kind, idx):
    key = "queue" if kind == "queues" else "pg"
    return next((o for o in (p or {}).get(kind, []) if o[key] == idx), None) if p else None


def check_read(snap):
    expect([p["name"] for p in snap["ports"]] == ["Ethernet0", "Ethernet4", "Ethernet12"],
           f"ports in pfcstat's natural order ({[p['name'] for p in snap['ports']]})")
    rx, tx = tables(PFCSTAT)
    bad = []
    for key, t, col0 in (("pfc_rx", rx, "Port Rx"), ("pfc_tx", tx, "Port Tx")):
        for row in t:
            p = port(snap, row[col0])
            for q in range(8):
                e = next((x for x in (p or {}).get("prio", []) if x["prio"] == q), {})
                if e.get(key, 0) != num(row[f"PFC{q}"]):
                    bad.append(f"{row[col0]} prio{q} {key} {e.get(key)} != {row[f'PFC{q}']}")
    expect(not bad and len(rx) == 3 and len(tx) == 3, f"pfcstat's 2 x 3 x 8 cells == pfc_rx/pfc_tx {bad[:3]}")
    p0 = port(snap, "Ethernet0")
    e3 = next((x for x in p0["prio"] if x["prio"] == 3), {})
    # pfcstat -s history's Total RX Pause Time US; the TX twin has no pfcstat column
    expect(e3.get("pause_us_rx") == 52000 and e3.get("pause_us_tx") == 300,
           f"Ethernet0 prio3 pause_us_rx 52000, pause_us_tx 300 ({e3})")
    expect(p0.get("rx_bytes") == 1051000000 and p0["raw"].get("SAI_PORT_STAT_PFC_3_ON2OFF_RX_PKTS") == 600,
           "Ethernet0 rx_bytes from IF_IN_OCTETS; an unmapped SAI stat kept raw under its name")

    bad, n = [], 0
    for t in tables(QUEUESTAT):
        for row in t:
            n += 1
            o = obj(port(snap, row["Port"]), "queues", int(row["TxQ"][2:]))
            got = (o or {})
            want = {"packets": num(row["Counter/pkts"]), "bytes": num(row["Counter/bytes"]),
                    "drops": num(row["Drop/pkts"]), "drop_bytes": num(row["Drop/bytes"])}
            if any(got.get(k) != v for k, v in want.items()):
                bad.append(f"{row['Port']} {row['TxQ']}: {got} != {want}")
    expect(not bad and n == 5, f"queuestat's 5 queues x 4 counters == queues[] packets/bytes/drops/drop_bytes {bad[:2]}")
    bad = []
    for row in tables(WREDSTAT)[0]:
        o = obj(port(snap, row["Port"]), "queues", int(row["TxQ"][2:])) or {}
        if o.get("ecn_marked") != num(row["EcnMarked/pkts"]):
            bad.append(f"{row['Port']} {row['TxQ']} ecn_marked {o.get('ecn_marked')} != {row['EcnMarked/pkts']}")
    expect(not bad, f"wredstat's EcnMarked/pkts == queues[].ecn_marked {bad}")
    bad = []
    for row in tables(PFCWD_STATS)[0]:
        pn, qi = row["QUEUE"].split(":")
        o = obj(port(snap, pn), "queues", int(qi)) or {}
        det, res = (int(x) for x in row["STORM DETECTED/RESTORED"].split("/"))
        txok, txdrop = (int(x) for x in row["TX OK/DROP"].split("/"))
        lastok, lastdrop = (int(x) for x in row["TX LAST OK/DROP"].split("/"))
        if ((o.get("wd_storms_detected"), o.get("wd_storms_restored"), o.get("wd_tx_packets"), o.get("wd_tx_drops"),
             o.get("wd_tx_packets_last"), o.get("wd_tx_drops_last"), o.get("wd_stormed"))
                != (det, res, txok, txdrop, lastok, lastdrop, int(row["STATUS"] == "stormed"))):
            bad.append(f"{row['QUEUE']}: {o}")
    expect(not bad, f"pfcwd show stats' STATUS, STORM DETECTED/RESTORED, TX OK/DROP, TX LAST OK/DROP == wd_stormed, "
                    f"wd_storms_detected/restored, wd_tx_packets/drops, wd_tx_packets/drops_last {bad}")
    q = obj(p0, "queues", 3)
    expect((q["wd_detection_time"], q["wd_restoration_time_left"]) == (200000, 150000)
           and "PFC_WD_ACTION" not in json.dumps(snap),
           "the watchdog's timers as gauges; PFC_WD_ACTION (a word, a setting) left out")

    bad, cells = [], 0
    for text, kind, key in ((WM_PG_HEADROOM_USER, "pgs", "headroom_wm_bytes"),
                            (WM_PG_SHARED_USER, "pgs", "shared_wm_bytes"),
                            (WM_PG_HEADROOM_PERSISTENT, "pgs", "persistent_headroom_wm_bytes"),
                            (WM_PG_SHARED_PERSISTENT, "pgs", "persistent_shared_wm_bytes"),
                            (WM_Q_USER, "queues", "shared_wm_bytes"),
                            (WM_Q_PERSISTENT, "queues", "persistent_shared_wm_bytes"),
                            (PG_DROP, "pgs", "drops")):
        for row in tables(text)[0]:
            for col, cell in row.items():
                if col == "Port":
                    continue
                cells += 1
                o = obj(port(snap, row["Port"]), kind, int(col.lstrip("PGUC")))
                got = (o or {}).get(key)
                if (cell == "N/A" and o is not None) or (cell != "N/A" and got != num(cell)):
                    bad.append(f"{row['Port']} {col} {key} {got} != {cell}")
    # 5 tables of 2 ports x 2 PGs, 2 of 2 ports x 1 queue: 5*4 + 2*2 = 24 cells
    expect(not bad and cells == 24, f"watermarkstat's 6 tables and pg-drop's == pgs[]/queues[] watermarks (gauges) and drops {bad[:3]}")
    expect(obj(p0, "queues", 3)["poll_shared_wm_bytes"] == 77,
           "COUNTERS:oid's own last-poll watermark is its own gauge, not the user table's")

    # CONFIG_DB: TC_TO_QUEUE_MAP|AZURE is the identity; TC_TO_PRIORITY_GROUP_MAP|AZURE sends 3->3,
    # 4->4, 7->7 and the rest to PG 0
    want = {f"prio{q}_queue": q for q in range(8)} | {f"prio{q}_pg": q if q in (3, 4, 7) else 0 for q in range(8)}
    for pn in ("Ethernet0", "Ethernet4"):
        g = port(snap, pn)["gauges"]
        expect(all(g.get(k) == v for k, v in want.items()), f"{pn}'s CONFIG_DB maps as gauges ({g})")
    expect(port(snap, "Ethernet12")["gauges"] == {}, "Ethernet12 without PORT_QOS_MAP: no map gauges")


def rp(*args, timeout=20):
    return subprocess.run([RP, "counters", *args], capture_output=True, text=True, timeout=timeout)


def one_line_exit2(p, what, needle):
    expect(p.returncode == 2 and p.stdout == "" and p.stderr.count("\n") == 1 and needle in p.stderr,
           f"{what}: exit 2, one line naming it ({p.returncode}: {p.stderr.strip()!r})")


def check_watch(spec, port_):
    w = subprocess.Popen([RP, "counters", spec, "--watch", "200ms", "--json"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    first = json.loads(w.stdout.readline())
    expect(first["kind"] == "snapshot", "--watch: the first line is the snapshot")
    # moves: Ethernet0 prio 3 RX +40, Ethernet4 UC3 drops +7; the headroom watermark of
    # Ethernet0 PG3 falls (a user clear): a gauge's new value, not a reset
    cli(port_, "SELECT 2", f"HINCRBY COUNTERS:{PORTS['Ethernet0']} SAI_PORT_STAT_PFC_3_RX_PKTS 40",
        f"HINCRBY COUNTERS:{QUEUES['Ethernet4:3'][0]} SAI_QUEUE_STAT_DROPPED_PACKETS 7",
        f"HSET USER_WATERMARKS:{PGS['Ethernet0:3'][0]} SAI_INGRESS_PRIORITY_GROUP_STAT_XOFF_ROOM_WATERMARK_BYTES 1024")
    deltas, t0 = [], time.monotonic()
    while time.monotonic() - t0 < 5:
        d = json.loads(w.stdout.readline())
        deltas.append(d)
        pg = obj(port(d, "Ethernet0"), "pgs", 3) or {}
        if pg.get("headroom_wm_bytes") == 1024 and sum(
                next((x.get("pfc_rx", 0) for x in port(e, "Ethernet0")["prio"] if x["prio"] == 3), 0)
                for e in deltas) == 40:
            break
    rx = sum(next((x.get("pfc_rx", 0) for x in port(e, "Ethernet0")["prio"] if x["prio"] == 3), 0) for e in deltas)
    drops = sum((obj(port(e, "Ethernet4"), "queues", 3) or {}).get("drops", 0) for e in deltas)
    expect(rx == 40 and drops == 7, f"--watch deltas: Ethernet0 prio3 pfc_rx +40 ({rx}), Ethernet4 queue 3 drops +7 "
                                    f"({drops})")
    expect(all(d["kind"] == "delta" and all(p["resets"] == [] for p in d["ports"]) for d in deltas),
           "a falling watermark is no reset: gauges are values")
    cli(port_, "SELECT 2", f"HSET COUNTERS:{PORTS['Ethernet4']} SAI_PORT_STAT_PFC_4_RX_PKTS 12")
    try:
        rest, err = w.communicate(timeout=5)
    except subprocess.TimeoutExpired:
        w.kill()
        rest, err = w.communicate()
    expect(w.returncode == 2 and err.count("\n") == 1 and "Ethernet4 prio 4 pfc_rx went backwards from 1000000 to 12"
           in err, f"a switch counter going backwards: one line, exit 2 ({w.returncode}: {err.strip()!r})")
    expect(all(json.loads(ln) for ln in rest.splitlines()), "every line before it whole JSON")
    cli(port_, "SELECT 2", f"HSET COUNTERS:{PORTS['Ethernet4']} SAI_PORT_STAT_PFC_4_RX_PKTS 1000000",
        f"HINCRBY COUNTERS:{PORTS['Ethernet0']} SAI_PORT_STAT_PFC_3_RX_PKTS -40",
        f"HINCRBY COUNTERS:{QUEUES['Ethernet4:3'][0]} SAI_QUEUE_STAT_DROPPED_PACKETS -7",
        f"HSET USER_WATERMARKS:{PGS['Ethernet0:3'][0]} SAI_INGRESS_PRIORITY_GROUP_STAT_XOFF_ROOM_WATERMARK_BYTES 8192")


def main():
    if not redis_srv.present():
        print("no redis-server/redis-cli (tools/bootstrap.sh --tests)")
        sys.exit(77)
    d = tempfile.mkdtemp(prefix="rp-sonic-")
    srv, port_ = redis_srv.start(d)
    try:
        spec = f"sonic://127.0.0.1:{port_}"
        one_line_exit2(rp(spec), "an empty COUNTERS_DB", "has no COUNTERS_PORT_NAME_MAP")
        cli(port_, *load_commands())

        p = rp(spec, "--json")
        expect(p.returncode == 0 and p.stderr == "" and p.stdout.count("\n") == 1, f"--json: one line, exit 0 "
               f"({p.returncode} {p.stderr!r})")
        if p.returncode != 0:
            finish("sonic")
        snap = json.loads(p.stdout)
        expect(snap["schema"] == "roceprobe.counters/1" and snap["source"] == spec, "schema and source")
        check_read(snap)
        t = rp(spec)
        expect(t.returncode == 0 and "queue" in t.stdout and "headroom_wm_bytes*" in t.stdout,
               "text: the queue and PG tables, gauges starred")

        check_watch(spec, port_)

        one_line_exit2(rp(f"sonic://127.0.0.1:{free_port()}"), "nothing listening", "cannot connect")
        one_line_exit2(rp("sonic://127.0.0.1:70000"), "port 70000", "not 1..65535")
        one_line_exit2(rp("sonic://"), "no host", "expected sonic://HOST[:PORT]")
        cli(port_, "SELECT 2", "HSET COUNTERS_QUEUE_NAME_MAP Ethernet9:3 oid:0x15000000000903")
        one_line_exit2(rp(spec), "a queue of a port the port map lacks",
                       "COUNTERS_QUEUE_NAME_MAP names Ethernet9:3, but COUNTERS_PORT_NAME_MAP has no port Ethernet9")
        cli(port_, "SELECT 2", "HDEL COUNTERS_QUEUE_NAME_MAP Ethernet9:3",
            f"HSET COUNTERS:{QUEUES['Ethernet0:4'][0]} SAI_QUEUE_STAT_PACKETS -5")
        one_line_exit2(rp(spec), "a value that is not a count",
                       f"COUNTERS:{QUEUES['Ethernet0:4'][0]} field SAI_QUEUE_STAT_PACKETS is '-5', not a count")
        cli(port_, "CONFIG SET requirepass s3cret")
        one_line_exit2(rp(spec), "a server that wants a password", "wants a password")
    finally:
        redis_srv.stop(srv)
        shutil.rmtree(d, ignore_errors=True)
    finish("sonic")


if __name__ == "__main__":  # switches_run_check.py imports the fixture
    main()
