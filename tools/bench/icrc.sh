#!/bin/sh
# Full vs incremental ICRC per packet. Builds the bench from the lib/wire
# sources into build/bench/ and fails when incremental is not at least 10x
# cheaper than full on 1024-byte packets (the reason incremental exists).
set -eu

root=$(cd "$(dirname "$0")/../.." && pwd)
out=${BUILD_DIR:-$root/build}/bench
cc=${CC:-cc}
min_ratio=${ICRC_MIN_RATIO:-10}

mkdir -p "$out"
w=$root/lib/wire
"$cc" -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -Werror -I"$root/lib" \
	"$root/tools/bench/icrc_bench.c" "$w/crc32.c" "$w/icrc.c" "$w/bth.c" "$w/ext.c" "$w/probe.c" \
	-o "$out/icrc_bench"

result=$("$out/icrc_bench")
echo "$result"

echo "$result" | awk -v min="$min_ratio" '
	/^size=1024 / {
		for (i = 1; i <= NF; i++)
			if ($i ~ /^ratio=/) { r = substr($i, 7); found = 1 }
	}
	END {
		if (!found) { print "icrc.sh: no size=1024 result" > "/dev/stderr"; exit 1 }
		if (r + 0 < min + 0) {
			printf "icrc.sh: 1024 B ratio %s is below %s\n", r, min > "/dev/stderr"; exit 1
		}
	}'
