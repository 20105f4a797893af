#!/usr/bin/env bash
# decode --json against decode (text) on the same large capture, in one
# invocation: prints each run and the ratio json-time / text-time of the best
# runs. The capture is mksample's sample (every packet kind: RoCE of every
# opcode, IPv6, VLAN, CNP, PFC, PAUSE, ARP, a snaplen-cut frame, a bad ICRC)
# repeated to FRAMES frames. Both outputs go to files (as a user's redirect
# would), so the cost of writing them counts. Fails when the ratio is above
# MAX_RATIO: --json must not cost much more than text (it was 7-9x when each
# line was a jansson tree).
#
#   FRAMES=300000 RUNS=3 MAX_RATIO=2 BUILD_DIR=build tools/bench/decode.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
frames=${FRAMES:-300000}
runs=${RUNS:-3}
max_ratio=${MAX_RATIO:-2}
if [ -z "${BUILD_DIR:-}" ]; then
	tools/build.sh
	BUILD_DIR=build
fi
roceprobe=$BUILD_DIR/app/roceprobe
mksample=$BUILD_DIR/tests/interop/mksample
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rp-bench-decode-XXXXXX")
trap 'rm -rf "$tmp"' EXIT

"$mksample" "$tmp/sample.pcap"
python3 - "$tmp/sample.pcap" "$tmp/big.pcap" "$frames" <<'PY'
import struct
import sys

src, dst, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
data = open(src, "rb").read()
end = "<" if data[:4] in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1") else ">"
recs, off = [], 24
while off + 16 <= len(data):
    _, _, cap, wire = struct.unpack(end + "IIII", data[off:off + 16])
    recs.append((cap, wire, data[off + 16:off + 16 + cap]))
    off += 16 + cap
with open(dst, "wb") as out:
    out.write(data[:24])
    for i in range(n):
        cap, wire, b = recs[i % len(recs)]
        out.write(struct.pack(end + "IIII", 1700000000 + i // 1000, (i % 1000) * 1000, cap, wire))
        out.write(b)
PY

# Best (smallest) wall time of RUNS runs, in ns; text and json alternate.
best_text=0
best_json=0
now() { date +%s%N; }
for r in $(seq "$runs"); do
	t0=$(now)
	"$roceprobe" decode "$tmp/big.pcap" >"$tmp/out.txt"
	t1=$(now)
	"$roceprobe" decode --json "$tmp/big.pcap" >"$tmp/out.json"
	t2=$(now)
	text=$((t1 - t0))
	json=$((t2 - t1))
	echo "run $r: text $((text / 1000000)) ms, json $((json / 1000000)) ms"
	if [ "$best_text" -eq 0 ] || [ "$text" -lt "$best_text" ]; then best_text=$text; fi
	if [ "$best_json" -eq 0 ] || [ "$json" -lt "$best_json" ]; then best_json=$json; fi
done
lines=$(wc -l <"$tmp/out.json")
if [ "$lines" -ne $((frames + 1)) ]; then
	echo "decode.sh: --json printed $lines lines for $frames frames (+1 summary)" >&2
	exit 1
fi
awk -v t="$best_text" -v j="$best_json" -v n="$frames" -v max="$max_ratio" 'BEGIN {
	r = j / t
	printf "decode %d frames: text %.3f s, json %.3f s, ratio json/text %.2f\n", n, t / 1e9, j / 1e9, r
	if (r > max) {
		printf "decode.sh: ratio %.2f is above %s\n", r, max > "/dev/stderr"
		exit 1
	}
}'
