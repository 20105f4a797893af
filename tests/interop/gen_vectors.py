#!/usr/bin/python3
"""Known-answer frames for lib/wire, built by scapy (code nobody here wrote).

Regenerate (Debian's scapy 2.5; the pyenv python has no scapy):

    /usr/bin/python3 tests/interop/gen_vectors.py > tests/data/vectors.txt

Check that the committed file still comes from scapy (meson test suite
'interop', test 'vectors-from-scapy'):

    /usr/bin/python3 tests/interop/gen_vectors.py --check tests/data/vectors.txt

Output: one vector per line, `name|frame as hex|key=value key=value ...`;
lines starting with '#' are comments. Keys (all integers accept 0x...):

  kind        roce | cnp | pfc | pause
  eth_dst eth_src               MAC addresses
  vlan        0/1; with 1 also pcp, dei, vid
RoCE and CNP:
  l3          4 or 6
  src dst     IP addresses
  dscp ecn
  ttl ip_id df                  IPv4
  hop_limit flow_label          IPv6
  udp_sport udp_dport udp_csum  (udp_csum as on the wire; 0 = none)
  opcode se m pad tver pkey fecn becn dqpn ack_req psn
  ext         extended headers the opcode carries, in wire order, comma
              separated (deth,reth,atomic,aeth,atomic_ack,imm,ieth,cnp_pad)
              or none; then their values:
  reth_va reth_rkey reth_len  aeth_syndrome aeth_msn  imm  ieth
  deth_qkey deth_src_qp  atomic_va atomic_rkey atomic_swap_add
  atomic_compare  atomic_ack
  payload_off payload_len      payload without the BTH pad
  probe       0/1; with 1 also probe_flow probe_seq probe_ts
  icrc        the 4 ICRC bytes as on the wire, hex
PFC: enable (bit p = priority p), quanta (8 comma-separated values)
PAUSE: quanta

Frames are exactly what scapy builds. scapy pads MAC control frames to the
60-byte minimum but not IP frames: a RoCE frame shorter than 60 bytes stays
short here (lib/wire's builder pads it with zeros; the unit test compares the
first N bytes and checks the rest are zero).

ICRC: scapy computes it for IPv4 (checked here against roce_icrc.py on every
IPv4 vector); for IPv6 scapy 2.5 writes zeros, so roce_icrc.py computes it
and the frame is rebuilt with it (scapy then computes the UDP checksum over
the final bytes, ICRC included).
"""

import argparse
import difflib
import logging
import random
import struct
import sys
import os

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import roce_icrc  # noqa: E402

try:
    from scapy.all import Ether, Dot1Q, IP, IPv6, UDP, Raw, raw, conf
    from scapy.contrib.roce import BTH, AETH, CNPPadding
    from scapy.contrib.mac_control import (
        MACControlClassBasedFlowControl, MACControlPause)
except ImportError as e:  # meson treats exit 77 as a skip
    print("gen_vectors.py: scapy is missing (%s); use Debian's /usr/bin/python3 "
          "with python3-scapy" % e, file=sys.stderr)
    sys.exit(77)

conf.verb = 0
# scapy warns that it cannot compute the IPv6 ICRC; roce_icrc.py does.
logging.getLogger("scapy.runtime").setLevel(logging.ERROR)

ROCE_PORT = 4791
PROBE_MAGIC = 0x52505242

# Extended headers per opcode, in wire order (IBA vol 1, 9.2 / table 38),
# written down here independently of lib/wire/bth.c.
EXT = {
    0x00: [], 0x01: [], 0x02: [], 0x03: ["imm"], 0x04: [], 0x05: ["imm"],
    0x06: ["reth"], 0x07: [], 0x08: [], 0x09: ["imm"], 0x0A: ["reth"],
    0x0B: ["reth", "imm"], 0x0C: ["reth"],
    0x0D: ["aeth"], 0x0E: [], 0x0F: ["aeth"], 0x10: ["aeth"], 0x11: ["aeth"],
    0x12: ["aeth", "atomic_ack"], 0x13: ["atomic"], 0x14: ["atomic"],
    0x16: ["ieth"], 0x17: ["ieth"],
    0x64: ["deth"], 0x65: ["deth", "imm"],
    0x81: ["cnp_pad"],
}
EXT_LEN = {"deth": 8, "reth": 16, "atomic": 28, "aeth": 4, "atomic_ack": 8,
           "imm": 4, "ieth": 4, "cnp_pad": 16}

