/* The one capture reader (lib/pcap/reader.h) on files cut short, on pcapng,
 * and on what is no capture; files built here byte by byte from the formats
 * (pcap-savefile(5); pcapng: IETF draft-ietf-opsawg-pcapng), not by
 * roceprobe's writer. Pure C: no EAL. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pcap/reader.h"

static void put(const char *path, const uint8_t *b, size_t n)
{
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(b, 1, n, f), n);
	fclose(f);
}

/* A microsecond pcap, link type ltype: records of caplen 10, 20, 30 (bytes
 * all i+1), stamped 5 s + 7 us, 6 s, 7 s: 24 + 26 + 36 + 46 = 132 bytes. */
static size_t build_pcap(uint8_t *b, uint32_t ltype)
{
	uint32_t hdr[6] = {0xa1b2c3d4u, 0x00040002u, 0, 0, 65535, ltype};
	memcpy(b, hdr, sizeof(hdr));
	size_t off = 24;
	for (uint32_t i = 0; i < 3; i++) {
		uint32_t caplen = 10 * (i + 1), rec[4] = {5 + i, i == 0 ? 7 : 0, caplen, caplen + 100};
		memcpy(b + off, rec, sizeof(rec));
		memset(b + off + 16, (int)i + 1, caplen);
		off += 16 + caplen;
	}
	return off;
}

static char path[] = "/tmp/rp-test-pcapr-XXXXXX";

static void reads_whole_and_cut_files(void **state)
{
	(void)state;
	uint8_t b[256];
	size_t n = build_pcap(b, 1);
	assert_int_equal(n, 132);
	/* length of the file: frames read, cut */
	static const size_t cases[][3] = {
		{132, 3, 0}, {131, 2, 1}, {90, 2, 1}, {86, 2, 0}, {51, 1, 1}, {50, 1, 0}, {40, 0, 1}, {24, 0, 0},
	};
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		put(path, b, cases[c][0]);
		struct rp_pcap_reader r;
		char err[512] = "";
		assert_int_equal(rp_pcap_reader_open(&r, path, false, err, sizeof(err)), 0);
		struct pcap_pkthdr *h;
		const u_char *d;
		int rc;
		uint64_t k = 0;
		while ((rc = rp_pcap_reader_next(&r, &h, &d, err, sizeof(err))) == 1) {
			assert_int_equal(h->caplen, 10 * (k + 1));
			assert_int_equal(h->len, 10 * (k + 1) + 100);
			assert_int_equal(d[0], k + 1);
			/* microseconds read as ns: 5 s + 7 us = 5000007000 ns */
			assert_int_equal(rp_pcap_ts_ns(h), k == 0 ? 5000007000ull : (5 + k) * 1000000000ull);
			k++;
		}
		assert_int_equal(rc, 0);
		assert_int_equal(k, cases[c][1]);
		assert_int_equal(r.frames, cases[c][1]);
		assert_int_equal(r.truncated, cases[c][2]);
		if (cases[c][2]) {
			char want[128];
			snprintf(want, sizeof(want), "%s: the capture is truncated at frame %zu (", path, cases[c][1] + 1);
			assert_memory_equal(err, want, strlen(want));
			snprintf(want, sizeof(want), "); read the %zu whole frames before it", cases[c][1]);
			assert_string_equal(err + strlen(err) - strlen(want), want);
		}
		/* A second pass reads the same. */
		assert_int_equal(rp_pcap_reader_rewind(&r, err, sizeof(err)), 0);
		for (k = 0; rp_pcap_reader_next(&r, &h, &d, err, sizeof(err)) == 1;)
			k++;
		assert_int_equal(k, cases[c][1]);
		rp_pcap_reader_close(&r);
	}
	unlink(path);
}

/* pcapng: a section header (28 B), an interface description (link type 1,
 * 20 B, default resolution: microseconds), one enhanced packet (32 + 4 B of
 * frame): timestamp 0x00000001:0x00000002 us = 4294967298 us. */
static void reads_pcapng(void **state)
{
	(void)state;
	static const uint8_t b[] = {
		0x0a, 0x0d, 0x0d, 0x0a, 28, 0, 0, 0, 0x4d, 0x3c, 0x2b, 0x1a, 1, 0, 0, 0,
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 28, 0, 0, 0,
		1, 0, 0, 0, 20, 0, 0, 0, 1, 0, 0, 0, 0xff, 0xff, 0, 0, 20, 0, 0, 0,
		6, 0, 0, 0, 36, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 4, 0, 0, 0, 64, 0, 0, 0,
		0xde, 0xad, 0xbe, 0xef, 36, 0, 0, 0,
	};
	put(path, b, sizeof(b));
	struct rp_pcap_reader r;
	char err[512] = "";
	assert_int_equal(rp_pcap_reader_open(&r, path, false, err, sizeof(err)), 0);
	struct pcap_pkthdr *h;
	const u_char *d;
	assert_int_equal(rp_pcap_reader_next(&r, &h, &d, err, sizeof(err)), 1);
	assert_int_equal(h->caplen, 4);
	assert_int_equal(h->len, 64);
	assert_int_equal(d[0], 0xde);
	assert_int_equal(rp_pcap_ts_ns(h), 4294967298000ull);
	assert_int_equal(rp_pcap_reader_next(&r, &h, &d, err, sizeof(err)), 0);
	assert_false(r.truncated);
	rp_pcap_reader_close(&r);
	unlink(path);
}

static void refuses_what_is_no_ethernet_capture(void **state)
{
	(void)state;
	uint8_t b[256];
	char err[512], want[600];
	struct rp_pcap_reader r;
	size_t n = build_pcap(b, 101); /* LINKTYPE_RAW */
	put(path, b, n);
	assert_int_equal(rp_pcap_reader_open(&r, path, false, err, sizeof(err)), -1);
	snprintf(want, sizeof(want), "%s: link type RAW is not Ethernet", path);
	assert_string_equal(err, want);
	put(path, (const uint8_t *)"hello, world, not a capture", 27);
	assert_int_equal(rp_pcap_reader_open(&r, path, false, err, sizeof(err)), -1);
	snprintf(want, sizeof(want), "cannot read %s: ", path);
	assert_memory_equal(err, want, strlen(want));
	unlink(path);
	assert_int_equal(rp_pcap_reader_open(&r, path, false, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "No such file or directory"));
}

int main(void)
{
	int fd = mkstemp(path);
	if (fd < 0)
		return 1;
	close(fd);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(reads_whole_and_cut_files),
		cmocka_unit_test(reads_pcapng),
		cmocka_unit_test(refuses_what_is_no_ethernet_capture),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
