#!/usr/bin/python3
"""roceprobe capture against known answers, on a DPDK net_pcap port.

    IN.pcap --net_pcap rx_pcap (replayed once)--> [roceprobe capture] --> OUT.pcap
                                                        |
                          summary (--json) <------------+
    OUT.pcap --tshark / roceprobe decode / this script--> checks

The inputs are mksample's capture (every kind lib/wire builds) and a synthetic
mix built here with a known number of each kind: RoCE data (IPv4, IPv6,
VLAN, long and short), ACKs, NAKs, CNPs, CE-marked RoCE and non-RoCE frames,
PFC, PAUSE, ARP, TCP. `roceprobe decode --json` (the one frame parser) says
what every input frame is (learn()), the synthetic mix's counts are checked
against how it was built, and the script states what each run must write:
  all           every frame, bytes equal up to the snaplen, per-kind counts equal
  --filter      exactly the control (or RoCE + control) frames, in order
  --sample 10   every control frame and data frames 0, 10, 20, ... in order
  --count 100   the first 100 frames, then a stop
  rotation      several files, each readable and within the size, together = input
  SIGINT        a long run (infinite_rx) stopped by SIGINT: summary printed,
                file complete to its last record and readable by tshark
  SIGTERM, tiny ring   the writer cannot keep up: drops counted, offered =
                kept + dropped, the file holds exactly the kept frames, complete
  bad input     exit 2 with one line
  disk full     (/dev/full) exit 1, the write error in the summary and on stderr

usage: capture_check.py ROCEPROBE MKSAMPLE
"""
import glob
import json
import os
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from check import expect, finish, read_pcap, write_pcap  # noqa: E402

ROCEPROBE = sys.argv[1]
MKSAMPLE = sys.argv[2]
TSHARK = shutil.which("tshark")



# ---- pcap files ----

def write_pcap_us(path, frames):
    """Microsecond pcap, one microsecond apart from 1700000000 s, as most tools write it
    (net_pcap replays it); tests/lib/check.py writes it."""
    write_pcap(path, [(1700000000 * 10**9 + i * 1000, fr) for i, fr in enumerate(frames)])


# ---- frames ----

MAC_A, MAC_B, MAC_SW = bytes.fromhex("020000000001"), bytes.fromhex("020000000002"), bytes.fromhex("b8cef60000fe")


def eth(et, payload, vlan=None, src=MAC_A, dst=MAC_B):
    tag = struct.pack("!HH", 0x8100, (3 << 13) | vlan) if vlan is not None else b""
    fr = dst + src + tag + struct.pack("!H", et) + payload
    return fr + bytes(max(0, 60 - len(fr)))


def csum(b):
    s = sum(struct.unpack(f"!{len(b) // 2}H", b))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def ipv4(payload, proto=17, ecn=0, dscp=26):
    h = struct.pack("!BBHHHBBH4s4s", 0x45, dscp << 2 | ecn, 20 + len(payload), 1, 0x4000, 64, proto, 0,
                    bytes([192, 0, 2, 1]), bytes([192, 0, 2, 2]))
    return h[:10] + struct.pack("!H", csum(h)) + h[12:] + payload


def ipv6(payload, ecn=0, dscp=26):
    tc = dscp << 2 | ecn
    return struct.pack("!IHBB16s16s", 6 << 28 | tc << 20, len(payload), 17, 64,
                       bytes.fromhex("20010db8" + "00" * 11 + "01"), bytes.fromhex("20010db8" + "00" * 11 + "02")) + payload


def udp(payload, dport=4791, sport=49152):
    return struct.pack("!HHHH", sport, dport, 8 + len(payload), 0) + payload


def bth(opcode, psn, ext=b"", payload=b""):
    pad = (4 - len(payload) % 4) % 4
    return struct.pack("!BBHII", opcode, pad << 4, 0xFFFF, 0x12, psn) + ext + payload + bytes(pad) + bytes(4)


def roce(opcode, psn, ext=b"", size=64, v6=False, ecn=2, vlan=None):
    l4 = udp(bth(opcode, psn, ext, bytes((psn + i) & 0xFF for i in range(size))))
    return eth(0x86DD, ipv6(l4, ecn), vlan) if v6 else eth(0x0800, ipv4(l4, ecn=ecn), vlan)


def ack(psn, syndrome):
    return roce(0x11, psn, bytes([syndrome]) + (psn & 0xFFFFFF).to_bytes(3, "big"), size=0)


