/* store_pages.h — the store's fast path: the big tables (object_table,
 * ref_table, strings, cluster_members, cluster_mutable) and their ten
 * indexes, and the tables keyed by an object (purge and three by package),
 * written as SQLite file-format pages in key order (btree_write.h) instead
 * of row by row through SQLite.
 *
 * store.c lets SQLite create the whole schema and fill the small tables,
 * leaving these fifteen b-trees empty, and closes the database; then
 * store_pages_fill writes them, on up to THREADS threads.  Anything not
 * handled is BT_UNSUPPORTED with the file unchanged, and store.c writes the
 * database through SQL instead. */
#ifndef UGC_STORE_PAGES_H
#define UGC_STORE_PAGES_H

#include <sqlite3.h>

#include "sql/btree_write.h"
#include "sql/heap_row.h"

/* The b-trees written: the tables, then the indexes that are sorted in
 * memory (ST_SORTED and after). */
enum store_tree {
	ST_OBJECTS, ST_REFS, ST_REFS_DST, ST_STRINGS, ST_MEMBERS, ST_MUTABLE,
	ST_PURGE, ST_BY_PACKAGE, ST_COST_BY_PACKAGE, ST_CANDIDATES, /* heap_row.h's keyed tables */
	ST_PATH_HASH, ST_CLASS, ST_OUTER, ST_IDOM, ST_RETAINED, ST_NODE_ID, ST_MEMBERS_IDX, ST_MEMBERS_ROOT, ST_MUTABLE_ROOT,
	ST_COUNT,
	ST_SORTED = ST_PATH_HASH
};

/* Sets of b-trees, as bits (1 << ST_*): those that read the heap only
 * (the references' two and the strings), which can be written while the
 * analysis runs, and all. */
#define ST_HEAP_ONLY ((1u << ST_REFS) | (1u << ST_REFS_DST) | (1u << ST_STRINGS))
#define ST_ALL ((1u << ST_COUNT) - 1)

/* The root page of each b-tree written, from the database's schema. */
typedef struct store_pages_plan {
	uint32_t root[ST_COUNT];
} store_pages_plan;

/* Does DB (the schema created, the paged tables empty) hold
 * exactly the b-trees this writer knows: the same columns, types, keys and
 * indexes?  BT_OK with PLAN filled, BT_UNSUPPORTED with what differs in
 * WHY, or BT_ERROR (WHY). */
int store_pages_plan_of(sqlite3 *db, store_pages_plan *plan, char *why, size_t whysize);

/* Fill the b-trees of PLAN in TREES (bits, above) in the closed database
 * PATH from SRC (the references' need SRC's heap only).  BT_OK,
 * BT_UNSUPPORTED (ERR says why; PATH as it was) or BT_ERROR (ERR; a write
 * the file-size limit or a full disk stopped names SHOWN, the output PATH
 * becomes).  Trees may be filled in several calls, each on the file the
 * last one (or SQLite, between them) left. */
int store_pages_fill(const char *path, const char *shown, const store_pages_plan *plan, unsigned trees,
		     const row_source *src, int threads, char *err, size_t errsize);

/* The same in steps, for trees filled beside other work: start (PATH
 * opened), work (each call takes trees until none is left: call it from as
 * many threads as should share them, each returns once nothing is left to
 * take), add (more trees, for work calls to come or under way: SRC's
 * fields those need must be set before), finish (after every work call
 * has returned: commit, or cut the file back on failure; C freed).  SRC
 * must live until finish.  The sorted indexes wait while ref_table_dst is
 * under way (their buffers are the largest), so a work call can return
 * while they wait: the call that finishes ref_table_dst takes them. */
typedef struct store_pages store_pages;
int store_pages_start(store_pages **c, const char *path, const store_pages_plan *plan, unsigned trees,
		      const row_source *src, char *err, size_t errsize);
void store_pages_work(store_pages *c);
void store_pages_add(store_pages *c, unsigned trees);
/* store_pages_work on THREADS threads, this one among them. */
void store_pages_share(store_pages *c, int threads);
/* Make the work calls return soon, the trees unfinished (finish aborts). */
void store_pages_stop(store_pages *c);
int store_pages_finish(store_pages *c, const char *shown, char *err, size_t errsize);

#endif
