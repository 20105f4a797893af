#!/usr/bin/env bash
# Bootstrap (with the test-only packages: tools/bootstrap.sh --tests), build, and run every
# meson test suite (unit, interop, lab, cluster, vm, pkg, fuzz).
# The last line is "tests: N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
tools/bootstrap.sh --tests || exit 2
tools/build.sh --tests || exit 2

# libFuzzer needs clang; the harnesses live in their own build directory.
if [ ! -f build-fuzz/build.ninja ]; then
	CC=clang meson setup build-fuzz -Dfuzz=true -Dtests=disabled -Ddpdk=disabled -Dverbs=disabled >/dev/null || exit 2
fi
ninja -C build-fuzz >/dev/null || ninja -C build-fuzz || exit 2

meson test -C build --print-errorlogs --no-rebuild "$@"
main_rc=$?
meson test -C build-fuzz --print-errorlogs --no-rebuild --suite fuzz
fuzz_rc=$?

python3 - build/meson-logs/testlog.json build-fuzz/meson-logs/testlog.json <<'PY'
import json, sys
passed = failed = skipped = 0
for path in sys.argv[1:]:
    try:
        lines = open(path).read().splitlines()
    except OSError:
        continue
    for line in lines:
        r = json.loads(line).get("result")
        if r in ("OK", "EXPECTEDFAIL"):
            passed += 1
        elif r == "SKIP":
            skipped += 1
        else:
            failed += 1
print(f"tests: {passed} passed, {failed} failed, {skipped} skipped")
PY
[ $main_rc -eq 0 ] && [ $fuzz_rc -eq 0 ]