def cnp(v6=False):
    return roce(0x81, 0, bytes(16), size=0, v6=v6, ecn=1)


def pfc(quanta):
    return eth(0x8808, struct.pack("!HH8H", 0x0101, 0x08, *([0] * 3 + [quanta] + [0] * 4)), src=MAC_SW,
               dst=bytes.fromhex("0180c2000001"))


def pause(quanta):
    return eth(0x8808, struct.pack("!HH", 0x0001, quanta), src=MAC_SW, dst=bytes.fromhex("0180c2000001"))


def synthetic():
    """A known mix, data heavy, control frames spread through it."""
    frames = [eth(0x0806, bytes(28))]
    for i in range(300):
        size = (40, 200, 1024, 8)[i % 4]
        frames.append(roce(0x0A if i % 3 else 0x04, i, bytes(16) if i % 3 else b"", size=size, v6=i % 5 == 0,
                           vlan=100 if i % 2 else None))
        if i % 17 == 5:
            frames.append(ack(i, 0x1F))                       # ACK: data
        if i % 23 == 7:
            frames.append(ack(i, 0x60 | (i % 4)))             # NAK
        if i % 29 == 3:
            frames.append(cnp(v6=i % 2 == 1))
        if i % 31 == 11:
            frames.append(roce(0x0A, i, bytes(16), size=300, ecn=3, v6=i % 2 == 0))  # CE-marked data
        if i % 37 == 13:
            frames.append(pfc(0xFFFF if i % 2 else 0))
        if i % 41 == 17:
            frames.append(pause(0x100))
        if i % 43 == 19:
            frames.append(eth(0x0800, ipv4(udp(bytes(20), dport=53), ecn=3)))  # CE, not RoCE
        if i % 47 == 2:
            frames.append(eth(0x0800, ipv4(bytes(40), proto=6)))               # TCP
    return frames


# ---- what each frame is: roceprobe decode's word (rp_frame_parse), not a second classifier ----

LABELS = {}  # frame bytes -> (kind, ce, neigh)


def learn(path):
    """Asks `roceprobe decode --json` what every frame of the pcap at path is
    (the caplen bytes net_pcap replays, with the file's wire lengths). The capture's kinds
    are decode's, with the two rules lib/pcap/classify.h states on top:
      nak    a roce frame with opcode 0x11 (RC ACKNOWLEDGE) and AETH syndrome bits 7..5 = 011
      other  for a malformed frame: only "truncated BTH" ones are in these inputs, and
             without a complete BTH a frame is not RoCE to the capture
    ce is decode's ecn == 3; neigh (kept by every filter) is ARP, EtherType 0x0806. The
    inputs hold no IPv6 frame other than RoCE, so no ND frame needs telling apart."""
    frames = [data for _, data, _ in read_pcap(path)["recs"]]
    p = subprocess.run([ROCEPROBE, "decode", "--json", path], capture_output=True, text=True, check=True)
    lines = [json.loads(l) for l in p.stdout.splitlines()]
    assert lines[-1].get("summary") and len(lines) - 1 == len(frames), "decode: one line per frame"
    for b, d in zip(frames, lines):
        kind = d["kind"]
        if kind == "malformed":
            assert d["error"].startswith("truncated BTH"), f"unexpected malformed frame: {d}"
            kind = "other"
        if kind == "roce" and d["bth"]["opcode"] == 0x11 and d["aeth"]["syndrome"] >> 5 == 3:
            kind = "nak"
        assert not (d["kind"] == "other" and d.get("l3") == "ipv6"), f"an IPv6 frame that is not RoCE: {d}"
        LABELS[bytes(b)] = (kind, d.get("ecn") == 3, d["kind"] == "other" and d["ethertype"] == "0x0806")


def classify(b):
    """(kind, ce), as learn() recorded it."""
    return LABELS[bytes(b)][:2]


def is_neigh(b):
    return LABELS[bytes(b)][2]


def is_control(b):
    kind, ce = classify(b)
    return ce or kind in ("cnp", "nak", "pfc", "pause") or is_neigh(b)


def kind_counts(frames):
    counts = {k: 0 for k in ("roce", "cnp", "nak", "pfc", "pause", "other", "ce")}
    for b in frames:
        kind, ce = classify(b)
        counts[kind] += 1
        counts["ce"] += ce
    return counts


# ---- running roceprobe ----

