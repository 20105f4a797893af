/* report.md and report.html of `replay run` (fidelity.h): what result.json
 * says, for people. The HTML is one file: inline CSS, each capture point's
 * paused fraction per bin as an inline SVG, original and reproduction
 * overlaid; nothing fetched. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fidelity.h"

#define MAX_PLOTS 16

static const char *str(const json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));
	return s ? s : "";
}

static double num(const json_t *o, const char *k)
{
	return json_number_value(json_object_get(o, k));
}

static const json_t *symptom(const json_t *res, const char *name)
{
	size_t i;
	json_t *s;
	json_array_foreach(json_object_get(res, "symptoms"), i, s)
		if (!strcmp(str(s, "name"), name))
			return s;
	return NULL;
}

static void sets_line(FILE *f, const json_t *res)
{
	size_t i;
	json_t *v;
	fputs("--set:", f);
	if (!json_array_size(json_object_get(res, "sets")))
		fputs(" none", f);
	json_array_foreach(json_object_get(res, "sets"), i, v)
		fprintf(f, " %s", json_string_value(v));
}

/* A value as people read it: sets and counts whole, the rest to 4 figures. */
static void value(FILE *f, const json_t *s, const char *k)
{
	double v = num(s, k);
	if (v == floor(v) && fabs(v) < 1e15)
		fprintf(f, "%.0f", v);
	else
		fprintf(f, "%.4g", v);
}

void rp_replay_report_md(FILE *f, const json_t *res)
{
	size_t i;
	json_t *s, *x;
	const json_t *rep = json_object_get(res, "reproduction");
	fprintf(f, "# replay run: %s\n\n", str(res, "verdict"));
	fprintf(f, "Incident: `%s` (its profile.yaml and incident.json). Reproduction: engine `%s`, ",
		str(res, "incident"), str(res, "engine"));
	sets_line(f, res);
	fprintf(f, "; captured at %zu points into `%s`, measured by the code `replay infer` runs: `%s`.\n\n",
		json_array_size(json_object_get(rep, "captures")), str(rep, "dir"), str(rep, "incident"));
	fputs("| symptom | kind | original | reproduction | distance | tolerance | verdict |\n"
	      "|---|---|---|---|---|---|---|\n", f);
	json_array_foreach(json_object_get(res, "symptoms"), i, s) {
		fprintf(f, "| %s%s | %s | ", str(s, "name"), json_is_true(json_object_get(s, "in_incident")) ? "" : " (not in "
			"the incident)", str(s, "kind"));
		value(f, s, "original");
		fputs(" | ", f);
		value(f, s, "reproduction");
		fprintf(f, " | %.4f | %.4g | %s |\n", num(s, "distance"), num(s, "tolerance"), str(s, "verdict"));
	}
	fputs("\nDistances: relative error |r - o| / o for numbers (o = 0: 0 when r = 0, else 1), normalised L1 "
	      "sum |o - r| / (sum o + sum r) for the paused fraction per bin, 1 - Jaccard for sets; REPRODUCED "
	      "within the tolerance, PARTLY within twice it, else NOT (docs/replay.md).\n", f);
	fputs("\n## Goodput per flow (Gbit/s)\n\n| flow | original | reproduction | distance |\n|---|---|---|---|\n", f);
	json_array_foreach(json_object_get(symptom(res, "goodput"), "flows"), i, x)
		fprintf(f, "| %s | %.4f | %.4f | %.4f |\n", str(x, "flow"), num(x, "original"), num(x, "reproduction"),
			num(x, "distance"));
	fputs("\n## Paused time per capture point and priority\n\n| point | original paused ns | reproduction paused ns "
	      "| distance |\n|---|---|---|---|\n", f);
	json_array_foreach(json_object_get(symptom(res, "paused_timeline"), "points"), i, x)
		fprintf(f, "| %s prio %d | %.0f | %.0f | %.4f |\n", str(x, "node"), (int)num(x, "prio"),
			num(x, "original_paused_ns"), num(x, "reproduction_paused_ns"), num(x, "distance"));
	for (int k = 0; k < 2; k++) {
		const json_t *sy = symptom(res, k ? "pause_order" : "victims");
		fprintf(f, "\n## %s\n\n", k ? "Pause order (points paused; A < B: A paused a bin or more before B)" :
					      "Victim flows");
		for (int side = 0; side < 2; side++) {
			fprintf(f, "- %s:", side ? "reproduction" : "original");
			const json_t *set = json_object_get(sy, side ? "reproduction_set" : "original_set");
			if (!json_array_size(set))
				fputs(" none", f);
			json_array_foreach(set, i, x)
				fprintf(f, "%s %s", i ? "," : "", json_string_value(x));
			fputc('\n', f);
		}
	}
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
		else
			fputc(*s, f);
	}
}

#define W 640.0
#define H 200.0
#define L 50.0
#define B 28.0

/* One series as a step line: its bin k at slot k + at of n slots across the plot. */
static void steps(FILE *f, const json_t *bins, long at, size_t n, const char *colour, const char *dash)
{
	fprintf(f, "<polyline fill='none' stroke='%s' stroke-width='1.5' %s points='", colour, dash);
	double xw = (W - L - 10) / (double)(n ? n : 1);
	for (size_t k = 0; k < json_array_size(bins); k++) {
		double y = json_number_value(json_array_get(bins, k)), x = (double)((long)k + at);
		y = y < 0 ? 0 : y > 1 ? 1 : y;
		double py = H - B - (H - B - 10) * y;
		fprintf(f, "%.1f,%.1f %.1f,%.1f ", L + xw * x, py, L + xw * (x + 1), py);
	}
	fputs("'/>", f);
}

