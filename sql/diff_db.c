/* diff_db.c — fills a diff side from the objects, eliminated_refs and
 * findings tables, in the same forms diff_side_from_heap() produces. */
#include "diff_db.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Intern column C as an FName: base id, number. */
static int fname(strtab *t, sqlite3_stmt *st, int c, uint32_t *id, uint32_t *num)
{
	const char *s = (const char *)sqlite3_column_text(st, c);
	size_t len = s ? strlen(s) : 0, base;
	fname_split(s ? s : "", len, &base, num);
	*id = strtab_intern(t, s ? s : "", base);
	return *id == UINT32_MAX ? -1 : 0;
}

/* Run SQL and append one fact a row, from columns 0|1|2. */
static int facts(sqlite3 *db, const char *sql, diff_fact **out, uint32_t *n)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	size_t cap = 64;
	*out = malloc(cap * sizeof **out);
	*n = 0;
	int rc = *out ? 0 : -1;
	while (rc == 0 && sqlite3_step(st) == SQLITE_ROW) {
		if (*n == cap) {
			diff_fact *p = realloc(*out, (cap *= 2) * sizeof *p);
			if (!p) {
				rc = -1;
				break;
			}
			*out = p;
		}
		const char *a = (const char *)sqlite3_column_text(st, 0), *b = (const char *)sqlite3_column_text(st, 1),
			   *c = (const char *)sqlite3_column_text(st, 2);
		size_t len = strlen(a ? a : "") + strlen(b ? b : "") + strlen(c ? c : "") + 3;
		char *t = malloc(len);
		if (!t) {
			rc = -1;
			break;
		}
		snprintf(t, len, "%s|%s|%s", a ? a : "", b ? b : "", c ? c : "");
		(*out)[(*n)++].text = t;
	}
	sqlite3_finalize(st);
	return rc;
}

int diff_side_from_db(const char *dbpath, diff_side *out, char *err, size_t errsize)
{
	memset(out, 0, sizeof *out);
	sqlite3 *db;
	if (sqlite3_open_v2(dbpath, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
		snprintf(err, errsize, "%s: %s", dbpath, sqlite3_errmsg(db));
		sqlite3_close(db);
		return -1;
	}
	sqlite3_stmt *st = NULL;
	int rc = -1;
	if (sqlite3_prepare_v2(db, "SELECT (SELECT value FROM snapshot WHERE key = 'slots'), (SELECT count(*) FROM objects)",
			       -1, &st, NULL) != SQLITE_OK || sqlite3_step(st) != SQLITE_ROW)
		goto sqlerr;
	out->slots = (uint32_t)sqlite3_column_int64(st, 0);
	uint32_t count = (uint32_t)sqlite3_column_int64(st, 1);
	sqlite3_finalize(st);
	st = NULL;
	out->v = calloc((size_t)count + 1, sizeof *out->v);
	out->by_idx = malloc(((size_t)out->slots + 1) * sizeof *out->by_idx);
	strtab_init(&out->strings);
	if (!out->v || !out->by_idx || !out->strings.off)
		goto oom;
	for (uint32_t i = 0; i < out->slots; i++)
		out->by_idx[i] = -1;
	if (sqlite3_prepare_v2(db, "SELECT idx, serial, outer, name, class_name, size, garbage, reachable, root_kind, "
				   "distance, parent, coalesce(parent_property, '') FROM objects ORDER BY idx", -1, &st, NULL) != SQLITE_OK)
		goto sqlerr;
	while (sqlite3_step(st) == SQLITE_ROW && out->n < count) {
		diff_obj *o = &out->v[out->n];
		o->idx = (obj_t)sqlite3_column_int64(st, 0);
		if ((uint32_t)o->idx >= out->slots)
			goto sqlerr;
		out->by_idx[o->idx] = (int32_t)out->n++;
		o->serial = (uint32_t)sqlite3_column_int64(st, 1);
		o->outer = sqlite3_column_type(st, 2) == SQLITE_NULL ? OBJ_NONE : (obj_t)sqlite3_column_int64(st, 2);
		const char *via = (const char *)sqlite3_column_text(st, 11);
		if (fname(&out->strings, st, 3, &o->name, &o->num) || fname(&out->strings, st, 4, &o->cls, &o->cls_num) ||
		    (o->via = strtab_intern(&out->strings, via ? via : "", via ? strlen(via) : 0)) == UINT32_MAX)
			goto oom;
		o->size = (uint32_t)sqlite3_column_int64(st, 5);
		o->garbage = (uint8_t)sqlite3_column_int(st, 6);
		o->reachable = (uint8_t)sqlite3_column_int(st, 7);
		o->root_kind = (uint8_t)root_kind_parse((const char *)sqlite3_column_text(st, 8));
		o->distance = sqlite3_column_type(st, 9) == SQLITE_NULL ? UINT32_MAX : (uint32_t)sqlite3_column_int64(st, 9);
		o->parent = sqlite3_column_type(st, 10) == SQLITE_NULL ? OBJ_NONE : (obj_t)sqlite3_column_int64(st, 10);
	}
	sqlite3_finalize(st);
	st = NULL;
	if (facts(db, "SELECT coalesce(s.class_name || ' ' || s.path, e.referencer), coalesce(e.property, ''), "
		      "d.class_name || ' ' || d.path FROM eliminated_refs e LEFT JOIN objects s ON s.idx = e.src "
		      "JOIN objects d ON d.idx = e.dst ORDER BY e.rowid", &out->eliminated, &out->neliminated) ||
	    facts(db, "SELECT f.kind, m.class_name || ' ' || m.path, t.class_name || ' ' || t.path FROM findings f "
		      "JOIN objects m ON m.idx = f.idx JOIN objects t ON t.idx = f.other "
		      "WHERE f.kind IN ('cluster-missing-mutable', 'cluster-missing-cluster') ORDER BY f.rowid",
		  &out->disagreements, &out->ndisagreements))
		goto sqlerr;
	rc = 0;
	goto done;
oom:
	snprintf(err, errsize, "%s: out of memory", dbpath);
	goto done;
sqlerr:
	snprintf(err, errsize, "%s: not an analysis database written by this version (%s)", dbpath, sqlite3_errmsg(db));
done:
	sqlite3_finalize(st);
	sqlite3_close(db);
	return rc;
}
