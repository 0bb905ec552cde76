/* snapshot_db.h — the analysis database's schema over an analysed heap in
 * memory, for `sql SNAPSHOT`: an in-memory SQLite connection where the big
 * tables (heap_vtab.h) are virtual tables over the heap, the small ones are
 * filled by the store's own code (store_fill), then the small tables'
 * indexes and the views are created, everything from schema.h's text, so a
 * query sees the same tables and views as on the database `analyze` writes.
 * The connection is read-only (PRAGMA query_only; the virtual tables have
 * no xUpdate). */
#ifndef UGC_SNAPSHOT_DB_H
#define UGC_SNAPSHOT_DB_H

#include <sqlite3.h>

#include "heap_vtab.h"
#include "store.h"

/* Open *DB over H (writable only for the lookup indexes the tables build on
 * first use), its GC result R and findings F; SRC is the caller's, and H,
 * R, F, INFO and SRC must outlive *DB.  0, or -1 with the reason in ERR. */
int snapshot_db_open(sqlite3 **db, vtab_source *src, heap *h, const gc_result *r, const findings *f,
		     const store_info *info, char *err, size_t errsize);

#endif
