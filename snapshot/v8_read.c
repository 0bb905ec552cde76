/* v8_read.c — reads a V8 .heapsnapshot (plain or zstd), streaming.
 *
 * Why a parser of our own rather than a JSON library: a .heapsnapshot is one
 * JSON document whose bulk is two flat integer arrays (a 4M-node snapshot has
 * 28M node values and 48M edge values) and a string table.  A DOM library
 * would build a tree node per number — gigabytes for a 500 MB file — and an
 * event (SAX) library would still hand the numbers over one callback at a
 * time on one thread; neither can split an array between cores, and the
 * project's only dependencies are SQLite and zstd.  The structure we need is
 * tiny, so we do it directly:
 *  - a plain file is mapped and read in place, its pages let go behind the
 *    parse; a compressed one is decompressed into a ring of chunk buffers;
 *    neither is held whole (v8_stream.c);
 *  - the header, the skipped members and the string table go through a small
 *    byte-at-a-time parser without recursion (v8_json.c);
 *  - here, for "nodes" and "edges", a splitter on the reading thread cuts
 *    the array text at commas into pieces of whole records, counts the
 *    values in each (so it knows which record each piece starts at) and
 *    hands the pieces to worker threads, which parse them straight into the
 *    columns of v8_raw.
 * Every value is checked where it is parsed, so an error names the byte
 * offset of the value at fault (in the decompressed text for a .zst file);
 * of several errors found by different threads the earliest is reported. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/base.h"
#include "snapshot/v8_stream.h"

static int field_index(char **fields, uint32_t n, const char *name)
{
	for (uint32_t k = 0; k < n; k++)
		if (strcmp(fields[k], name) == 0)
			return (int)k;
	return -1;
}

typedef struct meta {
	char **node_fields, **edge_fields, **edge_types;
	uint32_t n_node_fields, n_edge_fields, n_edge_types;
	v8_type_lists node_types, edge_types_at; /* by place, until the fields say which is "type" */
	int has_node_fields, has_edge_fields, has_node_types, has_edge_types;
} meta;

static int parse_meta(rd *r, meta *m)
{
	v8_raw *raw = r->raw;
	if (v8r_expect(r, '{', "at snapshot.meta"))
		return -1;
	int first = 1, longname, more;
	char key[64];
	uint64_t koff;
	while ((more = v8r_next_member(r, &first, key, sizeof key, &longname, &koff)) > 0) {
		int rc;
		if (longname)
			rc = v8r_skip_value(r);
		else if (strcmp(key, "node_fields") == 0 && !m->has_node_fields)
			rc = v8r_string_list(r, "meta.node_fields", V8_MAX_FIELDS, &m->node_fields, &m->n_node_fields),
			m->has_node_fields = 1;
		else if (strcmp(key, "edge_fields") == 0 && !m->has_edge_fields)
			rc = v8r_string_list(r, "meta.edge_fields", V8_MAX_FIELDS, &m->edge_fields, &m->n_edge_fields),
			m->has_edge_fields = 1;
		else if (strcmp(key, "node_types") == 0 && !raw->node_types && !m->has_node_types)
			rc = v8r_type_lists(r, "meta.node_types", &m->node_types), m->has_node_types = 1;
		else if (strcmp(key, "edge_types") == 0 && !m->has_edge_types)
			rc = v8r_type_lists(r, "meta.edge_types", &m->edge_types_at), m->has_edge_types = 1;
		else
			rc = v8r_skip_value(r);
		if (rc)
			return -1;
	}
	return more;
}

