/* retention_db.c — reads the dominators and retained sizes that analyze
 * stored (see retention_db.h).  Every value is checked before use: a
 * database is input like any other. */
#include "sql/retention_db.h"
#include "sql/input.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"

static int fail(char *err, size_t errsize, const char *path, const char *what)
{
	snprintf(err, errsize, "%s: %s", path, what);
	return -1;
}

/* Rows of SQL: 3 to 5 integer columns each, checked by the caller. */
static int load_groups(sqlite3 *db, const char *sql, uint32_t slots, void **out, uint32_t *n, int pairs,
		       const char *path, const char *table, char *err, size_t errsize)
{
	sqlite3_stmt *st;
	char what[160];
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		snprintf(what, sizeof what, "table %s: %s (was it written by an older ugc-analyze?)", table, sqlite3_errmsg(db));
		return fail(err, errsize, path, what);
	}
	size_t cap = 0, size = pairs ? sizeof(dom_pair) : sizeof(dom_group);
	void *v = NULL;
	uint32_t k = 0;
	int rc, bad = 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		sqlite3_int64 a = sqlite3_column_int64(st, 0), b = sqlite3_column_int64(st, 1);
		sqlite3_int64 c = sqlite3_column_int64(st, 2), d = sqlite3_column_int64(st, 3);
		if (a < 0 || a >= slots || b < 0 || c < 0 || d < 0 || (pairs && b >= slots) || (!pairs && b > UINT32_MAX) ||
		    (pairs && c > UINT32_MAX)) {
			bad = 1;
			break;
		}
		if (k == UINT32_MAX || grow_array(&v, &cap, k, size)) {
			sqlite3_finalize(st);
			free(v);
			return fail(err, errsize, path, "out of memory");
		}
		if (pairs)
			((dom_pair *)v)[k++] = (dom_pair){(obj_t)a, (obj_t)b, (uint32_t)c, (uint64_t)d};
		else
			((dom_group *)v)[k++] = (dom_group){(obj_t)a, (uint32_t)b, (uint64_t)c, (uint64_t)d};
	}
	sqlite3_finalize(st);
	if (bad || (rc != SQLITE_ROW && rc != SQLITE_DONE)) {
		free(v);
		snprintf(what, sizeof what, "table %s: a row holds an id out of range or a negative count", table);
		return fail(err, errsize, path, what);
	}
	*out = v ? v : calloc(1, size);
	*n = k;
	return *out ? 0 : fail(err, errsize, path, "out of memory");
}

int retention_db_load(const char *path, uint32_t slots, int policy, dom_result *d, char *err, size_t errsize)
{
	memset(d, 0, sizeof *d);
	sqlite3 *db = input_open_sql(path, INPUT_SQL_ANALYSIS, err, errsize); /* untrusted: checked, nothing of it runs */
	if (!db)
		return -1;
	sqlite3_stmt *st = NULL;
	int rc = -1;
	char what[200];
	if (sqlite3_prepare_v2(db, "SELECT value FROM snapshot WHERE key = 'policy'", -1, &st, NULL) != SQLITE_OK ||
	    sqlite3_step(st) != SQLITE_ROW || sqlite3_column_type(st, 0) != SQLITE_TEXT) {
		fail(err, errsize, path, "table snapshot: no retention policy (written by an ugc-analyze without "
			  "dominators: analyze the snapshot again)");
		goto out;
	}
	int stored = dom_policy_parse((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	st = NULL;
	if (stored < 0) {
		fail(err, errsize, path, "table snapshot: the retention policy is none this ugc-analyze knows");
		goto out;
	}
	if (policy >= 0 && policy != stored) {
		snprintf(what, sizeof what, "holds the %s policy, not %s: analyze it again with --policy %s, or give the "
			 "snapshot", dom_policy_names[stored], dom_policy_names[policy], dom_policy_names[policy]);
		fail(err, errsize, path, what);
		goto out;
	}
	d->policy = stored;
	d->slots = slots;
	size_t s = slots ? slots : 1;
	d->idom = malloc(s * sizeof *d->idom);
	d->retained = calloc(s, sizeof *d->retained);
	d->size = calloc(s, sizeof *d->size);
	if (!d->idom || !d->retained || !d->size) {
		fail(err, errsize, path, "out of memory");
		goto out;
	}
	for (uint32_t i = 0; i < slots; i++)
		d->idom[i] = OBJ_NONE;
	if (sqlite3_prepare_v2(db, "SELECT idx, idom, retained, size FROM object_table", -1, &st, NULL) != SQLITE_OK) {
		fail(err, errsize, path, "table object_table: no idom or retained column (analyze the snapshot again)");
		goto out;
	}
	int step;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		sqlite3_int64 i = sqlite3_column_int64(st, 0), idom = sqlite3_column_int64(st, 1);
		sqlite3_int64 ret = sqlite3_column_int64(st, 2), size = sqlite3_column_int64(st, 3);
		int has_idom = sqlite3_column_type(st, 1) != SQLITE_NULL, has_ret = sqlite3_column_type(st, 2) != SQLITE_NULL;
		if (i < 0 || i >= slots || (has_idom && (idom < 0 || idom >= slots || idom == i)) || (has_idom && !has_ret) ||
		    ret < 0 || size < 0 || size > UINT32_MAX || (has_ret && ret < size)) {
			snprintf(what, sizeof what, "table object_table: object %lld has an idom or retained size that "
				 "cannot be (out of range, itself, or less than its own size)", (long long)i);
			fail(err, errsize, path, what);
			goto out;
		}
		d->size[i] = (uint32_t)size;
		if (!has_ret)
			continue;
		d->idom[i] = has_idom ? (obj_t)idom : DOM_TOP;
		d->retained[i] = (uint64_t)ret;
		d->reached++;
		d->reached_bytes += (uint64_t)size;
	}
	if (step != SQLITE_DONE) {
		fail(err, errsize, path, "table object_table: cannot be read");
		goto out;
	}
	sqlite3_finalize(st);
	st = NULL;
	/* an idom must itself be reached: else a walk up the tree would stop short */
	for (uint32_t i = 0; i < slots; i++)
		if (d->idom[i] >= 0 && d->idom[d->idom[i]] == OBJ_NONE) {
			snprintf(what, sizeof what, "table object_table: the idom of %u, %d, is no reached object", i,
				 d->idom[i]);
			fail(err, errsize, path, what);
			goto out;
		}
	if (load_groups(db, "SELECT class, objects, shallow, retained FROM retained_by_class "
			    "ORDER BY retained DESC, class", slots, (void **)&d->classes, &d->nclasses, 0, path,
			    "retained_by_class", err, errsize) ||
	    load_groups(db, "SELECT package, objects, shallow, retained FROM retained_by_package "
			    "ORDER BY retained DESC, package", slots, (void **)&d->packages, &d->npackages, 0, path,
			    "retained_by_package", err, errsize) ||
	    load_groups(db, "SELECT from_package, to_package, objects, bytes FROM package_retention "
			    "ORDER BY bytes DESC, from_package, to_package", slots, (void **)&d->pairs, &d->npairs, 1,
			    path, "package_retention", err, errsize))
		goto out;
	rc = 0;
out:
	sqlite3_finalize(st);
	sqlite3_close(db);
	if (rc)
		dom_free(d);
	return rc;
}
