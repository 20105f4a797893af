#!/bin/sh
# The lab at 8192 NICs and beyond (issue 29): each profile planned and sized
# (`plan --size`: the estimate of the run's peak resident memory), then run
# whole by `roceprobe lab` under /usr/bin/time; prints the run's CPU seconds,
# its max RSS, the estimate's error against it, and the result's loss and
# goodput. Minutes and GiBs: one at a time (flock on LOCK), never in CI (the
# tests plan and size these profiles only: tests/lab size-big).
#
#   tools/bench/scale.sh                                  # both 8192-NIC profiles
#   PROFILES="profiles/fat-tree-8192.yaml" tools/bench/scale.sh
set -eu

root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${BUILD_DIR:-$root/build}/app/roceprobe
lock=${LOCK:-/tmp/rp-big.lock}
profiles=${PROFILES:-"$root/profiles/fat-tree-8192.yaml $root/profiles/rail-pods-8192.yaml"}
[ -x "$bin" ] || { echo "scale.sh: no $bin (build first, or set BUILD_DIR)" >&2; exit 2; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

for p in $profiles; do
	name=$(basename "$p" .yaml)
	est=$("$bin" plan "$p" --size | awk '$1 == "total" {print $4, $5}')
	flock "$lock" /usr/bin/time -f "%U %S %M" -o "$out/time" "$bin" lab "$p" -o "$out/$name" -q >/dev/null 2>"$out/err" ||
		{ echo "scale.sh: $name: lab failed: $(tail -1 "$out/err")" >&2; exit 1; }
	/usr/bin/python3 - "$name" "$out/time" "$out/$name/summary.txt" "$est" <<'PY'
import re, sys
name, timef, summary, est = sys.argv[1:5]
u, s, m = (float(x) for x in open(timef).read().split()[-3:])
num, unit = est.split()
mib = float(num) * {"KiB": 1 / 1024, "MiB": 1, "GiB": 1024}[unit]
rss = m / 1024
loss = re.search(r"^loss .*", open(summary).read(), re.M)
print(f"{name}: {u + s:.1f} CPU s, max RSS {rss:.0f} MiB, plan --size {mib:.0f} MiB ({mib / rss - 1:+.1%}); "
      f"{loss.group(0) if loss else 'no loss line'}")
PY
	rm -rf "${out:?}/$name"
done
