"""RoCEv2 invariant CRC, re-implemented in Python from Linux's
drivers/infiniband/sw/rxe/rxe_icrc.c (and IBA annex A17), independently of
lib/wire and of scapy.

The CRC runs over: 8 bytes of 0xFF (standing in for the LRH), then the IP
header, UDP header, BTH and everything after it up to and including the pad,
with the variant fields set to all ones:
  IPv4: TOS, TTL, header checksum
  IPv6: the first 4 bytes keep the version nibble, the rest (traffic class,
        flow label) become ones; hop limit
  UDP:  checksum
  BTH:  byte 4 (FECN, BECN, 6 reserved bits)
The value is zlib's CRC-32 and goes on the wire least significant byte first.

Used by gen_vectors.py (cross-checked against scapy on every IPv4 vector) and
by tshark_check.py (to check `roceprobe decode`'s icrc/icrc_ok).
"""

import struct
import zlib

ICRC_LEN = 4
UDP_HLEN = 8
BTH_LEN = 12
IPV6_HLEN = 40
CRC32_RESIDUE = 0x2144DF1C  # crc32(message + its CRC stored LSB first)


def _masked_headers(l3):
    """A masked copy of l3 (bytes from the IP header on); raises ValueError
    when it is not IPv4/IPv6 or too short for IP + UDP + BTH."""
    if not l3:
        raise ValueError("empty L3")
    b = bytearray(l3)
    version = b[0] >> 4
    if version == 4:
        ihl = (b[0] & 0x0F) * 4
        if ihl < 20:
            raise ValueError("IPv4 IHL below 5")
        udp = ihl
        if len(b) < udp + UDP_HLEN + BTH_LEN:
            raise ValueError("too short for IPv4 + UDP + BTH")
        b[1] = 0xFF                 # TOS (DSCP + ECN)
        b[8] = 0xFF                 # TTL
        b[10:12] = b"\xff\xff"      # header checksum
    elif version == 6:
        udp = IPV6_HLEN
        if len(b) < udp + UDP_HLEN + BTH_LEN:
            raise ValueError("too short for IPv6 + UDP + BTH")
        b[0] = 0x6F                 # version 6, traffic class high nibble ones
        b[1:4] = b"\xff\xff\xff"    # traffic class low nibble, flow label
        b[7] = 0xFF                 # hop limit
    else:
        raise ValueError("IP version %d" % version)
    b[udp + 6:udp + 8] = b"\xff\xff"    # UDP checksum
    b[udp + UDP_HLEN + 4] = 0xFF        # BTH: FECN, BECN, reserved
    return bytes(b)


def icrc_value(l3):
    """The ICRC as a number, over l3 = IP header .. end of pad (no ICRC)."""
    return zlib.crc32(b"\xff" * 8 + _masked_headers(l3)) & 0xFFFFFFFF


def icrc_wire(l3):
    """The 4 ICRC bytes as they go on the wire (LSB first)."""
    return struct.pack("<I", icrc_value(l3))


def icrc_region(l3):
    """Given bytes from the IP header to the end of the frame (maybe with
    Ethernet padding after the IP datagram), returns (covered, wire_icrc):
    the bytes the ICRC covers and the 4 ICRC bytes found, using the IP length
    (IPv4 total length, IPv6 payload length) to find the end."""
    version = l3[0] >> 4
    if version == 4:
        end = struct.unpack("!H", l3[2:4])[0]
    elif version == 6:
        end = IPV6_HLEN + struct.unpack("!H", l3[4:6])[0]
    else:
        raise ValueError("IP version %d" % version)
    if end > len(l3) or end < ICRC_LEN:
        raise ValueError("IP length %d beyond the %d bytes present" % (end, len(l3)))
    return l3[:end - ICRC_LEN], l3[end - ICRC_LEN:end]


def icrc_check(l3):
    """True when the ICRC at the end of the IP datagram is right; also checks
    the residue property, which must agree."""
    covered, wire = icrc_region(l3)
    ok = icrc_wire(covered) == wire
    residue = zlib.crc32(b"\xff" * 8 + _masked_headers(covered) + wire) & 0xFFFFFFFF
    assert ok == (residue == CRC32_RESIDUE), "ICRC compare and residue disagree"
    return ok
