/* The probe payload: magic(4) flow_id(4) seq(8) tx_ns(8), big endian. */
#include "probe.h"

#include "ext.h"
#include "wire_err.h"

size_t rp_probe_build(uint8_t *buf, size_t cap, const struct rp_probe *p)
{
	if (cap < RP_PROBE_LEN)
		return 0;
	rp_be32_build(buf, 4, RP_PROBE_MAGIC);
	rp_be32_build(buf + 4, 4, p->flow_id);
	rp_be64_build(buf + RP_PROBE_SEQ_OFFSET, 8, p->seq);
	rp_be64_build(buf + RP_PROBE_TS_OFFSET, 8, p->tx_ns);
	return RP_PROBE_LEN;
}

int rp_probe_parse(const uint8_t *buf, size_t len, struct rp_probe *p)
{
	uint32_t magic;

	if (len < RP_PROBE_LEN)
		return RP_WIRE_ETRUNC;
	rp_be32_parse(buf, 4, &magic);
	/* Foreign payloads are expected on a shared fabric: report, leave p alone. */
	if (magic != RP_PROBE_MAGIC)
		return RP_WIRE_EMALFORMED;
	rp_be32_parse(buf + 4, 4, &p->flow_id);
	rp_be64_parse(buf + RP_PROBE_SEQ_OFFSET, 8, &p->seq);
	rp_be64_parse(buf + RP_PROBE_TS_OFFSET, 8, &p->tx_ns);
	return RP_WIRE_OK;
}
