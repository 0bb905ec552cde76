/* view_db.c — the query view over an analysis database (see view_db.h).
 * The rows come back in the same orders as the in-memory view's, so the
 * query commands print the same answers from either input.
 *
 * A database is input like a snapshot: it may be damaged, crafted or
 * foreign.  Opening checks the tables and the snapshot's slots against the
 * real rows (db_extent.h: the view's slots are the span of the indexes
 * present); every object id read is checked against them before use, and
 * Outer chains are climbed with cycle detection, so a bad database gets a
 * one-line error naming the table and the problem, never a crash or a spin. */
#include "sql/view_db.h"
#include "sql/input.h"

#include "analysis/analysis.h"
#include "sql/db_extent.h"
#include "sql/db_version.h"
#include "base/base.h"
#include "sql/path_hash.h"
#include "sql/schema.h"

#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum {
	Q_STATE, Q_OBJECT, Q_UP, Q_IN_REFS, Q_IN_CLASS, Q_IN_OUTER, Q_IN_GC, Q_OUT_REFS, Q_BETWEEN, Q_ELIM, Q_CLEARED,
	Q_FIND_ABOUT, Q_FIND_ALL, Q_CLUSTERS, Q_CLUSTER_ONE, Q_CLUSTER_STATE, Q_LIST0, Q_LIST1, Q_LIST2, Q_LIST3, Q_LIST4, Q_PATH,
	Q_GLOB, Q_RETAINED, Q_SRC_REFS, Q_SRC_CLASS, Q_SRC_OUTER, Q_NODE, Q_COUNT
};

static const char *const queries[Q_COUNT] = {
	[Q_STATE] = "SELECT class, outer, distance, reachable, garbage, root_kind, parent, parent_property, "
		    "node_id, name FROM object_table WHERE idx = ?1",
	[Q_OBJECT] = "SELECT idx, serial, class, outer, name, class_name, size, flags, cluster, garbage, "
		     "reachable, root_kind, distance, parent, parent_property, node_id FROM object_table WHERE idx = ?1",
	[Q_UP] = "SELECT outer, name, class_name FROM object_table WHERE idx = ?1",
	[Q_IN_REFS] = "SELECT r.src, r.kind, s.text FROM ref_table r LEFT JOIN strings s ON s.id = r.prop "
		      "WHERE r.dst = ?1 ORDER BY r.src, r.pos",
	[Q_IN_CLASS] = "SELECT idx FROM object_table WHERE class = ?1 ORDER BY idx",
	[Q_IN_OUTER] = "SELECT idx FROM object_table WHERE outer = ?1 ORDER BY idx",
	[Q_IN_GC] = "SELECT referencer, property FROM gc_object_refs WHERE dst = ?1 ORDER BY rowid",
	[Q_OUT_REFS] = "SELECT r.dst, r.kind, s.text FROM ref_table r LEFT JOIN strings s ON s.id = r.prop "
		       "WHERE r.src = ?1 ORDER BY r.pos",
	[Q_BETWEEN] = "SELECT r.kind, s.text FROM ref_table r LEFT JOIN strings s ON s.id = r.prop "
		      "WHERE r.src = ?1 AND r.dst = ?2 ORDER BY r.pos",
	[Q_ELIM] = "SELECT src, referencer, property, kind FROM eliminated_refs WHERE dst = ?1 ORDER BY rowid",
	[Q_CLEARED] = "SELECT src, property FROM cleared_weak_refs WHERE dst = ?1 ORDER BY rowid",
	[Q_FIND_ABOUT] = "SELECT kind, idx, other, detail, referencer FROM findings WHERE idx = ?1 OR other = ?1 ORDER BY rowid",
	[Q_FIND_ALL] = "SELECT kind, idx, other, detail, referencer FROM findings ORDER BY rowid",
#define CLUSTER_COLUMNS \
	"SELECT c.root, c.members, c.mutable, c.referenced, " \
	"(SELECT count(*) FROM cluster_refs r WHERE r.referenced_root = c.root), " \
	"(SELECT size FROM object_table WHERE idx = c.root) + " \
	"coalesce((SELECT sum(o.size) FROM cluster_members m JOIN object_table o ON o.idx = m.idx " \
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
	[Q_LIST4] = "SELECT idx FROM cluster_dissolved_by WHERE root = ?1 ORDER BY rowid",
	[Q_PATH] = "SELECT idx FROM object_table WHERE path_hash = ?1 ORDER BY idx",
	[Q_GLOB] = "SELECT idx FROM object_table WHERE (?1 IS NULL OR name GLOB ?1) AND (?2 IS NULL OR class_name = ?2) "
		   "ORDER BY idx",
	[Q_RETAINED] = "SELECT idom, retained FROM object_table WHERE idx = ?1",
	/* a holder that is no object keeps its src and gets no distance: col_id judges the src */
	[Q_SRC_REFS] = "SELECT r.src, r.kind, o.distance, o.reachable FROM ref_table r "
		       "LEFT JOIN object_table o ON o.idx = r.src WHERE r.dst = ?1",
	[Q_SRC_CLASS] = "SELECT idx, 0, distance, reachable FROM object_table WHERE class = ?1",
	[Q_SRC_OUTER] = "SELECT idx, 0, distance, reachable FROM object_table WHERE outer = ?1",
	[Q_NODE] = "SELECT idx FROM object_table WHERE node_id = ?1 ORDER BY idx LIMIT 2",
};

