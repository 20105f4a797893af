#!/usr/bin/env bash
# vm-ep-cm: `roceprobe ep --cm` (QPs connected by rdma_cm) between two Soft-RoCE VMs.
#
#   vm0 10.9.0.1 rxe0 ---- qemu socket netdev (virtual Ethernet) ---- vm1 10.9.0.2 rxe0
#   roceprobe ep (x3, no peer: servers)                           roceprobe ep ... 10.9.0.1:
#                                                                   write latency, TCP exchange
#                                                                   write latency, --cm
#                                                                   write bandwidth, --cm, 2 QPs
#   roceprobe ep --key-file (issue 33)                            -R (--cm), a wrong key: refused
#                                                                   --cm, the key, through
#                                                                   cm_stranger (tests/vm/cm_stranger.c)
#
# With --cm the client resolves 10.9.0.1 through the kernel (rdma_resolve_addr/route), and
# each QP is connected by a REQ/REP/RTU exchange on QP1 carrying the buffer keys as private
# data; the session's control lines stay on TCP. With a key, each REQ and REP also carries a
# proof over the control session's nonces (lib/verbs/cm_priv.h): cm_stranger relays the keyed
# client's control channel, reads the port and the nonces on it, and sends the session's CM
# listener three requests of its own first (no proof; a proof under another key; a proof under
# the key over another session's nonces, as a replayed REQ has).
# Asserts: every run completes (200 latency samples; 2 x 50 bandwidth messages); client and
# server result.json say "connect": "rdma_cm" for the --cm runs and "tcp" for the other; the
# --cm latency median is within a factor 2 of the TCP-exchange one in the same VMs (same QPs,
# same path: only the way they were connected differs; TCG jitter is large, hence the factor).
# The keyed server: a --cm client with the wrong key exits 2 with the server's refusal; each
# of the stranger's three requests comes back as a REJ with the server's reason (a REP would
# be a stranger's QP connected); the server logs one 'refused' line for each (three with
# '(rdma_cm)') and counts 4 in result.json's refused_connections; the keyed client's session,
# connected by rdma_cm after the strangers, completes its 200 samples.
set -euo pipefail

roceprobe=${1:?usage: ep_cm.sh PATH/TO/roceprobe PATH/TO/cm_stranger}
stranger=${2:?usage: ep_cm.sh PATH/TO/roceprobe PATH/TO/cm_stranger}
start=$(date +%s)
iters=200

work=$(mktemp -d /tmp/vm-ep-cm.XXXXXX)
keep=1
trap '[ "$keep" = 1 ] || rm -rf "$work"' EXIT
fail() {
	echo "vm-ep-cm: FAIL: $*; logs kept in $work/out" >&2
	exit 1
}
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

cat >"$work/server.sh" <<'JOB'
for r in lat-tcp lat-cm bw-cm; do
	roceprobe ep --bind 10.9.0.1 -d "$RP_DEV" -o $r >$r.txt 2>&1 || { cat $r.txt; exit 1; }
done
printf 'vm-ep-cm key\n' >ep.key && chmod 600 ep.key
roceprobe ep --bind 10.9.0.1 --key-file ep.key -d "$RP_DEV" -o lat-cm-key >lat-cm-key.txt 2>&1 ||
	{ cat lat-cm-key.txt; exit 1; }
echo server done
JOB
cat >"$work/client.sh" <<JOB
# ep clients retry their TCP connection by themselves (--connect-timeout).
roceprobe ep -d "\$RP_DEV" -n $iters -o lat-tcp 10.9.0.1 >lat-tcp.txt 2>&1 || { cat lat-tcp.txt; exit 1; }
roceprobe ep -R -d "\$RP_DEV" -n $iters -o lat-cm 10.9.0.1 >lat-cm.txt 2>&1 || { cat lat-cm.txt; exit 1; }
roceprobe ep -R -d "\$RP_DEV" --mode bw -s 16KiB -n 50 -q 2 -o bw-cm 10.9.0.1 >bw-cm.txt 2>&1 ||
	{ cat bw-cm.txt; exit 1; }
printf 'vm-ep-cm key\n' >ep.key && printf 'not the key\n' >wrong.key && chmod 600 ep.key wrong.key
rc=0; roceprobe ep -R --key-file wrong.key -d "\$RP_DEV" -n 2 10.9.0.1 >cm-wrong-key.txt 2>&1 || rc=\$?
[ \$rc = 2 ] || { echo "a wrong-key --cm client of a keyed server exited \$rc"; cat cm-wrong-key.txt; exit 1; }
cm_stranger --listen 18600 --server 10.9.0.1:18520 --key-file ep.key >stranger.txt 2>&1 &
sp=\$!
roceprobe ep -p 18600 -R --key-file ep.key -d "\$RP_DEV" -n $iters -o lat-cm-key 127.0.0.1 \
	>lat-cm-key.txt 2>&1 || { cat lat-cm-key.txt stranger.txt; exit 1; }
