/* diff_store.c — `diff -o DIFF.db`: the per-object status and the
 * aggregates of a two-way diff, in SQLite (schema in ugc-analyze(1)). */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sql/diff_db.h"

#include "analysis/analysis.h"
#include "base/base.h"

#define DIFF_SCHEMA \
	"CREATE TABLE diff_objects(name TEXT, status TEXT, a_idx INTEGER, b_idx INTEGER, a_size INTEGER, " \
	"b_size INTEGER, a_reachable INTEGER, b_reachable INTEGER);" \
	"CREATE TABLE diff_groups(by TEXT, name TEXT, a_count INTEGER, b_count INTEGER, a_bytes INTEGER, " \
	"b_bytes INTEGER, added INTEGER, removed INTEGER, kept INTEGER);" \
	"CREATE TABLE diff_meta(key TEXT PRIMARY KEY, value);"

/* One diff_objects row through ST: object K of side S (B when SIDE), its
 * status and its match M; -1 on an error. */
static int store_object(sqlite3_stmt *st, const diff_side *s, const diff_side *b, uint32_t k, int side,
			uint8_t status, int32_t m)
{
	const diff_obj *x = &s->v[k];
	const diff_obj *ax = side ? NULL : x, *bx = side ? x : (m >= 0 ? &b->v[m] : NULL);
	if (status == DS_REPLACED && !side)
		bx = NULL; /* the replacement is written from B */
	char *full = diff_full_name(s, k);
	if (!full)
		return -1;
	sqlite3_bind_text(st, 1, full, -1, SQLITE_TRANSIENT);
	free(full);
	sqlite3_bind_text(st, 2, diff_status_names[status], -1, SQLITE_STATIC);
#define BIND_OPT(col, cond, val) ((cond) ? sqlite3_bind_int64(st, col, val) : sqlite3_bind_null(st, col))
	BIND_OPT(3, ax, ax ? ax->idx : 0);
	BIND_OPT(4, bx, bx ? bx->idx : 0);
	BIND_OPT(5, ax, ax ? ax->size : 0);
	BIND_OPT(6, bx, bx ? bx->size : 0);
	BIND_OPT(7, ax, ax ? ax->reachable : 0);
	BIND_OPT(8, bx, bx ? bx->reachable : 0);
#undef BIND_OPT
	if (sqlite3_step(st) != SQLITE_DONE)
		return -1;
	sqlite3_reset(st);
	return 0;
}

/* Every object of A, then those B adds or replaces, into diff_objects. */
static int store_objects(sqlite3_stmt *st, const diff_side *a, const diff_side *b, const diff_result *r)
{
	for (int side = 0; side < 2; side++) {
		const diff_side *s = side ? b : a;
		for (uint32_t k = 0; k < s->n; k++) {
			if ((k & 0xffff) == 0)
				progress_at((uint64_t)side * a->n + k, (uint64_t)a->n + b->n);
			int32_t m = side ? r->b_match[k] : r->a_match[k];
			uint8_t status = side ? r->b_status[k] : r->a_status[k];
			if (side && status != DS_ADDED && status != DS_REPLACED)
				continue; /* matched objects are written once, from A */
			if (store_object(st, s, b, k, side, status, m))
				return -1;
		}
	}
	return 0;
}

/* The groups by class, package and outer into diff_groups through GS. */
static int store_groups(sqlite3_stmt *gs, const diff_side *a, const diff_side *b, const diff_result *r)
{
	static const char *const by_names[3] = {"class", "package", "outer"};
	for (int by = 0; by < 3; by++) {
		group_rows g = {0};
		if (diff_groups(a, b, r, (enum diff_by)by, DIFF_NAMES_ALL, &g))
			return -1;
		for (size_t k = 0; k < g.n; k++) {
			const group_row *x = &g.v[k];
			sqlite3_bind_text(gs, 1, by_names[by], -1, SQLITE_STATIC);
			sqlite3_bind_text(gs, 2, x->name, -1, SQLITE_STATIC);
			sqlite3_bind_int64(gs, 3, (sqlite3_int64)x->a_count);
			sqlite3_bind_int64(gs, 4, (sqlite3_int64)x->b_count);
			sqlite3_bind_int64(gs, 5, (sqlite3_int64)x->a_bytes);
			sqlite3_bind_int64(gs, 6, (sqlite3_int64)x->b_bytes);
			sqlite3_bind_int64(gs, 7, (sqlite3_int64)x->added);
			sqlite3_bind_int64(gs, 8, (sqlite3_int64)x->removed);
			sqlite3_bind_int64(gs, 9, (sqlite3_int64)x->kept);
			if (sqlite3_step(gs) != SQLITE_DONE) {
				group_rows_free(&g);
				return -1;
			}
			sqlite3_reset(gs);
		}
		group_rows_free(&g);
	}
	return 0;
}

/* The diff's totals into diff_meta through MS. */
static int store_meta(sqlite3_stmt *ms, const diff_side *a, const diff_side *b, const diff_result *r)
{
	const struct { const char *k; long long v; } meta[] = {
		{"same_process", r->same_process}, {"kept", r->kept}, {"added", r->added}, {"removed", r->removed},
		{"replaced", r->replaced}, {"reused_slots", r->reused_slots}, {"a_objects", a->n}, {"b_objects", b->n},
	};
	for (size_t k = 0; k < sizeof meta / sizeof meta[0]; k++) {
		sqlite3_bind_text(ms, 1, meta[k].k, -1, SQLITE_STATIC);
		sqlite3_bind_int64(ms, 2, meta[k].v);
		if (sqlite3_step(ms) != SQLITE_DONE)
			return -1;
		sqlite3_reset(ms);
	}
	return 0;
}

int diff_store(const char *path, int force, const diff_side *a, const diff_side *b, const diff_result *r,
	       char *err, size_t errsize)
{
	outfile o;
	if (outfile_reserve(&o, path, force, err, errsize))
		return -1;
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL, *gs = NULL, *ms = NULL;
	int rc = -1;
	if (sqlite3_open_v2(o.tmp, &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK ||
	    sqlite3_exec(db, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; BEGIN;" DIFF_SCHEMA, NULL, NULL, NULL) ||
	    sqlite3_prepare_v2(db, "INSERT INTO diff_objects VALUES(?,?,?,?,?,?,?,?)", -1, &st, NULL) ||
	    sqlite3_prepare_v2(db, "INSERT INTO diff_groups VALUES(?,?,?,?,?,?,?,?,?)", -1, &gs, NULL) ||
	    sqlite3_prepare_v2(db, "INSERT INTO diff_meta VALUES(?,?)", -1, &ms, NULL))
		goto fail;
	if (store_objects(st, a, b, r) || store_groups(gs, a, b, r) || store_meta(ms, a, b, r))
		goto fail;
	if (sqlite3_exec(db, "CREATE INDEX diff_objects_name ON diff_objects(name);"
			     "CREATE INDEX diff_objects_status ON diff_objects(status); COMMIT;", NULL, NULL, NULL))
		goto fail;
	rc = 0;
fail:
	if (rc)
		snprintf(err, errsize, "%s: %s", path, db ? sqlite3_errmsg(db) : "cannot create");
	sqlite3_finalize(st);
	sqlite3_finalize(gs);
	sqlite3_finalize(ms);
	if (sqlite3_close(db) != SQLITE_OK && rc == 0) {
		snprintf(err, errsize, "%s: close failed", path);
		rc = -1;
	}
	if (rc) {
		outfile_abort(&o);
		return -1;
	}
	return outfile_commit(&o, err, errsize);
}
