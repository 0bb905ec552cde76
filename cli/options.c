/* options.c — the option parser and --help printer every command uses
 * (the syntax is described in options.h). */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli/options.h"
#include "base/base.h"

const char *const format_choices[3] = {"text", "json", "csv"};
const char *const mode_choices[2] = {"game", "editor"};

/* One parse: the command, where values go, where messages go. */
typedef struct parser {
	const command *cmd;
	char *values;
	FILE *err;
} parser;

/* The message quotes option values and names as given: shown in display
 * form (base/escape.h), so a control byte in them cannot drive the
 * terminal.  CMD is a command's own name. */
static void vusage(FILE *err, const char *cmd, const char *fmt, va_list ap)
{
	char msg[1024];
	vsnprintf(msg, sizeof msg, fmt, ap);
	progress_phase(NULL); /* the message starts a clean line */
	fprintf(err, "ugc-analyze %s: ", cmd);
	display_put(err, msg);
	fprintf(err, " (see 'ugc-analyze %s --help')\n", cmd);
}

int usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vusage(stderr, cmd, fmt, ap);
	va_end(ap);
	return 2;
}

static int usage(const parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int usage(const parser *p, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vusage(p->err, p->cmd->name, fmt, ap);
	va_end(ap);
	return OPT_EXIT_USAGE;
}

/* How the message names O: its long form when it has one. */
static const char *opt_name(const option *o, char *buf, size_t size)
{
	if (o->long_name)
		snprintf(buf, size, "--%s", o->long_name);
	else
		snprintf(buf, size, "-%c", o->short_name);
	return buf;
}

/* "a, b or c" */
static void choice_list(const option *o, char *buf, size_t size)
{
	size_t at = 0;
	buf[0] = '\0';
	for (int k = 0; k < o->nchoices && at < size; k++) {
		const char *sep = k == 0 ? "" : k == o->nchoices - 1 ? " or " : ", ";
		int n = snprintf(buf + at, size - at, "%s%s", sep, o->choices[k]);
		if (n < 0)
			break;
		at += (size_t)n;
	}
}

/* A decimal number, digits only; -1 when S is not one or is out of range. */
static int parse_number(const char *s, long long min, long long max, long long *out)
{
	if (*s < '0' || *s > '9')
		return -1;
	long long v = 0;
	for (; *s; s++) {
		int d = *s - '0';
		if (d < 0 || d > 9 || v > max / 10 || v * 10 > max - d)
			return -1;
		v = v * 10 + d;
	}
	if (v < min)
		return -1;
	*out = v;
	return 0;
}

/* Store ARG (NULL for a flag; NEGATED for --no-NAME) into O's field. */
static int take(const parser *p, const option *o, const char *arg, int negated)
{
	void *field = p->values + o->offset;
	char name[64], what[1024];
	opt_name(o, name, sizeof name);
	switch (o->kind) {
	case OPTK_FLAG:
		*(int *)field = !negated;
		return 0;
	case OPTK_SET:
		*(int *)field = (int)o->defval;
		return 0;
	case OPTK_INT:
		if (parse_number(arg, o->min, o->max, (long long *)field))
			return usage(p, "%s takes a number from %lld to %lld, not '%s'", name, o->min, o->max, arg);
		return 0;
	case OPTK_STRING:
		*(const char **)field = arg;
		return 0;
	case OPTK_CHOICE:
		for (int k = 0; k < o->nchoices; k++)
			if (strcmp(arg, o->choices[k]) == 0) {
				*(int *)field = k;
				return 0;
			}
		choice_list(o, what, sizeof what);
		return usage(p, "%s is %s, not '%s'", name, what, arg);
	case OPTK_CALLBACK: {
		const char *takes = o->callback(o, field, arg);
		return takes ? usage(p, "%s %s, not '%s'", name, takes, arg) : 0;
	}
	default:
		return 0;
	}
}

static int takes_value(const option *o)
{
	return o->kind == OPTK_INT || o->kind == OPTK_STRING || o->kind == OPTK_CHOICE || o->kind == OPTK_CALLBACK;
}

static int is_option(const option *o)
{
	return o->kind != OPTK_GROUP;
}

/* A long option at ARGV[*I] ("--" stripped: NAME, maybe "name=value"). */
static int parse_long(const parser *p, int argc, char **argv, int *i, const char *name)
{
	const char *eq = strchr(name, '=');
	size_t len = eq ? (size_t)(eq - name) : strlen(name);
	int negated = 0;
	const option *o;
	for (int pass = 0; pass < 2; pass++) {
		for (o = p->cmd->options; o->kind != OPTK_END; o++)
			if (is_option(o) && o->long_name && strlen(o->long_name) == len &&
			    strncmp(o->long_name, name, len) == 0 && (!negated || o->kind == OPTK_FLAG))
				goto found;
		/* second pass: --no-NAME for a flag NAME */
		if (pass == 0 && len > 3 && strncmp(name, "no-", 3) == 0) {
			name += 3;
			len -= 3;
			negated = 1;
		} else {
			break;
		}
	}
	/* did you mean: the nearest long option of this command */
	const char *names[128];
	size_t n = 0;
	for (o = p->cmd->options; o->kind != OPTK_END && n < 128; o++)
		if (is_option(o) && o->long_name)
			names[n++] = o->long_name;
	char want[64];
	const char *given = argv[*i] + 2; /* "--" */
	size_t wl = strcspn(given, "=");
	const char *near = NULL;
	if (wl < sizeof want) {
		memcpy(want, given, wl);
		want[wl] = '\0';
		near = closest_name(want, names, n);
	}
	if (near)
		return usage(p, "unknown option '%s'; did you mean '--%s'?", argv[*i], near);
	return usage(p, "unknown option '%s'", argv[*i]);
found:
	if (!takes_value(o)) {
		if (eq)
			return usage(p, "'%.*s' takes no value", (int)(strchr(argv[*i], '=') - argv[*i]), argv[*i]);
		return take(p, o, NULL, negated);
	}
	if (eq)
		return take(p, o, eq + 1, 0);
	if (*i + 1 >= argc)
		return usage(p, "--%s needs a value", o->long_name);
	return take(p, o, argv[++*i], 0);
}

/* One or more short options at ARGV[*I] ("-" stripped). */
static int parse_short(const parser *p, int argc, char **argv, int *i, const char *s)
{
	for (; *s; s++) {
		const option *o;
		for (o = p->cmd->options; o->kind != OPTK_END; o++)
			if (is_option(o) && o->short_name && o->short_name == *s)
				break;
		if (o->kind == OPTK_END)
			return usage(p, "unknown option '-%c'", *s);
		if (!takes_value(o)) {
			if (take(p, o, NULL, 0))
				return OPT_EXIT_USAGE;
			continue;
		}
		if (s[1])
			return take(p, o, s + 1, 0); /* -oVALUE */
		if (*i + 1 >= argc)
			return usage(p, "-%c needs a value", *s);
		return take(p, o, argv[++*i], 0);
	}
	return 0;
}

int parse_options_to(const command *cmd, int argc, char **argv, void *values, const char **operands, FILE *out,
		     FILE *err)
{
	parser p = {cmd, values, err};
	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			print_help(out, cmd);
			return OPT_EXIT_HELP;
		}
	int n = 0, only_operands = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		int rc = 0;
		if (!only_operands && strcmp(a, "--") == 0) {
			only_operands = 1;
			continue;
		}
		if (!only_operands && a[0] == '-' && a[1] == '-')
			rc = parse_long(&p, argc, argv, &i, a + 2);
		else if (!only_operands && a[0] == '-' && a[1])
			rc = parse_short(&p, argc, argv, &i, a + 1);
		else if (n < cmd->max_operands)
			operands[n++] = a;
		else
			return usage(&p, "too many arguments: '%s'%s%s", a, cmd->operands_hint ? " " : "",
				     cmd->operands_hint ? cmd->operands_hint : "");
		if (rc)
			return rc;
	}
	return n;
}

