/* A capture's file names and rotation (lib/pcap/names.h, rotation.h): the
 * names `capture --rotate-size`, `switch --capture` and the lab write, and
 * when a file is full, worked by hand. Pure C: no EAL. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "pcap/names.h"
#include "pcap/rotation.h"

static void names(void **state)
{
	(void)state;
	static const char *const cases[][3] = {
		{"dir/out.pcap", "-p0", "dir/out-p0.pcap"},
		{"out", "-p3", "out-p3"},
		{"dir.d/out", "-p1", "dir.d/out-p1"},  /* the dot is the directory's */
		{".hidden", "-p0", ".hidden-p0"},      /* a leading dot is no extension */
		{"d/.hidden", "-p0", "d/.hidden-p0"},
		{"a/b.c.pcap", "-0007", "a/b.c-0007.pcap"},
		{"./x", "-p2", "./x-p2"},
	};
	char buf[64];
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		rp_pcap_name_tag(cases[i][0], cases[i][1], buf, sizeof(buf));
		assert_string_equal(buf, cases[i][2]);
	}
	rp_pcap_file_name("cap.pcap", false, 1, buf, sizeof(buf));
	assert_string_equal(buf, "cap.pcap");
	rp_pcap_file_name("cap.pcap", true, 12, buf, sizeof(buf));
	assert_string_equal(buf, "cap-0012.pcap");
	rp_pcap_file_name("cap.pcap", true, 12345, buf, sizeof(buf));
	assert_string_equal(buf, "cap-12345.pcap"); /* %04: at least 4 digits */
	/* The lab's: DIR/capture-HOST.pcap, host names of letters, digits, '-', '_', '.'. */
	rp_pcap_file_name("out.d/capture-h0.pcap", false, 1, buf, sizeof(buf));
	assert_string_equal(buf, "out.d/capture-h0.pcap");
	rp_pcap_file_name("out.d/capture-h0.pcap", true, 1, buf, sizeof(buf));
	assert_string_equal(buf, "out.d/capture-h0-0001.pcap");
	rp_pcap_file_name("o/capture-rack1.h_2.pcap", true, 2, buf, sizeof(buf));
	assert_string_equal(buf, "o/capture-rack1.h_2-0002.pcap");
}

/* rotate_bytes 1000, keep 2 files, records of 128 bytes: 16 + 128 = 144
 * each. A file holds its 24-byte header and n records while
 * 24 + 144 (n + 1) <= 1000: 6 records (888 bytes); the 7th (1032) goes to
 * the next file. Opening file 3 lets file 1 go. */
static void rotation(void **state)
{
	(void)state;
	struct rp_pcap_rotation r = {.rotate_bytes = 1000, .rotate_files = 2};
	assert_int_equal(rp_pcap_rotation_opened(&r, 1), 0);
	assert_int_equal(r.file_bytes, 24);
	unsigned n = 0;
	while (!rp_pcap_rotation_due(&r, 144)) {
		rp_pcap_rotation_wrote(&r, 144);
		n++;
	}
	assert_int_equal(n, 6);
	assert_int_equal(r.file_bytes, 888);
	assert_int_equal(rp_pcap_rotation_opened(&r, 2), 0);
	assert_int_equal(rp_pcap_rotation_opened(&r, 3), 1);
	assert_int_equal(rp_pcap_rotation_opened(&r, 4), 2);
	/* A record bigger than the limit still goes into an empty file. */
	assert_false(rp_pcap_rotation_due(&r, 5000));
	rp_pcap_rotation_wrote(&r, 5000);
	assert_true(rp_pcap_rotation_due(&r, 16));
	/* No rotation: never due. */
	struct rp_pcap_rotation none = {0};
	rp_pcap_rotation_opened(&none, 1);
	rp_pcap_rotation_wrote(&none, 1u << 30);
	assert_false(rp_pcap_rotation_due(&none, 1u << 30));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(names),
		cmocka_unit_test(rotation),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
