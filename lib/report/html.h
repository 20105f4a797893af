/* Text into HTML: the one escape of the HTML reports (certify's report.html,
 * replay run's report.html). */
#ifndef RP_REPORT_HTML_H
#define RP_REPORT_HTML_H

#include <stdio.h>

/* s to f with <, >, & and " as entities (fit for text and quoted attributes). */
static inline void rp_html_esc(FILE *f, const char *s)
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

#endif
