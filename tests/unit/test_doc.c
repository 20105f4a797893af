/* lib/report/doc: a document written a piece at a time is, byte for byte,
 * what jansson's json_dumps(root, JSON_INDENT(2)) and a newline are for the
 * whole root (the truth here is jansson's, not roceprobe's); streams, nested
 * objects, empty containers, reals and escapes; JSON Lines; a failure leaves
 * no file. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <unistd.h>
#include <cmocka.h>

#include "report/doc.h"

static char dir[] = "/tmp/rp-test-doc-XXXXXX";

static int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	rewind(f);
	char *s = malloc((size_t)n + 1);
	assert_non_null(s);
	assert_int_equal(fread(s, 1, (size_t)n, f), (size_t)n);
	s[n] = '\0';
	fclose(f);
	return s;
}

/* jansson's own text of the whole root, with write_file's newline. */
static char *truth(const json_t *root)
{
	char *d = json_dumps(root, JSON_INDENT(2));
	assert_non_null(d);
	size_t n = strlen(d);
	char *s = malloc(n + 2);
	memcpy(s, d, n);
	memcpy(s + n, "\n", 2);
	free(d);
	return s;
}

static size_t files_in_dir(void)
{
	DIR *d = opendir(dir);
	size_t n = 0;
	for (struct dirent *e; (e = readdir(d));)
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

/* Everything jansson formats on its own terms: reals (17 digits, ".0"),
 * escapes, UTF-8, big integers, empty containers, nesting. */
static json_t *awkward(void)
{
	json_t *o = json_pack("{s:f, s:f, s:f, s:f, s:I, s:s, s:s, s:n, s:b, s:[], s:{}, s:[[], {}, [i, [i, {s:[]}]]]}",
			 "tenth", 0.1, "big", 1e300, "three", 3.0, "neg", -0.5, "i", (json_int_t)INT64_MAX, "esc",
			 "q\"b\\s/\n\t\x01", "utf8", "gr\xc3\xbc\xc3\x9f", "nul", "t", 1, "ea", "eo", "deep", 1, 2, "k");
	/* reals in every form %.17g takes, and what jansson does to it */
	const double reals[] = {1e-5, 1e21, 5e-324, 1.7976931348623157e308, -0.0, 1e16, 123456789.125, 100.0, -2.5e-7, 0.3, 999999999999999.0, -42.0, 1e15, 0.0};
	json_t *r = json_array();
	for (size_t i = 0; i < sizeof(reals) / sizeof(reals[0]); i++)
		json_array_append_new(r, json_real(reals[i]));
	json_object_set_new(o, "reals", r);
	json_object_set_new(o, "ints", json_pack("[I, I, i, i]", (json_int_t)INT64_MIN, (json_int_t)-1, 0, 10));
	json_object_set_new(o, "ctl", json_string("\x1f\x7f\b\f\r a\xf0\x9f\x98\x80/"));
	json_object_set_new(o, "k\"e\ny", json_true());
	return o;
}

static void whole_root_is_janssons_text(void **state)
{
	(void)state;
	char path[256], err[256];
	snprintf(path, sizeof(path), "%s/whole.json", dir);
	json_t *root = json_pack("{s:s, s:o, s:{s:i, s:[i, i]}}", "schema", "x/1", "odd", awkward(), "o", "a", 1, "l", 2, 3);
	assert_int_equal(rp_doc_write(path, root, NULL, 0, err, sizeof(err)), 0);
	char *got = slurp(path), *want = truth(root);
	assert_string_equal(got, want);
	free(got);
	free(want);
	/* an empty object: "{}" */
	json_t *empty = json_object();
	assert_int_equal(rp_doc_write(path, empty, NULL, 0, err, sizeof(err)), 0);
	got = slurp(path);
	assert_string_equal(got, "{}\n");
	free(got);
	json_decref(empty);
	json_decref(root);
}

static json_t *nth(void *ctx, size_t i)
{
	json_t *src = ctx;
	return json_deep_copy(json_array_get(src, i));
}

/* The same document given as pieces: scalars, a nested object of pieces, a
 * stream at the top, one inside a nested tree, and an empty stream. */
static void pieces_are_the_whole(void **state)
{
	(void)state;
	char path[256], err[256];
	snprintf(path, sizeof(path), "%s/pieces.json", dir);
	json_t *rows = json_pack("[{s:i, s:[f, f]}, {s:i, s:[]}, [i, i], s, n]", "a", 1, "h", 0.25, 2.0, "a", 2, "e", 1, 2, "x");
	json_t *series = json_pack("[i, i, i]", 7, 8, 9);
	assert_non_null(rows);
	assert_non_null(series);
	/* the truth: the whole tree */
	json_t *root = json_pack("{s:s, s:O, s:{s:O, s:[], s:s}, s:{s:i, s:O, s:o}, s:[]}", "schema", "x/1", "flows", rows,
				 "pairs", "rows", rows, "outliers", "rows_file", "p.jsonl", "ts", "bins", 3, "ports", series,
				 "odd", awkward(), "empty");
	assert_non_null(root);
	struct rp_doc *d = rp_doc_open(path, err, sizeof(err));
	assert_non_null(d);
	assert_int_equal(rp_doc_put(d, "schema", json_string("x/1")), 0);
	const struct rp_report_stream fl = {NULL, json_array_size(rows), nth, rows};
	assert_int_equal(rp_doc_stream(d, "flows", &fl), 0);
	assert_int_equal(rp_doc_begin(d, "pairs"), 0);
	assert_int_equal(rp_doc_stream(d, "rows", &fl), 0);
	const struct rp_report_stream none = {NULL, 0, nth, rows};
	assert_int_equal(rp_doc_stream(d, "outliers", &none), 0);
	assert_int_equal(rp_doc_put(d, "rows_file", json_string("p.jsonl")), 0);
	assert_int_equal(rp_doc_end(d), 0);
	/* a tree whose "ports" is written from a stream */
	json_t *marker = json_array();
	json_t *ts = json_pack("{s:i, s:o, s:o}", "bins", 3, "ports", marker, "odd", awkward());
	const struct rp_report_stream ps = {marker, json_array_size(series), nth, series};
	assert_int_equal(rp_doc_put_streams(d, "ts", ts, &ps, 1), 0);
	assert_int_equal(rp_doc_stream(d, "empty", &none), 0);
	assert_int_equal(rp_doc_close(d, false, err, sizeof(err)), 0);
	char *got = slurp(path), *want = truth(root);
	assert_string_equal(got, want);
	free(got);
	free(want);
	json_decref(root);
	json_decref(rows);
	json_decref(series);
}

static json_t *fails_at_2(void *ctx, size_t i)
{
	(void)ctx;
	return i == 2 ? NULL : json_integer((json_int_t)i);
}

/* An item that cannot be made, or a caller that gives up: no file at all,
 * no temporary left; the old file stays. */
static void a_failure_leaves_the_old_file(void **state)
{
	(void)state;
	char path[256], err[256] = "";
	snprintf(path, sizeof(path), "%s/fail.json", dir);
	size_t before = files_in_dir();
	struct rp_doc *d = rp_doc_open(path, err, sizeof(err));
	const struct rp_report_stream s = {NULL, 5, fails_at_2, NULL};
	assert_int_equal(rp_doc_stream(d, "flows", &s), -1);
	assert_int_equal(rp_doc_close(d, false, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "out of memory"));
	assert_int_equal(files_in_dir(), before);
	assert_int_equal(rp_doc_write_lines(path, &s, err, sizeof(err)), -1);
	assert_int_equal(files_in_dir(), before);
	d = rp_doc_open(path, err, sizeof(err));
	assert_int_equal(rp_doc_put(d, "a", json_integer(1)), 0);
	assert_int_equal(rp_doc_close(d, true, err, sizeof(err)), -1);
	assert_int_equal(files_in_dir(), before);
	assert_null(rp_doc_open("/nonexistent-dir/result.json", err, sizeof(err)));
	assert_non_null(strstr(err, "cannot create a temporary file next to /nonexistent-dir/result.json"));
}

/* JSON Lines: each item as jansson's compact text, a line each. */
static void lines_are_compact_items(void **state)
{
	(void)state;
	char path[256], err[256];
	snprintf(path, sizeof(path), "%s/x.jsonl", dir);
	json_t *items = json_pack("[{s:i, s:[f]}, o, s]", "id", 0, "g", 0.1, awkward(), "x");
	const struct rp_report_stream s = {NULL, 3, nth, items};
	assert_int_equal(rp_doc_write_lines(path, &s, err, sizeof(err)), 0);
	char *got = slurp(path), want[4096] = "";
	for (size_t i = 0; i < 3; i++) {
		char *c = json_dumps(json_array_get(items, i), JSON_COMPACT | JSON_ENCODE_ANY);
		strcat(want, c);
		strcat(want, "\n");
		free(c);
	}
	assert_string_equal(got, want);
	assert_non_null(strstr(got, "{\"id\":0,\"g\":[0.10000000000000001]}\n")); /* %.17g, as jansson writes it */
	free(got);
	json_decref(items);
}

/* A typed object: nesting, every kind of value, and what jansson leaves out
 * (a real that is not finite, a NULL string). */
static void typed(struct rp_jw *w, void *ctx, size_t i)
{
	(void)ctx;
	rp_jw_obj(w, NULL);
	rp_jw_int(w, "id", (int64_t)i - 1);
	rp_jw_str(w, "src", "h\"1");
	rp_jw_str(w, "gone", NULL);
	rp_jw_real(w, "g", 0.1 * (double)i);
	rp_jw_real(w, "nan", 0.0 / 0.0);
	rp_jw_bool(w, "t", i & 1);
	rp_jw_null(w, "n");
	rp_jw_arr(w, "h");
	for (size_t k = 0; k < i; k++) {
		rp_jw_arr(w, NULL);
		rp_jw_int(w, NULL, (int64_t)k);
		rp_jw_real(w, NULL, 1e21);
		rp_jw_end(w);
	}
	rp_jw_end(w);
	rp_jw_obj(w, "empty");
	rp_jw_end(w);
	json_t *j = json_pack("{s:[i, f]}", "x", 1, 2.5);
	rp_jw_json(w, "tree", j);
	json_decref(j);
	rp_jw_end(w);
}

static json_t *typed_tree(void *ctx, size_t i)
{
	return rp_jw_tree(typed, ctx, i);
}

/* The typed writer straight into a document and into a tree: the same
 * bytes, and those of jansson's text of the trees. */
static void typed_is_the_tree(void **state)
{
	(void)state;
	char a[256], b[256], err[256];
	snprintf(a, sizeof(a), "%s/typed.json", dir);
	snprintf(b, sizeof(b), "%s/tree.json", dir);
	const struct rp_report_wstream ws = {NULL, 3, typed, NULL};
	const struct rp_report_stream ts = {NULL, 3, typed_tree, NULL};
	struct rp_doc *d = rp_doc_open(a, err, sizeof(err));
	assert_int_equal(rp_doc_wstream(d, "flows", &ws), 0);
	assert_int_equal(rp_doc_close(d, false, err, sizeof(err)), 0);
	json_t *root = json_object(), *arr = json_array();
	for (size_t i = 0; i < 3; i++)
		json_array_append_new(arr, typed_tree(NULL, i));
	json_object_set_new(root, "flows", arr);
	assert_null(json_object_get(json_array_get(arr, 1), "nan"));
	assert_null(json_object_get(json_array_get(arr, 1), "gone"));
	char *got = slurp(a), *want = truth(root);
	assert_string_equal(got, want);
	free(got);
	free(want);
	/* lines: typed and tree the same */
	assert_int_equal(rp_doc_write_wlines(a, &ws, err, sizeof(err)), 0);
	assert_int_equal(rp_doc_write_lines(b, &ts, err, sizeof(err)), 0);
	got = slurp(a);
	want = slurp(b);
	assert_string_equal(got, want);
	free(got);
	free(want);
	json_decref(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(whole_root_is_janssons_text),
		cmocka_unit_test(pieces_are_the_whole),
		cmocka_unit_test(a_failure_leaves_the_old_file),
		cmocka_unit_test(lines_are_compact_items),
		cmocka_unit_test(typed_is_the_tree),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
