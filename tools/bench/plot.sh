#!/bin/sh
# tools/plot at the scale it is for: profiles/all-to-all-192.yaml (192 hosts all-to-all,
# 36,672 flows: result.json keeps none of them, flows.jsonl and pairs.jsonl hold them) run
# once in the lab, then tools/plot on its directory RUNS times: each run's wall seconds
# and CPU seconds and peak RSS, and the medians. The target (issue 34): under 10 s on the
# project's 2-core VM; the wall time there follows the other jobs' load, the CPU time much
# less. A bench, not a test: nothing fails on time.
#
# With REF=<commit> the same directory is also drawn by that commit's tools/plot (from
# git show), alternating with this tree's, and the median ratio (this tree / REF) printed.
#
#   tools/bench/plot.sh                    # build/ by default; BUILD_DIR=build-l to choose
#   RUNS=5 tools/bench/plot.sh
#   PROFILE=profiles/all-to-all-16.yaml tools/bench/plot.sh
#   REF=90ddd54 tools/bench/plot.sh
set -eu

root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${BUILD_DIR:-$root/build}/app/roceprobe
runs=${RUNS:-3}
profile=${PROFILE:-$root/profiles/all-to-all-192.yaml}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

[ -x "$bin" ] || { echo "plot.sh: no $bin (build first, or set BUILD_DIR)" >&2; exit 2; }
"$bin" lab "$profile" -o "$out/run" -q > /dev/null
echo "plot.sh: $(basename "$profile"): $(ls -l "$out/run" | awk 'NR > 1 {printf "%s %d B  ", $9, $5}')"
if [ -n "${REF:-}" ]; then
	git -C "$root" show "$REF:tools/plot" > "$out/plot-ref"
	chmod +x "$out/plot-ref"
fi

# one timed draw: "SECONDS PEAK_KB USER_S SYS_S"
draw() {
	rm -rf "$out/png"
	/usr/bin/time -f '%e %M %U %S' -o "$out/time" "$1" "$out/run" -o "$out/png" > /dev/null
	cat "$out/time"
}

: > "$out/this"
: > "$out/ref"
fmt() { echo "$1 s wall, $(echo "$3 $4" | awk '{printf "%.2f", $1 + $2}') s CPU, peak $2 KB"; }
i=0
while [ "$i" -lt "$runs" ]; do
	t=$(draw "$root/tools/plot")
	echo "$t" >> "$out/this"
	line="run $((i + 1)): this tree $(fmt $t)"
	if [ -n "${REF:-}" ]; then
		r=$(draw "$out/plot-ref")
		echo "$r" >> "$out/ref"
		line="$line; $REF $(fmt $r)"
	fi
	echo "$line"
	i=$((i + 1))
done
median() { sort -n | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
m=$(cut -d' ' -f1 "$out/this" | median)
c=$(awk '{print $3 + $4}' "$out/this" | median)
echo "median: this tree $m s wall, $c s CPU (target: under 10 s)"
if [ -n "${REF:-}" ]; then
	r=$(cut -d' ' -f1 "$out/ref" | median)
	echo "median: $REF $r s; ratio this / $REF: $(echo "$m $r" | awk '{printf "%.2f", $2 ? $1 / $2 : 0}')"
fi
