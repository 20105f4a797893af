#!/usr/bin/python3
"""`roceprobe decode --json` prints valid JSON lines with the keys README.md
documents, in the documented order (consumers such as tshark_check.py and
users' jq scripts read them; the writer is hand-made, not a JSON library).

    decode_json_check.py MKSAMPLE ROCEPROBE

On mksample's capture (every kind of frame), and on the same capture cut by
a 128-byte snaplen: every line parses with json.loads; each frame's keys are
the documented ones for its kind, in this order; the last line is the
summary, whose counts add up to the frames. Exit 1 on any failure.
"""
import json
import os
import struct
import subprocess
import sys
import tempfile
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from check import expect, finish, read_pcap, write_pcap  # noqa: E402

# The order the keys come in (README.md "roceprobe decode"); a frame has a
# subsequence of it.
TOP = ["frame", "len", "kind", "vlan", "l3", "src", "dst", "dscp", "ecn", "ttl", "hop_limit",
       "flow_label", "udp_sport", "udp_dport", "bth", "deth", "reth", "atomic", "aeth", "atomic_ack",
       "imm", "ieth", "payload_len", "probe", "icrc", "icrc_ok", "src_mac", "enable", "quanta",
       "ethertype", "error"]
REQUIRED = {
    "roce": ["l3", "src", "dst", "dscp", "ecn", "udp_sport", "udp_dport", "bth", "payload_len"],
    "pfc": ["src_mac", "enable", "quanta"],
    "pause": ["src_mac", "quanta"],
    "other": ["ethertype"],
    "malformed": ["error"],
}
REQUIRED["cnp"] = REQUIRED["roce"]
NESTED = {
    "bth": ["opcode", "opname", "se", "m", "pad", "tver", "pkey", "fecn", "becn", "dqpn", "ack_req", "psn"],
    "vlan": ["pcp", "vid"], "deth": ["qkey", "src_qp"], "reth": ["va", "rkey", "dma_len"],
    "atomic": ["va", "rkey", "swap_add", "compare"], "aeth": ["syndrome", "msn"],
    "probe": ["flow", "seq", "tx_ns"],
}
HEX = {"atomic_ack": 16, "imm": 8, "ieth": 8, "ethertype": 4}
SUMMARY = ["summary", "frames", "kinds", "icrc_bad"]
KINDS = ["roce", "cnp", "pfc", "pause", "other", "malformed"]

def fail(where, msg):
    expect(False, "%s: %s" % (where, msg))


def pairs(items):
    return items  # keep the order: a list of (key, value)


def keys(obj):
    return [k for k, _ in obj]


def is_subsequence(ks, order):
    it = iter(order)
    return all(k in it for k in ks)


def check_frame(where, obj):
    d = dict(obj)
    ks = keys(obj)
    if not is_subsequence(ks, TOP):
        fail(where, "keys %s are not in the documented order or not documented" % ks)
    kind = d.get("kind")
    if kind not in KINDS:
        fail(where, "kind %r" % kind)
        return
    missing = [k for k in ["frame", "len", "kind"] + REQUIRED[kind] if k not in d]
    if missing:
        fail(where, "%s frame without %s" % (kind, missing))
    if kind in ("roce", "cnp") and ("ttl" in d) == ("hop_limit" in d):
        fail(where, "exactly one of ttl (IPv4) and hop_limit (IPv6) expected")
    if ("icrc" in d) != ("icrc_ok" in d):
        fail(where, "icrc and icrc_ok come together")
    for k, sub in NESTED.items():
        if k in d and keys(d[k]) != sub:
            fail(where, "%s keys %s, documented %s" % (k, keys(d[k]), sub))
    for k, ndig in HEX.items():
        if k in d and not (isinstance(d[k], str) and d[k].startswith("0x") and len(d[k]) == 2 + ndig):
            fail(where, "%s %r is not 0x and %d hex digits" % (k, d[k], ndig))
    if kind == "pfc" and len(d["quanta"]) != 8:
        fail(where, "pfc quanta has %d entries, not 8" % len(d["quanta"]))
    if "bth" in d and not all(isinstance(v, int) for k, v in d["bth"] if k != "opname"):
        fail(where, "bth values are not integers")


def decode_lines(roceprobe, pcap, where):
    res = subprocess.run([roceprobe, "decode", "--json", pcap], capture_output=True, text=True)
    if res.returncode != 0:
        fail(where, "decode exit %d: %s" % (res.returncode, res.stderr.strip()))
    out = []
    for n, line in enumerate(res.stdout.splitlines(), 1):
        try:
            out.append(json.loads(line, object_pairs_hook=pairs))
        except ValueError as e:
            fail("%s line %d" % (where, n), "not JSON (%s): %r" % (e, line))
    return out


def check_capture(roceprobe, pcap, where):
    lines = decode_lines(roceprobe, pcap, where)
    if not lines:
        fail(where, "no output")
        return 0
    *frames, summary = lines
    counts = {}
    for i, obj in enumerate(frames, 1):
        check_frame("%s frame %d" % (where, i), obj)
        d = dict(obj)
        if d.get("frame") != i:
            fail("%s frame %d" % (where, i), "frame number %s" % d.get("frame"))
        counts[d.get("kind")] = counts.get(d.get("kind"), 0) + 1
    s = dict(summary)
    if keys(summary) != SUMMARY or s.get("summary") is not True:
        fail(where, "last line %s is not the summary %s" % (keys(summary), SUMMARY))
        return len(frames)
    if keys(s["kinds"]) != KINDS or dict(s["kinds"]) != {k: counts.get(k, 0) for k in KINDS}:
        fail(where, "summary kinds %s, frames say %s" % (s["kinds"], counts))
    if s["frames"] != len(frames):
        fail(where, "summary frames %s, %d lines" % (s["frames"], len(frames)))
    return len(frames)


def cut_copy(src, dst, snaplen):
    """src's records cut to snaplen bytes, wire lengths kept (tests/lib/check.py)."""
    cap = read_pcap(src)
    write_pcap(dst, cap["recs"], nano=cap["nano"], snaplen=snaplen)


def main():
    mksample, roceprobe = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory(prefix="rp-decode-json-") as tmp:
        pcap = os.path.join(tmp, "sample.pcap")
        subprocess.run([mksample, pcap], check=True)
        cut = os.path.join(tmp, "sample-128.pcap")
        cut_copy(pcap, cut, 128)
        n = check_capture(roceprobe, pcap, "sample")
        m = check_capture(roceprobe, cut, "snaplen 128")
    print("decode --json: %d + %d frames checked" % (n, m))
    finish("decode-json")


if __name__ == "__main__":
    sys.exit(main())