MAC_A = "02:00:00:00:00:01"
MAC_B = "02:00:00:00:00:02"
MAC_C = "b8:ce:f6:12:34:56"
V4_A, V4_B, V4_C = "192.0.2.1", "192.0.2.2", "198.51.100.77"
V6_A, V6_B = "2001:db8::1", "2001:db8:0:1::2"


def payload_bytes(name, n):
    """n deterministic bytes that never start with the probe magic."""
    rnd = random.Random("payload:" + name)
    data = bytearray(rnd.getrandbits(8) for _ in range(n))
    if n >= 4 and struct.unpack("!I", data[:4])[0] == PROBE_MAGIC:
        data[0] ^= 0xFF
    return bytes(data)


def probe_bytes(flow, seq, ts, extra):
    return struct.pack("!IIQQ", PROBE_MAGIC, flow, seq, ts) + extra


def ext_bytes(ext, h):
    """The extended headers that scapy has no class for, packed by hand."""
    out = b""
    for e in ext:
        if e == "deth":
            out += struct.pack("!II", h["deth_qkey"], h["deth_src_qp"] & 0xFFFFFF)
        elif e == "reth":
            out += struct.pack("!QII", h["reth_va"], h["reth_rkey"], h["reth_len"])
        elif e == "atomic":
            out += struct.pack("!QIQQ", h["atomic_va"], h["atomic_rkey"],
                               h["atomic_swap_add"], h["atomic_compare"])
        elif e == "atomic_ack":
            out += struct.pack("!Q", h["atomic_ack"])
        elif e == "imm":
            out += struct.pack("!I", h["imm"])
        elif e == "ieth":
            out += struct.pack("!I", h["ieth"])
    return out


def icrc_field(wire):
    """scapy's FCSField packs its value big endian; this puts `wire` on the wire."""
    return struct.unpack("!I", wire)[0]


