#!/bin/sh
# How long `roceprobe lab` takes to write its outputs (result.json, the .jsonl
# files, qdepth.csv, summary.txt) after its event loop ends, and its peak
# resident memory, on profiles/fat-tree-1024.yaml (1,047,552 flows) by default.
# The event loop's end is its first progress line's time less the 0.5 s a
# progress line waits (lib/lab's progress callback), plus result.json's
# environment.wall_s; the output time is the process's end less that. With
# REF=<commit or binary> the reference runs first, then this tree, and the
# ratio is printed. Runs take minutes and GBs: one at a time (flock).
#
#   REF=/work/ref/roceprobe-bf387cc tools/bench/lab-output.sh
#   PROFILE=profiles/fat-tree-512.yaml tools/bench/lab-output.sh
set -eu

root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${BUILD_DIR:-$root/build}/app/roceprobe
profile=${PROFILE:-$root/profiles/fat-tree-1024.yaml}
lock=${LOCK:-/tmp/rp-big.lock}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
[ -x "$bin" ] || { echo "lab-output.sh: no $bin (build first, or set BUILD_DIR)" >&2; exit 2; }
. "$root/tools/bench/ref_build.sh"

measure() { # $1 binary $2 name: prints "name output_s total_s loop_s maxrss_kib"
	flock "$lock" /usr/bin/python3 - "$1" "$profile" "$out/$2" "$2" <<'PY'
import json, os, subprocess, sys, time
binary, profile, d, name = sys.argv[1:5]
t0 = time.time()
p = subprocess.Popen(["/usr/bin/time", "-v", "-o", d + ".time", binary, "lab", profile, "-o", d],
                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
first = None
for line in p.stderr:
    if first is None and line.startswith("lab: virtual"):
        first = time.time()
p.wait()
t1 = time.time()
if p.returncode != 0 or first is None:
    sys.exit(f"lab-output.sh: {binary} failed ({p.returncode})")
with open(os.path.join(d, "result.json")) as f:  # the environment is near the top
    head = f.read(1 << 16)
wall = float(head.split('"wall_s": ', 1)[1].split(",", 1)[0])
loop_end = first - 0.5 + wall
rss = [l for l in open(d + ".time") if "Maximum resident" in l][0].split()[-1]
size = sum(os.path.getsize(os.path.join(d, f)) for f in os.listdir(d))
print(f"{name} {t1 - loop_end:.2f} {t1 - t0:.2f} {wall:.2f} {rss} {size}")
PY
	rm -rf "${out:?}/$2"
}

line() { # name output total loop rss bytes
	printf '%-5s outputs %7.2f s   whole run %7.2f s (event loop %.2f s)   peak RSS %s KiB   files %s B\n' "$@"
}

if [ -n "${REF:-}" ]; then
	if [ -x "$REF" ]; then refbin=$REF; else refbin=$(ref_build lab-output.sh "$REF") || exit 2; fi
	measure "$refbin" ref >"$out/ref.txt"
	line $(cat "$out/ref.txt")
fi
measure "$bin" this >"$out/this.txt"
line $(cat "$out/this.txt")
if [ -n "${REF:-}" ]; then
	/usr/bin/python3 -c 'import sys; r, t = (float(open(p).read().split()[1]) for p in sys.argv[1:]); print(f"outputs written {r / t:.1f}x faster than REF")' "$out/ref.txt" "$out/this.txt"
fi
