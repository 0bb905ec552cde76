/* heap_vtab.h — virtual tables that present a heap and its GC result to
 * SQLite with the columns of schema.h's tables (each declares its table's
 * CREATE TABLE statement from schema.h, never a copy):
 *   object_table, ref_table, strings, cluster_members, cluster_mutable, purge,
 *   retained_by_package
 * Two uses:
 *   - the store bulk-copies the two big tables with one INSERT ... SELECT
 *     each from the eponymous tables ugc_heap_objects and ugc_heap_refs
 *     (full scans in key order);
 *   - `sql` over a snapshot creates them under their own names
 *     (CREATE VIRTUAL TABLE object_table USING ugc_heap), and then they also
 *     serve equality lookups the way the database's keys and indexes do
 *     (objects by idx, path_hash, class, outer, idom; references by src,
 *     (src, pos) and dst; strings by id; cluster lists by root, members by
 *     idx; purge by idx; packages by package) and ORDER BY retained, building what a lookup needs
 *     (reverse rows, children, sorted orders) on first use.
 * A plan's index string names the lookup (EXPLAIN QUERY PLAN shows
 * "VIRTUAL TABLE INDEX n:dst=", "...:order by retained desc").
 * The tables are read-only.  The heap and result must outlive the
 * connection.  Over a source made on demand (heap_vtab_on_demand), a
 * table asks for the GC result or the dominators only when a statement
 * reads a column (or plans a lookup or an order) that needs them: the GC
 * for reachable, root_kind, distance, parent, parent_property and purge;
 * the dominators for idom, retained and retained_by_package. */
#ifndef UGC_HEAP_VTAB_H
#define UGC_HEAP_VTAB_H

#include <sqlite3.h>
#include <stddef.h>

#include "analysis/analysis.h"

struct hv_built;

typedef struct vtab_source {
	const heap *h;
	const gc_result *r;
	const uint64_t *path_hash; /* per slot (path_hash.h); NULL: computed on first use */
	const dom_result *dom;     /* idom and retained; NULL: both NULL */
	heap *lookups;             /* H itself, writable: set, the tables serve lookups (and
				    * build the heap's reverse rows and children when asked);
				    * NULL: full scans only */
	struct hv_built *built;    /* what lookups built, and how to complete R and DOM
				    * (heap_vtab_on_demand); freed with the connection */
} vtab_source;

/* The tables a heap serves, by their schema.h names (then NULL). */
enum { HV_OBJECTS, HV_REFS, HV_STRINGS, HV_MEMBERS, HV_MUTABLE, HV_PURGE, HV_PACKAGES, HV_COUNT };
extern const char *const heap_vtab_tables[HV_COUNT + 1];

/* Register the modules on DB for SRC (which must outlive DB). */
int heap_vtab_register(sqlite3 *db, vtab_source *src);

/* Computes the pipeline's parts WHAT (PIPE_* bits, analysis/pipeline.h), with what they depend on, into what the
 * source's R and DOM point at: 0, or -1 with the reason in ERR. */
typedef int vtab_need_fn(void *owner, int what, char *err, size_t errsize);
/* After heap_vtab_register: SRC's R and DOM are filled only when first
 * needed, by NEED(OWNER, ...), called by a table about to read what it
 * lacks (see above).  0, or -1 when out of memory. */
int heap_vtab_on_demand(vtab_source *src, vtab_need_fn *need, void *owner);

#endif
