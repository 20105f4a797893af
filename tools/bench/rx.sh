#!/usr/bin/env bash
# RX accounting in packets per second on one core: `roceprobe run` receiving a
# replayed capture (classification, full ICRC check, per-flow lookup, sequence and
# PSN accounting, latency histogram and time series for every frame) against `dpdk-testpmd --forward-mode=rxonly` on the same input
# (net_pcap rx_pcap=...,infinite_rx=1), alternating runs; prints each run and
# the ratio of the medians, for each frame size in FRAMES (Ethernet bytes
# without FCS: RoCEv2 SEND ONLY, 58 B of headers and ICRC, the rest payload
# starting with the 24 B probe; 82 B is the smallest frame that carries it,
# 1026 B the nearest to 1 KiB: a RoCE frame is 2 mod 4 bytes long).
#
# What a replay exercises: the capture's 512 frames repeat, bytes unchanged. With
# gen's seqs 0..511 every frame after the first round was a duplicate (the
# sequence window remembers 4096 seqs) and added no latency sample and no
# payload: the bench measured the duplicate path (RX_INPUT=gen still does).
# tools/bench/rx_input.py spaces the seqs 4097 apart (ICRC recomputed by
# scapy), so every later round's frames are older than the window: each is a
# new probe, counted late (stale), with its latency sample and payload as in
# a live run, 511 of every 512 (the flow's last seq stays within the window:
# a duplicate). Still not a live run's: the PSNs repeat (each round is
# counted retransmitted by the PSN tracker), and the latencies are the run's
# clock minus gen's stamps (ms to s, hundreds of histogram buckets where a
# live run fills tens). Each run prints its flow's duplicate and latency
# counts against its frames.
set -euo pipefail
cd "$(dirname "$0")/../.."
. tools/bench/stats.sh
# LCORES=N: this tool on N lcores against itself on one instead (tools/bench/lcores.sh).
[ -n "${LCORES:-}" ] && exec tools/bench/lcores.sh rx "$LCORES"
runs=${RUNS:-3}
secs=${SECS:-3}
frames=${FRAMES:-82 1026}
# BASELINE=path/to/another/roceprobe: measured too, in the same rounds (before/after).
baseline=${BASELINE:-}
tools/build.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp" /var/run/dpdk/rpbench$$' EXIT  # testpmd leaves its runtime dir

# The input: 512 RoCEv2 frames of one flow over 8 QPs (64 per QP), one packet per message, made by gen.
profile() { # $1 = sender port, $2 = receiver port, $3 = messages per flow, $4 = frame bytes
	cat <<YAML
name: rx-bench
defaults: {speed: 100G, opcode: send, message_size: $(($4 - 58)), mtu: 4096, dscp: 26, ecn: ect0}
hosts:
  - {name: tx, mac: "02:00:00:00:00:01", ipv4: 192.0.2.1, port: "$1"}
  - {name: rx, mac: "02:00:00:00:00:02", ipv4: 192.0.2.2$2}
traffic:
  - {name: f, pattern: flow, src: tx, dst: rx, qps: 8, rate: 1G, messages: $3}
YAML
}
make_input() { # $1 = frame bytes
	rm -f "$tmp/in.pcap" "$tmp/gen.pcap"
	profile "net_pcap0,tx_pcap=$tmp/gen.pcap" "" 512 "$1" > "$tmp/make.yaml"
	build/app/roceprobe gen "$tmp/make.yaml" > /dev/null 2>&1
	if [ "${RX_INPUT:-}" = gen ]; then
		mv "$tmp/gen.pcap" "$tmp/in.pcap"
	else
		tools/bench/rx_input.py "$tmp/gen.pcap" "$tmp/in.pcap" > /dev/null
	fi
	profile "net_null0,no-rx=1" ", port: \"net_pcap1,rx_pcap=$tmp/in.pcap,infinite_rx=1\"" 1 "$1" > "$tmp/rx.yaml"
}

# Each prints "pps cpu_pps": frames per wall second of the run, and frames per
# second of CPU time the process got (user + system, set-up included). On a
# machine shared with other work a poller gets only part of a core; the CPU
# figure is what it does with the time it gets.
cpu_s() { awk '{ print $1 + $2 }' "$tmp/time"; }

# Both tools poll on the same CPU, BENCH_CPU (default 1, testpmd's forwarding
# lcore): the two vCPUs of this VM are not alike and change over time (tx.sh).
cpu=${BENCH_CPU:-1}
# Both processes live secs + 6 s, each stopped by SIGINT (roceprobe writes its
# result on it): set-up is then the same share of each one's CPU time. Until
# 2026-12-02 roceprobe ran 3 s against testpmd's 9, and its 0.35 CPU s of set-up
# (pools faulted in, without hugepages) cost it 9% of the per-CPU figure.
roceprobe_pps() { # $1 = the roceprobe binary
	rm -rf "$tmp/out"
	timeout -s INT $((secs + 6)) /usr/bin/time -f "%U %S" -o "$tmp/time" "$1" run "$tmp/rx.yaml" -o "$tmp/out" \
		--duration 3600 --eal "-l $cpu" > /dev/null 2>&1 || true
	python3 -c "import json,sys; j=json.load(open('$tmp/out/result.json')); \
p=[p for p in j['ports'] if p['node']=='rx'][0]; print(int(p['rx_frames']/(j['elapsed_ns']/1e9)), \
int(p['rx_frames']/max($(cpu_s), 0.01))); f=j['flows'][0]; \
print(f\"{p['rx_frames']} frames: {f['duplicates']} duplicates, {f['latency_ns']['count']} latency samples\", file=sys.stderr)"
}

