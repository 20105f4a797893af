/* libFuzzer harness: a host_template's placeholders (lib/profile/template.c)
 * must survive any text: the input (printable bytes; first byte: the number of
 * ranks, 0..7, on two nodes) becomes the template's name, port and ipv4 values.
 * A load either works or fails with one line; never reads past a buffer. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile/profile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void quoted(char *out, size_t cap, const uint8_t *s, size_t n)
{
	size_t k = 0;
	out[k++] = '"';
	for (size_t i = 0; i < n && k + 3 < cap; i++) {
		char c = (char)(s[i] >= 0x20 && s[i] < 0x7f ? s[i] : '?');
		if (c == '"' || c == '\\')
			out[k++] = '\\';
		out[k++] = c;
	}
	out[k++] = '"';
	out[k] = '\0';
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct rp_launch_rank ranks[] = {{"a", 0}, {"a", 1}, {"a", 2}, {"b", 0},
						      {"b", 1}, {"b", 2}, {"b", 3}};
	if (size < 1 || size > 600)
		return 0;
	size_t nranks = data[0] % 8, third = (size - 1) / 3;
	char name[1300], port[1300], ip[1300], yaml[4200], err[RP_PROFILE_ERR_LEN];
	quoted(name, sizeof(name), data + 1, third);
	quoted(port, sizeof(port), data + 1 + third, third);
	quoted(ip, sizeof(ip), data + 1 + 2 * third, size - 1 - 2 * third);
	snprintf(yaml, sizeof(yaml),
		 "host_template:\n  count: %s\n  name: %s\n  port: %s\n  ipv4: %s\ntraffic: [{pattern: all-to-all}]\n",
		 nranks ? "ranks" : "3", name, port, ip);
	struct rp_profile_opts o = {.nranks = nranks, .ranks = nranks ? ranks : NULL};
	struct rp_profile *p = rp_profile_load_string("f.yaml", yaml, &o, err, sizeof(err));
	if (!p && (!err[0] || strchr(err, '\n')))
		abort(); /* an error is exactly one line */
	rp_profile_free(p);
	return 0;
}
