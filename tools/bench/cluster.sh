#!/usr/bin/env bash
# Launch-to-first-packet and start skew of `roceprobe run` across N ranks on this machine
# (net_null ports, host i -> host i+1), against the reference in the same invocation: the
# launch of `mpirun -np N true` (what any MPI tool pays before its first line of code).
#   launch-to-T0 = result.json cluster.start_ns - the wall clock when mpirun was started
#   skew         = the largest |start_skew_ns| of the ranks (how late a rank's clock started)
#   first packet = launch-to-T0 + skew: when the last rank's first packet left at the latest
# usage: tools/bench/cluster.sh [N ...]   (default: 4 16)
set -euo pipefail
cd "$(dirname "$0")/../.."
rp=build/app/roceprobe
[ -x "$rp" ] || { echo "cluster.sh: build first (tools/build.sh)" >&2; exit 2; }
command -v mpirun >/dev/null || { echo "cluster.sh: mpirun is missing (openmpi-bin)" >&2; exit 2; }
work=$(mktemp -d /tmp/rp-bench-cluster.XXXXXX)
trap 'rm -rf "$work"' EXIT
mpi=(mpirun --allow-run-as-root --oversubscribe)
for n in "${@:-4 16}"; do
	for n1 in $n; do
		prof="$work/ring-$n1.yaml"
		{
			echo "hosts:"
			for ((i = 0; i < n1; i++)); do
				printf '  - {name: h%d, mac: "02:00:00:00:%02x:%02x", ipv4: 10.95.%d.%d, port: net_null%d}\n' \
					"$i" $((i / 256)) $((i % 256)) $((i / 256)) $((i % 256 + 1)) "$i"
			done
			echo "traffic:"
			for ((i = 0; i < n1; i++)); do
				echo "  - {pattern: flow, src: h$i, dst: h$(((i + 1) % n1)), rate: 1G, packets: 1000}"
			done
		} >"$prof"
		t0=$(date +%s%N)
		"${mpi[@]}" -np "$n1" true
		ref=$(($(date +%s%N) - t0))
		t0=$(date +%s%N)
		"${mpi[@]}" -np "$n1" "$rp" run "$prof" -o "$work/out-$n1" >/dev/null 2>"$work/err-$n1" ||
			{ cat "$work/err-$n1" >&2; exit 1; }
		/usr/bin/python3 - "$work/out-$n1/result.json" "$t0" "$ref" "$n1" <<'PY'
import json, sys
j, t0, ref, n = json.load(open(sys.argv[1])), int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
c = j["cluster"]
launch = c["start_ns"] - t0
skew = max(abs(r["start_skew_ns"]) for r in c["ranks"])
bound = max(r["clock_bound_ns"] for r in c["ranks"])
print(f"{n:3d} ranks: launch-to-T0 {launch / 1e6:8.1f} ms (mpirun -np {n} true: {ref / 1e6:7.1f} ms, "
      f"ratio {launch / ref:5.2f}); launch-to-first-packet {(launch + skew) / 1e6:8.1f} ms; "
      f"start skew max {skew / 1e3:7.1f} us; clock bound max {bound / 1e3:6.1f} us")
PY
	done
done