def capture(inp, out, *args, extra_vdev="", timeout=60):
    port = f"net_pcap0,rx_pcap={inp}{extra_vdev}"
    t0 = time.time_ns()
    p = subprocess.run([ROCEPROBE, "capture", "--port", port, "-w", out, "--json", *args],
                       capture_output=True, text=True, timeout=timeout)
    t1 = time.time_ns()
    if p.returncode != 0:
        sys.exit(f"capture {' '.join(args)} failed ({p.returncode}): {p.stderr.strip()}")
    return json.loads(p.stdout), (t0, t1), p.stderr


def tshark_count(path):
    p = subprocess.run([TSHARK, "-r", path, "-T", "fields", "-e", "frame.number"], capture_output=True, text=True)
    return p.returncode, len(p.stdout.split())


def decode_summary(path):
    p = subprocess.run([ROCEPROBE, "decode", "--json", path], capture_output=True, text=True)
    if p.returncode != 0:
        return None
    return json.loads(p.stdout.splitlines()[-1])


def readable(path, n, what):
    """tshark (when installed) and roceprobe decode both read n frames."""
    if TSHARK:
        rc, count = tshark_count(path)
        expect(rc == 0 and count == n, f"{what}: tshark reads {count} frames == {n}")
    s = decode_summary(path)
    expect(s is not None and s["frames"] == n, f"{what}: roceprobe decode reads {s and s['frames']} frames == {n}")


def same_frames(recs, frames, snaplen, what):
    """The records are exactly these frames, in order, cut at snaplen."""
    ok = len(recs) == len(frames)
    bad = None
    for i, ((_, data, wire), fr) in enumerate(zip(recs, frames)):
        if data != fr[:snaplen] or wire != len(fr):
            ok, bad = False, i
            break
    expect(ok, f"{what}: {len(recs)} records == the {len(frames)} expected frames, bytes up to {snaplen}"
           + (f" (first difference at record {bad})" if bad is not None else ""))


def accounting(j, what):
    parts = j["kept"] + j["filtered_out"] + j["sampled_out"] + j["dropped"]
    expect(parts == j["offered"], f"{what}: kept+filtered+sampled+dropped {parts} == offered {j['offered']}")
    expect(j["written"] == j["kept"] and j["write_errors"] == 0,
           f"{what}: written {j['written']} == kept {j['kept']}, no write errors")


# ---- cases ----

def case_all(tmp):
    inp, out = os.path.join(tmp, "sample.pcap"), os.path.join(tmp, "all.pcap")
    subprocess.run([MKSAMPLE, inp], check=True)
    frames = [data for _, data, _ in read_pcap(inp)["recs"]]  # what net_pcap replays: caplen bytes
    learn(inp)
    j, (t0, t1), err = capture(inp, out, "--duration", "1.3")
    f = read_pcap(out)
    expect(f["nano"] and f["snaplen"] == 128 and f["linktype"] == 1, "mksample: nanosecond pcap, snaplen 128, Ethernet")
    same_frames(f["recs"], frames, 128, "mksample")
    readable(out, len(frames), "mksample")
    want = kind_counts(frames)
    got = dict(j["kinds"])
    expect(got == want, f"mksample: per-kind counts {got} == {want}")
    expect(want["cnp"] and want["nak"] and want["ce"] and want["pfc"] and want["pause"],
           "mksample has CNP, NAK, CE, PFC and PAUSE frames")
    expect(j["offered"] == j["kept"] == j["written"] == len(frames), f"mksample: offered = kept = written = {len(frames)}")
    accounting(j, "mksample")
    ts = [t for t, _, _ in f["recs"]]
    expect(all(t0 <= t <= t1 for t in ts) and ts == sorted(ts),
           "mksample: timestamps are wall-clock ns within the run, in order")
    expect("capture" in err and " roce " in err, "progress lines on stderr")


def case_snaplen(tmp, inp, frames):
    out = os.path.join(tmp, "snap.pcap")
    j, _, _ = capture(inp, out, "--duration", "1", "--snaplen", "64")
    f = read_pcap(out)
    same_frames(f["recs"], frames, 64, "--snaplen 64")
    expect(f["snaplen"] == 64, "--snaplen 64: file header says 64")
    expect(j["kinds"] == kind_counts(frames), "--snaplen 64: per-kind counts still exact (headers fit)")
    big = os.path.join(tmp, "snapbig.pcap")
    capture(inp, big, "--duration", "1", "--snaplen", "65535")
    same_frames(read_pcap(big)["recs"], frames, 65535, "--snaplen 65535 (whole frames)")


