/* db_heap.c — an analysis database back into a heap (see db_heap.h).  The
 * tables are read in the order the store wrote them; the heap's slots are
 * the span of the object indexes present, not the count the file states
 * (db_extent.h); every id is checked against the slots and the objects, every kind and text against its
 * domain, objects.node_id against the id the name ends in, positions and list lengths against the rows, and the finished
 * heap goes through heap_validate like any loaded snapshot. */
#include "sql/db_heap.h"

#include <pthread.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "sql/db_extent.h"
#include "sql/input.h"
#include "sql/schema.h"

typedef struct loader {
	sqlite3 *db;
	sqlite3_stmt *st;
	heap *h;
	const char *path;
	char *err;
	size_t errsize;
} loader;

static int fail(loader *l, const char *table, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(loader *l, const char *table, const char *fmt, ...)
{
	int n = snprintf(l->err, l->errsize, "%s: table %s: ", l->path, table);
	va_list ap;
	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < l->errsize)
		vsnprintf(l->err + n, l->errsize - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

/* Prepare SQL over TABLE into l->st (finalizing the previous one). */
static int query(loader *l, const char *table, const char *sql)
{
	sqlite3_finalize(l->st);
	l->st = NULL;
	if (sqlite3_prepare_v2(l->db, sql, -1, &l->st, NULL) != SQLITE_OK)
		return fail(l, table, "not as this version writes it (%s)", sqlite3_errmsg(l->db));
	return 0;
}

/* The next row: 1, 0 at the end, -1 on an error. */
static int step(loader *l, const char *table)
{
	int rc = sqlite3_step(l->st);
	if (rc == SQLITE_ROW)
		return 1;
	if (rc == SQLITE_DONE)
		return 0;
	return fail(l, table, "%s", sqlite3_errmsg(l->db));
}

/* Column C as an integer in [LO, HI]; NULL gives NULLV when NULLOK. */
static int col_int(loader *l, int c, int nullok, int64_t nullv, int64_t lo, int64_t hi, int64_t *out)
{
	int type = sqlite3_column_type(l->st, c);
	if (type == SQLITE_NULL && nullok) {
		*out = nullv;
		return 0;
	}
	if (type != SQLITE_INTEGER)
		return -1;
	*out = sqlite3_column_int64(l->st, c);
	return *out < lo || *out > hi ? -1 : 0;
}

/* The id of column C's text in the strings (0 for NULL when NULLOK), or
 * UINT32_MAX when it is no text there. */
static uint32_t col_str(loader *l, int c, int nullok)
{
	int type = sqlite3_column_type(l->st, c);
	if (type == SQLITE_NULL)
		return nullok ? 0 : UINT32_MAX;
	if (type != SQLITE_TEXT)
		return UINT32_MAX;
	const char *s = (const char *)sqlite3_column_text(l->st, c);
	return s ? strtab_find(&l->h->strings, s, (size_t)sqlite3_column_bytes(l->st, c)) : UINT32_MAX;
}

/* The header: the slots to make (the span of the indexes present,
 * db_extent.h), the disregard pool, the snapshot's mode, and the mode and
 * keep flags the analysis ran with. */
static int load_header(loader *l, gc_options *opt, int64_t *slots)
{
	static const char t[] = "snapshot";
	db_extent e;
	char why[256];
	if (db_read_extent(l->db, &e, why, sizeof why)) {
		snprintf(l->err, l->errsize, "%s: %s", l->path, why);
		return -1;
	}
	*slots = e.span; /* what is present, not what the file states (db_extent.h) */
	l->h->first_gc_index = (obj_t)e.first_gc_index;
	if (query(l, t, "SELECT (SELECT value FROM snapshot WHERE key = 'schema_version'), "
		  "(SELECT value FROM snapshot WHERE key = 'snapshot_mode'), (SELECT value FROM snapshot WHERE key = 'mode'), "
		  "(SELECT value FROM snapshot WHERE key = 'keep_flags')") || step(l, t) != 1)
		return l->err[0] ? -1 : fail(l, t, "no header");
	int64_t version;
	if (col_int(l, 0, 0, 0, SCHEMA_VERSION, SCHEMA_VERSION, &version)) /* checked by db_check_version */
		return fail(l, t, "schema_version is not %d", SCHEMA_VERSION);
	const char *keys[2] = {"snapshot_mode", "mode"};
	int modes[2];
	for (int k = 0; k < 2; k++) {
		const char *m = (const char *)sqlite3_column_text(l->st, 1 + k);
		if (!m || (strcmp(m, "game") && strcmp(m, "editor")))
			return fail(l, t, "%s is not game or editor", keys[k]);
		modes[k] = strcmp(m, "editor") == 0 ? MODE_EDITOR : MODE_GAME;
	}
	l->h->mode = modes[0];
	opt->mode = modes[1];
	const char *keep = (const char *)sqlite3_column_text(l->st, 3);
	char bad[64];
	opt->keep_flags = 0;
	if (!keep || (strcmp(keep, "-") && flags_parse_object(keep, &opt->keep_flags, bad, sizeof bad)))
		return fail(l, t, "keep_flags is not a list of RF_ flags");
	return 0;
}

/* The strings, with their ids: 1, 2, ... in order, each text once. */
static int load_strings(loader *l)
{
	static const char t[] = "strings";
	int rc;
	if (query(l, t, "SELECT id, text FROM strings ORDER BY id"))
		return -1;
	for (int64_t want = 1; (rc = step(l, t)) == 1; want++) {
		int64_t id;
		const char *s = (const char *)sqlite3_column_text(l->st, 1);
		if (col_int(l, 0, 0, 0, want, want, &id) || sqlite3_column_type(l->st, 1) != SQLITE_TEXT || !s)
			return fail(l, t, "row %lld: ids are not 1, 2, 3, ... with a text each", (long long)want);
		size_t len = (size_t)sqlite3_column_bytes(l->st, 1);
		if (len == 0 || memchr(s, '\0', len)) /* what a snapshot can say: "" is id 0, no NUL */
			return fail(l, t, "id %lld is empty or holds a NUL byte", (long long)id);
		uint32_t got = strtab_intern(&l->h->strings, s, len);
		if (got == UINT32_MAX)
			return fail(l, t, "out of memory");
		if (got != (uint32_t)id)
			return fail(l, t, "id %lld repeats the text of id %u", (long long)id, got);
	}
	return rc;
}

static int load_texts(loader *l)
{
	static const char t[] = "snapshot";
	if (query(l, t, "SELECT (SELECT value FROM snapshot WHERE key = 'engine'), "
		  "(SELECT value FROM snapshot WHERE key = 'label')") || step(l, t) != 1)
		return l->err[0] ? -1 : fail(l, t, "no header");
	l->h->engine = col_str(l, 0, 1);
	l->h->label = col_str(l, 1, 1);
	if (l->h->engine == UINT32_MAX || l->h->label == UINT32_MAX)
		return fail(l, t, "engine or label is not a text of table strings");
	return 0;
}

static int load_objects(loader *l)
{
	static const char t[] = "object_table";
	heap *h = l->h;
	int rc;
	if (query(l, t, "SELECT idx, serial, class, outer, name, size, flags, node_id FROM object_table ORDER BY idx"))
		return -1;
	int64_t max = (int64_t)h->slots - 1;
	while ((rc = step(l, t)) == 1) {
		int64_t i, serial, cls, outer, size;
		if (col_int(l, 0, 0, 0, 0, max, &i))
			return fail(l, t, "an object index is not one of the %u slots", h->slots);
		if (col_int(l, 1, 0, 0, 0, UINT32_MAX, &serial) || col_int(l, 2, 0, 0, 0, max, &cls) ||
		    col_int(l, 3, 1, OBJ_NONE, 0, max, &outer) || col_int(l, 5, 0, 0, 0, UINT32_MAX, &size))
			return fail(l, t, "object %lld: serial, class, outer or size is not a valid value", (long long)i);
		const char *name = (const char *)sqlite3_column_text(l->st, 4);
		const char *flags = (const char *)sqlite3_column_text(l->st, 6);
		if (!name || !flags)
			return fail(l, t, "object %lld: no name or flags", (long long)i);
		size_t len = (size_t)sqlite3_column_bytes(l->st, 4), base;
		uint32_t num, id;
		fname_split(name, len, &base, &num);
		if ((id = strtab_find(&h->strings, name, base)) == UINT32_MAX && num &&
		    strtab_find(&h->strings, name, len) != UINT32_MAX) {
			/* written before "@N" was a number: table strings holds the
			 * whole name; its base joins the strings, as a fresh load has it */
			if ((id = strtab_intern(&h->strings, name, base)) == UINT32_MAX)
				return fail(l, t, "out of memory");
		}
		if (id == UINT32_MAX)
			return fail(l, t, "object %lld: its name is not in table strings", (long long)i);
		char bad[64];
		if (flags_parse(flags, (size_t)sqlite3_column_bytes(l->st, 6), &h->oflags[i], &h->iflags[i], &h->traits[i],
				bad, sizeof bad))
			return fail(l, t, "object %lld: unknown flag '%s'", (long long)i, bad);
		h->serial[i] = (uint32_t)serial;
		h->cls[i] = (obj_t)cls;
		h->outer[i] = (obj_t)outer;
		h->name[i] = id;
		h->name_num[i] = num;
		h->size[i] = (uint32_t)size;
		h->objects++;
		/* derived from the name, so it must say what the name says */
		int64_t node_id, want = heap_node_id(h, (obj_t)i);
		if (col_int(l, 7, want < 0, -1, want < 0 ? 0 : want, want < 0 ? -1 : want, &node_id))
			return fail(l, t, "object %lld: node_id is not %s", (long long)i,
				    want < 0 ? "NULL (no V8 node id in its name)" : "the id its name ends in");
	}
	return rc;
}

/* A reference row out of place (a source not an object, or out of order,
 * or a position not the next). */
#define ROW_OUT_OF_PLACE "row %lld: sources are not objects in order with positions 0, 1, 2, ..."

/* Where the upper range's rows begin: the rows whose sources are below
 * the split, counted by the upper range's thread before it reads its own;
 * the lower range waits for the count, so the two write disjoint places
 * whatever the file holds. */
typedef struct split {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int state;     /* 0: not counted yet; 1: LOWER is the count; -1: it failed */
	int64_t lower;
} split;

static void split_publish(split *sp, int state, int64_t lower)
{
	pthread_mutex_lock(&sp->mu);
	if (sp->state == 0) {
		sp->state = state;
		sp->lower = lower;
		pthread_cond_broadcast(&sp->cv);
	}
	pthread_mutex_unlock(&sp->mu);
}

/* The count: 0 with *LOWER, or -1 when the other range could not count. */
static int split_wait(split *sp, int64_t *lower)
{
	pthread_mutex_lock(&sp->mu);
	while (sp->state == 0)
		pthread_cond_wait(&sp->cv, &sp->mu);
	int ok = sp->state == 1;
	*lower = sp->lower;
	pthread_mutex_unlock(&sp->mu);
	return ok ? 0 : -1;
}

/* The reference rows of the objects LO..HI-1 (as sources), read through
 * L: each row's values checked against the domains and placed at its
 * position, which must run on from START (0 for the lower range, the
 * split's count for the upper) and stay below END (the count, or N).
 * Whether the sources and targets are objects is checked once both ranges
 * are in (refs_check), so that a range can be read while the objects are. */
typedef struct ref_range {
	loader *l;
	int upper;        /* the upper range: it counts the lower's rows */
	int64_t lo, hi, n;
	int64_t nstrings; /* property ids are below it */
	split *sp;
	int64_t start;    /* the first row's position */
	int64_t rows;     /* the rows read */
	int rc;
} ref_range;

static void read_ref_range(ref_range *g)
{
	static const char t[] = "ref_table";
	loader *l = g->l;
	heap *h = l->h;
	int64_t end = g->n, count;
	if (!l->db && !(l->db = input_open_sql(l->path, INPUT_SQL_ANALYSIS, l->err, l->errsize)))
		return;
	if (!g->upper) {
		if (split_wait(g->sp, &end))
			return; /* the other range's error is the one to report */
	} else {
		if (query(l, t, "SELECT count(*) FROM ref_table WHERE src < ?1"))
			return;
		sqlite3_bind_int64(l->st, 1, g->lo);
		if (step(l, t) != 1 || col_int(l, 0, 0, 0, 0, g->n, &count)) {
			if (!l->err[0])
				fail(l, t, "cannot count the rows");
			return;
		}
		split_publish(g->sp, 1, count);
		g->start = count;
	}
	if (query(l, t, "SELECT src, pos, dst, kind, prop FROM ref_table WHERE src >= ?1 AND src < ?2 ORDER BY src, pos"))
		return;
	sqlite3_bind_int64(l->st, 1, g->lo);
	sqlite3_bind_int64(l->st, 2, g->hi);
	int64_t max = (int64_t)h->slots - 1, last = g->lo, k = 0;
	int rc;
	while ((rc = step(l, t)) == 1) {
		int64_t src, pos, dst, kind, prop;
		if (col_int(l, 0, 0, 0, last, g->hi - 1, &src) || col_int(l, 1, 0, 0, g->start + k, g->start + k, &pos) ||
		    pos >= end) {
			fail(l, t, ROW_OUT_OF_PLACE, (long long)(g->start + k));
			return;
		}
		if (col_int(l, 2, 0, 0, 0, max, &dst)) {
			fail(l, t, "reference %lld of object %lld: target is not an object", (long long)pos, (long long)src);
			return;
		}
		if (col_int(l, 3, 0, 0, 0, REF_KIND_COUNT - 1, &kind) || col_int(l, 4, 1, 0, 1, g->nstrings - 1, &prop)) {
			fail(l, t, "reference %lld of object %lld: bad kind or property id", (long long)pos, (long long)src);
			return;
		}
		h->ref_dst[pos] = (obj_t)dst;
		h->ref_kind[pos] = (uint8_t)kind;
		h->ref_prop[pos] = (uint32_t)prop;
		h->ref_start[src + 1]++;
		last = src;
		k++;
	}
	g->rows = k;
	g->rc = rc;
}

static void *load_ref_range(void *arg)
{
	ref_range *g = arg;
	g->rc = -1;
	g->rows = 0;
	read_ref_range(g);
	if (g->upper)
		split_publish(g->sp, -1, 0); /* when it failed before its count */
	return NULL;
}

/* The ranges' rows are the table's, back to back; every source and target
 * an object (the first row that breaks it named); the rows' starts summed. */
static int refs_check(loader *l, const ref_range *a, const ref_range *b)
{
	static const char t[] = "ref_table";
	heap *h = l->h;
	if (a->rows != b->start)
		return fail(l, t, "%lld rows of the objects below %lld counted, %lld read", (long long)b->start,
			    (long long)b->lo, (long long)a->rows);
	if (a->rows + b->rows != a->n)
		return fail(l, t, "%lld rows counted, %lld read", (long long)a->n, (long long)(a->rows + b->rows));
	for (uint32_t i = 0; i < h->slots; i++)
		h->ref_start[i + 1] += h->ref_start[i];
	for (uint32_t i = 0; i < h->slots; i++)
		for (uint32_t k = h->ref_start[i]; k < h->ref_start[i + 1]; k++) {
			if (h->cls[i] == OBJ_FREE)
				return fail(l, t, ROW_OUT_OF_PLACE, (long long)k);
			if (h->cls[h->ref_dst[k]] == OBJ_FREE)
				return fail(l, t, "reference %u of object %u: target is not an object", k, i);
		}
	h->nrefs = (uint32_t)a->n;
	return 0;
}

/* The objects and the reference rows (by source, positions 0, 1, 2, ... in
 * file order): the references of the upper objects on a second connection
 * and thread while this one reads the objects, then the lower objects'
 * (SQLite's row by row reading is the cost of a large database). */
static int load_objects_and_refs(loader *l)
{
	static const char t[] = "ref_table";
	heap *h = l->h;
	int64_t n;
	if (query(l, t, "SELECT count(*) FROM ref_table") || step(l, t) != 1 || col_int(l, 0, 0, 0, 0, UINT32_MAX - 1, &n))
		return l->err[0] ? -1 : fail(l, t, "too many rows");
	h->ref_start = calloc((size_t)h->slots + 1, sizeof *h->ref_start);
	h->ref_dst = malloc((size_t)n * sizeof *h->ref_dst + 1);
	h->ref_prop = malloc((size_t)n * sizeof *h->ref_prop + 1);
	h->ref_kind = malloc((size_t)n + 1);
	if (!h->ref_start || !h->ref_dst || !h->ref_prop || !h->ref_kind)
		return fail(l, t, "out of memory");
	char err2[SNAP_ERR_MAX] = "";
	loader l2 = {NULL, NULL, h, l->path, err2, sizeof err2};
	/* the split: half the sources each (a lower range of 3/8, as this
	 * thread reads the objects first, ended later on the 2M-object heap) */
	int64_t mid = (int64_t)h->slots / 2, nstrings = h->strings.count;
	split sp = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0};
	ref_range a = {l, 0, 0, mid, n, nstrings, &sp, 0, 0, -1};
	ref_range b = {&l2, 1, mid, (int64_t)h->slots, n, nstrings, &sp, 0, 0, -1};
	job j;
	job_start(&j, load_ref_range, &b);
	int rc = load_objects(l);
	trace_point("database: objects");
	int beside = j.beside;
	if (!beside)
		job_wait(&j); /* no second thread: the upper range here, first (its count the lower one waits for) */
	if (rc == 0) {
		load_ref_range(&a);
		rc = a.rc;
	}
	trace_point("database: references of the lower objects");
	if (beside)
		job_wait(&j);
	trace_point("database: references");
	sqlite3_finalize(l2.st);
	sqlite3_close(l2.db);
	if (b.rc && (rc == 0 || !l->err[0])) { /* the upper range failed first, or it alone */
		snprintf(l->err, l->errsize, "%s", err2[0] ? err2 : "out of memory");
		rc = -1;
	}
	return rc ? -1 : refs_check(l, &a, &b);
}

/* The dangling and FGCObject records, in the order stored. */
static int load_records(loader *l)
{
	static const char td[] = "dangling_refs", tg[] = "gc_object_refs";
	heap *h = l->h;
	int rc;
	if (query(l, td, "SELECT src, dst, kind, property FROM dangling_refs ORDER BY rowid"))
		return -1;
	while ((rc = step(l, td)) == 1) {
		int64_t src, dst;
		const char *kind = (const char *)sqlite3_column_text(l->st, 2);
		int k = kind ? ref_kind_parse(kind, strlen(kind)) : -1;
		uint32_t prop = col_str(l, 3, 1);
		if (col_int(l, 0, 0, 0, 0, (int64_t)h->slots - 1, &src) || h->cls[src] == OBJ_FREE ||
		    col_int(l, 1, 0, 0, 0, OBJ_INDEX_MAX, &dst) || heap_exists(h, dst) || k < 0 || prop == UINT32_MAX)
			return fail(l, td, "record %u: source not an object, target an object, or bad kind or property",
				    h->ndangling);
		if (heap_needs_grow(h->ndangling)) {
			dangling_ref *v = realloc(h->dangling, heap_grow_cap(h->ndangling) * sizeof *v);
			if (!v)
				return fail(l, td, "out of memory");
			h->dangling = v;
		}
		h->dangling[h->ndangling++] = (dangling_ref){(obj_t)src, (obj_t)dst, prop, (uint8_t)k};
	}
	if (rc || query(l, tg, "SELECT referencer, dst, property FROM gc_object_refs ORDER BY rowid"))
		return -1;
	while ((rc = step(l, tg)) == 1) {
		int64_t dst;
		uint32_t who = col_str(l, 0, 1), prop = col_str(l, 2, 1);
		if (col_int(l, 1, 0, 0, 0, OBJ_INDEX_MAX, &dst) || who == UINT32_MAX || prop == UINT32_MAX)
			return fail(l, tg, "record %u: bad target, or a referencer or property not in table strings", h->ngcrefs);
		if (heap_needs_grow(h->ngcrefs)) {
			gc_ref *v = realloc(h->gcrefs, heap_grow_cap(h->ngcrefs) * sizeof *v);
			if (!v)
				return fail(l, tg, "out of memory");
			h->gcrefs = v;
		}
		h->gcrefs[h->ngcrefs++] = (gc_ref){who, (obj_t)dst, prop};
	}
	return rc;
}

/* One cluster list (TABLE's rows for ROOT, in order) onto cluster_items;
 * its length must be WANT. */
static int load_list(loader *l, sqlite3_stmt *st, const char *table, obj_t root, int64_t want, uint32_t *start,
		     uint32_t *count)
{
	heap *h = l->h;
	*start = h->ncluster_items;
	sqlite3_reset(st);
	sqlite3_bind_int64(st, 1, root);
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t x = sqlite3_column_int64(st, 0);
		if (sqlite3_column_type(st, 0) != SQLITE_INTEGER || x < 0 || x >= h->slots)
			return fail(l, table, "cluster %d: an entry is not one of the slots", root);
		if (heap_needs_grow(h->ncluster_items)) {
			obj_t *v = realloc(h->cluster_items, heap_grow_cap(h->ncluster_items) * sizeof *v);
			if (!v)
				return fail(l, table, "out of memory");
			h->cluster_items = v;
		}
		h->cluster_items[h->ncluster_items++] = (obj_t)x;
	}
	if (rc != SQLITE_DONE)
		return fail(l, table, "%s", sqlite3_errmsg(l->db));
	*count = h->ncluster_items - *start;
	if (*count != want)
		return fail(l, table, "cluster %d lists %u entries, table clusters says %lld", root, *count, (long long)want);
	return 0;
}

