/* view_db.c — the query view over an analysis database (see view_db.h).
 * The rows come back in the same orders as the in-memory view's, so the
 * query commands print the same answers from either input. */
#include "view_db.h"

#include "vec.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
	Q_STATE, Q_OBJECT, Q_IN_REFS, Q_IN_CLASS, Q_IN_OUTER, Q_IN_GC, Q_OUT_REFS, Q_BETWEEN, Q_ELIM, Q_CLEARED, Q_FIND_ABOUT,
	Q_FIND_ALL, Q_CLUSTERS, Q_CLUSTER_ONE, Q_CLUSTER_STATE, Q_LIST0, Q_LIST1, Q_LIST2, Q_LIST3, Q_PATH, Q_GLOB, Q_COUNT
};

static const char *const queries[Q_COUNT] = {
	[Q_STATE] = "SELECT class, outer, distance, reachable, garbage, root_kind FROM objects WHERE idx = ?1",
	[Q_OBJECT] = "SELECT idx, serial, class, outer, name, path, class_name, size, flags, cluster, garbage, "
		     "reachable, root_kind, distance, parent, parent_property FROM objects WHERE idx = ?1",
	[Q_IN_REFS] = "SELECT r.src, r.kind, s.text FROM ref_table r LEFT JOIN strings s ON s.id = r.prop "
		      "WHERE r.dst = ?1 ORDER BY r.src, r.pos",
	[Q_IN_CLASS] = "SELECT idx FROM objects WHERE class = ?1 ORDER BY idx",
	[Q_IN_OUTER] = "SELECT idx FROM objects WHERE outer = ?1 ORDER BY idx",
	[Q_IN_GC] = "SELECT referencer, property FROM gc_object_refs WHERE dst = ?1 ORDER BY rowid",
	[Q_OUT_REFS] = "SELECT r.dst, r.kind, s.text FROM ref_table r LEFT JOIN strings s ON s.id = r.prop "
		       "WHERE r.src = ?1 ORDER BY r.pos",
	[Q_BETWEEN] = "SELECT r.kind, s.text FROM ref_table r LEFT JOIN strings s ON s.id = r.prop "
		      "WHERE r.src = ?1 AND r.dst = ?2 ORDER BY r.pos",
	[Q_ELIM] = "SELECT src, referencer, property, kind FROM eliminated_refs WHERE dst = ?1 ORDER BY rowid",
	[Q_CLEARED] = "SELECT src, property FROM cleared_weak_refs WHERE dst = ?1 ORDER BY rowid",
	[Q_FIND_ABOUT] = "SELECT kind, idx, other, detail FROM findings WHERE idx = ?1 OR other = ?1 ORDER BY rowid",
	[Q_FIND_ALL] = "SELECT kind, idx, other, detail FROM findings ORDER BY rowid",
#define CLUSTER_COLUMNS \
	"SELECT c.root, c.members, c.mutable, c.referenced, " \
	"(SELECT count(*) FROM cluster_refs r WHERE r.referenced_root = c.root), " \
	"(SELECT size FROM objects WHERE idx = c.root) + " \
	"coalesce((SELECT sum(o.size) FROM cluster_members m JOIN objects o ON o.idx = m.idx " \
	"WHERE m.root = c.root), 0), c.state, coalesce(c.reason, '') FROM clusters c "
	[Q_CLUSTERS] = CLUSTER_COLUMNS "ORDER BY c.rowid",
	[Q_CLUSTER_ONE] = CLUSTER_COLUMNS "WHERE c.root = ?1",
	[Q_CLUSTER_STATE] = "SELECT c.root, c.members, c.mutable, c.referenced, "
			    "(SELECT count(*) FROM cluster_refs r WHERE r.referenced_root = c.root), 0, c.state, "
			    "coalesce(c.reason, '') FROM clusters c WHERE c.root = ?1",
	[Q_LIST0] = "SELECT idx FROM cluster_members WHERE root = ?1 ORDER BY rowid",
	[Q_LIST1] = "SELECT idx FROM cluster_mutable WHERE root = ?1 ORDER BY rowid",
	[Q_LIST2] = "SELECT referenced_root FROM cluster_refs WHERE root = ?1 ORDER BY rowid",
	[Q_LIST3] = "SELECT root FROM cluster_refs WHERE referenced_root = ?1 ORDER BY rowid",
	[Q_PATH] = "SELECT idx FROM objects WHERE path = ?1 ORDER BY idx LIMIT 1",
	[Q_GLOB] = "SELECT idx FROM objects WHERE (?1 IS NULL OR name GLOB ?1) AND (?2 IS NULL OR class_name = ?2) "
		   "ORDER BY idx",
};

