#!/usr/bin/python3
"""tshark and `roceprobe decode --json` must agree on every frame of the sample.

    tshark_check.py [--tshark PATH] [--vectors FILE] MKSAMPLE ROCEPROBE

1. MKSAMPLE writes the sample capture into a temporary directory.
2. tshark (which must read it without an error) and `ROCEPROBE decode --json`
   each describe every frame; both are normalised to the same keys and
   compared field by field, frame by frame.
3. Every RoCE frame's ICRC is recomputed in Python (roce_icrc.py, an
   independent re-implementation of Linux rxe's) and compared with decode's
   icrc and icrc_ok.
4. tshark verifies every IPv4 header and UDP checksum (the UDP checksum
   covers the ICRC, so a builder that writes them in the wrong order fails).
5. decode's summary line must match the frames.
6. The sample again with every record cut to 128 bytes (a snaplen): decode's
   payload_len must stay the wire's (tshark's data.len of the whole frame
   minus the pad), and no ICRC is claimed for a cut frame.
7. With --vectors, the scapy-built known-answer frames (tests/data/vectors.txt)
   are also read by tshark and compared with the fields the vector file
   states, so the expected values themselves are checked by a third tool.

One line per mismatch; exit 1 on any, 0 when all agree, 77 (meson: skip) when
tshark is missing.

tshark 4.0 quirks handled here (LAB-NOTES "Wire cross-checks" has the rest):
- its RPC-over-RDMA heuristic throws "Malformed" on short SEND payloads, and
  its Mellanox EoIB heuristic eats the first bytes of UD payloads, so both
  (rpcordma, infiniband.eoib) are disabled;
- it reads the payload of a packet to QP0/QP1 as a MAD: no data.len, and
  sometimes no ICRC, so those two are not compared for DestQP 0 and 1;
- it prints the ICRC as the wire bytes read big endian (decode prints the
  wire bytes as hex, so both are the same number), and for a CNP (which it
  does not know) the ICRC is the last 4 bytes of infiniband.vendor;
- its data.len counts the BTH pad bytes, decode's payload_len does not;
- an AtomicETH's address and rkey come out as infiniband.reth.va/.r_key;
- FECN and BECN are not fields of their own: they are the top two bits of the
  first infiniband.reserved (BTH byte 4);
- ImmDt and IETH occur twice per frame; the first occurrence is used.
"""

import argparse
import ipaddress
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import roce_icrc  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from check import read_pcap, write_pcap  # noqa: E402

SKIP = 77
ROCE_PORT = 4791
OP_CNP = 0x81
ATOMIC_OPS = {0x13, 0x14}
AGG = ";"

