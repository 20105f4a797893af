#!/usr/bin/env bash
# vm-tap-share: `roceprobe run --share` on net_tap with remote= (issue 32): rte_flow isolated
# mode, whose rules are tc flower filters on the remote netdev's ingress that redirect
# (mirred) the matching frames to the tap, i.e. to DPDK; everything else stays with the remote
# netdev's own kernel stack. The host's kernel has no cls_flower (tests/lab/share_check.py
# only sees the refusal there); the VM's Debian kernel has it. One VM:
#
#   netns peer:  vM 10.9.9.1/24 (macvlan on vA): the kernel's clients: ARP, ping, UDP :5001
#                 |
#   root ns:     vA ======veth====== vB 10.9.9.2/24 (the kernel's netdev that is shared)
#                 |                   |  ingress: tc flower (the run's rte_flow rules) -> mirred
#                 | (egress mirror)   |  redirect to rptap0
#                rptapA              rptap0
#   roceprobe run --share, one process, both hosts on net_tap (--share takes every port; the
#   tap PMD is the one here that has isolated mode):
#     a: net_tap1,iface=rptapA,remote=vA, vA's MAC, 10.9.9.3: the sender (its frames leave by vA)
#     b: net_tap0,iface=rptap0,remote=vB, vB's MAC, 10.9.9.2: the receiver, sharing vB
#     traffic a -> b: 256 B RDMA WRITEs (one frame each) at 500 kbit/s for 12 s (control 10 s)
#   While it runs, from netns peer: the neighbour table flushed, `ping -c 3 10.9.9.2` (the
#   ARP for 10.9.9.2 first), then 20 UDP datagrams to 10.9.9.2:5001 (nobody listens: the
#   kernel counts each in Udp NoPorts).
#
# Asserts (the known answers in brackets):
#   - share: result.json's flow a->b: rx == tx > 0, lost 0 [every RoCE frame a sent reached
#     the run]; environment.ports[] for b: shared.isolated true; b's PMD received exactly the
#     flow's frames (xstats rx_packets == rx) [ARP, ICMP and the other UDP never came to DPDK];
#   - share: the kernel answered ARP and ping [peer's neighbour entry for 10.9.9.2 is vB's MAC;
#     ping 3 of 3]; the kernel got the 20 datagrams [root ns Udp NoPorts +20] and not one RoCE
#     frame [root ns Udp InDatagrams +0 and InErrors +0: rdma_rxe holds UDP 4791 in this VM,
#     so a RoCE frame that reached the kernel would be counted there]; the flower rule on vB's
#     ingress matched UDP 4791 to 10.9.9.2 and redirected frames to rptap0 (tc -s);
#   - control, --exclusive (not isolated: the tap PMD's implicit rules redirect every frame to
#     vB's MAC to DPDK, broadcasts are mirrored): the run still gets every RoCE frame, b's port
#     says isolated false, and the kernel lost what is unicast to vB: ping 0 of 3 and no
#     datagram [Udp NoPorts +0].
#   Modules the VM needs (tests/vm/common.sh vm_kernel_modules, from the VMs' kernel package):
#   tun (the tap), veth, macvlan, sch_ingress and sch_multiq (the qdiscs the tap PMD makes on
#   vB and rptap0), cls_flower, act_mirred (the redirect), act_gact (the isolate rule's drop),
#   act_skbedit (the queue action); tc from the host's iproute2, bash for /dev/udp.
set -euo pipefail

roceprobe=${1:?usage: tap_share.sh PATH/TO/roceprobe}
start=$(date +%s)
work=$(mktemp -d /tmp/vm-tap-share.XXXXXX)
keep=1
trap '[ "$keep" = 1 ] || rm -rf "$work"' EXIT
fail() {
	echo "vm-tap-share: FAIL: $*; logs kept in $work/out" >&2
	exit 1
}
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
export PATH=$PATH:/usr/sbin:/sbin # modinfo, tc

mods=$(vm_kernel_modules tun veth macvlan sch_ingress sch_multiq cls_flower act_gact act_mirred act_skbedit) ||
	fail "kernel modules"
