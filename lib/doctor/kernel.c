/* What the kernel tells doctor beyond files: the ethtool ioctl
 * (ETHTOOL_GDRVINFO, ETHTOOL_GLINKSETTINGS, ETHTOOL_GET_TS_INFO), DCB over
 * rtnetlink (RTM_GETDCB DCB_CMD_IEEE_GET, as iproute2's `dcb pfc show` asks)
 * and devlink's `enable_roce` over generic netlink (as `devlink dev param
 * show pci/ADDR name enable_roce` asks). Read only. */
#include <errno.h>
#include <linux/dcbnl.h>
#include <linux/devlink.h>
#include <linux/ethtool.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "counters/ethtool.h"
#include "doctor.h"

static int real_drvinfo(const char *ifname, struct rp_doctor_drvinfo *out)
{
	struct ethtool_drvinfo di = {.cmd = ETHTOOL_GDRVINFO};
	int rc = rp_ethtool_cmd(-1, ifname, &di);
	if (rc)
		return rc;
	snprintf(out->driver, sizeof(out->driver), "%.*s", (int)sizeof(di.driver), di.driver);
	snprintf(out->version, sizeof(out->version), "%.*s", (int)sizeof(di.version), di.version);
	snprintf(out->fw_version, sizeof(out->fw_version), "%.*s", (int)sizeof(di.fw_version), di.fw_version);
	snprintf(out->bus_info, sizeof(out->bus_info), "%.*s", (int)sizeof(di.bus_info), di.bus_info);
	return 0;
}

/* ETHTOOL_GLINKSETTINGS's handshake: asked with no link-mode words, the
 * kernel answers with -(words it needs); asked again with them, the
 * settings. The speed is Mb/s, SPEED_UNKNOWN (-1) when the link is down. */
static int real_link_mbps(const char *ifname, uint32_t *mbps)
{
	/* The settings, then their flexible array of link-mode words: a union
	 * with a byte buffer (a struct holding both is a GNU extension clang
	 * refuses). */
	union {
		struct ethtool_link_settings s;
		uint8_t raw[sizeof(struct ethtool_link_settings) + 3 * 127 * sizeof(uint32_t)];
	} req;
	memset(&req, 0, sizeof(req));
	req.s.cmd = ETHTOOL_GLINKSETTINGS;
	int rc = rp_ethtool_cmd(-1, ifname, &req);
	if (rc)
		return rc;
	int8_t words = req.s.link_mode_masks_nwords;
	if (words >= 0 || -words > 127)
		return -EPROTO;
	memset(&req, 0, sizeof(req));
	req.s.cmd = ETHTOOL_GLINKSETTINGS;
	req.s.link_mode_masks_nwords = (int8_t)-words;
	if ((rc = rp_ethtool_cmd(-1, ifname, &req)) != 0)
		return rc;
	*mbps = req.s.speed == (uint32_t)SPEED_UNKNOWN ? 0 : req.s.speed;
	return 0;
}

static int real_phc_index(const char *ifname, int *index)
{
	struct ethtool_ts_info ti = {.cmd = ETHTOOL_GET_TS_INFO};
	int rc = rp_ethtool_cmd(-1, ifname, &ti);
	if (rc)
		return rc;
	*index = ti.phc_index;
	return 0;
}

/* ---- netlink ---- */

struct nlreq {
	struct nlmsghdr h;
	char body[512];
};

static void put_attr(struct nlreq *r, uint16_t type, const void *data, size_t len)
{
	struct nlattr *a = (struct nlattr *)((char *)r + NLMSG_ALIGN(r->h.nlmsg_len));
	a->nla_type = type;
	a->nla_len = (uint16_t)(NLA_HDRLEN + len);
	memcpy((char *)a + NLA_HDRLEN, data, len);
	r->h.nlmsg_len = NLMSG_ALIGN(r->h.nlmsg_len) + NLA_ALIGN(a->nla_len);
}

/* Sends req on a new socket of proto and reads the one answer into buf:
 * its length, or a negative errno (the kernel's NLMSG_ERROR included). */
