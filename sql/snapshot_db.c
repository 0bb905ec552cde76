/* snapshot_db.c — the analysis schema over a heap in memory (see
 * snapshot_db.h). */
#include "snapshot_db.h"

#include <stdio.h>
#include <string.h>

#include "schema.h"
#include "schema_text.h"

static int is_virtual(const char *table)
{
	for (int k = 0; k < HV_COUNT; k++)
		if (strcmp(table, heap_vtab_tables[k]) == 0)
			return 1;
	return 0;
}

static int exec(sqlite3 *db, const char *sql, char *err, size_t errsize)
{
	char *msg = NULL;
	if (sqlite3_exec(db, sql, NULL, NULL, &msg) == SQLITE_OK)
		return 0;
	snprintf(err, errsize, "SQLite: %s", msg ? msg : sqlite3_errmsg(db));
	sqlite3_free(msg);
	return -1;
}

/* Run SQL's statements on DB; a table served by the heap becomes its
 * virtual table, and an index of one is left out (the table serves that
 * lookup itself). */
static int build(sqlite3 *db, const char *sql, char *err, size_t errsize)
{
	schema_stmt s;
	int more;
	while ((more = schema_next(&sql, &s)) > 0) {
		char *text;
		if (s.kind == SK_INDEX && is_virtual(s.on))
			continue;
		if (s.kind == SK_TABLE && is_virtual(s.name))
			text = sqlite3_mprintf("CREATE VIRTUAL TABLE %s USING ugc_heap", s.name);
		else
			text = sqlite3_mprintf("%.*s", (int)s.len, s.text);
		if (!text) {
			snprintf(err, errsize, "out of memory");
			return -1;
		}
		int rc = exec(db, text, err, errsize);
		sqlite3_free(text);
		if (rc)
			return -1;
	}
	if (more < 0) {
		snprintf(err, errsize, more == -2 ? "out of memory" : "schema.h: a statement does not end");
		return -1;
	}
	return 0;
}

int snapshot_db_open(sqlite3 **out, vtab_source *src, heap *h, const gc_result *r, const findings *f,
		     const store_info *info, char *err, size_t errsize)
{
	sqlite3 *db = NULL;
	*src = (vtab_source){h, r, NULL, info->dom, h, NULL};
	if (sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK) {
		snprintf(err, errsize, "in-memory database: %s", db ? sqlite3_errmsg(db) : "out of memory");
		sqlite3_close(db);
		return -1;
	}
	if (heap_vtab_register(db, src) != SQLITE_OK) {
		snprintf(err, errsize, "registering the heap tables: %s", sqlite3_errmsg(db));
		sqlite3_close(db);
		return -1;
	}
	if (exec(db, "BEGIN", err, errsize) || build(db, SCHEMA_TABLES, err, errsize) ||
	    store_fill(db, h, r, f, info, heap_vtab_tables, err, errsize) ||
	    build(db, SCHEMA_INDEXES, err, errsize) || exec(db, "COMMIT; PRAGMA query_only = 1", err, errsize)) {
		sqlite3_close(db);
		return -1;
	}
	*out = db;
	return 0;
}
