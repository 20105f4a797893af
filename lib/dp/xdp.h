/* roceprobe's XDP program for net_af_xdp ports shared with the kernel
 * (--share; dp.h enum rp_dp_share, docs/hardware.md): lib/dp/xdp/rp_share.bpf.c,
 * compiled at build time and embedded in the binary. It hands the run's
 * RoCEv2 frames (UDP 4791 to the addresses in its maps) and MAC control
 * frames (PFC, PAUSE) to the AF_XDP socket and passes the rest to the kernel.
 * Plain C over libbpf's low-level API; no DPDK. */
#ifndef RP_DP_XDP_H
#define RP_DP_XDP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Whether this binary carries the program (built with clang and libbpf). */
bool rp_dp_xdp_built(void);

/* Writes the program's object to a new file of this process (mode 0600,
 * under $TMPDIR or /tmp), for net_af_xdp's xdp_prog= devarg; its path into
 * path (n bytes). 0, or -1 with one line in err. */
int rp_dp_xdp_write_prog(char *path, size_t n, char *err, size_t errlen);

/* Removes the file rp_dp_xdp_write_prog wrote (once the ports loaded it,
 * and at exit); an empty path is none. Empties path. */
void rp_dp_xdp_remove_prog(char *path);

/* The addresses net_af_xdp's program on interface ifname hands to the
 * socket: the program attached there must be roceprobe's (found by the
 * interface's XDP program id, its maps by name). ip4 in host order, ip6 as
 * on the wire. 0, or -1 with one line in err (what failed). */
int rp_dp_xdp_set_addrs(const char *ifname, const uint32_t *ip4, unsigned n4, const uint8_t (*ip6)[16],
			unsigned n6, char *err, size_t errlen);

#endif