static int nl_ask(int proto, struct nlreq *req, char *buf, size_t len)
{
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, proto);
	if (fd < 0)
		return -errno;
	struct timeval tv = {.tv_sec = 2};
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	struct sockaddr_nl sa = {.nl_family = AF_NETLINK};
	req->h.nlmsg_flags = NLM_F_REQUEST;
	req->h.nlmsg_seq = 1;
	int rc;
	if (sendto(fd, req, req->h.nlmsg_len, 0, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		rc = -errno;
	} else {
		ssize_t n = recv(fd, buf, len, 0);
		struct nlmsghdr *h = (struct nlmsghdr *)buf;
		if (n < 0)
			rc = -errno;
		else if (n < (ssize_t)sizeof(*h) || !NLMSG_OK(h, (size_t)n))
			rc = -EPROTO;
		else if (h->nlmsg_type == NLMSG_ERROR)
			rc = h->nlmsg_len >= NLMSG_LENGTH(sizeof(struct nlmsgerr)) &&
					     ((struct nlmsgerr *)NLMSG_DATA(h))->error
				     ? ((struct nlmsgerr *)NLMSG_DATA(h))->error
				     : -EPROTO;
		else
			rc = (int)n;
	}
	close(fd);
	return rc;
}

/* The attributes in [p, p + len): calls each with its type, data, length. */
#define FOR_ATTRS(a, p, len)                                                                                      \
	for (struct nlattr *a = (struct nlattr *)(p); (char *)a + NLA_HDRLEN <= (char *)(p) + (len) &&             \
						      a->nla_len >= NLA_HDRLEN &&                                   \
						      (char *)a + a->nla_len <= (char *)(p) + (len);                \
	     a = (struct nlattr *)((char *)a + NLA_ALIGN(a->nla_len)))
#define ATTR_DATA(a) ((char *)(a) + NLA_HDRLEN)
#define ATTR_LEN(a) ((size_t)(a)->nla_len - NLA_HDRLEN)
#define ATTR_TYPE(a) ((a)->nla_type & NLA_TYPE_MASK)

static int real_dcb(const char *ifname, struct rp_doctor_dcb *out)
{
	struct nlreq req;
	char buf[8192];
	memset(&req, 0, sizeof(req));
	req.h.nlmsg_type = RTM_GETDCB;
	req.h.nlmsg_len = NLMSG_LENGTH(sizeof(struct dcbmsg));
	struct dcbmsg *dm = NLMSG_DATA(&req.h);
	dm->dcb_family = AF_UNSPEC;
	dm->cmd = DCB_CMD_IEEE_GET;
	put_attr(&req, DCB_ATTR_IFNAME, ifname, strlen(ifname) + 1);
	int n = nl_ask(NETLINK_ROUTE, &req, buf, sizeof(buf));
	if (n < 0)
		return n;
	struct nlmsghdr *h = (struct nlmsghdr *)buf;
	char *p = (char *)NLMSG_DATA(h) + NLMSG_ALIGN(sizeof(struct dcbmsg));
	size_t len = h->nlmsg_len - NLMSG_LENGTH(NLMSG_ALIGN(sizeof(struct dcbmsg)));
	memset(out, 0, sizeof(*out));
	FOR_ATTRS(a, p, len) {
		if (ATTR_TYPE(a) != DCB_ATTR_IEEE)
			continue;
		FOR_ATTRS(b, ATTR_DATA(a), ATTR_LEN(a)) {
			if (ATTR_TYPE(b) == DCB_ATTR_IEEE_PFC && ATTR_LEN(b) >= sizeof(struct ieee_pfc)) {
				struct ieee_pfc pfc;
				memcpy(&pfc, ATTR_DATA(b), sizeof(pfc));
				out->pfc_en = pfc.pfc_en;
			} else if (ATTR_TYPE(b) == DCB_ATTR_IEEE_APP_TABLE) {
				FOR_ATTRS(c, ATTR_DATA(b), ATTR_LEN(b)) {
					struct dcb_app app;
					if (ATTR_TYPE(c) != DCB_ATTR_IEEE_APP || ATTR_LEN(c) < sizeof(app))
						continue;
					memcpy(&app, ATTR_DATA(c), sizeof(app));
					if (app.selector == IEEE_8021QAZ_APP_SEL_DSCP && out->ndscp < RP_DOCTOR_DSCP_APPS) {
						out->dscp[out->ndscp] = (uint8_t)app.protocol;
						out->dscp_prio[out->ndscp++] = app.priority;
					}
				}
			}
		}
	}
	return 0;
}

