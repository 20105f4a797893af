/* A capture's file names and rotation. See capture_files.h. */
#include "capture_files.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "capture.h"

/* "dir/out.pcap" -> "dir/out" + ".pcap": the length of the part before the
 * extension. */
static size_t base_len(const char *path)
{
	const char *slash = strrchr(path, '/');
	const char *name = slash ? slash + 1 : path;
	const char *dot = strrchr(name, '.');
	return dot && dot != name ? (size_t)(dot - path) : strlen(path);
}

void rp_capture_name_tag(const char *path, const char *tag, char *buf, size_t n)
{
	size_t b = base_len(path);
	snprintf(buf, n, "%.*s%s%s", (int)b, path, tag, path + b);
}

void rp_capture_file_name(const struct rp_capture_cfg *cfg, uint64_t k, char *buf, size_t n)
{
	char tag[32];
	if (cfg->rotate_bytes == 0) {
		snprintf(buf, n, "%s", cfg->path);
		return;
	}
	snprintf(tag, sizeof(tag), "-%04" PRIu64, k);
	rp_capture_name_tag(cfg->path, tag, buf, n);
}

bool rp_capture_rotation_due(const struct rp_capture_rotation *r, uint64_t rec_bytes)
{
	return r->rotate_bytes && r->file_records && r->file_bytes + rec_bytes > r->rotate_bytes;
}

uint64_t rp_capture_rotation_opened(struct rp_capture_rotation *r, uint64_t k)
{
	r->file_no = k;
	r->file_bytes = RP_PCAP_FILE_HDR;
	r->file_records = 0;
	return r->rotate_files && k > r->rotate_files ? k - r->rotate_files : 0;
}

void rp_capture_rotation_wrote(struct rp_capture_rotation *r, uint64_t rec_bytes)
{
	r->file_bytes += rec_bytes;
	r->file_records++;
}
