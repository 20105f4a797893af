#!/bin/sh
# roceprobe's lab side by side with htsim (f-forcher/uet-htsim, the packet-level
# datacenter simulator; written against commit 0225931), issues 29 and 31.
#
#   HTSIM=/path/to/uet-htsim tools/bench/htsim.sh            # incast, leafspine, fattree, dcqcn
#   HTSIM=... SCENARIOS="incast dcqcn" RUNS=5 tools/bench/htsim.sh
#   HTSIM=... SCENARIOS=a2a RUNS=1 tools/bench/htsim.sh       # heavy: ~8 GB, minutes
#
# With HTSIM unset: one line saying what to set, exit 0. HTSIM that is no checkout of
# uet-htsim (no htsim/sim/roce.cpp under it): one line, exit 2. The checkout is not
# touched: its htsim/sim is copied to HTSIM_CACHE (default /tmp/rp-htsim), patched with
# tools/bench/htsim/fixes.patch and built there with cmake (htsim_roce only), cached by
# htsim's commit and the patch's hash for the next call. BUILD_DIR picks roceprobe's
# build (default build/). Temporary files go to a mktemp dir, removed on exit.
#
# Scenarios (SCENARIOS, default "incast leafspine fattree dcqcn"), each generated from
# roceprobe's plan (`roceprobe plan --json`) by tools/bench/htsim/gen.py, which writes
# htsim's topology file and connection matrix (host i of the plan is htsim's node i,
# leaves filled in blocks in both; htsim's packet is the plan's mean frame on the wire,
# frame + 24 B; 500 ns cables; PFC XOFF 128 KiB, XON 18 KiB below it, as whole packets):
#   incast     profiles/incast-8to1.yaml, 4096 64 KiB WRITEs per sender: 8:1 PFC incast at
#              100G, 524,288 packets
#   leafspine  128 hosts, 8 leaves x 16, 16 spines, a permutation of 5120 4 KiB WRITEs
#              each (tests/lab/scale_check.py's ecmp profile): 655,360 packets
#   fattree    profiles/fat-tree-1024.yaml as a permutation of 1024 4 KiB WRITEs each
#              (k=16, 1024 hosts): 1,048,576 packets
#   a2a        profiles/fat-tree-1024.yaml as shipped: all-to-all, 1,047,552 flows of one
#              4 KiB WRITE (not in the default set: 35 s and 7.7 GB for roceprobe here;
#              its plan alone takes about 2 minutes and several GB)
#   dcqcn      issue 31's K sweep: the 8:1 incast, 200 64 KiB WRITEs per sender, step ECN
#              threshold K = 6, 25, 100 packets (kmin = kmax = K x 4096 B, pmax 100%; htsim:
#              K packets), the paper's receiver (cnp_mode paper, N = 50 us), g = 1/1024
#              (dce_tcp_g 1023), alpha and rate timers 55 us, F = 1, B = 32767 B, R_AI
#              5 Mbit/s, R_HAI 50 Mbit/s, initial alpha 1023/1024, every cut sets the target
#              (clamp_tgt_rate on): roceprobe with alpha_update per-cnp (the paper's, what
#              htsim does) and periodic (tests/lab/dcqcn_check.py ksweep's); htsim as fixed
#              below, with -retime (a diagnostic: a rate change re-times the departure
#              already waiting, as the lab does) and with -retime -no_ack_pacing (also paced
#              at the rate DCQCN set, as the lab is, not at MTU/(MTU + 64 B) of it). One run
#              each (both tools are deterministic).
# For incast, leafspine, fattree and a2a both tools run alternately RUNS times (default 3);
# it prints the median CPU seconds (user + sys, /usr/bin/time) and the largest max RSS of
# each, their ratios (speed: htsim's CPU / roceprobe's; memory: roceprobe's RSS / htsim's)
# and the results side by side: goodput (payload bits / the time the last packet arrived),
# PFC frames the switches sent (roceprobe: XOFF + refresh + XON; htsim: XOFF + XON, it has
# no refresh), the deepest queue (htsim's bytes scaled to the lab's frame bytes, without
# the 24 B) and drops (htsim's lossless queues never drop; it counts each enqueue past a
# queue's size, shown as "over"). htsim's stdout (a few lines per flow) goes to /dev/null.
#
# The fixes to htsim (tools/bench/htsim/fixes.patch, written for this bench; every change
# is marked "rp-bench" in the source):
#  1. RoCE sequence numbers are packets, flow sizes bytes: RoceSrc compared _highest_sent
#     (packets) with _flow_size (bytes) where it stops pacing and on a NACK, so a finished
#     flow's pacing chain ran on to the end of the run, and send_packet let one packet past
#     the flow's size (> for >=); DCQCNSrc's byte counter added packets to a byte count
#     (its byte-counter increase step never came) and its stop time set a size in packets.
#  2. One alpha per flow: DCQCNSrc::_alpha was one static shared by every flow (a CNP to
#     any flow raised every flow's alpha); it is a member now, starting at _alpha0. And
#     alpha decays once per period without a CNP: _last_alpha_update was never moved on,
#     so after the first quiet period alpha decayed on every event (every packet sent).
#  3. One pacing chain per source: every DCQCN wake-up (each CNP scheduled one, and each
#     timer step re-armed one) ran RoceSrc::doNextEvent, which sent and scheduled another
#     pacing event: chains multiplied with every CNP (an 8:1 incast reached 826 us of
#     virtual time in 120 s and 5.2 GB of log). RoceSrc keeps the time of its one pending
#     pacing event; any other wake-up neither sends nor schedules; DCQCN has one timer
#     chain; a DCQCN sink keeps one window-end event; the debug line DCQCNSrc printed on
#     every event is gone.
#  4. Queue sizes from the topology file: main_roce's -q size was put into every tier
#     before the file was read (so a file's Queue_Up/Queue_Down was refused as a
#     duplicate) and FatTreeTopologyCfg::initialize then reset every tier to the size it
#     was given, 0 for a file (so main_roce -topo stopped at "Missing queue_up"); the
#     file's sizes now stand and -q fills only the tiers it leaves unset.
#  (1 and 4 are issue 29's two fixes, 2 and 3 issue 31's three DCQCN ones.)
#  5. RoceSrc::connect took its start time as microseconds while main_roce passes
#     picoseconds (a flow starting at 1 us started at 1 s).
# And what the bench needs, changing nothing htsim computes: main_roce options for the
# DCQCN parameters (-dcqcn_g, -dcqcn_alpha0, -dcqcn_period, -dcqcn_F, -dcqcn_B,
# -dcqcn_rai, -dcqcn_rhai, -cnp_interval), -qsample US (host 0's ToR port depth every US,
# for the median queue), the diagnostics -retime and -no_ack_pacing (above; off by
# default), and one result line on stderr ("rp-bench rx_pkts ... last_rx_ps ... xoff ...").
set -eu

