/* report.html: one self-contained file (inline CSS, plots as inline SVG,
 * nothing fetched) with what report.md says and each test's plots. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cert_internal.h"

static const char *const colours[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#17becf"};
#define NCOL (sizeof(colours) / sizeof(colours[0]))

static const char *str(const json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));
	return s ? s : "";
}

static void esc(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '<')
			fputs("&lt;", f);
		else if (*s == '>')
			fputs("&gt;", f);
		else if (*s == '&')
			fputs("&amp;", f);
		else if (*s == '"')
			fputs("&quot;", f);
		else
			fputc(*s, f);
	}
}

struct range {
	double x0, x1, y1;
};

static void plot_range(const json_t *plot, struct range *r)
{
	size_t i, j;
	json_t *s, *p;
	*r = (struct range){INFINITY, -INFINITY, 0};
	json_array_foreach(json_object_get(plot, "series"), i, s)
		json_array_foreach(json_object_get(s, "points"), j, p) {
		double x = json_number_value(json_array_get(p, 0)), y = json_number_value(json_array_get(p, 1));
		r->x0 = x < r->x0 ? x : r->x0;
		r->x1 = x > r->x1 ? x : r->x1;
		r->y1 = y > r->y1 ? y : r->y1;
	}
	if (!(r->x1 > r->x0))
		r->x1 = r->x0 + 1;
	if (r->y1 <= 0)
		r->y1 = 1;
}

#define W 560.0
#define H 220.0
#define L 84.0
#define B 30.0

static void axes(FILE *f, const json_t *plot, const struct range *r)
{
	fprintf(f, "<line x1='%g' y1='%g' x2='%g' y2='%g' class='ax'/><line x1='%g' y1='10' x2='%g' y2='%g' class='ax'/>",
		L, H - B, W - 10, H - B, L, L, H - B);
	for (int k = 0; k <= 4; k++) {
		double y = H - B - (H - B - 10) * k / 4.0;
		fprintf(f, "<text x='%g' y='%g' class='tk' text-anchor='end'>%.3g</text>", L - 4, y + 4, r->y1 * k / 4.0);
	}
	fprintf(f, "<text x='%g' y='%g' class='lb' text-anchor='middle'>", (L + W) / 2, H - 2);
	esc(f, str(plot, "x"));
	fputs("</text>", f);
	fprintf(f, "<text x='12' y='%g' class='lb' transform='rotate(-90 12 %g)' text-anchor='middle'>", H / 2, H / 2);
	esc(f, str(plot, "y"));
	fputs("</text>", f);
}

static void bars(FILE *f, const json_t *plot, const struct range *r)
{
	size_t i, j, ns = json_array_size(json_object_get(plot, "series"));
	json_t *s, *p;
	double xs[256];
	size_t nx = 0;
	json_array_foreach(json_object_get(plot, "series"), i, s)
		json_array_foreach(json_object_get(s, "points"), j, p) {
		double x = json_number_value(json_array_get(p, 0));
		size_t k = 0;
		while (k < nx && xs[k] != x)
			k++;
		if (k == nx && nx < 256)
			xs[nx++] = x;
	}
	for (size_t a = 0; a < nx; a++) /* in order */
		for (size_t b = a + 1; b < nx; b++)
			if (xs[b] < xs[a]) {
				double t = xs[a];
				xs[a] = xs[b];
				xs[b] = t;
			}
	double slot = (W - 10 - L) / (double)(nx ? nx : 1), bw = slot * 0.8 / (double)(ns ? ns : 1);
	json_array_foreach(json_object_get(plot, "series"), i, s)
		json_array_foreach(json_object_get(s, "points"), j, p) {
		double x = json_number_value(json_array_get(p, 0)), y = json_number_value(json_array_get(p, 1));
		size_t k = 0;
		while (k < nx && xs[k] != x)
			k++;
		double h = y > 0 ? (H - B - 10) * y / r->y1 : 0;
		fprintf(f, "<rect x='%.1f' y='%.1f' width='%.1f' height='%.1f' fill='%s'><title>%g: %g</title></rect>",
			L + slot * (double)k + slot * 0.1 + bw * (double)i, H - B - h, bw, h, colours[i % NCOL], x, y);
	}
	for (size_t k = 0; k < nx; k++)
		fprintf(f, "<text x='%.1f' y='%g' class='tk' text-anchor='middle'>%g</text>", L + slot * ((double)k + 0.5),
			H - B + 12, xs[k]);
}

