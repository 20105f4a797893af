#!/bin/sh
# How long `roceprobe lab` takes to write its outputs (result.json, the .jsonl
# files, qdepth.csv, summary.txt) after its event loop ends, and its peak
# resident memory, on profiles/fat-tree-1024.yaml (1,047,552 flows) by default.
# The event loop's end is its first progress line's time less the 0.5 s a
# progress line waits (lib/lab's progress callback), plus result.json's
# environment.wall_s; the output time is the process's end less that. With
# REF=<commit or binary> the reference runs first, then this tree, and the
# ratio is printed, of the wall time and of the CPU time (the process's CPU
# seconds at the end less those at the loop's end, sampled from /proc every
# 50 ms: on a shared machine the steadier figure). Runs take minutes and GBs:
# one at a time (flock).
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
import bisect, json, os, subprocess, sys, threading, time
binary, profile, d, name = sys.argv[1:5]
tick = os.sysconf("SC_CLK_TCK")
t0 = time.time()
p = subprocess.Popen(["/usr/bin/time", "-v", "-o", d + ".time", binary, "lab", profile, "-o", d],
                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
samples = []  # (wall, cpu seconds of roceprobe): the CPU time at the loop's end, on a shared machine
def sample():
    child = None
    while p.poll() is None:
        try:
            if child is None:
                child = open(f"/proc/{p.pid}/task/{p.pid}/children").read().split()[0]
            f = open(f"/proc/{child}/stat").read().rsplit(")", 1)[1].split()
            samples.append((time.time(), (int(f[11]) + int(f[12])) / tick))
        except (OSError, IndexError):
            pass
        time.sleep(0.05)
threading.Thread(target=sample, daemon=True).start()
first = None
for line in p.stderr:
    if first is None and line.startswith("lab: virtual"):
        first = time.time()
p.wait()
t1 = time.time()
if p.returncode != 0 or first is None:
    sys.exit(f"lab-output.sh: {binary} failed ({p.returncode})" if p.returncode else
             f"lab-output.sh: {profile} ran under 0.5 s: no progress line to time its loop by")
with open(os.path.join(d, "result.json")) as f:  # the environment is near the top
    head = f.read(1 << 16)
wall = float(head.split('"wall_s": ', 1)[1].split(",", 1)[0])
loop_end = first - 0.5 + wall
tv = {l.split(":")[0].strip(): l.rsplit(":", 1)[1].strip() for l in open(d + ".time") if ":" in l}
rss = tv["Maximum resident set size (kbytes)"]
cpu = float(tv["User time (seconds)"]) + float(tv["System time (seconds)"])
k = bisect.bisect_left([w for w, _ in samples], loop_end)
cpu_end = samples[min(k, len(samples) - 1)][1] if samples else 0.0
size = ",".join(f"{f}={os.path.getsize(os.path.join(d, f))}" for f in sorted(os.listdir(d)))
print(f"{name} {t1 - loop_end:.2f} {cpu - cpu_end:.2f} {t1 - t0:.2f} {wall:.2f} {rss} {size}")
PY
	rm -rf "${out:?}/$2"
}

line() { # name output_wall output_cpu total loop rss bytes
	printf '%-5s outputs %7.2f s wall, %7.2f s CPU   whole run %7.2f s (event loop %.2f s)   peak RSS %s KiB   bytes: %s\n' "$@"
}

if [ -n "${REF:-}" ]; then
	if [ -x "$REF" ]; then refbin=$REF; else refbin=$(ref_build lab-output.sh "$REF") || exit 2; fi
	measure "$refbin" ref >"$out/ref.txt"
	line $(cat "$out/ref.txt")
fi
measure "$bin" this >"$out/this.txt"
line $(cat "$out/this.txt")
if [ -n "${REF:-}" ]; then
	/usr/bin/python3 -c 'import sys; r, t = (float(open(p).read().split()[1]) for p in sys.argv[1:]); print(f"outputs written {r / t:.1f}x faster than REF (wall)")' "$out/ref.txt" "$out/this.txt"
	/usr/bin/python3 -c 'import sys; r, t = (float(open(p).read().split()[2]) for p in sys.argv[1:]); print(f"outputs written {r / t:.1f}x faster than REF (CPU)")' "$out/ref.txt" "$out/this.txt"
fi
