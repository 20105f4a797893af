#!/usr/bin/env bash
# TX packets per second: roceprobe gen against dpdk-testpmd --forward-mode=txonly,
# same frame size (82 B: RoCEv2 SEND ONLY carrying the 24 B probe), one TX core
# each, net_null, alternating runs; prints each run and the ratio of the medians.
# roceprobe stamps a unique PSN, probe sequence and timestamp and a valid ICRC
# into every packet; testpmd sends one fixed UDP frame.
set -euo pipefail
cd "$(dirname "$0")/../.."
# LCORES=N: this tool on N lcores against itself on one instead (tools/bench/lcores.sh).
[ -n "${LCORES:-}" ] && exec tools/bench/lcores.sh tx "$LCORES"
runs=${RUNS:-3}
secs=${SECS:-3}
frame=82
tools/build.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp" /var/run/dpdk/rpbench$$' EXIT  # testpmd leaves its runtime dir

cat > "$tmp/bench.yaml" <<YAML
name: tx-bench
defaults: {speed: 1000G, opcode: send, message_size: 24, mtu: 1024, dscp: 26, ecn: ect0}
hosts:
  - {name: tx, mac: "02:00:00:00:00:01", ipv4: 192.0.2.1, port: "net_null0,no-rx=1"}
  - {name: rx, mac: "02:00:00:00:00:02", ipv4: 192.0.2.2}
traffic:
  - {name: f, pattern: flow, src: tx, dst: rx, rate: 100%, duration: ${secs}s}
YAML

roceprobe_pps() {
	build/app/roceprobe gen "$tmp/bench.yaml" --json 2>/dev/null |
		python3 -c 'import json,sys; p=json.load(sys.stdin)["ports"][0]; print(int(p["tx_mpps"]*1e6))'
}

# testpmd forwards on lcore 1 while lcore 0 prints stats: still one TX core.
testpmd_pps() {
	timeout -s INT $((secs + 2)) dpdk-testpmd -l 0-1 --no-huge -m 1024 --no-pci --no-telemetry \
		--vdev net_null0,no-rx=1 --file-prefix "rpbench$$" -- --forward-mode=txonly \
		--txpkts=$frame --total-num-mbufs=16384 --stats-period 1 </dev/null >"$tmp/testpmd.log" 2>&1 || true
	# The last full second before the stop.
	awk '/Tx-pps:/ { pps[n++] = $2 } END { i = n - 1; if (n > 2) i = n - 2; print pps[i] + 0 }' "$tmp/testpmd.log"
}

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

: > "$tmp/rp"; : > "$tmp/tp"
for i in $(seq "$runs"); do
	r=$(roceprobe_pps); t=$(testpmd_pps)
	echo "run $i: roceprobe gen ${r} pps, testpmd txonly ${t} pps"
	echo "$r" >> "$tmp/rp"; echo "$t" >> "$tmp/tp"
done
r=$(median < "$tmp/rp"); t=$(median < "$tmp/tp")
python3 -c "print(f'tx ratio (roceprobe/testpmd, {$frame} B, net_null, 1 TX core): {$r/1e6:.2f} / {$t/1e6:.2f} Mpps = {$r/$t:.2f}')"