# tshark field -> our short name
TSHARK_FIELDS = [
    ("frame.number", "number"), ("frame.len", "len"), ("frame.cap_len", "cap_len"),
    ("eth.src", "eth_src"), ("eth.type", "eth_type"),
    ("vlan.priority", "vlan_pcp"), ("vlan.id", "vlan_vid"),
    ("ip.src", "ip_src"), ("ip.dst", "ip_dst"),
    ("ip.dsfield.dscp", "ip_dscp"), ("ip.dsfield.ecn", "ip_ecn"), ("ip.ttl", "ip_ttl"),
    ("ipv6.src", "ip6_src"), ("ipv6.dst", "ip6_dst"),
    ("ipv6.tclass.dscp", "ip6_dscp"), ("ipv6.tclass.ecn", "ip6_ecn"),
    ("ipv6.hlim", "ip6_hlim"), ("ipv6.flow", "ip6_flow"),
    ("udp.srcport", "udp_sport"), ("udp.dstport", "udp_dport"),
    ("infiniband.bth.opcode", "opcode"), ("infiniband.bth.se", "se"),
    ("infiniband.bth.m", "m"), ("infiniband.bth.padcnt", "pad"),
    ("infiniband.bth.tver", "tver"), ("infiniband.bth.p_key", "pkey"),
    ("infiniband.reserved", "reserved"), ("infiniband.bth.destqp", "dqpn"),
    ("infiniband.bth.a", "ack_req"), ("infiniband.bth.psn", "psn"),
    ("infiniband.reth.va", "va"), ("infiniband.reth.r_key", "rkey"),
    ("infiniband.reth.dmalen", "dma_len"),
    ("infiniband.aeth.syndrome", "aeth_syndrome"), ("infiniband.aeth.msn", "aeth_msn"),
    ("infiniband.immdt", "imm"), ("infiniband.ieth", "ieth"),
    ("infiniband.deth.q_key", "deth_qkey"), ("infiniband.deth.srcqp", "deth_src_qp"),
    ("infiniband.atomiceth.swapdt", "swap_add"), ("infiniband.atomiceth.cmpdt", "compare"),
    ("infiniband.atomicacketh.origremdt", "atomic_ack"),
    ("data.len", "data_len"),
    ("infiniband.invariant.crc", "icrc"), ("infiniband.vendor", "vendor"),
    ("macc.opcode", "macc_opcode"), ("macc.cbfc.enbv", "pfc_enbv"),
] + [("macc.cbfc.pause_time.c%d" % p, "pfc_q%d" % p) for p in range(8)] + [
    ("macc.pause_time", "pause_time"), ("_ws.malformed", "malformed"),
    ("_ws.expert.severity", "expert_severity"),
    ("ip.checksum.status", "ip_csum_status"), ("udp.checksum.status", "udp_csum_status"),
    ("udp.checksum", "udp_csum"), ("udp.length", "udp_len"),
]
CSUM_GOOD, CSUM_NOT_PRESENT, CSUM_ILLEGAL = 1, 3, 4


class Mismatches:
    def __init__(self):
        self.lines = []

    def add(self, where, msg):
        self.lines.append("%s: %s" % (where, msg))
        print("MISMATCH %s: %s" % (where, msg))


# ---- tshark --------------------------------------------------------------------

def run_tshark(tshark, pcap, mm):
    cmd = [tshark, "-n", "-o", "ip.check_checksum:TRUE", "-o", "udp.check_checksum:TRUE",
           "--disable-protocol", "rpcordma",
           "--disable-protocol", "infiniband.eoib", "-r", pcap, "-T", "fields",
           "-E", "separator=|", "-E", "occurrence=a", "-E", "aggregator=" + AGG]
    for field, _ in TSHARK_FIELDS:
        cmd += ["-e", field]
    res = subprocess.run(cmd, capture_output=True, text=True)
    errs = [ln for ln in res.stderr.splitlines()
            if ln.strip() and "Running as user" not in ln]
    if res.returncode != 0 or errs:
        mm.add("tshark", "exit %d reading %s: %s" % (res.returncode, pcap, " / ".join(errs)))
    rows = {}
    for line in res.stdout.splitlines():
        vals = line.split("|")
        if len(vals) != len(TSHARK_FIELDS):
            mm.add("tshark", "unexpected line %r" % line)
            continue
        row = {name: v for (_, name), v in zip(TSHARK_FIELDS, vals)}
        rows[int(row["number"])] = row
    return rows


def first(v):
    return v.split(AGG)[0] if v else ""


def last(v):
    return v.split(AGG)[-1] if v else ""


def num(v):
    """tshark prints decimal, 0x-hex, or True/False."""
    v = first(v)
    if v == "":
        return None
    if v in ("True", "False"):
        return int(v == "True")
    return int(v, 0)


def hexbytes(v):
    v = first(v).replace(":", "")
    return int(v, 16) if v else None


def tshark_kind(t):
    if t["opcode"]:
        return "cnp" if num(t["opcode"]) == OP_CNP else "roce"
    if t["macc_opcode"]:
        return {0x0101: "pfc", 0x0001: "pause"}.get(num(t["macc_opcode"]), "other")
    return "other"