typedef struct db_view {
	view base;
	sqlite3 *db;
	sqlite3_stmt *st[Q_COUNT];
} db_view;

#define DV(v) ((db_view *)(v))

static int db_error(view *v)
{
	snprintf(v->err, sizeof v->err, "database: %s", sqlite3_errmsg(DV(v)->db));
	return -1;
}

/* The statement Q, reset and bound to I. */
static sqlite3_stmt *stmt(view *v, int q, obj_t i)
{
	sqlite3_stmt *st = DV(v)->st[q];
	sqlite3_reset(st);
	if (i == OBJ_NONE)
		sqlite3_bind_null(st, 1);
	else
		sqlite3_bind_int64(st, 1, i);
	return st;
}

static obj_t col_obj(sqlite3_stmt *st, int c)
{
	return sqlite3_column_type(st, c) == SQLITE_NULL ? OBJ_NONE : (obj_t)sqlite3_column_int64(st, c);
}

static void col_text(sqlite3_stmt *st, int c, char *dst, size_t cap)
{
	const char *s = (const char *)sqlite3_column_text(st, c);
	snprintf(dst, cap, "%s", s ? s : "");
}

static int dv_object(view *v, obj_t i, obj_info *o)
{
	memset(o, 0, sizeof *o);
	sqlite3_stmt *st = stmt(v, Q_OBJECT, i);
	int rc = sqlite3_step(st);
	if (rc == SQLITE_DONE)
		return 1;
	if (rc != SQLITE_ROW)
		return db_error(v);
	o->idx = i;
	o->serial = (uint32_t)sqlite3_column_int64(st, 1);
	o->cls = col_obj(st, 2);
	o->outer = col_obj(st, 3);
	col_text(st, 4, o->name, sizeof o->name);
	const char *path = (const char *)sqlite3_column_text(st, 5);
	o->path = strdup(path ? path : "");
	col_text(st, 6, o->class_name, sizeof o->class_name);
	o->size = (uint32_t)sqlite3_column_int64(st, 7);
	col_text(st, 8, o->flags, sizeof o->flags);
	char bad[64];
	if (flags_parse(o->flags, strlen(o->flags), &o->oflags, &o->iflags, &o->traits, bad, sizeof bad)) {
		snprintf(v->err, sizeof v->err, "database: object %d has an unknown flag '%s'", i, bad);
		return -1;
	}
	o->cluster = col_obj(st, 9);
	o->garbage = sqlite3_column_int(st, 10);
	o->reachable = sqlite3_column_int(st, 11);
	char kind[32];
	col_text(st, 12, kind, sizeof kind);
	o->root_kind = root_kind_parse(kind);
	o->distance = sqlite3_column_type(st, 13) == SQLITE_NULL ? UINT32_MAX : (uint32_t)sqlite3_column_int64(st, 13);
	o->parent = col_obj(st, 14);
	col_text(st, 15, o->parent_property, sizeof o->parent_property);
	if (!o->path) {
		snprintf(v->err, sizeof v->err, "out of memory");
		return -1;
	}
	return 0;
}