/* Check the meta and the counts, then allocate the columns. */
static int setup(rd *r, uint64_t off, meta *m, uint64_t node_count, uint64_t edge_count)
{
	v8_raw *raw = r->raw;
	if (!m->has_node_fields || !m->has_edge_fields || !m->has_node_types || !m->has_edge_types)
		return v8r_fail(r, off, "snapshot.meta: missing %s", !m->has_node_fields ? "node_fields"
				: !m->has_edge_fields ? "edge_fields" : !m->has_node_types ? "node_types" : "edge_types");
	static const char *const need_n[] = {"type", "name", "id", "self_size", "edge_count"};
	int *role_n[] = {&r->nf_type, &r->nf_name, &r->nf_id, &r->nf_size, &r->nf_ecount};
	for (int k = 0; k < 5; k++)
		if ((*role_n[k] = field_index(m->node_fields, m->n_node_fields, need_n[k])) < 0)
			return v8r_fail(r, off, "snapshot.meta.node_fields: no \"%s\" field", need_n[k]);
	static const char *const need_e[] = {"type", "name_or_index", "to_node"};
	int *role_e[] = {&r->ef_type, &r->ef_name, &r->ef_to};
	for (int k = 0; k < 3; k++)
		if ((*role_e[k] = field_index(m->edge_fields, m->n_edge_fields, need_e[k])) < 0)
			return v8r_fail(r, off, "snapshot.meta.edge_fields: no \"%s\" field", need_e[k]);
	/* the type names: the *_types entry at the "type" field's place */
	if ((uint32_t)r->nf_type >= m->node_types.n || !m->node_types.list[r->nf_type])
		return v8r_fail(r, off, "snapshot.meta.node_types: no list of type names at the \"type\" field's place (%d)",
				r->nf_type);
	if ((uint32_t)r->ef_type >= m->edge_types_at.n || !m->edge_types_at.list[r->ef_type])
		return v8r_fail(r, off, "snapshot.meta.edge_types: no list of type names at the \"type\" field's place (%d)",
				r->ef_type);
	raw->node_types = m->node_types.list[r->nf_type]; /* taken over */
	raw->n_node_types = m->node_types.count[r->nf_type];
	m->node_types.list[r->nf_type] = NULL;
	m->node_types.count[r->nf_type] = 0;
	m->edge_types = m->edge_types_at.list[r->ef_type];
	m->n_edge_types = m->edge_types_at.count[r->ef_type];
	m->edge_types_at.list[r->ef_type] = NULL;
	m->edge_types_at.count[r->ef_type] = 0;
	raw->nf = m->n_node_fields;
	raw->ef = m->n_edge_fields;
	raw->n_edge_types = m->n_edge_types;
	raw->edge_weak = field_index(m->edge_types, m->n_edge_types, "weak");
	raw->edge_shortcut = field_index(m->edge_types, m->n_edge_types, "shortcut");
	raw->edge_element = field_index(m->edge_types, m->n_edge_types, "element");
	raw->edge_hidden = field_index(m->edge_types, m->n_edge_types, "hidden");
	for (uint32_t t = 0; t < 256; t++)
		r->edge_named[t] = (int)t != raw->edge_element && (int)t != raw->edge_hidden;
	if (node_count == 0)
		return v8r_fail(r, off, "snapshot.node_count is 0 (a heap snapshot has at least its root node)");
	if (node_count > (uint64_t)OBJ_INDEX_MAX / 2 || node_count * raw->nf > UINT32_MAX)
		return v8r_fail(r, off, "snapshot.node_count %llu is more than this tool reads", (unsigned long long)node_count);
	if (edge_count > UINT32_MAX - 2)
		return v8r_fail(r, off, "snapshot.edge_count %llu is more than this tool reads", (unsigned long long)edge_count);
	uint64_t values = node_count * raw->nf + edge_count * raw->ef;
	if (r->src.raw_size && !r->src.zstd && values * 2 > r->src.raw_size + 2)
		return v8r_fail(r, off, "snapshot.node_count and edge_count (%llu, %llu) need more values than the file holds",
			    (unsigned long long)node_count, (unsigned long long)edge_count);
	raw->node_count = (uint32_t)node_count;
	raw->edge_count = (uint32_t)edge_count;
	size_t n = node_count, e = edge_count;
	raw->ntype = malloc(n);
	raw->nname = malloc(n * sizeof *raw->nname);
	raw->nid = malloc(n * sizeof *raw->nid);
	raw->nsize = malloc(n * sizeof *raw->nsize);
	raw->necount = malloc(n * sizeof *raw->necount);
	raw->etype = malloc(e + 1);
	raw->ename = malloc(e * sizeof *raw->ename + 1);
	raw->eto = malloc(e * sizeof *raw->eto + 1);
	if (!raw->ntype || !raw->nname || !raw->nid || !raw->nsize || !raw->necount || !raw->etype || !raw->ename ||
	    !raw->eto)
		return v8r_fail(r, off, "out of memory (%llu nodes, %llu edges)", (unsigned long long)node_count,
			    (unsigned long long)edge_count);
	return 0;
}

static int parse_header(rd *r)
{
	v8r_skip_ws(r);
	uint64_t off = v8r_at(r);
	if (v8r_expect(r, '{', "at \"snapshot\""))
		return -1;
	meta m = {0};
	uint64_t node_count = 0, edge_count = 0;
	int has_nc = 0, has_ec = 0, has_meta = 0, first = 1, longname, more, rc = -1;
	char key[64];
	uint64_t koff;
	while ((more = v8r_next_member(r, &first, key, sizeof key, &longname, &koff)) > 0) {
		int bad;
		if (longname)
			bad = v8r_skip_value(r);
		else if (strcmp(key, "meta") == 0 && !has_meta)
			bad = parse_meta(r, &m), has_meta = 1;
		else if (strcmp(key, "node_count") == 0 && !has_nc)
			bad = v8r_uint(r, "snapshot.node_count", &node_count), has_nc = 1;
		else if (strcmp(key, "edge_count") == 0 && !has_ec)
			bad = v8r_uint(r, "snapshot.edge_count", &edge_count), has_ec = 1;
		else if (strcmp(key, "version") == 0 && !r->raw->version && v8r_skip_ws(r) == '"') {
			char v[256];
			size_t n = 0; /* (unset when the string is bad) */
			bad = v8r_string(r, v, sizeof v - 1, &n, NULL);
			v[bad || n >= sizeof v ? 0 : n] = '\0';
			if (!bad && !(r->raw->version = strdup(v)))
				bad = v8r_fail(r, koff, "out of memory");
		} else
			bad = v8r_skip_value(r);
		if (bad)
			goto out;
	}
	if (more < 0)
		goto out;
	if (!has_meta)
		v8r_fail(r, off, "snapshot: no \"meta\" member");
	else if (!has_nc || !has_ec)
		v8r_fail(r, off, "snapshot: no \"%s\" member", has_nc ? "edge_count" : "node_count");
	else
		rc = setup(r, off, &m, node_count, edge_count);
out:
	v8r_free_list(m.node_fields, m.n_node_fields);
	v8r_free_list(m.edge_fields, m.n_edge_fields);
	v8r_free_list(m.edge_types, m.n_edge_types);
	v8r_free_type_lists(&m.node_types);
	v8r_free_type_lists(&m.edge_types_at);
	return rc;
}

/* ---- the integer arrays ---- */

/* Commas in [S, E) before the first ']' (*CLOSE, NULL when there is none):
 * 16 bytes at a time in GCC's vector extension (plain SSE2 or NEON code),
 * each lane counting up to 255 commas before the lanes are summed.  A
 * block that holds the ']' is counted again byte by byte, up to it.  This
 * scan is the reader's own thread's work while the workers parse, so its
 * speed is the whole load's. */
