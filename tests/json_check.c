/* json_check.c — a test program (tests/json.sh): reads one JSON document on
 * standard input and checks it against ugc-analyze(1)'s JSON convention,
 * independently of the code that wrote it:
 *   - it is valid JSON (RFC 8259: strings, numbers, literals, nesting), one
 *     value and nothing after it but white space;
 *   - the top level is an object whose first keys are "format_version": 1
 *     and "command": COMMAND (the first argument);
 *   - every key is snake_case: [a-z0-9_]+, starting with a letter;
 *   - every object holding "items" (a listing) also holds "total" and
 *     "shown", integers with shown == the number of items <= total.
 * With --cut, at least one listing must have shown < total (a --limit cut
 * it).  Prints nothing and exits 0 when all hold; else one line saying
 * what failed and where (byte offset), exit 1.
 *
 * Nesting is bounded (MAX_DEPTH): the tool's deepest JSON is a dominator
 * tree printed to --depth 1000, two levels a tree level. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 4096

typedef struct parser {
	const char *s;
	size_t n, at;
	int cut_seen;
	char err[256];
} parser;

static int fail(parser *p, const char *what)
{
	if (!p->err[0])
		snprintf(p->err, sizeof p->err, "offset %zu: %s", p->at, what);
	return -1;
}

static void ws(parser *p)
{
	while (p->at < p->n && strchr(" \t\r\n", p->s[p->at]))
		p->at++;
}

static int lit(parser *p, const char *word)
{
	size_t k = strlen(word);
	if (p->n - p->at < k || memcmp(p->s + p->at, word, k) != 0)
		return fail(p, "not a JSON value");
	p->at += k;
	return 0;
}

/* A string; its raw text (escapes kept) into OUT when OUT is given. */
static int string(parser *p, char *out, size_t cap)
{
	if (p->at >= p->n || p->s[p->at] != '"')
		return fail(p, "expected a string");
	size_t start = ++p->at;
	while (p->at < p->n && p->s[p->at] != '"') {
		unsigned char c = (unsigned char)p->s[p->at];
		if (c < 0x20)
			return fail(p, "a control character in a string");
		if (c == '\\') {
			p->at++;
			if (p->at >= p->n || !strchr("\"\\/bfnrtu", p->s[p->at]))
				return fail(p, "a bad escape");
			if (p->s[p->at] == 'u') {
				for (int k = 1; k <= 4; k++)
					if (p->at + k >= p->n || !isxdigit((unsigned char)p->s[p->at + k]))
						return fail(p, "a bad \\u escape");
				p->at += 4;
			}
		}
		p->at++;
	}
	if (p->at >= p->n)
		return fail(p, "an unterminated string");
	if (out) {
		size_t len = p->at - start < cap - 1 ? p->at - start : cap - 1;
		memcpy(out, p->s + start, len);
		out[len] = '\0';
	}
	p->at++;
	return 0;
}

/* A number; *INTEGER says whether it is a plain non-negative integer, *V its value then. */
static int number(parser *p, int *integer, long long *v)
{
	size_t start = p->at;
	if (p->at < p->n && p->s[p->at] == '-')
		p->at++;
	if (p->at >= p->n || !isdigit((unsigned char)p->s[p->at]))
		return fail(p, "not a JSON value");
	if (p->s[p->at] == '0' && p->at + 1 < p->n && isdigit((unsigned char)p->s[p->at + 1]))
		return fail(p, "a number with a leading zero");
	while (p->at < p->n && isdigit((unsigned char)p->s[p->at]))
		p->at++;
	*integer = p->s[start] != '-';
	if (p->at < p->n && p->s[p->at] == '.') {
		*integer = 0;
		p->at++;
		if (p->at >= p->n || !isdigit((unsigned char)p->s[p->at]))
			return fail(p, "a bad fraction");
		while (p->at < p->n && isdigit((unsigned char)p->s[p->at]))
			p->at++;
	}
	if (p->at < p->n && (p->s[p->at] == 'e' || p->s[p->at] == 'E')) {
		*integer = 0;
		p->at++;
		if (p->at < p->n && (p->s[p->at] == '+' || p->s[p->at] == '-'))
			p->at++;
		if (p->at >= p->n || !isdigit((unsigned char)p->s[p->at]))
			return fail(p, "a bad exponent");
		while (p->at < p->n && isdigit((unsigned char)p->s[p->at]))
			p->at++;
	}
	*v = strtoll(p->s + start, NULL, 10);
	return 0;
}

static int value(parser *p, int depth, size_t *count_if_array);

static int snake_case(const char *k)
{
	if (!islower((unsigned char)k[0]))
		return 0;
	for (const char *c = k; *c; c++)
		if (!islower((unsigned char)*c) && !isdigit((unsigned char)*c) && *c != '_')
			return 0;
	return 1;
}

