/* db_extent.c — an analysis database's slots checked against its object
 * rows (see db_extent.h). */
#include "sql/db_extent.h"

#include <stdio.h>

#include "snapshot/snapshot.h"

/* Rows of object_table, or -1 when they cannot be counted. */
static int64_t count_objects(sqlite3 *db)
{
	sqlite3_stmt *st = NULL;
	int64_t n = -1;
	if (sqlite3_prepare_v2(db, "SELECT count(*) FROM object_table", -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return n;
}

int db_read_extent(sqlite3 *db, db_extent *e, char *why, size_t whysize)
{
	sqlite3_stmt *st = NULL;
	int rc = -1;
	/* idx is the INTEGER PRIMARY KEY: min and max are one b-tree descent each */
	if (sqlite3_prepare_v2(db, "SELECT (SELECT value FROM snapshot WHERE key = 'slots'), "
			       "(SELECT value FROM snapshot WHERE key = 'first_gc_index'), "
			       "(SELECT min(idx) FROM object_table), (SELECT max(idx) FROM object_table)",
			       -1, &st, NULL) != SQLITE_OK || sqlite3_step(st) != SQLITE_ROW) {
		snprintf(why, whysize, "table snapshot or object_table: %s", sqlite3_errmsg(db));
		goto out;
	}
	int64_t slots = sqlite3_column_int64(st, 0), first = sqlite3_column_int64(st, 1);
	int64_t lo = sqlite3_column_int64(st, 2), hi = sqlite3_column_int64(st, 3);
	int empty = sqlite3_column_type(st, 3) == SQLITE_NULL;
	int64_t objects = 0;
	if (sqlite3_column_type(st, 0) != SQLITE_INTEGER || slots < 0 || slots > (int64_t)OBJ_INDEX_MAX + 1) {
		snprintf(why, whysize, "table snapshot: slots is missing or not a count of slots");
	} else if (sqlite3_column_type(st, 1) != SQLITE_INTEGER || first < 0 || first > OBJ_INDEX_MAX) {
		snprintf(why, whysize, "table snapshot: first_gc_index is missing or not an object index");
	} else if (!empty && (lo < 0 || hi >= slots)) {
		snprintf(why, whysize, "table object_table: object index %lld is outside the %lld slots of table snapshot",
			 (long long)(lo < 0 ? lo : hi), (long long)slots);
	} else if ((uint64_t)slots > heap_slots_limit(0) && (objects = count_objects(db)) < 0) {
		/* counted only when the slots could be too many: below the limit for no objects, they never are */
		snprintf(why, whysize, "table object_table: %s", sqlite3_errmsg(db));
	} else if ((uint64_t)slots > heap_slots_limit((uint64_t)objects)) {
		snprintf(why, whysize, "table snapshot: slots is %lld, more than a snapshot of the %lld objects of table "
			 "object_table can have (at most %llu): not as ugc-analyze writes it", (long long)slots,
			 (long long)objects, (unsigned long long)heap_slots_limit((uint64_t)objects));
	} else {
		e->slots = slots;
		e->first_gc_index = first;
		e->span = empty ? 0 : (uint32_t)(hi + 1);
		rc = 0;
	}
out:
	sqlite3_finalize(st);
	return rc;
}