class Roce:
    """One RoCEv2 vector: keyword arguments name the fields; the rest default."""

    DEFAULTS = dict(
        l3=4, eth_dst=MAC_B, eth_src=MAC_A, vlan=None, src=None, dst=None,
        dscp=26, ecn=2, ttl=64, ip_id=0, df=1, hop_limit=64, flow_label=0,
        udp_sport=0xC000, udp_csum=0,
        se=0, m=0, tver=0, pkey=0xFFFF, fecn=0, becn=0, dqpn=0x11, ack_req=0,
        psn=0, payload=b"",
    )

    def __init__(self, name, opcode, **kw):
        self.name = name
        self.opcode = opcode
        self.ext = EXT[opcode]
        unknown = set(kw) - set(self.DEFAULTS) - self.ext_keys()
        if unknown:
            raise KeyError("%s: unknown keys %s" % (name, sorted(unknown)))
        self.f = dict(self.DEFAULTS)
        self.f.update(kw)
        if self.f["src"] is None:
            self.f["src"] = V4_A if self.f["l3"] == 4 else V6_A
        if self.f["dst"] is None:
            self.f["dst"] = V4_B if self.f["l3"] == 4 else V6_B
        self.pad = (4 - len(self.f["payload"]) % 4) % 4 if self.ext != ["cnp_pad"] else 0

    def ext_keys(self):
        keys = {"deth": ["deth_qkey", "deth_src_qp"],
                "reth": ["reth_va", "reth_rkey", "reth_len"],
                "atomic": ["atomic_va", "atomic_rkey", "atomic_swap_add", "atomic_compare"],
                "aeth": ["aeth_syndrome", "aeth_msn"],
                "atomic_ack": ["atomic_ack"], "imm": ["imm"], "ieth": ["ieth"],
                "cnp_pad": []}
        return {k for e in self.ext for k in keys[e]}

    def _l2(self):
        f = self.f
        eth = Ether(dst=f["eth_dst"], src=f["eth_src"])
        if f["vlan"] is not None:
            pcp, dei, vid = f["vlan"]
            eth = eth / Dot1Q(prio=pcp, id=dei, vlan=vid)
        return eth

    def _l3(self):
        f = self.f
        tos = f["dscp"] << 2 | f["ecn"]
        if f["l3"] == 4:
            return IP(src=f["src"], dst=f["dst"], tos=tos, ttl=f["ttl"], id=f["ip_id"],
                      flags="DF" if f["df"] else 0)
        return IPv6(src=f["src"], dst=f["dst"], tc=tos, fl=f["flow_label"],
                    hlim=f["hop_limit"])

    def _transport(self, icrc):
        f = self.f
        bth = BTH(opcode=self.opcode, solicited=f["se"], migreq=f["m"], padcount=self.pad,
                  version=f["tver"], pkey=f["pkey"], fecn=f["fecn"], becn=f["becn"],
                  dqpn=f["dqpn"], ackreq=f["ack_req"], psn=f["psn"], icrc=icrc)
        if self.ext == ["cnp_pad"]:
            return bth / CNPPadding()
        head = self.ext
        pkt = bth
        if "aeth" in head:
            # scapy's own AETH class; whatever precedes it (nothing, per the
            # table) and follows it is packed by hand.
            i = head.index("aeth")
            if head[:i]:
                pkt = pkt / Raw(ext_bytes(head[:i], f))
            pkt = pkt / AETH(syndrome=f["aeth_syndrome"], msn=f["aeth_msn"])
            head = head[i + 1:]
        rest = ext_bytes(head, f) + f["payload"] + b"\0" * self.pad
        if rest:
            pkt = pkt / Raw(rest)
        return pkt

    def build(self):
        f = self.f
        csum = None if f["udp_csum"] == "auto" else 0
        udp = UDP(sport=f["udp_sport"], dport=ROCE_PORT, chksum=csum)
        frame = raw(self._l2() / self._l3() / udp / self._transport(None))
        l3_off = 18 if f["vlan"] is not None else 14
        covered, wire = roce_icrc.icrc_region(frame[l3_off:])
        mine = roce_icrc.icrc_wire(covered)
        if f["l3"] == 4:
            if wire != mine:
                raise AssertionError("%s: scapy ICRC %s, roce_icrc.py %s"
                                     % (self.name, wire.hex(), mine.hex()))
        else:
            if wire != b"\0\0\0\0":
                raise AssertionError("%s: scapy wrote a non-zero IPv6 ICRC; "
                                     "update this script" % self.name)
            frame = raw(self._l2() / self._l3() / udp / self._transport(icrc_field(mine)))
        if not roce_icrc.icrc_check(frame[l3_off:]):
            raise AssertionError("%s: ICRC does not verify" % self.name)
        self.frame = frame
        self.l3_off = l3_off
        self.icrc = mine
        return self

    def keys(self):
        f = self.f
        kind = "cnp" if self.opcode == 0x81 else "roce"
        out = [("kind", kind), ("eth_dst", f["eth_dst"]), ("eth_src", f["eth_src"])]
        out += self._vlan_keys(f["vlan"])
        out += [("l3", f["l3"]), ("src", f["src"]), ("dst", f["dst"]),
                ("dscp", f["dscp"]), ("ecn", f["ecn"])]
        udp_off = self.l3_off + (20 if f["l3"] == 4 else 40)
        if f["l3"] == 4:
            out += [("ttl", f["ttl"]), ("ip_id", f["ip_id"]), ("df", f["df"])]
        else:
            out += [("hop_limit", f["hop_limit"]), ("flow_label", "0x%05x" % f["flow_label"])]
        wire_csum = struct.unpack("!H", self.frame[udp_off + 6:udp_off + 8])[0]
        out += [("udp_sport", f["udp_sport"]), ("udp_dport", ROCE_PORT),
                ("udp_csum", "0x%04x" % wire_csum)]
        out += [("opcode", "0x%02x" % self.opcode), ("se", f["se"]), ("m", f["m"]),
                ("pad", self.pad), ("tver", f["tver"]), ("pkey", "0x%04x" % f["pkey"]),
                ("fecn", f["fecn"]), ("becn", f["becn"]), ("dqpn", "0x%06x" % f["dqpn"]),
                ("ack_req", f["ack_req"]), ("psn", "0x%06x" % f["psn"])]
        out.append(("ext", ",".join(self.ext) if self.ext else "none"))
        out += self._ext_keys()
        payload_off = udp_off + 8 + 12 + sum(EXT_LEN[e] for e in self.ext)
        if self.ext == ["cnp_pad"]:
            payload_len = 0
        else:
            payload_len = len(f["payload"])
        out += [("payload_off", payload_off), ("payload_len", payload_len)]
        out += self._probe_keys()
        out.append(("icrc", self.icrc.hex()))
        return out

    @staticmethod
    def _vlan_keys(vlan):
        if vlan is None:
            return [("vlan", 0)]
        pcp, dei, vid = vlan
        return [("vlan", 1), ("pcp", pcp), ("dei", dei), ("vid", vid)]

    def _ext_keys(self):
        f = self.f
        fmt = {"reth_va": "0x%016x", "reth_rkey": "0x%08x", "reth_len": "%d",
               "aeth_syndrome": "0x%02x", "aeth_msn": "0x%06x", "imm": "0x%08x",
               "ieth": "0x%08x", "deth_qkey": "0x%08x", "deth_src_qp": "0x%06x",
               "atomic_va": "0x%016x", "atomic_rkey": "0x%08x",
               "atomic_swap_add": "0x%016x", "atomic_compare": "0x%016x",
               "atomic_ack": "0x%016x"}
        order = ["deth_qkey", "deth_src_qp", "reth_va", "reth_rkey", "reth_len",
                 "atomic_va", "atomic_rkey", "atomic_swap_add", "atomic_compare",
                 "aeth_syndrome", "aeth_msn", "atomic_ack", "imm", "ieth"]
        return [(k, fmt[k] % f[k]) for k in order if k in self.ext_keys()]

    def _probe_keys(self):
        p = self.f["payload"]
        if len(p) >= 24 and struct.unpack("!I", p[:4])[0] == PROBE_MAGIC:
            _, flow, seq, ts = struct.unpack("!IIQQ", p[:24])
            return [("probe", 1), ("probe_flow", flow), ("probe_seq", seq), ("probe_ts", ts)]
        return [("probe", 0)]


