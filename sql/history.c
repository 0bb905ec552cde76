/* history.c — the history database (history.h): appended to by
 * `history add`, read by `history` and `check --history`.  It is read as
 * an untrusted file (input_open_sql) and written only after its
 * ugc_history row says it is one of this version. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <sqlite3.h>

#include "sql/history.h"
#include "base/base.h"
#include "analysis/analysis.h"
#include "sql/input.h"

const char *const hist_kind_names[HIST_KINDS] = {"total", "class", "package", "finding"};

#define HISTORY_SCHEMA \
	"CREATE TABLE ugc_history(format TEXT NOT NULL, version INTEGER NOT NULL);" \
	"CREATE TABLE builds(id INTEGER PRIMARY KEY, time INTEGER NOT NULL, label TEXT NOT NULL, source TEXT NOT NULL);" \
	"CREATE TABLE series(build INTEGER NOT NULL REFERENCES builds(id), kind TEXT NOT NULL, name TEXT NOT NULL," \
	" count INTEGER NOT NULL, retained INTEGER NOT NULL, PRIMARY KEY(kind, name, build)) WITHOUT ROWID;"

/* Is DB a history database of this version?  0, or -1 with ERR. */
static int check_kind(sqlite3 *db, const char *path, char *err, size_t errsize)
{
	sqlite3_stmt *st = NULL;
	int ok = sqlite3_prepare_v2(db, "SELECT format, version FROM ugc_history", -1, &st, NULL) == SQLITE_OK &&
		 sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) == SQLITE_TEXT &&
		 strcmp((const char *)sqlite3_column_text(st, 0), "ugc-history") == 0;
	long long version = ok ? sqlite3_column_int64(st, 1) : 0;
	sqlite3_finalize(st);
	if (!ok) {
		snprintf(err, errsize, "%s: not a history database (history add makes one)", path);
		return -1;
	}
	if (version != HISTORY_VERSION) {
		snprintf(err, errsize, "%s: a history database of version %lld; this build reads version %d", path,
			 version, HISTORY_VERSION);
		return -1;
	}
	return 0;
}

int history_add(const char *path, const hist_build *b, int64_t *id, char *err, size_t errsize)
{
	struct stat stt;
	int fresh = stat(path, &stt) != 0;
	if (!fresh && !S_ISREG(stt.st_mode)) {
		snprintf(err, errsize, "%s: not a regular file", path);
		return -1;
	}
	sqlite3 *db = NULL;
	int on = 1, off = 0;
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | (fresh ? SQLITE_OPEN_CREATE : 0), NULL) != SQLITE_OK ||
	    sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, on, NULL) != SQLITE_OK ||
	    sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, off, NULL) != SQLITE_OK ||
	    sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, off, NULL) != SQLITE_OK) {
		snprintf(err, errsize, "%s: %s", path, db ? sqlite3_errmsg(db) : "out of memory");
		sqlite3_close(db);
		return -1;
	}
	sqlite3_busy_timeout(db, 5000);
	sqlite3_stmt *st = NULL;
	int rc = -1;
	if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
		goto sqlerr;
	{
		/* a new file (or an empty one: SQLite made it) gets the schema */
		sqlite3_stmt *q = NULL;
		int tables = -1;
		if (sqlite3_prepare_v2(db, "SELECT count(*) FROM sqlite_schema", -1, &q, NULL) == SQLITE_OK &&
		    sqlite3_step(q) == SQLITE_ROW)
			tables = sqlite3_column_int(q, 0);
		sqlite3_finalize(q);
		if (tables < 0)
			goto sqlerr;
		if (tables == 0) {
			char ins[128];
			snprintf(ins, sizeof ins, "INSERT INTO ugc_history VALUES('ugc-history', %d);", HISTORY_VERSION);
			if (sqlite3_exec(db, HISTORY_SCHEMA, NULL, NULL, NULL) != SQLITE_OK ||
			    sqlite3_exec(db, ins, NULL, NULL, NULL) != SQLITE_OK)
				goto sqlerr;
		} else if (check_kind(db, path, err, errsize))
			goto out;
	}
	if (sqlite3_prepare_v2(db, "INSERT INTO builds(time, label, source) VALUES(?1, ?2, ?3)", -1, &st, NULL) !=
	    SQLITE_OK)
		goto sqlerr;
	sqlite3_bind_int64(st, 1, b->time);
	sqlite3_bind_text(st, 2, b->label ? b->label : "", -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, b->source ? b->source : "", -1, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_DONE)
		goto sqlerr;
	sqlite3_finalize(st);
	st = NULL;
	*id = sqlite3_last_insert_rowid(db);
	if (sqlite3_prepare_v2(db,
			       "INSERT INTO series VALUES(?1, ?2, ?3, ?4, ?5) ON CONFLICT(kind, name, build) DO UPDATE"
			       " SET count = count + excluded.count, retained = retained + excluded.retained",
			       -1, &st, NULL) != SQLITE_OK)
		goto sqlerr;
	for (size_t i = 0; i < b->n; i++) {
		const hist_row *r = &b->rows[i];
		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, *id);
		sqlite3_bind_text(st, 2, hist_kind_names[r->kind], -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, r->name ? r->name : "", -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 4, (sqlite3_int64)r->count);
		sqlite3_bind_int64(st, 5, (sqlite3_int64)r->retained);
		if (sqlite3_step(st) != SQLITE_DONE)
			goto sqlerr;
	}
	sqlite3_finalize(st);
	st = NULL;
	if (sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
		goto sqlerr;
	rc = 0;
	goto out;
sqlerr:
	snprintf(err, errsize, "%s: %s", path, sqlite3_errmsg(db));
out:
	sqlite3_finalize(st);
	if (rc)
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	sqlite3_close(db);
	return rc;
}

