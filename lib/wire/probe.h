/* The probe payload roceprobe puts at the start of RDMA payloads. */
#ifndef RP_WIRE_PROBE_H
#define RP_WIRE_PROBE_H

#include <stddef.h>
#include <stdint.h>

#define RP_PROBE_MAGIC 0x52505242u /* "RPRB" */
#define RP_PROBE_LEN 24
/* Offsets inside the probe, for stamping a template in place. */
#define RP_PROBE_SEQ_OFFSET 8
#define RP_PROBE_TS_OFFSET 16

struct rp_probe {
	uint32_t flow_id;
	uint64_t seq;
	uint64_t tx_ns;
};

/* Layout, all big endian: magic(4) flow_id(4) seq(8) tx_ns(8). */
size_t rp_probe_build(uint8_t *buf, size_t cap, const struct rp_probe *p);
/* ETRUNC when shorter than 24 bytes; EMALFORMED when the magic is absent
 * (the payload is not ours, which is not an error for the frame). */
int rp_probe_parse(const uint8_t *buf, size_t len, struct rp_probe *p);

#endif
