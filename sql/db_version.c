/* db_version.c — the schema version check (see db_version.h). */
#include "sql/db_version.h"

#include <stdio.h>

#include "sql/input.h"
#include "sql/schema.h"

/* The type of DB's schema entry NAME: 1 a table, 0 none, 2 something else
 * (a view: reading it would run the file's own SQL), -1 unreadable. */
static int entry_type(sqlite3 *db, const char *name)
{
	sqlite3_stmt *st = NULL;
	int rc = -1;
	if (sqlite3_prepare_v2(db, "SELECT type = 'table' FROM main.sqlite_schema WHERE name = ?1 COLLATE NOCASE", -1,
			       &st, NULL) == SQLITE_OK &&
	    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC) == SQLITE_OK) {
		int s = sqlite3_step(st);
		rc = s == SQLITE_DONE ? 0 : s != SQLITE_ROW ? -1 : sqlite3_column_int(st, 0) ? 1 : 2;
	}
	sqlite3_finalize(st);
	return rc;
}

int db_check_version(sqlite3 *db, char *err, size_t errsize)
{
	sqlite3_stmt *st = NULL;
	int rc = -1;
	int type = entry_type(db, "snapshot");
	if (type == 2) { /* never read: a view's text is the file's, not ours */
		snprintf(err, errsize, "snapshot is not a table: not an analysis database as ugc-analyze writes it; "
			 "refusing to run the file's own SQL");
		return -1;
	}
	if (type < 0 && sqlite3_errcode(db) == SQLITE_NOMEM) {
		snprintf(err, errsize, "table snapshot: %s", input_sql_why(db));
		return -1;
	}
	if (sqlite3_prepare_v2(db, "SELECT value FROM snapshot WHERE key = 'schema_version'", -1, &st, NULL) != SQLITE_OK) {
		/* a hot journal fails the first read too, and so does a lack of
		 * memory: each said as what it is, not as another kind of file */
		int diff = 0;
		if (sqlite3_extended_errcode(db) == SQLITE_READONLY_ROLLBACK)
			snprintf(err, errsize, "%s", input_sql_why(db));
		else if (sqlite3_errcode(db) == SQLITE_NOMEM || (diff = entry_type(db, "diff_meta")) < 0)
			snprintf(err, errsize, "table snapshot: %s", input_sql_why(db));
		else if (diff == 1)
			snprintf(err, errsize, "a diff database (written by diff -o), not an analysis database: query it "
				 "with sql (tables diff_objects, diff_groups, diff_meta); the other commands take a snapshot "
				 "or a database written by analyze");
		else
			snprintf(err, errsize, "an SQLite database without the table snapshot: not an analysis database "
				 "(written by analyze; this version reads schema version %d)", SCHEMA_VERSION);
		goto out;
	}
	int s = sqlite3_step(st);
	if (s != SQLITE_ROW && s != SQLITE_DONE)
		snprintf(err, errsize, "table snapshot: %s", input_sql_why(db));
	else if (s == SQLITE_DONE || sqlite3_column_type(st, 0) == SQLITE_NULL)
		snprintf(err, errsize, "table snapshot: no schema_version: not an analysis database (this version of "
			 "ugc-analyze reads schema version %d)", SCHEMA_VERSION);
	else if (sqlite3_column_type(st, 0) != SQLITE_INTEGER)
		snprintf(err, errsize, "table snapshot: schema_version is not a number (this version of ugc-analyze "
			 "reads schema version %d)", SCHEMA_VERSION);
	else if (sqlite3_column_int64(st, 0) != SCHEMA_VERSION)
		snprintf(err, errsize, "table snapshot: schema_version %lld: written by %s version of ugc-analyze; this one "
			 "reads schema version %d only (analyse the snapshot again)", (long long)sqlite3_column_int64(st, 0),
			 sqlite3_column_int64(st, 0) < SCHEMA_VERSION ? "an older" : "a newer", SCHEMA_VERSION);
	else
		rc = 0;
out:
	sqlite3_finalize(st);
	return rc;
}
