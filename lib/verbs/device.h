/* Opening an RDMA device and reading what the rest needs from it: the port
 * (as a plain rp_port_attr), its GID table, and the netdev behind a RoCE
 * port. Every failure a user can fix ends in one line in err and the return
 * value RP_V_ENV, which ep turns into exit code 2. */
#ifndef RP_VERBS_DEVICE_H
#define RP_VERBS_DEVICE_H

#include <stddef.h>

#include <infiniband/verbs.h>

#include "verbs/gid.h"
#include "verbs/port.h"

enum { RP_V_OK = 0, RP_V_FAIL = -1 /* the run broke */, RP_V_ENV = -2 /* user can fix it */ };

#define RP_ERR_LEN 256
#define RP_GID_MAX 256

struct rp_dev {
	struct ibv_context *ctx;
	struct ibv_device_attr attr;
	struct rp_port_attr port;
	char driver[32]; /* "rxe", "mlx5", ...: the provider, for the report */
};

/* name NULL or "": the first device. port_num 0 means 1. */
int rp_dev_open(const char *name, unsigned port_num, struct rp_dev *d, char *err, size_t errlen);
void rp_dev_close(struct rp_dev *d);

/* The non-empty GID table entries with their sysfs type and netdev. */
size_t rp_dev_gids(const struct rp_dev *d, struct rp_gid_entry *t, size_t max);
/* Scans the table and picks the RoCE GID (rp_gid_select); RP_V_ENV with
 * "rxe0:1 has no RoCE v2 GID ..." when there is none. */
int rp_dev_pick_gid(const struct rp_dev *d, int override, struct rp_gid_entry *out, char *err,
		    size_t errlen);
/* The same with rp_gid_select_addr: the RoCE v2 GID of address want (NULL: any). */
int rp_dev_pick_gid_addr(const struct rp_dev *d, int override, const uint8_t want[16], struct rp_gid_entry *out,
			 char *err, size_t errlen);

#endif