static void lines(FILE *f, const json_t *plot, const struct range *r)
{
	size_t i, j;
	json_t *s, *p;
	json_array_foreach(json_object_get(plot, "series"), i, s) {
		fprintf(f, "<polyline fill='none' stroke='%s' stroke-width='1.5' points='", colours[i % NCOL]);
		json_array_foreach(json_object_get(s, "points"), j, p) {
			double x = json_number_value(json_array_get(p, 0)), y = json_number_value(json_array_get(p, 1));
			fprintf(f, "%.1f,%.1f ", L + (W - 10 - L) * (x - r->x0) / (r->x1 - r->x0), H - B - (H - B - 10) * y / r->y1);
		}
		fputs("'/>", f);
	}
	fprintf(f, "<text x='%g' y='%g' class='tk'>%.4g</text><text x='%g' y='%g' class='tk' text-anchor='end'>%.4g</text>", L,
		H - B + 12, r->x0, W - 10, H - B + 12, r->x1);
}

static void svg(FILE *f, const json_t *plot)
{
	struct range r;
	size_t i;
	json_t *s;
	plot_range(plot, &r);
	fputs("<figure><figcaption>", f);
	esc(f, str(plot, "title"));
	fprintf(f, "</figcaption><svg xmlns='http://www.w3.org/2000/svg' width='%g' height='%g' viewBox='0 0 %g %g'>", W, H, W, H);
	axes(f, plot, &r);
	if (strcmp(str(plot, "kind"), "line") == 0)
		lines(f, plot, &r);
	else
		bars(f, plot, &r);
	fputs("</svg><div class='legend'>", f);
	json_array_foreach(json_object_get(plot, "series"), i, s) {
		fprintf(f, "<span><i style='background:%s'></i>", colours[i % NCOL]);
		esc(f, str(s, "name"));
		fputs("</span>", f);
	}
	fputs("</div></figure>\n", f);
}

static void cells_html(FILE *f, const json_t *row, bool header)
{
	const char *k, *k2;
	json_t *v, *v2;
	char buf[256];
	json_object_foreach((json_t *)row, k, v) {
		if (json_is_object(v)) {
			json_object_foreach(v, k2, v2) {
				rp_cert_value_text(v2, buf, sizeof(buf));
				fputs(header ? "<th>" : "<td>", f);
				if (header) {
					esc(f, k);
					fputc('.', f);
					esc(f, k2);
				} else {
					esc(f, buf);
				}
				fputs(header ? "</th>" : "</td>", f);
			}
			continue;
		}
		rp_cert_value_text(v, buf, sizeof(buf));
		fputs(header ? "<th>" : "<td>", f);
		esc(f, header ? k : buf);
		fputs(header ? "</th>" : "</td>", f);
	}
}

/* The measured values: scalars as a list, lists of records as tables. */
static void measured_html(FILE *f, const json_t *m)
{
	const char *k;
	json_t *v, *r;
	size_t i;
	char buf[512];
	bool any = false;
	json_object_foreach((json_t *)m, k, v) {
		if (json_is_array(v) && json_is_object(json_array_get(v, 0)))
			continue;
		rp_cert_value_text(v, buf, sizeof(buf));
		fputs(any ? "<li>" : "<p>Measured:</p><ul class='m'><li>", f);
		esc(f, k);
		fputs(": ", f);
		esc(f, buf);
		fputs("</li>", f);
		any = true;
	}
	if (any)
		fputs("</ul>\n", f);
	json_object_foreach((json_t *)m, k, v) {
		if (!json_is_array(v) || !json_is_object(json_array_get(v, 0)))
			continue;
		fputs("<p>Measured <code>", f);
		esc(f, k);
		fputs("</code>:</p><table><tr>", f);
		cells_html(f, json_array_get(v, 0), true);
		fputs("</tr>", f);
		json_array_foreach(v, i, r) {
			fputs("<tr>", f);
			cells_html(f, r, false);
			fputs("</tr>", f);
		}
		fputs("</table>\n", f);
	}
}