def case_filter(tmp, inp, frames):
    out = os.path.join(tmp, "control.pcap")
    j, _, _ = capture(inp, out, "--duration", "1", "--filter", "control")
    want = [b for b in frames if is_control(b)]
    same_frames(read_pcap(out)["recs"], want, 128, "--filter control")
    c = kind_counts(frames)
    n_arp = sum(1 for b in frames if is_neigh(b))
    expect(n_arp == 1, f"the mix holds the one ARP frame put first on purpose ({n_arp})")
    expect(len(want) == c["cnp"] + c["nak"] + c["pfc"] + c["pause"] + n_arp + sum(
        1 for b in frames if classify(b)[1] and classify(b)[0] in ("roce", "other")),
        f"--filter control: {len(want)} = CNP + NAK + PFC + PAUSE + ARP + other CE frames")
    expect(j["filtered_out"] == len(frames) - len(want), f"--filter control: filtered_out {j['filtered_out']}")
    accounting(j, "--filter control")
    readable(out, len(want), "--filter control")

    out = os.path.join(tmp, "roce.pcap")
    j, _, _ = capture(inp, out, "--duration", "1", "--filter", "roce")
    want = [b for b in frames if is_control(b) or classify(b)[0] == "roce"]
    same_frames(read_pcap(out)["recs"], want, 128, "--filter roce")
    accounting(j, "--filter roce")


def case_count(tmp, inp, frames):
    out = os.path.join(tmp, "count.pcap")
    j, _, _ = capture(inp, out, "--duration", "5", "--count", "100")
    same_frames(read_pcap(out)["recs"], frames[:100], 128, "--count 100: the first 100 frames")
    expect(j["offered"] == 100 and j["elapsed_s"] < 4, f"--count 100: stops after 100 frames ({j['elapsed_s']:.2f} s)")


