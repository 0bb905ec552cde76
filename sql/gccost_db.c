/* gccost_db.c — reads the mark phase's work analyze stored (see
 * gccost_db.h).  Every value is checked before use. */
#include "sql/gccost_db.h"
#include "sql/input.h"

#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(char *err, size_t errsize, const char *path, const char *table, const char *what)
{
	snprintf(err, errsize, "%s: table %s: %s", path, table, what);
	return -1;
}

/* The number of rows of TABLE into N (at most UINT32_MAX). */
static int count_rows(sqlite3 *db, const char *table, uint32_t *n, const char *path, char *err, size_t errsize)
{
	char sql[96];
	snprintf(sql, sizeof sql, "SELECT count(*) FROM %s", table);
	sqlite3_stmt *st = NULL;
	int ok = sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW;
	sqlite3_int64 k = ok ? sqlite3_column_int64(st, 0) : -1;
	sqlite3_finalize(st);
	if (!ok)
		return fail(err, errsize, path, table, "cannot be read (written by an older ugc-analyze? analyze the "
			    "snapshot again)");
	if (k < 0 || k > UINT32_MAX)
		return fail(err, errsize, path, table, "too many rows");
	*n = (uint32_t)k;
	return 0;
}

/* Column COL of ST as a count in [0, MAX]; -1 when it is not one. */
static int64_t count_col(sqlite3_stmt *st, int col, int64_t max)
{
	if (sqlite3_column_type(st, col) != SQLITE_INTEGER)
		return -1;
	sqlite3_int64 v = sqlite3_column_int64(st, col);
	return v < 0 || v > max ? -1 : v;
}

static int load_totals(sqlite3 *db, gccost *c, const char *path, char *err, size_t errsize)
{
	sqlite3_stmt *st = NULL;
	int rows = 0, bad = 0, step;
	if (sqlite3_prepare_v2(db, "SELECT visits, trace_visits, list_visits, record_visits, traced, walked, "
			       "disregard_skipped FROM gc_cost", -1, &st, NULL) != SQLITE_OK)
		return fail(err, errsize, path, "gc_cost", "cannot be read (analyze the snapshot again)");
	while ((step = sqlite3_step(st)) == SQLITE_ROW && !bad) {
		int64_t v[7];
		for (int k = 0; k < 7; k++)
			if ((v[k] = count_col(st, k, k == 4 || k == 5 ? UINT32_MAX : INT64_MAX)) < 0)
				bad = 1;
		if (!bad && (v[1] > v[0] || v[2] > v[0] - v[1] || v[3] != v[0] - v[1] - v[2]))
			bad = 1; /* the parts add up to the whole (no sum that could wrap) */
		if (!bad) {
			*c = (gccost){.visits = (uint64_t)v[0], .trace_visits = (uint64_t)v[1], .list_visits = (uint64_t)v[2],
				      .gc_record_visits = (uint64_t)v[3], .traced = (uint32_t)v[4], .walked = (uint32_t)v[5],
				      .disregard_skipped = (uint64_t)v[6]};
		}
		rows++;
	}
	sqlite3_finalize(st);
	if (bad || (step != SQLITE_DONE && step != SQLITE_ROW))
		return fail(err, errsize, path, "gc_cost", "holds a negative count, one out of range, or parts that "
			    "do not add up to the whole");
	return rows == 1 ? 0 : fail(err, errsize, path, "gc_cost", "must hold one row");
}

/* A copy of column COL of ST (text or NULL, as ""), or NULL when out of memory. */
static char *text_col(sqlite3_stmt *st, int col)
{
	const char *s = (const char *)sqlite3_column_text(st, col);
	return strdup(s ? s : "");
}

/* Up to WANT rows of SQL (key, path, three counts, and a class's name when
 * NAMES2) into ROWS (an array of WANT, allocated here), PATHS and NAMES2. */