root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${BUILD_DIR:-$root/build}/app/roceprobe
runs=${RUNS:-3}
scenarios=${SCENARIOS:-incast leafspine fattree dcqcn}

if [ -z "${HTSIM:-}" ]; then
	echo "htsim.sh: set HTSIM=/path/to/a checkout of f-forcher/uet-htsim (commit 0225931) to compare roceprobe's lab with htsim"
	exit 0
fi
if [ -f "$HTSIM/htsim/sim/roce.cpp" ]; then
	simdir=$HTSIM/htsim/sim
elif [ -f "$HTSIM/sim/roce.cpp" ]; then
	simdir=$HTSIM/sim
else
	echo "htsim.sh: HTSIM=$HTSIM is no uet-htsim checkout (no htsim/sim/roce.cpp under it)" >&2
	exit 2
fi
[ -x "$bin" ] || { echo "htsim.sh: no $bin (build first: tools/build.sh, or set BUILD_DIR)" >&2; exit 2; }
for s in $scenarios; do
	case $s in incast | leafspine | fattree | a2a | dcqcn) ;;
	*) echo "htsim.sh: unknown scenario $s (incast, leafspine, fattree, a2a, dcqcn)" >&2; exit 2 ;;
	esac
done
if ! command -v cmake >/dev/null || ! command -v g++ >/dev/null; then
	echo "htsim.sh: htsim needs cmake and g++ (apt-get install cmake g++)" >&2
	exit 2
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# htsim: a patched copy of the checkout's sim/, built once per (commit, patch).
patch=$root/tools/bench/htsim/fixes.patch
hcommit=$(git -C "$HTSIM" rev-parse --short=7 HEAD 2>/dev/null || echo unknown)
[ "$hcommit" = 0225931 ] || echo "htsim.sh: note: HTSIM is at $hcommit; the fixes were written against 0225931" >&2
if [ -n "$(git -C "$HTSIM" status --porcelain -- "$simdir" 2>/dev/null)" ]; then
	echo "htsim.sh: note: $simdir has local changes; they are built too" >&2
	hcommit=$hcommit-dirty
