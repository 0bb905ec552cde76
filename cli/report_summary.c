/* report_summary.c — the GC's summary for the report's header (report.h):
 * from a snapshot, its heap and GC result, counted as analyze counts them;
 * from a database, one scan of its objects and one of its purge table,
 * counted as info counts them. */
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/report.h"
#include "base/base.h"

void report_summary_free(report_summary *s)
{
	for (size_t i = 0; i < s->npurge; i++)
		free(s->purge[i].name);
	free(s->purge);
	memset(s, 0, sizeof *s);
}

/* Most bytes first, then most objects, then the lower class index (NAME
 * points at the class index while the rows are sorted). */
static int cmp_purge_keyed(const void *a, const void *b)
{
	const report_purge *x = a, *y = b;
	if (x->bytes != y->bytes)
		return x->bytes < y->bytes ? 1 : -1;
	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	obj_t cx = *(const obj_t *)x->name, cy = *(const obj_t *)y->name;
	return (cx > cy) - (cx < cy);
}

/* A purged object: its class and bytes. */
typedef struct purged_obj {
	obj_t cls;
	uint32_t size;
} purged_obj;

static int cmp_purged(const void *a, const void *b)
{
	obj_t x = ((const purged_obj *)a)->cls, y = ((const purged_obj *)b)->cls;
	return (x > y) - (x < y);
}

/* Names class CLS into BUF (HEAP_NAME_MAX bytes, raw); 0, or -1. */
typedef int class_namer(void *ctx, obj_t cls, char *buf);

/* The purged objects P[0..NP) by class: sorted by class, summed a run a
 * class, the TOP most bytes kept and named by NAME.  P is sorted here. */
static int purge_group(purged_obj *p, size_t np, size_t top, class_namer *name, void *ctx, report_summary *s)
{
	report_purge *v = calloc(np + 1, sizeof *v);
	obj_t *key = malloc((np + 1) * sizeof *key);
	if (!v || !key) {
		free(v);
		free(key);
		return -1;
	}
	if (np > 1)
		qsort(p, np, sizeof *p, cmp_purged);
	size_t n = 0;
	for (size_t k = 0; k < np; k++) {
		if (k == 0 || p[k].cls != p[k - 1].cls)
			key[n++] = p[k].cls;
		v[n - 1].count++;
		v[n - 1].bytes += p[k].size;
	}
	/* only the TOP shown are named: sorted by bytes with their keys first */
	for (size_t i = 0; i < n; i++)
		v[i].name = (char *)&key[i]; /* the class, until named */
	if (n > 1)
		qsort(v, n, sizeof *v, cmp_purge_keyed);
	s->purge_classes = n;
	s->npurge = n < top ? n : top;
	int rc = 0;
	for (size_t i = 0; i < n; i++) {
		obj_t c = *(const obj_t *)v[i].name;
		v[i].name = NULL;
		if (i >= s->npurge || rc)
			continue;
		char buf[HEAP_NAME_MAX];
		if (name(ctx, c, buf) || !(v[i].name = strdup(disp(buf))))
			rc = -1;
	}
	free(key);
	s->purge = v;
	return rc;
}

static int heap_class_name(void *ctx, obj_t cls, char *buf)
{
	heap_name(ctx, cls, buf, HEAP_NAME_MAX);
	return 0;
}

static int purge_heap(heap *h, const gc_result *r, size_t top, report_summary *s)
{
	purged_obj *p = malloc(((size_t)r->npurged + 1) * sizeof *p);
	if (!p)
		return -1;
	for (uint32_t k = 0; k < r->npurged; k++)
		p[k] = (purged_obj){h->cls[r->purged[k]], h->size[r->purged[k]]};
	int rc = purge_group(p, r->npurged, top, heap_class_name, h, s);
	free(p);
	return rc;
}

static int from_heap(heap *h, gc_result *r, size_t top, report_summary *s)
{
	/* root kinds are ugc-gc(7) §3, which the input leaves to its first
	 * user (the view then finds it done) */
	if (!r->distance && gc_retention(h, r, r->keep_flags))
		return -1;
	if (h->engine)
		snprintf(s->engine, sizeof s->engine, "%s", disp(heap_str(h, h->engine)));
	snprintf(s->mode, sizeof s->mode, "%s", h->mode == MODE_EDITOR ? "editor" : "game");
	if (h->label)
		snprintf(s->label, sizeof s->label, "%s", disp(heap_str(h, h->label)));
	s->objects = h->objects;
	s->reachable = r->reachable_count;
	s->purged = r->npurged;
	s->purged_bytes = r->purged_bytes;
	s->references = h->nrefs;
	s->clusters = h->nclusters;
	for (int k = 0; k < CF_COUNT; k++)
		s->fates[k] = r->dissolved[k];
	/* roots as analyze, info and the roots view count them */
	for (uint32_t i = 0; i < h->slots; i++)
		if (r->root_kind[i] != RK_NONE && RK_IS_ROOT(r->root_kind[i])) {
			s->roots[r->root_kind[i]]++;
			s->nroots++;
		}
	return purge_heap(h, r, top, s);
}

