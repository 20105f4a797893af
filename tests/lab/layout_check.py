#!/usr/bin/python3
"""The layout DESIGN.md promises (issue 13.6): lib/dp is the only code that touches DPDK.
app/ is dispatch and argument parsing; lib/wire, lib/lab and the other plain-C libraries
are unit-tested without DPDK. So no file outside lib/dp names anything rte_ (an include,
a call, a type), comments included: the moment a command needs a DPDK call it belongs in
lib/dp behind an rp_dp_ function.

usage: layout_check.py SOURCE_ROOT
"""
import glob
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from check import expect, finish  # noqa: E402

root = sys.argv[1]
RTE = re.compile(r"\brte_\w*")


def offenders(pattern):
    """{file: [(line number, the rte_ names on it)]} for every .c/.h under pattern."""
    found = {}
    for path in sorted(glob.glob(os.path.join(root, pattern), recursive=True)):
        if not path.endswith((".c", ".h")):
            continue
        with open(path, encoding="utf-8", errors="replace") as f:
            for n, line in enumerate(f, 1):
                names = RTE.findall(line)
                if names:
                    found.setdefault(os.path.relpath(path, root), []).append((n, names))
    return found


def say(found):
    return "; ".join(f"{p}:{n} {' '.join(names)}" for p, hits in found.items() for n, names in hits[:3])


app = offenders("app/*")
expect(len(glob.glob(os.path.join(root, "app", "*.c"))) >= 10, "app/ holds the subcommands (at least 10 .c files)")
expect(not app, "app/ names no rte_ symbol or header" + (f": {say(app)}" if app else ""))
libs = {}
for d in sorted(glob.glob(os.path.join(root, "lib", "*"))):
    if os.path.basename(d) != "dp":
        libs.update(offenders(os.path.relpath(d, root) + "/**/*"))
expect(not libs, "lib/* other than lib/dp names no rte_ symbol or header" + (f": {say(libs)}" if libs else ""))
# The check itself sees DPDK where it is: lib/dp opens ports with rte_eth_dev_configure.
expect("lib/dp/port.c" in offenders("lib/dp/*"), "and it finds rte_ in lib/dp/port.c (the check can see)")
finish("layout")
