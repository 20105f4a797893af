/* One way to write a report file: whole, or not at all. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cert_internal.h"

int rp_cert_write_file(const char *path, void (*body)(FILE *f, const json_t *res), const json_t *res, char *err,
		       size_t errlen)
{
	char tmp[4200];
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	FILE *f = fopen(tmp, "w");
	if (!f) {
		snprintf(err, errlen, "cannot write %s: %s", tmp, strerror(errno));
		return -1;
	}
	body(f, res);
	bool ok = !ferror(f);
	if (fclose(f) != 0 || !ok || rename(tmp, path) != 0) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno ? errno : EIO));
		unlink(tmp);
		return -1;
	}
	return 0;
}