class MacCtl:
    def __init__(self, name, src, pause=None, pfc=None):
        self.name = name
        self.src = src
        self.pause = pause
        self.pfc = pfc  # (enable bits, [8 quanta])

    def build(self):
        eth = Ether(dst="01:80:c2:00:00:01", src=self.src)
        if self.pause is not None:
            pkt = eth / MACControlPause(pause_time=self.pause)
        else:
            enable, quanta = self.pfc
            kw = {}
            for p in range(8):
                kw["c%d_enabled" % p] = (enable >> p) & 1
                kw["c%d_pause_time" % p] = quanta[p]
            pkt = eth / MACControlClassBasedFlowControl(**kw)
        self.frame = raw(pkt)
        if len(self.frame) != 60:
            raise AssertionError("%s: scapy built %d bytes, not 60" % (self.name, len(self.frame)))
        return self

    def keys(self):
        out = [("kind", "pause" if self.pause is not None else "pfc"),
               ("eth_dst", "01:80:c2:00:00:01"), ("eth_src", self.src), ("vlan", 0)]
        if self.pause is not None:
            return out + [("quanta", self.pause)]
        enable, quanta = self.pfc
        return out + [("enable", "0x%02x" % enable),
                      ("quanta", ",".join(str(q) for q in quanta))]