def norm_tshark_l3(t, n):
    if t["ip_src"]:
        n.update(l3=4, src=ipaddress.ip_address(first(t["ip_src"])),
                 dst=ipaddress.ip_address(first(t["ip_dst"])),
                 dscp=num(t["ip_dscp"]), ecn=num(t["ip_ecn"]), ttl=num(t["ip_ttl"]))
    elif t["ip6_src"]:
        n.update(l3=6, src=ipaddress.ip_address(first(t["ip6_src"])),
                 dst=ipaddress.ip_address(first(t["ip6_dst"])),
                 dscp=num(t["ip6_dscp"]), ecn=num(t["ip6_ecn"]),
                 hop_limit=num(t["ip6_hlim"]), flow_label=num(t["ip6_flow"]))
    n.update(udp_sport=num(t["udp_sport"]), udp_dport=num(t["udp_dport"]))


def norm_tshark_bth(t, n):
    opcode = num(t["opcode"])
    bth4 = int(first(t["reserved"]), 16)
    n.update(opcode=opcode, se=num(t["se"]), m=num(t["m"]), pad=num(t["pad"]),
             tver=num(t["tver"]), pkey=num(t["pkey"]), fecn=bth4 >> 7 & 1,
             becn=bth4 >> 6 & 1, dqpn=num(t["dqpn"]), ack_req=num(t["ack_req"]),
             psn=num(t["psn"]))
    if t["va"] and opcode in ATOMIC_OPS:
        n.update(atomic_va=num(t["va"]), atomic_rkey=num(t["rkey"]),
                 atomic_swap_add=num(t["swap_add"]), atomic_compare=num(t["compare"]))
    elif t["va"]:
        n.update(reth_va=num(t["va"]), reth_rkey=num(t["rkey"]), reth_len=num(t["dma_len"]))
    if t["aeth_syndrome"]:
        n.update(aeth_syndrome=num(t["aeth_syndrome"]), aeth_msn=num(t["aeth_msn"]))
    if t["atomic_ack"]:
        n["atomic_ack"] = num(t["atomic_ack"])
    if t["imm"]:
        n["imm"] = hexbytes(t["imm"])
    if t["ieth"]:
        n["ieth"] = hexbytes(t["ieth"])
    if t["deth_qkey"]:
        n.update(deth_qkey=num(t["deth_qkey"]), deth_src_qp=num(t["deth_src_qp"]))
    n["data_len"] = num(t["data_len"]) or 0
    if t["icrc"]:
        n["icrc"] = num(t["icrc"])
    elif t["vendor"]:  # CNP: reserved bytes then the ICRC
        n["icrc"] = int(last(t["vendor"]).replace(":", "")[-8:], 16)


def norm_tshark(t):
    n = {"kind": tshark_kind(t), "len": num(t["len"])}
    if t["vlan_pcp"]:
        n.update(vlan_pcp=num(t["vlan_pcp"]), vlan_vid=num(t["vlan_vid"]))
    kind = n["kind"]
    if kind in ("roce", "cnp"):
        norm_tshark_l3(t, n)
        norm_tshark_bth(t, n)
    elif kind == "pfc":
        n.update(eth_src=first(t["eth_src"]), enable=num(t["pfc_enbv"]) & 0xFF,
                 quanta=[num(t["pfc_q%d" % p]) for p in range(8)])
    elif kind == "pause":
        n.update(eth_src=first(t["eth_src"]), quanta=num(t["pause_time"]))
    return n


def check_checksums(where, t, mm):
    """tshark verifies the IPv4 header and UDP checksums we (or scapy) wrote;
    the UDP one covers the ICRC, so it also proves the build order."""
    ip, udp = num(t["ip_csum_status"]), num(t["udp_csum_status"])
    if ip is not None and ip != CSUM_GOOD:
        mm.add(where, "tshark: IPv4 header checksum status %d, not good" % ip)
    # A zero UDP checksum is "not present" over IPv4 and "illegal" over IPv6
    # (RFC 8200); RoCEv2 senders may send zero over both.
    zero_ok = (CSUM_NOT_PRESENT, CSUM_ILLEGAL) if num(t["udp_csum"]) == 0 else ()
    if udp is not None and udp != CSUM_GOOD and udp not in zero_ok:
        mm.add(where, "tshark: UDP checksum status %d, not good" % udp)


