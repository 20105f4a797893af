/* report.html: one self-contained file (inline CSS, plots as inline SVG,
 * nothing fetched) with what report.md says and each test's plots. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cert_internal.h"
#include "report/html.h"

static const char *const colours[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#17becf"};
#define NCOL (sizeof(colours) / sizeof(colours[0]))

static const char *str(const json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));
	return s ? s : "";
}

struct range {
	double x0, x1, y1, step;
	bool zero; /* every value is 0 */
};

/* The y range rounded up to 4 or 5 round steps; all values 0: 0..1 (the plot says so). */
static void plot_range(const json_t *plot, struct range *r)
{
	size_t i, j;
	json_t *s, *p;
	*r = (struct range){INFINITY, -INFINITY, 0, 1, false};
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
		r->y1 = 1, r->zero = true;
	r->step = rp_cert_nice_step(r->y1, 4);
	r->y1 = ceil(r->y1 / r->step - 1e-9) * r->step;
}

#define W 560.0
#define H 220.0
#define L 84.0
#define B 30.0

static void axes(FILE *f, const json_t *plot, const struct range *r)
{
	fprintf(f, "<line x1='%g' y1='%g' x2='%g' y2='%g' class='ax'/><line x1='%g' y1='10' x2='%g' y2='%g' class='ax'/>",
		L, H - B, W - 10, H - B, L, L, H - B);
	char t[32];
	int n = (int)lround(r->y1 / r->step);
	for (int k = 0; k <= n; k++) {
		double y = H - B - (H - B - 10) * k / (double)n;
		rp_cert_tick_text(r->step * k, t, sizeof(t));
		fprintf(f, "<line x1='%g' y1='%g' x2='%g' y2='%g' class='gr'/><text x='%g' y='%g' class='tk' "
			   "text-anchor='end'>%s</text>", L, y, W - 10, y, L - 4, y + 4, t);
	}
	if (r->zero)
		fprintf(f, "<text x='%g' y='%g' class='zero' text-anchor='middle'>every value is 0</text>", (L + W) / 2,
			(H - B) / 2);
	fprintf(f, "<text x='%g' y='%g' class='lb' text-anchor='middle'>", (L + W) / 2, H - 2);
	rp_html_esc(f, str(plot, "x"));
	fputs("</text>", f);
	fprintf(f, "<text x='12' y='%g' class='lb' transform='rotate(-90 12 %g)' text-anchor='middle'>", H / 2, H / 2);
	rp_html_esc(f, str(plot, "y"));
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
		double h = y > 0 ? (H - B - 10) * y / r->y1 : 2; /* a 0 drawn as a 2-px stub: measured, not missing */
		char xt[32], yt[32];
		rp_cert_tick_text(x, xt, sizeof(xt));
		rp_cert_tick_text(y, yt, sizeof(yt));
		fprintf(f, "<rect x='%.1f' y='%.1f' width='%.1f' height='%.1f' fill='%s'><title>%s: %s</title></rect>",
			L + slot * (double)k + slot * 0.1 + bw * (double)i, H - B - h, bw, h, colours[i % NCOL], xt, yt);
	}
	for (size_t k = 0; k < nx; k++) {
		char xt[32];
		rp_cert_tick_text(xs[k], xt, sizeof(xt));
		fprintf(f, "<text x='%.1f' y='%g' class='tk' text-anchor='middle'>%s</text>", L + slot * ((double)k + 0.5),
			H - B + 12, xt);
	}
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
	char x0[32], x1[32];
	rp_cert_tick_text(r->x0, x0, sizeof(x0));
	rp_cert_tick_text(r->x1, x1, sizeof(x1));
	fprintf(f, "<text x='%g' y='%g' class='tk'>%s</text><text x='%g' y='%g' class='tk' text-anchor='end'>%s</text>", L,
		H - B + 12, x0, W - 10, H - B + 12, x1);
}

static void svg(FILE *f, const json_t *plot)
{
	struct range r;
	size_t i;
	json_t *s;
	plot_range(plot, &r);
	fputs("<figure><figcaption>", f);
	rp_html_esc(f, str(plot, "title"));
	fprintf(f, "</figcaption><svg xmlns='http://www.w3.org/2000/svg' width='%g' height='%g' viewBox='0 0 %g %g'>", W, H, W, H);
	axes(f, plot, &r);
	if (strcmp(str(plot, "kind"), "line") == 0)
		lines(f, plot, &r);
	else
		bars(f, plot, &r);
	fputs("</svg><div class='legend'>", f);
	json_array_foreach(json_object_get(plot, "series"), i, s) {
		fprintf(f, "<span><i style='background:%s'></i>", colours[i % NCOL]);
		rp_html_esc(f, str(s, "name"));
		fputs("</span>", f);
	}
	fputs("</div></figure>\n", f);
}

