#!/usr/bin/env bash
# Bootstrap, build, and run roceprobe's main job.
# Until the embedded lab lands, the main job builds a sample RoCEv2 capture with
# lib/wire (every packet kind, one corrupted ICRC, one truncated frame) and decodes it.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/bootstrap.sh
tools/build.sh

out=results/sample
mkdir -p "$out"
build/tests/interop/mksample "$out/sample.pcap"
build/app/roceprobe decode "$out/sample.pcap" | tee "$out/decode.txt"
build/app/roceprobe decode --json "$out/sample.pcap" > "$out/decode.jsonl"
echo
echo "capture:  $out/sample.pcap   (open it in tshark/wireshark too)"
echo "decoded:  $out/decode.txt  $out/decode.jsonl"
