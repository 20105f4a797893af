/* Step 1 of a rank's share (acct_pack.h): the sender's side of each flow,
 * exported, summed over the ranks and installed before rp_acct_finish. */
#include "acct_pack.h"

#include <string.h>

#include "acct_internal.h"

void rp_acct_tx_row(const struct rp_acct *a, size_t i, uint64_t o[RP_ACCT_TX_FIELDS])
{
	const struct rp_acct_flow_result *r = rp_acct_res(a, i);
	o[0] = r->tx_packets;
	o[1] = r->tx_bytes;
	o[2] = r->cnp_rx;
	o[3] = r->acks;
	o[4] = r->naks;
	o[5] = r->misdelivered;
	o[6] = r->echo_rx;
}

void rp_acct_tx_set_row(struct rp_acct *a, size_t i, const uint64_t v[RP_ACCT_TX_FIELDS])
{
	struct rp_acct_flow_result *r = rp_acct_res(a, i);
	rp_acct_set_tx(a, i, v[0], v[1]);
	r->cnp_rx = v[2];
	r->acks = v[3];
	r->naks = v[4];
	r->misdelivered = v[5];
	r->echo_rx = v[6];
}

long rp_acct_flow_index(const struct rp_acct *a, uint32_t id)
{
	if (a->cfg.discover)
		return -1;
	if (a->res.flows)
		return rp_acct_result_index(&a->res, id);
	uint32_t i = rp_acct_flow_of_id(a, id);
	return i == RP_ACCT_NO_FLOW ? -1 : (long)i;
}

uint32_t rp_acct_flow_id(const struct rp_acct *a, size_t i)
{
	return rp_acct_id(a, i);
}

/* The sender's side of a flow: what only the sender's rank counts. Indexed
 * by flow id, so a rank whose accountant holds only some flows of the plan
 * fills its part of the plan-wide array. */
void rp_acct_tx_export(const struct rp_acct *a, uint64_t *tx, size_t nflows)
{
	memset(tx, 0, nflows * RP_ACCT_TX_FIELDS * sizeof(*tx));
	for (size_t i = 0; i < a->nflows; i++)
		if (rp_acct_id(a, i) < nflows)
			rp_acct_tx_row(a, i, &tx[RP_ACCT_TX_FIELDS * rp_acct_id(a, i)]);
}

void rp_acct_tx_combine(uint64_t *acc, const uint64_t *in, size_t n)
{
	for (size_t i = 0; i < n; i++)
		acc[i] += in[i];
}

void rp_acct_tx_import(struct rp_acct *a, const uint64_t *tx, size_t nflows)
{
	for (size_t i = 0; i < a->nflows; i++)
		if (rp_acct_id(a, i) < nflows)
			rp_acct_tx_set_row(a, i, &tx[RP_ACCT_TX_FIELDS * rp_acct_id(a, i)]);
}