tc_bin=$(command -v tc) || fail "tc (iproute2) is not installed on the host"
bash_bin=$(command -v bash)
extras=(--extra "$roceprobe" --extra "$tc_bin" --extra "$bash_bin")
mkdir -p "$work/share"
: >"$work/share/modules.txt"
while IFS= read -r m; do
	extras+=(--extra "$m")
	basename "$m" >>"$work/share/modules.txt"
done <<<"$mods"
# A roceprobe linked with shared DPDK finds its drivers as plugins (run_mixed.sh does the same).
pmds=/usr/lib/x86_64-linux-gnu/dpdk/pmds-23.0
eal="-m 256"
if ldd "$roceprobe" | grep -q 'librte_eal\.so'; then
	for so in librte_mempool_ring.so.23 librte_net_tap.so.23; do
		[ -e "$pmds/$so" ] || fail "no $pmds/$so (Debian's dpdk package)"
		extras+=(--extra "$(readlink -f "$pmds/$so")")
		eal+=" -d /usr/lib/x86_64-linux-gnu/$(basename "$(readlink -f "$pmds/$so")")"
	done
fi
echo "$eal" >"$work/share/eal.txt"
udp_n=20
echo "$udp_n" >"$work/share/udp_n.txt"
cat >"$work/share/profile.in" <<'EOF'
name: vm-tap-share
defaults: {speed: 1G, mtu: 1024}
hosts:
  - {name: a, port: "net_tap1,iface=rptapA,remote=vA", mac: "MAC_A", ipv4: 10.9.9.3}
  - {name: b, port: "net_tap0,iface=rptap0,remote=vB", mac: "MAC_B", ipv4: 10.9.9.2}
traffic:
  - {name: roce, pattern: flow, src: a, dst: b, opcode: write, message_size: 256, rate: 500kbit/s, duration: DURs}
EOF

cat >"$work/job.sh" <<'EOF'
up() { cut -d' ' -f1 /proc/uptime; }
for m in $(cat /share/modules.txt); do
	insmod /usr/local/bin/$m || { echo "insmod $m failed"; exit 1; }
done
# EAL loads a plugin only from a path no one else may write to (the initramfs root is 0777).
chmod go-w / /usr /usr/lib /usr/lib/x86_64-linux-gnu && mkdir -p /var/run
IP=/usr/bin/ip TC=/usr/local/bin/tc
# No IPv6: its router/neighbour solicitations would be frames nobody asked for.
sysctl -qw net.ipv6.conf.default.disable_ipv6=1 net.ipv6.conf.all.disable_ipv6=1
# ARP for an address answered only on the netdev that holds it: else vA answers for vB's
# 10.9.9.2 (one namespace) and run sees its own address held by another MAC.
sysctl -qw net.ipv4.conf.all.arp_ignore=1
$IP netns add peer || { echo "ip netns add failed"; exit 1; }
$IP netns exec peer sysctl -qw net.ipv6.conf.default.disable_ipv6=1 net.ipv6.conf.all.disable_ipv6=1
$IP link add vA type veth peer name vB &&
	$IP link add vM link vA type macvlan mode bridge &&
	$IP link set vM netns peer &&
	$IP link set vA up && $IP link set vB up &&
	$IP addr add 10.9.9.2/24 dev vB &&
	$IP netns exec peer $IP link set lo up &&
	$IP netns exec peer $IP link set vM up &&
	$IP netns exec peer $IP addr add 10.9.9.1/24 dev vM || { echo "network set-up failed"; exit 1; }
