/* The probe payload: magic(4) flow_id(4) seq(8) tx_ns(8), big endian. */
#include "probe.h"

#include "bytes.h"
#include "wire_err.h"

size_t rp_probe_build(uint8_t *buf, size_t cap, const struct rp_probe *p)
{
	if (cap < RP_PROBE_LEN)
		return 0;
	rp_put_be32(buf, RP_PROBE_MAGIC);
	rp_put_be32(buf + 4, p->flow_id);
	rp_put_be64(buf + RP_PROBE_SEQ_OFFSET, p->seq);
	rp_put_be64(buf + RP_PROBE_TS_OFFSET, p->tx_ns);
	return RP_PROBE_LEN;
}

int rp_probe_parse(const uint8_t *buf, size_t len, struct rp_probe *p)
{
	if (len < RP_PROBE_LEN)
		return RP_WIRE_ETRUNC;
	/* Foreign payloads are expected on a shared fabric: report, leave p alone. */
	if (rp_get_be32(buf) != RP_PROBE_MAGIC)
		return RP_WIRE_EMALFORMED;
	p->flow_id = rp_get_be32(buf + 4);
	p->seq = rp_get_be64(buf + RP_PROBE_SEQ_OFFSET);
	p->tx_ns = rp_get_be64(buf + RP_PROBE_TS_OFFSET);
	return RP_WIRE_OK;
}
