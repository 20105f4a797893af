#!/bin/sh
# roceprobe lab throughput on profiles/incast-8to1.yaml: packet-hops (frames
# put on a virtual wire) per wall second, events per second, and the ratio
# of virtual time emulated to wall time (1.0 = real time; a 100G fabric
# below 1.0 runs slower than the real one would). The reference is the same
# run with its per-packet work unchanged and MESSAGES times more traffic, so
# fixed start-up cost does not count; no timed unit test, just numbers.
#
#   tools/bench/lab.sh                 # build/ by default; BUILD_DIR=build-l to choose
#   MESSAGES=4000 tools/bench/lab.sh
set -eu

root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${BUILD_DIR:-$root/build}/app/roceprobe
messages=${MESSAGES:-2000}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

[ -x "$bin" ] || { echo "lab.sh: no $bin (build first, or set BUILD_DIR)" >&2; exit 2; }

run() { # $1 messages $2 dir
	"$bin" lab "$root/profiles/incast-8to1.yaml" -o "$2" -q --set "traffic.0.messages=$1" >/dev/null
}

run 100 "$out/small"
run "$messages" "$out/big"

/usr/bin/python3 - "$out/small/result.json" "$out/big/result.json" "$messages" <<'PY'
import json, sys
s, b = (json.load(open(p)) for p in sys.argv[1:3])
def nums(j):
    w = j["environment"]["wall_s"]
    return j["lab"]["hops"], j["lab"]["events"], j["lab"]["virtual_ns"], w
hs, es, vs, ws = nums(s)
hb, eb, vb, wb = nums(b)
dw = max(wb - ws, 1e-9)
print(f"incast-8to1, {sys.argv[3]} messages per sender: {hb} hops, {eb} events, {vb/1e6:.3f} ms virtual in {wb:.3f} s wall")
print(f"packet-hops/s      {(hb - hs) / dw:,.0f}")
print(f"events/s           {(eb - es) / dw:,.0f}")
print(f"virtual/wall       {(vb - vs) / 1e9 / dw:.4f}  (1 s of 100G incast takes {dw / ((vb - vs) / 1e9):.1f} s)")
PY
