#!/usr/bin/env bash
# The same tool on N lcores against itself on one, in the same invocation,
# alternating runs: `roceprobe run --lcores N` vs `--lcores 1`. tx.sh and rx.sh
# run it when LCORES=N is set (LCORES=2 tools/bench/tx.sh).
#   tx: one host sending N flows (100% of 1000G each, 82 B SEND ONLY with the
#       probe) on net_null (no RX); packets sent per wall second.
#   rx: a replayed capture (4096 frames, one flow over 8 QPs, net_pcap
#       infinite_rx with the file once per RX queue: the PMD has no RSS, so each
#       queue replays it whole); frames accounted per wall second (parse, ICRC,
#       sequence and histogram for every frame). PORTS=N: N receivers instead,
#       each its own flow on a one-queue net_pcap port replaying its frames, the
#       ports spread over the lcores (a one-queue port is one lcore's): net_pcap's
#       queues of one port do not scale (testpmd 1.44-1.49x on 2), its ports do.
# With --lcores N the pollers are N worker lcores and the main thread sleeps;
# with 1 the main lcore polls. The reference is one lcore on each of the CPUs
# the N share (ONE_CPUS, default 0..N-1 of this machine's), one run on each per
# round, averaged: the two vCPUs of the VM these figures come from do not
# run alike (on 2026-12-02 CPU 1 sent 0.62x CPU 0's packets, and testpmd
# 0.70x), so N lcores can give at most the sum of their CPUs' single rates,
# 1.62x CPU 0's alone that day, however well they scale. Against that mean,
# perfect scaling is N. Prints each run and the ratio of the medians, and
# packets per CPU second (user + system, set-up included): on a shared machine a
# poller gets only part of a core (other DPDK runs default to CPU 0 too), so the
# wall-clock ratio can exceed N; per CPU second, perfect scaling is 1.0.
# Each round also runs dpdk-testpmd (txonly / rxonly) on the same PMD, one
# queue on each CPU and N queues on N cores: how far the PMD itself scales
# (net_pcap's RX queues do not, alike for both tools). TESTPMD=0 skips it.
set -euo pipefail
cd "$(dirname "$0")/../.."
. tools/bench/stats.sh
mode=$1
n=${2:-2}
runs=${RUNS:-3}
secs=${SECS:-3}
frame=${FRAME:-82}
tools/build.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp" /var/run/dpdk/rplc$$' EXIT  # testpmd leaves its runtime dir

tx_profile() { # $1 = flows
	echo "name: lcores-tx"
	echo "defaults: {speed: 1000G, opcode: send, message_size: $((frame - 58)), mtu: 4096, dscp: 26, ecn: ect0}"
	echo "hosts:"
	echo "  - {name: tx, mac: \"02:00:00:00:00:01\", ipv4: 192.0.2.1, port: \"net_null0,no-rx=1\"}"
	echo "  - {name: rx, mac: \"02:00:00:00:00:02\", ipv4: 192.0.2.2, port: \"net_null1,no-rx=1\"}"
	echo "traffic:"
	for f in $(seq "$1"); do
		echo "  - {name: f$f, pattern: flow, src: tx, dst: rx, rate: 100%, duration: ${secs}s}"
	done
}