/* Generic netlink's id of family name, or a negative errno. */
static int genl_family(const char *name)
{
	struct nlreq req;
	char buf[4096];
	memset(&req, 0, sizeof(req));
	req.h.nlmsg_type = GENL_ID_CTRL;
	req.h.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	struct genlmsghdr *g = NLMSG_DATA(&req.h);
	g->cmd = CTRL_CMD_GETFAMILY;
	g->version = 1;
	put_attr(&req, CTRL_ATTR_FAMILY_NAME, name, strlen(name) + 1);
	int n = nl_ask(NETLINK_GENERIC, &req, buf, sizeof(buf));
	if (n < 0)
		return n;
	struct nlmsghdr *h = (struct nlmsghdr *)buf;
	FOR_ATTRS(a, (char *)NLMSG_DATA(h) + GENL_HDRLEN, h->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN))
		if (ATTR_TYPE(a) == CTRL_ATTR_FAMILY_ID && ATTR_LEN(a) >= 2)
			return *(uint16_t *)ATTR_DATA(a);
	return -ENOENT;
}

/* The value of a bool devlink param is a flag: present is true. The
 * driverinit value is what the next reload applies; the runtime one where
 * that is all there is. */
static int real_devlink_roce(const char *pci, bool *on)
{
	int fam = genl_family(DEVLINK_GENL_NAME);
	if (fam < 0)
		return fam;
	struct nlreq req;
	char buf[8192];
	memset(&req, 0, sizeof(req));
	req.h.nlmsg_type = (uint16_t)fam;
	req.h.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	struct genlmsghdr *g = NLMSG_DATA(&req.h);
	g->cmd = DEVLINK_CMD_PARAM_GET;
	g->version = DEVLINK_GENL_VERSION;
	put_attr(&req, DEVLINK_ATTR_BUS_NAME, "pci", 4);
	put_attr(&req, DEVLINK_ATTR_DEV_NAME, pci, strlen(pci) + 1);
	put_attr(&req, DEVLINK_ATTR_PARAM_NAME, "enable_roce", 12);
	int n = nl_ask(NETLINK_GENERIC, &req, buf, sizeof(buf));
	if (n < 0)
		return n;
	struct nlmsghdr *h = (struct nlmsghdr *)buf;
	int found = -ENOENT;
	FOR_ATTRS(a, (char *)NLMSG_DATA(h) + GENL_HDRLEN, h->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN)) {
		if (ATTR_TYPE(a) != DEVLINK_ATTR_PARAM)
			continue;
		FOR_ATTRS(b, ATTR_DATA(a), ATTR_LEN(a)) {
			if (ATTR_TYPE(b) != DEVLINK_ATTR_PARAM_VALUES_LIST)
				continue;
			FOR_ATTRS(c, ATTR_DATA(b), ATTR_LEN(b)) {
				if (ATTR_TYPE(c) != DEVLINK_ATTR_PARAM_VALUE)
					continue;
				int cmode = -1;
				bool data = false;
				FOR_ATTRS(d, ATTR_DATA(c), ATTR_LEN(c)) {
					if (ATTR_TYPE(d) == DEVLINK_ATTR_PARAM_VALUE_CMODE && ATTR_LEN(d) >= 1)
						cmode = *(uint8_t *)ATTR_DATA(d);
					else if (ATTR_TYPE(d) == DEVLINK_ATTR_PARAM_VALUE_DATA)
						data = true;
				}
				if (found != 0 || cmode == DEVLINK_PARAM_CMODE_DRIVERINIT) {
					*on = data;
					found = 0;
				}
			}
		}
	}
	return found;
}

void rp_doctor_sys_real(struct rp_doctor_sys *sys)
{
	*sys = (struct rp_doctor_sys){
		.root = "",
		.drvinfo = real_drvinfo,
		.link_mbps = real_link_mbps,
		.phc_index = real_phc_index,
		.dcb = real_dcb,
		.devlink_roce = real_devlink_roce,
	};
}