/* The table each statement reads first, for error messages. */
static const char *const tables[Q_COUNT] = {
	[Q_STATE] = "object_table", [Q_OBJECT] = "object_table", [Q_UP] = "object_table", [Q_IN_REFS] = "ref_table",
	[Q_IN_CLASS] = "object_table", [Q_IN_OUTER] = "object_table", [Q_IN_GC] = "gc_object_refs",
	[Q_OUT_REFS] = "ref_table", [Q_BETWEEN] = "ref_table", [Q_ELIM] = "eliminated_refs",
	[Q_CLEARED] = "cleared_weak_refs", [Q_FIND_ABOUT] = "findings", [Q_FIND_ALL] = "findings",
	[Q_CLUSTERS] = "clusters", [Q_CLUSTER_ONE] = "clusters", [Q_CLUSTER_STATE] = "clusters",
	[Q_LIST0] = "cluster_members", [Q_LIST1] = "cluster_mutable", [Q_LIST2] = "cluster_refs",
	[Q_LIST3] = "cluster_refs", [Q_LIST4] = "cluster_dissolved_by", [Q_PATH] = "object_table", [Q_GLOB] = "object_table",
	[Q_RETAINED] = "object_table", [Q_SRC_REFS] = "ref_table", [Q_SRC_CLASS] = "object_table",
	[Q_SRC_OUTER] = "object_table", [Q_NODE] = "object_table",
};

typedef struct db_view {
	view base;
	sqlite3 *db;
	sqlite3_stmt *st[Q_COUNT];
	int q; /* the statement last used, for errors */
	char *path; /* the database file, for errors */
} db_view;

#define DV(v) ((db_view *)(v))

