/* rules.c — the rules file parser (rules.h, ugc-rules(5)): a line is split
 * into words (blanks between; '...' or "..." quotes a word with blanks or a
 * '#'; '#' starting a word begins a comment), and the words must be one of
 * the four rule forms exactly.  Strict: the first fault stops the parse. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/rules.h"

#define MAX_WORDS 8

/* The line being parsed, for the messages. */
typedef struct ctx {
	const char *file;
	uint32_t line;
	char *err;
	size_t errsize;
} ctx;

static int fail(ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(ctx *c, const char *fmt, ...)
{
	int k = snprintf(c->err, c->errsize, "%s:%u: ", c->file, c->line);
	if (k >= 0 && (size_t)k < c->errsize) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(c->err + k, c->errsize - (size_t)k, fmt, ap);
		va_end(ap);
	}
	return -1;
}

/* Split LINE (NUL-terminated, changed in place) into at most MAX_WORDS
 * words; *N their count.  -1 after fail(). */
static int split(ctx *c, char *line, char **w, int *n)
{
	*n = 0;
	char *p = line;
	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == '\r')
			p++;
		if (!*p || *p == '#')
			return 0;
		if (*n == MAX_WORDS)
			return fail(c, "too many words for a rule (a name with blanks is quoted: 'A B')");
		if (*p == '\'' || *p == '"') {
			char q = *p++;
			char *end = strchr(p, q);
			if (!end)
				return fail(c, "a quote (%c) that is not closed", q);
			*end = 0;
			w[(*n)++] = p;
			p = end + 1;
			if (*p && *p != ' ' && *p != '\t' && *p != '\r')
				return fail(c, "a closing quote must end its word");
			continue;
		}
		w[(*n)++] = p;
		while (*p && *p != ' ' && *p != '\t' && *p != '\r')
			p++;
		if (*p)
			*p++ = 0;
	}
}

/* A decimal number "D[.D]" at S scaled by UNIT into *OUT (exact for
 * integers; a fraction rounds down); the rest of S in *END.  -1 when S does
 * not start with a digit or the value passes 2^63. */
static int scaled(const char *s, uint64_t unit, const char **end, uint64_t *out)
{
	if (*s < '0' || *s > '9')
		return -1;
	uint64_t ip = 0, fnum = 0, fden = 1;
	for (; *s >= '0' && *s <= '9'; s++) {
		if (ip > (UINT64_C(1) << 62) / 10)
			return -1;
		ip = ip * 10 + (uint64_t)(*s - '0');
	}
	if (*s == '.') {
		s++;
		if (*s < '0' || *s > '9')
			return -1;
		for (; *s >= '0' && *s <= '9'; s++)
			if (fden < 1000000000) { /* nine decimals are plenty */
				fnum = fnum * 10 + (uint64_t)(*s - '0');
				fden *= 10;
			}
	}
	if (ip && unit > (UINT64_C(1) << 63) / ip)
		return -1;
	uint64_t v = ip * unit;
	/* fnum / fden * unit, with fnum < fden <= 1e9 and unit <= 2^40 */
	uint64_t frac = unit >= fden ? fnum * (unit / fden) + fnum * (unit % fden) / fden
				     : (fnum * unit) / fden;
	if (v + frac > (UINT64_C(1) << 63))
		return -1;
	*out = v + frac;
	*end = s;
	return 0;
}

int rules_parse_size(const char *s, uint64_t *out)
{
	static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
	/* the unit is what follows the number */
	const char *u = s;
	while ((*u >= '0' && *u <= '9') || *u == '.')
		u++;
	uint64_t unit = 0;
	if (!*u)
		unit = 1;
	for (int k = 0; k < 5 && !unit; k++)
		if (strcmp(u, units[k]) == 0)
			unit = UINT64_C(1) << (10 * k);
	const char *end;
	if (!unit || scaled(s, unit, &end, out) || end != u)
		return -1;
	if (unit == 1 && strchr(s, '.')) /* a fraction of a byte */
		return -1;
	return 0;
}

/* A count: digits only. */
static int parse_count_word(const char *s, uint64_t *out)
{
	const char *end;
	if (scaled(s, 1, &end, out) || *end || strchr(s, '.'))
		return -1;
	return 0;
}

/* SUBJECT at W[0..]: "total", or "class|package|finding NAME"; the words
 * it took in *USED. */
