/* What a capture file holds after a failed write. See keep.h. */
#include "keep.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format.h"

int rp_pcap_keep_whole(const char *name, uint64_t *records, uint64_t *bytes)
{
	*records = *bytes = 0;
	int fd = open(name, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -1;
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		errno = EINVAL;
		return -1;
	}
	uint64_t size = (uint64_t)st.st_size, off = RP_PCAP_FILE_HDR, n = 0;
	if (size < RP_PCAP_FILE_HDR) {
		close(fd);
		return unlink(name);
	}
	for (;;) {
		uint32_t caplen;
		if (size - off < RP_PCAP_REC_HDR ||
		    pread(fd, &caplen, sizeof(caplen), (off_t)(off + RP_PCAP_CAPLEN_OFF)) != (ssize_t)sizeof(caplen) ||
		    size - off - RP_PCAP_REC_HDR < caplen)
			break;
		off += RP_PCAP_REC_HDR + caplen;
		n++;
	}
	int rc = off < size ? ftruncate(fd, (off_t)off) : 0;
	if (close(fd) != 0)
		rc = -1;
	*records = n;
	*bytes = off;
	return rc;
}