static void test_html(FILE *f, const json_t *e)
{
	size_t i;
	json_t *c, *r, *p;
	char got[512];
	const char *v = str(e, "verdict");
	fprintf(f, "<section id='t%d'><h2><span class='v %s'>%s</span> %d. ", (int)json_integer_value(json_object_get(e, "id")),
		v, v, (int)json_integer_value(json_object_get(e, "id")));
	esc(f, str(e, "title"));
	fputs("</h2>\n", f);
	if (json_is_string(json_object_get(e, "reason"))) {
		fputs(strcmp(v, "MARGINAL") == 0 ? "<p class='why'>Marginal: " : "<p class='why'>Skipped: ", f);
		esc(f, str(e, "reason"));
		fputs("</p>\n", f);
	}
	json_t *sd;
	if (json_array_size(json_object_get(e, "seeds"))) {
		fputs("<p>Seeds:", f);
		json_array_foreach(json_object_get(e, "seeds"), i, sd)
			fprintf(f, "%s %lld <span class='v %s'>%s</span>", i ? "," : "",
				(long long)json_integer_value(json_object_get(sd, "seed")), str(sd, "verdict"), str(sd, "verdict"));
		fputs("</p>\n", f);
	}
	json_t *cause = json_object_get(e, "cause");
	if (json_is_object(cause)) {
		fputs("<p class='cause'><b>Likely cause</b> (", f);
		esc(f, str(cause, "code"));
		fputs("): ", f);
		esc(f, str(cause, "text"));
		fputs(".</p>\n", f);
	}
	if (json_array_size(json_object_get(e, "criteria"))) {
		fputs("<table><tr><th>criterion</th><th>wanted</th><th>measured</th><th></th></tr>\n", f);
		json_array_foreach(json_object_get(e, "criteria"), i, c) {
			bool ok = json_is_true(json_object_get(c, "pass"));
			rp_cert_value_text(json_object_get(c, "got"), got, sizeof(got));
			fputs("<tr><td>", f);
			esc(f, str(c, "name"));
			fputs("</td><td>", f);
			esc(f, str(c, "want"));
			fputs("</td><td>", f);
			esc(f, got);
			fprintf(f, "</td><td class='%s'>%s</td></tr>\n", ok ? "PASS" : "FAIL", ok ? "ok" : "no");
		}
		fputs("</table>\n", f);
	}
	json_array_foreach(json_object_get(json_object_get(e, "evidence"), "plots"), i, p)
		svg(f, p);
	measured_html(f, json_object_get(e, "measured"));
	json_t *runs = json_object_get(json_object_get(e, "evidence"), "runs");
	if (json_array_size(runs)) {
		fputs("<details><summary>runs</summary><ul>", f);
		json_array_foreach(runs, i, r) {
			fputs("<li>", f);
			esc(f, str(r, "label"));
			fprintf(f, " (%.3f ms virtual)<br><code>", (double)json_integer_value(json_object_get(r, "elapsed_ns")) / 1e6);
			esc(f, str(r, "traffic"));
			fputs("</code></li>", f);
		}
		fputs("</ul></details>\n", f);
	}
	fputs("</section>\n", f);
}

static void suggest_html(FILE *f, const json_t *s)
{
	size_t i;
	json_t *st, *x;
	fputs("<section><h2>Suggestion</h2>", f);
	if (json_is_true(json_object_get(s, "found"))) {
		fputs("<p>With these settings every test passes:</p><pre>", f);
		json_array_foreach(json_object_get(s, "sets"), i, x) {
			fputs("--set ", f);
			esc(f, json_string_value(x));
			fputc('\n', f);
		}
		fputs("</pre>", f);
	} else {
		fputs("<p>No setting of the knobs tried passes every test.</p>", f);
	}
	fputs("<ul>", f);
	json_array_foreach(json_object_get(s, "steps"), i, st) {
		char b[512], a[512];
		rp_cert_value_text(json_object_get(st, "before"), b, sizeof(b));
		rp_cert_value_text(json_object_get(st, "after"), a, sizeof(a));
		fprintf(f, "<li>test %d (", (int)json_integer_value(json_object_get(st, "test")));
		esc(f, str(st, "name"));
		fputs("): ", f);
		esc(f, json_is_string(json_object_get(st, "chosen")) ? str(st, "chosen") : "nothing found");
		fputs("<br>before: <code>", f);
		esc(f, b);
		fputs("</code><br>after: <code>", f);
		esc(f, a);
		fputs("</code></li>", f);
	}
	fputs("</ul></section>\n", f);
}

