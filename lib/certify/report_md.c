/* report.md: the verdicts a person reads in a minute, then per test its
 * criteria, cause and runs. From the certify result document only. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cert_internal.h"

static const char *str(const json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));
	return s ? s : "";
}

/* A row's cells: its scalars, and one level into objects (terms.cable). */
static void row_cells(const json_t *row, bool header, FILE *f)
{
	const char *k, *k2;
	json_t *v, *v2;
	char buf[256], label[160], key[160];
	json_object_foreach((json_t *)row, k, v) {
		if (json_is_object(v)) {
			json_object_foreach(v, k2, v2) {
				snprintf(key, sizeof(key), "%s.%s", k, k2);
				rp_cert_label(key, label, sizeof(label));
				rp_cert_kv_text(k2, v2, buf, sizeof(buf));
				fprintf(f, " %s |", header ? label : buf);
			}
		} else {
			rp_cert_label(k, label, sizeof(label));
			rp_cert_kv_text(k, v, buf, sizeof(buf));
			fprintf(f, " %s |", header ? label : buf);
		}
	}
	fputc('\n', f);
}

static size_t cells(const json_t *row)
{
	const char *k;
	json_t *v;
	size_t n = 0;
	json_object_foreach((json_t *)row, k, v)
		n += json_is_object(v) ? json_object_size(v) : 1;
	return n;
}

/* The measured values: scalars as a list, lists of records as tables. */
static void measured_md(FILE *f, const json_t *m)
{
	const char *k;
	json_t *v, *r;
	size_t i;
	char buf[512], label[128];
	bool any = false;
	json_object_foreach((json_t *)m, k, v) {
		if (json_is_array(v) && json_is_object(json_array_get(v, 0)))
			continue;
		rp_cert_label(k, label, sizeof(label));
		rp_cert_kv_text(k, v, buf, sizeof(buf));
		fprintf(f, "%s- %s: %s\n", any ? "" : "Measured:\n", label, buf);
		any = true;
	}
	if (any)
		fputc('\n', f);
	json_object_foreach((json_t *)m, k, v) {
		if (!json_is_array(v) || !json_is_object(json_array_get(v, 0)))
			continue;
		rp_cert_label(k, label, sizeof(label));
		fprintf(f, "Measured, %s:\n\n|", label);
		row_cells(json_array_get(v, 0), true, f);
		fputc('|', f);
		for (size_t c = cells(json_array_get(v, 0)); c > 0; c--)
			fputs(" --- |", f);
		fputc('\n', f);
		json_array_foreach(v, i, r) {
			fputc('|', f);
			row_cells(r, false, f);
		}
		fputc('\n', f);
	}
}

static void test_md(FILE *f, const json_t *e)
{
	size_t i;
	json_t *c, *r;
	char got[512];
	fprintf(f, "\n## %d. %s: %s\n\n", (int)json_integer_value(json_object_get(e, "id")), str(e, "name"), str(e, "verdict"));
	fprintf(f, "%s.\n\n", str(e, "title"));
	bool marginal = strcmp(str(e, "verdict"), "MARGINAL") == 0;
	if (json_is_string(json_object_get(e, "reason")))
		fprintf(f, "**%s:** %s\n\n", marginal ? "Marginal" : "Skipped", str(e, "reason"));
	size_t k;
	json_t *sd;
	if (json_array_size(json_object_get(e, "seeds"))) {
		fputs("Seeds:", f);
		json_array_foreach(json_object_get(e, "seeds"), k, sd)
			fprintf(f, "%s %lld %s", k ? "," : "", (long long)json_integer_value(json_object_get(sd, "seed")),
				str(sd, "verdict"));
		fputs("\n\n", f);
	}
	json_t *cause = json_object_get(e, "cause");
	if (json_is_object(cause))
		fprintf(f, "**Likely cause** (`%s`): %s.\n\n", str(cause, "code"), str(cause, "text"));
	if (json_array_size(json_object_get(e, "criteria"))) {
		fputs("| criterion | wanted | measured | |\n| --- | --- | --- | --- |\n", f);
		json_array_foreach(json_object_get(e, "criteria"), i, c) {
			rp_cert_value_text(json_object_get(c, "got"), got, sizeof(got));
			fprintf(f, "| %s | %s | %s | %s |\n", str(c, "name"), str(c, "want"), got,
				json_is_true(json_object_get(c, "pass")) ? "ok" : "**no**");
		}
		fputc('\n', f);
	}
	measured_md(f, json_object_get(e, "measured"));
	json_t *runs = json_object_get(json_object_get(e, "evidence"), "runs");
	if (json_array_size(runs)) {
		fputs("Runs:\n", f);
		json_array_foreach(runs, i, r) {
			char sd[48] = "";
			if (json_is_integer(json_object_get(r, "seed")))
				snprintf(sd, sizeof(sd), ", seed %lld", (long long)json_integer_value(json_object_get(r, "seed")));
			fprintf(f, "- %s%s (%.3f ms virtual)\n", str(r, "label"), sd,
				(double)json_integer_value(json_object_get(r, "elapsed_ns")) / 1e6);
		}
	}
}

