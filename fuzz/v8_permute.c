/* v8_permute.c — a .heapsnapshot's fields in another order (see
 * v8_permute.h), through a small JSON scanner that finds values' spans and
 * never builds a tree: anything it does not follow makes it give up. */
#include "fuzz/v8_permute.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FAIL ((size_t)-1)
#define MAX_FIELDS 64

typedef struct span {
	size_t at, len;
} span;

typedef struct doc {
	const char *s;
	size_t n;
} doc;

static size_t skip_ws(const doc *d, size_t i)
{
	while (i < d->n && (d->s[i] == ' ' || d->s[i] == '\t' || d->s[i] == '\r' || d->s[i] == '\n'))
		i++;
	return i;
}

/* The end of the string starting at I (its opening quote), or FAIL. */
static size_t skip_string(const doc *d, size_t i)
{
	for (i++; i < d->n; i++) {
		if (d->s[i] == '\\')
			i++;
		else if (d->s[i] == '"')
			return i + 1;
	}
	return FAIL;
}

/* The end of the array or object starting at I, or FAIL. */
static size_t skip_nested(const doc *d, size_t i)
{
	size_t depth = 0;
	while (i < d->n) {
		char c = d->s[i];
		if (c == '"') {
			if ((i = skip_string(d, i)) == FAIL)
				return FAIL;
			continue;
		}
		if (c == '[' || c == '{')
			depth++;
		else if ((c == ']' || c == '}') && --depth == 0)
			return i + 1;
		i++;
	}
	return FAIL;
}

/* The end of the value starting at I, or FAIL. */
static size_t skip_value(const doc *d, size_t i)
{
	if (i >= d->n)
		return FAIL;
	if (d->s[i] == '"')
		return skip_string(d, i);
	if (d->s[i] == '[' || d->s[i] == '{')
		return skip_nested(d, i);
	size_t j = i;
	while (j < d->n && !strchr(",]} \t\r\n", d->s[j]))
		j++;
	return j > i ? j : FAIL;
}

/* The value of KEY in the object OBJ: 0 with it in *V, or -1 (not there,
 * there twice, a key with an escape, or not an object). */
static int member(const doc *d, span obj, const char *key, span *v)
{
	if (obj.len < 2 || d->s[obj.at] != '{')
		return -1;
	size_t i = skip_ws(d, obj.at + 1), end = obj.at + obj.len - 1, klen = strlen(key);
	int found = 0;
	while (i < end && d->s[i] == '"') {
		size_t ks = i, k = skip_string(d, i);
		if (k == FAIL || (i = skip_ws(d, k)) >= end || d->s[i] != ':')
			return -1;
		size_t at = skip_ws(d, i + 1), e = skip_value(d, at);
		if (e == FAIL || e > end)
			return -1;
		if (memchr(d->s + ks, '\\', k - ks)) /* a key with an escape may spell KEY */
			return -1;
		if (k - ks - 2 == klen && memcmp(d->s + ks + 1, key, klen) == 0) {
			if (found++)
				return -1;
			*v = (span){at, e - at};
		}
		if ((i = skip_ws(d, e)) < end && d->s[i] == ',')
			i = skip_ws(d, i + 1);
	}
	return found == 1 && i == end ? 0 : -1;
}

/* The elements of the array ARR into *EL (malloc'd): their count, or -1. */
static long elements(const doc *d, span arr, span **el)
{
	*el = NULL;
	if (arr.len < 2 || d->s[arr.at] != '[')
		return -1;
	size_t i = skip_ws(d, arr.at + 1), end = arr.at + arr.len - 1, n = 0, cap = 0;
	while (i < end) {
		size_t e = skip_value(d, i);
		if (e == FAIL || e > end)
			break;
		if (n == cap) {
			span *m = realloc(*el, (cap = cap ? 2 * cap : 64) * sizeof *m);
			if (!m)
				break;
			*el = m;
		}
		(*el)[n++] = (span){i, e - i};
		if ((i = skip_ws(d, e)) < end && d->s[i] != ',')
			break;
		if (i < end)
			i = skip_ws(d, i + 1);
	}
	if (i != end) {
		free(*el);
		*el = NULL;
		return -1;
	}
	return (long)n;
}

/* A replaced array: where it was, and its new text (malloc'd). */
typedef struct patch {
	span at;
	char *text;
	size_t len;
} patch;

/* The array of the N elements EL taken in groups of F (GROUPS of them),
 * each group in the order PERM, as new text. */
static int reorder(const doc *d, span arr, const span *el, size_t groups, size_t f, const unsigned *perm, patch *p)
{
	p->at = arr;
	p->len = 0;
	if (!(p->text = malloc(arr.len + 2)))
		return -1;
	p->text[p->len++] = '[';
	for (size_t g = 0; g < groups; g++)
		for (size_t j = 0; j < f; j++) {
			const span *e = &el[g * f + perm[j]];
			if (g || j)
				p->text[p->len++] = ',';
			memcpy(p->text + p->len, d->s + e->at, e->len);
			p->len += e->len;
		}
	p->text[p->len++] = ']';
	return 0;
}