static const char css[] =
	"body{font:14px/1.4 system-ui,sans-serif;max-width:980px;margin:2em auto;color:#222}"
	"table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:3px 8px;text-align:left}"
	".v{display:inline-block;padding:1px 8px;border-radius:4px;color:#fff;font-size:13px}"
	".v.PASS,td.PASS{background:#2e7d32;color:#fff}.v.FAIL,td.FAIL{background:#c62828;color:#fff}"
	".v.SKIP{background:#757575}.v.MARGINAL{background:#ef6c00;color:#fff}.cause{background:#fff3e0;padding:6px}.why{color:#555}"
	"figure{margin:.5em 0}figcaption{font-size:13px;color:#444}.ax{stroke:#333}.tk{font-size:10px}"
	".lb{font-size:11px}.legend span{margin-right:1em;font-size:12px}.legend i{display:inline-block;width:10px;"
	"height:10px;margin-right:4px}code{font-size:11px;word-break:break-all}section{border-top:1px solid #ddd}";

static void write_html(FILE *f, const json_t *res)
{
	size_t i;
	json_t *e, *counts = json_object_get(res, "counts");
	const json_t *prof = json_object_get(res, "profile");
	const char *v = str(res, "verdict");
	fputs("<!DOCTYPE html>\n<html><head><meta charset='utf-8'><title>roceprobe certify: ", f);
	esc(f, str(prof, "name"));
	fprintf(f, "</title><style>%s</style></head><body>\n<h1><span class='v %s'>%s</span> roceprobe certify: ", css, v, v);
	esc(f, str(prof, "name"));
	fputs("</h1>\n<p>Profile <code>", f);
	esc(f, str(prof, "path"));
	fprintf(f, "</code>, engine %s: %d passed, %d failed, %d marginal, %d skipped%s.</p>\n", str(res, "engine"),
		(int)json_integer_value(json_object_get(counts, "pass")), (int)json_integer_value(json_object_get(counts, "fail")),
		(int)json_integer_value(json_object_get(counts, "marginal")),
		(int)json_integer_value(json_object_get(counts, "skip")),
		json_is_true(json_object_get(res, "interrupted")) ? " (interrupted)" : "");
	if (!json_is_true(json_object_get(res, "certified")))
		fprintf(f, "<p class='cause'><b>Not certified</b>: %d of %d tests judged; certified needs test 1 (or every "
			   "test --only asked for) judged and every verdict PASS (a SKIP or a MARGINAL is not).</p>\n",
			(int)json_integer_value(json_object_get(res, "judged")),
			(int)json_integer_value(json_object_get(res, "asked")));
	fputs("<table><tr><th>#</th><th>test</th><th>verdict</th><th>why</th></tr>\n", f);
	json_array_foreach(json_object_get(res, "tests"), i, e) {
		json_t *cause = json_object_get(e, "cause");
		int id = (int)json_integer_value(json_object_get(e, "id"));
		fprintf(f, "<tr><td>%d</td><td><a href='#t%d'>%s</a></td><td class='%s'>%s</td><td>", id, id, str(e, "name"),
			str(e, "verdict"), str(e, "verdict"));
		esc(f, json_is_string(json_object_get(e, "reason")) ? str(e, "reason") : json_is_object(cause) ? str(cause, "text") : "");
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
	json_array_foreach(json_object_get(res, "tests"), i, e)
		test_html(f, e);
	if (json_is_object(json_object_get(res, "suggest")))
		suggest_html(f, json_object_get(res, "suggest"));
	fputs("</body></html>\n", f);
}

int rp_cert_write_html(const json_t *res, const char *path, char *err, size_t errlen)
{
	return rp_cert_write_file(path, write_html, res, err, errlen);
}