static void suggest_md(FILE *f, const json_t *s)
{
	size_t i, j;
	json_t *st, *x;
	fputs("\n## How the suggestion was found\n", f);
	json_array_foreach(json_object_get(s, "steps"), i, st) {
		fprintf(f, "\n- test %d (%s), cause `%s`: ", (int)json_integer_value(json_object_get(st, "test")),
			str(st, "name"), str(st, "cause"));
		if (json_is_string(json_object_get(st, "chosen")))
			fprintf(f, "`%s`", str(st, "chosen"));
		else
			fputs("nothing found", f);
		fputs("; tried:", f);
		json_array_foreach(json_object_get(st, "tried"), j, x)
			fprintf(f, " `%s` %s%s", str(x, "set"), str(x, "verdict"), j + 1 < json_array_size(json_object_get(st, "tried")) ? "," : "");
		char b[512], a[512];
		rp_cert_value_text(json_object_get(st, "before"), b, sizeof(b));
		rp_cert_value_text(json_object_get(st, "after"), a, sizeof(a));
		fprintf(f, "\n  - before: %s\n  - after: %s\n", b, a);
	}
}

static void write_md(FILE *f, const json_t *res)
{
	size_t i;
	json_t *e, *counts = json_object_get(res, "counts");
	const json_t *prof = json_object_get(res, "profile");
	json_t *env = json_object_get(res, "environment"), *x;
	fprintf(f, "# roceprobe certify: %s: %s\n\n", str(prof, "name"), str(res, "verdict"));
	fprintf(f, "%d passed, %d failed, %d marginal, %d skipped%s.\n\n",
		(int)json_integer_value(json_object_get(counts, "pass")),
		(int)json_integer_value(json_object_get(counts, "fail")),
		(int)json_integer_value(json_object_get(counts, "marginal")),
		(int)json_integer_value(json_object_get(counts, "skip")),
		json_is_true(json_object_get(res, "interrupted")) ? " (interrupted: the tests after the last are not run)" : "");
	fprintf(f, "| what ran | |\n| --- | --- |\n| profile | %s (`%s`) |\n| settings |", str(prof, "name"), str(prof, "path"));
	if (!json_array_size(json_object_get(res, "sets")))
		fputs(" none: the profile as written", f);
	json_array_foreach(json_object_get(res, "sets"), i, x)
		fprintf(f, "%s `--set %s`", i ? "," : "", json_string_value(x) ? json_string_value(x) : "");
	fprintf(f, " |\n| engine | %s |\n| roceprobe | %s |\n| date | %s on %s |\n\n", str(res, "engine"),
		str(env, "roceprobe"), str(env, "started"), str(env, "hostname"));
	json_t *s = json_object_get(res, "suggest");
	if (json_is_object(s) && json_is_true(json_object_get(s, "found"))) {
		fprintf(f, "**Fix**: with these settings every test passes:\n\n```\nroceprobe certify %s", str(prof, "path"));
		json_array_foreach(json_object_get(res, "sets"), i, x)
			if (json_string_value(x) && !rp_cert_set_replaced(json_string_value(x), json_object_get(s, "sets")))
				fprintf(f, " --set %s", json_string_value(x));
		json_array_foreach(json_object_get(s, "sets"), i, x)
			fprintf(f, " \\\n    --set %s", json_string_value(x) ? json_string_value(x) : "");
		fputs("\n```\n\n", f);
	} else if (json_is_object(s)) {
		fprintf(f, "**Fix**: no setting of the knobs tried passes every test. %s\n\n", str(s, "note"));
	}
	if (!json_is_true(json_object_get(res, "certified")))
		fprintf(f, "**Not certified**: %d of %d tests judged; certified needs test 1 (or every test --only asked "
			   "for) judged and every verdict PASS (a SKIP or a MARGINAL is not).\n\n",
			(int)json_integer_value(json_object_get(res, "judged")),
			(int)json_integer_value(json_object_get(res, "asked")));
	fputs("| # | test | verdict | why, and the likely cause |\n| --- | --- | --- | --- |\n", f);
	json_array_foreach(json_object_get(res, "tests"), i, e) {
		json_t *cause = json_object_get(e, "cause");
		fprintf(f, "| %d | %s | %s | %s |\n", (int)json_integer_value(json_object_get(e, "id")), str(e, "name"),
			str(e, "verdict"),
			json_is_string(json_object_get(e, "reason")) ? str(e, "reason") : json_is_object(cause) ? str(cause, "text") : "");
	}
	json_array_foreach(json_object_get(res, "tests"), i, e)
		test_md(f, e);
	if (json_is_object(json_object_get(res, "suggest")))
		suggest_md(f, json_object_get(res, "suggest"));
	fprintf(f, "\nThe numbers: result.json (docs/certify.md).\n");
}

int rp_cert_write_md(const json_t *res, const char *path, char *err, size_t errlen)
{
	return rp_cert_write_file(path, write_md, res, err, errlen);
}