def tshark_saw_damage(t):
    """What tshark shows for a frame decode calls malformed."""
    return (num(t["cap_len"]) < num(t["len"]) or bool(t["malformed"])
            or "Error" in t["expert_severity"])


# ---- decode --------------------------------------------------------------------

def run_decode(roceprobe, pcap, mm):
    res = subprocess.run([roceprobe, "decode", "--json", pcap], capture_output=True, text=True)
    if res.returncode != 0:
        mm.add("decode", "exit %d: %s" % (res.returncode, res.stderr.strip()))
    frames, summary = {}, None
    for line in res.stdout.splitlines():
        try:
            obj = json.loads(line)
        except ValueError:
            mm.add("decode", "not JSON: %r" % line)
            continue
        if obj.get("summary"):
            summary = obj
        else:
            frames[obj["frame"]] = obj
    return frames, summary


def norm_decode_l3(d, n):
    n.update(l3={"ipv4": 4, "ipv6": 6}.get(d.get("l3")),
             src=ipaddress.ip_address(d["src"]), dst=ipaddress.ip_address(d["dst"]),
             dscp=d.get("dscp"), ecn=d.get("ecn"), udp_sport=d.get("udp_sport"),
             udp_dport=d.get("udp_dport"))
    if n["l3"] == 4:
        n["ttl"] = d.get("ttl")
    else:
        n.update(hop_limit=d.get("hop_limit"), flow_label=d.get("flow_label"))


def norm_decode_ext(d, n):
    if "reth" in d:
        n.update(reth_va=int(d["reth"]["va"], 16), reth_rkey=int(d["reth"]["rkey"], 16),
                 reth_len=d["reth"]["dma_len"])
    if "atomic" in d:
        a = d["atomic"]
        n.update(atomic_va=int(a["va"], 16), atomic_rkey=int(a["rkey"], 16),
                 atomic_swap_add=int(a["swap_add"], 16), atomic_compare=int(a["compare"], 16))
    if "aeth" in d:
        n.update(aeth_syndrome=d["aeth"]["syndrome"], aeth_msn=d["aeth"]["msn"])
    if "atomic_ack" in d:
        n["atomic_ack"] = int(d["atomic_ack"], 16)
    if "imm" in d:
        n["imm"] = int(d["imm"], 16)
    if "ieth" in d:
        n["ieth"] = int(d["ieth"], 16)
    if "deth" in d:
        n.update(deth_qkey=d["deth"]["qkey"], deth_src_qp=d["deth"]["src_qp"])


def norm_decode(d):
    n = {"kind": d.get("kind"), "len": d.get("len")}
    if "vlan" in d:
        n.update(vlan_pcp=d["vlan"]["pcp"], vlan_vid=d["vlan"]["vid"])
    if n["kind"] in ("roce", "cnp"):
        norm_decode_l3(d, n)
        b = d["bth"]
        for k in ("opcode", "se", "m", "pad", "tver", "pkey", "fecn", "becn", "dqpn",
                  "ack_req", "psn"):
            n[k] = int(b[k])
        norm_decode_ext(d, n)
        plen = d.get("payload_len", 0)
        n["data_len"] = plen + b["pad"] if plen or b["pad"] else 0
        if "icrc" in d:
            n["icrc"] = int(d["icrc"], 16)
    elif n["kind"] == "pfc":
        n.update(eth_src=d["src_mac"], enable=sum(1 << p for p in d["enable"]),
                 quanta=list(d["quanta"]))
    elif n["kind"] == "pause":
        n.update(eth_src=d["src_mac"], quanta=d["quanta"])
    return n


# ---- vectors --------------------------------------------------------------------

def load_vectors(path):
    vecs = []
    with open(path) as fh:
        for line in fh:
            if line.startswith("#") or not line.strip():
                continue
            name, hexframe, kvs = line.rstrip("\n").split("|")
            kv = dict(item.split("=", 1) for item in kvs.split())
            vecs.append((name, bytes.fromhex(hexframe), kv))
    return vecs


