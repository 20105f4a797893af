#!/bin/sh
# roceprobe lab throughput on profiles/incast-8to1.yaml: packet-hops (frames
# put on a virtual wire) per wall second, events per second, and the ratio
# of virtual time emulated to wall time (1.0 = real time; a 100G fabric
# below 1.0 runs slower than the real one would). Each rate is the
# difference of two runs, MESSAGES and 100 messages per sender, so fixed
# start-up cost does not count; no timed unit test, just numbers.
#
# With REF=<commit> the same workload also runs on that commit's roceprobe
# (a git worktree of it built into a cache dir, kept for the next call), the
# two binaries alternating RUNS times; it prints each run's rates, the
# median of each and the median ratio (this tree / REF). The profile is this
# tree's for both.
#
#   tools/bench/lab.sh                 # build/ by default; BUILD_DIR=build-l to choose
#   MESSAGES=4000 tools/bench/lab.sh
#   REF=9b9bff4 RUNS=3 tools/bench/lab.sh
#   PROFILE=profiles/all-to-all-16.yaml SET=traffic.0.messages tools/bench/lab.sh
set -eu

root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${BUILD_DIR:-$root/build}/app/roceprobe
messages=${MESSAGES:-2000}
runs=${RUNS:-3}
profile=${PROFILE:-$root/profiles/incast-8to1.yaml}
key=${SET:-traffic.0.messages}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

[ -x "$bin" ] || { echo "lab.sh: no $bin (build first, or set BUILD_DIR)" >&2; exit 2; }

# The reference: a worktree of REF and its build, cached by commit (ref_build.sh).
. "$root/tools/bench/ref_build.sh"
refbin=
if [ -n "${REF:-}" ]; then
	refbin=$(ref_build lab.sh "$REF") || exit 2
fi

run() { # $1 binary $2 messages $3 dir
	"$1" lab "$profile" -o "$3" -q --set "$key=$2" >/dev/null
}

# One measurement of binary $1 into $out/$2.txt: "hops/s events/s virtual/wall".
measure() {
	rm -rf "$out/small" "$out/big"
	run "$1" 100 "$out/small"
	run "$1" "$messages" "$out/big"
	/usr/bin/python3 - "$out/small/result.json" "$out/big/result.json" >>"$out/$2.txt" <<'PY'
import json, sys
s, b = (json.load(open(p)) for p in sys.argv[1:3])
def nums(j):
    return j["lab"]["hops"], j["lab"]["events"], j["lab"]["virtual_ns"], j["environment"]["wall_s"]
hs, es, vs, ws = nums(s)
hb, eb, vb, wb = nums(b)
dw = max(wb - ws, 1e-9)
print(f"{(hb - hs) / dw:.0f} {(eb - es) / dw:.0f} {(vb - vs) / 1e9 / dw:.5f} {hb} {eb} {vb} {wb:.3f}")
PY
}

if [ -z "$refbin" ]; then
	measure "$bin" this
	read -r hps eps vw hb eb vb wb <"$out/this.txt"
	echo "$(basename "$profile" .yaml), $messages messages per sender: $hb hops, $eb events, $((vb / 1000)) us virtual in $wb s wall"
	printf 'packet-hops/s      %s\nevents/s           %s\nvirtual/wall       %s\n' "$hps" "$eps" "$vw"
	exit 0
fi

i=0
while [ "$i" -lt "$runs" ]; do
	measure "$refbin" ref
	measure "$bin" this
	i=$((i + 1))
done
/usr/bin/python3 - "$out/ref.txt" "$out/this.txt" "$REF" "$(basename "$profile" .yaml)" "$messages" <<'PY'
import statistics, sys
ref, this = ([list(map(float, l.split())) for l in open(p)] for p in sys.argv[1:3])
print(f"{sys.argv[4]}, {sys.argv[5]} messages per sender, {len(ref)} alternating runs each")
for i, (r, t) in enumerate(zip(ref, this)):
    print(f"run {i + 1}: ref {r[0]:>12,.0f} hops/s   this {t[0]:>12,.0f} hops/s   ratio {t[0] / r[0]:.2f}")
if ref[0][3:6] != this[0][3:6]:
    print(f"note: hops/events/virtual ns differ: ref {ref[0][3:6]} this {this[0][3:6]}")
med = lambda xs: statistics.median(xs)
print(f"median packet-hops/s  ref ({sys.argv[3]}) {med([r[0] for r in ref]):,.0f}   this {med([t[0] for t in this]):,.0f}")
print(f"median events/s       ref {med([r[1] for r in ref]):,.0f}   this {med([t[1] for t in this]):,.0f}")
print(f"median virtual/wall   ref {med([r[2] for r in ref]):.4f}   this {med([t[2] for t in this]):.4f}")
print(f"ratio (median of per-run hops/s ratios): {med([t[0] / r[0] for r, t in zip(ref, this)]):.2f}")
PY
