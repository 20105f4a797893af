#!/usr/bin/python3
"""What tshark 4.0 says of roceprobe's captures at the default --snaplen 128 and at the
snaplens the help and README name as whole-frame.

  h1 .. h8 --64 KiB WRITEs--> leaf --> h0      (profiles/incast-8to1.yaml, 2 messages a
                                               sender, lab --capture: virtual time)

A 64 KiB WRITE at MTU 4096 is 16 frames: FIRST (RETH) 14 + 20 + 8 + 12 + 16 + 4096 + 4 =
4170 B, MIDDLE/LAST 4154 B (no RETH). h0's capture holds 8 x 2 x 16 = 256 data frames.
  128:   every data frame is cut (cap_len 128 < frame.len) and tshark's Info column says
         "Invalid Packet Length from LRH! [Malformed Packet]" for all 256, yet the BTH
         (opcode, PSN) dissects and tshark's own _ws.malformed matches no frame;
  4169:  the 8 x 2 = 16 FIRST frames (4170 B) are still cut and flagged, the 240 others not;
  4170:  the largest frame whole (what capture --help names): none flagged;
  65535: none flagged.
capture --help and run --help say so (the words the user would search for).
"""
import os
import subprocess
import sys
import tempfile

ROCEPROBE, PROFILES, TSHARK = sys.argv[1], sys.argv[2], sys.argv[3]
FLAG = "Invalid Packet Length from LRH"
failed = []


def expect(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failed.append(what)


def capture(tmp, snaplen):
    out = os.path.join(tmp, f"s{snaplen}")
    args = [ROCEPROBE, "lab", os.path.join(PROFILES, "incast-8to1.yaml"), "-o", out, "-q", "--capture",
            "--set", "traffic.0.messages=2"]
    if snaplen != 128:
        args += ["--snaplen", str(snaplen)]
    p = subprocess.run(args, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    return os.path.join(out, "capture-h0.pcap")


def frames(pcap, *extra):
    p = subprocess.run([TSHARK, "-r", pcap, "-o", "gui.column.format:Info,%i", *extra, "-T", "fields", "-E",
                        "separator=|", "-e", "frame.len", "-e", "frame.cap_len", "-e", "infiniband.bth.opcode",
                        "-e", "infiniband.bth.psn", "-e", "_ws.col.Info"],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    rows = [line.split("|", 4) for line in p.stdout.splitlines()]
    # RC RDMA WRITE FIRST 6, MIDDLE 7, LAST 8: the data frames (h0 also sends CNPs, 0x81)
    return [r for r in rows if r[2] in ("6", "7", "8")]


def malformed(pcap):
    p = subprocess.run([TSHARK, "-r", pcap, "-Y", "_ws.malformed"], capture_output=True, text=True, timeout=120)
    return len(p.stdout.splitlines())


with tempfile.TemporaryDirectory() as tmp:
    pcap = capture(tmp, 128)
    data = frames(pcap)
    expect(len(data) == 256, f"128: h0 holds 8 senders x 2 messages x 16 = 256 data frames ({len(data)})")
    expect(all(int(r[1]) == 128 < int(r[0]) for r in data), "128: every data frame cut: cap_len 128 < frame.len")
    flagged = [r for r in data if FLAG in r[4]]
    expect(len(flagged) == 256, f"128: tshark's Info flags all 256 \"{FLAG}! [Malformed Packet]\" ({len(flagged)})")
    expect(all(r[3] != "" for r in data), "128: the BTH still dissects (every PSN read)")
    expect(malformed(pcap) == 0, "128: tshark's _ws.malformed matches no frame (only the Info text says it)")
    for snaplen, want in ((4169, 16), (4170, 0), (65535, 0)):
        data = frames(capture(tmp, snaplen))
        flagged = [r for r in data if FLAG in r[4]]
        cut = [r for r in data if int(r[1]) < int(r[0])]
        expect(len(data) == 256 and len(flagged) == want and len(cut) == want,
               f"{snaplen}: {want} of 256 cut and flagged (the 8 x 2 FIRST frames of 4170 B at 4169) "
               f"({len(cut)} cut, {len(flagged)} flagged)")
    help_capture = subprocess.run([ROCEPROBE, "capture", "--help"], capture_output=True, text=True).stdout
    help_run = subprocess.run([ROCEPROBE, "run", "--help"], capture_output=True, text=True).stdout
    expect("Malformed Packet" in help_capture and "65535" in help_capture and "4170" in help_capture,
           "capture --help says why (Malformed Packet) and which snaplen avoids it (65535, 4170)")
    expect("Malformed" in help_run and "65535" in help_run, "run --help says so too")
sys.exit(1 if failed else 0)