def norm_vector(frame, kv):
    def i(k):
        return int(kv[k], 0)

    n = {"kind": kv["kind"], "len": len(frame)}
    if i("vlan"):
        n.update(vlan_pcp=i("pcp"), vlan_vid=i("vid"))
    if kv["kind"] in ("roce", "cnp"):
        n.update(l3=i("l3"), src=ipaddress.ip_address(kv["src"]),
                 dst=ipaddress.ip_address(kv["dst"]), dscp=i("dscp"), ecn=i("ecn"),
                 udp_sport=i("udp_sport"), udp_dport=i("udp_dport"))
        if n["l3"] == 4:
            n["ttl"] = i("ttl")
        else:
            n.update(hop_limit=i("hop_limit"), flow_label=i("flow_label"))
        for k in ("opcode", "se", "m", "pad", "tver", "pkey", "fecn", "becn", "dqpn",
                  "ack_req", "psn"):
            n[k] = i(k)
        for k in ("reth_va", "reth_rkey", "reth_len", "aeth_syndrome", "aeth_msn",
                  "atomic_va", "atomic_rkey", "atomic_swap_add", "atomic_compare",
                  "atomic_ack", "imm", "ieth", "deth_qkey", "deth_src_qp"):
            if k in kv:
                n[k] = i(k)
        plen = i("payload_len")
        n["data_len"] = plen + i("pad") if plen or i("pad") else 0
        n["icrc"] = int(kv["icrc"], 16)
    elif kv["kind"] == "pfc":
        n.update(eth_src=kv["eth_src"], enable=i("enable"),
                 quanta=[int(q) for q in kv["quanta"].split(",")])
    elif kv["kind"] == "pause":
        n.update(eth_src=kv["eth_src"], quanta=i("quanta"))
    return n


# ---- comparisons -------------------------------------------------------------------

def compare(where, ours, theirs, ours_name, mm):
    blind = {"data_len", "icrc"} if ours.get("dqpn") in (0, 1) else set()
    for k in sorted((set(ours) | set(theirs)) - blind):
        a, b = ours.get(k), theirs.get(k)
        if a != b:
            mm.add(where, "%s: %s %s, tshark %s" % (k, ours_name, fmt(a), fmt(b)))


def fmt(v):
    if v is None:
        return "(absent)"
    if isinstance(v, int) and v > 255:
        return "%d (0x%x)" % (v, v)
    return str(v)


def python_l3(frame):
    """Bytes from the IP header on when this is a UDP/4791 frame, else None."""
    off, etype = 14, struct.unpack("!H", frame[12:14])[0]
    if etype == 0x8100:
        off, etype = 18, struct.unpack("!H", frame[16:18])[0]
    l3 = frame[off:]
    if etype == 0x0800 and len(l3) >= 28 and l3[9] == 17:
        udp = (l3[0] & 0xF) * 4
    elif etype == 0x86DD and len(l3) >= 48 and l3[6] == 17:
        udp = 40
    else:
        return None
    if len(l3) < udp + 4 or struct.unpack("!H", l3[udp + 2:udp + 4])[0] != ROCE_PORT:
        return None
    return l3


def check_icrc(n, pkt, d, mm):
    _, frame, wire = pkt
    caplen = len(frame)
    where = "frame %d" % n
    l3 = python_l3(frame)
    if l3 is None or caplen < wire:
        if "icrc" in d:
            mm.add(where, "decode has an ICRC for a frame Python finds no whole RoCE packet in")
        return
    try:
        covered, wire_icrc = roce_icrc.icrc_region(l3)
        ok = roce_icrc.icrc_check(l3)
    except ValueError as e:
        if d.get("kind") != "malformed":
            mm.add(where, "Python cannot find the ICRC (%s) but decode says %s" % (e, d.get("kind")))
        return
    if d.get("icrc") != wire_icrc.hex():
        mm.add(where, "icrc: decode %s, Python %s" % (d.get("icrc"), wire_icrc.hex()))
    if d.get("icrc_ok") is not ok:
        mm.add(where, "icrc_ok: decode %s, Python %s (computed %s)"
               % (d.get("icrc_ok"), ok, roce_icrc.icrc_wire(covered).hex()))