typedef unsigned char bytes16 __attribute__((vector_size(16)));

static uint64_t count_commas(const char *s, const char *e, const char **close)
{
	const bytes16 commas = (bytes16){0} + ',', brackets = (bytes16){0} + ']';
	uint64_t n = 0;
	while (e - s >= 16) {
		const char *block = s;
		bytes16 acc = {0}, seen = {0};
		for (int k = 0; k < 255 && e - s >= 16; k++, s += 16) {
			bytes16 x;
			memcpy(&x, s, 16);
			seen |= (bytes16)(x == brackets);
			acc -= (bytes16)(x == commas); /* a match is all ones: -1 */
		}
		uint64_t lo, hi;
		memcpy(&lo, &seen, 8);
		memcpy(&hi, (const char *)&seen + 8, 8);
		if (lo | hi) {
			s = block; /* the bytes below find it */
			break;
		}
		memcpy(&lo, &acc, 8);
		memcpy(&hi, (const char *)&acc + 8, 8);
		const uint64_t m8 = 0x00ff00ff00ff00ffull;
		uint64_t pairs = (lo & m8) + ((lo >> 8) & m8) + (hi & m8) + ((hi >> 8) & m8); /* four 16-bit lanes */
		n += (pairs * 0x0001000100010001ull) >> 48;
	}
	for (; s < e; s++) {
		if (*s == ']') {
			*close = s;
			return n;
		}
		n += *s == ',';
	}
	*close = NULL;
	return n;
}

