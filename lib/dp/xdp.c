/* roceprobe's XDP program (xdp.h): writing the embedded object out for
 * net_af_xdp, and filling its address maps once the PMD attached it. */
#include "xdp.h"

#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void rp_dp_xdp_remove_prog(char *path)
{
	if (path[0])
		unlink(path);
	path[0] = '\0';
}

#ifdef RP_HAVE_XDP_SHARE
#include <arpa/inet.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>

/* lib/dp/xdp/rp_share.bpf.c's object (meson: embed.py) */
extern const unsigned char rp_xdp_share_obj[];
extern const size_t rp_xdp_share_obj_len;

/* The names rp_share.bpf.c gives its program and maps. */
#define PROG_NAME "rp_share"
#define MAP4_NAME "rp_addrs4"
#define MAP6_NAME "rp_addrs6"
#define MAX_MAPS 16

bool rp_dp_xdp_built(void)
{
	return true;
}

int rp_dp_xdp_write_prog(char *path, size_t n, char *err, size_t errlen)
{
	const char *dir = getenv("TMPDIR");
	if (!dir || !*dir)
		dir = "/tmp";
	if ((size_t)snprintf(path, n, "%s/roceprobe-xdp-XXXXXX", dir) >= n) {
		snprintf(err, errlen, "the XDP program's file: TMPDIR (%s) is too long a path", dir);
		return -1;
	}
	int fd = mkstemp(path);
	if (fd < 0) {
		snprintf(err, errlen, "the XDP program's file %s: %s", path, strerror(errno));
		return -1;
	}
	size_t done = 0;
	while (done < rp_xdp_share_obj_len) {
		ssize_t w = write(fd, rp_xdp_share_obj + done, rp_xdp_share_obj_len - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			snprintf(err, errlen, "the XDP program's file %s: %s", path, w < 0 ? strerror(errno) : "short write");
			close(fd);
			unlink(path);
			return -1;
		}
		done += (size_t)w;
	}
	close(fd);
	return 0;
}

/* The program's maps named MAP4_NAME and MAP6_NAME (fds, -1 when absent). */
static int find_maps(int prog_fd, int *fd4, int *fd6, char *what, size_t n)
{
	struct bpf_prog_info info;
	__u32 ids[MAX_MAPS], len = sizeof(info);
	memset(&info, 0, sizeof(info));
	info.nr_map_ids = MAX_MAPS;
	info.map_ids = (__u64)(unsigned long)ids;
	if (bpf_obj_get_info_by_fd(prog_fd, &info, &len) != 0) {
		snprintf(what, n, "reading its program's facts: %s", strerror(errno));
		return -1;
	}
	if (strcmp(info.name, PROG_NAME) != 0) {
		snprintf(what, n, "the XDP program attached is '%s', not roceprobe's %s", info.name, PROG_NAME);
		return -1;
	}
	for (__u32 i = 0; i < info.nr_map_ids && i < MAX_MAPS; i++) {
		int fd = bpf_map_get_fd_by_id(ids[i]);
		struct bpf_map_info mi;
		__u32 mlen = sizeof(mi);
		memset(&mi, 0, sizeof(mi));
		if (fd < 0)
			continue;
		bool named = bpf_obj_get_info_by_fd(fd, &mi, &mlen) == 0;
		int *slot = !named ? NULL : !strcmp(mi.name, MAP4_NAME) ? fd4 : !strcmp(mi.name, MAP6_NAME) ? fd6 : NULL;
		if (slot && *slot < 0)
			*slot = fd;
		else
			close(fd);
	}
	if (*fd4 < 0 || *fd6 < 0) {
		snprintf(what, n, "its program %s has no map %s", PROG_NAME, *fd4 < 0 ? MAP4_NAME : MAP6_NAME);
		return -1;
	}
	return 0;
}

int rp_dp_xdp_set_addrs(const char *ifname, const uint32_t *ip4, unsigned n4, const uint8_t (*ip6)[16],
			unsigned n6, char *err, size_t errlen)
{
	char what[200] = "";
	int prog_fd = -1, fd4 = -1, fd6 = -1, rc = -1;
	unsigned idx = if_nametoindex(ifname);
	__u32 id = 0;
	if (!idx)
		snprintf(what, sizeof(what), "no such interface (%s)", strerror(errno));
	else if (bpf_xdp_query_id((int)idx, 0, &id) != 0)
		snprintf(what, sizeof(what), "asking its XDP program: %s", strerror(errno));
	else if (!id)
		snprintf(what, sizeof(what), "no XDP program is attached to it");
	else if ((prog_fd = bpf_prog_get_fd_by_id(id)) < 0)
		snprintf(what, sizeof(what), "opening its XDP program (id %u): %s", id, strerror(errno));
	else if (find_maps(prog_fd, &fd4, &fd6, what, sizeof(what)) == 0) {
		const __u8 one = 1;
		rc = 0;
		for (unsigned i = 0; rc == 0 && i < n4; i++) {
			__u32 be = htonl(ip4[i]);
			if (bpf_map_update_elem(fd4, &be, &one, BPF_ANY) != 0) {
				snprintf(what, sizeof(what), "adding an IPv4 address to %s: %s", MAP4_NAME, strerror(errno));
				rc = -1;
			}
		}
		for (unsigned i = 0; rc == 0 && i < n6; i++)
			if (bpf_map_update_elem(fd6, ip6[i], &one, BPF_ANY) != 0) {
				snprintf(what, sizeof(what), "adding an IPv6 address to %s: %s", MAP6_NAME, strerror(errno));
				rc = -1;
			}
	}
	if (rc != 0)
		snprintf(err, errlen, "interface %s: roceprobe's XDP program: %s", ifname, what);
	if (fd4 >= 0)
		close(fd4);
	if (fd6 >= 0)
		close(fd6);
	if (prog_fd >= 0)
		close(prog_fd);
	return rc;
}

#else /* built without clang or libbpf */

bool rp_dp_xdp_built(void)
{
	return false;
}

int rp_dp_xdp_write_prog(char *path, size_t n, char *err, size_t errlen)
{
	(void)n;
	path[0] = '\0';
	snprintf(err, errlen, "this roceprobe was built without its XDP program (needs clang and libbpf-dev at build "
			      "time: tools/bootstrap.sh)");
	return -1;
}

int rp_dp_xdp_set_addrs(const char *ifname, const uint32_t *ip4, unsigned n4, const uint8_t (*ip6)[16],
			unsigned n6, char *err, size_t errlen)
{
	(void)ip4, (void)n4, (void)ip6, (void)n6;
	snprintf(err, errlen, "interface %s: this roceprobe was built without its XDP program", ifname);
	return -1;
}
#endif
