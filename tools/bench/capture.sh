#!/usr/bin/env bash
# Capture throughput: frames per second written to a pcap file by
#   roceprobe capture --port net_pcap0,rx_pcap=BIG.pcap,infinite_rx=1 -w FILE
# against dpdk-testpmd forwarding the same input (io mode) to a net_pcap
# tx_pcap port, the DPDK way of writing a port's traffic to a file.
# Same frames (RoCEv2, 82 and 126 B, all under the default 128 B snaplen, so
# both files hold whole frames), same file system, alternating runs; prints
# each run and the ratio of the medians. Aim: >= 2.
#
# roceprobe: main lcore polls the port and copies frames into ring slots; a
# writer thread (on the other core) does pcap_dump into a 1 MiB stdio buffer.
# testpmd: one forwarding lcore; net_pcap's TX calls pcap_dump per frame and
# flushes the file after every burst.
#
#   RUNS=3 SECS=3 BUILD_DIR=build tools/bench/capture.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
. tools/bench/stats.sh
runs=${RUNS:-3}
secs=${SECS:-3}
if [ -z "${BUILD_DIR:-}" ]; then
	tools/build.sh
	BUILD_DIR=build
fi
roceprobe=$BUILD_DIR/app/roceprobe
tmp=$(mktemp -d)
trap 'rm -rf "$tmp" /var/run/dpdk/rpcapbench$$' EXIT  # testpmd leaves its runtime dir

# 4096 frames: RoCEv2 SEND ONLY carrying 24 B (82 B) or 68 B (126 B), with an
# ACK, a CNP and a CE-marked frame now and then.
/usr/bin/python3 - "$tmp/big.pcap" <<'PY'
import struct, sys
def frame(opcode, payload, ecn=2, ext=b""):
    bth = struct.pack("!BBHII", opcode, 0, 0xFFFF, 0x12, 7) + ext + payload + bytes(4)
    udp = struct.pack("!HHHH", 49152, 4791, 8 + len(bth), 0) + bth
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 26 << 2 | ecn, 20 + len(udp), 0, 0x4000, 64, 17, 0,
                     bytes([192, 0, 2, 1]), bytes([192, 0, 2, 2])) + udp
    f = bytes.fromhex("020000000002020000000001") + b"\x08\x00" + ip
    return f + bytes(max(0, 60 - len(f)))
with open(sys.argv[1], "wb") as out:
    out.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
    for i in range(4096):
        if i % 64 == 7:
            f = frame(0x11, b"", ext=bytes([0x1F, 0, 0, i & 0xFF]))
        elif i % 128 == 9:
            f = frame(0x81, b"", ecn=1, ext=bytes(16))
        elif i % 256 == 11:
            f = frame(0x04, bytes(24), ecn=3)
        else:
            f = frame(0x04, bytes(24 if i % 2 else 68))
        out.write(struct.pack("<IIII", 1700000000, i, len(f), len(f)) + f)
PY


# Frames written per second (written / elapsed), dropped-by-writer alongside.
roceprobe_fps() {
	"$roceprobe" capture --port "net_pcap0,rx_pcap=$tmp/big.pcap,infinite_rx=1" -w "$tmp/rp.pcap" \
		--duration "$secs" --json 2>"$tmp/rp.log" |
		/usr/bin/python3 -c 'import json,sys; j=json.load(sys.stdin); print(int(j["written"]/j["elapsed_s"]), j["dropped"])'
	rm -f "$tmp/rp.pcap"
}

# testpmd forwards on lcore 1 while lcore 0 prints stats. Its start (mbuf
# pool, reading the pcap) takes a second or two, so it runs secs + 4 and its
# rate is the median of port 1's (the tx_pcap port) nonzero Tx-pps samples.
testpmd_fps() {
	timeout -s INT $((secs + 4)) dpdk-testpmd -l 0-1 --no-huge -m 1024 --no-pci --no-telemetry \
		--file-prefix "rpcapbench$$" \
		--vdev "net_pcap0,rx_pcap=$tmp/big.pcap,infinite_rx=1" --vdev "net_pcap1,tx_pcap=$tmp/tp.pcap" \
		-- --forward-mode=io --total-num-mbufs=16384 --stats-period 1 </dev/null >"$tmp/testpmd.log" 2>&1 || true
	rm -f "$tmp/tp.pcap"
	awk '/NIC statistics for port/ { port = $(NF - 1) }
	     /Tx-pps:/ && port == 1 && $2 > 0 { print $2 }' "$tmp/testpmd.log" | median
}

: > "$tmp/rp"; : > "$tmp/tp"
for i in $(seq "$runs"); do
	read -r r dropped < <(roceprobe_fps)
	t=$(testpmd_fps)
	echo "run $i: roceprobe capture ${r} frames/s (dropped by writer: ${dropped}), testpmd io -> net_pcap tx_pcap ${t} frames/s"
	echo "$r" >> "$tmp/rp"; echo "$t" >> "$tmp/tp"
done
r=$(median < "$tmp/rp"); t=$(median < "$tmp/tp")
/usr/bin/python3 -c "
r, t = $r, $t
print(f'capture ratio (roceprobe capture / testpmd tx_pcap, frames written per second): {r/1e6:.2f} / {t/1e6:.2f} Mpps = ' + (f'{r/t:.2f}' if t else 'n/a'))"
