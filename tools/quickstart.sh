#!/usr/bin/env bash
# Bootstrap, build, and run roceprobe's main jobs:
#  1. the embedded lab: profiles/incast-8to1.yaml (8 senders -> 1 receiver through an
#     emulated 100G PFC/ECN switch, in virtual time), its summary and plots;
#  2. a real DPDK run: profiles/back-to-back.yaml (two hosts wired in one process,
#     faults put there on purpose) and an offline analysis of the receiver's capture.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/bootstrap.sh
tools/build.sh

lab=results/incast-8to1
rm -rf "$lab"
build/app/roceprobe lab profiles/incast-8to1.yaml -o "$lab" -q
tools/plot "$lab" > /dev/null

run=results/back-to-back
rm -rf "$run"
echo
build/app/roceprobe run profiles/back-to-back.yaml -o "$run" --capture 2>/dev/null | head -n 4
tools/plot "$run" > /dev/null
echo
build/app/roceprobe analyze "$run/capture-h2.pcap" | sed -n '1,5p'

echo
echo "lab:   $lab/summary.txt $lab/result.json $lab/qdepth.csv"
echo "       plots: $lab/latency_cdf.png $lab/pfc_timeline.png $lab/goodput.png"
echo "run:   $run/summary.txt $run/result.json $run/capture-h1.pcap $run/capture-h2.pcap"
echo "       plots: $run/latency_cdf.png $run/pfc_timeline.png $run/goodput.png"
