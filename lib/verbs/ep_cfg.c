/* An ep session's settings: the defaults, the mode's defaults for what the
 * user left out, and the rules UD imposes. No CLI here: the results are
 * codes, and `roceprobe ep` words them with its option names. */
#include <string.h>

#include "verbs/ep.h"
#include "verbs/qp.h"

void rp_ep_cfg_init(struct rp_ep_cfg *c)
{
	memset(c, 0, sizeof(*c));
	c->gid_index = -1;
	c->bind = "127.0.0.1"; /* a listener is local unless told otherwise */
	c->tcp_port = RP_EP_DEFAULT_PORT;
	c->connect_timeout_ms = 30000;
	c->stall_ms = 30000;
	c->nqp = 1;
	c->rx_depth = 512;
	c->clients = 1;
	c->op = RP_OP_WRITE;
	c->mode = RP_MODE_LAT;
}

/* UD carries SEND only, one packet per message, latency only. No path MTU
 * is above 4096 B: what can never fit is refused before any device. */
static enum rp_ep_cfg_err settle_ud(struct rp_ep_cfg *c, const struct rp_ep_given *g, size_t *bad_size)
{
	if (g->server)
		return RP_EPC_UD_SERVER;
	if (g->op && c->op != RP_OP_SEND)
		return c->op == RP_OP_READ ? RP_EPC_UD_READ : RP_EPC_UD_WRITE;
	if (c->mode != RP_MODE_LAT)
		return RP_EPC_UD_MODE;
	if (c->cm)
		return RP_EPC_UD_CM;
	if (g->sweep)
		return RP_EPC_UD_SWEEP;
	for (unsigned i = 0; i < c->nsizes; i++) {
		char why[200];
		if (rp_ud_check_size(c->sizes[i], 4096, why, sizeof(why))) {
			*bad_size = c->sizes[i];
			return RP_EPC_UD_SIZE;
		}
	}
	c->op = RP_OP_SEND;
	if (!c->ud_timeout_ms)
		c->ud_timeout_ms = 1000;
	return RP_EPC_OK;
}

enum rp_ep_cfg_err rp_ep_cfg_settle(struct rp_ep_cfg *c, const struct rp_ep_given *g, size_t *bad_size)
{
	enum rp_ep_cfg_err e;
	if (c->ud && (e = settle_ud(c, g, bad_size)) != RP_EPC_OK)
		return e;
	if (!c->ud && c->ud_timeout_ms)
		return RP_EPC_UD_TIMEOUT;
	/* perftest's defaults: lat 2 B, 1000 iterations, tx depth 64, cq-mod 1,
	 * inline 220; bw and rate 64 KiB (bw), 5000 iterations, tx depth 128,
	 * cq-mod 100, no inline. */
	bool lat = c->mode == RP_MODE_LAT;
	if (g->sweep) {
		c->nsizes = 0;
		for (size_t s = 2; s <= 8u << 20; s <<= 1)
			c->sizes[c->nsizes++] = s;
	} else if (!g->sizes) {
		c->sizes[0] = c->mode == RP_MODE_BW ? 65536 : 2;
		c->nsizes = 1;
	}
	if (g->duration) {
		if (g->iters)
			return RP_EPC_ITERS_AND_DURATION;
		c->iters = 0;
	} else if (!g->iters) {
		c->iters = lat ? 1000 : 5000;
	}
	if (g->iters && c->iters == 0)
		return RP_EPC_ITERS_ZERO;
	if (!g->tx_depth)
		c->tx_depth = lat ? 64 : 128;
	if (c->tx_depth < 4)
		return RP_EPC_TX_DEPTH;
	if (!g->cq_mod)
		c->cq_mod = lat ? 1 : 100;
	if (c->cq_mod == 0)
		c->cq_mod = 1;
	if (!g->inline_size)
		c->inline_size = lat ? 220 : 0;
	if (c->rx_depth == 0)
		return RP_EPC_RX_DEPTH;
	if (c->nqp == 0)
		return RP_EPC_QPS;
	if (lat && c->nqp > 1)
		return RP_EPC_LAT_QPS;
	return RP_EPC_OK;
}