def check_summary(decoded, summary, pkts, mm):
    if summary is None:
        mm.add("summary", "decode printed no summary line")
        return
    kinds = {}
    for d in decoded.values():
        kinds[d["kind"]] = kinds.get(d["kind"], 0) + 1
    bad = sum(1 for d in decoded.values() if d.get("icrc_ok") is False)
    if summary.get("frames") != len(pkts):
        mm.add("summary", "frames %s, the file holds %d" % (summary.get("frames"), len(pkts)))
    for k, v in summary.get("kinds", {}).items():
        if kinds.get(k, 0) != v:
            mm.add("summary", "kinds.%s %d, frames say %d" % (k, v, kinds.get(k, 0)))
    if summary.get("icrc_bad") != bad:
        mm.add("summary", "icrc_bad %s, frames say %d" % (summary.get("icrc_bad"), bad))


# The sample must keep showing every packet kind (a regression in mksample
# would otherwise shrink what this test covers without anyone noticing).
REQUIRED_OPCODES = {0x00, 0x01, 0x02, 0x05, 0x06, 0x07, 0x08, 0x0A, 0x0B, 0x0C, 0x0D, 0x0E,
                    0x0F, 0x10, 0x11, 0x12, 0x14, 0x17, 0x64, 0x81}


def check_coverage(decoded, mm):
    opcodes = {d["bth"]["opcode"] for d in decoded.values() if "bth" in d}
    missing = REQUIRED_OPCODES - opcodes
    if missing:
        mm.add("sample", "no frame with opcode(s) %s" % ", ".join("0x%02x" % o for o in sorted(missing)))
    kinds = {d["kind"] for d in decoded.values()}
    for k in ("roce", "cnp", "pfc", "pause", "other", "malformed"):
        if k not in kinds:
            mm.add("sample", "no frame of kind %s" % k)
    checks = [
        ("an IPv6 frame", lambda d: d.get("l3") == "ipv6"),
        ("a frame on VLAN 100 PCP 3", lambda d: d.get("vlan") == {"pcp": 3, "vid": 100}),
        ("a DSCP 26 ECT(0) frame", lambda d: d.get("dscp") == 26 and d.get("ecn") == 2),
        ("a CE-marked frame", lambda d: d.get("ecn") == 3),
        ("a probe payload", lambda d: "probe" in d),
        ("a bad ICRC", lambda d: d.get("icrc_ok") is False),
        ("a PSN sequence NAK", lambda d: d.get("aeth", {}).get("syndrome") == 0x60),
        ("an RNR NAK", lambda d: d.get("aeth", {}).get("syndrome", 0) >> 5 == 1),
    ]
    for what, pred in checks:
        if not any(pred(d) for d in decoded.values()):
            mm.add("sample", "no %s" % what)


def check_sample(args, tmp, mm):
    pcap = os.path.join(tmp, "sample.pcap")
    res = subprocess.run([args.mksample, pcap], capture_output=True, text=True)
    if res.returncode != 0:
        mm.add("mksample", "exit %d: %s" % (res.returncode, res.stderr.strip()))
        return 0
    cap = read_pcap(pcap)
    if cap["linktype"] != 1:
        mm.add("mksample", "link type %d, not Ethernet" % cap["linktype"])
        return 0
    pkts = cap["recs"]
    rows = run_tshark(args.tshark, pcap, mm)
    decoded, summary = run_decode(args.roceprobe, pcap, mm)
    for n in range(1, len(pkts) + 1):
        where = "frame %d" % n
        t, d = rows.get(n), decoded.get(n)
        if t is None or d is None:
            mm.add(where, "missing from %s" % ("tshark" if t is None else "decode"))
            continue
        if d["kind"] == "malformed":
            if not tshark_saw_damage(t):
                mm.add(where, "decode says malformed (%s); tshark sees nothing wrong"
                       % d.get("error"))
        else:
            compare(where, norm_decode(d), norm_tshark(t), "decode", mm)
        check_checksums(where, t, mm)
        check_icrc(n, pkts[n - 1], d, mm)
    check_summary(decoded, summary, pkts, mm)
    check_coverage(decoded, mm)
    check_snaplen(tmp, pcap, rows, decoded, args, mm)
    return len(pkts)


