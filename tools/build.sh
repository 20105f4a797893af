#!/usr/bin/env bash
# Configures (once) and builds roceprobe into build/.
#   tools/build.sh          what the quickstart runs
#   tools/build.sh --tests  the same build with the test suites' options: MPI required
#                           (tools/bootstrap.sh --tests installed it; a build/ the
#                           quickstart configured without it is reconfigured)
set -euo pipefail
cd "$(dirname "$0")/.."
opts=(-Dtests=enabled)
[ "${1:-}" = --tests ] && opts+=(-Dmpi=enabled)
if [ ! -f build/build.ninja ]; then
	meson setup build "${opts[@]}" >/dev/null
elif [ "${1:-}" = --tests ] &&
	! meson introspect build --buildoptions | python3 -c '
import json, sys
sys.exit(0 if any(o["name"] == "mpi" and o["value"] == "enabled" for o in json.load(sys.stdin)) else 1)'; then
	meson configure build "${opts[@]}" >/dev/null
fi
ninja -C build >/dev/null || ninja -C build