def roce_vectors():
    rd = payload_bytes
    v = []
    # --- IPv4 SEND, pads 0..3, the empty (58-byte, unpadded) frame ------
    v.append(Roce("v4_send_only", 0x04, payload=rd("v4_send_only", 64), ack_req=1))
    v.append(Roce("v4_send_only_pad1", 0x04, payload=rd("p1", 63), psn=0x000123, dqpn=0x000102))
    v.append(Roce("v4_send_only_pad2", 0x04, payload=rd("p2", 2), psn=0xABCDEF, se=1))
    v.append(Roce("v4_send_only_pad3", 0x04, payload=rd("p3", 1), dscp=0, ecn=0, ttl=1))
    v.append(Roce("v4_send_only_empty", 0x04, payload=b"", ack_req=1, psn=7))
    v.append(Roce("v4_send_first", 0x00, payload=rd("sf", 256), psn=0x00FFFE, dqpn=0x0000D2))
    v.append(Roce("v4_send_middle", 0x01, payload=rd("sm", 256), psn=0x00FFFF, dqpn=0x0000D2))
    v.append(Roce("v4_send_last", 0x02, payload=rd("sl", 77), psn=0x010000, dqpn=0x0000D2,
                  se=1, ack_req=1))
    v.append(Roce("v4_send_last_imm", 0x03, payload=rd("sli", 10), imm=0x00C0FFEE, se=1,
                  ack_req=1, psn=0x010001))
    v.append(Roce("v4_send_only_imm", 0x05, payload=rd("soi", 33), imm=0xDEADBEEF, se=1,
                  ack_req=1, ip_id=0x1234, df=0))
    v.append(Roce("v4_send_only_inv", 0x17, payload=rd("sinv", 20), ieth=0x0BADF00D,
                  ack_req=1))
    v.append(Roce("v4_send_last_inv", 0x16, payload=rd("slinv", 5), ieth=0x00000001,
                  ack_req=1))
    # --- RDMA WRITE with RETH ---------------------------------------------
    v.append(Roce("v4_write_only", 0x0A, payload=rd("wo", 100), reth_va=0x00007F1234567000,
                  reth_rkey=0x1234ABCD, reth_len=100, ack_req=1, psn=0x000042,
                  udp_sport=0xE5A1))
    v.append(Roce("v4_write_first", 0x06, payload=rd("wf", 1024), reth_va=0xFFFF800000001000,
                  reth_rkey=0x00000011, reth_len=2051, psn=0xFFFFFE, dqpn=0xFFFFFF))
    v.append(Roce("v4_write_middle", 0x07, payload=rd("wm", 1024), psn=0xFFFFFF,
                  dqpn=0xFFFFFF))
    v.append(Roce("v4_write_last", 0x08, payload=rd("wl", 3), psn=0x000000, dqpn=0xFFFFFF,
                  ack_req=1))
    v.append(Roce("v4_write_last_imm", 0x09, payload=rd("wli", 9), imm=0x12345678,
                  ack_req=1, se=1))
    v.append(Roce("v4_write_only_imm", 0x0B, payload=rd("woi", 31), reth_va=0x1000,
                  reth_rkey=0xFFFFFFFF, reth_len=31, imm=0x80000001, ack_req=1))
    v.append(Roce("v4_write_only_zero", 0x0A, payload=b"", reth_va=0, reth_rkey=0x42,
                  reth_len=0, ack_req=1))
    # --- READ ----------------------------------------------------------------
    v.append(Roce("v4_read_request", 0x0C, reth_va=0x0000560000ABC000, reth_rkey=0x00A0B0C0,
                  reth_len=8192, ack_req=1, psn=0x000300))
    v.append(Roce("v4_read_resp_first", 0x0D, payload=rd("rrf", 1024), aeth_syndrome=0x1F,
                  aeth_msn=0x000010, psn=0x000300, eth_dst=MAC_A, eth_src=MAC_B,
                  src=V4_B, dst=V4_A))
    v.append(Roce("v4_read_resp_middle", 0x0E, payload=rd("rrm", 1024), psn=0x000301,
                  eth_dst=MAC_A, eth_src=MAC_B, src=V4_B, dst=V4_A))
    v.append(Roce("v4_read_resp_last", 0x0F, payload=rd("rrl", 6), aeth_syndrome=0x1F,
                  aeth_msn=0x000011, psn=0x000302, eth_dst=MAC_A, eth_src=MAC_B,
                  src=V4_B, dst=V4_A))
    v.append(Roce("v4_read_resp_only", 0x10, payload=rd("rro", 17), aeth_syndrome=0x00,
                  aeth_msn=0xFFFFFF, psn=0x000303))
    # --- ACK / NAK (scapy's AETH) -------------------------------------------
    v.append(Roce("v4_ack", 0x11, aeth_syndrome=0x1F, aeth_msn=0x000005, psn=0x000042,
                  eth_dst=MAC_A, eth_src=MAC_B, src=V4_B, dst=V4_A))
    v.append(Roce("v4_ack_credits0", 0x11, aeth_syndrome=0x00, aeth_msn=0x123456,
                  psn=0xFFFFFF))
    v.append(Roce("v4_nak_psn_seq", 0x11, aeth_syndrome=0x60, aeth_msn=0x000007,
                  psn=0x000100))
    v.append(Roce("v4_nak_remote_access", 0x11, aeth_syndrome=0x62, aeth_msn=0x000008,
                  psn=0x000101))
    v.append(Roce("v4_rnr_nak", 0x11, aeth_syndrome=0x2E, aeth_msn=0x000009, psn=0x000102,
                  dscp=46, ecn=0))
    # --- atomics -------------------------------------------------------------
    v.append(Roce("v4_fetch_add", 0x14, atomic_va=0x00007F0000001008, atomic_rkey=0x0000BEEF,
                  atomic_swap_add=1, atomic_compare=0, ack_req=1, psn=0x000500))
    v.append(Roce("v4_cmp_swap", 0x13, atomic_va=0x2000, atomic_rkey=0x1,
                  atomic_swap_add=0xFEDCBA9876543210, atomic_compare=0x0123456789ABCDEF,
                  ack_req=1, psn=0x000501))
    v.append(Roce("v4_atomic_ack", 0x12, aeth_syndrome=0x1F, aeth_msn=0x000021,
                  atomic_ack=0x0000000000000029, psn=0x000500))
    # --- UD ------------------------------------------------------------------
    v.append(Roce("v4_ud_send_only", 0x64, payload=rd("ud", 50), deth_qkey=0x11111111,
                  deth_src_qp=0x000001, dqpn=0x000001, pkey=0xFFFF))
    v.append(Roce("v4_ud_send_only_imm", 0x65, payload=rd("udi", 7), deth_qkey=0x80010000,
                  deth_src_qp=0xABCDEF, imm=0x00000002, dqpn=0x000123, se=1))
    # --- CNP (scapy's CNPPadding) ---------------------------------------------
    v.append(Roce("v4_cnp", 0x81, becn=1, dqpn=0x0000D2, dscp=48, ecn=0, udp_sport=0,
                  eth_dst=MAC_A, eth_src=MAC_B, src=V4_B, dst=V4_A))
    v.append(Roce("v4_cnp_fecn_psn", 0x81, becn=1, fecn=0, dqpn=0xABCDEF, dscp=48, ecn=1,
                  udp_sport=0xC123, psn=0x000001, pkey=0xFFFF))
    # --- field coverage: ECN, DSCP, TTL, pkey, FECN/BECN, M, UDP checksum ----
    v.append(Roce("v4_ecn_ce", 0x04, payload=rd("ce", 40), ecn=3, dscp=26))
    v.append(Roce("v4_ecn_ect1", 0x04, payload=rd("ect1", 40), ecn=1, dscp=10, ttl=255))
    v.append(Roce("v4_fecn_becn", 0x0A, payload=rd("fb", 12), fecn=1, becn=1, ecn=3,
                  reth_va=0xABCDEF, reth_rkey=0x77, reth_len=12, ack_req=1))
    v.append(Roce("v4_pkey_m", 0x04, payload=rd("pk", 8), pkey=0x8001, m=1, dscp=63, ecn=3,
                  ttl=0))
    v.append(Roce("v4_pkey_limited", 0x02, payload=rd("pkl", 14), pkey=0x7FFF, se=1, m=1,
                  ack_req=1))
    v.append(Roce("v4_udp_csum", 0x04, payload=rd("uc", 45), udp_csum="auto",
                  udp_sport=0xFFFF, ip_id=0xFFFF))
    v.append(Roce("v4_udp_csum_write", 0x0A, payload=rd("ucw", 2), udp_csum="auto",
                  reth_va=0x10, reth_rkey=0x20, reth_len=2, src=V4_C, dst=V4_A))
    # --- VLAN ------------------------------------------------------------------
    v.append(Roce("v4_vlan_p3_v100", 0x04, payload=rd("vl", 64), vlan=(3, 0, 100)))
    v.append(Roce("v4_vlan_p7_v4094_dei", 0x0A, payload=rd("vl7", 21), vlan=(7, 1, 4094),
                  reth_va=0x1, reth_rkey=0x2, reth_len=21))
    v.append(Roce("v4_vlan_prio_tagged", 0x11, vlan=(5, 0, 0), aeth_syndrome=0x1F,
                  aeth_msn=0x000003))
    v.append(Roce("v4_vlan_cnp", 0x81, vlan=(6, 0, 1), becn=1, dqpn=0x000042, dscp=48,
                  udp_sport=0))
    v.append(Roce("v4_vlan_empty", 0x04, vlan=(3, 0, 100), payload=b""))
    # --- probe payloads (roceprobe's own layout, carried by scapy) ------------
    v.append(Roce("v4_probe_write", 0x0A, payload=probe_bytes(7, 123456789, 1700000000123456789,
                                                              rd("pr", 40)),
                  reth_va=0x7F0000000000, reth_rkey=0x1001, reth_len=64, ack_req=1))
    v.append(Roce("v4_probe_send_pad", 0x04, payload=probe_bytes(0xFFFFFFFF, 0xFFFFFFFFFFFFFFFF,
                                                                 1, b"\x01"),
                  ack_req=1))
    # --- IPv6 (ICRC from roce_icrc.py) ---------------------------------------
    v.append(Roce("v6_send_only", 0x04, l3=6, payload=rd("v6so", 64), flow_label=0x12345,
                  udp_csum="auto", ack_req=1))
    v.append(Roce("v6_send_only_nocsum", 0x04, l3=6, payload=rd("v6nc", 13), flow_label=0,
                  hop_limit=1, dscp=0, ecn=0))
    v.append(Roce("v6_write_only", 0x0A, l3=6, payload=rd("v6wo", 200), flow_label=0xFFFFF,
                  reth_va=0x00007F1234567000, reth_rkey=0x1234ABCD, reth_len=200,
                  udp_csum="auto", hop_limit=255, ecn=3, dscp=34))
    v.append(Roce("v6_ack", 0x11, l3=6, aeth_syndrome=0x1F, aeth_msn=0x000100,
                  flow_label=0x00ABC, udp_csum="auto", psn=0x123456))
    v.append(Roce("v6_nak", 0x11, l3=6, aeth_syndrome=0x60, aeth_msn=0x000101,
                  flow_label=0x00ABC, psn=0x123457))
    v.append(Roce("v6_cnp", 0x81, l3=6, becn=1, dqpn=0x0000D2, dscp=48, ecn=1, udp_sport=0,
                  flow_label=0x54321, udp_csum="auto"))
    v.append(Roce("v6_vlan_send_imm", 0x05, l3=6, vlan=(3, 0, 100), payload=rd("v6i", 3),
                  imm=0xFEEDFACE, flow_label=0x00001, fecn=1, becn=1, se=1, ack_req=1,
                  udp_csum="auto"))
    v.append(Roce("v6_ud_send", 0x64, l3=6, payload=rd("v6ud", 256), deth_qkey=0x11111111,
                  deth_src_qp=0x000005, dqpn=0x000001, flow_label=0x3FFFF))
    v.append(Roce("v6_read_request", 0x0C, l3=6, reth_va=0x1000, reth_rkey=0x55,
                  reth_len=1 << 31, ack_req=1, udp_csum="auto"))
    v.append(Roce("v6_empty", 0x04, l3=6, payload=b"", udp_csum="auto"))
    return v


