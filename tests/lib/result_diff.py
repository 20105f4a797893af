#!/usr/bin/python3
"""Two result.json of the same run, key by key (issue 27: each rank's facts travel as a binary
record, and result.json built from them must say what the JSON text said).

Everywhere: the same keys in the same order, and the same JSON types (a number may be an int in
one and a float in the other only where it is a float in both; null matches anything, as a
latency of a run without samples). Values: compared in the parts built from the ranks' facts
(environment, capture, cluster, findings, verbs, flows[].tx_unsent), except the fields that
depend on time (TIME below); elsewhere the run's counts may differ from run to run (a tbf's
drops, latencies), and are not compared.

usage: result_diff.py A.json B.json   (exit 1 with one line per difference)
"""
import json
import sys

# Time-dependent: when it ran, how long, clocks, the lcores' polls, latencies.
TIME = {"started", "elapsed_ns", "polls", "busy_polls", "busy_share", "clock_offset_ns", "clock_bound_ns",
        "start_skew_ns", "clock_offset_after_ns", "clock_bound_after_ns", "clock_drift_ppb",
        "clock_drift_bound_ppb", "packet_clock_gap_ns", "start_ns", "latency_bound_ns", "lost_at_ns",
        "completion_ns", "latency_ns", "last_change_ns", "elapsed_ns"}
# The parts of result.json built from the ranks' facts: values compared there.
FACTS = {"environment", "capture", "cluster", "findings", "verbs"}


def kind(v):
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, (int, float)):
        return "number"
    return type(v).__name__


def diff(a, b, path="", values=False, out=None):
    out = [] if out is None else out
    if a is None or b is None:
        if values and a != b:
            out.append(f"{path}: {a!r} != {b!r}")
        return out
    if kind(a) != kind(b):
        out.append(f"{path}: {kind(a)} != {kind(b)}")
        return out
    if isinstance(a, dict):
        if list(a) != list(b):
            out.append(f"{path}: keys {list(a)} != {list(b)}")
        for k in a:
            if k in b:
                v = values or (path == "" and k in FACTS) or (path.startswith("flows[") and k == "tx_unsent")
                if k in TIME:
                    v = False
                diff(a[k], b[k], f"{path}.{k}" if path else k, v, out)
    elif isinstance(a, list):
        if values and len(a) != len(b):
            out.append(f"{path}: {len(a)} items != {len(b)}")
        for i, (x, y) in enumerate(zip(a, b)):
            diff(x, y, f"{path}[{i}]", values, out)
    elif values and a != b:
        out.append(f"{path}: {a!r} != {b!r}")
    return out


def diff_files(pa, pb):
    with open(pa) as f:
        a = json.load(f)
    with open(pb) as f:
        b = json.load(f)
    return diff(a, b)


if __name__ == "__main__":
    d = diff_files(sys.argv[1], sys.argv[2])
    for line in d:
        print(line)
    sys.exit(1 if d else 0)
