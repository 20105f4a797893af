#!/usr/bin/env bash
# vm-perftest: perftest (a RoCE tool nobody here wrote) between two Soft-RoCE VMs.
#
#   vm0 10.9.0.1 rxe0 ---- qemu socket netdev (virtual Ethernet) ---- vm1 10.9.0.2 rxe0
#   ib_write_lat server                                           ib_write_lat client
#   ib_write_bw server (port 18516)                               ib_write_bw client
#
# Asserts: both VMs boot, get a RoCE v2 IPv4 GID, the latency test completes with a median
# (t_typical) latency and the bandwidth test with an average bandwidth; prints both.
# Under TCG expect a median of tens of milliseconds and tens of MB/s: these numbers prove the
# lab works, they are not a performance claim.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
run=$here/../../tools/rxe-vm/run.sh
start=$(date +%s)

work=$(mktemp -d /tmp/vm-perftest.XXXXXX)
keep=1
trap '[ "$keep" = 1 ] || rm -rf "$work"' EXIT

# Server: one latency run, then one bandwidth run on a second port. Under TCG perftest's own
# TCP exchange of QP data sometimes fails ("Failed to exchange data between server and
# clients") on both ends: the server then listens again (3 tries) while the client retries.
cat >"$work/server.sh" <<'EOF'
serve() { # serve OUT TOOL ARGS...: up to 3 server runs until one completes
	out=$1; shift
	for try in 1 2 3; do
		"$@" >"$out" 2>&1 && return 0
		echo "server: $1 try $try failed: $(tail -n 1 "$out")"
		sleep 1
	done
	cat "$out"
	return 1
}
serve lat.txt ib_write_lat -d "$RP_DEV" -x "$RP_GID_INDEX" -n 50 || exit 1
serve bw.txt ib_write_bw -d "$RP_DEV" -x "$RP_GID_INDEX" -p 18516 -s 65536 -n 100 || exit 1
echo server done
EOF
# Client: retry until the server listens (it boots in parallel); rp-retry is in the VM.
cat >"$work/client.sh" <<'EOF'
rp-retry 60 sh -c 'ib_write_lat -d "$RP_DEV" -x "$RP_GID_INDEX" -n 50 10.9.0.1 >lat.txt 2>&1' || { cat lat.txt; exit 1; }
rp-retry 60 sh -c 'ib_write_bw -d "$RP_DEV" -x "$RP_GID_INDEX" -p 18516 -s 65536 -n 100 10.9.0.1 >bw.txt 2>&1' || { cat bw.txt; exit 1; }
echo client done
EOF

rc=0
"$run" --vms 2 --job0 "$work/server.sh" --job1 "$work/client.sh" --timeout 300 --out "$work/out" || rc=$?
if [ "$rc" != 0 ]; then
	echo "vm-perftest: FAIL: run.sh exited $rc; logs kept in $work/out" >&2
	for f in "$work"/out/vm*/{stdout,stderr,lat.txt,bw.txt}; do
		[ -s "$f" ] && { echo "== $f"; tail -n 30 "$f"; }
	done >&2
	exit 1
fi

# The values line follows the header line that names the column.
column() { # column FILE HEADER-WORD N: field N of the line after the header
	awk -v w="$2" -v n="$3" 'found { print $n; exit } index($0, w) { found = 1 }' "$1"
}
lat=$(column "$work/out/vm1/lat.txt" t_typical 5)
lat_srv=$(column "$work/out/vm0/lat.txt" t_typical 5)
bw=$(column "$work/out/vm1/bw.txt" 'BW average' 4)
num='^[0-9]+(\.[0-9]+)?$'
if ! [[ "$lat" =~ $num ]] || ! [[ "$bw" =~ $num ]]; then
	echo "vm-perftest: FAIL: no latency/bandwidth number (lat='$lat' bw='$bw'); logs in $work/out" >&2
	cat "$work/out/vm1/lat.txt" "$work/out/vm1/bw.txt" >&2 || true
	exit 1
fi
awk -v l="$lat" -v b="$bw" 'BEGIN { exit !(l > 0 && b > 0) }' || {
	echo "vm-perftest: FAIL: zero latency or bandwidth (lat=$lat bw=$bw)" >&2
	exit 1
}

echo "vm-perftest: ib_write_lat 2 B median (t_typical) client ${lat} usec, server ${lat_srv:-?} usec"
echo "vm-perftest: ib_write_bw 64 KiB average ${bw} MB/s"
sed 's/^/vm-perftest: /' "$work/out/summary.txt"
echo "vm-perftest: total $(($(date +%s) - start)) s"
keep=0