fi
phash=$(sha1sum "$patch" | cut -c1-8)
cache=${HTSIM_CACHE:-/tmp/rp-htsim}/$hcommit-$phash
htsim=$cache/build/datacenter/htsim_roce
if [ ! -x "$htsim" ] || [ "$hcommit" != "${hcommit%-dirty}" ]; then
	rm -rf "$cache"
	mkdir -p "$cache"
	cp -r "$simdir" "$cache/src"
	patch -d "$cache/src" -p3 -s <"$patch" >"$cache/patch.log" 2>&1 ||
		{ echo "htsim.sh: tools/bench/htsim/fixes.patch does not apply to $simdir (see $cache/patch.log)" >&2; exit 2; }
	echo "htsim.sh: building htsim ($hcommit + fixes.patch) in $cache/build" >&2
	{ cmake -S "$cache/src" -B "$cache/build" -DCMAKE_BUILD_TYPE=Release &&
		make -C "$cache/build" -j"$(nproc)" htsim_roce; } >"$cache/build.log" 2>&1 ||
		{ echo "htsim.sh: building htsim failed (see $cache/build.log)" >&2; exit 2; }
fi
rcommit=$(git -C "$root" rev-parse --short=7 HEAD 2>/dev/null || echo unknown)
echo "roceprobe $rcommit ($bin), htsim $hcommit + tools/bench/htsim/fixes.patch; RUNS=$runs"

# The 128-host leaf-spine permutation's profile (tests/lab/scale_check.py's ecmp).
leafspine_profile() {
	/usr/bin/python3 - "$1" <<'PY'
import sys
n = 128
hosts = "".join(f'  - {{name: h{i}, mac: "02:00:00:20:00:{i:02x}", ipv4: 10.32.0.{i + 1}}}\n' for i in range(n))
open(sys.argv[1], "w").write(
    "name: leaf-spine-128-permutation\n"
    "defaults: {speed: 100G, opcode: write, message_size: 4KiB, mtu: 4096, dscp: 26}\n"
    f"hosts:\n{hosts}traffic:\n"
    f"  - {{pattern: permutation, hosts: [{', '.join(f'h{i}' for i in range(n))}], rate: 100%, messages: 5120}}\n"
    "fabric: {topology: leaf-spine, leaves: 8, spines: 16, hosts_per_leaf: 16}\n")
PY
}

# scenario NAME: sets $profile, $topo and the --set arguments ($1...) for roceprobe.
scenario() {
	case $1 in
	incast) profile=$root/profiles/incast-8to1.yaml topo=single
		sets="traffic.0.messages=4096" ;;
	leafspine) profile=$work/leafspine-128.yaml topo=leaf-spine:8:16:16 sets=
		leafspine_profile "$profile" ;;
	fattree) profile=$root/profiles/fat-tree-1024.yaml topo=fat-tree:16
		sets="traffic.0.pattern=permutation traffic.0.messages=1024" ;;
	a2a) profile=$root/profiles/fat-tree-1024.yaml topo=fat-tree:16 sets= ;;
	esac
}

setargs() { # the --set arguments of $sets
	for kv in $sets; do printf ' --set %s' "$kv"; done
}

# Generate htsim's inputs for the current scenario into $work/$1.{topo,cm}; sets $hargs.
generate() {
	# shellcheck disable=SC2046
	"$bin" plan "$profile" $(setargs) --json >"$work/$1.plan.json"
	payload=
	read -r _ nodes _ mtu _ packets _ payload _ _ <<EOF
$(/usr/bin/python3 "$root/tools/bench/htsim/gen.py" "$work/$1.plan.json" "$topo" "$work/$1")
EOF
	[ -n "${payload:-}" ] || { echo "htsim.sh: generating htsim's inputs for $1 failed" >&2; exit 1; }
	rm -f "$work/$1.plan.json"
	# PFC: XOFF 128 KiB, XON 18 KiB below it (the lab's defaults), in htsim's whole packets
	hi=$(( (131072 + mtu / 2) / mtu )) lo=$(( (112640 + mtu / 2) / mtu ))
	hargs="-topo $work/$1.topo -tm $work/$1.cm -nodes $nodes -strat ecmp_host -paths 256 -mtu $mtu -pfc_thresholds $lo $hi -q 4000 -end 1000000"
}

