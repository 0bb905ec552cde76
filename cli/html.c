/* html.c — HTML and script-safe JSON escaping (html.h). */
#include "cli/html.h"

#include <string.h>

static void text_n(FILE *fp, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		switch (c) {
		case '&': fputs("&amp;", fp); break;
		case '<': fputs("&lt;", fp); break;
		case '>': fputs("&gt;", fp); break;
		case '"': fputs("&quot;", fp); break;
		case '\'': fputs("&#39;", fp); break;
		default: putc(c, fp);
		}
	}
}

void html_text(FILE *fp, const char *s)
{
	text_n(fp, s ? s : "", s ? strlen(s) : 0);
}

void html_text_cut(FILE *fp, const char *s, size_t max)
{
	if (!s)
		return;
	size_t n = strlen(s);
	if (n <= max) {
		text_n(fp, s, n);
		return;
	}
	while (max > 0 && ((unsigned char)s[max] & 0xC0) == 0x80) /* not inside a UTF-8 sequence */
		max--;
	text_n(fp, s, max);
	fputs("\xE2\x80\xA6", fp); /* … */
}

void html_json_str(FILE *fp, const char *s)
{
	putc('"', fp);
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
		unsigned c = *p;
		if (c == '"' || c == '\\')
			fprintf(fp, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", fp);
		else if (c < 0x20 || c == '<' || c == '>' || c == '&' || c == 0x7F)
			fprintf(fp, "\\u%04x", c);
		else
			putc((int)c, fp);
	}
	putc('"', fp);
}