static sqlite3 *open_history(const char *path, char *err, size_t errsize)
{
	sqlite3 *db = input_open_sql(path, INPUT_SQL_ANY, err, errsize);
	if (db && check_kind(db, path, err, errsize)) {
		sqlite3_close(db);
		return NULL;
	}
	return db;
}

int history_series(const char *path, int kind, const char *name, hist_point_fn *fn, void *ctx, char *err,
		   size_t errsize)
{
	sqlite3 *db = open_history(path, err, errsize);
	if (!db)
		return -1;
	const char *one = "SELECT ?2, b.id, b.time, b.label, coalesce(s.count, 0), coalesce(s.retained, 0),"
			  " s.build IS NOT NULL FROM builds b"
			  " LEFT JOIN series s ON s.build = b.id AND s.kind = ?1 AND s.name = ?2 ORDER BY b.id";
	const char *each = "SELECT n.name, b.id, b.time, b.label, coalesce(s.count, 0), coalesce(s.retained, 0),"
			   " s.build IS NOT NULL"
			   " FROM (SELECT DISTINCT name FROM series WHERE kind = ?1) n CROSS JOIN builds b"
			   " LEFT JOIN series s ON s.build = b.id AND s.kind = ?1 AND s.name = n.name"
			   " ORDER BY n.name, b.id";
	sqlite3_stmt *st = NULL;
	int rc = -1;
	if (sqlite3_prepare_v2(db, name ? one : each, -1, &st, NULL) != SQLITE_OK) {
		snprintf(err, errsize, "%s: %s", path, input_sql_why(db));
		goto out;
	}
	sqlite3_bind_text(st, 1, hist_kind_names[kind], -1, SQLITE_STATIC);
	if (name)
		sqlite3_bind_text(st, 2, name, -1, SQLITE_STATIC);
	int s;
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		const char *nm = (const char *)sqlite3_column_text(st, 0), *label = (const char *)sqlite3_column_text(st, 3);
		sqlite3_int64 c = sqlite3_column_int64(st, 4), r = sqlite3_column_int64(st, 5);
		hist_point p = {sqlite3_column_int64(st, 1), sqlite3_column_int64(st, 2), label ? label : "", nm ? nm : "",
				c < 0 ? 0 : (uint64_t)c, r < 0 ? 0 : (uint64_t)r, sqlite3_column_int(st, 6) != 0};
		if (fn(ctx, &p)) {
			s = SQLITE_DONE;
			break;
		}
	}
	if (s != SQLITE_DONE) {
		snprintf(err, errsize, "%s: %s", path, input_sql_why(db));
		goto out;
	}
	rc = 0;
