#!/usr/bin/env bash
# compare_outputs.sh REF NEW [--dpdk|--dpdk-only]: the outputs of `plan`, `analyze`,
# `decode` and `switch` of two roceprobe binaries, byte for byte (stdout,
# stderr and exit status of each case). For a refactor that must not change
# what a command prints (issue 27: app/ keeps usage, options and a short
# main; the logic moved to lib/). Cases:
#  - plan, text and --json, of every profile in profiles/ and
#    tests/data/profiles/ (bad ones: their one error line), and with
#    --ranks/--per-node for the cluster profiles;
#  - analyze (text, --json, --latency, --bin-us, --speed) and decode (text,
#    --json) of mksample's capture, of captures the lab writes with
#    --capture (made once, by REF), of a capture cut inside a record, of
#    standard input, and their bad-input lines;
#  - switch --help and its errors for bad flags; with --dpdk (take
#    /tmp/rp-net.lock first: flock /tmp/rp-net.lock tools/compare_outputs.sh
#    ...) also the errors found after the EAL starts, and short runs on
#    net_null ports (elapsed time and the EAL's per-process prefix masked);
#    --dpdk-only: those alone, to hold the lock briefly.
# Prints one line per differing case and a count; exit 0 when all are the
# same, 1 otherwise.
set -uo pipefail
[ $# -ge 2 ] || { echo "usage: $0 REF NEW [--dpdk|--dpdk-only]" >&2; exit 2; }
REF=$(realpath "$1")
NEW=$(realpath "$2")
DPDK=${3:-}
cd "$(dirname "$0")/.."
ROOT=$PWD
MKSAMPLE=${MKSAMPLE:-$ROOT/build/tests/interop/mksample}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
bad=0

# case NAME [<STDIN] ARGS...: both binaries, with the same arguments, from $tmp.
run_case() {
	local name=$1 in=/dev/null
	shift
	if [ "${1:-}" = "--stdin" ]; then
		in=$2
		shift 2
	fi
	for who in ref new; do
		local bin=$REF
		[ $who = new ] && bin=$NEW
		(cd "$tmp" && "$bin" "$@" <"$in" >"$tmp/$who.out" 2>"$tmp/$who.err"; echo "exit $?" >>"$tmp/$who.err")
		if [ -n "${MASK:-}" ]; then
			sed -i -E "$MASK" "$tmp/$who.out" "$tmp/$who.err"
		fi
	done
	n=$((n + 1))
	if ! cmp -s "$tmp/ref.out" "$tmp/new.out" || ! cmp -s "$tmp/ref.err" "$tmp/new.err"; then
		bad=$((bad + 1))
		echo "DIFF $name: $*"
		diff "$tmp/ref.out" "$tmp/new.out" | head -5
		diff "$tmp/ref.err" "$tmp/new.err" | head -5
	fi
}

if [ "$DPDK" != --dpdk-only ]; then
# ---- plan ----
for p in "$ROOT"/profiles/*.yaml "$ROOT"/tests/data/profiles/*.yaml; do
	run_case "plan $(basename "$p")" plan "$p"
	run_case "plan --json $(basename "$p")" plan "$p" --json
done
run_case "plan cluster --ranks" plan "$ROOT/profiles/cluster-all2all-64.yaml" --ranks 64 --per-node 8
run_case "plan cluster --ranks --json" plan "$ROOT/profiles/cluster-all2all-64.yaml" --ranks 64 --per-node 8 --json
run_case "plan rails --ranks" plan "$ROOT/profiles/cluster-rails-4nic.yaml" --ranks 4
run_case "plan rails --ranks --json" plan "$ROOT/profiles/cluster-rails-4nic.yaml" --ranks 4 --json
run_case "plan --ranks left over" plan "$ROOT/profiles/incast-8to1.yaml" --ranks 3
run_case "plan --set" plan "$ROOT/profiles/all-to-all-8.yaml" --set defaults.message_size=1MiB --set traffic.0.rate=50G
run_case "plan --help" plan --help
run_case "plan no file" plan
run_case "plan --per-node alone" plan "$ROOT/profiles/incast-8to1.yaml" --per-node 2
run_case "plan missing" plan /nonexistent.yaml

# ---- captures: mksample's, the lab's, a cut one ----
caps=()
if [ -x "$MKSAMPLE" ]; then
	"$MKSAMPLE" "$tmp/sample.pcap" && caps+=("$tmp/sample.pcap")
fi
for prof in incast-8to1 lossy-lossless-mix victim-flow pfc-storm; do
	if "$REF" lab "$ROOT/profiles/$prof.yaml" -o "$tmp/lab-$prof" -q --capture \
		--set "traffic.0.messages=200" >/dev/null 2>&1 ||
		"$REF" lab "$ROOT/profiles/$prof.yaml" -o "$tmp/lab-$prof" -q --capture --force \
			--allow-pause-storm >/dev/null 2>&1; then
		# the first and last host's: a sender's and a receiver's wire
		c=("$tmp/lab-$prof"/capture-*.pcap)
		[ -f "${c[0]}" ] && caps+=("${c[0]}" "${c[-1]}")
	fi
done
if [ -f "$tmp/sample.pcap" ]; then
	sz=$(stat -c %s "$tmp/sample.pcap")
	head -c $((sz - 7)) "$tmp/sample.pcap" >"$tmp/cut.pcap"
	caps+=("$tmp/cut.pcap")
fi
echo "captures: ${#caps[@]}" # 10: mksample's, a cut one, 2 of each lab run
for c in "${caps[@]}"; do
	b=${c#"$tmp"/}
	run_case "decode $b" decode "$c"
	run_case "decode --json $b" decode --json "$c"
	run_case "analyze $b" analyze "$c"
	run_case "analyze --json $b" analyze --json "$c"
	run_case "analyze --latency $b" analyze --latency "$c"
	run_case "analyze --latency --json $b" analyze --json --latency "$c"
	run_case "analyze --bin-us --speed $b" analyze --json --bin-us 7 --speed 25G "$c"
done
if [ -f "$tmp/sample.pcap" ]; then
	run_case "decode stdin" --stdin "$tmp/sample.pcap" decode -
	run_case "analyze stdin" --stdin "$tmp/sample.pcap" analyze -
fi
printf 'not a capture at all' >"$tmp/junk.pcap"
for cmd in decode analyze; do
	run_case "$cmd --help" $cmd --help
	run_case "$cmd junk" $cmd "$tmp/junk.pcap"
	run_case "$cmd missing" $cmd /nonexistent.pcap
	run_case "$cmd none" $cmd
	run_case "$cmd --bogus" $cmd --bogus x
done
run_case "analyze --bin-us 0" analyze --bin-us 0 x.pcap
run_case "analyze --speed x" analyze --speed fast x.pcap
run_case "decode --json=1" decode --json=1 x.pcap

fi

# ---- switch ----
nul=(--port net_null0,no-rx=1 --port net_null1,no-rx=1)
run_case "switch --help" switch --help
run_case "switch no port" switch
run_case "switch --bogus" switch --bogus x
run_case "switch extra arg" switch "${nul[@]}" extra
run_case "switch --lossless 9" switch "${nul[@]}" --lossless 9
run_case "switch --lossless 3," switch "${nul[@]}" --lossless 3,
run_case "switch --ecn-prio x" switch "${nul[@]}" --ecn-prio x
run_case "switch --ecn bad" switch "${nul[@]}" --ecn 5KB,1KB,1%
run_case "switch --ecn garbage" switch "${nul[@]}" --ecn five
run_case "switch --ecn pmax" switch "${nul[@]}" --ecn 5KB,200KB,200%
run_case "switch --fdb no =" switch "${nul[@]}" --fdb 02:00:00:00:00:0c
run_case "switch --fdb multicast" switch "${nul[@]}" --fdb 01:00:00:00:00:0c=1
run_case "switch --fdb port 64" switch "${nul[@]}" --fdb 02:00:00:00:00:0c=64
run_case "switch --fdb port 5 of 2" switch "${nul[@]}" --fdb 02:00:00:00:00:0c=5
run_case "switch --cable" switch "${nul[@]}" --cable -3
run_case "switch --quanta 0" switch "${nul[@]}" --quanta 0
run_case "switch --max-frame 100" switch "${nul[@]}" --max-frame 100
run_case "switch --speed 0" switch "${nul[@]}" --speed 0
run_case "switch --buffer x" switch "${nul[@]}" --buffer lots
run_case "switch --xoff x" switch "${nul[@]}" --xoff lots
run_case "switch --xon-delta >= --xoff" switch "${nul[@]}" --xoff 10KiB --xon-delta 10KiB
run_case "switch --duration x" switch "${nul[@]}" --duration soon
run_case "switch --cpu x" switch "${nul[@]}" --cpu 99999
run_case "switch --profile missing" switch "${nul[@]}" --profile /nonexistent.yaml
run_case "switch --profile bad" switch "${nul[@]}" --profile "$ROOT/tests/data/profiles/bad-rate.yaml"
if [ "$DPDK" != --dpdk-only ]; then
ports=()
for i in $(seq 0 64); do ports+=(--port "net_null$i"); done
run_case "switch 65 ports" switch "${ports[@]}"
fi
if [ "$DPDK" = --dpdk ] || [ "$DPDK" = --dpdk-only ]; then
	lossless=("${nul[@]}" --lossless 3 --duration 1)
	run_case "switch --xoff 8MiB --buffer 4MiB" switch "${lossless[@]}" --buffer 4MiB --xoff 8MiB
	run_case "switch --quanta 1" switch "${lossless[@]}" --quanta 1
	run_case "switch --cpu 4000" switch "${nul[@]}" --cpu 1000 --duration 1
	MASK='s/file-prefix=rp[0-9]+/file-prefix=rpPID/'
	run_case "switch bad port" switch --port net_bogus0 --port net_null1 --duration 1
	MASK='s/[0-9]+\.[0-9]{3} s/T s/; s/"elapsed_s":[0-9.e+-]+/"elapsed_s":T/; s/^switch +[0-9.]+s/switch Ts/'
	run_case "switch run text" switch "${nul[@]}" --lossless 3 --ecn 5KB,200KB,1% --duration 300ms \
		--fdb 02:00:00:00:00:0c=1 --mac-learn
	run_case "switch run --json" switch "${nul[@]}" --duration 300ms --json --no-flood --trust-pcp \
		--profile "$ROOT/profiles/incast-8to1.yaml" --capture "$tmp/sw.pcap"
	unset MASK
fi

echo "$n cases, $bad different"
[ $bad -eq 0 ]