static int object(parser *p, int depth)
{
	p->at++; /* '{' */
	int has_items = 0, has_total = 0, has_shown = 0;
	long long total = -1, shown = -1;
	size_t items = 0;
	ws(p);
	if (p->at < p->n && p->s[p->at] == '}') {
		p->at++;
		return 0;
	}
	for (;;) {
		char key[128];
		ws(p);
		size_t key_at = p->at;
		if (string(p, key, sizeof key))
			return -1;
		if (!snake_case(key)) {
			p->at = key_at;
			char msg[200];
			snprintf(msg, sizeof msg, "key \"%s\" is not snake_case", key);
			return fail(p, msg);
		}
		ws(p);
		if (p->at >= p->n || p->s[p->at] != ':')
			return fail(p, "expected ':'");
		p->at++;
		ws(p);
		int is_total = strcmp(key, "total") == 0, is_shown = strcmp(key, "shown") == 0;
		if ((is_total || is_shown) && p->at < p->n && (isdigit((unsigned char)p->s[p->at]) || p->s[p->at] == '-')) {
			int integer;
			long long v;
			if (number(p, &integer, &v))
				return -1;
			if (!integer)
				return fail(p, "a listing's total or shown is not an integer");
			if (is_total)
				has_total = 1, total = v;
			else
				has_shown = 1, shown = v;
		} else if (strcmp(key, "items") == 0) {
			if (p->at >= p->n || p->s[p->at] != '[')
				return fail(p, "\"items\" is not an array");
			has_items = 1;
			if (value(p, depth + 1, &items))
				return -1;
		} else if (value(p, depth + 1, NULL)) {
			return -1;
		}
		ws(p);
		if (p->at < p->n && p->s[p->at] == ',') {
			p->at++;
			continue;
		}
		if (p->at < p->n && p->s[p->at] == '}') {
			p->at++;
			break;
		}
		return fail(p, "expected ',' or '}'");
	}
	if (has_items) {
		char msg[200];
		if (!has_total || !has_shown)
			return fail(p, "a listing (an object with \"items\") lacks \"total\" or \"shown\"");
		if ((long long)items != shown || shown > total) {
			snprintf(msg, sizeof msg, "a listing with %zu items says shown %lld of total %lld", items, shown, total);
			return fail(p, msg);
		}
		p->cut_seen |= shown < total;
	}
	return 0;
}

static int value(parser *p, int depth, size_t *count_if_array)
{
	if (depth > MAX_DEPTH)
		return fail(p, "nested too deep");
	ws(p);
	if (p->at >= p->n)
		return fail(p, "the document ends early");
	char c = p->s[p->at];
	if (c == '{')
		return object(p, depth);
	if (c == '[') {
		size_t count = 0;
		p->at++;
		ws(p);
		if (p->at < p->n && p->s[p->at] == ']') {
			p->at++;
		} else {
			for (;;) {
				if (value(p, depth + 1, NULL))
					return -1;
				count++;
				ws(p);
				if (p->at < p->n && p->s[p->at] == ',') {
					p->at++;
					continue;
				}
				if (p->at < p->n && p->s[p->at] == ']') {
					p->at++;
					break;
				}
				return fail(p, "expected ',' or ']'");
			}
		}
		if (count_if_array)
			*count_if_array = count;
		return 0;
	}
	if (c == '"')
		return string(p, NULL, 0);
	if (c == 't')
		return lit(p, "true");
	if (c == 'f')
		return lit(p, "false");
	if (c == 'n')
		return lit(p, "null");
	int integer;
	long long v;
	return number(p, &integer, &v);
}

int main(int argc, char **argv)
{
	int want_cut = argc > 2 && strcmp(argv[2], "--cut") == 0;
	if (argc < 2 || (argc > 2 && !want_cut)) {
		fprintf(stderr, "usage: json-check COMMAND [--cut] < DOCUMENT\n");
		return 2;
	}
	size_t cap = 1 << 16, n = 0;
	char *s = malloc(cap);
	for (size_t got; s && (got = fread(s + n, 1, cap - n, stdin)) > 0;) {
		n += got;
		if (n == cap) {
			char *t = realloc(s, cap *= 2);
			if (!t) {
				free(s);
				s = NULL;
			}
			s = t;
		}
	}
	if (!s) {
		fprintf(stderr, "json-check: out of memory\n");
		return 2;
	}
	parser p = {s, n, 0, 0, ""};
	char head[256];
	int len = snprintf(head, sizeof head, "{\"format_version\":1,\"command\":\"%s\"", argv[1]);
	if (n < (size_t)len || memcmp(s, head, (size_t)len) != 0)
		fail(&p, "the document does not begin {\"format_version\":1,\"command\":\"COMMAND\"");
	else if (value(&p, 0, NULL) == 0) {
		ws(&p);
		if (p.at != n)
			fail(&p, "text after the document");
		else if (want_cut && !p.cut_seen)
			fail(&p, "no listing was cut (shown < total), though --limit asked");
	}
	free(s);
	if (p.err[0]) {
		printf("json-check %s: %s\n", argv[1], p.err);
		return 1;
	}
	return 0;
}
