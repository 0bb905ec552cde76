/* schema_text.c — statements of the schema text (see schema_text.h).  The
 * schema is our own text: names are plain words, never quoted. */
#include "sql/schema_text.h"

#include <ctype.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

/* The next word (letters, digits, '_') at *P into W (cut to CAP - 1 bytes), upper-cased when UP. */
static void word(const char **p, char *w, size_t cap, int up)
{
	const char *s = *p;
	size_t n = 0;
	while (isspace((unsigned char)*s))
		s++;
	while (isalnum((unsigned char)*s) || *s == '_') {
		if (n + 1 < cap)
			w[n++] = up ? (char)toupper((unsigned char)*s) : *s;
		s++;
	}
	w[n] = '\0';
	*p = s;
}

/* What S creates, from its first words. */
static void classify(schema_stmt *s)
{
	char w[64];
	const char *p = s->text;
	s->kind = SK_OTHER;
	s->name[0] = s->on[0] = '\0';
	word(&p, w, sizeof w, 1);
	if (strcmp(w, "CREATE") != 0)
		return;
	word(&p, w, sizeof w, 1);
	if (strcmp(w, "UNIQUE") == 0)
		word(&p, w, sizeof w, 1);
	enum schema_kind kind = strcmp(w, "TABLE") == 0 ? SK_TABLE : strcmp(w, "INDEX") == 0 ? SK_INDEX
			      : strcmp(w, "VIEW") == 0 ? SK_VIEW : SK_OTHER;
	if (kind == SK_OTHER)
		return;
	word(&p, s->name, sizeof s->name, 0);
	if (kind == SK_INDEX) {
		word(&p, w, sizeof w, 1);
		if (strcmp(w, "ON") != 0)
			return;
		word(&p, s->on, sizeof s->on, 0);
	}
	s->kind = kind;
}

int schema_next(const char **p, schema_stmt *s)
{
	const char *t = *p;
	while (isspace((unsigned char)*t))
		t++;
	if (!*t)
		return 0;
	/* the first ';' that completes a statement (one inside a string or a
	 * trigger body does not) */
	for (const char *semi = strchr(t, ';'); semi; semi = strchr(semi + 1, ';')) {
		size_t len = (size_t)(semi - t);
		char *copy = malloc(len + 2);
		if (!copy)
			return -2;
		memcpy(copy, t, len + 1);
		copy[len + 1] = '\0';
		int done = sqlite3_complete(copy);
		free(copy);
		if (done) {
			s->text = t;
			s->len = len;
			classify(s);
			*p = semi + 1;
			return 1;
		}
	}
	return -1;
}

int schema_table(const char *sql, const char *name, schema_stmt *s)
{
	int rc;
	while ((rc = schema_next(&sql, s)) > 0)
		if (s->kind == SK_TABLE && strcmp(s->name, name) == 0)
			return 0;
	return rc == -2 ? -2 : -1;
}

int schema_columns(const schema_stmt *s, char *out, size_t cap)
{
	const char *p = memchr(s->text, '(', s->len), *end = s->text + s->len;
	size_t n = 0;
	int depth = 1;
	out[0] = '\0';
	while (p && p < end && depth > 0) {
		/* P is at the '(' or ',' before a column definition or constraint */
		const char *q = p + 1;
		char w[64], up[64];
		word(&q, w, sizeof w, 0);
		const char *r = p + 1;
		word(&r, up, sizeof up, 1);
		int constraint = strcmp(up, "PRIMARY") == 0 || strcmp(up, "UNIQUE") == 0 || strcmp(up, "CHECK") == 0 ||
				 strcmp(up, "FOREIGN") == 0 || strcmp(up, "CONSTRAINT") == 0;
		if (!constraint && w[0]) {
			size_t l = strlen(w);
			if (n + l + 2 > cap)
				return -1;
			if (n)
				out[n++] = ',';
			memcpy(out + n, w, l + 1);
			n += l;
		}
		/* on to the next ',' at depth 1 */
		for (p = q; p < end; p++) {
			if (*p == '(')
				depth++;
			else if (*p == ')' && --depth == 0)
				break;
			else if (*p == ',' && depth == 1)
				break;
		}
	}
	return 0;
}
