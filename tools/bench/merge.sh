#!/bin/sh
# The merge of per-rank results at 1024 hosts all-to-all: 1024 ranks x 1023
# received flows = 1,047,552 flows (lib/stats/acct_pack.h). Builds
# build/tools/bench/merge_bench with meson and runs it: wall time of the
# streamed merge against a reference in the same invocation (memcpy of the
# same gathered bytes), rows per second, bytes per flow, peak RSS, and the
# full accountant's bytes per flow at the scale it fits, then rank 0's own
# path (a results_only accountant, rp_acct_merge_block, the report's pairs,
# flows.jsonl and pairs.jsonl): its time and peak RSS. Fails when the merge
# is more than MERGE_MAX_RATIO (default 100) times the memcpy, or when a
# row, a latency sample or a lost frame is missing. RANKS, FLOWS, SAMPLES,
# TEMPLATES, REPEAT, MERGED_RANKS, RUN0_MS override the scale; TEMPLATES=RANKS
# gives rank 0 every rank's own flows, as a run does (merge_bench.c); MODE=rank0
# runs rank 0's path alone.
set -eu

root=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD_DIR:-$root/build}
max_ratio=${MERGE_MAX_RATIO:-100}

[ -f "$build/build.ninja" ] || meson setup "$build" "$root" >/dev/null
ninja -C "$build" tools/bench/merge_bench >/dev/null

start=$(date +%s.%N)
result=$("$build/tools/bench/merge_bench")
end=$(date +%s.%N)
echo "$result"
awk -v a="$start" -v b="$end" 'BEGIN { printf "wall_s=%.3f\n", b - a }'

echo "$result" | awk -v max="$max_ratio" '
	{ for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] } }
	END {
		if (!("ratio" in v)) exit 0 # MODE=rank0: merge_bench checked its rows itself
		if (v["rows"] != v["flows"]) { printf "merge.sh: %s rows of %s flows\n", v["rows"], v["flows"] > "/dev/stderr"; exit 1 }
		if (v["count"] != v["rx"]) { printf "merge.sh: %s latency samples of %s received\n", v["count"], v["rx"] > "/dev/stderr"; exit 1 }
		if (v["ratio"] + 0 > max + 0) { printf "merge.sh: merge/memcpy ratio %s above %s\n", v["ratio"], max > "/dev/stderr"; exit 1 }
	}'
