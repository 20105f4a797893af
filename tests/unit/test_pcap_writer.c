/* The one pcap writer (lib/pcap/writer.h): its bytes against the pcap format
 * written out by hand (tcpdump's pcap-savefile(5), nanosecond magic), the
 * rotation's files and the keep-the-newest-N window, and what a failed
 * write or a file that cannot be created leaves. Pure C: no EAL. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pcap/writer.h"

static size_t slurp(const char *path, uint8_t *buf, size_t n)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	size_t got = fread(buf, 1, n, f);
	fclose(f);
	return got;
}

static off_t size_of(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 ? st.st_size : -1;
}

static char *tmpdir(void)
{
	static char dir[64];
	snprintf(dir, sizeof(dir), "/tmp/rp-test-pcapw-XXXXXX");
	assert_non_null(mkdtemp(dir));
	return dir;
}

/* snaplen 4: a 6-byte frame keeps 4 bytes, 3 bytes at hand of a 60-byte
 * frame keep 3. File header: magic 0xa1b23c4d (ns) as 4d 3c b2 a1, version
 * 2.4, thiszone 0, sigfigs 0, snaplen 4, link type 1 (Ethernet). Records:
 * 1 s + 2 ns, caplen 4, length 6; 7 s + 5 ns, caplen 3, length 60. */
static void bytes_as_the_format_says(void **state)
{
	(void)state;
	char *dir = tmpdir(), path[128];
	snprintf(path, sizeof(path), "%s/f.pcap", dir);
	struct rp_pcap_writer w;
	char err[256];
	struct rp_pcap_writer_cfg cfg = {.path = path, .snaplen = 4};
	assert_int_equal(rp_pcap_writer_open(&w, &cfg, err, sizeof(err)), 0);
	const uint8_t a[6] = {1, 2, 3, 4, 5, 6}, b[3] = {7, 8, 9};
	assert_int_equal(rp_pcap_writer_write(&w, 1000000002ull, a, 6, 6), 0);
	assert_int_equal(rp_pcap_writer_write(&w, 7000000005ull, b, 3, 60), 0); /* 3 of a 60-byte frame at hand */
	/* 24 + (16 + 4) + (16 + 3) = 63 */
	assert_int_equal(rp_pcap_writer_need(&w, 100), 16 + 4);
	rp_pcap_writer_close(&w, false);
	assert_false(w.failed);
	assert_int_equal(w.written, 2);
	assert_int_equal(w.bytes, 63);
	assert_int_equal(w.files, 1);
	static const uint8_t want[63] = {
		0x4d, 0x3c, 0xb2, 0xa1, 2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 1, 0, 0, 0,
		1, 0, 0, 0, 2, 0, 0, 0, 4, 0, 0, 0, 6, 0, 0, 0, 1, 2, 3, 4,
		7, 0, 0, 0, 5, 0, 0, 0, 3, 0, 0, 0, 60, 0, 0, 0, 7, 8, 9,
	};
	uint8_t got[128];
	assert_int_equal(slurp(path, got, sizeof(got)), sizeof(want));
	assert_memory_equal(got, want, sizeof(want));
	unlink(path);
	rmdir(dir);
}

/* rotate_bytes 200, keep 2, records of 16 + 64 = 80 bytes: a file holds
 * 24 + 2 x 80 = 184 bytes; a third record (264) starts the next file.
 * 7 records: files 1..4 holding 2, 2, 2, 1; opening 3 deletes 1, opening 4
 * deletes 2. Bytes counted over every file written: 4 x 24 + 7 x 80 = 656. */