def case_sample(tmp, inp, frames):
    out = os.path.join(tmp, "sample10.pcap")
    j, _, _ = capture(inp, out, "--duration", "1", "--sample", "10")
    want, data_seen = [], 0
    for b in frames:
        if is_control(b):
            want.append(b)
        else:
            if data_seen % 10 == 0:
                want.append(b)
            data_seen += 1
    n_control = sum(1 for b in frames if is_control(b))
    same_frames(read_pcap(out)["recs"], want, 128,
                f"--sample 10: all {n_control} control frames and data frames 0, 10, 20, ... of {data_seen}")
    expect(j["sampled_out"] == data_seen - (data_seen + 9) // 10, f"--sample 10: sampled_out {j['sampled_out']}")
    accounting(j, "--sample 10")


def case_rotate(tmp, inp, frames):
    out = os.path.join(tmp, "rot.pcap")
    j, _, _ = capture(inp, out, "--duration", "1", "--rotate-size", "4KiB")
    files = sorted(glob.glob(os.path.join(tmp, "rot-*.pcap")))
    expect(len(files) == j["files"] and len(files) > 3, f"--rotate-size 4KiB: {len(files)} files rot-0001.pcap ..")
    expect(not os.path.exists(out), "--rotate-size: the unnumbered name is not written")
    expect(all(os.path.getsize(p) <= 4096 for p in files), "--rotate-size 4KiB: every file <= 4096 bytes")
    recs = []
    for p in files:
        r = read_pcap(p)["recs"]
        readable(p, len(r), os.path.basename(p))
        recs += r
    same_frames(recs, frames, 128, "--rotate-size 4KiB: the files together")

    out = os.path.join(tmp, "keep.pcap")
    j, _, _ = capture(inp, out, "--duration", "1", "--rotate-size", "4KiB", "--rotate-files", "2")
    files = sorted(glob.glob(os.path.join(tmp, "keep-*.pcap")))
    n = j["files"]
    names = [os.path.join(tmp, f"keep-{k:04d}.pcap") for k in (n - 1, n)]
    expect(files == names, f"--rotate-files 2: only the newest two of {n} files remain: {[os.path.basename(p) for p in files]}")
    expect(j["first_file_no"] == n - 1 and j["last_file"] == names[-1], "--rotate-files 2: summary names the kept files")
    tail = [rec for p in files for rec in read_pcap(p)["recs"]]
    same_frames(tail, frames[len(frames) - len(tail):], 128, "--rotate-files 2: the kept files hold the last frames")


def interrupt(inp, out, sig, after_s, *args):
    """Starts a capture of inp replayed forever, sends sig after after_s;
    --duration bounds the poller should the signal go astray."""
    port = f"net_pcap0,rx_pcap={inp},infinite_rx=1"
    p = subprocess.Popen([ROCEPROBE, "capture", "--port", port, "-w", out, "--json", "--duration", "30", *args],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(after_s)
    p.send_signal(sig)
    try:
        so, se = p.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        p.kill()
        so, se = p.communicate()
    name = signal.Signals(sig).name
    expect(p.returncode == 0, f"{name}: exit 0 (got {p.returncode})")
    try:
        j = json.loads(so)
    except ValueError:
        expect(False, f"{name}: summary printed (stdout {so[:200]!r}, stderr {se[-300:]!r})")
        return None, None
    expect(j["interrupted"] and j["elapsed_s"] < 29, f"{name}: summary says interrupted after {j['elapsed_s']:.2f} s")
    try:
        recs = read_pcap(out)["recs"]
    except ValueError as e:
        expect(False, f"{name}: file complete: {e}")
        return j, None
    expect(len(recs) == j["written"] and j["written"] > 0,
           f"{name}: file complete to its last record, {len(recs)} records == written {j['written']}")
    accounting(j, name)
    print(f"      {name} run: offered {j['offered']}, kept {j['kept']}, dropped {j['dropped']}")
    return j, recs


def case_sigint(tmp, frames):
    """Data frames only, sampled 1 in 2000, so tshark reads the file in a
    second or two."""
    inp, out = os.path.join(tmp, "data.pcap"), os.path.join(tmp, "sigint.pcap")
    write_pcap_us(inp, [b for b in frames if not is_control(b)])
    j, recs = interrupt(inp, out, signal.SIGINT, 2.0, "--sample", "2000")
    if recs is not None:
        readable(out, len(recs), "SIGINT")


def case_sigterm_tiny_ring(tmp, inp):
    """64 slots: the writer is behind, and busy, when SIGTERM arrives."""
    out = os.path.join(tmp, "tiny.pcap")
    j, recs = interrupt(inp, out, signal.SIGTERM, 1.5, "--ring", "64", "--snaplen", "1024")
    if j is None or recs is None:
        return
    expect(j["dropped"] > 0, f"tiny ring: the writer falls behind and drops are counted ({j['dropped']})")
    expect(len(recs) == j["written"] == j["kept"], f"tiny ring: the file holds exactly the kept frames ({len(recs)})")
    expect(decode_summary(out) is not None, "tiny ring: roceprobe decode reads the file")


def case_bad_input(tmp, inp):
    def bad(args, what):
        p = subprocess.run([ROCEPROBE, "capture", *args], capture_output=True, text=True, timeout=60)
        lines = p.stderr.strip().splitlines()
        ok = p.returncode == 2 and lines and lines[-1].startswith("roceprobe capture: ") and not p.stdout
        expect(ok, f"bad input, {what}: exit 2 with one line ({p.returncode}: {lines[-1] if lines else ''})")

    good = ["--port", f"net_pcap0,rx_pcap={inp}", "-w", os.path.join(tmp, "x.pcap"), "--duration", "1"]
    bad(["-w", "x.pcap"], "no --port")
    bad(["--port", "net_null0"], "no -w")
    bad(good + ["--snaplen", "0"], "--snaplen 0")
    bad(good + ["--snaplen", "70000"], "--snaplen 70000")
    bad(good + ["--filter", "pfc"], "--filter pfc")
    bad(good + ["--sample", "0"], "--sample 0")
    bad(good + ["--rotate-size", "lots"], "--rotate-size lots")
    bad(good + ["--rotate-files", "3"], "--rotate-files without --rotate-size")
    bad(good + ["--duration", "-1"], "--duration -1")
    bad(["--port", "0000:99:00.0", "-w", os.path.join(tmp, "y.pcap"), "--duration", "1"], "a port that is not there")
    # Missing parents are made (like -o); a parent that is a file cannot be.
    afile = os.path.join(tmp, "a-file")
    open(afile, "w").close()
    bad(["--port", f"net_pcap0,rx_pcap={inp}", "-w", os.path.join(afile, "dir.pcap"), "--duration", "1"],
        "an unwritable path")


def case_disk_full(inp):
    """/dev/full takes the open and fails every write: exit 1, said twice."""
    p = subprocess.run([ROCEPROBE, "capture", "--port", f"net_pcap0,rx_pcap={inp}", "-w", "/dev/full", "--json",
                        "--duration", "1"], capture_output=True, text=True, timeout=60)
    lines = p.stderr.strip().splitlines()
    j = json.loads(p.stdout) if p.stdout.strip() else {}
    expect(p.returncode == 1 and lines and "writing /dev/full failed: No space left" in lines[-1]
           and "No space left" in (j.get("error") or ""),
           f"a failing disk: exit 1, the error in the summary and on stderr ({p.returncode}: {lines[-1:]})")


def case_disk_fills(tmp, inp):
    """A 64 KiB tmpfs fills mid-capture (2000 frames, about 280 KB): what the summary calls
    written is what the files hold (tshark), each file cut back to its last whole record
    (a valid pcap), the rest counted write_errors; a rotation leaves no headerless file.
    It used to say 20000 written where 3963 were in the file."""
    mnt = os.path.join(tmp, "small")
    os.makedirs(mnt)
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", mnt], capture_output=True).returncode:
        print("      skipped the full tmpfs: cannot mount one here")
        return
    try:
        for extra in ([], ["--rotate-size", "16KiB"]):
            for f in os.listdir(mnt):
                os.unlink(os.path.join(mnt, f))
            p = subprocess.run([ROCEPROBE, "capture", "--port", f"net_pcap0,rx_pcap={inp},infinite_rx=1", "-w",
                                os.path.join(mnt, "full.pcap"), "--json", "--count", "2000", "--duration", "20",
                                *extra], capture_output=True, text=True, timeout=60)
            j = json.loads(p.stdout) if p.stdout.strip() else {}
            files = sorted(os.path.join(mnt, f) for f in os.listdir(mnt))
            held = 0
            for f in files:
                rc, n = tshark_count(f) if TSHARK else (0, decode_summary(f)["frames"])
                expect(rc == 0 and os.path.getsize(f) >= 24, f"disk full {extra}: {os.path.basename(f)} is a valid pcap")
                held += n
            size = sum(os.path.getsize(f) for f in files)
            expect(p.returncode == 1 and "No space left" in (j.get("error") or ""),
                   f"disk full {extra}: exit 1 and the error ({p.returncode}, {j.get('error')})")
            expect(j.get("written") == held and j.get("written", 0) + j.get("write_errors", 0) == j.get("kept") == 2000
                   and j.get("bytes") == size and 0 < held < 2000,
                   f"disk full {extra}: written {j.get('written')} == {held} in {len(files)} files, + write_errors "
                   f"{j.get('write_errors')} == kept {j.get('kept')}, bytes {j.get('bytes')} == {size}")
    finally:
        subprocess.run(["umount", mnt], capture_output=True)


def main():
    with tempfile.TemporaryDirectory(prefix="rp-capture-") as tmp:
        case_all(tmp)
        inp = os.path.join(tmp, "mix.pcap")
        frames = synthetic()
        write_pcap_us(inp, frames)
        learn(inp)
        c = kind_counts(frames)
        print(f"      synthetic input: {len(frames)} frames {c}")
        # As synthetic() built it: i in range(300) with i % 23 == 7 a NAK (13), i % 29 == 3
        # a CNP (11), i % 37 == 13 a PFC (8), i % 41 == 17 a PAUSE (7), i % 31 == 11 CE data
        # (10) and i % 43 == 19 CE non-RoCE UDP (7); other: the ARP, 7 DNS, 7 TCP (15).
        built = {"roce": 300 + 18 + 10, "cnp": 11, "nak": 13, "pfc": 8, "pause": 7, "other": 15, "ce": 17}
        expect(c == built, f"synthetic: decode's kinds {c} == the mix as built {built}")
        j, _, _ = capture(inp, os.path.join(tmp, "mix-out.pcap"), "--duration", "1")
        expect(j["kinds"] == c, f"synthetic: per-kind counts {j['kinds']} == {c}")
        same_frames(read_pcap(os.path.join(tmp, "mix-out.pcap"))["recs"], frames, 128, "synthetic, all")
        case_snaplen(tmp, inp, frames)
        case_filter(tmp, inp, frames)
        case_sample(tmp, inp, frames)
        case_count(tmp, inp, frames)
        case_rotate(tmp, inp, frames)
        case_sigint(tmp, frames)
        case_sigterm_tiny_ring(tmp, inp)
        case_bad_input(tmp, inp)
        case_disk_full(inp)
        case_disk_fills(tmp, inp)
    finish("capture")


main()