static int piece_fail(rd *r, const piece *p, const unsigned char *where, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* The stream offset of WHERE, a byte of P's text. */
static uint64_t piece_off(const piece *p, const unsigned char *where)
{
	size_t at = (size_t)(where - (const unsigned char *)p->s);
	if (!p->voff)
		return p->off + at;
	size_t k = 0, start = 0; /* a rebuilt record: WHERE's value and where it starts */
	for (size_t i = 0; i < at; i++)
		if (p->s[i] == ',' && k + 1 < p->n) {
			k++;
			start = i + 1;
		}
	return p->voff[k] + (at - start);
}

static int piece_fail(rd *r, const piece *p, const unsigned char *where, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	v8r_error_v(r, piece_off(p, where), fmt, ap);
	va_end(ap);
	return -1;
}

static inline uint32_t div_fields(uint32_t v, uint32_t d)
{
	/* constant divisors for the common layouts compile to multiplications */
	return d == 7 ? v / 7 : d == 6 ? v / 6 : d == 3 ? v / 3 : v / d;
}

/* Where value F of the record that starts at RS begins (for messages; the
 * record's syntax is known good). */
static const unsigned char *value_at(const unsigned char *rs, int f)
{
	for (int k = 0; k < f; k++) {
		while (*rs != ',')
			rs++;
		rs++;
	}
	while (is_ws(*rs))
		rs++;
	return rs;
}

/* Fault in the pages of [P, P+LEN) in one call, ahead of the writes
 * (cheaper than a fault a page; nothing when the kernel cannot). */
static void prefault(void *p, size_t len, uintptr_t page)
{
#ifdef MADV_POPULATE_WRITE
	uintptr_t a = ((uintptr_t)p + page - 1) & ~(page - 1), b = ((uintptr_t)p + len) & ~(page - 1);
	if (b > a)
		madvise((void *)a, b - a, MADV_POPULATE_WRITE);
#else
	(void)p;
	(void)len;
	(void)page;
#endif
}

/* Fault in the columns' pages for the NREC records from REC of the nodes
 * (NODES) or the edges that a piece fills. */
static void prefault_columns(v8_raw *raw, int nodes, uint64_t rec, uint64_t nrec, size_t page)
{
	if (nodes) {
		prefault(raw->ntype + rec, nrec * sizeof *raw->ntype, page);
		prefault(raw->nname + rec, nrec * sizeof *raw->nname, page);
		prefault(raw->nid + rec, nrec * sizeof *raw->nid, page);
		prefault(raw->nsize + rec, nrec * sizeof *raw->nsize, page);
		prefault(raw->necount + rec, nrec * sizeof *raw->necount, page);
	} else {
		prefault(raw->etype + rec, nrec * sizeof *raw->etype, page);
		prefault(raw->ename + rec, nrec * sizeof *raw->ename, page);
		prefault(raw->eto + rec, nrec * sizeof *raw->eto, page);
	}
}

/* The largest string index a piece's names use (MAX), and where the
 * record that uses it starts (RS; NULL until a name is seen): checked once
 * the string table is read. */
typedef struct name_max {
	uint64_t max;
	const unsigned char *rs;
} name_max;

static inline void see_name(name_max *nm, uint64_t name, const unsigned char *rs)
{
	if (!nm->rs || name > nm->max) {
		nm->max = name;
		nm->rs = rs;
	}
}

/* The NFLD values of the record at *SP into V, and *SP past the comma
 * after its last (LAST: the piece's final record, whose last value the ']'
 * ends instead).  0, or -1 when the text there is not a record of WHAT
 * (reported). */
static inline int parse_record(rd *r, const piece *p, const char *what, const unsigned char **sp, uint32_t nfld,
			       int last, uint64_t *v)
{
	const unsigned char *s = *sp;
	for (uint32_t f = 0; f < nfld; f++) {
		if ((unsigned)(*s - '0') > 9) {
			while (is_ws(*s))
				s++;
			if ((unsigned)(*s - '0') > 9)
				return piece_fail(r, p, s, "%s: expected a non-negative integer", what);
		}
		const unsigned char *b = s;
		uint64_t x = (uint64_t)(*s++ - '0');
		for (unsigned d; (d = (unsigned)(*s - '0')) < 10; s++)
			x = x * 10 + d;
		if (s - b > 19)
			return piece_fail(r, p, b, "%s: number too large", what);
		if (*b == '0' && s - b > 1)
			return piece_fail(r, p, b, "%s: a number with a leading zero (not JSON)", what);
		v[f] = x;
		if (*s != ',') {
			while (is_ws(*s))
				s++;
			if (*s != ',') {
				if (last && f + 1 == nfld)
					break;
				return piece_fail(r, p, s, "%s: expected ','", what);
			}
		}
		s++;
	}
	*sp = s;
	return 0;
}

/* Node REC, its values V (its text at RS), checked and stored in the
 * columns; its name seen in NM.  0, or -1 (reported). */
static inline int store_node(rd *r, const piece *p, const unsigned char *rs, uint64_t rec, const uint64_t *v,
			     pstats *st, name_max *nm)
{
	v8_raw *raw = r->raw;
	uint64_t t = v[r->nf_type];
	if (t >= raw->n_node_types)
		return piece_fail(r, p, value_at(rs, r->nf_type), "node %llu: type %llu is not one of the %u node types",
				  (unsigned long long)rec, (unsigned long long)t, raw->n_node_types);
	if ((v[r->nf_name] | v[r->nf_id] | v[r->nf_ecount]) > UINT32_MAX) {
		int f = v[r->nf_name] > UINT32_MAX ? r->nf_name : v[r->nf_id] > UINT32_MAX ? r->nf_id : r->nf_ecount;
		return piece_fail(r, p, value_at(rs, f), "node %llu: %s %llu is too large", (unsigned long long)rec,
				  f == r->nf_name ? "name" : f == r->nf_id ? "id" : "edge_count", (unsigned long long)v[f]);
	}
	uint64_t size = v[r->nf_size];
	if (size > UINT32_MAX) {
		size = UINT32_MAX;
		st->clamped++;
	}
	see_name(nm, v[r->nf_name], rs);
	raw->ntype[rec] = (uint8_t)t;
	raw->nname[rec] = (uint32_t)v[r->nf_name];
	raw->nid[rec] = (uint32_t)v[r->nf_id];
	raw->nsize[rec] = (uint32_t)size;
	raw->necount[rec] = (uint32_t)v[r->nf_ecount];
	return 0;
}

/* Edge REC, its values V (its text at RS), checked and stored in the
 * columns (its target as a node's ordinal: to_node is a value position,
 * below TO_LIMIT); its name, if one, seen in NM.  0, or -1 (reported). */
static inline int store_edge(rd *r, const piece *p, const unsigned char *rs, uint64_t rec, const uint64_t *v,
			     uint64_t to_limit, name_max *nm)
{
	v8_raw *raw = r->raw;
	uint64_t t = v[r->ef_type], to = v[r->ef_to], name = v[r->ef_name];
	if (t >= raw->n_edge_types)
		return piece_fail(r, p, value_at(rs, r->ef_type), "edge %llu: type %llu is not one of the %u edge types",
				  (unsigned long long)rec, (unsigned long long)t, raw->n_edge_types);
	uint32_t to_ord = to < to_limit ? div_fields((uint32_t)to, raw->nf) : 0;
	if (to >= to_limit || (uint64_t)to_ord * raw->nf != to)
		return piece_fail(r, p, value_at(rs, r->ef_to), "edge %llu: to_node %llu is no node (a multiple of %u below %llu)",
				  (unsigned long long)rec, (unsigned long long)to, raw->nf, (unsigned long long)to_limit);
	if (name > UINT32_MAX)
		return piece_fail(r, p, value_at(rs, r->ef_name), "edge %llu: name_or_index %llu is too large",
				  (unsigned long long)rec, (unsigned long long)name);
	if (r->edge_named[t])
		see_name(nm, name, rs);
	raw->etype[rec] = (uint8_t)t;
	raw->ename[rec] = (uint32_t)name;
	raw->eto[rec] = (obj_t)to_ord;
	return 0;
}

/* What the piece's names need of the string table, into ST (its offset:
 * the name's value in its record). */
static void note_names(const rd *r, const piece *p, int nodes, const name_max *nm, pstats *st)
{
	if (!nm->rs)
		return;
	const unsigned char *at = value_at(nm->rs, nodes ? r->nf_name : r->ef_name);
	uint64_t off = piece_off(p, at);
	if (nodes) {
		st->has_node_str = 1;
		st->max_node_str = nm->max;
		st->max_node_str_off = off;
	} else {
		st->has_edge_str = 1;
		st->max_edge_str = nm->max;
		st->max_edge_str_off = off;
	}
}

/* Parse one piece into the columns.  No bounds checks in the scanning loops:
 * a piece of N values holds N commas (N-1 in a final piece, which the ']'
 * after it ends), so every loop stops at a comma or at that bracket. */
void v8r_parse_piece(rd *r, const piece *p, pstats *st)
{
	v8_raw *raw = r->raw;
	const unsigned char *s = (const unsigned char *)p->s, *e = s + p->len;
	const int nodes = p->arr == ARR_NODES;
	const char *what = nodes ? "nodes" : "edges";
	const uint32_t nfld = nodes ? raw->nf : raw->ef;
	const uint64_t nrec = p->n / nfld, to_limit = (uint64_t)raw->node_count * raw->nf;
	uint64_t rec = p->first / nfld, v[V8_MAX_FIELDS];
	name_max names = {0, NULL};
	prefault_columns(raw, nodes, rec, nrec, r->src.page);
	for (uint64_t k = 0; k < nrec; k++, rec++) {
		const unsigned char *rs = s;
		if (parse_record(r, p, what, &s, nfld, p->final && k + 1 == nrec, v) ||
		    (nodes ? store_node(r, p, rs, rec, v, st, &names) : store_edge(r, p, rs, rec, v, to_limit, &names)))
			return;
	}
	while (s < e && is_ws(*s))
		s++;
	if (s != e)
		piece_fail(r, p, s, "%s: expected ',' or ']'", what);
	note_names(r, p, nodes, &names, st);
}

/* A record's text (whole records are at most 64 values of at most 19
 * digits and a comma each) is no longer than this unless it holds blanks;
 * a longer tail is read by blank_record, so no more is ever carried into
 * the next chunk (CARRY_MAX) and a run of blanks may be of any length. */
#define BLANK_TAIL 2048

/* The record of array ARR (NFLD values) that starts at the reader, with
 * blanks in it: read here a byte at a time (blanks skipped as they come,
 * never held), rebuilt without them with each value's stream offset, and
 * parsed at once as a piece of its own.  *TOTAL (values so far, whole
 * records) grows by NFLD; *CLOSED is set when the ']' ended it, the
 * array's last.  0, or -1 (reported). */
static int blank_record(rd *r, int arr, uint32_t nfld, uint64_t expected, uint64_t *total, int *closed)
{
	const char *what = arr == ARR_NODES ? "nodes" : "edges";
	char text[V8_MAX_FIELDS * 20 + 1]; /* each value and its comma, then ']' */
	uint64_t voff[V8_MAX_FIELDS];
	size_t len = 0;
	*closed = 0;
	for (uint32_t f = 0; f < nfld; f++) {
		int c = v8r_skip_ws(r);
		if (c == ']' && f == 0 && *total == 0 && expected == 0) { /* "[ ... ]": no values */
			r->pos++;
			*closed = 1;
			return 0;
		}
		if (c == ']')
			return v8r_fail(r, v8r_at(r), "%s: %llu values where node_count/edge_count say %llu (%u fields each)",
					what, (unsigned long long)(*total + f + 1), (unsigned long long)expected, nfld);
		if (c < 0)
			return v8r_truncated(r, what);
		if (c < '0' || c > '9')
			return v8r_fail(r, v8r_at(r), "%s: expected a non-negative integer", what);
		voff[f] = v8r_at(r);
		size_t digits = 0;
		while (c >= '0' && c <= '9') {
			if (digits == 19)
				return v8r_fail(r, voff[f], "%s: number too large", what);
			text[len + digits++] = (char)c;
			r->pos++;
			c = v8r_peek(r);
		}
		if (digits > 1 && text[len] == '0')
			return v8r_fail(r, voff[f], "%s: a number with a leading zero (not JSON)", what);
		len += digits;
		c = v8r_skip_ws(r);
		if (c == ',') {
			r->pos++;
			text[len++] = ',';
		} else if (c == ']' && f + 1 == nfld && *total + nfld == expected) {
			r->pos++;
			*closed = 1;
		} else if (c == ']') {
			return v8r_fail(r, v8r_at(r), "%s: %llu values where node_count/edge_count say %llu (%u fields each)",
					what, (unsigned long long)(*total + f + 1), (unsigned long long)expected, nfld);
		} else {
			return c < 0 ? v8r_truncated(r, what) : v8r_fail(r, v8r_at(r), "%s: expected ','", what);
		}
	}
	if (*total + nfld > expected)
		return v8r_fail(r, voff[0], "%s: more values than node_count/edge_count say (%llu, %u fields each)", what,
				(unsigned long long)expected, nfld);
	text[len] = ']'; /* the scan of a final piece stops at its bracket (v8r_parse_piece) */
	piece p = {NULL, text, len, voff[0], *total, nfld, (uint8_t)arr, (uint8_t)*closed, voff};
	v8r_parse_here(r, &p);
	*total += nfld;
	return atomic_load(&r->failed) ? -1 : 0;
}

/* "nodes" or "edges": split the array text into pieces for the workers. */
static int parse_numbers(rd *r, int arr)
{
	v8_raw *raw = r->raw;
	const char *what = arr == ARR_NODES ? "nodes" : "edges";
	uint32_t nfld = arr == ARR_NODES ? raw->nf : raw->ef;
	uint64_t expected = arr == ARR_NODES ? (uint64_t)raw->node_count * raw->nf : (uint64_t)raw->edge_count * raw->ef;
	if (v8r_skip_ws(r) != '[')
		return v8r_peek(r) < 0 ? v8r_truncated(r, what) : v8r_fail(r, v8r_at(r), "%s: expected '['", what);
	if (arr == ARR_NODES)
		r->nodes_off = v8r_at(r);
	r->pos++;
	uint64_t total = 0;
	for (;;) {
		if (r->pos == r->end && v8r_fill(r) <= 0)
			return v8r_truncated(r, what);
		const char *s = r->buf + r->pos, *lim = r->buf + r->end, *close;
		uint64_t commas = count_commas(s, lim, &close);
		if (close) {
			uint64_t n = commas + 1;
			if (commas == 0 && total == 0) { /* "[]" or "[ ]": no values */
				const char *q = s;
				while (q < close && is_ws((unsigned char)*q))
					q++;
				if (q == close)
					n = 0;
			}
			if (total + n != expected)
				return v8r_fail(r, v8r_at(r) + (uint64_t)(close - s),
					    "%s: %llu values where node_count/edge_count say %llu (%u fields each)", what,
					    (unsigned long long)(total + n), (unsigned long long)expected, nfld);
			v8r_dispatch(r, (piece){r->cur, s, (size_t)(close - s), v8r_at(r), total, n, (uint8_t)arr, 1, NULL});
			r->pos = (size_t)(close + 1 - r->buf);
			return 0;
		}
		const char *last = memrchr(s, ',', (size_t)(lim - s)); /* no comma after it: COMMAS are all up to it */
		uint64_t drop = (total + commas) % nfld, keep = commas - drop;
		if (last && keep > 0) {
			const char *cut = last;
			for (uint64_t d = 0; d < drop; d++)
				cut = memrchr(s, ',', (size_t)(cut - s));
			cut++; /* just after the comma that ends the last whole record */
			if (total + keep > expected)
				return v8r_fail(r, v8r_at(r) + (uint64_t)(cut - s),
					    "%s: more values than node_count/edge_count say (%llu, %u fields each)", what,
					    (unsigned long long)expected, nfld);
			v8r_dispatch(r, (piece){r->cur, s, (size_t)(cut - s), v8r_at(r), total, keep, (uint8_t)arr, 0, NULL});
			total += keep;
			r->pos = (size_t)(cut - r->buf);
		}
		if (r->end - r->pos > BLANK_TAIL) { /* a record with blanks in it */
			int closed;
			if (blank_record(r, arr, nfld, expected, &total, &closed))
				return -1;
			if (closed)
				return 0;
			continue;
		}
		ssize_t got = v8r_fill(r);
		if (got < 0)
			return -1;
		if (got == 0)
			return v8r_truncated(r, what);
	}
}

/* ---- the string table ---- */

/* The string table, laid out as the heap's own (strtab.h), so that the
 * mapping takes it over as it is: the empty string first, then each V8
 * string that is not empty, followed by a NUL; the empty ones are listed
 * (v8.h). */
static int parse_strings(rd *r)
{
	v8_raw *raw = r->raw;
	if (v8r_expect(r, '[', "at \"strings\""))
		return -1;
	size_t cap = 1 << 16, len = 1, ocap = 1024, ecap = 0; /* sizes: doubling never wraps */
	raw->sbytes = malloc(cap);
	raw->soff = malloc(ocap * sizeof *raw->soff);
	if (!raw->sbytes || !raw->soff)
		return v8r_fail(r, v8r_at(r), "out of memory");
	raw->sbytes_cap = cap;
	raw->soff_cap = (uint32_t)ocap;
	raw->sbytes[0] = '\0';
	raw->soff[0] = 0;
	raw->soff[1] = 1;
	raw->nids = 1;
	uint32_t n = 0;
	int c = v8r_skip_ws(r);
	if (c == ']') {
		r->pos++;
		raw->nstrings = 0;
		return 0;
	}
	for (;;) {
		if (c != '"')
			return c < 0 ? v8r_truncated(r, "in \"strings\"") : v8r_fail(r, v8r_at(r), "strings: expected a string");
		if (n >= UINT32_MAX - 3)
			return v8r_fail(r, v8r_at(r), "strings: too many strings");
		if (len + V8_STR_KEEP + 1 > cap) {
			while (len + V8_STR_KEEP + 1 > cap)
				cap *= 2;
			char *b = realloc(raw->sbytes, cap);
			if (!b)
				return v8r_fail(r, v8r_at(r), "out of memory (strings)");
			raw->sbytes = b;
			raw->sbytes_cap = cap;
		}
		if (raw->nids + 2 > ocap) {
			uint32_t *o = realloc(raw->soff, (ocap *= 2) * sizeof *o);
			if (!o)
				return v8r_fail(r, v8r_at(r), "out of memory (strings)");
			raw->soff = o;
			raw->soff_cap = (uint32_t)(ocap < UINT32_MAX ? ocap : UINT32_MAX); /* entries past 2^32 - 1 never used */
		}
		size_t got;
		uint64_t at = v8r_at(r);
		if (v8r_string(r, raw->sbytes + len, V8_STR_KEEP, &got, NULL))
			return -1;
		if (got == 0) { /* string 0 is the empty one */
			if (raw->nempties == ecap) {
				ecap = ecap ? ecap * 2 : 4;
				uint32_t *e = realloc(raw->empties, ecap * sizeof *e);
				if (!e)
					return v8r_fail(r, v8r_at(r), "out of memory (strings)");
				raw->empties = e;
			}
			raw->empties[raw->nempties++] = n;
		} else {
			if (len + got + 1 > UINT32_MAX) /* the heap model's string arena holds no more */
				return v8r_fail(r, at, "strings: more than 4 GiB of text");
			raw->sbytes[len + got] = '\0';
			len += got + 1;
			raw->soff[++raw->nids] = (uint32_t)len;
		}
		n++;
		c = v8r_skip_ws(r);
		if (c == ']') {
			r->pos++;
			break;
		}
		if (c != ',')
			return c < 0 ? v8r_truncated(r, "in \"strings\"") : v8r_fail(r, v8r_at(r), "strings: expected ',' or ']'");
		r->pos++;
		c = v8r_skip_ws(r);
	}
	raw->nstrings = n;
	return 0;
}

/* ---- the document ---- */

static int parse_document(rd *r)
{
	int c = v8r_skip_ws(r);
	if (c == 0xEF) { /* a UTF-8 byte order mark */
		for (int k = 0; k < 3; k++)
			if (v8r_peek(r) == (unsigned char)"\xEF\xBB\xBF"[k])
				r->pos++;
		c = v8r_skip_ws(r);
	}
	if (c != '{')
		return c < 0 ? v8r_fail(r, v8r_at(r), "empty file") : v8r_fail(r, v8r_at(r), "not a V8 heap snapshot (expected '{')");
	r->pos++;
	int first = 1, longname, more;
	char key[64];
	uint64_t koff;
	while ((more = v8r_next_member(r, &first, key, sizeof key, &longname, &koff)) > 0) {
		int rc;
		int *seen = NULL;
		if (longname)
			rc = v8r_skip_value(r);
		else if (strcmp(key, "snapshot") == 0) {
			seen = &r->seen_snapshot;
			rc = *seen ? 1 : parse_header(r);
		} else if (strcmp(key, "nodes") == 0 || strcmp(key, "edges") == 0) {
			int arr = key[0] == 'n' ? ARR_NODES : ARR_EDGES;
			seen = arr == ARR_NODES ? &r->seen_nodes : &r->seen_edges;
			if (!r->seen_snapshot)
				return v8r_fail(r, koff, "\"%s\" before \"snapshot\" (its meta says what the numbers are)", key);
			rc = *seen ? 1 : parse_numbers(r, arr);
		} else if (strcmp(key, "strings") == 0) {
			seen = &r->seen_strings;
			rc = *seen ? 1 : parse_strings(r);
		} else
			rc = v8r_skip_value(r);
		if (rc > 0)
			return v8r_fail(r, koff, "\"%s\" given twice", key);
		if (rc)
			return -1;
		if (seen)
			*seen = 1;
	}
	if (more < 0)
		return -1;
	c = v8r_skip_ws(r);
	if (c >= 0)
		return v8r_fail(r, v8r_at(r), "data after the end of the snapshot");
	if (atomic_load(&r->failed))
		return -1;
	const char *missing = !r->seen_snapshot ? "snapshot" : !r->seen_nodes ? "nodes" : !r->seen_edges ? "edges"
			      : !r->seen_strings ? "strings" : NULL;
	if (missing)
		return v8r_fail(r, v8r_at(r), "no \"%s\" member", missing);
	return 0;
}

/* After the whole text: the checks that needed all of it. */
static int final_checks(rd *r)
{
	v8_raw *raw = r->raw;
	if (r->st.has_node_str && r->st.max_node_str >= raw->nstrings)
		return v8r_fail(r, r->st.max_node_str_off, "node name: string index %llu out of range (%u strings)",
			    (unsigned long long)r->st.max_node_str, raw->nstrings);
	if (r->st.has_edge_str && r->st.max_edge_str >= raw->nstrings)
		return v8r_fail(r, r->st.max_edge_str_off, "edge name: string index %llu out of range (%u strings)",
			    (unsigned long long)r->st.max_edge_str, raw->nstrings);
	uint64_t sum = 0;
	for (uint32_t i = 0; i < raw->node_count; i++)
		sum += raw->necount[i];
	if (sum != raw->edge_count)
		return v8r_fail(r, r->nodes_off, "nodes: the edge_count fields add up to %llu, but snapshot.edge_count is %u",
			    (unsigned long long)sum, raw->edge_count);
	raw->clamped = r->st.clamped;
	return 0;
}

void v8_raw_free(v8_raw *raw)
{
	v8r_free_list(raw->node_types, raw->n_node_types);
	free(raw->version);
	free(raw->ntype); free(raw->nname); free(raw->nid); free(raw->nsize); free(raw->necount);
	free(raw->etype); free(raw->ename); free(raw->eto);
	free(raw->sbytes); free(raw->soff); free(raw->empties);
	memset(raw, 0, sizeof *raw);
}

static int cores(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 && n < 1024 ? (int)n : 1;
}

static int workers_for(int threads)
{
	if (threads <= 0)
		threads = cores();
	return threads <= 1 ? 0 : threads > MAX_WORKERS ? MAX_WORKERS : threads;
}

/* Read everything from R's source into RAW, then map it onto H. */
static int run(rd *r, const v8_options *opt, heap *h, char *err, size_t errsize)
{
	v8_raw raw = {0};
	r->raw = &raw;
	r->chunk_size = opt && opt->chunk ? opt->chunk : CHUNK_DEFAULT;
	long page = sysconf(_SC_PAGESIZE);
	r->src.page = page > 0 ? (size_t)page : 4096;
	int threads = opt ? opt->threads : 0;
	pthread_mutex_init(&r->mu, NULL);
	pthread_cond_init(&r->cv_work, NULL);
	pthread_cond_init(&r->cv_free, NULL);
	int rc = 0;
	for (int k = 0; k < NCHUNKS && !r->src.map; k++) { /* a mapped file needs no buffers */
		r->chunks[k].mem = malloc(CARRY_MAX + r->chunk_size);
		if (!r->chunks[k].mem)
			rc = v8r_fail(r, 0, "out of memory");
		r->chunks[k].next_free = r->free_list;
		r->free_list = &r->chunks[k];
	}
	int want = workers_for(threads);
	for (int k = 0; rc == 0 && k < want; k++)
		if (pthread_create(&r->th[k], NULL, v8r_worker, r) == 0)
			r->nworkers++;
	if (rc == 0)
		rc = v8r_source_open(r);
	if (rc == 0)
		rc = parse_document(r);
	v8r_drain(r);
	pthread_mutex_lock(&r->mu);
	r->quit = 1;
	pthread_cond_broadcast(&r->cv_work);
	pthread_mutex_unlock(&r->mu);
	for (int k = 0; k < r->nworkers; k++)
		pthread_join(r->th[k], NULL);
	if (r->src.map) /* the text is parsed: its pages are no longer ours */
		madvise((char *)r->src.map, r->src.map_len, MADV_DONTNEED);
	if (rc == 0 && !r->err_set)
		rc = final_checks(r);
	if (r->err_set)
		rc = -1;
	for (int k = 0; k < NCHUNKS; k++)
		free(r->chunks[k].mem);
	v8r_source_close(&r->src);
	pthread_mutex_destroy(&r->mu);
	pthread_cond_destroy(&r->cv_work);
	pthread_cond_destroy(&r->cv_free);
	if (rc) {
		snprintf(err, errsize, "%s: offset %llu: %s", r->path, (unsigned long long)r->err_off, r->errmsg);
		v8_raw_free(&raw);
		return -1;
	}
	trace_point("load: parse");
	rc = v8_map(r->path, &raw, h, opt ? opt->hook : NULL, err, errsize);
	v8_raw_free(&raw);
	return rc;
}

int v8_parse(const char *path, const char *data, size_t len, const v8_options *opt, heap *h, char *err,
	     size_t errsize)
{
	rd *r = calloc(1, sizeof *r);
	if (!r) {
		snprintf(err, errsize, "%s: out of memory", path);
		return -1;
	}
	r->path = path;
	r->src.fd = -1;
	r->src.mem = data;
	r->src.mem_len = len;
	r->src.raw_size = len;
	r->src.step = opt ? opt->step : 0;
	int rc = run(r, opt, h, err, errsize);
	free(r);
	return rc;
}

int v8_load(const char *path, heap *h, char *err, size_t errsize)
{
	return v8_load_with(path, NULL, h, err, errsize);
}

int v8_load_with(const char *path, const v8_options *opt, heap *h, char *err, size_t errsize)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0) {
		snprintf(err, errsize, "%s: %s", path, strerror(errno));
		return -1;
	}
	struct stat st;
	rd *r = calloc(1, sizeof *r);
	if (!r || fstat(fd, &st) != 0) {
		snprintf(err, errsize, "%s: %s", path, r ? strerror(errno) : "out of memory");
		free(r);
		close(fd);
		return -1;
	}
	r->path = path;
	r->src.fd = fd;
	r->src.raw_size = S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
	/* a plain file is read in place, mapped: no copy into chunk buffers
	 * (a zstd file, or one that cannot be mapped, is read) */
	void *map = MAP_FAILED;
	if (r->src.raw_size >= 4 && r->src.raw_size <= SIZE_MAX / 2 &&
	    (map = mmap(NULL, (size_t)r->src.raw_size, PROT_READ, MAP_PRIVATE, fd, 0)) != MAP_FAILED) {
		/* cut short while mapped, the file gives SIGBUS: an error line */
		tempfiles_watch_mapping(path, map, (size_t)r->src.raw_size);
		if (is_zstd(map, (size_t)r->src.raw_size)) {
			tempfiles_unwatch_mapping(map);
			munmap(map, (size_t)r->src.raw_size);
			map = MAP_FAILED;
		} else {
			r->src.map = map;
			r->src.map_len = (size_t)r->src.raw_size;
		}
	}
	v8_options o = opt ? *opt : (v8_options){0};
	o.step = 0;
	int rc = run(r, &o, h, err, errsize);
	if (map != MAP_FAILED) {
		tempfiles_unwatch_mapping(map);
		munmap(map, (size_t)r->src.raw_size);
	}
	free(r);
	close(fd);
	return rc;
}