wait \$sp || { cat stranger.txt; exit 1; }
echo client done
JOB

vm_run_pair --extra "$roceprobe" --extra "$stranger" --timeout 360
grep -h "connected by rdma_cm" "$work/out/vm1/lat-cm.txt" | sed 's/^/vm-ep-cm: /'

/usr/bin/python3 - "$work/out" "$iters" <<'PY' || fail "see above"
import json, re, sys
out, iters = sys.argv[1], int(sys.argv[2])
def load(vm, name):
    with open(f"{out}/{vm}/{name}/result.json") as f:
        return json.load(f)
bad = []
for name, want in (("lat-tcp", "tcp"), ("lat-cm", "rdma_cm"), ("bw-cm", "rdma_cm")):
    for vm in ("vm0", "vm1"):
        got = load(vm, name)["config"].get("connect")
        if got != want:
            bad.append(f"{vm} {name}: config.connect is {got!r}, not {want!r}")
tcp = load("vm1", "lat-tcp")["results"][0]["latency_ns"]
cm = load("vm1", "lat-cm")["results"][0]["latency_ns"]
for name, r in (("tcp", tcp), ("cm", cm)):
    if r["count"] != iters:
        bad.append(f"latency ({name}) has {r['count']} samples, not {iters}")
ratio = cm["p50"] / tcp["p50"]
print(f"vm-ep-cm: write latency 2 B median: --cm {cm['p50']/1e3:.1f} usec, TCP exchange {tcp['p50']/1e3:.1f} usec, ratio {ratio:.2f}")
if not 0.5 <= ratio <= 2.0:
    bad.append(f"--cm median is {ratio:.2f} x the TCP-exchange one")
bw = load("vm1", "bw-cm")
r = bw["results"][0]
print(f"vm-ep-cm: write bandwidth 16 KiB x 2 QPs over rdma_cm: {r['bw_gbps']*1e3:.1f} Mbit/s, {r['messages']} messages")
if r["messages"] != 100 or r["bw_gbps"] <= 0 or bw["config"]["qps"] != 2:
    bad.append(f"bandwidth: {r['messages']} messages, {r['bw_gbps']} Gbit/s, {bw['config']['qps']} QPs")
# issue 33: the keyed server over rdma_cm.
wrong = open(f"{out}/vm1/cm-wrong-key.txt").read().splitlines()
if "roceprobe ep: server refused: wrong key: the client's key is not the server's" not in wrong:
    bad.append(f"the wrong-key --cm client said {wrong}")
other = "wrong key, or a request of another session"
want = {"no-proof": "no proof of the key (an ep without the rdma_cm proof?)", "wrong-key": other, "replay": other}
got = dict(re.fullmatch(r"cm_stranger: (\S+): (.*)", l).groups() for l in open(f"{out}/vm1/stranger.txt").read().splitlines()
           if l.startswith("cm_stranger: "))
for name, why in want.items():
    print(f"vm-ep-cm: stranger's {name} request: {got.get(name)}")
    if got.get(name) != f"refused: {why}":
        bad.append(f"the stranger's {name} request: {got.get(name)!r}, not refused with {why!r}")
srv = [l for l in open(f"{out}/vm0/lat-cm-key.txt").read().splitlines() if l.startswith("roceprobe ep: refused ")]
cm_lines = [l for l in srv if re.fullmatch(r"roceprobe ep: refused 10\.9\.0\.2:\d+ \(rdma_cm\): .*", l)]
tcp_lines = [l for l in srv if re.fullmatch(r"roceprobe ep: refused 10\.9\.0\.2:\d+: wrong key", l)]
if len(srv) != 4 or len(cm_lines) != 3 or len(tcp_lines) != 1 or \
        sorted(l.split(": ", 2)[2] for l in cm_lines) != sorted(want.values()):
    bad.append(f"the keyed server's refusal lines: {srv}")
for l in srv:
    print(f"vm-ep-cm: keyed server: {l}")
skey = load("vm0", "lat-cm-key")
if skey.get("refused_connections") != 4 or skey.get("key") is not True or skey["config"].get("connect") != "rdma_cm":
    bad.append(f"the keyed server's result.json: refused_connections {skey.get('refused_connections')}, "
               f"key {skey.get('key')}, connect {skey['config'].get('connect')}")
ckey = load("vm1", "lat-cm-key")
if ckey["config"].get("connect") != "rdma_cm" or ckey["results"][0]["latency_ns"]["count"] != iters:
    bad.append(f"the keyed --cm client: connect {ckey['config'].get('connect')}, "
               f"{ckey['results'][0]['latency_ns']['count']} samples")
for b in bad:
    print("vm-ep-cm: FAIL:", b, file=sys.stderr)
sys.exit(1 if bad else 0)
PY
sed 's/^/vm-ep-cm: /' "$work/out/summary.txt"
echo "vm-ep-cm: PASS, total $(($(date +%s) - start)) s"
keep=0