/* A one-line error in V: "DBPATH: " and the message; returns -1. */
static int verr(view *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int verr(view *v, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(v->err, sizeof v->err, "%s: ", DV(v)->path);
	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < sizeof v->err)
		vsnprintf(v->err + n, sizeof v->err - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

static int db_error(view *v)
{
	return verr(v, "%s: %s", tables[DV(v)->q], sqlite3_errmsg(DV(v)->db));
}

/* The statement Q, reset and bound to I. */
static sqlite3_stmt *stmt(view *v, int q, obj_t i)
{
	sqlite3_stmt *st = DV(v)->st[q];
	DV(v)->q = q;
	sqlite3_reset(st);
	if (i == OBJ_NONE)
		sqlite3_bind_null(st, 1);
	else
		sqlite3_bind_int64(st, 1, i);
	return st;
}

/* Column C as an object id: NULL is OBJ_NONE (when NULLOK), anything else
 * must be an index below slots.  -1 with the error in V otherwise. */
static int col_id(view *v, sqlite3_stmt *st, int c, int nullok, obj_t *out)
{
	if (sqlite3_column_type(st, c) == SQLITE_NULL && nullok) {
		*out = OBJ_NONE;
		return 0;
	}
	sqlite3_int64 x = sqlite3_column_int64(st, c);
	if (sqlite3_column_type(st, c) != SQLITE_INTEGER || x < 0 || x >= (sqlite3_int64)v->slots) {
		const char *t = (const char *)sqlite3_column_text(st, c);
		verr(v, "%s: %s is %.40s, not an object index (slots %u)",
			 tables[DV(v)->q], sqlite3_column_name(st, c), t ? t : "NULL", v->slots);
		return -1;
	}
	*out = (obj_t)x;
	return 0;
}

/* Column C as a dangling reference's target: the free slot it names, which
 * may lie past the last slot (a snapshot may say so), but is an index. */
static int col_dangling(view *v, sqlite3_stmt *st, int c, obj_t *out)
{
	sqlite3_int64 x = sqlite3_column_int64(st, c);
	if (sqlite3_column_type(st, c) != SQLITE_INTEGER || x < 0 || x > INT32_MAX) {
		const char *t = (const char *)sqlite3_column_text(st, c);
		verr(v, "%s: %s is %.40s, not a slot index", tables[DV(v)->q], sqlite3_column_name(st, c), t ? t : "NULL");
		return -1;
	}
	*out = (obj_t)x;
	return 0;
}

/* Column C as a distance: NULL is none; at most slots hops. */
static int col_distance(view *v, sqlite3_stmt *st, int c, uint32_t *out)
{
	if (sqlite3_column_type(st, c) == SQLITE_NULL) {
		*out = UINT32_MAX;
		return 0;
	}
	sqlite3_int64 x = sqlite3_column_int64(st, c);
	if (sqlite3_column_type(st, c) != SQLITE_INTEGER || x < 0 || x >= (sqlite3_int64)v->slots) {
		verr(v, "%s: distance %lld is not a hop count below slots (%u)",
			 tables[DV(v)->q], (long long)x, v->slots);
		return -1;
	}
	*out = (uint32_t)x;
	return 0;
}

/* Columns REACHABLE and KIND: 0/1 and a root kind name, a reachable
 * object always with one (the commands name it). */
static int col_root(view *v, sqlite3_stmt *st, int reachable, int kind, int *is_reachable, int *root_kind)
{
	const char *k = (const char *)sqlite3_column_text(st, kind);
	*is_reachable = sqlite3_column_int(st, reachable) != 0;
	*root_kind = root_kind_parse(k);
	if ((k && *root_kind == RK_NONE) || (*is_reachable && *root_kind == RK_NONE)) {
		verr(v, "object_table: root_kind '%.32s' is not a root kind%s",
			 k ? k : "NULL", *is_reachable ? " of a reachable object" : "");
		return -1;
	}
	return 0;
}

/* Column C as object I's V8 node id (-1: NULL), which must be the one
 * heap_node_id gives: on a V8 heap the id the name in column NAME ends in,
 * for the objects from first_gc_index on; NULL everywhere else. */
static int col_node_id(view *v, sqlite3_stmt *st, int c, int name, obj_t i, int64_t *out)
{
	const char *s = v->v8 && i >= v->first_gc_index ? (const char *)sqlite3_column_text(st, name) : NULL;
	int64_t want = s ? name_node_id(s, (size_t)sqlite3_column_bytes(st, name)) : -1;
	int type = sqlite3_column_type(st, c);
	*out = type == SQLITE_NULL ? -1 : sqlite3_column_int64(st, c);
	if ((type != SQLITE_NULL && (type != SQLITE_INTEGER || *out < 0)) || *out != want) {
		const char *t = (const char *)sqlite3_column_text(st, c);
		if (want < 0)
			verr(v, "object_table: object %d has node_id %.40s, not NULL (%s)", i, t ? t : "NULL",
			     v->v8 ? "its name ends in no @ID" : "not a V8 heap");
		else
			verr(v, "object_table: object %d has node_id %.40s, not %lld, the id its name ends in", i,
			     t ? t : "NULL", (long long)want);
		return -1;
	}
	return 0;
}

/* Column C as display text into DST. */
static void col_text(sqlite3_stmt *st, int c, char *dst, size_t cap)
{
	view_copy(dst, cap, (const char *)sqlite3_column_text(st, c));
}

/* Column C as display text in the pool. */
static const char *col_pool(view *v, sqlite3_stmt *st, int c)
{
	return view_text(v, (const char *)sqlite3_column_text(st, c));
}

/* An arena of names collected while climbing an Outer chain. */
typedef struct climb {
	char *text;
	size_t len, cap;
	size_t *at;     /* offset of each level's name in TEXT */
	uint8_t *pkg;   /* is the level a package */
	size_t n, cap_levels;
} climb;

static int climb_push(climb *c, const char *name, int pkg)
{
	size_t len = strlen(name);
	while (c->len + len + 1 > c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 256;
		char *t = realloc(c->text, cap);
		if (!t)
			return -1;
		c->text = t;
		c->cap = cap;
	}
	size_t cl = c->cap_levels;
	if (grow_array((void **)&c->at, &cl, c->n, sizeof *c->at))
		return -1;
	if (cl != c->cap_levels) {
		uint8_t *p = realloc(c->pkg, cl);
		if (!p)
			return -1;
		c->pkg = p;
		c->cap_levels = cl;
	}
	c->at[c->n] = c->len;
	c->pkg[c->n++] = (uint8_t)pkg;
	memcpy(c->text + c->len, name, len + 1);
	c->len += len + 1;
	return 0;
}

static void climb_free(climb *c)
{
	free(c->text);
	free(c->at);
	free(c->pkg);
}

/* The raw path of X (malloc'd into *OUT) built from the Outer chain, the
 * engine's way (path_separator, snapshot/heap.h).  Brent's cycle detection
 * stops a looping chain.  0, 1 when X is no object, -1 with the error in V. */
static int db_path(view *v, obj_t x, char **out)
{
	climb c = {0};
	obj_t at = x, mark = x;
	size_t power = 1, lam = 0;
	int rc = -1;
	*out = NULL;
	for (;;) {
		sqlite3_stmt *st = stmt(v, Q_UP, at);
		int s = sqlite3_step(st);
		if (s == SQLITE_DONE && at == x) {
			rc = 1;
			goto done;
		}
		if (s == SQLITE_DONE) {
			verr(v, "object_table: the Outer chain of object %d names object %d, "
				 "which is not in the table", x, at);
			goto done;
		}
		if (s != SQLITE_ROW) {
			db_error(v);
			goto done;
		}
		const char *name = (const char *)sqlite3_column_text(st, 1), *cls = (const char *)sqlite3_column_text(st, 2);
		obj_t next;
		if (climb_push(&c, name ? name : "", cls && strcmp(cls, "Package") == 0)) {
			snprintf(v->err, sizeof v->err, "out of memory");
			goto done;
		}
		if (col_id(v, st, 0, 1, &next))
			goto done;
		if (next == OBJ_NONE)
			break;
		if (next == mark) {
			verr(v, "object_table: the Outer chain of object %d loops", x);
			goto done;
		}
		if (++lam == power) { /* Brent: move the mark ahead, double the stride */
			mark = next;
			power *= 2;
			lam = 0;
		}
		at = next;
	}
	char *p = malloc(c.len + 1);
	if (!p) {
		snprintf(v->err, sizeof v->err, "out of memory");
		goto done;
	}
	size_t n = 0;
	for (size_t k = c.n; k-- > 0;) {
		if (k + 1 < c.n)
			p[n++] = path_separator(c.pkg[k + 1], k + 2 < c.n && c.pkg[k + 2]);
		size_t len = strlen(c.text + c.at[k]);
		memcpy(p + n, c.text + c.at[k], len);
		n += len;
	}
	p[n] = '\0';
	*out = p;
	rc = 0;
done:
	climb_free(&c);
	return rc;
}

static int dv_retained(view *v, obj_t i, obj_t *idom, long long *bytes)
{
	sqlite3_stmt *st = stmt(v, Q_RETAINED, i);
	int rc = sqlite3_step(st);
	if (rc == SQLITE_DONE)
		return 1;
	if (rc != SQLITE_ROW)
		return db_error(v);
	*bytes = sqlite3_column_type(st, 1) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 1);
	if (*bytes < -1) {
		verr(v, "object_table: object %d has a negative retained size", i);
		return -1;
	}
	if (*bytes < 0) {
		*idom = OBJ_NONE;
		return 0;
	}
	if (sqlite3_column_type(st, 0) == SQLITE_NULL) {
		*idom = DOM_TOP;
		return 0;
	}
	return col_id(v, st, 0, 0, idom);
}

static int dv_object(view *v, obj_t i, obj_info *o)
{
	memset(o, 0, sizeof *o);
	obj_info_free(o); /* strings "" until set */
	sqlite3_stmt *st = stmt(v, Q_OBJECT, i);
	int rc = sqlite3_step(st);
	if (rc == SQLITE_DONE)
		return 1;
	if (rc != SQLITE_ROW)
		return db_error(v);
	o->idx = i;
	o->v8 = v->v8;
	o->serial = (uint32_t)sqlite3_column_int64(st, 1);
	if (col_id(v, st, 2, 0, &o->cls) || col_id(v, st, 3, 1, &o->outer) || col_id(v, st, 8, 1, &o->cluster) ||
	    col_distance(v, st, 12, &o->distance) || col_id(v, st, 13, 1, &o->parent) ||
	    col_node_id(v, st, 15, 4, i, &o->node_id))
		return -1;
	o->size = (uint32_t)sqlite3_column_int64(st, 6);
	const char *flags = (const char *)sqlite3_column_text(st, 7);
	char bad[64];
	if (!flags || strlen(flags) >= FLAGS_MAX ||
	    flags_parse(flags, strlen(flags), &o->oflags, &o->iflags, &o->traits, bad, sizeof bad)) {
		verr(v, "object_table: object %d has flags that are not flags", i);
		return -1;
	}
	o->garbage = sqlite3_column_int(st, 9) != 0;
	if (col_root(v, st, 10, 11, &o->reachable, &o->root_kind))
		return -1;
	char *raw;
	rc = db_path(v, i, &raw); /* another statement: this row's columns stay valid */
	if (rc > 0)
		verr(v, "object_table: object %d vanished", i);
	if (rc)
		return -1;
	rc = obj_info_set_text(o, (const char *)sqlite3_column_text(st, 4), (const char *)sqlite3_column_text(st, 5), flags,
			       (const char *)sqlite3_column_text(st, 14), raw);
	free(raw);
	if (rc) {
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
	if (col_id(v, st, 0, 0, &o->cls) || col_id(v, st, 1, 1, &o->outer) || col_distance(v, st, 2, &o->distance) ||
	    col_id(v, st, 6, 1, &o->parent) || col_node_id(v, st, 8, 9, i, &o->node_id))
		return -1;
	o->garbage = sqlite3_column_int(st, 4) != 0;
	if (col_root(v, st, 3, 5, &o->reachable, &o->root_kind))
		return -1;
	o->parent_property = col_pool(v, st, 7);
	return o->parent_property ? 0 : -1;
}

/* A reference kind read from ref_table: 0 to 4. */
static int col_kind(view *v, sqlite3_stmt *st, int c, int *out)
{
	sqlite3_int64 k = sqlite3_column_int64(st, c);
	if (sqlite3_column_type(st, c) != SQLITE_INTEGER || k < 0 || k >= REF_KIND_COUNT) {
		verr(v, "ref_table: kind %lld is not a reference kind", (long long)k);
		return -1;
	}
	*out = (int)k;
	return 0;
}

/* One step of a list statement: 1 with a row, 0 at its end, -1 on an error. */
static int next_row(view *v, sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);
	return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : db_error(v);
}

/* A sorted list of sources being merged: its current row's source, or
 * INT32_MAX once it is exhausted. */
typedef struct source_list {
	sqlite3_stmt *st;
	int q, live;
	obj_t src;
} source_list;

static int advance(view *v, source_list *l)
{
	DV(v)->q = l->q;
	int rc = next_row(v, l->st);
	if (rc < 0)
		return -1;
	l->live = rc;
	l->src = INT32_MAX;
	return rc ? col_id(v, l->st, 0, 0, &l->src) : 0;
}

static int dv_incoming(view *v, obj_t i, edges *out)
{
	source_list cls = {stmt(v, Q_IN_CLASS, i), Q_IN_CLASS, 0, 0}, outer = {stmt(v, Q_IN_OUTER, i), Q_IN_OUTER, 0, 0},
		    refs = {stmt(v, Q_IN_REFS, i), Q_IN_REFS, 0, 0};
	if (advance(v, &cls) || advance(v, &outer) || advance(v, &refs))
		return -1;
	while (cls.live || outer.live || refs.live) {
		obj_t s = cls.src;
		if (outer.src < s) s = outer.src;
		if (refs.src < s) s = refs.src;
		edge e;
		if (cls.live && cls.src == s) {
			e = edge_make(v, s, i, EDGE_CLASS, REF_IMMUTABLE, NULL);
			if (edges_push(out, &e) || advance(v, &cls)) return -1;
		}
		if (outer.live && outer.src == s) {
			e = edge_make(v, s, i, EDGE_OUTER, REF_IMMUTABLE, NULL);
			if (edges_push(out, &e) || advance(v, &outer)) return -1;
		}
		while (refs.live && refs.src == s) {
			int kind;
			if (col_kind(v, refs.st, 1, &kind))
				return -1;
			e = edge_make(v, s, i, EDGE_REF, kind, (const char *)sqlite3_column_text(refs.st, 2));
			if (edges_push(out, &e) || advance(v, &refs)) return -1;
		}
	}
	sqlite3_stmt *gc = stmt(v, Q_IN_GC, i);
	int rc;
	while ((rc = next_row(v, gc)) > 0) {
		edge e = edge_make(v, OBJ_NONE, i, EDGE_GC, REF_ARO, (const char *)sqlite3_column_text(gc, 1));
		e.referencer = col_pool(v, gc, 0);
		if (edges_push(out, &e))
			return -1;
	}
	return rc;
}

static int dv_sources(view *v, obj_t i, sources *out)
{
	static const int q[3] = {Q_SRC_CLASS, Q_SRC_OUTER, Q_SRC_REFS};
	static const int type[3] = {EDGE_CLASS, EDGE_OUTER, EDGE_REF};
	for (int k = 0; k < 3; k++) {
		sqlite3_stmt *st = stmt(v, q[k], i);
		int rc, kind = REF_IMMUTABLE;
		while ((rc = next_row(v, st)) > 0) {
			obj_t src;
			uint32_t distance;
			if (col_id(v, st, 0, 0, &src) || (type[k] == EDGE_REF && col_kind(v, st, 1, &kind)) ||
			    col_distance(v, st, 2, &distance))
				return -1;
			if (sources_push(out, src, distance, type[k], kind, sqlite3_column_int(st, 3) != 0)) {
				snprintf(v->err, sizeof v->err, "out of memory");
				return -1;
			}
		}
		if (rc < 0)
			return -1;
	}
	return 0;
}

static int dv_outgoing(view *v, obj_t i, edges *out)
{
	obj_state o;
	int rc = dv_state(v, i, &o);
	if (rc)
		return rc < 0 ? -1 : 0;
	edge e = edge_make(v, i, o.cls, EDGE_CLASS, REF_IMMUTABLE, NULL);
	rc = edges_push(out, &e);
	if (o.outer != OBJ_NONE) {
		e = edge_make(v, i, o.outer, EDGE_OUTER, REF_IMMUTABLE, NULL);
		rc |= edges_push(out, &e);
	}
	sqlite3_stmt *st = stmt(v, Q_OUT_REFS, i);
	int more;
	while (rc == 0 && (more = next_row(v, st)) > 0) {
		obj_t dst;
		int kind;
		if (col_id(v, st, 0, 0, &dst) || col_kind(v, st, 1, &kind))
			return -1;
		e = edge_make(v, i, dst, EDGE_REF, kind, (const char *)sqlite3_column_text(st, 2));
		rc = edges_push(out, &e);
	}
	return rc || more < 0 ? -1 : 0;
}

static int dv_between(view *v, obj_t src, obj_t dst, edges *out)
{
	obj_state o;
	int rc = dv_state(v, src, &o);
	if (rc)
		return rc < 0 ? -1 : 0;
	edge e;
	if (o.cls == dst) {
		e = edge_make(v, src, dst, EDGE_CLASS, REF_IMMUTABLE, NULL);
		rc |= edges_push(out, &e);
	}
	if (o.outer == dst) {
		e = edge_make(v, src, dst, EDGE_OUTER, REF_IMMUTABLE, NULL);
		rc |= edges_push(out, &e);
	}
	sqlite3_stmt *st = stmt(v, Q_BETWEEN, src);
	sqlite3_bind_int64(st, 2, dst);
	int more = 0, kind;
	while (rc == 0 && (more = next_row(v, st)) > 0) {
		if (col_kind(v, st, 0, &kind))
			return -1;
		e = edge_make(v, src, dst, EDGE_REF, kind, (const char *)sqlite3_column_text(st, 1));
		rc = edges_push(out, &e);
	}
	return rc || more < 0 ? -1 : 0;
}

static int dv_eliminated_to(view *v, obj_t i, edges *out)
{
	sqlite3_stmt *st = stmt(v, Q_ELIM, i);
	int rc;
	while ((rc = next_row(v, st)) > 0) {
		obj_t src;
		if (col_id(v, st, 0, 1, &src))
			return -1;
		const char *kind = (const char *)sqlite3_column_text(st, 3);
		edge e = edge_make(v, src, i, src == OBJ_NONE ? EDGE_GC : EDGE_REF,
				   src == OBJ_NONE || (kind && strcmp(kind, "aro") == 0) ? REF_ARO : REF_STRONG,
				   (const char *)sqlite3_column_text(st, 2));
		if (src == OBJ_NONE)
			e.referencer = col_pool(v, st, 1);
		if (edges_push(out, &e))
			return -1;
	}
	return rc;
}

static int dv_cleared_to(view *v, obj_t i, edges *out)
{
	sqlite3_stmt *st = stmt(v, Q_CLEARED, i);
	int rc;
	while ((rc = next_row(v, st)) > 0) {
		obj_t src;
		if (col_id(v, st, 0, 0, &src))
			return -1;
		edge e = edge_make(v, src, i, EDGE_REF, REF_WEAK, (const char *)sqlite3_column_text(st, 1));
		if (edges_push(out, &e))
			return -1;
	}
	return rc;
}

/* Is S one of the N names in NAMES?  (Texts a database holds that the
 * commands print unquoted, as JSON strings or CSV fields, must be these.) */
static int known_name(const char *s, const char *const *names, int n)
{
	for (int k = 0; k < n; k++)
		if (strcmp(s, names[k]) == 0)
			return 1;
	return 0;
}

static int dv_findings(view *v, obj_t about, finding_rows *out)
{
	sqlite3_stmt *st = about == OBJ_NONE ? stmt(v, Q_FIND_ALL, OBJ_NONE) : stmt(v, Q_FIND_ABOUT, about);
	int rc;
	while ((rc = next_row(v, st)) > 0) {
		finding_row row;
		memset(&row, 0, sizeof row);
		col_text(st, 0, row.kind, sizeof row.kind);
		if (!known_name(row.kind, finding_kind_names, FK_COUNT)) {
			snprintf(v->err, sizeof v->err, "%s: table findings: a finding of no known kind (a damaged database)",
				 DV(v)->path);
			return -1;
		}
		/* a dangling reference names a free slot, past the last one too */
		int dangling = strcmp(row.kind, finding_kind_names[FK_DANGLING_REF]) == 0;
		if (col_id(v, st, 1, 1, &row.idx) ||
		    (dangling ? col_dangling(v, st, 2, &row.other) : col_id(v, st, 2, 1, &row.other)))
			return -1;
		if (!(row.detail = col_pool(v, st, 3)) || !(row.referencer = col_pool(v, st, 4)) ||
		    finding_rows_push(out, &row))
			return -1;
	}
	return rc;
}

static int dv_clusters(view *v, obj_t root, int bytes, cluster_rows *out)
{
	sqlite3_stmt *st = root == OBJ_NONE ? stmt(v, Q_CLUSTERS, OBJ_NONE)
			   : stmt(v, bytes ? Q_CLUSTER_ONE : Q_CLUSTER_STATE, root);
	int rc;
	while ((rc = next_row(v, st)) > 0) {
		cluster_row row;
		memset(&row, 0, sizeof row);
		if (col_id(v, st, 0, 0, &row.root))
			return -1;
		row.members = (uint32_t)sqlite3_column_int64(st, 1);
		row.mutables = (uint32_t)sqlite3_column_int64(st, 2);
		row.referenced = (uint32_t)sqlite3_column_int64(st, 3);
		row.referenced_by = (uint32_t)sqlite3_column_int64(st, 4);
		row.bytes = (uint64_t)sqlite3_column_int64(st, 5);
		col_text(st, 6, row.state, sizeof row.state);
		col_text(st, 7, row.reason, sizeof row.reason);
		static const char *const states[2] = {"alive", "dissolved"};
		if (!known_name(row.state, states, 2) ||
		    (row.reason[0] && !known_name(row.reason, cluster_fate_names + 1, CF_COUNT - 1))) {
			snprintf(v->err, sizeof v->err, "%s: table clusters: cluster %d has no known state or reason "
				 "(a damaged database)", DV(v)->path, row.root);
			return -1;
		}
		if (cluster_rows_push(out, &row))
			return -1;
	}
	return rc;
}

/* The first column of every row of ST (statement Q), as a malloc'd list of ids. */
static int collect_ids(view *v, int q, sqlite3_stmt *st, obj_t **out, size_t *n)
{
	size_t cap = 0;
	int rc;
	*n = 0;
	*out = NULL;
	DV(v)->q = q;
	while ((rc = next_row(v, st)) > 0) {
		if (grow_array((void **)out, &cap, *n, sizeof **out) || col_id(v, st, 0, 0, &(*out)[*n]))
			break;
		(*n)++;
	}
	if (rc != 0 || grow_array((void **)out, &cap, *n, sizeof **out)) { /* never NULL, even when empty */
		if (!v->err[0])
			snprintf(v->err, sizeof v->err, "out of memory");
		free(*out);
		*out = NULL;
		*n = 0;
		return -1;
	}
	return 0;
}

static int dv_cluster_list(view *v, obj_t root, int which, obj_t **out, size_t *n)
{
	return collect_ids(v, Q_LIST0 + which, stmt(v, Q_LIST0 + which, root), out, n);
}

static int dv_find_path(view *v, const char *path, obj_t *out)
{
	*out = OBJ_NONE;
	size_t len = strlen(path);
	sqlite3_stmt *st = stmt(v, Q_PATH, OBJ_NONE);
	sqlite3_bind_int64(st, 1, (sqlite3_int64)fnv1a(path, len));
	obj_t *cand;
	size_t n;
	if (collect_ids(v, Q_PATH, st, &cand, &n))
		return free(cand), -1;
	for (size_t k = 0; k < n && *out == OBJ_NONE; k++) {
		char *p;
		int rc = db_path(v, cand[k], &p);
		if (rc < 0)
			return free(cand), -1;
		if (rc == 0 && strcmp(p, path) == 0)
			*out = cand[k];
		free(p);
	}
	free(cand);
	return 0;
}

static int dv_find_glob(view *v, const char *glob, const char *class_name, obj_t **out, size_t *n)
{
	sqlite3_stmt *st = stmt(v, Q_GLOB, OBJ_NONE);
	if (glob)
		sqlite3_bind_text(st, 1, glob, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, 1);
	if (class_name)
		sqlite3_bind_text(st, 2, class_name, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, 2);
	return collect_ids(v, Q_GLOB, st, out, n);
}

/* By the index on node_id; the objects found are checked as any row read
 * (col_node_id: the id must be the one their name ends in). */
static int dv_find_node(view *v, int64_t id, obj_t *out, size_t *n)
{
	obj_t *cand;
	sqlite3_stmt *st = stmt(v, Q_NODE, OBJ_NONE);
	sqlite3_bind_int64(st, 1, id);
	*out = OBJ_NONE;
	if (collect_ids(v, Q_NODE, st, &cand, n))
		return -1;
	obj_state s;
	for (size_t k = 0; k < *n; k++)
		if (dv_state(v, cand[k], &s)) {
			if (!v->err[0])
				verr(v, "object_table: object %d vanished", cand[k]);
			free(cand);
			return -1;
		}
	if (*n)
		*out = cand[0];
	free(cand);
	return 0;
}

static void dv_close(view *v)
{
	db_view *d = DV(v);
	for (int q = 0; q < Q_COUNT; q++)
		sqlite3_finalize(d->st[q]);
	sqlite3_close(d->db);
	strpool_free(&v->pool);
	free(d->path);
	free(d);
}

/* The header values the view needs (db_extent.h): the view's slots are the
 * span of the object indexes present, not the number the file states.  0,
 * or -1 with a one-line reason naming the table. */
static int read_header(sqlite3 *db, view *v, char *err, size_t errsize)
{
	db_extent e;
	if (db_read_extent(db, &e, err, errsize))
		return -1;
	v->slots = e.span;
	v->first_gc_index = (obj_t)e.first_gc_index;
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(db, "SELECT value FROM snapshot WHERE key = 'engine'", -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) == SQLITE_TEXT)
		v->v8 = engine_is_v8((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return 0;
}

/* The operations of a database view; see view.h. */
static const view_ops db_view_ops = {
	.object = dv_object,
	.describe = dv_object, /* ugc-gc(7) §3 is stored: nothing to save */
	.state = dv_state,
	.incoming = dv_incoming,
	.sources = dv_sources,
	.outgoing = dv_outgoing,
	.between = dv_between,
	.eliminated_to = dv_eliminated_to,
	.cleared_to = dv_cleared_to,
	.findings = dv_findings,
	.clusters = dv_clusters,
	.cluster_list = dv_cluster_list,
	.find_path = dv_find_path,
	.find_glob = dv_find_glob,
	.find_node = dv_find_node,
	.retained = dv_retained,
	.close = dv_close,
};

view *view_db_open(const char *dbpath, char *err, size_t errsize)
{
	db_view *d = calloc(1, sizeof *d);
	if (!d) {
		snprintf(err, errsize, "out of memory");
		return NULL;
	}
	char why[400];
	if (!(d->path = strdup(dbpath))) {
		snprintf(err, errsize, "out of memory");
		free(d);
		return NULL;
	}
	if (!(d->db = input_open_sql(dbpath, INPUT_SQL_ANALYSIS, err, errsize))) { /* untrusted: checked, nothing of it runs */
		dv_close(&d->base);
		return NULL;
	}
	for (int q = 0; q < Q_COUNT; q++)
		if (sqlite3_prepare_v2(d->db, queries[q], -1, &d->st[q], NULL) != SQLITE_OK) {
			snprintf(err, errsize, "%s: table %s: not an analysis database written by this version (%s)", dbpath,
				 tables[q], sqlite3_errmsg(d->db));
			dv_close(&d->base);
			return NULL;
		}
	view *v = &d->base;
	if (read_header(d->db, v, why, sizeof why)) {
		snprintf(err, errsize, "%s: %s", dbpath, why);
		dv_close(v);
		return NULL;
	}
	v->ops = &db_view_ops;
	return v;
}