mac_a=$(cat /sys/class/net/vA/address) mac_b=$(cat /sys/class/net/vB/address)
echo "vA $mac_a vB $mac_b vM $($IP netns exec peer cat /sys/class/net/vM/address)" >macs.txt
eal=$(cat /share/eal.txt) n=$(cat /share/udp_n.txt)
# phase TAG DURATION ARGS...: one run, the kernel's clients while it runs.
phase() {
	tag=$1 dur=$2
	shift 2
	sed -e "s/MAC_A/$mac_a/" -e "s/MAC_B/$mac_b/" -e "s/DUR/$dur/" /share/profile.in >/rp/$tag.yaml
	cp /proc/net/snmp $tag-snmp-before.txt
	t0=$(up)
	/usr/local/bin/roceprobe run /rp/$tag.yaml -o /rp/$tag --eal "$eal" --idle-us 200 --no-telemetry "$@" \
		>/rp/$tag.txt 2>&1 &
	pid=$!
	# The tap PMD's rules on vB's ingress: with --share the RoCE rule (UDP 4791), else its
	# implicit ones. Then a second for traffic to start.
	i=0
	while kill -0 $pid 2>/dev/null && [ $i -lt 600 ]; do
		f=$($TC filter show dev vB ingress 2>/dev/null)
		if [ "$tag" = share ]; then
			echo "$f" | grep -q 'dst_port 4791' && break
		else
			[ -n "$f" ] && break
		fi
		sleep 0.1
		i=$((i + 1))
	done
	t1=$(up)
	sleep 1
	$IP netns exec peer $IP neigh flush all
	$IP netns exec peer ping -c 3 -W 2 10.9.9.2 >$tag-ping.txt 2>&1
	echo $? >$tag-ping.rc
	$IP netns exec peer $IP neigh show 10.9.9.2 >$tag-neigh.txt
	$IP netns exec peer /usr/local/bin/bash -c "for i in \$(seq 1 $n); do echo \"datagram \$i\" >/dev/udp/10.9.9.2/5001; done" \
		>$tag-udp.txt 2>&1
	echo $? >$tag-udp.rc
	t2=$(up)
	# Still running (its rules in place) when the clients were done? Else they proved nothing.
	kill -0 $pid 2>/dev/null && echo yes >$tag-alive.txt || echo no >$tag-alive.txt
	sleep 0.5
	$TC -s filter show dev vB ingress >$tag-filters.txt 2>&1
	$TC -s filter show dev rptap0 >$tag-tapfilters.txt 2>&1
	wait $pid
	echo $? >$tag.rc
	t3=$(up)
	cp /proc/net/snmp $tag-snmp-after.txt
	$TC filter show dev vB ingress >$tag-filters-after.txt 2>&1
	echo "$tag: run started $t0, rules seen $t1, kernel clients done $t2, run ended $t3" >>times.txt
}
phase share 12 --share
phase exclusive 10 --exclusive
echo job done
EOF

rc=0
"$vm_run" --vms 1 --mem 1024 --job "$work/job.sh" --share "$work/share" "${extras[@]}" \
	--timeout 240 --out "$work/out" || rc=$?
if [ "$rc" != 0 ]; then
	vm_dump_logs "$work/out"
	fail "run.sh exited $rc"
fi

/usr/bin/python3 - "$work/out/vm0" "$udp_n" "$(dirname "$(realpath "${BASH_SOURCE[0]}")")/../lib" <<'PY' || fail "see above"
import json, re, sys
sys.path.insert(0, sys.argv[3])
from check import expect, finish  # noqa: E402
d, n = sys.argv[1], int(sys.argv[2])
def text(name):
    with open(f"{d}/{name}") as f:
        return f.read()
def udp(tag, when):  # the VM's root namespace's /proc/net/snmp Udp line
    lines = [ln.split() for ln in text(f"{tag}-snmp-{when}.txt").splitlines() if ln.startswith("Udp:")]
    return dict(zip(lines[0][1:], map(int, lines[1][1:])))
