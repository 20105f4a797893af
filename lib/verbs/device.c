#include "verbs/device.h"

#include <stdio.h>
#include <string.h>

static const char *state_name(int s)
{
	switch (s) {
	case IBV_PORT_DOWN:
		return "DOWN";
	case IBV_PORT_INIT:
		return "INIT";
	case IBV_PORT_ARMED:
		return "ARMED";
	case IBV_PORT_ACTIVE:
		return "ACTIVE";
	case IBV_PORT_ACTIVE_DEFER:
		return "ACTIVE_DEFER";
	default:
		return "NOP";
	}
}

/* The provider's name is the device name's prefix on every Linux driver
 * (mlx5_0, bnxt_re1, irdma0, rxe0); it is only used to label reports. */
static void driver_from_name(const char *dev, char *out, size_t len)
{
	size_t n = strcspn(dev, "0123456789");
	if (n > 0 && dev[n - 1] == '_')
		n--;
	snprintf(out, len, "%.*s", (int)n, dev);
}

int rp_dev_open(const char *name, unsigned port_num, struct rp_dev *d, char *err, size_t errlen)
{
	memset(d, 0, sizeof(*d));
	int num = 0;
	struct ibv_device **list = ibv_get_device_list(&num);
	if (!list || num == 0) {
		if (list)
			ibv_free_device_list(list);
		snprintf(err, errlen, "no RDMA device found (ibv_get_device_list); load rdma_rxe or install an HCA");
		return RP_V_ENV;
	}
	struct ibv_device *dev = NULL;
	char have[160] = "";
	for (int i = 0; i < num; i++) {
		const char *n = ibv_get_device_name(list[i]);
		if (!name || !*name || strcmp(n, name) == 0) {
			dev = list[i];
			break;
		}
		size_t l = strlen(have);
		snprintf(have + l, sizeof(have) - l, "%s%s", l ? ", " : "", n);
	}
	if (!dev) {
		ibv_free_device_list(list);
		snprintf(err, errlen, "RDMA device '%s' not found (have: %s)", name, have);
		return RP_V_ENV;
	}
	snprintf(d->port.dev_name, sizeof(d->port.dev_name), "%s", ibv_get_device_name(dev));
	driver_from_name(d->port.dev_name, d->driver, sizeof(d->driver));
	d->ctx = ibv_open_device(dev);
	ibv_free_device_list(list);
	if (!d->ctx) {
		snprintf(err, errlen, "cannot open RDMA device %s (is ib_uverbs loaded? permissions on /dev/infiniband?)",
			 d->port.dev_name);
		return RP_V_ENV;
	}
	if (ibv_query_device(d->ctx, &d->attr)) {
		snprintf(err, errlen, "ibv_query_device(%s) failed", d->port.dev_name);
		rp_dev_close(d);
		return RP_V_FAIL;
	}
	if (port_num == 0)
		port_num = 1;
	if (port_num > d->attr.phys_port_cnt) {
		snprintf(err, errlen, "%s has %u port(s); there is no port %u", d->port.dev_name,
			 d->attr.phys_port_cnt, port_num);
		rp_dev_close(d);
		return RP_V_ENV;
	}
	struct ibv_port_attr pa;
	if (ibv_query_port(d->ctx, (uint8_t)port_num, &pa)) {
		snprintf(err, errlen, "ibv_query_port(%s:%u) failed", d->port.dev_name, port_num);
		rp_dev_close(d);
		return RP_V_FAIL;
	}
	struct rp_port_attr *p = &d->port;
	p->port_num = (uint8_t)port_num;
	p->link_layer = pa.link_layer == IBV_LINK_LAYER_ETHERNET ? RP_LL_ETHERNET
			: pa.link_layer == IBV_LINK_LAYER_INFINIBAND || pa.link_layer == IBV_LINK_LAYER_UNSPECIFIED
				? RP_LL_INFINIBAND
				: RP_LL_UNKNOWN;
	p->state = pa.state;
	p->active = pa.state == IBV_PORT_ACTIVE;
	p->lid = pa.lid;
	p->sm_sl = pa.sm_sl;
	p->active_mtu = pa.active_mtu;
	p->max_mtu = pa.max_mtu;
	p->max_msg_sz = pa.max_msg_sz;
	p->gid_tbl_len = pa.gid_tbl_len;
	if (!p->active) {
		snprintf(err, errlen, "port %s:%u is %s, not ACTIVE; bring its link up (%s)", p->dev_name, port_num,
			 state_name(pa.state),
			 p->link_layer == RP_LL_ETHERNET ? "ip link set NETDEV up; check the cable"
							 : "check the cable and that a subnet manager runs");
		rp_dev_close(d);
		return RP_V_ENV;
	}
	return RP_V_OK;
}

void rp_dev_close(struct rp_dev *d)
{
	if (d->ctx)
		ibv_close_device(d->ctx);
	d->ctx = NULL;
}

static void read_attr(const char *dev, unsigned port, const char *what, int idx, char *out, size_t len)
{
	char path[256];
	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/%u/gid_attrs/%s/%d", dev, port, what, idx);
	out[0] = '\0';
	FILE *f = fopen(path, "r");
	if (!f)
		return;
	if (!fgets(out, (int)len, f))
		out[0] = '\0';
	out[strcspn(out, "\n")] = '\0';
	fclose(f);
}

size_t rp_dev_gids(const struct rp_dev *d, struct rp_gid_entry *t, size_t max)
{
	size_t n = 0;
	for (int i = 0; i < d->port.gid_tbl_len && n < max; i++) {
		union ibv_gid g;
		if (ibv_query_gid(d->ctx, d->port.port_num, i, &g) || rp_gid_is_zero(g.raw))
			continue;
		struct rp_gid_entry *e = &t[n++];
		memset(e, 0, sizeof(*e));
		e->index = i;
		memcpy(e->gid, g.raw, 16);
		char type[32];
		read_attr(d->port.dev_name, d->port.port_num, "types", i, type, sizeof(type));
		e->type = rp_gid_type_parse(type);
		read_attr(d->port.dev_name, d->port.port_num, "ndevs", i, e->netdev, sizeof(e->netdev));
	}
	return n;
}

int rp_dev_pick_gid(const struct rp_dev *d, int override, struct rp_gid_entry *out, char *err, size_t errlen)
{
	return rp_dev_pick_gid_addr(d, override, NULL, out, err, errlen);
}

int rp_dev_pick_gid_addr(const struct rp_dev *d, int override, const uint8_t want[16], struct rp_gid_entry *out,
			 char *err, size_t errlen)
{
	static struct rp_gid_entry table[RP_GID_MAX];
	size_t n = rp_dev_gids(d, table, RP_GID_MAX);
	char why[240];
	int i = rp_gid_select_addr(table, n, override, want, why, sizeof(why));
	if (i < 0) {
		snprintf(err, errlen, "%s:%u: %s", d->port.dev_name, d->port.port_num, why);
		return RP_V_ENV;
	}
	*out = table[i];
	return RP_V_OK;
}
