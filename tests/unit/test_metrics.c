/* lib/metrics: the Prometheus text format against answers worked by hand
 * (prometheus.io/docs/instrumenting/exposition_formats/), and the listener's
 * address parsing. The server itself is scraped by a real Prometheus in
 * tests/interop/metrics_check.py. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "metrics/metrics.h"
#include "metrics/prom.h"
#include "stats/hist.h"

static char *text(struct rp_prom *p)
{
	size_t n;
	char *t = rp_prom_take(p, &n);
	assert_non_null(t);
	assert_int_equal(strlen(t), n);
	return t;
}

static void family_and_labels_escaped(void **state)
{
	(void)state;
	struct rp_prom p;
	rp_prom_init(&p);
	rp_prom_family(&p, "roceprobe_x_total", "counter", "A \"help\" with a \\ and\na newline.");
	const struct rp_prom_label l[] = {{"host", "h\"1\\"}, {"prio", "3"}};
	rp_prom_u64(&p, "roceprobe_x_total", l, 2, 18446744073709551615ull);
	rp_prom_u64(&p, "roceprobe_y", NULL, 0, 0);
	char *t = text(&p);
	/* HELP escapes \ and newline only; label values also escape the quote */
	assert_string_equal(t, "# HELP roceprobe_x_total A \"help\" with a \\\\ and\\na newline.\n"
			       "# TYPE roceprobe_x_total counter\n"
			       "roceprobe_x_total{host=\"h\\\"1\\\\\",prio=\"3\"} 18446744073709551615\n"
			       "roceprobe_y 0\n");
	free(t);
}

static void nanoseconds_as_exact_seconds(void **state)
{
	(void)state;
	struct rp_prom p;
	rp_prom_init(&p);
	rp_prom_ns(&p, "a", NULL, 0, 1535);        /* 1535 ns */
	rp_prom_ns(&p, "b", NULL, 0, 2000000000);  /* 2 s */
	rp_prom_ns(&p, "c", NULL, 0, 0);
	rp_prom_ns(&p, "d", NULL, 0, 12345678901); /* 12.345678901 s */
	char *t = text(&p);
	assert_string_equal(t, "a 0.000001535\nb 2.0\nc 0.0\nd 12.345678901\n");
	free(t);
}

/* Edges: 2^k - 1 and 3 x 2^(k-1) - 1 for k = 8..34; each a bucket's top. */
static void edges_are_bucket_tops(void **state)
{
	(void)state;
	uint64_t e[128];
	size_t n = rp_prom_hist_edges(e, 128);
	assert_int_equal(n, 2 * (34 - 8) + 1);
	assert_int_equal(e[0], 255);
	assert_int_equal(e[1], 383);
	assert_int_equal(e[2], 511);
	assert_int_equal(e[3], 767);
	assert_int_equal(e[n - 1], (1ull << 34) - 1);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(rp_hist_bucket_hi(rp_hist_index(e[i])), e[i]);
		if (i)
			assert_true(e[i] > e[i - 1]);
	}
}

/* Samples 100, 255, 256, 383, 384, 1000, 10^10 ns: cumulative counts by hand:
 * le 255 ns: 2; 383: 4; 511: 5; 767: 5; 1023: 6; ... 2^34-1 (17.18 s): 7
 * (10^10 ns = 10 s is below); +Inf 7; sum 10000002378 ns. */
static void histogram_cumulative_exact(void **state)
{
	(void)state;
	struct rp_hist *h = malloc(sizeof(*h));
	assert_non_null(h);
	rp_hist_init(h);
	const uint64_t v[] = {100, 255, 256, 383, 384, 1000, 10000000000ull};
	for (size_t i = 0; i < 7; i++)
		rp_hist_record(h, v[i]);
	struct rp_prom p;
	rp_prom_init(&p);
	const struct rp_prom_label l[] = {{"dst", "h1"}};
	rp_prom_hist(&p, "lat_seconds", l, 1, h);
	char *t = text(&p);
	assert_non_null(strstr(t, "lat_seconds_bucket{dst=\"h1\",le=\"0.000000255\"} 2\n"));
	assert_non_null(strstr(t, "lat_seconds_bucket{dst=\"h1\",le=\"0.000000383\"} 4\n"));
	assert_non_null(strstr(t, "lat_seconds_bucket{dst=\"h1\",le=\"0.000000511\"} 5\n"));
	assert_non_null(strstr(t, "lat_seconds_bucket{dst=\"h1\",le=\"0.000000767\"} 5\n"));
	assert_non_null(strstr(t, "lat_seconds_bucket{dst=\"h1\",le=\"0.000001023\"} 6\n"));
	assert_non_null(strstr(t, "lat_seconds_bucket{dst=\"h1\",le=\"8.589934591\"} 6\n"));
	assert_non_null(strstr(t, "lat_seconds_bucket{dst=\"h1\",le=\"17.179869183\"} 7\n"));
	assert_non_null(strstr(t, "lat_seconds_bucket{dst=\"h1\",le=\"+Inf\"} 7\n"));
	assert_non_null(strstr(t, "lat_seconds_sum{dst=\"h1\"} 10.000002378\n"));
	assert_non_null(strstr(t, "lat_seconds_count{dst=\"h1\"} 7\n"));
	free(t);
	free(h);
}

static void metrics_spec_parsed(void **state)
{
	(void)state;
	char a[64], err[256];
	uint16_t port;
	assert_int_equal(rp_metrics_parse("9464", a, sizeof(a), &port, err, sizeof(err)), 0);
	assert_string_equal(a, "127.0.0.1");
	assert_int_equal(port, 9464);
	assert_int_equal(rp_metrics_parse("192.0.2.7:80", a, sizeof(a), &port, err, sizeof(err)), 0);
	assert_string_equal(a, "192.0.2.7");
	assert_int_equal(port, 80);
	assert_int_equal(rp_metrics_parse("[::1]:9100", a, sizeof(a), &port, err, sizeof(err)), 0);
	assert_string_equal(a, "::1");
	assert_int_equal(port, 9100);
	/* every address (a wildcard) is refused: the listener binds the one scrapers reach */
	const char *bad[] = {"", "0", "65536", "x", "host:9100", "1.2.3.4:", ":9", "9464x", "[::1]", "0.0.0.0:9464",
			     "[::]:9464"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		assert_int_equal(rp_metrics_parse(bad[i], a, sizeof(a), &port, err, sizeof(err)), -1);
		assert_non_null(strstr(err, "--metrics: "));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(family_and_labels_escaped),
		cmocka_unit_test(nanoseconds_as_exact_seconds),
		cmocka_unit_test(edges_are_bucket_tops),
		cmocka_unit_test(histogram_cumulative_exact),
		cmocka_unit_test(metrics_spec_parsed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
