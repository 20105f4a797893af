/* What a capture file keeps after a failed write (lib/pcap/keep.h):
 * cut back to its last whole record, or removed when its file header is not
 * whole; worked by hand on files written here. Pure C: no EAL. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pcap/keep.h"

/* A pcap file header, then records of caplen 10, 20, 30 (16-byte headers):
 * 24 + 26 + 36 + 46 = 132 bytes; cut to len. */
static void write_file(const char *path, size_t len)
{
	uint8_t b[132] = {0xd4, 0xc3, 0xb2, 0xa1, 2, 0, 4, 0};
	size_t off = 24;
	for (uint32_t caplen = 10; caplen <= 30; caplen += 10) {
		memcpy(b + off + 8, &caplen, 4);
		memcpy(b + off + 12, &caplen, 4);
		off += 16 + caplen;
	}
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(b, 1, len, f), len);
	fclose(f);
}

static off_t size_of(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 ? st.st_size : -1;
}

static void keeps_whole_records(void **state)
{
	(void)state;
	char path[] = "/tmp/rp-keep-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	/* len: whole records in it, bytes kept */
	static const size_t cases[][3] = {
		{132, 3, 132}, /* whole: untouched */
		{131, 2, 86},  /* the third cut by one byte */
		{90, 2, 86},   /* the third's header cut */
		{86, 2, 86},
		{50, 1, 50},
		{40, 0, 24},   /* the first record's header cut: the file header stays */
		{24, 0, 24},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		write_file(path, cases[i][0]);
		uint64_t recs, bytes;
		assert_int_equal(rp_pcap_keep_whole(path, &recs, &bytes), 0);
		assert_int_equal(recs, cases[i][1]);
		assert_int_equal(bytes, cases[i][2]);
		assert_int_equal(size_of(path), (off_t)cases[i][2]);
	}
	unlink(path);
}

static void removes_a_headerless_file(void **state)
{
	(void)state;
	char path[] = "/tmp/rp-keep-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	write_file(path, 23);
	uint64_t recs = 9, bytes = 9;
	assert_int_equal(rp_pcap_keep_whole(path, &recs, &bytes), 0);
	assert_int_equal(recs, 0);
	assert_int_equal(bytes, 0);
	assert_int_equal(size_of(path), -1);
}

static void leaves_devices_alone(void **state)
{
	(void)state;
	uint64_t recs = 9, bytes = 9;
	assert_int_equal(rp_pcap_keep_whole("/dev/null", &recs, &bytes), -1);
	assert_int_equal(recs, 0);
	assert_int_equal(bytes, 0);
	assert_int_equal(size_of("/dev/null"), 0);
	assert_true(access("/dev/null", F_OK) == 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(keeps_whole_records),
		cmocka_unit_test(removes_a_headerless_file),
		cmocka_unit_test(leaves_devices_alone),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
