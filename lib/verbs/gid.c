#include "verbs/gid.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

enum rp_gid_type rp_gid_type_parse(const char *text)
{
	/* Newer kernels may append text; compare the stable prefix. */
	if (strncmp(text, "RoCE v2", 7) == 0)
		return RP_GID_TYPE_ROCE_V2;
	if (strncmp(text, "IB/RoCE v1", 10) == 0)
		return RP_GID_TYPE_IB_ROCE_V1;
	return RP_GID_TYPE_UNKNOWN;
}

const char *rp_gid_type_name(enum rp_gid_type t)
{
	switch (t) {
	case RP_GID_TYPE_ROCE_V2:
		return "RoCE v2";
	case RP_GID_TYPE_IB_ROCE_V1:
		return "IB/RoCE v1";
	default:
		return "unknown";
	}
}

bool rp_gid_is_zero(const uint8_t gid[16])
{
	for (int i = 0; i < 16; i++)
		if (gid[i])
			return false;
	return true;
}

bool rp_gid_is_ipv4_mapped(const uint8_t gid[16])
{
	static const uint8_t prefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
	return memcmp(gid, prefix, sizeof(prefix)) == 0;
}

bool rp_gid_is_link_local(const uint8_t gid[16])
{
	return gid[0] == 0xfe && (gid[1] & 0xc0) == 0x80;
}

void rp_gid_format(const uint8_t gid[16], char *out, size_t len)
{
	char buf[INET6_ADDRSTRLEN];
	if (!inet_ntop(AF_INET6, gid, buf, sizeof(buf)))
		buf[0] = '\0';
	snprintf(out, len, "%s", buf);
}

/* Lower is better; -1 = not eligible for automatic choice. */
static int rank(const struct rp_gid_entry *e)
{
	if (e->type != RP_GID_TYPE_ROCE_V2 || rp_gid_is_zero(e->gid))
		return -1;
	if (rp_gid_is_ipv4_mapped(e->gid))
		return 0;
	if (!rp_gid_is_link_local(e->gid))
		return 1;
	return 2;
}

int rp_gid_select(const struct rp_gid_entry *table, size_t n, int override, char *err, size_t errlen)
{
	if (override >= 0) {
		for (size_t i = 0; i < n; i++) {
			if (table[i].index != override)
				continue;
			if (rp_gid_is_zero(table[i].gid)) {
				snprintf(err, errlen, "GID index %d is empty", override);
				return -1;
			}
			return (int)i;
		}
		snprintf(err, errlen, "GID index %d is not in the port's GID table", override);
		return -1;
	}
	int best = -1, best_rank = 3;
	for (size_t i = 0; i < n; i++) {
		int r = rank(&table[i]);
		if (r < 0)
			continue;
		if (r < best_rank || (r == best_rank && table[i].index < table[best].index)) {
			best = (int)i;
			best_rank = r;
		}
	}
	if (best < 0)
		snprintf(err, errlen, "no RoCE v2 GID (give the netdev an IPv4 address, or pick a GID by its index)");
	return best;
}

int rp_gid_select_addr(const struct rp_gid_entry *table, size_t n, int override, const uint8_t want[16], char *err,
		       size_t errlen)
{
	if (override >= 0 || !want)
		return rp_gid_select(table, n, override, err, errlen);
	for (size_t i = 0; i < n; i++)
		if (table[i].type == RP_GID_TYPE_ROCE_V2 && !memcmp(table[i].gid, want, 16))
			return (int)i;
	char w[46];
	rp_gid_format(want, w, sizeof(w));
	snprintf(err, errlen, "no RoCE v2 GID %s (the host's address) in the port's GID table: give the netdev that "
		 "address, or pick a GID with gid_index", w);
	return -1;
}
