/* A capture's rotation. See rotation.h. */
#include "rotation.h"

#include "format.h"

bool rp_pcap_rotation_due(const struct rp_pcap_rotation *r, uint64_t rec_bytes)
{
	return r->rotate_bytes && r->file_records && r->file_bytes + rec_bytes > r->rotate_bytes;
}

uint64_t rp_pcap_rotation_opened(struct rp_pcap_rotation *r, uint64_t k)
{
	r->file_no = k;
	r->file_bytes = RP_PCAP_FILE_HDR;
	r->file_records = 0;
	return r->rotate_files && k > r->rotate_files ? k - r->rotate_files : 0;
}

void rp_pcap_rotation_wrote(struct rp_pcap_rotation *r, uint64_t rec_bytes)
{
	r->file_bytes += rec_bytes;
	r->file_records++;
}
