/* util.c — helpers shared by the commands: errors, help, formats, loading. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "snapshot.h"

int die(const char *fmt, ...)
{
	va_list ap;
	fputs("ugc-analyze: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 1;
}

int usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "ugc-analyze %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (see 'ugc-analyze %s --help')\n", cmd);
	return 2;
}

int wants_help(const char *cmd, int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			fputs(find_command(cmd)->usage, stdout);
			return 1;
		}
	return 0;
}

int parse_format(const char *s, int allow_csv, enum out_format *out)
{
	if (!s)
		return -1;
	if (strcmp(s, "text") == 0)
		*out = FMT_TEXT;
	else if (strcmp(s, "json") == 0)
		*out = FMT_JSON;
	else if (allow_csv && strcmp(s, "csv") == 0)
		*out = FMT_CSV;
	else
		return -1;
	return 0;
}

void json_str(FILE *fp, const char *s)
{
	fputc('"', fp);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(fp, "\\%c", *p);
		else if (*p < 0x20)
			fprintf(fp, "\\u%04x", *p);
		else
			fputc(*p, fp);
	}
	fputc('"', fp);
}

void csv_str(FILE *fp, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, fp);
		return;
	}
	fputc('"', fp);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', fp);
		fputc(*s, fp);
	}
	fputc('"', fp);
}

long long parse_count(const char *s, long long max)
{
	if (!s || !*s)
		return -1;
	char *end;
	long long v = strtoll(s, &end, 10);
	if (*end || v < 0 || v > max || s[0] == '-' || s[0] == '+' || s[0] == ' ')
		return -1;
	return v;
}

int load_or_die(const char *path, heap *h)
{
	char err[SNAP_ERR_MAX];
	if (snapshot_load(path, h, err, sizeof err)) {
		fprintf(stderr, "ugc-analyze: %s\n", err);
		return 1;
	}
	return 0;
}
