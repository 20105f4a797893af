#!/usr/bin/python3
"""rx.sh's input: gen's capture with every probe seq k * STRIDE (k = the frame's place in
its flow) and the ICRC computed again by scapy (contrib roce; IPv4 only).

Why: net_pcap infinite_rx replays the same frames over and over. With gen's seqs 0..N-1
every frame after the first round is a duplicate of a seq in the 4096-seq window
(lib/stats/seq.h), and a duplicate adds no latency sample and no payload: the bench
measured the duplicate path. With seqs STRIDE = 4097 apart the first round is a run of
gaps, and in every later round frame k's seq lies (N - 1 - k) * 4097 + 1 below the next
expected one: more than the window for every k but the last, so it counts as a late
(stale) arrival, a new probe: its latency sample and payload are accounted as in a live
run. One frame per round (the flow's last) stays a duplicate.

Usage: rx_input.py IN.pcap OUT.pcap (prints "frames flows")."""
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "lib"))
from check import read_pcap, write_pcap  # noqa: E402
from scapy.contrib.roce import BTH  # noqa: E402
from scapy.layers.l2 import Ether  # noqa: E402

STRIDE = 4097  # RP_SEQ_WINDOW + 1
PROBE_MAGIC = 0x52505242  # lib/wire/probe.h: RP_PROBE_MAGIC, "RPRB"


def main():
    src, dst = sys.argv[1], sys.argv[2]
    cap = read_pcap(src)
    out, nth = [], {}
    for ts, fr, wire in cap["recs"]:
        p = Ether(fr)
        pay = bytes(p[BTH].payload)
        # SEND ONLY: the probe starts the payload; scapy's BTH keeps the ICRC in its last 4 bytes.
        magic, flow, seq = struct.unpack(">IIQ", pay[:16])
        if magic != PROBE_MAGIC or seq != nth.get(flow, 0):
            sys.exit(f"rx_input.py: frame {len(out)}: not a probe in seq order (flow {flow} seq {seq})")
        if bytes(Ether(fr)) != fr:  # scapy's ICRC of the unchanged frame is gen's
            sys.exit(f"rx_input.py: frame {len(out)}: scapy's ICRC differs from gen's")
        k = nth.get(flow, 0)
        nth[flow] = k + 1
        p[BTH].remove_payload()
        p = p / (pay[:8] + struct.pack(">Q", k * STRIDE) + pay[16:])
        p[BTH].icrc = None
        out.append((ts, bytes(p), wire))
    write_pcap(dst, out, nano=cap["nano"])
    print(len(out), len(nth))


main()