static int subject(ctx *c, char **w, int n, const char *const *kinds, int nkinds, rule *r, int *used)
{
	if (n < 1)
		return fail(c, "missing what the rule is about: class NAME, package NAME, finding KIND, total or leak-group");
	if (strcmp(w[0], "total") == 0 || strcmp(w[0], "leak-group") == 0) {
		r->subject = w[0][0] == 't' ? SUBJ_TOTAL : SUBJ_LEAK_GROUP;
		*used = 1;
		return 0;
	}
	if (strcmp(w[0], "class") == 0)
		r->subject = SUBJ_CLASS;
	else if (strcmp(w[0], "package") == 0)
		r->subject = SUBJ_PACKAGE;
	else if (strcmp(w[0], "finding") == 0)
		r->subject = SUBJ_FINDING;
	else
		return fail(c, "unknown subject '%s' (class NAME, package NAME, finding KIND, total or leak-group)", w[0]);
	if (n < 2 || !w[1][0])
		return fail(c, "%s needs a name", w[0]);
	if (r->subject == SUBJ_FINDING) {
		int k = 0;
		while (k < nkinds && strcmp(kinds[k], w[1]) != 0)
			k++;
		if (k == nkinds)
			return fail(c, "unknown finding kind '%s' (ugc-analyze findings --help lists them)", w[1]);
	}
	if (!(r->name = strdup(w[1])))
		return fail(c, "out of memory");
	*used = 2;
	return 0;
}

static int measure(ctx *c, char **w, int n, rule *r)
{
	if (n < 1)
		return fail(c, "missing the measure: retained or count");
	if (strcmp(w[0], "retained") == 0)
		r->measure = MEASURE_RETAINED;
	else if (strcmp(w[0], "count") == 0)
		r->measure = MEASURE_COUNT;
	else
		return fail(c, "unknown measure '%s' (retained or count)", w[0]);
	if (r->subject == SUBJ_FINDING && r->measure != MEASURE_COUNT)
		return fail(c, "findings have a count, not retained bytes");
	return 0;
}

/* "<= LIMIT" at W[0..N): a size, a count or (growth) a percent. */
static int limit(ctx *c, char **w, int n, rule *r)
{
	if (n < 1 || strcmp(w[0], "<=") != 0)
		return fail(c, "expected '<=' and a limit%s%s", n ? ", not " : "", n ? w[0] : "");
	if (n < 2)
		return fail(c, "missing the limit after '<='");
	if (n > 2)
		return fail(c, "unexpected '%s' after the limit", w[2]);
	const char *s = w[1];
	size_t len = strlen(s);
	if (r->kind == RULE_GROWTH && len > 1 && s[len - 1] == '%') {
		const char *end;
		uint64_t v;
		if (scaled(s, 100, &end, &v) || end != s + len - 1 || v > 100000000)
			return fail(c, "malformed percent '%s' (like 5%% or 2.5%%)", s);
		r->percent = 1;
		r->limit = v;
		return 0;
	}
	if (r->measure == MEASURE_RETAINED ? rules_parse_size(s, &r->limit) : parse_count_word(s, &r->limit))
		return fail(c, r->measure == MEASURE_RETAINED ? "malformed size '%s' (bytes, or with B, KiB, MiB, GiB, TiB: 1.5GiB)"
				 : "malformed count '%s' (a whole number)", s);
	return 0;
}

