#!/usr/bin/env bash
# Configures (once) and builds roceprobe into build/.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -f build/build.ninja ]; then
	meson setup build -Dtests=enabled >/dev/null
fi
ninja -C build >/dev/null || ninja -C build
