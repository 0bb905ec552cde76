/* snapshot_db.h — the analysis database's schema over an analysed heap in
 * memory, for `sql SNAPSHOT`: an in-memory SQLite connection where the big
 * tables (heap_vtab.h) are virtual tables over the heap, the small ones are
 * filled by the store's own code (store_fill), then the small tables'
 * indexes and the views are created, everything from schema.h's text, so a
 * query sees the same tables and views as on the database `analyze` writes.
 * The connection is read-only (PRAGMA query_only; the virtual tables have
 * no xUpdate).
 *
 * Computed on first use: with a NEED function, the GC result, findings and
 * dominators need not exist when the database is opened.  The virtual
 * tables ask for them when a statement reads what needs them (heap_vtab.h);
 * the small tables filled from them (clusters, cluster_dissolved_by,
 * eliminated_refs, cleared_weak_refs, findings, retained_by_class,
 * package_retention) stay
 * empty until snapshot_db_prepare prepares a statement that reads them
 * (SQLite's authorizer names every table a statement reads, also through
 * views), and then are computed and filled before it runs.  So `SELECT 1`
 * costs the load, a lookup of references the load, and only what reads
 * idom or retained the dominators. */
#ifndef UGC_SNAPSHOT_DB_H
#define UGC_SNAPSHOT_DB_H

#include <sqlite3.h>

#include "sql/heap_vtab.h"
#include "sql/store.h"

typedef struct snapshot_db snapshot_db;

/* Open a database over H (writable only for the lookup indexes the tables
 * build on first use), its GC result R, findings F and INFO (INFO->dom: the
 * dominators).  Without NEED, R, F and INFO->dom are complete.  With NEED,
 * NEED(OWNER, ...) fills them when first needed (heap_vtab.h); until then
 * only INFO->dom->policy is read (the snapshot table's policy).  H, R, F and INFO must outlive the result.  The database, or
 * NULL with the reason in ERR. */
snapshot_db *snapshot_db_open(heap *h, const gc_result *r, const findings *f, const store_info *info,
			      vtab_need_fn *need, void *owner, char *err, size_t errsize);
/* Its connection. */
sqlite3 *snapshot_db_handle(const snapshot_db *s);
/* sqlite3_prepare_v2 of the first statement of SQL (*ST NULL when there is
 * none; *TAIL past it), then what it reads computed and filled: 0, or -1
 * with the reason in ERR (SQLite's message when it does not compile). */
int snapshot_db_prepare(snapshot_db *s, const char *sql, sqlite3_stmt **st, const char **tail, char *err,
			size_t errsize);
/* Close the connection and free S (NULL: nothing). */
void snapshot_db_close(snapshot_db *s);

#endif
