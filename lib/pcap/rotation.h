/* A capture's rotation: when a record goes to a new file, and which old file
 * falls out of a keep-the-newest-N window. Pure C, no I/O; the writer
 * (writer.h) and budgets that must count a new file's header ahead (the
 * lab's) use it.
 *
 * A record goes to a new file when the current one holds a record and the
 * record would take it past rotate_bytes (a record bigger than the limit
 * still goes into an empty file). With rotate_files N only the newest N
 * stay: opening file k deletes file k-N. */
#ifndef RP_PCAP_ROTATION_H
#define RP_PCAP_ROTATION_H

#include <stdbool.h>
#include <stdint.h>

/* The writer's place in a rotation: rotate_bytes 0 is one file for good. */
struct rp_pcap_rotation {
	uint64_t rotate_bytes; /* start a new file before one would exceed this */
	unsigned rotate_files; /* keep the newest N; 0: all */
	uint64_t file_no;      /* the file being written, from 1 */
	uint64_t file_bytes;   /* its bytes, pcap header included */
	uint64_t file_records;
};

/* A record of rec_bytes (header included) must go to a new file first. */
bool rp_pcap_rotation_due(const struct rp_pcap_rotation *r, uint64_t rec_bytes);
/* File k was opened (its pcap header written). Returns the file number that
 * falls out of the rotate_files window and is to be deleted, else 0. */
uint64_t rp_pcap_rotation_opened(struct rp_pcap_rotation *r, uint64_t k);
/* A record of rec_bytes went to the current file. */
void rp_pcap_rotation_wrote(struct rp_pcap_rotation *r, uint64_t rec_bytes);

#endif
