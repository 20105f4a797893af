#!/usr/bin/env python3
"""htsim's inputs from roceprobe's plan (tools/bench/htsim.sh).

usage: gen.py PLAN.json TOPOLOGY OUT
  PLAN.json  `roceprobe plan PROFILE --set ... --json`
  TOPOLOGY   single | leaf-spine:LEAVES:HOSTS_PER_LEAF:SPINES | fat-tree:K  (the profile's
             fabric: section, which the plan does not carry)
  OUT        writes OUT.topo (htsim's FatTree config) and OUT.cm (its connection matrix),
             and prints one line: nodes N mtu M packets P payload B delay_ns D

Hosts keep their plan order: host i is htsim node i, and both tools fill leaves in blocks
(h0.. on leaf 0). A flow is one htsim connection of the plan's packets; htsim's packet is one
size, the plan's mean frame on the wire (frame + 24 B: FCS, preamble, gap, as the lab's links
serialize it), so each flow takes as long on a link as in the lab. Every link is 100G-class
at the plan's host speed, 500 ns one way (the lab's default cable), no switch latency; queues
are 16 MiB (lossless: htsim's only bound is PFC, as in the lab). A flow starts at its
all-to-all phase's start (the plan's phases), else at its own start_ns.
"""
import json
import sys


def main():
    plan_path, topo, out = sys.argv[1:4]
    with open(plan_path) as f:
        plan = json.load(f)
    hosts = [h["name"] for h in plan["hosts"]]
    index = {n: i for i, n in enumerate(hosts)}
    speed = plan["hosts"][0]["speed_bps"]
    if any(h["speed_bps"] != speed for h in plan["hosts"]):
        sys.exit("gen.py: hosts of different speeds: htsim's fat tree has one speed per tier")
    gbps = speed // 10**9
    flows = plan["flows"]
    packets = sum(fl["packets"] for fl in flows)
    frame = sum(fl["frame_bytes"] for fl in flows) / packets
    payload = sum(fl["payload_bytes"] for fl in flows)
    mtu = round(frame) + 24
    delay = 500
    kind = topo.split(":")
    n = len(hosts)
    tiers = []
    if kind[0] == "single":
        if n > 16:
            sys.exit("gen.py: single: at most 16 hosts here")
        nodes, podsize = 16, 16          # one 16-port ToR; the hosts past the profile's stay idle
        tiers = [dict(down=16, up=16), dict(down=1)]
    elif kind[0] == "leaf-spine":
        leaves, hpl, spines = map(int, kind[1:4])
        nodes = podsize = leaves * hpl
        tiers = [dict(down=hpl, up=spines), dict(down=leaves)]
    elif kind[0] == "fat-tree":
        k = int(kind[1])
        nodes, podsize = k ** 3 // 4, k * k // 4
        tiers = [dict(down=k // 2, up=k // 2), dict(down=k // 2, up=k // 2), dict(down=k)]
    else:
        sys.exit(f"gen.py: unknown topology {topo}")
    if nodes < n:
        sys.exit(f"gen.py: {n} hosts do not fit {topo} ({nodes})")
    qsize = 16 * 1024 * 1024
    with open(out + ".topo", "w") as f:
        f.write(f"# from roceprobe's plan ({plan.get('name', '')}), {topo}\n")
        f.write(f"Nodes {nodes}\nTiers {len(tiers)}\nPodsize {podsize}\n")
        for t, d in enumerate(tiers):
            f.write(f"\nTier {t}\nDownlink_speed_Gbps {gbps}\nRadix_Down {d['down']}\n")
            if "up" in d:
                f.write(f"Radix_Up {d['up']}\nQueue_Up {qsize}\n")
            f.write(f"Queue_Down {qsize}\nDownlink_Latency_ns {delay}\nSwitch_Latency_ns 0\n")
            if t:
                f.write("Bundle 1\n")
    starts = {}
    for ph in plan.get("phases") or []:
        starts[(ph["traffic"], ph["phase"])] = ph["start_ns"]
    with open(out + ".cm", "w") as f:
        f.write(f"Nodes {nodes}\nConnections {len(flows)}\n")
        for i, fl in enumerate(flows):
            start = starts.get((fl["traffic"], fl.get("phase")), fl["start_ns"])
            f.write(f"{index[fl['src_host']]}->{index[fl['dst']]} id {i + 1} start {start / 1000:.6f} "
                    f"size {fl['packets'] * mtu}\n")
    print(f"nodes {nodes} mtu {mtu} packets {packets} payload {payload} delay_ns {delay}")


if __name__ == "__main__":
    main()
