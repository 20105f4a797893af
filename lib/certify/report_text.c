/* certify's text summary (certify.h): a line per test, the --suggest
 * outcome, the verdict and why a run without a FAIL is not certified, from
 * the result document, as report.md and report.html are. */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "certify.h"

/* Why a run without a FAIL is not certified, for the summary's line. */
static const char *not_certified_why(const json_t *doc)
{
	const char *v = json_string_value(json_object_get(doc, "verdict"));
	if (json_is_true(json_object_get(doc, "interrupted")))
		return " (interrupted)";
	if (strcmp(v, "FAIL") == 0)
		return " (a test failed)";
	if (strcmp(v, "MARGINAL") == 0)
		return " (a test passed with some seeds only: MARGINAL is not a pass)";
	return " (test 1 pfc-incast, or a test --only asked for, got no verdict: SKIP is not a pass)";
}

void rp_cert_print_summary(FILE *f, const json_t *doc, const char *dir)
{
	size_t i;
	json_t *e, *x;
	json_array_foreach(json_object_get(doc, "tests"), i, e) {
		json_t *cause = json_object_get(e, "cause");
		fprintf(f, "%-4s %d %-16s %s\n", json_string_value(json_object_get(e, "verdict")),
			(int)json_integer_value(json_object_get(e, "id")), json_string_value(json_object_get(e, "name")),
			json_is_string(json_object_get(e, "reason")) ? json_string_value(json_object_get(e, "reason"))
			: json_is_object(cause)			     ? json_string_value(json_object_get(cause, "text"))
								     : "");
	}
	json_t *s = json_object_get(doc, "suggest");
	if (json_is_object(s)) {
		if (json_is_true(json_object_get(s, "found"))) {
			fputs("\nsuggest: every test passes with", f);
			json_array_foreach(json_object_get(s, "sets"), i, x)
				fprintf(f, " --set %s", json_string_value(x));
			fputc('\n', f);
		} else {
			fputs("\nsuggest: no setting tried passes every test (report.md lists what was tried)\n", f);
		}
	}
	fprintf(f, "\ncertify: %s\n", json_string_value(json_object_get(doc, "verdict")));
	if (!json_is_true(json_object_get(doc, "certified")))
		fprintf(f, "not certified: %d of %d tests judged%s\n", (int)json_integer_value(json_object_get(doc, "judged")),
			(int)json_integer_value(json_object_get(doc, "asked")), not_certified_why(doc));
	fprintf(f, "result: %s/result.json\nreport: %s/report.md, %s/report.html\n", dir, dir, dir);
}