/* One line's words into R. */
static int parse_rule(ctx *c, char **w, int n, const char *const *kinds, int nkinds, rule *r)
{
	int used = 0;
	if (strcmp(w[0], "budget") == 0 || strcmp(w[0], "growth") == 0) {
		r->kind = w[0][0] == 'b' ? RULE_BUDGET : RULE_GROWTH;
		if (subject(c, w + 1, n - 1, kinds, nkinds, r, &used) || measure(c, w + 1 + used, n - 1 - used, r))
			return -1;
		if (r->subject == SUBJ_LEAK_GROUP && r->kind != RULE_BUDGET)
			return fail(c, "leak-group takes a budget only (budget leak-group retained|count <= LIMIT)");
		return limit(c, w + 2 + used, n - 2 - used, r);
	}
	if (strcmp(w[0], "forbid") == 0) {
		r->kind = RULE_FORBID;
		if (n < 2 || strcmp(w[1], "finding") != 0)
			return fail(c, "forbid takes 'finding KIND'");
		if (subject(c, w + 1, n - 1, kinds, nkinds, r, &used))
			return -1;
		if (n > 3)
			return fail(c, "unexpected '%s' after the finding kind", w[3]);
		r->measure = MEASURE_COUNT;
		return 0;
	}
	if (strcmp(w[0], "trend") == 0) {
		r->kind = RULE_TREND;
		if (subject(c, w + 1, n - 1, kinds, nkinds, r, &used) || measure(c, w + 1 + used, n - 1 - used, r))
			return -1;
		if (r->subject == SUBJ_LEAK_GROUP)
			return fail(c, "leak-group takes a budget only (budget leak-group retained|count <= LIMIT)");
		char **t = w + 2 + used;
		int m = n - 2 - used;
		if (m < 1 || strcmp(t[0], "grows") != 0)
			return fail(c, "a trend is 'grows < N builds'");
		if (m < 2 || strcmp(t[1], "<") != 0)
			return fail(c, "expected '<' after grows");
		if (m < 3 || parse_count_word(t[2], &r->limit) || r->limit < 2 || r->limit > 1000000)
			return fail(c, "a trend needs a number of builds from 2 to 1000000%s%s", m >= 3 ? ", not " : "",
				    m >= 3 ? t[2] : "");
		if (m < 4 || strcmp(t[3], "builds") != 0)
			return fail(c, "expected 'builds' after the number");
		if (m > 4)
			return fail(c, "unexpected '%s' after builds", t[4]);
		return 0;
	}
	return fail(c, "unknown rule '%s' (budget, growth, forbid or trend)", w[0]);
}

void rules_free(rules *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->v[i].name);
		free(r->v[i].text);
	}
	free(r->v);
	*r = (rules){0};
}

int rules_parse(const char *text, size_t len, const char *file, const char *const *kinds, int nkinds, rules *out,
		char *err, size_t errsize)
{
	*out = (rules){0};
	ctx c = {file, 0, err, errsize};
	size_t cap = 0;
	char *buf = NULL;
	int rc = 0;
	for (size_t at = 0; at < len && rc == 0;) {
		const char *nl = memchr(text + at, '\n', len - at);
		size_t ll = nl ? (size_t)(nl - (text + at)) : len - at;
		c.line++;
		if (memchr(text + at, 0, ll)) {
			rc = fail(&c, "a NUL byte (a rules file is text)");
			break;
		}
		char *line = malloc(ll + 1);
		if (!line) {
			rc = fail(&c, "out of memory");
			break;
		}
		memcpy(line, text + at, ll);
		line[ll] = 0;
		at += ll + 1;
		free(buf);
		buf = line;
		char *w[MAX_WORDS];
		int n;
		if ((rc = split(&c, line, w, &n)) || n == 0)
			continue;
		/* the text as written: from the first word to the end of the last */
		if (out->n == cap) {
			size_t nc = cap ? cap * 2 : 16;
			rule *nv = realloc(out->v, nc * sizeof *nv);
			if (!nv) {
				rc = fail(&c, "out of memory");
				break;
			}
			out->v = nv;
			cap = nc;
		}
		rule *r = &out->v[out->n];
		*r = (rule){.line = c.line};
		if (parse_rule(&c, w, n, kinds, nkinds, r)) {
			free(r->name);
			rc = -1;
			break;
		}
		/* the words joined by one blank, a word quoted again where it must
		 * be (empty, with blanks, or starting with a quote or '#'): such a
		 * word was quoted, so it holds at most one kind of quote, and the
		 * text parses back to the same rule */
		size_t tl = 0;
		for (int k = 0; k < n; k++)
			tl += strlen(w[k]) + 3;
		if (!(r->text = malloc(tl + 1))) {
			free(r->name);
			rc = fail(&c, "out of memory");
			break;
		}
		char *p = r->text;
		for (int k = 0; k < n; k++) {
			int quote = !w[k][0] || strpbrk(w[k], " \t\r") || strchr("'\"#", w[k][0]);
			const char *q = !quote ? "" : strchr(w[k], '\'') ? "\"" : "'";
			p += sprintf(p, "%s%s%s%s", k ? " " : "", q, w[k], q);
		}
		out->n++;
		out->need_baseline |= r->kind == RULE_GROWTH;
		out->need_history |= r->kind == RULE_TREND;
		out->need_leaks |= r->subject == SUBJ_LEAK_GROUP;
	}
	free(buf);
	if (rc)
		rules_free(out);
	return rc;
}
