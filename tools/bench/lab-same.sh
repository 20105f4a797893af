#!/bin/sh
# Whether this tree's `roceprobe lab` writes the same bytes as REF's on every
# shipped profile `lab` runs within LIMIT seconds (default 60): result.json bar
# the values of its environment's wall-clock fields (started, wall_s,
# events_per_s, virtual_per_wall), summary.txt bar its wall-time figure,
# qdepth.csv and every pcap, captured whole (--capture --snaplen 65535, so ICRCs
# and payloads count); then one sweep (SWEEP_PROFILE, two points) for
# sweep.csv, sweep.json and its point-N directories. Files are compared byte
# for byte after that masking (cmp), not as parsed JSON. Prints one line per
# profile (same / DIFFERENT / skipped: lab refuses it, or REF took longer than
# LIMIT) and exits 1 when any differs. REF is a commit (built into lab.sh's
# cache, REF_CACHE) or a roceprobe binary. SKIP (default fat-tree-1024: minutes
# and 7.5 GB; tools/bench/lab-output.sh measures it under /tmp/rp-big.lock)
# names profiles left out.
#
#   REF=main tools/bench/lab-same.sh
#   REF=/work/ref/roceprobe-bf387cc PROFILES="profiles/incast-8to1.yaml" tools/bench/lab-same.sh
set -eu

root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${BUILD_DIR:-$root/build}/app/roceprobe
limit=${LIMIT:-60}
[ -x "$bin" ] || { echo "lab-same.sh: no $bin (build first, or set BUILD_DIR)" >&2; exit 2; }
[ -n "${REF:-}" ] || { echo "lab-same.sh: set REF=<commit or binary>" >&2; exit 2; }
. "$root/tools/bench/ref_build.sh"
refbin=$(ref_build lab-same.sh "$REF") || exit 2
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# Every result.json under $1 with the wall-clock values masked, every
# summary.txt without "N.NN s wall", $2 (the run's directory) as DIR.
norm() { # $1 dir $2 the directory name to mask
	find "$1" -name result.json -o -name summary.txt -o -name sweep.json | while read -r f; do
		sed -E -e 's/^( *"started": )"[^"]*"/\1"T"/' \
			-e 's/^( *"(wall_s|events_per_s|virtual_per_wall)": )[-+0-9.eE]+/\1N/' \
			-e 's/[0-9.]+ s wall/N s wall/' -e "s|$2|DIR|g" "$f" >"$f.norm"
		mv "$f.norm" "$f"
	done
}

same() { # $1 name $2 ref dir $3 new dir
	norm "$2" "$2"
	norm "$3" "$3"
	if diff -r "$2" "$3" >/dev/null; then
		echo "$1: same ($(find "$3" -type f | wc -l) files)"
	else
		echo "$1: DIFFERENT: $(diff -rq "$2" "$3" | head -3 | tr '\n' ' ')"
		bad=1
	fi
}

bad=0
for p in ${PROFILES:-$root/profiles/*.yaml}; do
	name=$(basename "$p" .yaml)
	case " ${SKIP-fat-tree-1024} " in *" $name "*) echo "$name: skipped (SKIP)"; continue ;; esac
	set -- -q --capture --snaplen 65535
	# A profile that sends a pause storm on purpose says so (pfc-storm).
	grep -q -- '--allow-pause-storm' "$p" && set -- "$@" --allow-pause-storm
	if ! timeout "$limit" "$refbin" lab "$p" -o "$out/$name/ref" "$@" >/dev/null 2>"$out/err"; then
		echo "$name: skipped ($(head -1 "$out/err" | cut -c1-100)${limit:+; or over ${limit} s})"
		rm -rf "${out:?}/$name"
		continue
	fi
	"$bin" lab "$p" -o "$out/$name/new" "$@" >/dev/null
	same "$name" "$out/$name/ref" "$out/$name/new"
	rm -rf "${out:?}/$name"
done

# A sweep: sweep.csv, sweep.json and each point's files.
sp=${SWEEP_PROFILE:-$root/profiles/incast-8to1.yaml}
set -- -q --set traffic.0.messages=40 --sweep fabric.pfc.xoff=64KiB,256KiB
"$refbin" lab "$sp" -o "$out/sweep/ref" "$@" >/dev/null
"$bin" lab "$sp" -o "$out/sweep/new" "$@" >/dev/null
same "sweep $(basename "$sp" .yaml)" "$out/sweep/ref" "$out/sweep/new"
exit $bad