static const char *const list_tables[3] = {"cluster_members", "cluster_mutable", "cluster_refs"};

/* The clusters, in the snapshot's order (clusters.position), with their lists. */
static int load_clusters(loader *l)
{
	static const char t[] = "clusters";
	heap *h = l->h;
	sqlite3_stmt *lists[3] = {NULL, NULL, NULL};
	static const char *const sql[3] = {
		"SELECT idx FROM cluster_members WHERE root = ?1 ORDER BY rowid",
		"SELECT idx FROM cluster_mutable WHERE root = ?1 ORDER BY rowid",
		"SELECT referenced_root FROM cluster_refs WHERE root = ?1 ORDER BY rowid",
	};
	int rc = query(l, t, "SELECT root, position, members, mutable, referenced FROM clusters ORDER BY position");
	for (int k = 0; k < 3 && rc == 0; k++)
		if (sqlite3_prepare_v2(l->db, sql[k], -1, &lists[k], NULL) != SQLITE_OK)
			rc = fail(l, list_tables[k], "not as this version writes it (%s)", sqlite3_errmsg(l->db));
	uint64_t listed[3] = {0, 0, 0};
	while (rc == 0 && (rc = step(l, t)) == 1) {
		rc = 0;
		int64_t root, pos, n[3];
		if (col_int(l, 0, 0, 0, 0, (int64_t)h->slots - 1, &root) || col_int(l, 1, 0, 0, h->nclusters, h->nclusters, &pos) ||
		    col_int(l, 2, 0, 0, 0, UINT32_MAX, &n[0]) || col_int(l, 3, 0, 0, 0, UINT32_MAX, &n[1]) ||
		    col_int(l, 4, 0, 0, 0, UINT32_MAX, &n[2])) {
			rc = fail(l, t, "row %u: root, position (0, 1, 2, ...) or a list length is not valid", h->nclusters);
			break;
		}
		if (heap_needs_grow(h->nclusters)) {
			cluster *v = realloc(h->clusters, heap_grow_cap(h->nclusters) * sizeof *v);
			if (!v) {
				rc = fail(l, t, "out of memory");
				break;
			}
			h->clusters = v;
		}
		cluster *c = &h->clusters[h->nclusters++];
		memset(c, 0, sizeof *c);
		c->root = (obj_t)root;
		uint32_t *start[3] = {&c->members, &c->mutables, &c->refs}, *count[3] = {&c->n_members, &c->n_mutables, &c->n_refs};
		for (int k = 0; k < 3 && rc == 0; k++) {
			rc = load_list(l, lists[k], list_tables[k], c->root, n[k], start[k], count[k]);
			listed[k] += (uint64_t)n[k];
		}
	}
	/* every list row belongs to a cluster */
	for (int k = 0; k < 3 && rc == 0; k++) {
		char q[96];
		int64_t rows;
		snprintf(q, sizeof q, "SELECT count(*) FROM %s", list_tables[k]);
		if (query(l, list_tables[k], q) || step(l, list_tables[k]) != 1 || col_int(l, 0, 0, 0, 0, INT64_MAX, &rows))
			rc = l->err[0] ? -1 : fail(l, list_tables[k], "cannot count the rows");
		else if ((uint64_t)rows != listed[k])
			rc = fail(l, list_tables[k], "%lld rows, of which %llu belong to a cluster of table clusters",
				  (long long)rows, (unsigned long long)listed[k]);
	}
	for (int k = 0; k < 3; k++)
		sqlite3_finalize(lists[k]);
	return rc;
}