out:
	sqlite3_finalize(st);
	sqlite3_close(db);
	return rc;
}

int history_builds(const char *path, int64_t *n, char *err, size_t errsize)
{
	sqlite3 *db = open_history(path, err, errsize);
	if (!db)
		return -1;
	sqlite3_stmt *st = NULL;
	int rc = -1;
	if (sqlite3_prepare_v2(db, "SELECT count(*) FROM builds", -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW) {
		*n = sqlite3_column_int64(st, 0);
		rc = 0;
	} else
		snprintf(err, errsize, "%s: %s", path, input_sql_why(db));
	sqlite3_finalize(st);
	sqlite3_close(db);
	return rc;
}

/* Append a row to B (CAP its room), NAME copied in display form (base/escape.h),
 * as a snapshot's view names it, so both give the same names.  0, or -1 when
 * out of memory. */
static int push_row(hist_build *b, size_t *cap, int kind, const char *name, uint64_t count, uint64_t retained)
{
	if (b->n == *cap) {
		size_t nc = *cap ? *cap * 2 : 256;
		hist_row *nv = realloc(b->rows, nc * sizeof *nv);
		if (!nv)
			return -1;
		b->rows = nv;
		*cap = nc;
	}
	char *copy = display_escape_dup(name ? name : "");
	if (!copy)
		return -1;
	b->rows[b->n++] = (hist_row){kind, copy, count, retained};
	return 0;
}

int history_read_db(const char *path, hist_build *b, char *err, size_t errsize)
{
	b->rows = NULL;
	b->n = 0;
	sqlite3 *db = input_open_sql(path, INPUT_SQL_ANALYSIS, err, errsize);
	if (!db)
		return -1;
	static const char *const q[] = {
		"SELECT '', sum(objects), sum(shallow) FROM retained_by_class",
		"SELECT class_name, objects, retained FROM retained_by_class",
		"SELECT name, objects, retained FROM retained_by_package",
		"SELECT kind, count(*), 0 FROM findings GROUP BY kind",
	};
	size_t cap = 0;
	uint64_t kinds[FK_COUNT] = {0};
	sqlite3_stmt *st = NULL;
	int rc = -1;
	for (int k = 0; k < 4; k++) {
		if (sqlite3_prepare_v2(db, q[k], -1, &st, NULL) != SQLITE_OK)
			goto sqlerr;
		int s;
		while ((s = sqlite3_step(st)) == SQLITE_ROW) {
			const char *name = (const char *)sqlite3_column_text(st, 0);
			sqlite3_int64 c = sqlite3_column_int64(st, 1), r = sqlite3_column_int64(st, 2);
			uint64_t cu = c < 0 ? 0 : (uint64_t)c, ru = r < 0 ? 0 : (uint64_t)r;
			if (k == 3) {
				for (int f = 0; f < FK_COUNT; f++)
					if (name && strcmp(name, finding_kind_names[f]) == 0)
						kinds[f] = cu;
			} else if (push_row(b, &cap, k == 0 ? HIST_TOTAL : k == 1 ? HIST_CLASS : HIST_PACKAGE, name, cu, ru)) {
				snprintf(err, errsize, "%s: out of memory", path);
				goto out;
			}
		}
		if (s != SQLITE_DONE)
			goto sqlerr;
		sqlite3_finalize(st);
		st = NULL;
	}
	for (int f = 0; f < FK_COUNT; f++)
		if (push_row(b, &cap, HIST_FINDING, finding_kind_names[f], kinds[f], 0)) {
			snprintf(err, errsize, "%s: out of memory", path);
			goto out;
		}
	rc = 0;
	goto out;
sqlerr:
	snprintf(err, errsize, "%s: %s", path, input_sql_why(db));
out:
	sqlite3_finalize(st);
	sqlite3_close(db);
	if (rc) {
		for (size_t i = 0; i < b->n; i++)
			free((char *)b->rows[i].name);
		free(b->rows);
		b->rows = NULL;
		b->n = 0;
	}
	return rc;
}