SNAPLEN = 128


def check_snaplen(tmp, pcap, full_rows, full_decoded, args, mm):
    """The sample again, every record cut to 128 bytes (orig_len kept), as
    `tcpdump -s 128` writes it: decode's payload_len must still be the wire's,
    i.e. tshark's data.len of the whole frame minus the pad, and tshark must
    read the same UDP length from the cut frame as from the whole one.
    Returns how many cut RoCE frames were compared."""
    cut = os.path.join(tmp, "sample-snap%d.pcap" % SNAPLEN)
    write_pcap(cut, read_pcap(pcap)["recs"], snaplen=SNAPLEN)
    rows = run_tshark(args.tshark, cut, mm)
    decoded, _ = run_decode(args.roceprobe, cut, mm)
    compared = 0
    for n, d in sorted(decoded.items()):
        full, t, tf = full_decoded.get(n, {}), rows.get(n), full_rows.get(n)
        if d["kind"] not in ("roce", "cnp") or t is None or tf is None or num(t["cap_len"]) >= num(t["len"]):
            continue
        where = "snaplen %d frame %d" % (SNAPLEN, n)
        if full.get("bth", {}).get("dqpn") in (0, 1):  # tshark: a MAD, no data.len
            continue
        pad = d["bth"]["pad"]
        want = (num(tf["data_len"]) or 0) - pad if num(tf["data_len"]) else 0
        if d.get("payload_len") != want:
            mm.add(where, "payload_len: decode %s, tshark data.len of the whole frame - pad %d"
                   % (d.get("payload_len"), want))
        if num(t["udp_len"]) != num(tf["udp_len"]):
            mm.add(where, "tshark: udp.length %s cut, %s whole" % (t["udp_len"], tf["udp_len"]))
        if "icrc" in d:
            mm.add(where, "decode claims an ICRC for a cut frame")
        compared += 1
    if compared < 4:
        mm.add("snaplen", "only %d RoCE frames of the sample are longer than %d bytes" % (compared, SNAPLEN))
    print("snaplen %d: payload_len of %d cut RoCE frames compared" % (SNAPLEN, compared))
    return compared


def check_vectors(args, tmp, mm):
    vecs = load_vectors(args.vectors)
    pcap = os.path.join(tmp, "vectors.pcap")
    write_pcap(pcap, [f for _, f, _ in vecs])
    rows = run_tshark(args.tshark, pcap, mm)
    for n, (name, frame, kv) in enumerate(vecs, 1):
        t = rows.get(n)
        if t is None:
            mm.add(name, "missing from tshark")
            continue
        compare("vector " + name, norm_vector(frame, kv), norm_tshark(t), "vector", mm)
        check_checksums("vector " + name, t, mm)
    return len(vecs)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tshark", default=shutil.which("tshark"))
    ap.add_argument("--vectors", help="also check tests/data/vectors.txt against tshark")
    ap.add_argument("mksample")
    ap.add_argument("roceprobe")
    args = ap.parse_args()
    if not args.tshark or not os.access(args.tshark, os.X_OK):
        print("tshark not found; skipping")
        return SKIP
    mm = Mismatches()
    with tempfile.TemporaryDirectory(prefix="rp-tshark-") as tmp:
        frames = check_sample(args, tmp, mm)
        nvec = check_vectors(args, tmp, mm) if args.vectors else 0
    if mm.lines:
        print("%d mismatch(es)" % len(mm.lines))
        return 1
    print("tshark and roceprobe decode agree on all %d sample frames; Python ICRC agrees"
          % frames + ("; tshark agrees with all %d vectors" % nvec if nvec else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
