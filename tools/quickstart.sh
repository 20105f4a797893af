#!/usr/bin/env bash
# Bootstrap, build, and run roceprobe's main job: a real DPDK run of
# profiles/back-to-back.yaml (two hosts wired in one process, faults put there on
# purpose), its result and summary, and an offline analysis of the receiver's capture.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/bootstrap.sh
tools/build.sh

out=results/back-to-back
rm -rf "$out"
build/app/roceprobe run profiles/back-to-back.yaml -o "$out" --capture
echo
build/app/roceprobe analyze "$out/capture-h2.pcap" | head -n 12
echo
tools/plot "$out" > /dev/null
echo "result:   $out/result.json"
echo "plots:    $out/latency_cdf.png $out/pfc_timeline.png $out/goodput.png"
echo "summary:  $out/summary.txt"
echo "captures: $out/capture-h1.pcap $out/capture-h2.pcap (tshark reads them; 'roceprobe decode' checks ICRCs)"