int v8_sniff_file(const char *path)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	char raw[65536], text[4096];
	ssize_t n;
	do
		n = read(fd, raw, sizeof raw);
	while (n < 0 && errno == EINTR);
	int yes = 0;
	if (n > 0 && !is_zstd(raw, (size_t)n)) {
		/* blanks may run on past this read (JSON allows any number): read
		 * on until a byte that is not one */
		const unsigned char *p = (const unsigned char *)raw;
		size_t at = n >= 3 && p[0] == 0xEF && p[1] == 0xBB && p[2] == 0xBF ? 3 : 0;
		for (;;) {
			while (at < (size_t)n && is_ws(p[at]))
				at++;
			if (at < (size_t)n) {
				yes = p[at] == '{';
				break;
			}
			do
				n = read(fd, raw, sizeof raw);
			while (n < 0 && errno == EINTR);
			if (n <= 0)
				break;
			at = 0;
		}
	} else if (n > 0) {
		/* decompress until the first non-blank byte shows (a block can need
		 * all of its compressed bytes first), reading at most 16 MiB */
		ZSTD_DStream *zs = ZSTD_createDStream();
		size_t total = 0;
		int decided = 0;
		if (zs)
			ZSTD_initDStream(zs);
		while (zs && !decided && n > 0 && total < (16u << 20)) {
			total += (size_t)n;
			ZSTD_inBuffer in = {raw, (size_t)n, 0};
			while (in.pos < in.size && !decided) {
				ZSTD_outBuffer out = {text, sizeof text, 0};
				size_t rc = ZSTD_decompressStream(zs, &out, &in);
				if (ZSTD_isError(rc))
					decided = 1;
				const unsigned char *p = (const unsigned char *)text, *e = p + out.pos;
				while (p < e && (is_ws(*p) || *p == 0xEF || *p == 0xBB || *p == 0xBF))
					p++;
				if (p < e) {
					yes = *p == '{';
					decided = 1;
				}
				if (rc == 0 && out.pos == 0)
					break;
			}
			do
				n = read(fd, raw, sizeof raw);
			while (n < 0 && errno == EINTR);
		}
		ZSTD_freeDStream(zs);
	}
	close(fd);
	return yes;
}