# One roceprobe run: "cpu_s rss_kb goodput pfc peak_q drops median_q cnps virtual_ns"
run_rp() { # $1 out dir, then extra --set arguments
	out=$1
	shift
	rm -rf "$out"
	# shellcheck disable=SC2046
	/usr/bin/time -f "%U %S %M" -o "$work/time" "$bin" lab "$profile" -o "$out" -q $(setargs) "$@" \
		>/dev/null 2>"$work/rp.err" || { cat "$work/rp.err" >&2; exit 1; }
	/usr/bin/python3 - "$out" "$work/time" <<'PY'
import csv, json, os, statistics, sys
out = sys.argv[1]
u, s, m = open(sys.argv[2]).read().split()[-3:]
j = json.load(open(os.path.join(out, "result.json")))
h = j["headline"]
pgs = [q["pg"] for sw in j["switches"] for p in sw["ports"] for q in p.get("prio", []) if "pg" in q]
xoff, xon, ref = (sum(g[k] for g in pgs) for k in ("xoff_sent", "xon_sent", "refresh_sent"))
pfc = f"{xoff + xon + ref}/{xoff}/{xon}/{ref}"
med = -1
qd = os.path.join(out, "qdepth.csv")
if os.path.exists(qd):
    with open(qd) as f:
        r = csv.DictReader(f)
        if "sw0:0:3" in (r.fieldnames or []):
            q = [int(x["sw0:0:3"]) for x in r]
            med = statistics.median(q[:max(1, h["virtual_ns"] // 10000)])
cnps = sum(d["cnps"] for d in j["lab"].get("dcqcn") or [])
print(f"{float(u) + float(s):.3f} {m} {h['goodput_gbps']:.3f} {pfc} {h['max_queue_bytes']} {h['drops']} {med} {cnps} {h['virtual_ns']}")
PY
	rm -rf "$out"
}

# One htsim run, same fields.
run_ht() { # extra htsim arguments
	# htsim writes logout.dat and idmap.txt into its working directory: $work
	# shellcheck disable=SC2086
	(cd "$work" && /usr/bin/time -f "%U %S %M" -o "$work/time" "$htsim" $hargs -o "$work/logout.dat" "$@" \
		>/dev/null 2>"$work/ht.err")
	rm -f "$work/logout.dat" "$work/idmap.txt"
	/usr/bin/python3 - "$work/ht.err" "$work/time" "$payload" "$packets" "$mtu" <<'PY'
import sys
err, tm, payload, packets, mtu = sys.argv[1:6]
line = [l for l in open(err) if l.startswith("rp-bench ")]
if not line:
    sys.exit("htsim.sh: htsim printed no result line: " + open(err).read()[-300:])
w = line[-1].split()
d = dict(zip(w[1::2], w[2::2]))
u, s, m = open(tm).read().split()[-3:]
mtu = int(mtu)
rx, last = int(d["rx_pkts"]), int(d["last_rx_ps"])
if rx < int(packets):
    print(f"htsim.sh: note: htsim delivered {rx} of {packets} packets", file=sys.stderr)
gbps = int(payload) * rx / int(packets) * 8 / (last / 1000) if last else 0
scale = (mtu - 24) / mtu  # htsim's bytes are on-the-wire packets; the lab counts frames
med = float(d["median_queue"])
med = med * scale if med >= 0 else -1
print(f"{float(u) + float(s):.3f} {m} {gbps:.3f} {int(d['xoff']) + int(d['xon'])}/{d['xoff']}/{d['xon']}/0 "
      f"{round(int(d['max_queue']) * scale)} {d['over']} {med} {d['cnps_tx']} {last // 1000}")
PY
}

for s in $scenarios; do
	[ "$s" = dcqcn ] && continue
	scenario "$s"
	generate "$s"
	: >"$work/$s.rp" && : >"$work/$s.ht"
	i=0
	while [ "$i" -lt "$runs" ]; do
		run_rp "$work/rp-out" >>"$work/$s.rp"
		run_ht >>"$work/$s.ht"
		i=$((i + 1))
	done
	/usr/bin/python3 - "$s" "$work/$s.rp" "$work/$s.ht" "$packets" <<'PY'
import statistics, sys
name, rp, ht, packets = sys.argv[1], *sys.argv[2:4], int(sys.argv[4])
rp, ht = ([l.split() for l in open(p)] for p in (rp, ht))
med = lambda rows, i: statistics.median(float(r[i]) for r in rows)
cr, ch = med(rp, 0), med(ht, 0)
mr, mh = max(int(r[1]) for r in rp), max(int(r[1]) for r in ht)
print(f"\n{name}: {packets} packets, {len(rp)} alternating runs each")
print(f"  CPU s (runs)   roceprobe {' '.join(r[0] for r in rp)}   htsim {' '.join(r[0] for r in ht)}")
print(f"  {'':22}{'roceprobe lab':>26}{'htsim':>26}")
print(f"  {'CPU s, median':22}{cr:>26.3f}{ch:>26.3f}   speed: roceprobe {ch / cr:.2f}x htsim's")
print(f"  {'max RSS':22}{mr / 1024:>23.1f} MB{mh / 1024:>23.1f} MB   memory: roceprobe {mr / mh:.1f}x htsim's")
r, h = rp[0], ht[0]
print(f"  {'goodput Gbit/s':22}{float(r[2]):>26.2f}{float(h[2]):>26.2f}")
pfc = lambda x: "{} ({}/{}/{})".format(*x.split("/"))
print(f"  {'PFC frames sent':22}{pfc(r[3]):>26}{pfc(h[3]):>26}   (XOFF/XON/refresh)")
print(f"  {'peak queue bytes':22}{int(r[4]):>26}{int(h[4]):>26}")
print(f"  {'drops (htsim: over)':22}{int(r[5]):>26}{int(h[5]):>26}")
print(f"  {'end (last rx), us':22}{int(r[8]) / 1000:>26.1f}{int(h[8]) / 1000:>26.1f}")
PY
done

case " $scenarios " in *" dcqcn "*)
	scenario incast
	sets="traffic.0.messages=200"
	generate dcqcn
	dc="-cnp_interval 50 -dcqcn_g 0.0009765625 -dcqcn_alpha0 0.9990234375 -dcqcn_period 55 -dcqcn_F 1 -dcqcn_B 32767 -dcqcn_rai 5 -dcqcn_rhai 50 -qsample 10"
	: >"$work/dcqcn.txt"
	for k in 6 25 100; do
		b=$((k * 4096))
		for mode in per-cnp periodic; do
			printf 'roceprobe-%s %s ' "$mode" "$k" >>"$work/dcqcn.txt"
			run_rp "$work/rp-out" --set hosts.0.respond.cnp=on --set hosts.0.respond.cnp_interval=50us \
				--set hosts.0.respond.cnp_mode=paper --set fabric.ecn.kmin="$b" --set fabric.ecn.kmax="$b" \
				--set fabric.ecn.pmax=100% --set fabric.dcqcn.enabled=on --set fabric.dcqcn.rpg_time_reset=55us \
				--set fabric.dcqcn.dce_tcp_g=1023 --set fabric.dcqcn.dce_tcp_rtt=55us \
				--set fabric.dcqcn.alpha_update="$mode" --set fabric.dcqcn.clamp_tgt_rate=on >>"$work/dcqcn.txt"
		done
		printf 'htsim %s ' "$k" >>"$work/dcqcn.txt"
		# shellcheck disable=SC2086
		run_ht -dcqcn "$k" $dc >>"$work/dcqcn.txt"
		printf 'htsim-retime %s ' "$k" >>"$work/dcqcn.txt"
		# shellcheck disable=SC2086
		run_ht -dcqcn "$k" $dc -retime >>"$work/dcqcn.txt"
		printf 'htsim-aligned %s ' "$k" >>"$work/dcqcn.txt"
		# shellcheck disable=SC2086
		run_ht -dcqcn "$k" $dc -retime -no_ack_pacing >>"$work/dcqcn.txt"
	done
	/usr/bin/python3 - "$work/dcqcn.txt" <<'PY'
import sys
rows = [l.split() for l in open(sys.argv[1])]
print("\ndcqcn: 8:1 incast at 100G, 200 64 KiB WRITEs per sender, step ECN K, the paper's receiver (N = 50 us)")
print(f"  {'':30}" + "".join(f"{'K=' + k:>31}" for k in ("6", "25", "100")))
names = {"roceprobe-per-cnp": "roceprobe, per-cnp alpha", "roceprobe-periodic": "roceprobe, periodic alpha",
         "htsim": "htsim (fixed)", "htsim-retime": "htsim -retime",
         "htsim-aligned": "htsim -retime -no_ack_pacing"}
for tool in names:
    cells = []
    for k in ("6", "25", "100"):
        r = [x for x in rows if x[0] == tool and x[1] == k][0]
        cells.append(f"{float(r[4]):.1f} Gbit/s, {float(r[8]) / 1000:.0f} KB, {r[9]} CNPs")
    print(f"  {names[tool]:30}" + "".join(f"{c:>31}" for c in cells))
print("  (goodput, median queue of h0's switch port over 10 us samples, CNPs the receiver sent)")
for tool in names:
    g = [float(x[4]) for x in rows if x[0] == tool]
    print(f"  {names[tool]}: K=6 -> K=100 {100 * (g[2] / g[0] - 1):+.1f}%")
PY
	;;
esac
