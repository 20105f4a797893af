/* The netdev's ethtool statistics through the SIOCETHTOOL ioctl, the same
 * calls `ethtool -S` makes: the string set size (ETHTOOL_GSSET_INFO), the
 * names (ETHTOOL_GSTRINGS, ETH_SS_STATS) and the values (ETHTOOL_GSTATS), in
 * the driver's own order. Names come from the driver, never from parsing a
 * command's output, so a new driver's counters show up by themselves. */
#include "counters/ethtool.h"

#include <errno.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

int rp_ethtool_cmd(int fd, const char *ifname, void *cmd)
{
	if (strlen(ifname) >= IFNAMSIZ)
		return -ENODEV;
	int own = fd < 0 ? socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0) : fd;
	if (own < 0)
		return -errno;
	struct ifreq ifr;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	ifr.ifr_data = cmd;
	int rc = ioctl(own, SIOCETHTOOL, &ifr) < 0 ? -errno : 0;
	if (own != fd)
		close(own);
	return rc;
}

static uint32_t stats_count(int fd, const char *ifname)
{
	/* struct ethtool_sset_info ends in a flexible array: one u32 after it,
	 * in a buffer aligned for the header (a struct holding both is a GNU
	 * extension clang refuses). */
	union {
		struct ethtool_sset_info hdr;
		uint8_t raw[sizeof(struct ethtool_sset_info) + sizeof(uint32_t)];
	} sset;
	memset(&sset, 0, sizeof(sset));
	sset.hdr.cmd = ETHTOOL_GSSET_INFO;
	sset.hdr.sset_mask = 1ull << ETH_SS_STATS;
	if (rp_ethtool_cmd(fd, ifname, &sset) == 0) {
		uint32_t n;
		memcpy(&n, sset.raw + sizeof(struct ethtool_sset_info), sizeof(n));
		return sset.hdr.sset_mask ? n : 0;
	}
	/* Old kernels: n_stats of the driver info. */
	struct ethtool_drvinfo di = {.cmd = ETHTOOL_GDRVINFO};
	return rp_ethtool_cmd(fd, ifname, &di) == 0 ? di.n_stats : 0;
}

int rp_ethtool_read(const char *ifname, struct rp_ctr **out, char *driver, size_t drvlen, char *err, size_t errlen)
{
	*out = NULL;
	if (driver && drvlen)
		driver[0] = '\0';
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		snprintf(err, errlen, "socket: %s", strerror(errno));
		return -1;
	}
	int ret = -1;
	struct ethtool_gstrings *strs = NULL;
	struct ethtool_stats *vals = NULL;
	struct ethtool_drvinfo di = {.cmd = ETHTOOL_GDRVINFO};
	errno = 0;
	if (rp_ethtool_cmd(fd, ifname, &di) == 0 && driver && drvlen)
		snprintf(driver, drvlen, "%.*s", (int)sizeof(di.driver), di.driver);
	else if (errno == ENODEV) {
		snprintf(err, errlen, "%s: no such network interface ('ip link' lists them)", ifname);
		goto out;
	}
	uint32_t n = stats_count(fd, ifname);
	if (n == 0) {
		snprintf(err, errlen, "%s: no ethtool statistics (%s)", ifname,
			 errno ? strerror(errno) : "driver has none");
		goto out;
	}
	strs = calloc(1, sizeof(*strs) + (size_t)n * ETH_GSTRING_LEN);
	vals = calloc(1, sizeof(*vals) + (size_t)n * sizeof(uint64_t));
	*out = calloc(n, sizeof(**out));
	if (!strs || !vals || !*out) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	strs->cmd = ETHTOOL_GSTRINGS;
	strs->string_set = ETH_SS_STATS;
	strs->len = n;
	vals->cmd = ETHTOOL_GSTATS;
	vals->n_stats = n;
	if (rp_ethtool_cmd(fd, ifname, strs) < 0 || rp_ethtool_cmd(fd, ifname, vals) < 0) {
		snprintf(err, errlen, "%s: SIOCETHTOOL: %s", ifname, strerror(errno));
		goto out;
	}
	/* The driver may report fewer than it announced. */
	if (vals->n_stats < n)
		n = vals->n_stats;
	if (strs->len < n)
		n = strs->len;
	for (uint32_t i = 0; i < n; i++) {
		struct rp_ctr *c = &(*out)[i];
		snprintf(c->name, sizeof(c->name), "%.*s", ETH_GSTRING_LEN, (const char *)strs->data + (size_t)i * ETH_GSTRING_LEN);
		c->src = RP_CTR_ETH;
		c->value = vals->data[i];
	}
	ret = (int)n;
out:
	if (ret < 0) {
		free(*out);
		*out = NULL;
	}
	free(strs);
	free(vals);
	close(fd);
	return ret;
}
