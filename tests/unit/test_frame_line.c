/* lib/report/jline.c and frame_line.c: decode's JSON line writer and a frame
 * as decode's text and JSON lines, against lines written out by hand from
 * IEEE 802.1Qbb's frame layout. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "report/frame_line.h"
#include "report/jline.h"
#include "wire/frame.h"

/* What fn wrote to a FILE, as a string (free it). */
#define CAPTURE(buf, stmt)                                                                                            \
	do {                                                                                                          \
		size_t len_ = 0;                                                                                      \
		FILE *out = open_memstream(&(buf), &len_);                                                            \
		assert_non_null(out);                                                                                 \
		stmt;                                                                                                 \
		fclose(out);                                                                                          \
	} while (0)

static void test_jline(void **state)
{
	(void)state;
	struct rp_jline w = {.n = 0};
	char *s = NULL;
	rp_jline_open(&w, NULL, '{');
	rp_jline_int(&w, "a", 1);
	rp_jline_int(&w, "min", INT64_MIN);
	rp_jline_str(&w, "q", "x\"y\\\n");
	rp_jline_str(&w, "z", NULL);
	rp_jline_open(&w, "l", '[');
	rp_jline_int(&w, NULL, 0);
	rp_jline_int(&w, NULL, -2);
	rp_jline_close(&w, ']');
	rp_jline_hex(&w, "h", 0xff, 2);
	rp_jline_bool(&w, "t", true);
	rp_jline_close(&w, '}');
	CAPTURE(s, rp_jline_line(&w, out));
	assert_string_equal(s, "{\"a\":1,\"min\":-9223372036854775808,\"q\":\"x\\\"y\\\\\\u000a\",\"z\":null,"
			       "\"l\":[0,-2],\"h\":\"0x00ff\",\"t\":true}\n");
	free(s);
}

/* A line longer than the buffer is cut, ends in '\n' and stays inside it. */
static void test_jline_long(void **state)
{
	(void)state;
	static struct rp_jline w;
	char big[3000];
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	rp_jline_open(&w, NULL, '{');
	rp_jline_str(&w, "s", big);
	rp_jline_close(&w, '}');
	char *s = NULL;
	CAPTURE(s, rp_jline_line(&w, out));
	assert_int_equal(strlen(s), RP_JLINE_CAP);
	assert_int_equal(s[RP_JLINE_CAP - 1], '\n');
	free(s);
}

/* PFC from 02:00:00:00:00:09 pausing priorities 3 and 4 (class-enable
 * vector 0x0018) for 65535 and 100 quanta, padded to 60 bytes. */
static void pfc_frame(struct rp_frame *f)
{
	uint8_t b[60] = {0x01, 0x80, 0xc2, 0x00, 0x00, 0x01, 0x02, 0x00, 0x00, 0x00, 0x00, 0x09, 0x88, 0x08,
			 0x01, 0x01, 0x00, 0x18};
	/* quanta[0..7] at byte 18, two bytes each: [3] at 24, [4] at 26 */
	b[24] = 0xff, b[25] = 0xff, b[26] = 0x00, b[27] = 100;
	assert_int_equal(rp_frame_parse(b, sizeof(b), 64, f), RP_KIND_PFC);
}

static void test_pfc_lines(void **state)
{
	(void)state;
	struct rp_frame f;
	pfc_frame(&f);
	char *s = NULL;
	CAPTURE(s, rp_frame_line_text(out, 7, 64, &f));
	/* "%6" PRIu64 " %5zu %-9s " then the detail */
	assert_string_equal(s, "     7    64 pfc       from 02:00:00:00:00:09 enable 0x18 quanta 0 0 0 65535 100 0 0 0\n");
	free(s);
	CAPTURE(s, rp_frame_line_json(out, 7, 64, &f));
	assert_string_equal(s, "{\"frame\":7,\"len\":64,\"kind\":\"pfc\",\"src_mac\":\"02:00:00:00:00:09\",\"enable\":[3,4],"
			       "\"quanta\":[0,0,0,65535,100,0,0,0]}\n");
	free(s);
	CAPTURE(s, rp_frame_line_header(out));
	assert_string_equal(s, " frame   len kind      detail\n");
	free(s);
}

static void test_totals(void **state)
{
	(void)state;
	struct rp_frame_totals t = {.frames = 5, .kinds = {[RP_KIND_ROCE] = 3, [RP_KIND_PFC] = 2}, .icrc_bad = 1};
	char *s = NULL;
	CAPTURE(s, rp_frame_totals_print(out, &t, false));
	assert_string_equal(s, "5 frames: roce 3, cnp 0, pfc 2, pause 0, other 0, malformed 0; ICRC bad 1\n");
	free(s);
	CAPTURE(s, rp_frame_totals_print(out, &t, true));
	assert_string_equal(s, "{\"summary\":true,\"frames\":5,\"kinds\":{\"roce\":3,\"cnp\":0,\"pfc\":2,\"pause\":0,"
			       "\"other\":0,\"malformed\":0},\"icrc_bad\":1}\n");
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_jline),
		cmocka_unit_test(test_jline_long),
		cmocka_unit_test(test_pfc_lines),
		cmocka_unit_test(test_totals),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