/* shift: the reproduction's bin k is the original's k + shift (aligned_bins). */
static void plot(FILE *f, const json_t *pt, double bin_ns, long shift)
{
	const json_t *a = json_object_get(pt, "original_bins"), *b = json_object_get(pt, "reproduction_bins");
	long na = (long)json_array_size(a), nb = (long)json_array_size(b);
	long k0 = shift < 0 ? shift : 0, k1 = na > nb + shift ? na : nb + shift;
	size_t n = (size_t)(k1 - k0);
	fputs("<h3>", f);
	esc(f, str(pt, "node"));
	fprintf(f, " prio %d: distance %.4f</h3>\n<svg xmlns='http://www.w3.org/2000/svg' width='%.0f' height='%.0f'>",
		(int)num(pt, "prio"), num(pt, "distance"), W, H);
	fprintf(f, "<line x1='%g' y1='%g' x2='%g' y2='%g' class='ax'/><line x1='%g' y1='10' x2='%g' y2='%g' class='ax'/>",
		L, H - B, W - 10, H - B, L, L, H - B);
	for (int k = 0; k <= 4; k++) {
		double y = H - B - (H - B - 10) * k / 4.0;
		fprintf(f, "<line x1='%g' y1='%g' x2='%g' y2='%g' class='gr'/><text x='%g' y='%g' text-anchor='end'>%d%%</text>",
			L, y, W - 10, y, L - 4, y + 4, k * 25);
	}
	fprintf(f, "<text x='%g' y='%g'>%.3g ms</text><text x='%g' y='%g' text-anchor='end'>%.3g ms (bins of %.0f us)</text>",
		L, H - 8, (double)k0 * bin_ns / 1e6, W - 10, H - 8, (double)k1 * bin_ns / 1e6, bin_ns / 1e3);
	steps(f, a, -k0, n, "#1f77b4", "");
	steps(f, b, shift - k0, n, "#d62728", "stroke-dasharray='5,3'");
	fputs("</svg>\n", f);
}

void rp_replay_report_html(FILE *f, const json_t *res)
{
	size_t i;
	json_t *s, *x;
	const json_t *rep = json_object_get(res, "reproduction");
	fputs("<!DOCTYPE html>\n<html><head><meta charset='utf-8'><title>replay run</title><style>"
	      "body{font-family:sans-serif;margin:2em;max-width:60em}table{border-collapse:collapse}"
	      "td,th{border:1px solid #ccc;padding:2px 8px;text-align:right}td:first-child{text-align:left}"
	      ".REPRODUCED{color:#2ca02c}.PARTLY{color:#ff7f0e}.NOT{color:#d62728}"
	      "svg text{font-size:11px}.ax{stroke:#000}.gr{stroke:#ddd}</style></head><body>\n", f);
	fprintf(f, "<h1>replay run: <span class='%s'>%s</span></h1>\n<p>Incident: <code>", str(res, "verdict"),
		str(res, "verdict"));
	esc(f, str(res, "incident"));
	fputs("</code>. Reproduction: engine ", f);
	esc(f, str(res, "engine"));
	fputs(", ", f);
	sets_line(f, res);
	fprintf(f, "; captured at %zu points, measured by the code <code>replay infer</code> runs.</p>\n",
		json_array_size(json_object_get(rep, "captures")));
	fputs("<table><tr><th>symptom</th><th>kind</th><th>original</th><th>reproduction</th><th>distance</th>"
	      "<th>tolerance</th><th>verdict</th></tr>\n", f);
	json_array_foreach(json_object_get(res, "symptoms"), i, s) {
		fprintf(f, "<tr><td>%s%s</td><td>%s</td><td>", str(s, "name"),
			json_is_true(json_object_get(s, "in_incident")) ? "" : " (not in the incident)", str(s, "kind"));
		value(f, s, "original");
		fputs("</td><td>", f);
		value(f, s, "reproduction");
		fprintf(f, "</td><td>%.4f</td><td>%.4g</td><td class='%s'>%s</td></tr>\n", num(s, "distance"),
			num(s, "tolerance"), str(s, "verdict"), str(s, "verdict"));
	}
	fputs("</table>\n<h2>Paused fraction per bin: original (solid blue) and reproduction (dashed red)</h2>\n", f);
	const json_t *pts = json_object_get(symptom(res, "paused_timeline"), "points");
	double bin = num(res, "bin_ns");
	long shift = (long)json_integer_value(json_object_get(symptom(res, "paused_timeline"), "aligned_bins"));
	if (!json_array_size(pts))
		fputs("<p>No capture point was paused, in the original or the reproduction.</p>\n", f);
	json_array_foreach(pts, i, x)
		if (i < MAX_PLOTS)
			plot(f, x, bin, shift);
	if (json_array_size(pts) > MAX_PLOTS)
		fprintf(f, "<p>%zu more points in result.json.</p>\n", json_array_size(pts) - MAX_PLOTS);
	fputs("<h2>Goodput per flow (Gbit/s)</h2>\n<table><tr><th>flow</th><th>original</th><th>reproduction</th>"
	      "<th>distance</th></tr>\n", f);
	json_array_foreach(json_object_get(symptom(res, "goodput"), "flows"), i, x) {
		fputs("<tr><td>", f);
		esc(f, str(x, "flow"));
		fprintf(f, "</td><td>%.4f</td><td>%.4f</td><td>%.4f</td></tr>\n", num(x, "original"), num(x, "reproduction"),
			num(x, "distance"));
	}
	fputs("</table>\n</body></html>\n", f);
}