# testpmd prints Rx-pps every second: the median of its readings but the first
# and the last (partial seconds); it runs secs + 6 s, as its start-up on a busy
# machine can take seconds.
testpmd_pps() {
	timeout -s INT $((secs + 6)) /usr/bin/time -f "%U %S" -o "$tmp/time" dpdk-testpmd -l 0-1 --main-lcore $((1 - cpu)) --no-huge -m 1024 --no-pci --no-telemetry \
		--vdev "net_pcap0,rx_pcap=$tmp/in.pcap,infinite_rx=1" --file-prefix "rpbench$$" -- \
		--forward-mode=rxonly --total-num-mbufs=16384 --stats-period 1 </dev/null >"$tmp/testpmd.log" 2>&1 || true
	printf "%d " "$(testpmd_rate Rx-pps: "$tmp/testpmd.log")"
	awk -v cpu="$(cpu_s)" '/Accumulated forward statistics/ { acc = 1 }
		acc && /RX-packets:/ { print int($2 / (cpu > 0.01 ? cpu : 0.01)); exit }' "$tmp/testpmd.log"
}


for frame in $frames; do
	make_input "$frame"
	: > "$tmp/rp"; : > "$tmp/tp"; : > "$tmp/bp"; : > "$tmp/ratio"; : > "$tmp/rc"; : > "$tmp/tc"; : > "$tmp/bc"
	for i in $(seq "$runs"); do
		b=""; bc=""
		if [ -n "$baseline" ]; then
			read -r b bc < <(roceprobe_pps "$baseline")
			echo "$b" >> "$tmp/bp"; echo "$bc" >> "$tmp/bc"
		fi
		read -r r rc < <(roceprobe_pps build/app/roceprobe)
		read -r t tc < <(testpmd_pps)
		tc=${tc:-0}
		echo "$frame B run $i: roceprobe run (RX accounting) ${r} pps (${rc} per CPU s), testpmd rxonly ${t} pps" \
			"(${tc} per CPU s)${b:+, baseline $b pps ($bc per CPU s)}"
		echo "$r" >> "$tmp/rp"; echo "$t" >> "$tmp/tp"; echo "$rc" >> "$tmp/rc"; echo "$tc" >> "$tmp/tc"
		[ "$t" != 0 ] && python3 -c "print($r / $t)" >> "$tmp/ratio"
	done
	r=$(median < "$tmp/rp"); t=$(median < "$tmp/tp")
	python3 -c "print(f'rx ratio at $frame B (roceprobe accounting / testpmd rxonly, net_pcap replay, 1 core): {$r/1e6:.2f} / {$t/1e6:.2f} Mpps = {$r/max($t, 1):.2f}')"
	[ -s "$tmp/ratio" ] && echo "median of the per-run ratios at $frame B: $(median < "$tmp/ratio")"
	rc=$(median < "$tmp/rc"); tc=$(median < "$tmp/tc")
	python3 -c "print(f'per CPU second at $frame B: {$rc/1e6:.2f} / {$tc/1e6:.2f} Mpps = {$rc/max($tc, 1):.2f}')"
	[ -n "$baseline" ] && python3 -c "b=$(median < "$tmp/bc"); print(f'baseline per CPU second at $frame B: {b/1e6:.2f} Mpps = {b/max($tc, 1):.2f}; this build {$rc/max(b, 1):.2f}x')"
	# The least disturbed run of each (a shared machine only ever slows a run down).
	rb=$(sort -n "$tmp/rp" | tail -1); tb=$(sort -n "$tmp/tp" | tail -1)
	python3 -c "print(f'best runs at $frame B: {$rb/1e6:.2f} / {$tb/1e6:.2f} Mpps = {$rb/max($tb, 1):.2f}')"
	if [ -n "$baseline" ]; then
		b=$(median < "$tmp/bp")
		python3 -c "print(f'baseline at $frame B: {$b/1e6:.2f} Mpps = {$b/max($t, 1):.2f} of testpmd; this build {$r/max($b, 1):.2f}x the baseline')"
		bb=$(sort -n "$tmp/bp" | tail -1)
		python3 -c "print(f'baseline best run at $frame B: {$bb/1e6:.2f} Mpps = {$bb/max($tb, 1):.2f} of testpmd best')"
	fi
done
