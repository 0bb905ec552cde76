/* text_read.c — the .ugct reader (the format: ugc-snapshot(5) §1).
 *
 * One pass over the lines fills the heap's object columns directly (slots
 * grow as indexes appear) and collects "r" records in file order into
 * temporary columns.  At the end the references are turned into rows by
 * source and the heap invariants are checked.  Problems found only at the end
 * (a class named nowhere, an "r" from a missing object) are reported with the
 * line of the offending record, found by scanning the text again, so no line
 * numbers are kept per record. */
#include "snapshot/snapshot.h"
#include "base/base.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A dense object array wastes memory on holes; refuse arrays much sparser
 * than any engine makes (GUObjectArray reuses slots). */
#define SPARSE_SLACK (1u << 24)

typedef struct field {
	const char *s;
	size_t len;
} field;

typedef struct parser {
	const char *path;
	const char *data, *end;
	heap *h;
	char *err;
	size_t errsize;
	uint64_t line;
	char *scratch; /* percent-decoding buffer */
	size_t scratch_cap;
	/* "r" records in file order */
	obj_t *r_from, *r_to;
	uint32_t *r_prop;
	uint8_t *r_kind;
	size_t nr, r_cap;
	int seen_engine, seen_mode, seen_first, seen_label, seen_elim, seen_object;
	uint64_t end_line;   /* line of the end record, 0 when none (yet) */
	uint64_t end_count[4]; /* its counts: o, r, g and c records */
	/* flags field cache: dumpers repeat the same few FLAGS strings */
	struct flag_cache { char s[40]; uint8_t len; uint8_t traits; uint16_t iflags; uint32_t oflags; } fcache[256];
} parser;