static int dv_state(view *v, obj_t i, obj_state *o)
{
	sqlite3_stmt *st = stmt(v, Q_STATE, i);
	int rc = sqlite3_step(st);
	if (rc == SQLITE_DONE)
		return 1;
	if (rc != SQLITE_ROW)
		return db_error(v);
	o->cls = col_obj(st, 0);
	o->outer = col_obj(st, 1);
	o->distance = sqlite3_column_type(st, 2) == SQLITE_NULL ? UINT32_MAX : (uint32_t)sqlite3_column_int64(st, 2);
	o->reachable = sqlite3_column_int(st, 3);
	o->garbage = sqlite3_column_int(st, 4);
	char kind[32];
	col_text(st, 5, kind, sizeof kind);
	o->root_kind = root_kind_parse(kind);
	return 0;
}

#define make_edge edge_make

/* Next source of a list statement, or INT32_MAX when it is exhausted. */
static obj_t peek(sqlite3_stmt *st, int *live)
{
	return *live ? (obj_t)sqlite3_column_int64(st, 0) : INT32_MAX;
}

static void advance(sqlite3_stmt *st, int *live)
{
	*live = sqlite3_step(st) == SQLITE_ROW;
}

static int dv_incoming(view *v, obj_t i, edges *out)
{
	sqlite3_stmt *cls = stmt(v, Q_IN_CLASS, i), *outer = stmt(v, Q_IN_OUTER, i), *refs = stmt(v, Q_IN_REFS, i);
	int la, lb, lc;
	advance(cls, &la);
	advance(outer, &lb);
	advance(refs, &lc);
	while (la || lb || lc) {
		obj_t s = peek(cls, &la);
		if (peek(outer, &lb) < s) s = peek(outer, &lb);
		if (peek(refs, &lc) < s) s = peek(refs, &lc);
		edge e;
		if (la && peek(cls, &la) == s) {
			e = make_edge(s, i, EDGE_CLASS, REF_IMMUTABLE, NULL);
			if (edges_push(out, &e)) return -1;
			advance(cls, &la);
		}
		if (lb && peek(outer, &lb) == s) {
			e = make_edge(s, i, EDGE_OUTER, REF_IMMUTABLE, NULL);
			if (edges_push(out, &e)) return -1;
			advance(outer, &lb);
		}
		while (lc && peek(refs, &lc) == s) {
			e = make_edge(s, i, EDGE_REF, sqlite3_column_int(refs, 1), (const char *)sqlite3_column_text(refs, 2));
			if (edges_push(out, &e)) return -1;
			advance(refs, &lc);
		}
	}
	sqlite3_stmt *gc = stmt(v, Q_IN_GC, i);
	while (sqlite3_step(gc) == SQLITE_ROW) {
		edge e = make_edge(OBJ_NONE, i, EDGE_GC, REF_ARO, (const char *)sqlite3_column_text(gc, 1));
		col_text(gc, 0, e.referencer, sizeof e.referencer);
		if (edges_push(out, &e))
			return -1;
	}
	return 0;
}

static int dv_outgoing(view *v, obj_t i, edges *out)
{
	obj_info o;
	int rc = dv_object(v, i, &o);
	if (rc)
		return rc < 0 ? -1 : 0;
	obj_info_free(&o);
	edge e = make_edge(i, o.cls, EDGE_CLASS, REF_IMMUTABLE, NULL);
	rc = edges_push(out, &e);
	if (o.outer != OBJ_NONE) {
		e = make_edge(i, o.outer, EDGE_OUTER, REF_IMMUTABLE, NULL);
		rc |= edges_push(out, &e);
	}
	sqlite3_stmt *st = stmt(v, Q_OUT_REFS, i);
	while (rc == 0 && sqlite3_step(st) == SQLITE_ROW) {
		e = make_edge(i, col_obj(st, 0), EDGE_REF, sqlite3_column_int(st, 1), (const char *)sqlite3_column_text(st, 2));
		rc = edges_push(out, &e);
	}
	return rc ? -1 : 0;
}