macs = dict(zip(*[iter(text("macs.txt").split())] * 2))
print("vm-tap-share: " + text("times.txt").strip().replace("\n", "; "))
for tag in ("share", "exclusive"):
    share = tag == "share"
    rc = int(text(f"{tag}.rc"))
    expect(rc == 0, f"{tag}: roceprobe run exit 0 ({rc}: {text(f'{tag}.txt').strip()[-400:]!r})")
    if rc != 0:
        continue
    r = json.load(open(f"{d}/{tag}/result.json"))
    f = r["flows"][0]
    expect(len(r["flows"]) == 1 and f["tx_packets"] > 0 and f["rx_packets"] == f["tx_packets"] and f["lost"] == 0,
           f"{tag}: flow a->b: tx {f['tx_packets']} rx {f['rx_packets']} lost {f['lost']}: every RoCE frame "
           "a sent reached the run")
    ports = {p["node"]: p for p in r["environment"]["ports"]}
    b = ports.get("b", {})
    expect(b.get("shared", {}).get("isolated") is share,
           f"{tag}: environment.ports[] b (net_tap) shared.isolated {share} ({b.get('shared')})")
    brx = b.get("xstats", {}).get("rx_packets")
    if share:
        expect(brx == f["rx_packets"], f"share: b's PMD received {brx} frames == the flow's {f['rx_packets']}: "
               "ARP, ICMP and the other UDP never came to DPDK")
    else:
        expect(brx is not None and brx > f["rx_packets"],
               f"exclusive: b's PMD received {brx} frames > the flow's {f['rx_packets']} (the kernel's too)")
    alive = text(f"{tag}-alive.txt").strip()
    expect(alive == "yes", f"{tag}: the run was still running when the kernel's clients were done ({alive})")
    ping = text(f"{tag}-ping.txt")
    m = re.search(r"(\d+) packets transmitted, (\d+) (?:packets )?received", ping)
    got = int(m.group(2)) if m else -1
    u0, u1 = udp(tag, "before"), udp(tag, "after")
    du = {k: u1[k] - u0[k] for k in ("InDatagrams", "NoPorts", "InErrors")}
    if share:
        neigh = text("share-neigh.txt").strip()
        expect(macs["vB"] in neigh, f"share: the kernel answered ARP: peer's entry for 10.9.9.2 is vB's MAC "
               f"{macs['vB']} ({neigh!r})")
        expect(got == 3, f"share: ping 10.9.9.2 answered by the kernel: {got} of 3")
        expect(du["NoPorts"] == n, f"share: the kernel received the {n} datagrams to UDP 5001: Udp NoPorts "
               f"+{du['NoPorts']}")
        expect(du["InDatagrams"] == 0 and du["InErrors"] == 0,
               f"share: the kernel saw none of the {f['rx_packets']} RoCE frames: Udp InDatagrams "
               f"+{du['InDatagrams']}, InErrors +{du['InErrors']} (rdma_rxe holds UDP 4791 here)")
        flt = text("share-filters.txt")
        m = re.search(r"dst_ip 10\.9\.9\.2.*?dst_port 4791.*?mirred \(Egress Redirect to device rptap0\).*?"
                      r"Sent \d+ bytes (\d+) pkt", flt, re.S)
        red = int(m.group(1)) if m else -1
        expect(red > 0, f"share: vB's ingress has the flower rule UDP 4791 to 10.9.9.2, redirected to rptap0: "
               f"{red} frames so far (tc -s, read before the run ended)")
        print("vm-tap-share: share: vB ingress filters:\n" + flt)
        print("vm-tap-share: share: after the run: " + (text("share-filters-after.txt").strip() or "no filters on vB"))
    else:
        # The tap PMD's implicit rules (not isolated): frames to vB's MAC are redirected to
        # DPDK, broadcasts mirrored: ARP may be answered (by the kernel or by roceprobe for
        # b's address: same MAC); ping and the datagrams are not the kernel's any more.
        expect(got == 0, f"exclusive (control): ping 10.9.9.2: {got} of 3 answered (0: DPDK took them)")
        expect(du["NoPorts"] == 0, f"exclusive (control): the kernel received none of the {n} datagrams: Udp "
               f"NoPorts +{du['NoPorts']}")
finish("vm-tap-share")
PY
sed 's/^/vm-tap-share: /' "$work/out/summary.txt"
echo "vm-tap-share: total $(($(date +%s) - start)) s"
keep=0
