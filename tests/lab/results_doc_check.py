#!/usr/bin/python3
"""Every key a result carries is documented in docs/results.md, and every key the
tables there name is one some result carries.

    roceprobe lab  (single switch, leaf-spine with victims, lossy drops, DCQCN, --capture)
    roceprobe run  (back to back on DPDK pair: ports, --capture)     -> result.json
    roceprobe analyze --json (the run's capture)                     -> analyze JSON
        every key, at any depth  ==  a `key` in docs/results.md

A key counts as documented when it stands in backticks in the document. Documented
keys no result carries are listed too: a table row describing a field nobody writes
(as `timeseries.flows` once was) is a promise the tool does not keep.

usage: results_doc_check.py ROCEPROBE PROFILES_DIR DOC [dpdk]
"""
import json
import os
import re
import subprocess
import sys
import tempfile
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from check import expect, finish  # noqa: E402

ROCEPROBE, PROFILES, DOC = sys.argv[1], sys.argv[2], sys.argv[3]
DPDK = len(sys.argv) > 4 and sys.argv[4] == "dpdk"



def keys(o, path, out):
    """Every key name with the first path it was seen at."""
    if isinstance(o, dict):
        for k, v in o.items():
            out.setdefault(k, f"{path}.{k}")
            keys(v, f"{path}.{k}", out)
    elif isinstance(o, list):
        for v in o:
            keys(v, f"{path}[]", out)


def rp(*args):
    p = subprocess.run([ROCEPROBE, *args], capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        sys.exit(f"roceprobe {' '.join(args)} failed ({p.returncode}): {p.stderr.strip()[-500:]}")
    return p.stdout


seen = {}
with tempfile.TemporaryDirectory() as tmp:
    for name in ("incast-8to1", "victim-flow", "lossy-lossless-mix", "incast-32to1-ecn", "headroom-too-small"):
        out = os.path.join(tmp, name)
        rp("lab", os.path.join(PROFILES, name + ".yaml"), "-o", out, "-q", "--capture")
        keys(json.load(open(os.path.join(out, "result.json"))), "lab", seen)
    if DPDK:
        out = os.path.join(tmp, "b2b")
        rp("run", os.path.join(PROFILES, "back-to-back.yaml"), "-o", out, "--capture")
        keys(json.load(open(os.path.join(out, "result.json"))), "run", seen)
        keys(json.loads(rp("analyze", "--json", os.path.join(out, "capture-h2.pcap"))), "analyze", seen)

doc = open(DOC).read()
documented = set(re.findall(r"`([A-Za-z_][A-Za-z0-9_]*)`", doc))
missing = sorted(path for k, path in seen.items() if k not in documented)
expect(not missing, f"every key of {len(seen)} is in {os.path.basename(DOC)} (missing: {missing})")

# The tables' first column names fields: each of those must be a key some result has.
rows = set()
for line in doc.splitlines():
    m = re.match(r"\|\s*(`[^|]*`)\s*\|", line)
    if m:
        rows.update(re.findall(r"`([A-Za-z_][A-Za-z0-9_]*)`", m.group(1)))
if DPDK:  # analyze and run keys are only known with DPDK; without it, lab keys are a subset
    unseen = sorted(rows - set(seen))
    expect(not unseen, f"every field a table names appears in some result (never seen: {unseen})")
finish("results-doc")