def macctl_vectors():
    q = [0] * 8
    p34 = list(q)
    p34[3], p34[4] = 65535, 256
    allq = [1, 2, 3, 0x100, 0x7FFF, 0x8000, 0xFFFE, 0xFFFF]
    xon3 = list(q)
    stale = list(q)
    stale[0], stale[5] = 0xFFFF, 0x1234  # quanta for disabled priorities stay on the wire
    return [
        MacCtl("pfc_p3_p4", MAC_C, pfc=(0x18, p34)),
        MacCtl("pfc_all", MAC_A, pfc=(0xFF, allq)),
        MacCtl("pfc_xon_p3", MAC_B, pfc=(0x08, xon3)),
        MacCtl("pfc_disabled_quanta", MAC_C, pfc=(0x00, stale)),
        MacCtl("pause_ffff", MAC_C, pause=0xFFFF),
        MacCtl("pause_zero", MAC_A, pause=0),
        MacCtl("pause_one", MAC_B, pause=1),
    ]


def render():
    lines = ["# Generated by tests/interop/gen_vectors.py from scapy %s; do not edit."
             % __import__("scapy").__version__,
             "# name|frame hex|expected fields (see the script's docstring)"]
    names = set()
    for vec in roce_vectors() + macctl_vectors():
        vec.build()
        if vec.name in names:
            raise AssertionError("duplicate name " + vec.name)
        names.add(vec.name)
        kv = " ".join("%s=%s" % (k, val) for k, val in vec.keys())
        lines.append("%s|%s|%s" % (vec.name, vec.frame.hex(), kv))
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", metavar="VECTORS",
                    help="regenerate and compare with this file; exit 1 on a difference")
    args = ap.parse_args()
    text = render()
    if not args.check:
        sys.stdout.write(text)
        return 0
    with open(args.check) as fh:
        old = fh.read()
    if old == text:
        print("%s: %d vectors, identical to what scapy builds now"
              % (args.check, text.count("\n") - 2))
        return 0
    sys.stdout.writelines(difflib.unified_diff(old.splitlines(True), text.splitlines(True),
                                               args.check, "scapy now"))
    return 1


if __name__ == "__main__":
    sys.exit(main())