/* One integer from SQL: 0, or -1. */
static int one_int(sqlite3 *db, const char *sql, const char *arg, uint64_t *out)
{
	sqlite3_stmt *st;
	*out = 0;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	if (arg)
		sqlite3_bind_text(st, 1, arg, -1, SQLITE_STATIC);
	int rc = -1;
	if (sqlite3_step(st) == SQLITE_ROW) {
		sqlite3_int64 v = sqlite3_column_int64(st, 0);
		*out = v > 0 ? (uint64_t)v : 0;
		rc = 0;
	}
	sqlite3_finalize(st);
	return rc;
}

static void header_text(sqlite3 *db, const char *key, char *buf, size_t cap)
{
	sqlite3_stmt *st;
	buf[0] = '\0';
	if (sqlite3_prepare_v2(db, "SELECT value FROM snapshot WHERE key = ?1", -1, &st, NULL) != SQLITE_OK)
		return;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
		const unsigned char *t = sqlite3_column_text(st, 0);
		snprintf(buf, cap, "%s", t ? disp((const char *)t) : "?");
	}
	sqlite3_finalize(st);
}

/* A class's name from a database (ctx: the prepared statement). */
static int db_class_name(void *ctx, obj_t cls, char *buf)
{
	sqlite3_stmt *st = ctx;
	sqlite3_reset(st);
	sqlite3_bind_int64(st, 1, cls);
	buf[0] = '\0';
	if (sqlite3_step(st) == SQLITE_ROW) {
		const unsigned char *t = sqlite3_column_text(st, 0);
		snprintf(buf, HEAP_NAME_MAX, "%s", t ? (const char *)t : "");
	}
	return 0;
}

/* Room for slot I in C's columns (grown by doubling, new slots OBJ_NONE). */
static int columns_room(report_columns *c, size_t *cap, uint32_t i)
{
	if (i < *cap)
		return 0;
	size_t n = *cap ? *cap : 1024;
	while (n <= i)
		n *= 2;
	obj_t *cls = realloc(c->cls, n * sizeof *cls);
	if (cls)
		c->cls = cls;
	obj_t *outer = cls ? realloc(c->outer, n * sizeof *outer) : NULL;
	if (!outer)
		return -1;
	c->outer = outer;
	for (size_t k = *cap; k < n; k++)
		c->cls[k] = c->outer[k] = OBJ_NONE;
	*cap = n;
	return 0;
}

/* One scan of object_table (the counts, the roots by kind as the roots
 * view counts them, and each object's class and Outer into C), one of
 * purge, and a few small queries. */