static void rotates_and_keeps_the_newest(void **state)
{
	(void)state;
	char *dir = tmpdir(), path[128], name[160];
	snprintf(path, sizeof(path), "%s/r.pcap", dir);
	struct rp_pcap_writer w;
	char err[256];
	struct rp_pcap_writer_cfg cfg = {.path = path, .snaplen = 64, .rotate_bytes = 200, .rotate_files = 2};
	assert_int_equal(rp_pcap_writer_open(&w, &cfg, err, sizeof(err)), 0);
	uint8_t frame[100] = {0};
	for (unsigned i = 0; i < 7; i++) {
		/* the third record of a file needs a new file's header too: 80 + 24 */
		assert_int_equal(rp_pcap_writer_need(&w, sizeof(frame)), i % 2 == 0 && i ? 104 : 80);
		assert_int_equal(rp_pcap_writer_write(&w, i, frame, sizeof(frame), sizeof(frame)), 0);
	}
	rp_pcap_writer_close(&w, false);
	assert_int_equal(w.written, 7);
	assert_int_equal(w.bytes, 656);
	assert_int_equal(w.files, 4);
	assert_int_equal(w.first_file, 3);
	static const off_t sizes[] = {-1, -1, 184, 104};
	for (unsigned k = 1; k <= 4; k++) {
		snprintf(name, sizeof(name), "%s/r-%04u.pcap", dir, k);
		assert_int_equal(size_of(name), sizes[k - 1]);
		unlink(name);
	}
	rmdir(dir);
}

/* /dev/full takes the open and refuses every write: the stream's buffer
 * cannot go out (ENOSPC). The writer fails on that file, writes nothing
 * more, and counts what the file holds: nothing (and no file). */
static void a_failed_write(void **state)
{
	(void)state;
	char *dir = tmpdir(), link[128], want[256];
	snprintf(link, sizeof(link), "%s/full.pcap", dir);
	assert_int_equal(symlink("/dev/full", link), 0);
	struct rp_pcap_writer w;
	char err[256];
	struct rp_pcap_writer_cfg cfg = {.path = link, .snaplen = 1000};
	assert_int_equal(rp_pcap_writer_open(&w, &cfg, err, sizeof(err)), 0);
	uint8_t frame[1000] = {0};
	unsigned n = 0;
	while (n < 1000 && rp_pcap_writer_write(&w, n, frame, sizeof(frame), sizeof(frame)) == 0)
		n++;
	assert_true(w.failed);
	assert_false(w.failed_open);
	assert_true(n > 1 && n < 1000); /* stdio's buffer (a few KiB) filled first */
	assert_int_equal(w.error, ENOSPC);
	assert_string_equal(w.error_file, link);
	rp_pcap_writer_close(&w, false);
	assert_int_equal(w.written, 0);
	assert_int_equal(w.lost, n); /* every record handed to it */
	assert_int_equal(w.bytes, 0);
	assert_int_equal(w.files, 0);
	unlink(link);
	/* A file that cannot be created: open fails and says which and why. */
	snprintf(link, sizeof(link), "%s/gone/x.pcap", dir);
	assert_int_equal(rp_pcap_writer_open(&w, &(struct rp_pcap_writer_cfg){.path = link, .snaplen = 64}, err,
					     sizeof(err)),
			 -1);
	snprintf(want, sizeof(want), "cannot write %s: No such file or directory", link);
	assert_string_equal(err, want);
	/* Rotation onto a file that cannot be created: failed there, nothing more written. */
	char path[128];
	snprintf(path, sizeof(path), "%s/z.pcap", dir);
	assert_int_equal(rp_pcap_writer_open(&w, &(struct rp_pcap_writer_cfg){.path = path, .snaplen = 64,
										 .rotate_bytes = 100},
					     err, sizeof(err)),
			 0);
	snprintf(path, sizeof(path), "%s/z-0001.pcap", dir);
	unlink(path);
	rmdir(dir);
	assert_int_equal(rp_pcap_writer_write(&w, 1, frame, 64, 64), 0); /* into the unlinked file 1 */
	assert_int_equal(rp_pcap_writer_write(&w, 2, frame, 64, 64), -1);
	assert_true(w.failed && w.failed_open);
	snprintf(want, sizeof(want), "%s/z-0002.pcap", dir);
	assert_string_equal(w.error_file, want);
	assert_int_equal(w.error, ENOENT);
	rp_pcap_writer_close(&w, false);
	assert_int_equal(w.written, 1);
	assert_int_equal(w.files, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(bytes_as_the_format_says),
		cmocka_unit_test(rotates_and_keeps_the_newest),
		cmocka_unit_test(a_failed_write),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