int parse_options(const command *cmd, int argc, char **argv, void *values, const char **operands)
{
	return parse_options_to(cmd, argc, argv, values, operands, stdout, stderr);
}

/* How the help shows O: "-q, --quiet", "--threads N", "-o DB". */
static int spec(const option *o, char *buf, size_t size)
{
	char shrt[8] = "", lng[64] = "";
	if (o->short_name)
		snprintf(shrt, sizeof shrt, "-%c%s", o->short_name, o->long_name ? ", " : "");
	if (o->long_name)
		snprintf(lng, sizeof lng, "--%s", o->long_name);
	return snprintf(buf, size, "%s%s%s%s", shrt, lng, o->argh ? " " : "", o->argh ? o->argh : "");
}

#define HELP_SPEC_MAX 22 /* wider option forms get a line of their own */

void print_help(FILE *fp, const command *cmd)
{
	fputs(cmd->synopsis, fp);
	if (cmd->about)
		fprintf(fp, "\n%s", cmd->about);
	char buf[128];
	int width = 0;
	for (const option *o = cmd->options; o->kind != OPTK_END; o++) {
		int w = is_option(o) ? spec(o, buf, sizeof buf) : 0;
		if (w <= HELP_SPEC_MAX && w > width)
			width = w;
	}
	int newline_before = 1; /* a blank line before the first option and each group */
	for (const option *o = cmd->options; o->kind != OPTK_END; o++) {
		if (!is_option(o)) {
			fprintf(fp, "\n%s\n", o->help);
			newline_before = 0;
			continue;
		}
		if (newline_before)
			fputc('\n', fp);
		newline_before = 0;
		int w = spec(o, buf, sizeof buf);
		fprintf(fp, "  %s", buf);
		if (w > width)
			fprintf(fp, "\n  %*s", width, "");
		else
			fprintf(fp, "%*s", width - w, "");
		/* each line of the help, indented to the column */
		if (!*o->help)
			fputc('\n', fp);
		for (const char *h = o->help; *h;) {
			const char *nl = strchr(h, '\n');
			int len = nl ? (int)(nl - h) : (int)strlen(h);
			fprintf(fp, "  %.*s\n", len, h);
			h += len + (nl != NULL);
			if (*h)
				fprintf(fp, "  %*s", width, "");
		}
	}
}