static int from_db(const char *path, size_t top, report_summary *s, report_columns *c)
{
	char err[1024];
	sqlite3 *db = input_open_sql(path, INPUT_SQL_ANALYSIS, err, sizeof err);
	if (!db)
		return error("%s", err);
	/* the scan reads the whole table: mapped, not copied page by page */
	sqlite3_exec(db, "PRAGMA mmap_size = 1099511627776", NULL, NULL, NULL);
	header_text(db, "engine", s->engine, sizeof s->engine);
	header_text(db, "mode", s->mode, sizeof s->mode);
	header_text(db, "label", s->label, sizeof s->label);
	sqlite3_stmt *st = NULL, *names = NULL;
	purged_obj *p = NULL;
	size_t cap = 0, np = 0, pcap = 0;
	int rc = 1;
	db_extent e; /* every index below e.span, checked as every database reader does */
	if (db_read_extent(db, &e, err, sizeof err)) {
		error("%s: %s", path, err);
		goto out;
	}
	if (one_int(db, REFS_COUNT_SQL, NULL, &s->references) ||
	    one_int(db, "SELECT count(*) FROM clusters", NULL, &s->clusters) ||
	    one_int(db, "SELECT count(*) FROM clusters WHERE state = 'alive'", NULL, &s->fates[CF_ALIVE]))
		goto sqlfail;
	for (int k = 1; k < CF_COUNT; k++)
		if (one_int(db, "SELECT count(*) FROM clusters WHERE state = 'dissolved' AND reason = ?1",
			    cluster_fate_names[k], &s->fates[k]))
			goto sqlfail;
	if (sqlite3_prepare_v2(db, "SELECT idx, class, outer, reachable, distance, root_kind FROM object_table", -1, &st,
			       NULL) != SQLITE_OK)
		goto sqlfail;
	int step;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		sqlite3_int64 i = sqlite3_column_int64(st, 0), cl = sqlite3_column_int64(st, 1);
		sqlite3_int64 o = sqlite3_column_int64(st, 2);
		s->objects++;
		s->reachable += sqlite3_column_int64(st, 3) == 1;
		if (sqlite3_column_type(st, 4) == SQLITE_INTEGER && sqlite3_column_int64(st, 4) == 0) {
			int k = root_kind_parse((const char *)sqlite3_column_text(st, 5));
			if (k != RK_NONE && RK_IS_ROOT(k)) {
				s->roots[k]++;
				s->nroots++;
			}
		}
		if (i < 0 || i >= (sqlite3_int64)e.span)
			continue; /* no dominator names it */
		if (columns_room(c, &cap, (uint32_t)i)) {
			error("out of memory");
			goto out;
		}
		c->cls[i] = cl >= 0 && cl < (sqlite3_int64)e.span && sqlite3_column_type(st, 1) != SQLITE_NULL ? (obj_t)cl : OBJ_NONE;
		c->outer[i] = sqlite3_column_type(st, 2) != SQLITE_NULL && o >= 0 && o < (sqlite3_int64)e.span ? (obj_t)o : OBJ_NONE;
		if ((uint32_t)i >= c->n)
			c->n = (uint32_t)i + 1;
	}
	if (step != SQLITE_DONE)
		goto sqlfail;
	sqlite3_finalize(st);
	st = NULL;
	/* purged by class: the classes from the scan, the shown ones named */
	if (sqlite3_prepare_v2(db, "SELECT idx, size FROM purge", -1, &st, NULL) != SQLITE_OK)
		goto sqlfail;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		sqlite3_int64 i = sqlite3_column_int64(st, 0), size = sqlite3_column_int64(st, 1);
		if (grow_array((void **)&p, &pcap, np, sizeof *p)) {
			error("out of memory");
			goto out;
		}
		p[np++] = (purged_obj){i >= 0 && i < c->n ? c->cls[i] : OBJ_NONE,
				       size > 0 && size <= UINT32_MAX ? (uint32_t)size : 0};
		s->purged_bytes += size > 0 && size <= UINT32_MAX ? (uint64_t)size : 0;
	}
	if (step != SQLITE_DONE)
		goto sqlfail;
	s->purged = np;
	if (sqlite3_prepare_v2(db, "SELECT name FROM object_table WHERE idx = ?1", -1, &names, NULL) != SQLITE_OK)
		goto sqlfail;
	if (purge_group(p, np, top, db_class_name, names, s)) {
		error("out of memory");
		goto out;
	}
	rc = 0;
	goto out;
sqlfail:
	error("%s: %s", path, sqlite3_errmsg(db));
out:
	free(p);
	sqlite3_finalize(st);
	sqlite3_finalize(names);
	sqlite3_close(db);
	return rc;
}

void report_columns_free(report_columns *c)
{
	free(c->cls);
	free(c->outer);
	memset(c, 0, sizeof *c);
}

int report_summary_heap(const retention_input *in, size_t top, report_summary *s)
{
	memset(s, 0, sizeof *s);
	if (from_heap(in->h, in->r, top, s) == 0)
		return 0;
	report_summary_free(s);
	return error("out of memory");
}

int report_summary_db(const char *path, size_t top, report_summary *s, report_columns *c)
{
	memset(s, 0, sizeof *s);
	memset(c, 0, sizeof *c);
	int rc = from_db(path, top, s, c);
	if (rc) {
		report_summary_free(s);
		report_columns_free(c);
	}
	return rc;
}

int report_db_check(const char *path)
{
	char err[1024];
	sqlite3 *db = input_open_sql(path, INPUT_SQL_ANALYSIS, err, sizeof err);
	if (!db)
		return error("%s", err);
	db_extent e;
	int rc = db_read_extent(db, &e, err, sizeof err) ? error("%s: %s", path, err) : 0;
	sqlite3_close(db);
	return rc;
}
