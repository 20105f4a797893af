/* The Linux netdev behind a port and its addresses (netdev.h). */
#include "netdev.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <linux/neighbour.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static int pci_netdev(const char *pci, char *name, size_t len, char *err, size_t errlen)
{
	char path[128];
	/* sysfs names PCI devices with their domain: 03:00.0 is 0000:03:00.0 */
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s%s/net", strlen(pci) <= 7 ? "0000:" : "", pci);
	DIR *d = opendir(path);
	struct dirent *e;
	name[0] = '\0';
	while (d && (e = readdir(d)) != NULL)
		if (e->d_name[0] != '.' && !name[0])
			snprintf(name, len, "%s", e->d_name);
	if (d)
		closedir(d);
	if (name[0])
		return 0;
	snprintf(err, errlen, "PCI NIC %s has no Linux netdev (%s: no kernel driver holds it, e.g. bound to vfio-pci)",
		 pci, path);
	return -1;
}

int rp_dp_port_netdev(const char *port, bool is_pci, char *name, size_t len, char *err, size_t errlen)
{
	if (is_pci)
		return pci_netdev(port, name, len, err, errlen);
	const char *p = strstr(port, ",iface=");
	if (p && (!strncmp(port, "net_af_packet", 13) || !strncmp(port, "net_af_xdp", 10) ||
		  !strncmp(port, "eth_af_packet", 13))) {
		p += 7;
		size_t n = strcspn(p, ",");
		if (n > 0 && n < len && n < IF_NAMESIZE) {
			memcpy(name, p, n);
			name[n] = '\0';
			return 0;
		}
	}
	snprintf(err, errlen, "port '%s' has no Linux netdev (netdev addresses come from net_af_packet/net_af_xdp "
			      "iface=NAME, or a PCI NIC its kernel driver still holds)", port);
	return -1;
}

static uint8_t mask_len(const struct sockaddr *m, int family)
{
	const uint8_t *b = family == AF_INET ? (const uint8_t *)&((const struct sockaddr_in *)m)->sin_addr
					     : (const uint8_t *)&((const struct sockaddr_in6 *)m)->sin6_addr;
	size_t n = family == AF_INET ? 4 : 16;
	uint8_t len = 0;
	for (size_t i = 0; i < n; i++)
		len = (uint8_t)(len + __builtin_popcount(b[i]));
	return len;
}

int rp_dp_netdev_addr(const char *name, int family, uint32_t *ip4, uint8_t ip6[16], uint8_t *plen, char *err,
		      size_t errlen)
{
	struct ifaddrs *all, *a;
	int af = family == 4 ? AF_INET : AF_INET6, rc = -1;
	if (getifaddrs(&all) != 0) {
		snprintf(err, errlen, "cannot list the addresses of %s (getifaddrs)", name);
		return -1;
	}
	bool seen = false;
	for (a = all; a && rc != 0; a = a->ifa_next) {
		if (strcmp(a->ifa_name, name) != 0)
			continue;
		seen = true;
		if (!a->ifa_addr || a->ifa_addr->sa_family != af || !a->ifa_netmask)
			continue;
		if (af == AF_INET) {
			*ip4 = ntohl(((const struct sockaddr_in *)a->ifa_addr)->sin_addr.s_addr);
		} else {
			const uint8_t *b = ((const struct sockaddr_in6 *)a->ifa_addr)->sin6_addr.s6_addr;
			if (b[0] == 0xfe && (b[1] & 0xc0) == 0x80)
				continue; /* link-local: not a RoCE host address */
			memcpy(ip6, b, 16);
		}
		*plen = mask_len(a->ifa_netmask, af);
		rc = 0;
	}
	freeifaddrs(all);
	if (rc != 0)
		snprintf(err, errlen, seen ? "netdev %s has no %s address (ip addr add ... dev %s)"
					   : "no netdev named %s%.0s (ip link; is the port's iface right?)",
			 name, family == 4 ? "IPv4" : "global IPv6", name);
	return rc;
}

static int read_u64(const char *name, const char *what, uint64_t *v)
{
	char path[128];
	snprintf(path, sizeof(path), "/sys/class/net/%s/statistics/%s", name, what);
	FILE *f = fopen(path, "r");
	unsigned long long x = 0;
	int ok = f && fscanf(f, "%llu", &x) == 1;
	if (f)
		fclose(f);
	*v = x;
	return ok ? 0 : -1;
}

int rp_dp_netdev_tx_read(const char *name, struct rp_dp_netdev_tx *out)
{
	*out = (struct rp_dp_netdev_tx){0};
	if (!name[0] || strchr(name, '/'))
		return -1;
	return read_u64(name, "tx_packets", &out->tx_packets) | read_u64(name, "tx_dropped", &out->tx_dropped) |
	       read_u64(name, "tx_errors", &out->tx_errors);
}

int rp_dp_netdev_rx_read(const char *name, struct rp_dp_netdev_tx *out)
{
	*out = (struct rp_dp_netdev_tx){0};
	if (!name[0] || strchr(name, '/'))
		return -1;
	return read_u64(name, "rx_packets", &out->tx_packets);
}

