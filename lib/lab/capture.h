/* A host's wire as a nanosecond pcap, stamped with virtual time (epoch 0):
 * the same run writes the same bytes. */
#ifndef RP_LAB_CAPTURE_H
#define RP_LAB_CAPTURE_H

#include <stddef.h>
#include <stdint.h>

struct rp_lab_cap;

/* snaplen 0: whole frames. NULL with a reason. */
struct rp_lab_cap *rp_lab_cap_open(const char *path, unsigned snaplen, char *err, size_t errlen);
void rp_lab_cap_write(struct rp_lab_cap *c, uint64_t ts_ns, const uint8_t *buf, size_t len);
uint64_t rp_lab_cap_frames(const struct rp_lab_cap *c);
/* Flushes and closes; 0, or -1 with a reason (the file is incomplete). */
int rp_lab_cap_close(struct rp_lab_cap *c, char *err, size_t errlen);

#endif
