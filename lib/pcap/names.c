/* A capture's file names. See names.h. */
#include "names.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* "dir/out.pcap" -> "dir/out" + ".pcap": the length of the part before the
 * extension. */
static size_t base_len(const char *path)
{
	const char *slash = strrchr(path, '/');
	const char *name = slash ? slash + 1 : path;
	const char *dot = strrchr(name, '.');
	return dot && dot != name ? (size_t)(dot - path) : strlen(path);
}

void rp_pcap_name_tag(const char *path, const char *tag, char *buf, size_t n)
{
	size_t b = base_len(path);
	snprintf(buf, n, "%.*s%s%s", (int)b, path, tag, path + b);
}

void rp_pcap_file_name(const char *path, bool rotating, uint64_t k, char *buf, size_t n)
{
	char tag[32];
	if (!rotating) {
		snprintf(buf, n, "%s", path);
		return;
	}
	snprintf(tag, sizeof(tag), "-%04" PRIu64, k);
	rp_pcap_name_tag(path, tag, buf, n);
}
