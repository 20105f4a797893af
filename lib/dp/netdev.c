/* The Linux netdev behind a port and its addresses (netdev.h). */
#include "netdev.h"

#include <arpa/inet.h>
#include <dirent.h>
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

/* A complete entry for ip4 on name in /proc/net/arp ("IP address HW type
 * Flags HW address Mask Device"; flags 0x2: ATF_COM). */
static bool arp_entry(const char *name, uint32_t ip4, uint8_t mac[6])
{
	FILE *f = fopen("/proc/net/arp", "r");
	char line[256], ip[64], hw[32], dev[64];
	unsigned type, flags;
	bool found = false;
	if (!f)
		return false;
	struct in_addr want = {.s_addr = htonl(ip4)};
	while (!found && fgets(line, sizeof(line), f)) {
		struct in_addr got;
		unsigned m[6];
		if (sscanf(line, "%63s 0x%x 0x%x %31s %*s %63s", ip, &type, &flags, hw, dev) != 5 ||
		    inet_pton(AF_INET, ip, &got) != 1 || got.s_addr != want.s_addr || strcmp(dev, name) ||
		    !(flags & 0x2) || sscanf(hw, "%x:%x:%x:%x:%x:%x", &m[0], &m[1], &m[2], &m[3], &m[4], &m[5]) != 6)
			continue;
		for (int i = 0; i < 6; i++)
			mac[i] = (uint8_t)m[i];
		found = true;
	}
	fclose(f);
	return found;
}

int rp_dp_netdev_neigh4(const char *name, uint32_t ip4, uint8_t mac[6], unsigned timeout_ms, char *err,
			size_t errlen)
{
	if (arp_entry(name, ip4, mac))
		return 0;
	int fd = socket(AF_INET, SOCK_DGRAM, 0);
	struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons(9), .sin_addr.s_addr = htonl(ip4)};
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, name, (socklen_t)strlen(name)) != 0 ||
	    sendto(fd, "", 0, 0, (struct sockaddr *)&to, sizeof(to)) < 0) {
		snprintf(err, errlen, "cannot make the kernel ask for it on %s (%s)", name, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	for (unsigned waited = 0; waited < timeout_ms; waited += 10) {
		struct timespec ts = {.tv_nsec = 10000000};
		nanosleep(&ts, NULL);
		if (arp_entry(name, ip4, mac))
			return 0;
	}
	snprintf(err, errlen, "the kernel's neighbour table on %s has no complete entry for it after %u ms", name,
		 timeout_ms);
	return -1;
}
