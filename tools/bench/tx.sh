#!/usr/bin/env bash
# TX packets per second: roceprobe gen against dpdk-testpmd --forward-mode=txonly,
# same frame size, one TX core each, net_null, alternating runs; prints each run
# and, per size, the ratio of the medians.
# SIZES: frame sizes in bytes without FCS (default "82 1024"). A RoCEv2 frame is
# 14 B of Ethernet plus a 4-byte aligned rest, so its length is 2 mod 4: a size
# that is not is rounded up (1024 -> 1026 B) and testpmd gets the same size.
# 82 B is a SEND ONLY carrying just the 24 B probe; larger frames carry the
# probe and zeros. roceprobe stamps a unique PSN, probe sequence and timestamp
# and a valid ICRC into every packet; testpmd sends one fixed UDP frame.
set -euo pipefail
cd "$(dirname "$0")/../.."
. tools/bench/stats.sh
# LCORES=N: this tool on N lcores against itself on one instead (tools/bench/lcores.sh).
# TELEMETRY=1: gen (DPDK telemetry on, the default) against gen --no-telemetry instead of
# testpmd, alternating which goes first: what telemetry's threads cost on TX (issue 28);
# RUNS=6 SECS=2 SIZES=82 is a shorter run of it.
# METRICS=1: gen --metrics, scraped every 100 ms by curl, against gen without --metrics, the
# same way: what the metrics listener and its scrapes cost on TX (issue 28).
[ -n "${LCORES:-}" ] && exec tools/bench/lcores.sh tx "$LCORES"
runs=${RUNS:-3}
secs=${SECS:-3}
sizes=${SIZES:-82 1024}
tools/build.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp" /var/run/dpdk/rpbench$$' EXIT  # testpmd leaves its runtime dir

# Ethernet 14 + IPv4 20 + UDP 8 + BTH 12 + ICRC 4 around the message.
RP_ROCE_OVERHEAD=58

profile() { # frame size -> bench.yaml
	local msg=$(($1 - RP_ROCE_OVERHEAD)) mtu=1024
	[ "$msg" -gt 1024 ] && mtu=4096
	cat > "$tmp/bench.yaml" <<YAML
name: tx-bench
defaults: {speed: 1000G, opcode: send, message_size: $msg, mtu: $mtu, dscp: 26, ecn: ect0}
hosts:
  - {name: tx, mac: "02:00:00:00:00:01", ipv4: 192.0.2.1, port: "net_null0,no-rx=1"}
  - {name: rx, mac: "02:00:00:00:00:02", ipv4: 192.0.2.2}
traffic:
  - {name: f, pattern: flow, src: tx, dst: rx, rate: 100%, duration: ${secs}s}
YAML
}

# Both tools poll on the same CPU, BENCH_CPU (default 1, testpmd's forwarding
# lcore): the two vCPUs of this VM are not alike and change over time (gen
# measured 60 Mpps on CPU 0 and 88 on CPU 1 in the same minute, 2026-12-02),
# so a ratio across CPUs measured the host, not the tools.
cpu=${BENCH_CPU:-1}
roceprobe_pps() { # [extra gen options]
	build/app/roceprobe gen "$tmp/bench.yaml" --json --eal "-l $cpu" "$@" 2>/dev/null |
		python3 -c 'import json,sys; p=json.load(sys.stdin)["ports"][0]; print(int(p["tx_mpps"]*1e6))'
}

# gen with --metrics on a free port while curl scrapes it every 100 ms (on the other CPU).
scraped_pps() {
	local port
	port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	(while :; do curl -s -o /dev/null "http://127.0.0.1:$port/metrics" || true; sleep 0.1; done) &
	local scraper=$!
	roceprobe_pps --metrics "$port"
	kill "$scraper" 2>/dev/null; wait "$scraper" 2>/dev/null || true
}

# testpmd forwards on its second lcore (CPU $cpu) while the first prints stats: still one TX core.
testpmd_pps() { # frame size
	timeout -s INT $((secs + 2)) dpdk-testpmd -l 0-1 --main-lcore $((1 - cpu)) --no-huge -m 1024 --no-pci --no-telemetry \
		--vdev net_null0,no-rx=1 --file-prefix "rpbench$$" -- --forward-mode=txonly \
		--txpkts="$1" --total-num-mbufs=16384 --stats-period 1 </dev/null >"$tmp/testpmd.log" 2>&1 || true
	# The last full second before the stop (seconds before forwarding started print 0).
	awk '/Tx-pps:/ && $2 > 0 { pps[n++] = $2 } END { i = n - 1; if (n > 2) i = n - 2; print pps[i] + 0 }' \
		"$tmp/testpmd.log"
}


: > "$tmp/summary"
for want in $sizes; do
	frame=$((want + (4 + 2 - want % 4) % 4))
	[ "$frame" -lt 82 ] && frame=82
	profile "$frame"
	: > "$tmp/rp"; : > "$tmp/tp"
	for i in $(seq "$runs"); do
		if [ -n "${METRICS:-}" ]; then
			if [ $((i % 2)) = 1 ]; then r=$(scraped_pps); t=$(roceprobe_pps)
			else t=$(roceprobe_pps); r=$(scraped_pps); fi
			echo "$frame B run $i: roceprobe gen --metrics (scraped every 100 ms) ${r} pps, gen ${t} pps"
		elif [ -n "${TELEMETRY:-}" ]; then
			if [ $((i % 2)) = 1 ]; then r=$(roceprobe_pps); t=$(roceprobe_pps --no-telemetry)
			else t=$(roceprobe_pps --no-telemetry); r=$(roceprobe_pps); fi
			echo "$frame B run $i: roceprobe gen ${r} pps, gen --no-telemetry ${t} pps"
		else
			r=$(roceprobe_pps); t=$(testpmd_pps "$frame")
			echo "$frame B run $i: roceprobe gen ${r} pps, testpmd txonly ${t} pps"
		fi
		echo "$r" >> "$tmp/rp"; echo "$t" >> "$tmp/tp"
	done
	r=$(median < "$tmp/rp"); t=$(median < "$tmp/tp")
	ref=testpmd; [ -n "${TELEMETRY:-}" ] && ref="gen --no-telemetry"; [ -n "${METRICS:-}" ] && ref="gen, no --metrics"
	python3 -c "print(f'tx ratio (roceprobe/$ref, {$frame} B, net_null, 1 TX core): {$r/1e6:.2f} / {$t/1e6:.2f} Mpps = {$r/$t:.2f}')" \
		>> "$tmp/summary"
done
cat "$tmp/summary"