struct cell {
	char label[160], text[256];
};
#define MAX_CELLS 48

/* A record's cells, labelled and in their units: its scalars, and one level
 * into objects (terms.cable -> "terms cable"). */
static size_t record_cells(const json_t *row, struct cell *out, size_t max)
{
	const char *k, *k2;
	json_t *v, *v2;
	size_t n = 0;
	json_object_foreach((json_t *)row, k, v) {
		if (json_is_object(v)) {
			json_object_foreach(v, k2, v2) {
				char key[160];
				if (n == max)
					return n;
				snprintf(key, sizeof(key), "%s.%s", k, k2);
				rp_cert_label(key, out[n].label, sizeof(out[n].label));
				rp_cert_kv_text(k2, v2, out[n].text, sizeof(out[n].text));
				n++;
			}
			continue;
		}
		if (n == max)
			return n;
		rp_cert_label(k, out[n].label, sizeof(out[n].label));
		rp_cert_kv_text(k, v, out[n].text, sizeof(out[n].text));
		n++;
	}
	return n;
}

/* Records as a table: a row each; a few records of many fields (a link's
 * headroom terms) turned on their side, a row per field, so the page stays
 * within 1280 px. */
static void records_html(FILE *f, const json_t *v)
{
	size_t nrec = json_array_size(v), n = 0, i;
	json_t *r;
	struct cell(*c)[MAX_CELLS] = nrec <= 8 ? calloc(8, sizeof(*c)) : NULL;
	if (c) {
		json_array_foreach(v, i, r) {
			size_t k = record_cells(r, c[i], MAX_CELLS);
			n = k > n ? k : n;
		}
	}
	if (c && n > 8) {
		fputs("<table class='side'>", f);
		for (size_t k = 0; k < n; k++) {
			fputs("<tr><th>", f);
			rp_html_esc(f, c[0][k].label);
			fputs("</th>", f);
			for (size_t j = 0; j < nrec; j++) {
				fputs("<td>", f);
				rp_html_esc(f, c[j][k].text);
				fputs("</td>", f);
			}
			fputs("</tr>", f);
		}
		fputs("</table>\n", f);
		free(c);
		return;
	}
	free(c);
	struct cell row[MAX_CELLS];
	fputs("<table><tr>", f);
	n = record_cells(json_array_get(v, 0), row, MAX_CELLS);
	for (size_t k = 0; k < n; k++) {
		fputs("<th>", f);
		rp_html_esc(f, row[k].label);
		fputs("</th>", f);
	}
	fputs("</tr>", f);
	json_array_foreach(v, i, r) {
		n = record_cells(r, row, MAX_CELLS);
		fputs("<tr>", f);
		for (size_t k = 0; k < n; k++) {
			fputs("<td>", f);
			rp_html_esc(f, row[k].text);
			fputs("</td>", f);
		}
		fputs("</tr>", f);
	}
	fputs("</table>\n", f);
}

