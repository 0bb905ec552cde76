/* diff_db.c — fills a diff side from the object_table, eliminated_refs and
 * findings tables, in the same forms diff_side_from_heap() produces.
 *
 * The database is input: slots must cover the rows (db_extent.h), every id
 * must be an index below the highest one present + 1, Outer chains must
 * end, and each parent must be one hop nearer a root; anything else is a
 * one-line error naming the table.  Memory follows the rows, not the
 * stored slots: a sparse side is searched instead of indexed by slot. */
#include "sql/diff_db.h"
#include "sql/input.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sql/db_extent.h"
#include "sql/schema.h"

/* Intern column C as an FName: base id, number. */
static int fname(strtab *t, sqlite3_stmt *st, int c, uint32_t *id, uint32_t *num)
{
	const char *s = (const char *)sqlite3_column_text(st, c);
	size_t len = s ? strlen(s) : 0, base;
	fname_split(s ? s : "", len, &base, num);
	*id = strtab_intern(t, s ? s : "", base);
	return *id == UINT32_MAX ? -1 : 0;
}

/* Column C as an object id of side S (NULL: OBJ_NONE); -1 when it is no index. */
static int col_id(const diff_side *s, sqlite3_stmt *st, int c, obj_t *out)
{
	if (sqlite3_column_type(st, c) == SQLITE_NULL) {
		*out = OBJ_NONE;
		return 0;
	}
	sqlite3_int64 x = sqlite3_column_int64(st, c);
	if (sqlite3_column_type(st, c) != SQLITE_INTEGER || x < 0 || x >= (sqlite3_int64)s->slots)
		return -1;
	*out = (obj_t)x;
	return 0;
}

/* FACT onto the list *V (*N of *CAP); -1 when out of memory. */
static int push_fact(diff_fact **v, uint32_t *n, size_t *cap, diff_fact fact)
{
	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 64;
		diff_fact *p = realloc(*v, nc * sizeof *p);
		if (!p)
			return -1;
		*v = p;
		*cap = nc;
	}
	(*v)[(*n)++] = fact;
	return 0;
}

/* Column C's text in S's strings (NULL as ""); UINT32_MAX when out of memory. */
static uint32_t col_text_id(diff_side *s, sqlite3_stmt *st, int c)
{
	const char *t = (const char *)sqlite3_column_text(st, c);
	return strtab_intern(&s->strings, t ? t : "", t ? (size_t)sqlite3_column_bytes(st, c) : 0);
}

/* The references the GC nulls: holder (an FGCObject's by its referencer),
 * property and target, in table order; rows whose target is no object are
 * left out. */
