/* db_version.c — the schema version check (see db_version.h). */
#include "sql/db_version.h"

#include <stdio.h>

#include "sql/input.h"
#include "sql/schema.h"

int db_check_version(sqlite3 *db, char *err, size_t errsize)
{
	sqlite3_stmt *st = NULL;
	int rc = -1;
	if (sqlite3_prepare_v2(db, "SELECT value FROM snapshot WHERE key = 'schema_version'", -1, &st, NULL) != SQLITE_OK) {
		/* a hot journal fails the first read too: said as what it is, not as another kind of file */
		if (sqlite3_extended_errcode(db) == SQLITE_READONLY_ROLLBACK)
			snprintf(err, errsize, "%s", input_sql_why(db));
		else
			snprintf(err, errsize, "table snapshot: %s: not an analysis database (this version of ugc-analyze "
				 "reads schema version %d)", sqlite3_errmsg(db), SCHEMA_VERSION);
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