/* The measured values: scalars as a list, lists of records as tables. */
static void measured_html(FILE *f, const json_t *m)
{
	const char *k;
	json_t *v;
	char buf[512], label[128];
	bool any = false;
	json_object_foreach((json_t *)m, k, v) {
		if (json_is_array(v) && json_is_object(json_array_get(v, 0)))
			continue;
		rp_cert_label(k, label, sizeof(label));
		rp_cert_kv_text(k, v, buf, sizeof(buf));
		fputs(any ? "<li>" : "<p>Measured:</p><ul class='m'><li>", f);
		rp_html_esc(f, label);
		fputs(": ", f);
		rp_html_esc(f, buf);
		fputs("</li>", f);
		any = true;
	}
	if (any)
		fputs("</ul>\n", f);
	json_object_foreach((json_t *)m, k, v) {
		if (!json_is_array(v) || !json_is_object(json_array_get(v, 0)))
			continue;
		rp_cert_label(k, label, sizeof(label));
		fputs("<p>Measured, ", f);
		rp_html_esc(f, label);
		fputs(":</p>", f);
		records_html(f, v);
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
	rp_html_esc(f, str(e, "title"));
	fputs("</h2>\n", f);
	if (json_is_string(json_object_get(e, "reason"))) {
		fputs(strcmp(v, "MARGINAL") == 0 ? "<p class='why'>Marginal: " : "<p class='why'>Skipped: ", f);
		rp_html_esc(f, str(e, "reason"));
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
		rp_html_esc(f, str(cause, "code"));
		fputs("): ", f);
		rp_html_esc(f, str(cause, "text"));
		fputs(".</p>\n", f);
	}
	if (json_array_size(json_object_get(e, "criteria"))) {
		fputs("<table><tr><th>criterion</th><th>wanted</th><th>measured</th><th></th></tr>\n", f);
		json_array_foreach(json_object_get(e, "criteria"), i, c) {
			bool ok = json_is_true(json_object_get(c, "pass"));
			rp_cert_value_text(json_object_get(c, "got"), got, sizeof(got));
			fputs("<tr><td>", f);
			rp_html_esc(f, str(c, "name"));
			fputs("</td><td>", f);
			rp_html_esc(f, str(c, "want"));
			fputs("</td><td>", f);
			rp_html_esc(f, got);
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
			rp_html_esc(f, str(r, "label"));
			fprintf(f, " (%.3f ms virtual)<br><code>", (double)json_integer_value(json_object_get(r, "elapsed_ns")) / 1e6);
			rp_html_esc(f, str(r, "traffic"));
			fputs("</code></li>", f);
		}
		fputs("</ul></details>\n", f);
	}
	fputs("</section>\n", f);
}

/* The fix, near the top: the --set lines that make every test pass and the
 * whole command with them. */
static void fix_html(FILE *f, const json_t *res, const json_t *s)
{
	size_t i;
	json_t *x;
	if (!json_is_true(json_object_get(s, "found"))) {
		fputs("<div class='fix'><b>Fix</b>: no setting of the knobs tried passes every test. ", f);
		rp_html_esc(f, str(s, "note"));
		fputs(" (<a href='#suggest'>what was tried</a>)</div>\n", f);
		return;
	}
	fputs("<div class='fix'><b>Fix</b>: with these settings every test passes (<a href='#suggest'>how they were "
	      "found</a>):<pre>roceprobe certify ", f);
	rp_html_esc(f, str(json_object_get(res, "profile"), "path"));
	json_array_foreach(json_object_get(res, "sets"), i, x) {
		if (!json_string_value(x) || rp_cert_set_replaced(json_string_value(x), json_object_get(s, "sets")))
			continue;
		fputs(" --set ", f);
		rp_html_esc(f, json_string_value(x));
	}
	json_array_foreach(json_object_get(s, "sets"), i, x) {
		fputs(" \\\n    --set ", f);
		rp_html_esc(f, json_string_value(x) ? json_string_value(x) : "");
	}
	fputs("</pre></div>\n", f);
}

static void suggest_html(FILE *f, const json_t *s)
{
	size_t i, j;
	json_t *st, *x;
	fputs("<section id='suggest'><h2>How the suggestion was found</h2><ul>", f);
	json_array_foreach(json_object_get(s, "steps"), i, st) {
		char b[512], a[512];
		rp_cert_value_text(json_object_get(st, "before"), b, sizeof(b));
		rp_cert_value_text(json_object_get(st, "after"), a, sizeof(a));
		fprintf(f, "<li>test %d (", (int)json_integer_value(json_object_get(st, "test")));
		rp_html_esc(f, str(st, "name"));
		fputs("): ", f);
		rp_html_esc(f, json_is_string(json_object_get(st, "chosen")) ? str(st, "chosen") : "nothing found");
		fputs("; tried:", f);
		json_array_foreach(json_object_get(st, "tried"), j, x) {
			fputs(j ? ", " : " ", f);
			rp_html_esc(f, str(x, "set"));
			fputc(' ', f);
			rp_html_esc(f, str(x, "verdict"));
		}
		fputs("<br>before: ", f);
		rp_html_esc(f, b);
		fputs("<br>after: ", f);
		rp_html_esc(f, a);
		fputs("</li>", f);
	}
	fputs("</ul></section>\n", f);
}

/* What ran, so a reader can run it again: profile, every --set, version, date, engine. */
static void ran_html(FILE *f, const json_t *res)
{
	size_t i;
	json_t *x, *env = json_object_get(res, "environment");
	const json_t *prof = json_object_get(res, "profile");
	char wall[48];
	rp_cert_fmt_ns(json_number_value(json_object_get(env, "wall_s")) * 1e9, wall, sizeof(wall));
	fputs("<table class='ran'><tr><th>profile</th><td>", f);
	rp_html_esc(f, str(prof, "name"));
	fputs(" (<code>", f);
	rp_html_esc(f, str(prof, "path"));
	fputs("</code>)</td></tr>\n<tr><th>settings</th><td>", f);
	if (!json_array_size(json_object_get(res, "sets")))
		fputs("none: the profile as written", f);
	json_array_foreach(json_object_get(res, "sets"), i, x) {
		fputs(i ? "<br><code>--set " : "<code>--set ", f);
		rp_html_esc(f, json_string_value(x) ? json_string_value(x) : "");
		fputs("</code>", f);
	}
	fputs("</td></tr>\n<tr><th>engine</th><td>", f);
	rp_html_esc(f, strcmp(str(res, "engine"), "lab") == 0 ? "lab (the embedded virtual-time fabric)" : str(res, "engine"));
	fputs("</td></tr>\n<tr><th>roceprobe</th><td>", f);
	rp_html_esc(f, str(env, "roceprobe"));
	fputs("</td></tr>\n<tr><th>date</th><td>", f);
	rp_html_esc(f, str(env, "started"));
	fputs(" on ", f);
	rp_html_esc(f, str(env, "hostname"));
	fprintf(f, ", %s of wall time%s</td></tr></table>\n", wall,
		json_is_true(json_object_get(res, "interrupted")) ? ", interrupted: the tests after the last were not run" : "");
}

static const char css[] =
	"body{font:14px/1.4 system-ui,sans-serif;max-width:1180px;margin:2em auto;padding:0 16px;color:#222}"
	"table{border-collapse:collapse;margin:.5em 0;max-width:100%}td,th{border:1px solid #ccc;padding:3px 8px;"
	"text-align:left;vertical-align:top;overflow-wrap:break-word}table.verdicts td:nth-child(-n+3){white-space:nowrap}"
	"table.side th{background:#f5f5f5}table.ran th{background:#f5f5f5;width:7em}"
	".fix{background:#e8f5e9;border-left:4px solid #2e7d32;padding:6px 10px;margin:.5em 0}"
	"pre{white-space:pre-wrap;overflow-wrap:anywhere;margin:.3em 0}svg{max-width:100%;height:auto}"
	".gr{stroke:#eee}.zero{font-size:13px;fill:#555}"
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
	rp_html_esc(f, str(prof, "name"));
	fprintf(f, "</title><style>%s</style></head><body>\n<h1><span class='v %s'>%s</span> roceprobe certify: ", css, v, v);
	rp_html_esc(f, str(prof, "name"));
	fprintf(f, "</h1>\n<p class='counts'>%d passed, %d failed, %d marginal, %d skipped.</p>\n",
		(int)json_integer_value(json_object_get(counts, "pass")), (int)json_integer_value(json_object_get(counts, "fail")),
		(int)json_integer_value(json_object_get(counts, "marginal")),
		(int)json_integer_value(json_object_get(counts, "skip")));
	ran_html(f, res);
	if (json_is_object(json_object_get(res, "suggest")))
		fix_html(f, res, json_object_get(res, "suggest"));
	if (!json_is_true(json_object_get(res, "certified")))
		fprintf(f, "<p class='cause'><b>Not certified</b>: %d of %d tests judged; certified needs test 1 (or every "
			   "test --only asked for) judged and every verdict PASS (a SKIP or a MARGINAL is not).</p>\n",
			(int)json_integer_value(json_object_get(res, "judged")),
			(int)json_integer_value(json_object_get(res, "asked")));
	fputs("<table class='verdicts'><tr><th>#</th><th>test</th><th>verdict</th><th>why, and the likely cause</th></tr>\n", f);
	json_array_foreach(json_object_get(res, "tests"), i, e) {
		json_t *cause = json_object_get(e, "cause");
		int id = (int)json_integer_value(json_object_get(e, "id"));
		fprintf(f, "<tr><td>%d</td><td><a href='#t%d'>%s</a></td><td class='%s'>%s</td><td>", id, id, str(e, "name"),
			str(e, "verdict"), str(e, "verdict"));
		rp_html_esc(f, json_is_string(json_object_get(e, "reason")) ? str(e, "reason") : json_is_object(cause) ? str(cause, "text") : "");
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
