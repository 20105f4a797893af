/* The netdev's ethtool statistics through the SIOCETHTOOL ioctl: what
 * `ethtool -S IFACE` prints, names and values in the driver's order. */
#ifndef RP_COUNTERS_ETHTOOL_H
#define RP_COUNTERS_ETHTOOL_H

#include <stddef.h>

#include "counters/ctr_names.h"

/* Every statistic of ifname into a malloc'd array (*out, src RP_CTR_ETH; the
 * caller frees it); driver gets the driver's name (ETHTOOL_GDRVINFO, "" when
 * unknown; may be NULL). Returns how many, or -1 with err set: no such
 * device, or a driver without statistics. */
/* One SIOCETHTOOL request (cmd: an ethtool_* struct, its .cmd set) on ifname,
 * over fd (an AF_INET datagram socket), or a socket of its own when fd < 0.
 * 0, or -errno (-ENODEV for a name too long to be an interface's). */
int rp_ethtool_cmd(int fd, const char *ifname, void *cmd);
int rp_ethtool_read(const char *ifname, struct rp_ctr **out, char *driver, size_t drvlen, char *err, size_t errlen);

#endif
