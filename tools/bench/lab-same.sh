#!/bin/sh
# Whether this tree's `roceprobe lab` writes the same files as REF's on every
# shipped profile `lab` accepts: result.json bar its environment's wall-clock
# fields (started, wall_s, events_per_s, virtual_per_wall), summary.txt bar its
# wall-time figure, qdepth.csv and
# every pcap, captured whole (--snaplen 65535, so ICRCs and payloads count).
# Prints one line per profile (same / DIFFERENT / skipped: lab refuses it) and
# exits 1 when any differs. REF's build is lab.sh's cache (REF_CACHE).
#
#   REF=main tools/bench/lab-same.sh
#   REF=main PROFILES="profiles/incast-8to1.yaml" tools/bench/lab-same.sh
set -eu

root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${BUILD_DIR:-$root/build}/app/roceprobe
[ -x "$bin" ] || { echo "lab-same.sh: no $bin (build first, or set BUILD_DIR)" >&2; exit 2; }
[ -n "${REF:-}" ] || { echo "lab-same.sh: set REF=<commit>" >&2; exit 2; }
. "$root/tools/bench/ref_build.sh"
refbin=$(ref_build lab-same.sh "$REF") || exit 2
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# result.json without the wall-clock keys, summary.txt without "N.NN s wall".
norm() { # $1 dir
	/usr/bin/python3 - "$1/result.json" >"$1/result.norm" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
for k in ("started", "wall_s", "events_per_s", "virtual_per_wall"):
	j["environment"].pop(k, None)
print(json.dumps(j, sort_keys=True, indent=1))
PY
	sed -E 's/[0-9.]+ s wall/N s wall/' "$1/summary.txt" >"$1/summary.norm"
	rm "$1/result.json" "$1/summary.txt"
}

bad=0
for p in ${PROFILES:-$root/profiles/*.yaml}; do
	name=$(basename "$p" .yaml)
	set -- -q --capture --snaplen 65535
	# A profile that sends a pause storm on purpose says so (pfc-storm).
	grep -q -- '--allow-pause-storm' "$p" && set -- "$@" --allow-pause-storm
	if ! "$refbin" lab "$p" -o "$out/$name/ref" "$@" >/dev/null 2>"$out/err"; then
		echo "$name: skipped ($(head -1 "$out/err"))"
		continue
	fi
	"$bin" lab "$p" -o "$out/$name/new" "$@" >/dev/null
	norm "$out/$name/ref"
	norm "$out/$name/new"
	if diff -r "$out/$name/ref" "$out/$name/new" >/dev/null; then
		echo "$name: same ($(ls "$out/$name/new" | wc -l) files)"
	else
		echo "$name: DIFFERENT: $(diff -rq "$out/$name/ref" "$out/$name/new" | head -3 | tr '\n' ' ')"
		bad=1
	fi
	rm -rf "${out:?}/$name"
done
exit $bad
