/* libFuzzer harness: --metrics' own parsing and writing (lib/metrics).
 * The input, cut at its first NUL, is a --metrics spec: rp_metrics_parse
 * either refuses it with a "--metrics: " line or gives a port 1..65535 and
 * a numeric address. The same bytes as a label value: the exposition line
 * is one line (no raw newline), and undoing the escapes (\\ \" \n) gives the
 * value back, so no value can forge a second sample or label. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "metrics/metrics.h"
#include "metrics/prom.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	char addr[64], err[512];
	uint16_t port = 0;
	err[0] = '\0';
	if (rp_metrics_parse(s, addr, sizeof(addr), &port, err, sizeof(err)) == 0) {
		if (port == 0 || !addr[0])
			abort();
	} else if (strncmp(err, "--metrics: ", 11) != 0) {
		abort();
	}
	struct rp_prom p;
	rp_prom_init(&p);
	const struct rp_prom_label l[] = {{"v", s}};
	rp_prom_u64(&p, "x", l, 1, 7);
	size_t n;
	char *t = rp_prom_take(&p, &n);
	if (t) {
		/* x{v="..."} 7\n : one newline, at the end */
		if (n < 10 || memchr(t, '\n', n - 1) || t[n - 1] != '\n' || strncmp(t, "x{v=\"", 5) != 0 ||
		    strcmp(t + n - 5, "\"} 7\n") != 0)
			abort();
		size_t k = 0;
		for (size_t i = 5; i < n - 5; i++) {
			char c = t[i];
			if (c == '"')
				abort(); /* an unescaped quote would end the value early */
			if (c == '\\') {
				c = t[++i];
				c = c == 'n' ? '\n' : c;
			}
			if (s[k++] != c)
				abort();
		}
		if (k != strlen(s))
			abort();
	}
	free(t);
	free(s);
	return 0;
}
