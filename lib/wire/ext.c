/* RoCE extended transport headers (IBA vol. 1, 9.3). All fields big endian;
 * reserved bytes are written as zero and ignored on parse. */
#include "ext.h"

#include "bytes.h"
#include "wire_err.h"

size_t rp_reth_build(uint8_t *buf, size_t cap, const struct rp_reth *h)
{
	if (cap < RP_RETH_LEN)
		return 0;
	rp_put_be64(buf, h->va);
	rp_put_be32(buf + 8, h->rkey);
	rp_put_be32(buf + 12, h->dma_len);
	return RP_RETH_LEN;
}

int rp_reth_parse(const uint8_t *buf, size_t len, struct rp_reth *h)
{
	if (len < RP_RETH_LEN)
		return RP_WIRE_ETRUNC;
	h->va = rp_get_be64(buf);
	h->rkey = rp_get_be32(buf + 8);
	h->dma_len = rp_get_be32(buf + 12);
	return RP_WIRE_OK;
}

size_t rp_aeth_build(uint8_t *buf, size_t cap, const struct rp_aeth *h)
{
	if (cap < RP_AETH_LEN)
		return 0;
	buf[0] = h->syndrome;
	rp_put_be24(buf + 1, h->msn);
	return RP_AETH_LEN;
}

int rp_aeth_parse(const uint8_t *buf, size_t len, struct rp_aeth *h)
{
	if (len < RP_AETH_LEN)
		return RP_WIRE_ETRUNC;
	h->syndrome = buf[0];
	h->msn = rp_get_be24(buf + 1);
	return RP_WIRE_OK;
}

size_t rp_deth_build(uint8_t *buf, size_t cap, const struct rp_deth *h)
{
	if (cap < RP_DETH_LEN)
		return 0;
	rp_put_be32(buf, h->qkey);
	buf[4] = 0;
	rp_put_be24(buf + 5, h->src_qp);
	return RP_DETH_LEN;
}

int rp_deth_parse(const uint8_t *buf, size_t len, struct rp_deth *h)
{
	if (len < RP_DETH_LEN)
		return RP_WIRE_ETRUNC;
	h->qkey = rp_get_be32(buf);
	h->src_qp = rp_get_be24(buf + 5);
	return RP_WIRE_OK;
}

size_t rp_atomic_eth_build(uint8_t *buf, size_t cap, const struct rp_atomic_eth *h)
{
	if (cap < RP_ATOMIC_ETH_LEN)
		return 0;
	rp_put_be64(buf, h->va);
	rp_put_be32(buf + 8, h->rkey);
	rp_put_be64(buf + 12, h->swap_add);
	rp_put_be64(buf + 20, h->compare);
	return RP_ATOMIC_ETH_LEN;
}

int rp_atomic_eth_parse(const uint8_t *buf, size_t len, struct rp_atomic_eth *h)
{
	if (len < RP_ATOMIC_ETH_LEN)
		return RP_WIRE_ETRUNC;
	h->va = rp_get_be64(buf);
	h->rkey = rp_get_be32(buf + 8);
	h->swap_add = rp_get_be64(buf + 12);
	h->compare = rp_get_be64(buf + 20);
	return RP_WIRE_OK;
}

size_t rp_be32_build(uint8_t *buf, size_t cap, uint32_t v)
{
	if (cap < 4)
		return 0;
	rp_put_be32(buf, v);
	return 4;
}

int rp_be32_parse(const uint8_t *buf, size_t len, uint32_t *v)
{
	if (len < 4)
		return RP_WIRE_ETRUNC;
	*v = rp_get_be32(buf);
	return RP_WIRE_OK;
}

size_t rp_be64_build(uint8_t *buf, size_t cap, uint64_t v)
{
	if (cap < 8)
		return 0;
	rp_put_be64(buf, v);
	return 8;
}

int rp_be64_parse(const uint8_t *buf, size_t len, uint64_t *v)
{
	if (len < 8)
		return RP_WIRE_ETRUNC;
	*v = rp_get_be64(buf);
	return RP_WIRE_OK;
}