static int dv_between(view *v, obj_t src, obj_t dst, edges *out)
{
	obj_state o;
	int rc = dv_state(v, src, &o);
	if (rc)
		return rc < 0 ? -1 : 0;
	edge e;
	if (o.cls == dst) {
		e = make_edge(src, dst, EDGE_CLASS, REF_IMMUTABLE, NULL);
		rc |= edges_push(out, &e);
	}
	if (o.outer == dst) {
		e = make_edge(src, dst, EDGE_OUTER, REF_IMMUTABLE, NULL);
		rc |= edges_push(out, &e);
	}
	sqlite3_stmt *st = stmt(v, Q_BETWEEN, src);
	sqlite3_bind_int64(st, 2, dst);
	while (rc == 0 && sqlite3_step(st) == SQLITE_ROW) {
		e = make_edge(src, dst, EDGE_REF, sqlite3_column_int(st, 0), (const char *)sqlite3_column_text(st, 1));
		rc = edges_push(out, &e);
	}
	return rc ? -1 : 0;
}

static int dv_eliminated_to(view *v, obj_t i, edges *out)
{
	sqlite3_stmt *st = stmt(v, Q_ELIM, i);
	while (sqlite3_step(st) == SQLITE_ROW) {
		obj_t src = col_obj(st, 0);
		const char *kind = (const char *)sqlite3_column_text(st, 3);
		edge e = make_edge(src, i, src == OBJ_NONE ? EDGE_GC : EDGE_REF,
				   src == OBJ_NONE || (kind && strcmp(kind, "aro") == 0) ? REF_ARO : REF_STRONG,
				   (const char *)sqlite3_column_text(st, 2));
		if (src == OBJ_NONE)
			col_text(st, 1, e.referencer, sizeof e.referencer);
		if (edges_push(out, &e))
			return -1;
	}
	return 0;
}

static int dv_cleared_to(view *v, obj_t i, edges *out)
{
	sqlite3_stmt *st = stmt(v, Q_CLEARED, i);
	while (sqlite3_step(st) == SQLITE_ROW) {
		edge e = make_edge(col_obj(st, 0), i, EDGE_REF, REF_WEAK, (const char *)sqlite3_column_text(st, 1));
		if (edges_push(out, &e))
			return -1;
	}
	return 0;
}

static int dv_findings(view *v, obj_t about, finding_rows *out)
{
	sqlite3_stmt *st = about == OBJ_NONE ? stmt(v, Q_FIND_ALL, OBJ_NONE) : stmt(v, Q_FIND_ABOUT, about);
	while (sqlite3_step(st) == SQLITE_ROW) {
		finding_row row;
		memset(&row, 0, sizeof row);
		col_text(st, 0, row.kind, sizeof row.kind);
		row.idx = col_obj(st, 1);
		row.other = col_obj(st, 2);
		col_text(st, 3, row.detail, sizeof row.detail);
		if (finding_rows_push(out, &row))
			return -1;
	}
	return 0;
}

static int dv_clusters(view *v, obj_t root, int bytes, cluster_rows *out)
{
	sqlite3_stmt *st = root == OBJ_NONE ? stmt(v, Q_CLUSTERS, OBJ_NONE)
			   : stmt(v, bytes ? Q_CLUSTER_ONE : Q_CLUSTER_STATE, root);
	while (sqlite3_step(st) == SQLITE_ROW) {
		cluster_row row;
		memset(&row, 0, sizeof row);
		row.root = col_obj(st, 0);
		row.members = (uint32_t)sqlite3_column_int64(st, 1);
		row.mutables = (uint32_t)sqlite3_column_int64(st, 2);
		row.referenced = (uint32_t)sqlite3_column_int64(st, 3);
		row.referenced_by = (uint32_t)sqlite3_column_int64(st, 4);
		row.bytes = (uint64_t)sqlite3_column_int64(st, 5);
		col_text(st, 6, row.state, sizeof row.state);
		col_text(st, 7, row.reason, sizeof row.reason);
		if (cluster_rows_push(out, &row))
			return -1;
	}
	return 0;
}