/* The kernel's neighbour entry for addr (family 4: 4 bytes, 6: 16) on
 * ifindex, with a link-layer address and a valid state (rtnetlink
 * RTM_GETNEIGH, as `ip neigh show` reads it): one dump, its answers walked. */
static bool neigh_entry(unsigned ifindex, int family, const uint8_t *addr, uint8_t mac[6])
{
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0)
		return false;
	struct {
		struct nlmsghdr nh;
		struct ndmsg nd;
	} req = {.nh = {.nlmsg_len = NLMSG_LENGTH(sizeof(struct ndmsg)), .nlmsg_type = RTM_GETNEIGH,
			.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP, .nlmsg_seq = 1},
		 .nd = {.ndm_family = (uint8_t)(family == 4 ? AF_INET : AF_INET6)}};
	size_t alen = family == 4 ? 4 : 16;
	bool found = false, done = false;
	static char buf[32768];
	if (send(fd, &req, req.nh.nlmsg_len, 0) < 0)
		done = true;
	while (!done) {
		ssize_t n = recv(fd, buf, sizeof(buf), 0);
		if (n <= 0)
			break;
		for (struct nlmsghdr *h = (struct nlmsghdr *)buf; NLMSG_OK(h, (unsigned)n); h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_type == NLMSG_DONE || h->nlmsg_type == NLMSG_ERROR) {
				done = true;
				break;
			}
			const struct ndmsg *nd = NLMSG_DATA(h);
			if (h->nlmsg_type != RTM_NEWNEIGH || (unsigned)nd->ndm_ifindex != ifindex ||
			    !(nd->ndm_state & (NUD_REACHABLE | NUD_STALE | NUD_DELAY | NUD_PROBE | NUD_PERMANENT)))
				continue;
			const uint8_t *dst = NULL, *ll = NULL;
			int len = (int)RTM_PAYLOAD(h);
			for (struct rtattr *a = RTM_RTA(nd); RTA_OK(a, len); a = RTA_NEXT(a, len)) {
				if (a->rta_type == NDA_DST && RTA_PAYLOAD(a) == alen)
					dst = RTA_DATA(a);
				else if (a->rta_type == NDA_LLADDR && RTA_PAYLOAD(a) == 6)
					ll = RTA_DATA(a);
			}
			if (!found && dst && ll && !memcmp(dst, addr, alen)) {
				memcpy(mac, ll, 6);
				found = true;
			}
		}
	}
	close(fd);
	return found;
}

int rp_dp_netdev_neigh(const char *name, int family, uint32_t ip4, const uint8_t ip6[16], uint32_t src4,
		       const uint8_t src6[16], uint8_t mac[6], unsigned timeout_ms, char *err, size_t errlen)
{
	unsigned ifindex = if_nametoindex(name);
	uint8_t addr[16];
	if (!ifindex) {
		snprintf(err, errlen, "no interface %s in this namespace", name);
		return -1;
	}
	if (family == 4) {
		uint32_t be = htonl(ip4);
		memcpy(addr, &be, 4);
	} else {
		memcpy(addr, ip6, 16);
	}
	if (neigh_entry(ifindex, family, addr, mac))
		return 0;
	/* Anything sent there makes the kernel resolve it (ARP, or Neighbour Solicitation). */
	/* From the host's own address (bound to it, never to every address): the
	 * socket only sends, and is closed at once. */
	struct sockaddr_in to4 = {.sin_family = AF_INET, .sin_port = htons(9), .sin_addr.s_addr = htonl(ip4)};
	struct sockaddr_in from4 = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(src4)};
	struct sockaddr_in6 to6 = {.sin6_family = AF_INET6, .sin6_port = htons(9)}, from6 = {.sin6_family = AF_INET6};
	memcpy(&to6.sin6_addr, addr, 16);
	if (family != 4)
		memcpy(&from6.sin6_addr, src6, 16);
	int fd = socket(family == 4 ? AF_INET : AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, name, (socklen_t)strlen(name)) != 0 ||
	    (family == 4 ? bind(fd, (struct sockaddr *)&from4, sizeof(from4))
			 : bind(fd, (struct sockaddr *)&from6, sizeof(from6))) != 0 ||
	    (family == 4 ? sendto(fd, "", 0, 0, (struct sockaddr *)&to4, sizeof(to4))
			 : sendto(fd, "", 0, 0, (struct sockaddr *)&to6, sizeof(to6))) < 0) {
		snprintf(err, errlen, "cannot make the kernel ask for it on %s (%s)", name, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	for (unsigned waited = 0; waited < timeout_ms; waited += 10) {
		struct timespec ts = {.tv_nsec = 10000000};
		nanosleep(&ts, NULL);
		if (neigh_entry(ifindex, family, addr, mac))
			return 0;
	}
	snprintf(err, errlen, "the kernel's neighbour table on %s has no complete entry for it after %u ms", name,
		 timeout_ms);
	return -1;
}