ports=${PORTS:-1}
rx_profile() { # $1 = sender port, $2 = messages, $3... = each receiver's port (none: no port)
	local tx=$1 msgs=$2 r
	shift 2
	echo "name: lcores-rx"
	echo "defaults: {speed: 100G, opcode: send, message_size: $((frame - 58)), mtu: 4096, dscp: 26, ecn: ect0}"
	echo "hosts:"
	echo "  - {name: tx, mac: \"02:00:00:00:00:01\", ipv4: 192.0.2.1, port: \"$tx\"}"
	for r in $(seq "$ports"); do
		echo "  - {name: rx$r, mac: \"02:00:00:00:01:$(printf %02x "$r")\", ipv4: 192.0.2.$((r + 1))${1:+, port: \"$1\"}}"
		[ $# -gt 0 ] && shift
	done
	echo "traffic:"
	for r in $(seq "$ports"); do
		echo "  - {name: f$r, pattern: flow, src: tx, dst: rx$r, qps: 8, rate: 1G, messages: $msgs}"
	done
}

if [ "$mode" = tx ]; then
	tx_profile "$n" > "$tmp/p.yaml"
elif [ "$mode" = rx ]; then
	rx_profile "net_pcap0,tx_pcap=$tmp/in.pcap" 512 > "$tmp/make.yaml"
	build/app/roceprobe gen "$tmp/make.yaml" > /dev/null 2>&1
	if [ "$ports" = 1 ]; then
		rxq=""
		for q in $(seq "$n"); do rxq="$rxq,rx_pcap=$tmp/in.pcap"; done
		rx_profile "net_null0,no-rx=1" 1 "net_pcap1$rxq,infinite_rx=1" > "$tmp/p.yaml"
		# one lcore polls one queue: its port replays one stream (a stream no lcore polls is refused)
		rx_profile "net_null0,no-rx=1" 1 "net_pcap1,rx_pcap=$tmp/in.pcap,infinite_rx=1" > "$tmp/p1.yaml"
	else # each receiver's frames (its MAC as the destination) in a file of its own
		python3 -c "import sys; sys.path.insert(0, 'tests/lib'); from check import split_by_dst_mac
split_by_dst_mac('$tmp/in.pcap', {bytes([2, 0, 0, 0, 1, r]): f'$tmp/in{r}.pcap' for r in range(1, $ports + 1)})"
		rxp=()
		for r in $(seq "$ports"); do rxp+=("net_pcap$r,rx_pcap=$tmp/in$r.pcap,infinite_rx=1"); done
		rx_profile "net_null0,no-rx=1" 1 "${rxp[@]}" > "$tmp/p.yaml"
	fi
else
	echo "usage: lcores.sh tx|rx [N]" >&2
	exit 2
fi

ncpu=$(nproc)
one_cpus=${ONE_CPUS:-$(seq 0 $(( (n < ncpu ? n : ncpu) - 1 )))}

pps() { # $1 = lcores ($2 = the CPU of 1): packets (tx: sent by tx, rx: accounted at rx) per wall second of the run
	rm -rf "$tmp/out"
	local extra=()
	[ "$mode" = rx ] && extra=(--duration "$secs")
	# $2: the 1-lcore run's CPU.
	[ "$1" = 1 ] && extra+=(--eal "-l $2")
	local prof="$tmp/p.yaml"
	[ "$1" = 1 ] && [ -f "$tmp/p1.yaml" ] && prof="$tmp/p1.yaml"
	/usr/bin/time -f "%U %S" -o "$tmp/time" build/app/roceprobe run "$prof" -o "$tmp/out" --lcores "$1" \
		"${extra[@]}" > /dev/null 2>&1
	python3 -c "import json; j=json.load(open('$tmp/out/result.json')); s=j['elapsed_ns']/1e9
if '$mode' == 'tx': n=[p for p in j['environment']['ports'] if p['node']=='tx'][0]['tx_packets']
else: n=sum(p['rx_frames'] for p in j['ports'] if p['node'].startswith('rx'))
cpu=sum(map(float, open('$tmp/time').read().split()))
print(int(n/s), int(n/max(cpu, 0.01)), ','.join(f\"{l['busy_share']:.2f}\" for l in j['environment']['lcores']))"
}

# testpmd's packets per second on $2 queues, its lcores placed by --lcores $1
# (stats.sh testpmd_rate).
testpmd_pps() {
	local dev fwd key
	if [ "$mode" = tx ]; then
		dev="net_null0,no-rx=1" fwd="--forward-mode=txonly --txpkts=$frame" key=Tx-pps:
	else
		dev="net_pcap0$(for q in $(seq "$2"); do printf ',rx_pcap=%s' "$tmp/in.pcap"; done),infinite_rx=1"
		fwd="--forward-mode=rxonly" key=Rx-pps:
	fi
	local vdevs=(--vdev "$dev") qs=$2
	if [ "$mode" = rx ] && [ "$ports" != 1 ]; then # one queue on each of the ports, $2 cores
		vdevs=()
		for r in $(seq "$ports"); do vdevs+=(--vdev "net_pcap$r,rx_pcap=$tmp/in$r.pcap,infinite_rx=1"); done
		qs=1
	fi
	# shellcheck disable=SC2086
	timeout -s INT $((secs + 6)) dpdk-testpmd --lcores "$1" --no-huge -m 1024 --no-pci --no-telemetry "${vdevs[@]}" \
		--file-prefix "rplc$$" -- $fwd --nb-cores="$2" --rxq="$qs" --txq="$qs" --total-num-mbufs=16384 \
		--stats-period 1 </dev/null >"$tmp/testpmd.log" 2>&1 || true
	testpmd_rate "$key" "$tmp/testpmd.log"
}
# One queue on CPU c (the main lcore idle on another), and N queues on the
# first N CPUs (the main lcore idle beside the first).
one_map() { echo "0@$(( ($1 + 1) % ncpu )),1@$1"; }
many_map() { local m="0@0"; for k in $(seq "$n"); do m="$m,$k@$(( (k - 1) % ncpu ))"; done; echo "$m"; }
: > "$tmp/tp_one"; : > "$tmp/tp_many"

: > "$tmp/one"; : > "$tmp/many"; : > "$tmp/ratio"; : > "$tmp/onec"; : > "$tmp/manyc"

for i in $(seq "$runs"); do
	: > "$tmp/round"; : > "$tmp/roundc"; each=""
	for c in $one_cpus; do
		read -r a acpu abusy < <(pps 1 "$c")
		echo "$a" >> "$tmp/round"; echo "$acpu" >> "$tmp/roundc"
		each="$each CPU $c ${a} pps (${acpu} per CPU s, busy ${abusy}),"
	done
	a=$(mean < "$tmp/round"); acpu=$(mean < "$tmp/roundc")
	read -r b bcpu bbusy < <(pps "$n")
	echo "$mode run $i: 1 lcore:$each mean ${a} pps; $n lcores ${b} pps (${bcpu} per CPU s, busy ${bbusy})"
	echo "$a" >> "$tmp/one"; echo "$b" >> "$tmp/many"; echo "$acpu" >> "$tmp/onec"; echo "$bcpu" >> "$tmp/manyc"
	python3 -c "print($b / max($a, 1))" >> "$tmp/ratio"
	if [ "${TESTPMD:-1}" != 0 ]; then
		: > "$tmp/round"; each=""
		for c in $one_cpus; do
			t=$(testpmd_pps "$(one_map "$c")" 1)
			echo "$t" >> "$tmp/round"; each="$each CPU $c $t pps,"
		done
		t=$(mean < "$tmp/round"); tm=$(testpmd_pps "$(many_map)" "$n")
		echo "$mode run $i: testpmd 1 queue:$each mean $t pps; $n queues on $n cores $tm pps"
		echo "$t" >> "$tmp/tp_one"; echo "$tm" >> "$tmp/tp_many"
	fi
done
a=$(median < "$tmp/one"); b=$(median < "$tmp/many")
python3 -c "print(f'$mode lcores ratio ($n lcores / 1 lcore, the mean over CPUs $(echo $one_cpus | tr ' ' ','), $frame B, run): {$b/1e6:.2f} / {$a/1e6:.2f} Mpps = {$b/max($a, 1):.2f}')"
echo "median of the per-run ratios: $(median < "$tmp/ratio")"
ac=$(median < "$tmp/onec"); bc=$(median < "$tmp/manyc")
python3 -c "print(f'per CPU second: {$bc/1e6:.2f} / {$ac/1e6:.2f} Mpps = {$bc/max($ac, 1):.2f} (1.0: every lcore as efficient as one alone)')"
if [ "${TESTPMD:-1}" != 0 ]; then
	t=$(median < "$tmp/tp_one"); tm=$(median < "$tmp/tp_many")
	python3 -c "print(f'testpmd on the same PMD ($n queues on $n cores / 1 queue, the mean over CPUs): {$tm/1e6:.2f} / {$t/1e6:.2f} Mpps = {$tm/max($t, 1):.2f}')"
fi