int db_heap_load(const char *path, heap *h, gc_options *opt, char *err, size_t errsize)
{
	heap_init(h);
	loader l = {NULL, NULL, h, path, err, errsize};
	err[0] = '\0';
	int64_t slots = 0;
	int rc = -1;
	/* untrusted: opened as every reader opens a database file (input.h),
	 * its version and its schema checked */
	if (!(l.db = input_open_sql(path, INPUT_SQL_ANALYSIS, err, errsize)))
		goto out;
	if (load_header(&l, opt, &slots))
		goto out;
	if (heap_grow_slots(h, (uint32_t)slots)) {
		fail(&l, "snapshot", "out of memory for %lld slots", (long long)slots);
		goto out;
	}
	if (load_strings(&l) || load_texts(&l) || load_objects_and_refs(&l) || load_records(&l) || load_clusters(&l))
		goto out;
	obj_t where;
	uint32_t cluster_id;
	char why[256];
	int problem = heap_validate(h, why, sizeof why, &where, &cluster_id);
	if (problem != HP_OK) {
		fail(&l, problem <= HP_OUTER_LOOP ? "object_table" : "clusters", "%s", why);
		goto out;
	}
	rc = 0;
out:
	if (rc && !err[0])
		snprintf(err, errsize, "%s: %s", path, l.db ? sqlite3_errmsg(l.db) : "cannot open");
	sqlite3_finalize(l.st);
	sqlite3_close(l.db);
	if (rc)
		heap_free(h);
	return rc;
}
