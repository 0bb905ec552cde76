/* v8_json.c — the V8 reader's byte-level JSON, over the chunk ring:
 * blanks, expected bytes, strings decoded to UTF-8 and cut on a character
 * boundary, integers, values skipped with their syntax checked (nesting on a
 * heap stack, never recursion), object members and string lists. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "snapshot/v8_stream.h"

/* ---- the byte-level parser ---- */

int v8r_skip_ws(rd *r)
{
	for (;;) {
		int c = v8r_peek(r);
		if (!is_ws(c))
			return c;
		r->pos++;
	}
}

/* At the end of the text: the offset named is the end's. */
int v8r_truncated(rd *r, const char *where)
{
	return v8r_fail(r, r->base + r->end, "unexpected end of the file %s", where);
}

int v8r_expect(rd *r, int want, const char *where)
{
	int c = v8r_skip_ws(r);
	if (c == want) {
		r->pos++;
		return 0;
	}
	if (c < 0)
		return v8r_truncated(r, where);
	return v8r_fail(r, v8r_at(r), "expected '%c' %s", want, where);
}

/* Append the UTF-8 form of code point CP to OUT if it fits in KEEP. */
static void put_cp(char *out, size_t *n, size_t keep, int *full, uint32_t cp)
{
	char b[4];
	size_t len;
	if (cp == 0 || (cp >= 0xD800 && cp <= 0xDFFF))
		cp = 0xFFFD; /* NUL and lone surrogates: the replacement character */
	if (cp < 0x80) {
		b[0] = (char)cp;
		len = 1;
	} else if (cp < 0x800) {
		b[0] = (char)(0xC0 | cp >> 6);
		b[1] = (char)(0x80 | (cp & 0x3F));
		len = 2;
	} else if (cp < 0x10000) {
		b[0] = (char)(0xE0 | cp >> 12);
		b[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
		b[2] = (char)(0x80 | (cp & 0x3F));
		len = 3;
	} else {
		b[0] = (char)(0xF0 | cp >> 18);
		b[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
		b[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
		b[3] = (char)(0x80 | (cp & 0x3F));
		len = 4;
	}
	if (*full || !out || *n + len > keep) {
		*full = 1;
		return;
	}
	memcpy(out + *n, b, len);
	*n += len;
}

size_t v8_utf8_cut(const char *s, size_t len, size_t max)
{
	if (len <= max)
		return len;
	size_t c = max;
	for (int k = 0; k < 3 && c > 0 && ((unsigned char)s[c] & 0xC0) == 0x80; k++)
		c--;
	return c;
}

/* Drop a UTF-8 sequence left incomplete at the end of S (after a cut). */
static size_t utf8_trim_tail(const char *s, size_t n)
{
	size_t k = n, cont = 0;
	while (k > 0 && cont < 3 && ((unsigned char)s[k - 1] & 0xC0) == 0x80) {
		k--;
		cont++;
	}
	if (k == 0)
		return n;
	unsigned char lead = (unsigned char)s[k - 1];
	size_t need = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
	return need > cont + 1 ? k - 1 : n;
}

static int hex4(rd *r, uint32_t *out)
{
	uint32_t v = 0;
	for (int k = 0; k < 4; k++) {
		int c = v8r_peek(r);
		if (c < 0)
			return v8r_truncated(r, "in a \\u escape");
		int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
			: c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
		if (d < 0)
			return v8r_fail(r, v8r_at(r), "bad \\u escape in a string (expected four hex digits)");
		v = v << 4 | (uint32_t)d;
		r->pos++;
	}
	*out = v;
	return 0;
}

/* Read a JSON string (the reader is at its opening quote), decoded to UTF-8.
 * The first KEEP bytes (whole characters) go to OUT (may be NULL); *LEN gets
 * their count and *CUT whether anything was left out. */
int v8r_string(rd *r, char *out, size_t keep, size_t *len, int *cut)
{
	size_t n = 0;
	int full = 0;
	uint32_t pending_high = 0; /* a high surrogate waiting for its low half */
	r->pos++;
	for (;;) {
		if (r->pos == r->end && v8r_fill(r) <= 0)
			return v8r_truncated(r, "in a string");
		const char *s = r->buf + r->pos, *e = r->buf + r->end, *q = s;
		if (!pending_high) {
			while (q < e && *q != '"' && *q != '\\' && (unsigned char)*q >= 0x20)
				q++;
			size_t run = (size_t)(q - s);
			if (run && out && !full) {
				size_t take = run;
				if (n + take > keep) {
					take = keep - n;
					full = 1;
				}
				memcpy(out + n, s, take);
				n += take;
			} else if (run) {
				full = 1;
			}
			r->pos += run;
			if (q == e)
				continue;
		}
		int c = (unsigned char)*q;
		if (c != '\\') {
			if (pending_high) {
				put_cp(out, &n, keep, &full, 0xFFFD);
				pending_high = 0;
				continue;
			}
			if (c == '"') {
				r->pos++;
				break;
			}
			/* JSON escapes every byte below 0x20 in a string; V8 does, and
			 * JSON.parse refuses one raw */
			return v8r_fail(r, v8r_at(r), "a raw control byte (0x%02x) in a string (not JSON: it must be escaped)",
					(unsigned)c);
		}
		r->pos++;
		c = v8r_peek(r);
		if (c < 0)
			return v8r_truncated(r, "in a string escape");
		r->pos++;
		uint32_t cp = 0;
		switch (c) {
		case '"': case '\\': case '/': cp = (uint32_t)c; break;
		case 'b': cp = '\b'; break;
		case 'f': cp = '\f'; break;
		case 'n': cp = '\n'; break;
		case 'r': cp = '\r'; break;
		case 't': cp = '\t'; break;
		case 'u':
			if (hex4(r, &cp))
				return -1;
			break;
		default:
			if (c > 0x20 && c < 0x7f)
				return v8r_fail(r, v8r_at(r) - 1, "bad escape '\\%c' in a string", c);
			return v8r_fail(r, v8r_at(r) - 1, "bad escape (byte 0x%02x after '\\') in a string", (unsigned)c);
		}
		if (pending_high) {
			if (cp >= 0xDC00 && cp <= 0xDFFF) {
				put_cp(out, &n, keep, &full, 0x10000 + ((pending_high - 0xD800) << 10) + (cp - 0xDC00));
				pending_high = 0;
				continue;
			}
			put_cp(out, &n, keep, &full, 0xFFFD);
			pending_high = 0;
		}
		if (cp >= 0xD800 && cp <= 0xDBFF)
			pending_high = cp;
		else
			put_cp(out, &n, keep, &full, cp);
	}
	if (pending_high)
		put_cp(out, &n, keep, &full, 0xFFFD);
	if (full && out)
		n = utf8_trim_tail(out, n);
	if (len)
		*len = n;
	if (cut)
		*cut = full;
	return 0;
}

/* A non-negative integer (the reader is at its first digit or blank). */
int v8r_uint(rd *r, const char *what, uint64_t *v)
{
	int c = v8r_skip_ws(r);
	uint64_t off = v8r_at(r), x = 0;
	int digits = 0, lead = c;
	while (c >= '0' && c <= '9') {
		if (++digits > 19)
			return v8r_fail(r, off, "%s: number too large", what);
		x = x * 10 + (uint64_t)(c - '0');
		r->pos++;
		c = v8r_peek(r);
	}
	if (digits == 0 || c == '.' || c == 'e' || c == 'E')
		return c < 0 && digits == 0 ? v8r_truncated(r, what)
					    : v8r_fail(r, off, "%s: expected a non-negative integer", what);
	if (digits > 1 && lead == '0')
		return v8r_fail(r, off, "%s: a number with a leading zero (not JSON)", what);
	*v = x;
	return 0;
}

/* The bytes of a JSON number: digits, '-', '+', '.', 'e' and 'E'. */
static const uint8_t number_byte[256] = {
	['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1, ['5'] = 1, ['6'] = 1, ['7'] = 1, ['8'] = 1, ['9'] = 1,
	['-'] = 1, ['+'] = 1, ['.'] = 1, ['e'] = 1, ['E'] = 1,
};

static int digit(unsigned char c) { return c >= '0' && c <= '9'; }

/* Is [S, E) one JSON number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
static int json_number(const unsigned char *s, const unsigned char *e)
{
	if (s < e && *s == '-')
		s++;
	if (s == e || !digit(*s))
		return 0;
	if (*s++ != '0')
		while (s < e && digit(*s))
			s++;
	if (s < e && *s == '.') {
		if (++s == e || !digit(*s))
			return 0;
		while (s < e && digit(*s))
			s++;
	}
	if (s < e && (*s == 'e' || *s == 'E')) {
		if (++s < e && (*s == '+' || *s == '-'))
			s++;
		if (s == e || !digit(*s))
			return 0;
		while (s < e && digit(*s))
			s++;
	}
	return s == e;
}

/* A number, the reader at its first byte; IN_ARRAY: also the numbers that
 * follow it, each right after a comma, in one tight loop over the buffer
 * (a snapshot's "locations" and "samples" are megabytes of them).  Each is
 * checked to be a JSON number (no leading zero, digits after a point or an
 * exponent); one the buffer ends inside is carried into the next fill
 * whole.  It stops at any other byte, which the caller's loop then takes.
 * 0, or -1 (reported). */
static int skip_numbers(rd *r, int in_array)
{
	for (;;) {
		const unsigned char *b = (const unsigned char *)r->buf;
		size_t p = r->pos, e = r->end; /* P: where the number being read starts */
		for (;;) {
			size_t q = p;
			while (q < e && digit(b[q]))
				q++;
			int plain = q > p && (b[p] != '0' || q - p == 1); /* a JSON integer: no second look */
			/* the common case in a run: such an integer, a comma, the next one's first digit */
			if (plain && in_array && q + 1 < e && b[q] == ',' && digit(b[q + 1])) {
				p = q + 1;
				continue;
			}
			while (q < e && number_byte[b[q]]) {
				q++;
				plain = 0;
			}
			if (q == e && !r->eof)
				break; /* the buffer ended inside this number: refill, keeping it */
			if (!plain && !json_number(b + p, b + q))
				return v8r_fail(r, r->base + p, "a number that is not JSON (a leading zero, or no digit "
						"after a sign, point or exponent)");
			if (!in_array || q + 1 >= e || b[q] != ',' || !(b[q + 1] == '-' || digit(b[q + 1]))) {
				r->pos = q;
				return 0;
			}
			p = q + 1;
		}
		r->pos = p;
		if (v8r_fill(r) < 0)
			return -1;
	}
}

/* Skip any JSON value, checking its syntax; nesting is kept on a heap stack. */
int v8r_skip_value(rd *r)
{
	char *stack = NULL;
	size_t depth = 0, cap = 0;
	int rc = -1;
	for (;;) {
		int c = v8r_skip_ws(r);
		if (c == '{' || c == '[') {
			if (depth == cap) {
				cap = cap ? cap * 2 : 64;
				char *s = realloc(stack, cap);
				if (!s) {
					v8r_fail(r, v8r_at(r), "out of memory");
					goto out;
				}
				stack = s;
			}
			stack[depth++] = c == '{' ? '}' : ']';
			r->pos++;
			c = v8r_skip_ws(r);
			if (c == stack[depth - 1]) {
				r->pos++;
				depth--;
				goto after;
			}
			if (stack[depth - 1] == '}') {
				if (c != '"') {
					c < 0 ? v8r_truncated(r, "in an object") : v8r_fail(r, v8r_at(r), "expected a member name");
					goto out;
				}
				if (v8r_string(r, NULL, 0, NULL, NULL) || v8r_expect(r, ':', "after a member name"))
					goto out;
			}
			continue;
		} else if (c == '"') {
			if (v8r_string(r, NULL, 0, NULL, NULL))
				goto out;
		} else if (c == '-' || (c >= '0' && c <= '9')) {
			if (skip_numbers(r, depth > 0 && stack[depth - 1] == ']'))
				goto out;
		} else if (c == 't' || c == 'f' || c == 'n') {
			const char *word = c == 't' ? "true" : c == 'f' ? "false" : "null";
			for (const char *w = word; *w; w++) {
				if (v8r_peek(r) != *w) {
					v8r_fail(r, v8r_at(r), "expected a JSON value");
					goto out;
				}
				r->pos++;
			}
		} else {
			c < 0 ? v8r_truncated(r, "where a value was expected") : v8r_fail(r, v8r_at(r), "expected a JSON value");
			goto out;
		}
	after:
		if (depth == 0)
			break;
		c = v8r_skip_ws(r);
		if (c == ',') {
			r->pos++;
			if (stack[depth - 1] == '}') {
				if (v8r_skip_ws(r) != '"') {
					v8r_peek(r) < 0 ? v8r_truncated(r, "in an object") : v8r_fail(r, v8r_at(r), "expected a member name");
					goto out;
				}
				if (v8r_string(r, NULL, 0, NULL, NULL) || v8r_expect(r, ':', "after a member name"))
					goto out;
			}
			continue;
		}
		if (c == stack[depth - 1]) {
			r->pos++;
			depth--;
			goto after;
		}
		c < 0 ? v8r_truncated(r, "in an array or object")
		      : v8r_fail(r, v8r_at(r), "expected ',' or '%c'", stack[depth - 1]);
		goto out;
	}
	rc = 0;
out:
	free(stack);
	return rc;
}

/* Members of an object, one at a time: returns 1 with the member's name in
 * KEY (cut to KEYCAP-1 bytes; *LONG set when cut) and the reader after the
 * colon, 0 after the closing brace, -1 on error.  *FIRST starts at 1. */
int v8r_next_member(rd *r, int *first, char *key, size_t keycap, int *longname, uint64_t *key_off)
{
	int c = v8r_skip_ws(r);
	if (!*first) {
		if (c == '}') {
			r->pos++;
			return 0;
		}
		if (c != ',')
			return c < 0 ? v8r_truncated(r, "in an object") : v8r_fail(r, v8r_at(r), "expected ',' or '}'");
		r->pos++;
		c = v8r_skip_ws(r);
	} else if (c == '}') {
		r->pos++;
		return 0;
	}
	*first = 0;
	if (c != '"')
		return c < 0 ? v8r_truncated(r, "in an object") : v8r_fail(r, v8r_at(r), "expected a member name");
	*key_off = v8r_at(r);
	size_t n;
	if (v8r_string(r, key, keycap - 1, &n, longname))
		return -1;
	key[n] = '\0';
	if (v8r_expect(r, ':', "after a member name"))
		return -1;
	return 1;
}

/* An array of strings, each cut to 255 bytes, at most MAX of them. */
int v8r_string_list(rd *r, const char *what, uint32_t max, char ***out, uint32_t *count)
{
	if (v8r_expect(r, '[', what))
		return -1;
	char **list = NULL;
	uint32_t n = 0;
	int c = v8r_skip_ws(r);
	if (c == ']') {
		r->pos++;
		goto done;
	}
	for (;;) {
		if (c != '"') {
			c < 0 ? v8r_truncated(r, what) : v8r_fail(r, v8r_at(r), "%s: expected a string", what);
			goto bad;
		}
		if (n == max) {
			v8r_fail(r, v8r_at(r), "%s: more than %u entries", what, max);
			goto bad;
		}
		char buf[256], **l = realloc(list, (n + 1) * sizeof *l);
		if (!l) {
			v8r_fail(r, v8r_at(r), "out of memory");
			goto bad;
		}
		list = l;
		size_t len;
		if (v8r_string(r, buf, sizeof buf - 1, &len, NULL))
			goto bad;
		buf[len] = '\0';
		if (!(list[n] = strdup(buf))) {
			v8r_fail(r, v8r_at(r), "out of memory");
			goto bad;
		}
		n++;
		c = v8r_skip_ws(r);
		if (c == ']') {
			r->pos++;
			break;
		}
		if (c != ',') {
			c < 0 ? v8r_truncated(r, what) : v8r_fail(r, v8r_at(r), "%s: expected ',' or ']'", what);
			goto bad;
		}
		r->pos++;
		c = v8r_skip_ws(r);
	}
done:
	*out = list;
	*count = n;
	return 0;
bad:
	for (uint32_t k = 0; k < n; k++)
		free(list[k]);
	free(list);
	return -1;
}

void v8r_free_list(char **l, uint32_t n)
{
	for (uint32_t k = 0; k < n; k++)
		free(l[k]);
	free(l);
}

/* A "*_types" member: an array whose first element lists the type names. */
int v8r_type_lists(rd *r, const char *what, v8_type_lists *out)
{
	memset(out, 0, sizeof *out);
	if (v8r_expect(r, '[', what))
		return -1;
	int c = v8r_skip_ws(r);
	if (c == ']') {
		r->pos++;
		return 0;
	}
	for (;;) {
		if (out->n == V8_MAX_FIELDS)
			return v8r_fail(r, v8r_at(r), "%s: more than %u entries", what, V8_MAX_FIELDS);
		uint32_t k = out->n++;
		if (c == '[' ? v8r_string_list(r, what, 255, &out->list[k], &out->count[k]) : v8r_skip_value(r))
			return -1;
		c = v8r_skip_ws(r);
		if (c == ']') {
			r->pos++;
			return 0;
		}
		if (c != ',')
			return c < 0 ? v8r_truncated(r, what) : v8r_fail(r, v8r_at(r), "%s: expected ',' or ']'", what);
		r->pos++;
		c = v8r_skip_ws(r);
	}
}

void v8r_free_type_lists(v8_type_lists *t)
{
	for (uint32_t k = 0; k < t->n; k++)
		v8r_free_list(t->list[k], t->count[k]);
	memset(t, 0, sizeof *t);
}