static int fail(parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#include <stdarg.h>
static int fail(parser *p, const char *fmt, ...)
{
	int n = snprintf(p->err, p->errsize, "%s:%llu: ", p->path, (unsigned long long)p->line);
	va_list ap;
	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < p->errsize)
		vsnprintf(p->err + n, p->errsize - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

/* Show a field in an error message: at most 40 bytes, printable. */
static const char *show(field f, char *buf)
{
	size_t n = f.len > 40 ? 40 : f.len, k = 0;
	for (size_t i = 0; i < n; i++)
		buf[k++] = (f.s[i] >= 0x20 && f.s[i] < 0x7f) ? f.s[i] : '?';
	if (f.len > n) {
		memcpy(buf + k, "...", 3);
		k += 3;
	}
	buf[k] = '\0';
	return buf;
}

static int next_field(const char **cur, const char *eol, field *f)
{
	const char *c = *cur;
	while (c < eol && (*c == ' ' || *c == '\t' || *c == '\r'))
		c++;
	if (c == eol)
		return 0;
	f->s = c;
	while (c < eol && *c != ' ' && *c != '\t' && *c != '\r')
		c++;
	f->len = (size_t)(c - f->s);
	*cur = c;
	return 1;
}

static int is_none(field f) { return f.len == 1 && f.s[0] == '-'; }

static int parse_u64(field f, uint64_t max, uint64_t *out)
{
	if (f.len == 0 || f.len > 20)
		return -1;
	uint64_t v = 0;
	for (size_t i = 0; i < f.len; i++) {
		unsigned d = (unsigned)(f.s[i] - '0');
		if (d > 9 || v > (UINT64_MAX - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	if (v > max)
		return -1;
	*out = v;
	return 0;
}

static int number(parser *p, field f, const char *rec, const char *what, uint64_t max, uint64_t *out)
{
	char b[48];
	if (parse_u64(f, max, out))
		return fail(p, "%s: bad %s '%s' (expected a decimal integer from 0 to %llu)", rec, what, show(f, b),
			    (unsigned long long)max);
	return 0;
}

static int index_field(parser *p, field f, const char *rec, const char *what, obj_t *out)
{
	uint64_t v;
	if (number(p, f, rec, what, OBJ_INDEX_MAX, &v))
		return -1;
	*out = (obj_t)v;
	return 0;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9') return c - '0';
	if (c >= 'a' && c <= 'f') return c - 'a' + 10;
	if (c >= 'A' && c <= 'F') return c - 'A' + 10;
	return -1;
}

/* Percent-decode F into p->scratch; returns the decoded length or -1. */
static long unescape(parser *p, field f, const char *rec, const char *what)
{
	if (f.len + 1 > p->scratch_cap) {
		size_t cap = f.len * 2 + 64;
		char *s = realloc(p->scratch, cap);
		if (!s)
			return fail(p, "out of memory");
		p->scratch = s;
		p->scratch_cap = cap;
	}
	size_t n = 0;
	for (size_t i = 0; i < f.len; i++) {
		char c = f.s[i];
		if (c == '%') {
			if (i + 2 >= f.len || hexval(f.s[i + 1]) < 0 || hexval(f.s[i + 2]) < 0) {
				char b[48];
				return fail(p, "%s: bad escape in %s '%s' (%% must be followed by two hex digits)", rec, what,
					    show(f, b));
			}
			c = (char)(hexval(f.s[i + 1]) * 16 + hexval(f.s[i + 2]));
			if (c == '\0') {
				char b[48];
				return fail(p, "%s: %%00 (a NUL byte) in %s '%s' is not allowed", rec, what, show(f, b));
			}
			i += 2;
		}
		p->scratch[n++] = c;
	}
	p->scratch[n] = '\0';
	return (long)n;
}

static uint32_t intern(parser *p, const char *s, size_t len)
{
	uint32_t id = strtab_intern(&p->h->strings, s, len);
	if (id == UINT32_MAX)
		fail(p, "out of memory (string table)");
	return id;
}

/* Refuse a decoded field of N bytes longer than MAX. */
static int too_long(parser *p, long n, size_t max, const char *rec, const char *what)
{
	if ((size_t)n <= max)
		return 0;
	return fail(p, "%s: %s is %ld bytes long, more than the %zu the engine allows", rec, what, n, max);
}

/* Intern an escaped field of at most MAX bytes once decoded; UINT32_MAX on error. */
static uint32_t intern_field(parser *p, field f, const char *rec, const char *what, size_t max)
{
	long n = unescape(p, f, rec, what);
	if (n < 0 || too_long(p, n, max, rec, what))
		return UINT32_MAX;
	return intern(p, p->scratch, (size_t)n);
}

static int parse_flags(parser *p, field f, obj_t i)
{
	heap *h = p->h;
	struct flag_cache *fc = NULL;
	if (f.len < sizeof fc->s) {
		uint32_t hh = 2166136261u;
		for (size_t k = 0; k < f.len; k++)
			hh = (hh ^ (unsigned char)f.s[k]) * 16777619u;
		fc = &p->fcache[(hh ^ (hh >> 8)) & 255];
		if (fc->len == f.len && memcmp(fc->s, f.s, f.len) == 0) {
			h->oflags[i] = fc->oflags;
			h->iflags[i] = fc->iflags;
			h->traits[i] = fc->traits;
			return 0;
		}
	}
	char bad[64];
	if (flags_parse(f.s, f.len, &h->oflags[i], &h->iflags[i], &h->traits[i], bad, sizeof bad))
		return fail(p, "o: unknown flag '%s' in FLAGS", bad);
	if (fc) {
		memcpy(fc->s, f.s, f.len);
		fc->len = (uint8_t)f.len;
		fc->oflags = h->oflags[i];
		fc->iflags = h->iflags[i];
		fc->traits = h->traits[i];
	}
	return 0;
}

static int parse_object(parser *p, const char *cur, const char *eol)
{
	heap *h = p->h;
	field f[8];
	int n = 0;
	while (n < 8 && next_field(&cur, eol, &f[n]))
		n++;
	if (n < 7)
		return fail(p, "o: expected 7 fields (INDEX SERIAL CLASS OUTER NAME SIZE FLAGS), found %d", n);
	if (n > 7)
		return fail(p, "o: too many fields (expected INDEX SERIAL CLASS OUTER NAME SIZE FLAGS)");
	obj_t idx, cls, outer = OBJ_NONE;
	uint64_t serial, size;
	if (index_field(p, f[0], "o", "INDEX", &idx) || number(p, f[1], "o", "SERIAL", UINT32_MAX, &serial) ||
	    index_field(p, f[2], "o", "CLASS", &cls) ||
	    (!is_none(f[3]) && index_field(p, f[3], "o", "OUTER", &outer)) ||
	    number(p, f[5], "o", "SIZE", UINT32_MAX, &size))
		return -1;
	if ((uint32_t)idx >= h->slots) {
		uint64_t limit = (uint64_t)h->objects * 16 + SPARSE_SLACK;
		if ((uint64_t)idx >= limit)
			return fail(p, "o: INDEX %d leaves the object array too sparse (%u objects so far; at most %llu slots)",
				    idx, h->objects, (unsigned long long)limit);
		uint64_t want = h->slots ? (uint64_t)h->slots * 2 : 1024;
		if (want <= (uint64_t)idx)
			want = (uint64_t)idx + 1;
		if (want > (uint64_t)OBJ_INDEX_MAX + 1)
			want = (uint64_t)OBJ_INDEX_MAX + 1;
		if (heap_grow_slots(h, (uint32_t)want))
			return fail(p, "out of memory (%llu object slots)", (unsigned long long)want);
	}
	if (h->cls[idx] != OBJ_FREE)
		return fail(p, "o: duplicate INDEX %d", idx);
	long nl = unescape(p, f[4], "o", "NAME");
	if (nl < 0 || too_long(p, nl, NAME_LEN_MAX, "o", "NAME"))
		return -1;
	size_t base_len;
	fname_split(p->scratch, (size_t)nl, &base_len, &h->name_num[idx]);
	uint32_t name = intern(p, p->scratch, base_len);
	if (name == UINT32_MAX)
		return -1;
	h->name[idx] = name;
	h->serial[idx] = (uint32_t)serial;
	h->cls[idx] = cls;
	h->outer[idx] = outer;
	h->size[idx] = (uint32_t)size;
	if (parse_flags(p, f[6], idx))
		return -1;
	h->objects++;
	return 0;
}

static int push_ref(parser *p, obj_t from, obj_t to, int kind, uint32_t prop)
{
	if (p->nr == p->r_cap) {
		size_t cap = p->r_cap ? p->r_cap * 2 : 4096;
		if (cap > UINT32_MAX - 1)
			cap = UINT32_MAX - 1;
		if (p->nr == cap)
			return fail(p, "r: too many references (at most %u)", UINT32_MAX - 2);
		obj_t *a = realloc(p->r_from, cap * sizeof *a);
		if (a) p->r_from = a;
		obj_t *b = realloc(p->r_to, cap * sizeof *b);
		if (b) p->r_to = b;
		uint32_t *c = realloc(p->r_prop, cap * sizeof *c);
		if (c) p->r_prop = c;
		uint8_t *d = realloc(p->r_kind, cap);
		if (d) p->r_kind = d;
		if (!a || !b || !c || !d)
			return fail(p, "out of memory (%zu references)", cap);
		p->r_cap = cap;
	}
	p->r_from[p->nr] = from;
	p->r_to[p->nr] = to;
	p->r_kind[p->nr] = (uint8_t)kind;
	p->r_prop[p->nr] = prop;
	p->nr++;
	return 0;
}

/* An optional trailing PROPERTY field: absent or "-" is none. */
static int optional_property(parser *p, const char **cur, const char *eol, const char *rec, uint32_t *prop)
{
	field f, extra;
	*prop = 0;
	if (!next_field(cur, eol, &f) || is_none(f))
		goto done;
	*prop = intern_field(p, f, rec, "PROPERTY", PROP_LEN_MAX);
	if (*prop == UINT32_MAX)
		return -1;
done:
	if (next_field(cur, eol, &extra))
		return fail(p, "%s: too many fields (escape spaces in PROPERTY as %%20)", rec);
	return 0;
}

static int parse_ref(parser *p, const char *cur, const char *eol)
{
	field f[3];
	for (int k = 0; k < 3; k++)
		if (!next_field(&cur, eol, &f[k]))
			return fail(p, "r: expected FROM TO KIND [PROPERTY]");
	obj_t from, to;
	if (index_field(p, f[0], "r", "FROM", &from) || index_field(p, f[1], "r", "TO", &to))
		return -1;
	int kind = ref_kind_parse(f[2].s, f[2].len);
	if (kind < 0) {
		char b[48];
		return fail(p, "r: unknown KIND '%s' (expected strong, aro, immutable, weak or soft)", show(f[2], b));
	}
	uint32_t prop;
	if (optional_property(p, &cur, eol, "r", &prop))
		return -1;
	return push_ref(p, from, to, kind, prop);
}

static int parse_gcref(parser *p, const char *cur, const char *eol)
{
	heap *h = p->h;
	field f[2];
	for (int k = 0; k < 2; k++)
		if (!next_field(&cur, eol, &f[k]))
			return fail(p, "g: expected NAME TO [PROPERTY]");
	uint32_t name = intern_field(p, f[0], "g", "NAME", PROP_LEN_MAX);
	if (name == UINT32_MAX)
		return -1;
	obj_t to;
	uint32_t prop;
	if (index_field(p, f[1], "g", "TO", &to) || optional_property(p, &cur, eol, "g", &prop))
		return -1;
	if (heap_needs_grow(h->ngcrefs)) {
		size_t cap = heap_grow_cap(h->ngcrefs);
		gc_ref *g = realloc(h->gcrefs, cap * sizeof *g);
		if (!g)
			return fail(p, "out of memory");
		h->gcrefs = g;
	}
	if (h->ngcrefs == UINT32_MAX - 1)
		return fail(p, "g: too many records");
	h->gcrefs[h->ngcrefs++] = (gc_ref){name, to, prop};
	return 0;
}

/* Append one INDEX list ("-" or a,b,c) to cluster_items. */
static int parse_list(parser *p, field f, const char *what, uint32_t *start, uint32_t *count)
{
	heap *h = p->h;
	*start = h->ncluster_items;
	*count = 0;
	if (is_none(f))
		return 0;
	size_t i = 0;
	while (i <= f.len) {
		size_t j = i;
		while (j < f.len && f.s[j] != ',')
			j++;
		uint64_t v;
		field item = {f.s + i, j - i};
		if (parse_u64(item, OBJ_INDEX_MAX, &v)) {
			char b[48];
			return fail(p, "c: bad %s '%s' (expected - or INDEX values joined by commas)", what, show(f, b));
		}
		if (heap_needs_grow(h->ncluster_items)) {
			size_t cap = heap_grow_cap(h->ncluster_items);
			if (cap >= UINT32_MAX)
				return fail(p, "c: too many cluster list entries");
			obj_t *a = realloc(h->cluster_items, cap * sizeof *a);
			if (!a)
				return fail(p, "out of memory");
			h->cluster_items = a;
		}
		h->cluster_items[h->ncluster_items++] = (obj_t)v;
		(*count)++;
		i = j + 1;
	}
	return 0;
}

static int parse_cluster(parser *p, const char *cur, const char *eol)
{
	heap *h = p->h;
	field f[5];
	int n = 0;
	while (n < 5 && next_field(&cur, eol, &f[n]))
		n++;
	if (n != 4)
		return fail(p, "c: expected 4 fields (ROOT MEMBERS MUTABLE CLUSTERS), found %d%s", n, n > 4 ? " or more" : "");
	if (heap_needs_grow(h->nclusters)) {
		size_t cap = heap_grow_cap(h->nclusters);
		cluster *c = realloc(h->clusters, cap * sizeof *c);
		if (!c)
			return fail(p, "out of memory");
		h->clusters = c;
	}
	cluster *c = &h->clusters[h->nclusters];
	if (index_field(p, f[0], "c", "ROOT", &c->root) || parse_list(p, f[1], "MEMBERS", &c->members, &c->n_members) ||
	    parse_list(p, f[2], "MUTABLE", &c->mutables, &c->n_mutables) ||
	    parse_list(p, f[3], "CLUSTERS", &c->refs, &c->n_refs))
		return -1;
	h->nclusters++;
	return 0;
}

/* Header: the rest of the line after the keyword, trimmed, unescaped. */
static uint32_t header_text(parser *p, const char *cur, const char *eol, const char *rec)
{
	while (cur < eol && (*cur == ' ' || *cur == '\t'))
		cur++;
	const char *e = eol;
	while (e > cur && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		e--;
	field f = {cur, (size_t)(e - cur)};
	return intern_field(p, f, rec, "TEXT", SIZE_MAX);
}

static int header_once(parser *p, int *seen, const char *rec)
{
	if (p->seen_object)
		return fail(p, "%s: header record after the first object record", rec);
	if (*seen)
		return fail(p, "%s: given twice", rec);
	*seen = 1;
	return 0;
}

/* "end O R G C": the counts of o, r, g and c records; checked in check_end. */
static int parse_end(parser *p, const char *cur, const char *eol)
{
	field f;
	for (int k = 0; k < 4; k++) {
		if (!next_field(&cur, eol, &f))
			return fail(p, "end: expected 'end OBJECTS REFERENCES GCREFS CLUSTERS'");
		if (number(p, f, "end", "count", UINT64_MAX, &p->end_count[k]))
			return -1;
	}
	if (next_field(&cur, eol, &f))
		return fail(p, "end: too many fields (expected 'end OBJECTS REFERENCES GCREFS CLUSTERS')");
	p->end_line = p->line;
	return 0;
}

/* An end record, when present, vouches for the whole file: its counts must
 * be the records read (a file cut short or spliced disagrees). */
static int check_end(parser *p, uint64_t objects, uint64_t refs, uint64_t gcrefs, uint64_t clusters)
{
	static const char *const what[4] = {"object (o)", "reference (r)", "FGCObject (g)", "cluster (c)"};
	const uint64_t have[4] = {objects, refs, gcrefs, clusters};
	for (int k = 0; p->end_line && k < 4; k++)
		if (have[k] != p->end_count[k]) {
			p->line = p->end_line;
			return fail(p, "end: %llu %s records read, the end record says %llu (is the file cut or spliced?)",
				    (unsigned long long)have[k], what[k], (unsigned long long)p->end_count[k]);
		}
	return 0;
}

static int parse_header(parser *p, field kw, const char *cur, const char *eol, int *handled)
{
	heap *h = p->h;
	*handled = 1;
#define KW(word) (kw.len == sizeof(word) - 1 && memcmp(kw.s, word, kw.len) == 0)
	if (KW("engine")) {
		if (header_once(p, &p->seen_engine, "engine"))
			return -1;
		h->engine = header_text(p, cur, eol, "engine");
		return h->engine == UINT32_MAX ? -1 : 0;
	}
	if (KW("label")) {
		if (header_once(p, &p->seen_label, "label"))
			return -1;
		h->label = header_text(p, cur, eol, "label");
		return h->label == UINT32_MAX ? -1 : 0;
	}
	if (KW("end"))
		return parse_end(p, cur, eol);
	if (KW("mode")) {
		field f, extra;
		if (header_once(p, &p->seen_mode, "mode"))
			return -1;
		if (!next_field(&cur, eol, &f) || next_field(&cur, eol, &extra))
			return fail(p, "mode: expected 'mode game' or 'mode editor'");
		if (f.len == 4 && memcmp(f.s, "game", 4) == 0)
			h->mode = MODE_GAME;
		else if (f.len == 6 && memcmp(f.s, "editor", 6) == 0)
			h->mode = MODE_EDITOR;
		else {
			char b[48];
			return fail(p, "mode: unknown mode '%s' (expected game or editor)", show(f, b));
		}
		return 0;
	}
	if (KW("garbage-elimination")) {
		field f, extra;
		if (header_once(p, &p->seen_elim, "garbage-elimination"))
			return -1;
		if (!next_field(&cur, eol, &f) || next_field(&cur, eol, &extra))
			return fail(p, "garbage-elimination: expected 'garbage-elimination on' or 'garbage-elimination off'");
		if (f.len == 2 && memcmp(f.s, "on", 2) == 0)
			h->no_garbage_elimination = 0;
		else if (f.len == 3 && memcmp(f.s, "off", 3) == 0)
			h->no_garbage_elimination = 1;
		else {
			char b[48];
			return fail(p, "garbage-elimination: unknown value '%s' (expected on or off)", show(f, b));
		}
		return 0;
	}
	if (KW("first-gc-index")) {
		field f, extra;
		if (header_once(p, &p->seen_first, "first-gc-index"))
			return -1;
		if (!next_field(&cur, eol, &f) || next_field(&cur, eol, &extra))
			return fail(p, "first-gc-index: expected one number");
		obj_t v;
		uint64_t u;
		if (number(p, f, "first-gc-index", "N", (uint64_t)OBJ_INDEX_MAX + 1, &u))
			return -1;
		v = (obj_t)(u > OBJ_INDEX_MAX ? OBJ_INDEX_MAX : u);
		h->first_gc_index = v;
		return 0;
	}
#undef KW
	*handled = 0;
	return 0;
}

/* ---- finishing: references into rows, invariants ---- */

/* Line of the ORDINAL-th record (0-based) whose tag is TAG; for 'o' with
 * ORDINAL < 0, the line of the object whose INDEX is -ORDINAL-1. */
static uint64_t find_line(const parser *p, char tag, int64_t ordinal)
{
	uint64_t line = 0;
	int64_t seen = 0;
	const char *c = p->data;
	while (c < p->end) {
		const char *eol = memchr(c, '\n', (size_t)(p->end - c));
		if (!eol)
			eol = p->end;
		line++;
		const char *cur = c;
		field kw;
		if (next_field(&cur, eol, &kw) && kw.len == 1 && kw.s[0] == tag) {
			if (ordinal >= 0) {
				if (seen++ == ordinal)
					return line;
			} else {
				field f;
				uint64_t v;
				if (next_field(&cur, eol, &f) && parse_u64(f, OBJ_INDEX_MAX, &v) == 0 && (int64_t)v == -ordinal - 1)
					return line;
			}
		}
		c = eol + 1;
	}
	return 0;
}

/* Check every FROM, then build the rows by source (heap_set_refs keeps the
 * dangling ones aside). */
static int build_refs(parser *p)
{
	heap *h = p->h;
	for (size_t k = 0; k < p->nr; k++)
		if (!heap_exists(h, p->r_from[k])) {
			p->line = find_line(p, 'r', (int64_t)k);
			return fail(p, "r: FROM %d is not an object", p->r_from[k]);
		}
	int rc = heap_set_refs(h, p->r_from, p->r_to, p->r_prop, p->r_kind, (uint32_t)p->nr);
	p->r_from = p->r_to = NULL;
	p->r_prop = NULL;
	p->r_kind = NULL;
	return rc ? fail(p, "out of memory building references") : 0;
}

static int finish(parser *p)
{
	heap *h = p->h;
	if (build_refs(p))
		return -1;
	char msg[512];
	obj_t where;
	uint32_t cid;
	if (heap_validate(h, msg, sizeof msg, &where, &cid)) {
		if (cid != UINT32_MAX)
			p->line = find_line(p, 'c', cid);
		else if (where >= 0)
			p->line = find_line(p, 'o', -(int64_t)where - 1);
		else
			p->line = 0;
		return fail(p, "%s", msg);
	}
	return 0;
}

int text_parse(const char *path, const char *data, size_t len, heap *h, char *err, size_t errsize)
{
	parser *p = calloc(1, sizeof *p);
	if (!p) {
		snprintf(err, errsize, "%s: out of memory", path);
		return -1;
	}
	p->path = path;
	p->data = data;
	p->end = data + len;
	p->h = h;
	p->err = err;
	p->errsize = errsize;
	int rc = 0, seen_magic = 0;
	const char *c = data;
	if (memchr(data, '\0', len)) {
		p->line = 1;
		const char *z = memchr(data, '\0', len);
		for (const char *q = data; q < z; q++)
			p->line += *q == '\n';
		rc = fail(p, "NUL byte in text (is this a binary file?)");
	}
	while (rc == 0 && c < p->end) {
		const char *eol = memchr(c, '\n', (size_t)(p->end - c));
		if (!eol)
			eol = p->end;
		if ((++p->line & 0xffff) == 0)
			progress_at((uint64_t)(c - data), len);
		const char *cur = c;
		field kw;
		c = eol + 1;
		if (!next_field(&cur, eol, &kw) || kw.s[0] == '#')
			continue;
		if (p->end_line) {
			rc = fail(p, "a record after the end record (line %llu): the end record must be last",
				  (unsigned long long)p->end_line);
			continue;
		}
		if (!seen_magic) {
			field v, extra;
			if (!(kw.len == 8 && memcmp(kw.s, "ugc-text", 8) == 0) || !next_field(&cur, eol, &v))
				rc = fail(p, "not a ugc text snapshot (the first record must be 'ugc-text 1')");
			else if (!(v.len == 1 && v.s[0] == '1') || next_field(&cur, eol, &extra))
				rc = fail(p, "unsupported text snapshot version (this tool reads 'ugc-text 1')");
			seen_magic = 1;
			continue;
		}
		if (kw.len == 1) {
			switch (kw.s[0]) {
			case 'o':
				p->seen_object = 1;
				rc = parse_object(p, cur, eol);
				continue;
			case 'r':
				rc = parse_ref(p, cur, eol);
				continue;
			case 'g':
				rc = parse_gcref(p, cur, eol);
				continue;
			case 'c':
				rc = parse_cluster(p, cur, eol);
				continue;
			}
		}
		int handled;
		rc = parse_header(p, kw, cur, eol, &handled);
		if (rc == 0 && !handled) {
			char b[48];
			rc = fail(p, "unknown record '%s'", show(kw, b));
		}
	}
	if (rc == 0 && !seen_magic) {
		p->line = 1;
		rc = fail(p, "empty file: not a ugc text snapshot");
	}
	if (rc == 0)
		rc = check_end(p, h->objects, p->nr, h->ngcrefs, h->nclusters);
	if (rc == 0 && heap_trim_slots(h))
		rc = fail(p, "out of memory");
	if (rc == 0)
		rc = finish(p);
	free(p->r_from);
	free(p->r_to);
	free(p->r_prop);
	free(p->r_kind);
	free(p->scratch);
	free(p);
	return rc;
}