static int load_rows(sqlite3 *db, const char *table, const char *sql, int candidates, uint32_t want, void **rows,
		     char ***paths, char ***names2, uint32_t *nnames, const gccost *total, const char *path, char *err,
		     size_t errsize)
{
	size_t size = candidates ? sizeof(gccost_candidate) : sizeof(gccost_row);
	*rows = calloc(want ? want : 1, size);
	*paths = calloc(want ? want : 1, sizeof **paths);
	if (names2)
		*names2 = calloc(want ? want : 1, sizeof **names2);
	if (!*rows || !*paths || (names2 && !*names2))
		return fail(err, errsize, path, table, "out of memory");
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK ||
	    sqlite3_bind_int64(st, 1, want) != SQLITE_OK) {
		sqlite3_finalize(st);
		return fail(err, errsize, path, table, "cannot be read (analyze the snapshot again)");
	}
	uint32_t k = 0;
	int step, bad = 0;
	while (k < want && (step = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t key = count_col(st, 0, INT32_MAX - 1), a = count_col(st, 2, UINT32_MAX);
		int64_t b = count_col(st, 3, candidates ? INT64_MAX : UINT32_MAX), v = count_col(st, 4, INT64_MAX);
		int t1 = sqlite3_column_type(st, 1), t5 = names2 ? sqlite3_column_type(st, 5) : SQLITE_NULL;
		/* no row reads more than the whole mark, nor traces more objects than it did */
		int over = (uint64_t)(candidates ? b : v) > total->visits || (uint64_t)a > total->traced ||
			   (!candidates && (uint64_t)b > total->walked);
		if (key < 0 || a < 0 || b < 0 || v < 0 || (t1 != SQLITE_TEXT && t1 != SQLITE_NULL) ||
		    (t5 != SQLITE_TEXT && t5 != SQLITE_NULL) || (candidates && v > b) || over) {
			bad = 1;
			break;
		}
		char *copy = text_col(st, 1), *name = names2 ? text_col(st, 5) : NULL;
		if (!copy || (names2 && !name)) {
			free(copy);
			free(name);
			sqlite3_finalize(st);
			return fail(err, errsize, path, table, "out of memory");
		}
		(*paths)[*nnames] = copy;
		if (names2)
			(*names2)[*nnames] = name;
		++*nnames;
		if (candidates) /* objects, visits, as_cluster: a cluster never costs more than it saves from */
			((gccost_candidate *)*rows)[k] = (gccost_candidate){(obj_t)key, (uint32_t)a, (uint64_t)b,
									    (uint64_t)v};
		else
			((gccost_row *)*rows)[k] = (gccost_row){(obj_t)key, (uint32_t)a, (uint32_t)b, (uint64_t)v};
		k++;
	}
	sqlite3_finalize(st);
	if (bad)
		return fail(err, errsize, path, table, "a row holds an id out of range, a negative count, more than "
			    "the whole mark's, or a name that is not text");
	return k == want ? 0 : fail(err, errsize, path, table, "changed while read");
}

int gccost_db_load(const char *path, size_t limit, gccost *c, gccost_names *n, char *err, size_t errsize)
{
	memset(c, 0, sizeof *c);
	memset(n, 0, sizeof *n);
	sqlite3 *db = input_open_sql(path, INPUT_SQL_ANALYSIS, err, errsize);
	if (!db)
		return -1;
	uint32_t nc = 0, np = 0, nx = 0;
	int rc = load_totals(db, c, path, err, errsize) ||
		 count_rows(db, "gc_cost_by_class", &nc, path, err, errsize) ||
		 count_rows(db, "gc_cost_by_package", &np, path, err, errsize) ||
		 count_rows(db, "gc_cost_candidates", &nx, path, err, errsize);
#define TAKE(total) ((uint32_t)(limit && limit < (total) ? limit : (total)))
	if (rc == 0) {
		c->nclasses = nc;
		c->npackages = np;
		c->ncandidates = nx;
		rc = load_rows(db, "gc_cost_by_class", "SELECT class, path, traced, clusters, visits, class_name FROM "
			       "gc_cost_by_class ORDER BY visits DESC, class LIMIT ?", 0, TAKE(nc), (void **)&c->classes,
			       &n->classes, &n->class_names, &n->nclasses, c, path, err, errsize) ||
		     load_rows(db, "gc_cost_by_package", "SELECT package, name, traced, clusters, visits FROM "
			       "gc_cost_by_package ORDER BY visits DESC, package LIMIT ?", 0, TAKE(np),
			       (void **)&c->packages, &n->packages, NULL, &n->npackages, c, path, err, errsize) ||
		     load_rows(db, "gc_cost_candidates", "SELECT package, name, objects, visits, as_cluster FROM "
			       "gc_cost_candidates ORDER BY visits - as_cluster DESC, package LIMIT ?", 1, TAKE(nx),
			       (void **)&c->candidates, &n->candidates, NULL, &n->ncandidates, c, path, err, errsize);
	}
#undef TAKE
	sqlite3_stmt *st = NULL;
	if (rc == 0 && sqlite3_prepare_v2(db, "SELECT value FROM snapshot WHERE key = 'engine'", -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) == SQLITE_TEXT)
		c->v8 = engine_is_v8((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	sqlite3_close(db);
	if (rc) {
		gccost_names_free(n);
		gccost_free(c);
	}
	return rc ? -1 : 0;
}

void gccost_names_free(gccost_names *n)
{
	char **lists[4] = {n->classes, n->packages, n->candidates, n->class_names};
	uint32_t counts[4] = {n->nclasses, n->npackages, n->ncandidates, n->class_names ? n->nclasses : 0};
	for (int l = 0; l < 4; l++) {
		for (uint32_t k = 0; k < counts[l]; k++)
			free(lists[l][k]);
		free(lists[l]);
	}
	memset(n, 0, sizeof *n);
}
