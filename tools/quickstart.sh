#!/usr/bin/env bash
# Bootstrap, build, and run roceprobe's main jobs:
#  1. the embedded lab: profiles/incast-8to1.yaml (8 senders -> 1 receiver through an
#     emulated 100G PFC/ECN switch, in virtual time), its summary and plots;
#  2. a real DPDK run: profiles/back-to-back.yaml (two hosts wired in one process,
#     faults put there on purpose) and an offline analysis of the receiver's capture;
#  3. a sample capture of every packet kind (results/sample/sample.pcap) for `decode`.
# Everything lands in results/, made here from nothing (CI runs this on a clean clone).
set -euo pipefail
cd "$(dirname "$0")/.."
tools/bootstrap.sh
tools/build.sh

log=$(mktemp)
trap 'rm -f "$log"' EXIT
# A step's progress lines go to $log; shown only when the step fails.
quiet() {
	"$@" 2>"$log" || { rc=$?; cat "$log" >&2; echo "quickstart: failed: $*" >&2; exit $rc; }
}

lab=results/incast-8to1
rm -rf "$lab"
quiet build/app/roceprobe lab profiles/incast-8to1.yaml -o "$lab" -q
quiet tools/plot "$lab" > /dev/null

run=results/back-to-back
rm -rf "$run"
echo
quiet build/app/roceprobe run profiles/back-to-back.yaml -o "$run" --capture > /dev/null
# the table, what its Gbit/s is, and every warning whole (a warning's Gbit/s is what was sent)
sed -n '1,5p;/: warning: /p' "$run/summary.txt"
quiet tools/plot "$run" > /dev/null
echo
quiet build/app/roceprobe analyze "$run/capture-h2.pcap" > "$log.analyze"
sed -n '1,5p' "$log.analyze"
rm -f "$log.analyze"

sample=results/sample
rm -rf "$sample"
mkdir -p "$sample"
quiet build/tests/interop/mksample "$sample/sample.pcap"

echo
echo "lab:   $lab/summary.txt $lab/result.json $lab/qdepth.csv"
echo "       plots: $lab/latency_cdf.png $lab/pfc_timeline.png $lab/goodput.png $lab/heatmaps.png"
echo "run:   $run/summary.txt $run/result.json $run/capture-h1.pcap $run/capture-h2.pcap"
echo "       plots: $run/latency_cdf.png $run/pfc_timeline.png $run/goodput.png $run/heatmaps.png"
echo "decode: build/app/roceprobe decode $sample/sample.pcap (every packet kind, ICRC checked)"