/* The first column of every row of ST, as a malloc'd list. */
static int collect_ids(sqlite3_stmt *st, obj_t **out, size_t *n)
{
	size_t cap = 0;
	*n = 0;
	*out = NULL;
	while (sqlite3_step(st) == SQLITE_ROW) {
		if (grow_array((void **)out, &cap, *n, sizeof **out))
			return -1;
		(*out)[(*n)++] = col_obj(st, 0);
	}
	return grow_array((void **)out, &cap, *n, sizeof **out); /* never NULL, even when empty */
}

static int dv_cluster_list(view *v, obj_t root, int which, obj_t **out, size_t *n)
{
	return collect_ids(stmt(v, Q_LIST0 + which, root), out, n);
}

static int dv_find_path(view *v, const char *path, obj_t *out)
{
	sqlite3_stmt *st = DV(v)->st[Q_PATH];
	sqlite3_reset(st);
	sqlite3_bind_text(st, 1, path, -1, SQLITE_TRANSIENT);
	*out = sqlite3_step(st) == SQLITE_ROW ? col_obj(st, 0) : OBJ_NONE;
	return 0;
}

static int dv_find_glob(view *v, const char *glob, const char *class_name, obj_t **out, size_t *n)
{
	sqlite3_stmt *st = DV(v)->st[Q_GLOB];
	sqlite3_reset(st);
	if (glob)
		sqlite3_bind_text(st, 1, glob, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, 1);
	if (class_name)
		sqlite3_bind_text(st, 2, class_name, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, 2);
	return collect_ids(st, out, n);
}

static void dv_close(view *v)
{
	db_view *d = DV(v);
	for (int q = 0; q < Q_COUNT; q++)
		sqlite3_finalize(d->st[q]);
	sqlite3_close(d->db);
	free(d);
}

int is_sqlite_file(const char *path)
{
	char head[16] = {0};
	FILE *f = fopen(path, "rb");
	if (!f)
		return 0;
	size_t n = fread(head, 1, sizeof head, f);
	fclose(f);
	return n == sizeof head && memcmp(head, "SQLite format 3", 16) == 0;
}

static long long meta_int(sqlite3 *db, const char *key, long long fallback)
{
	sqlite3_stmt *st;
	long long v = fallback;
	if (sqlite3_prepare_v2(db, "SELECT value FROM snapshot WHERE key = ?1", -1, &st, NULL) != SQLITE_OK)
		return fallback;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

view *view_db_open(const char *dbpath, char *err, size_t errsize)
{
	db_view *d = calloc(1, sizeof *d);
	if (!d) {
		snprintf(err, errsize, "out of memory");
		return NULL;
	}
	if (sqlite3_open_v2(dbpath, &d->db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
		snprintf(err, errsize, "%s: %s", dbpath, sqlite3_errmsg(d->db));
		dv_close(&d->base);
		return NULL;
	}
	for (int q = 0; q < Q_COUNT; q++)
		if (sqlite3_prepare_v2(d->db, queries[q], -1, &d->st[q], NULL) != SQLITE_OK) {
			snprintf(err, errsize, "%s: not an analysis database written by this version (%s)", dbpath,
				 sqlite3_errmsg(d->db));
			dv_close(&d->base);
			return NULL;
		}
	view *v = &d->base;
	v->first_gc_index = (obj_t)meta_int(d->db, "first_gc_index", 0);
	v->slots = (uint32_t)meta_int(d->db, "slots", 0);
	v->object = dv_object;
	v->state = dv_state;
	v->incoming = dv_incoming;
	v->outgoing = dv_outgoing;
	v->between = dv_between;
	v->eliminated_to = dv_eliminated_to;
	v->cleared_to = dv_cleared_to;
	v->findings = dv_findings;
	v->clusters = dv_clusters;
	v->cluster_list = dv_cluster_list;
	v->find_path = dv_find_path;
	v->find_glob = dv_find_glob;
	v->close = dv_close;
	return v;
}