static unsigned rnd(unsigned *state)
{
	*state = *state * 1103515245u + 12345u;
	return *state >> 16;
}

/* Are the strings EL[0..N-1] all different?  (One with an escape may
 * spell another: not known to be.) */
static int all_distinct(const doc *d, const span *el, size_t n)
{
	for (size_t a = 0; a < n; a++)
		if (memchr(d->s + el[a].at, '\\', el[a].len))
			return 0;
	for (size_t a = 0; a < n; a++)
		for (size_t b = a + 1; b < n; b++)
			if (el[a].len == el[b].len && memcmp(d->s + el[a].at, d->s + el[b].at, el[a].len) == 0)
				return 0;
	return 1;
}

/* The three patches of one kind ("node" or "edge"): its fields, its types
 * and its values, in an order from STATE.  0, or -1 (P left empty). */
static int permute_kind(const doc *d, span root, span meta, const char *kind, unsigned *state, patch p[3],
			int *distinct)
{
	char fk[16], tk[16];
	span fields, types, values, *f = NULL, *t = NULL, *v = NULL;
	snprintf(fk, sizeof fk, "%s_fields", kind);
	snprintf(tk, sizeof tk, "%s_types", kind);
	long nf, nt, nv;
	int rc = -1;
	if (member(d, meta, fk, &fields) || member(d, meta, tk, &types) ||
	    member(d, root, strcmp(kind, "node") == 0 ? "nodes" : "edges", &values))
		return -1;
	nf = elements(d, fields, &f);
	nt = elements(d, types, &t);
	nv = elements(d, values, &v);
	if (nf > 0 && nf <= MAX_FIELDS && nt == nf && nv >= 0 && nv % nf == 0) {
		unsigned perm[MAX_FIELDS];
		for (long j = 0; j < nf; j++)
			perm[j] = (unsigned)j;
		for (long j = nf - 1; j > 0; j--) {
			unsigned r = rnd(state) % (unsigned)(j + 1), x = perm[j];
			perm[j] = perm[r];
			perm[r] = x;
		}
		*distinct &= all_distinct(d, f, (size_t)nf);
		rc = reorder(d, fields, f, 1, (size_t)nf, perm, &p[0]) || reorder(d, types, t, 1, (size_t)nf, perm, &p[1]) ||
		     reorder(d, values, v, (size_t)(nv / nf), (size_t)nf, perm, &p[2]) ? -1 : 0;
	}
	free(f);
	free(t);
	free(v);
	for (int k = 0; rc && k < 3; k++) {
		free(p[k].text);
		p[k].text = NULL;
	}
	return rc;
}

static int by_place(const void *a, const void *b)
{
	const patch *x = a, *y = b;
	return x->at.at < y->at.at ? -1 : x->at.at > y->at.at;
}

/* IN with the patches P[0..N-1] (in any order) applied, into OUT: its size. */
static size_t apply(const doc *d, patch *p, size_t n, uint8_t *out)
{
	qsort(p, n, sizeof *p, by_place);
	size_t at = 0, len = 0;
	for (size_t k = 0; k < n; k++) {
		memcpy(out + len, d->s + at, p[k].at.at - at);
		len += p[k].at.at - at;
		memcpy(out + len, p[k].text, p[k].len);
		len += p[k].len;
		at = p[k].at.at + p[k].at.len;
	}
	memcpy(out + len, d->s + at, d->n - at);
	return len + d->n - at;
}

size_t v8_permute(const uint8_t *in, size_t size, uint8_t *out, unsigned seed, int *distinct)
{
	doc d = {(const char *)in, size};
	span root, snap, meta;
	size_t i = skip_ws(&d, 0), e = skip_value(&d, i);
	*distinct = 1;
	if (e == FAIL || d.s[i] != '{')
		return 0;
	root = (span){i, e - i};
	if (member(&d, root, "snapshot", &snap) || member(&d, snap, "meta", &meta))
		return 0;
	patch p[6] = {{{0, 0}, NULL, 0}};
	unsigned state = seed, which = seed % 3; /* nodes, edges or both */
	size_t n = 0;
	if (which != 1 && permute_kind(&d, root, meta, "node", &state, p, distinct) == 0)
		n += 3;
	if (which != 0 && permute_kind(&d, root, meta, "edge", &state, p + n, distinct) == 0)
		n += 3;
	size_t len = n ? apply(&d, p, n, out) : 0;
	for (size_t k = 0; k < 6; k++)
		free(p[k].text);
	return len;
}