static int eliminated(sqlite3 *db, diff_side *s, const char **why)
{
	sqlite3_stmt *st;
	*why = "table eliminated_refs";
	if (sqlite3_prepare_v2(db, "SELECT src, referencer, coalesce(property, ''), dst FROM eliminated_refs ORDER BY rowid",
			       -1, &st, NULL) != SQLITE_OK)
		return -1;
	size_t cap = 0;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		obj_t src, dst;
		if (col_id(s, st, 0, &src) || col_id(s, st, 3, &dst)) {
			*why = "table eliminated_refs: an object id is not an index below slots";
			break;
		}
		int64_t d = diff_find(s, dst), sp = src == OBJ_NONE ? -1 : diff_find(s, src);
		if (d < 0 || (src != OBJ_NONE && sp < 0)) /* as diff_side_from_heap: no such object, no fact */
			continue;
		uint32_t ref = sp < 0 ? col_text_id(s, st, 1) : 0, prop = col_text_id(s, st, 2);
		if (ref == UINT32_MAX || prop == UINT32_MAX ||
		    push_fact(&s->eliminated, &s->neliminated, &cap, (diff_fact){{(int32_t)sp, -1, (int32_t)d}, {ref, prop, 0}})) {
			*why = "out of memory";
			break;
		}
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

/* The cluster disagreements: kind, member, target. */
static int disagreements(sqlite3 *db, diff_side *s, const char **why)
{
	sqlite3_stmt *st;
	*why = "table findings";
	if (sqlite3_prepare_v2(db, "SELECT kind, idx, other FROM findings WHERE kind IN ('cluster-missing-mutable', "
			       "'cluster-missing-cluster') ORDER BY rowid", -1, &st, NULL) != SQLITE_OK)
		return -1;
	size_t cap = 0;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		obj_t m, t;
		if (col_id(s, st, 1, &m) || col_id(s, st, 2, &t)) {
			*why = "table findings: an object id is not an index below slots";
			break;
		}
		int64_t mp = diff_find(s, m), tp = diff_find(s, t);
		if (mp < 0 || tp < 0)
			continue;
		uint32_t kind = col_text_id(s, st, 0);
		if (kind == UINT32_MAX ||
		    push_fact(&s->disagreements, &s->ndisagreements, &cap, (diff_fact){{-1, (int32_t)mp, (int32_t)tp}, {kind, 0, 0}})) {
			*why = "out of memory";
			break;
		}
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

/* Outer chains end and parents lead to roots.  An Outer climb marks what it
 * passes (1 on this climb, 2 known to end), so each object is climbed once. */
static const char *check_chains(diff_side *s)
{
	uint8_t *mark = calloc((size_t)s->n + 1, 1);
	if (!mark)
		return "out of memory";
	const char *why = NULL;
	for (uint32_t k = 0; k < s->n && !why; k++) {
		int64_t at = k;
		while (at >= 0 && mark[at] == 0) {
			mark[at] = 1;
			obj_t outer = s->v[at].outer;
			if ((at = diff_find(s, outer)) < 0 && outer != OBJ_NONE)
				why = "table object_table: an outer is not an object";
		}
		if (at >= 0 && mark[at] == 1 && !why)
			why = "table object_table: an Outer chain loops";
		for (int64_t x = k; x >= 0 && mark[x] == 1; x = diff_find(s, s->v[x].outer))
			mark[x] = 2;
		const diff_obj *o = &s->v[k];
		if (o->parent != OBJ_NONE) {
			int64_t p = diff_find(s, o->parent);
			if (p < 0 || o->distance == UINT32_MAX || o->distance == 0 || s->v[p].distance != o->distance - 1)
				why = "table object_table: a parent is not one hop nearer a root";
		}
	}
	free(mark);
	return why;
}

/* How a step of diff_side_from_db() ended: which error line it wants. */
enum { DB_OK, DB_SQLERR, DB_BAD, DB_OOM };

/* The schema version, then the extent (db_extent.h: SLOTS is the span of
 * the indexes present, HI the highest) and the object_table's row count;
 * DB_BAD with *WHY when they do not fit together. */
static int read_extent(sqlite3 *db, sqlite3_stmt **st, char *version, size_t vsize, sqlite3_int64 *slots,
		       sqlite3_int64 *count, sqlite3_int64 *hi, const char **why)
{
	db_extent e;
	if (db_read_extent(db, &e, version, vsize)) { /* the version: input_open_sql checked it */
		*why = version;
		return DB_BAD;
	}
	if (sqlite3_prepare_v2(db, "SELECT count(*) FROM object_table", -1, st, NULL) != SQLITE_OK ||
	    sqlite3_step(*st) != SQLITE_ROW)
		return DB_SQLERR;
	*count = sqlite3_column_int64(*st, 0);
	*slots = e.span;
	*hi = (sqlite3_int64)e.span - 1;
	sqlite3_finalize(*st);
	*st = NULL;
	return DB_OK;
}

/* Room for COUNT rows, and the slot index when the slots up to HI are no
 * more than a few times the rows; DB_OOM when any of it is missing. */
static int alloc_rows(diff_side *out, sqlite3_int64 slots, sqlite3_int64 count, sqlite3_int64 hi)
{
	out->slots = (uint32_t)slots;
	out->v = calloc((size_t)count + 1, sizeof *out->v);
	/* indexed by slot only when the slots are no more than a few times the rows */
	uint64_t span = count ? (uint64_t)hi + 1 : 0;
	if (span <= 8 * (uint64_t)count + 4096) {
		out->slots = (uint32_t)span;
		out->by_idx = malloc((span + 1) * sizeof *out->by_idx);
		if (out->by_idx)
			for (uint64_t i = 0; i < span; i++)
				out->by_idx[i] = -1;
	}
	if (!out->v || (span <= 8 * (uint64_t)count + 4096 && !out->by_idx) || !out->strings.off)
		return DB_OOM;
	return DB_OK;
}

/* Append the object_table row at ST to OUT; DB_BAD with *WHY when an id or
 * the distance (below SLOTS) is out of range. */
static int read_object_row(diff_side *out, sqlite3_stmt *st, sqlite3_int64 slots, const char **why)
{
	diff_obj *o = &out->v[out->n];
	sqlite3_int64 dist = sqlite3_column_int64(st, 9);
	if (col_id(out, st, 0, &o->idx) || o->idx == OBJ_NONE || col_id(out, st, 2, &o->outer) ||
	    col_id(out, st, 10, &o->parent) || (sqlite3_column_type(st, 9) != SQLITE_NULL && (dist < 0 || dist >= slots))) {
		*why = "table object_table: an object id or distance is out of range";
		return DB_BAD;
	}
	if (out->by_idx)
		out->by_idx[o->idx] = (int32_t)out->n;
	out->n++;
	o->serial = (uint32_t)sqlite3_column_int64(st, 1);
	const char *via = (const char *)sqlite3_column_text(st, 11);
	if (fname(&out->strings, st, 3, &o->name, &o->num) || fname(&out->strings, st, 4, &o->cls, &o->cls_num) ||
	    (o->via = strtab_intern(&out->strings, via ? via : "", via ? strlen(via) : 0)) == UINT32_MAX)
		return DB_OOM;
	o->size = (uint32_t)sqlite3_column_int64(st, 5);
	o->garbage = sqlite3_column_int(st, 6) != 0;
	o->reachable = sqlite3_column_int(st, 7) != 0;
	o->root_kind = (uint8_t)root_kind_parse((const char *)sqlite3_column_text(st, 8));
	o->distance = sqlite3_column_type(st, 9) == SQLITE_NULL ? UINT32_MAX : (uint32_t)dist;
	return DB_OK;
}

/* Up to COUNT rows of object_table, in index order, onto OUT. */
static int read_objects(sqlite3 *db, sqlite3_stmt **st, diff_side *out, sqlite3_int64 slots, sqlite3_int64 count,
			const char **why)
{
	*why = "table object_table";
	if (sqlite3_prepare_v2(db, "SELECT idx, serial, outer, name, class_name, size, garbage, reachable, root_kind, "
				   "distance, parent, coalesce(parent_property, '') FROM object_table ORDER BY idx", -1, st, NULL) != SQLITE_OK)
		return DB_SQLERR;
	int s;
	while ((s = sqlite3_step(*st)) == SQLITE_ROW && out->n < count) {
		int r = read_object_row(out, *st, slots, why);
		if (r != DB_OK)
			return r;
	}
	if (s != SQLITE_ROW && s != SQLITE_DONE)
		return DB_SQLERR;
	sqlite3_finalize(*st);
	*st = NULL;
	return DB_OK;
}

/* The retained bytes of each class, from retained_by_class. */
static int read_retained(sqlite3 *db, sqlite3_stmt **st, diff_side *out, const char **why)
{
	*why = "table retained_by_class";
	if (sqlite3_prepare_v2(db, "SELECT class_name, retained FROM retained_by_class", -1, st, NULL) != SQLITE_OK)
		return DB_SQLERR;
	int s;
	while ((s = sqlite3_step(*st)) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(*st, 0);
		sqlite3_int64 bytes = sqlite3_column_int64(*st, 1);
		if (!name || bytes < 0) {
			*why = "table retained_by_class: a class without a name or with negative bytes";
			return DB_BAD;
		}
		if (diff_add_retained(out, name, (uint64_t)bytes))
			return DB_OOM;
	}
	return s == SQLITE_DONE ? DB_OK : DB_SQLERR;
}

/* An FGCObject's roots (gcobject, no parent): their holder's name, from
 * gc_object_refs, where the edge would be (diff.h); the first record's. */
static int gc_holders(sqlite3 *db, sqlite3_stmt **st, diff_side *out, const char **why)
{
	*why = "table gc_object_refs";
	if (sqlite3_prepare_v2(db, "SELECT referencer, dst FROM gc_object_refs ORDER BY rowid DESC", -1, st, NULL) !=
	    SQLITE_OK)
		return DB_SQLERR;
	int s;
	while ((s = sqlite3_step(*st)) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(*st, 0);
		sqlite3_int64 dst = sqlite3_column_int64(*st, 1);
		int64_t k = sqlite3_column_type(*st, 1) == SQLITE_INTEGER && dst >= 0 && dst <= INT32_MAX
				    ? diff_find(out, (obj_t)dst) : -1;
		if (!name || k < 0 || out->v[k].root_kind != RK_GCOBJECT || out->v[k].parent != OBJ_NONE)
			continue; /* not a root it holds: nothing to name */
		if ((out->v[k].via = strtab_intern(&out->strings, name, strlen(name))) == UINT32_MAX)
			return DB_OOM; /* the first record's, last */
	}
	if (s != SQLITE_DONE)
		return DB_SQLERR;
	sqlite3_finalize(*st);
	*st = NULL;
	return DB_OK;
}

/* Every table of the database onto OUT, a step at a time; ST is the open
 * statement an error leaves, *WHY what failed. */
static int read_side(sqlite3 *db, sqlite3_stmt **st, diff_side *out, char *version, size_t vsize, const char **why)
{
	sqlite3_int64 slots = 0, count = 0, hi = 0;
	int r = read_extent(db, st, version, vsize, &slots, &count, &hi, why);
	if (r == DB_OK)
		r = alloc_rows(out, slots, count, hi);
	if (r == DB_OK)
		r = read_objects(db, st, out, slots, count, why);
	if (r != DB_OK)
		return r;
	if ((*why = check_chains(out)) != NULL)
		return DB_BAD;
	if ((r = gc_holders(db, st, out, why)) != DB_OK)
		return r;
	if (eliminated(db, out, why) || disagreements(db, out, why))
		return DB_SQLERR;
	return read_retained(db, st, out, why);
}

int diff_side_from_db(const char *dbpath, diff_side *out, char *err, size_t errsize)
{
	memset(out, 0, sizeof *out);
	strtab_init(&out->strings);
	sqlite3 *db = input_open_sql(dbpath, INPUT_SQL_ANALYSIS, err, errsize); /* untrusted: checked, nothing of it runs */
	if (!db) {
		diff_side_free(out);
		return -1;
	}
	sqlite3_stmt *st = NULL;
	const char *why = "table snapshot or object_table";
	char version[300];
	int r = read_side(db, &st, out, version, sizeof version, &why);
	if (r == DB_OOM)
		snprintf(err, errsize, "%s: out of memory", dbpath);
	else if (r == DB_SQLERR)
		snprintf(err, errsize, "%s: %s: %s", dbpath, why, sqlite3_errmsg(db));
	else if (r == DB_BAD)
		snprintf(err, errsize, "%s: %s", dbpath, why);
	sqlite3_finalize(st);
	sqlite3_close(db);
	if (r != DB_OK)
		diff_side_free(out);
	return r == DB_OK ? 0 : -1;
}
