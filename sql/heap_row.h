/* heap_row.h — the values of the big tables' rows, computed from a heap
 * and its analysis without SQLite: object_table's columns (one row an
 * object), ref_table's (one row a reference) and the cluster lists' (one
 * row a list entry).  One definition for both ways the store fills them:
 * the SQL path (heap_vtab.c, store.c) and the page writer of
 * store_pages.c. */
#ifndef UGC_HEAP_ROW_H
#define UGC_HEAP_ROW_H

#include <stdint.h>

#include "analysis/analysis.h"
#include "snapshot/snapshot.h"
#include "sql/row_value.h"

/* The data a row is computed from; the heap and results must outlive it. */
typedef struct row_source {
	const heap *h;
	const gc_result *r;
	const uint64_t *path_hash; /* per slot (path_hash.h) */
	const dom_result *dom;     /* idom and retained; NULL: both NULL */
	const gccost *cost;        /* the mark's work, for the keyed tables; NULL: none */
} row_source;

/* Room for the texts formatted for one object row (a text value points
 * into the heap or into this buffer).  The class name and the flags are
 * kept for the next row, which often has the same (CNAME_OF and FLAGS_OF
 * say whose they are; zero: none yet, so a zeroed buffer is ready). */
typedef struct row_buf {
	char name[HEAP_NAME_MAX], cname[HEAP_NAME_MAX], flags[FLAGS_MAX];
	char *path; /* a keyed row's path (heap_path), replaced by the next; free() it once done */
	obj_t cname_of;    /* 1 + the class CNAME names */
	uint64_t flags_of; /* 1 << 63 | the object flags, internal flags and traits FLAGS spells */
	size_t cname_len, flags_len;
} row_buf;

/* object_table's columns in schema order: idx, serial, class, outer, name,
 * class_name, size, flags, cluster, garbage, reachable, root_kind, distance,
 * parent, parent_property, path_hash, idom, retained, node_id. */
#define OBJECT_NCOLUMNS 19
/* Column COL of object I (which exists) into *V; texts may go into BUF. */
void object_value(const row_source *s, obj_t i, int col, row_value *v, row_buf *buf);

/* ref_table's columns: src, pos, dst, kind, prop. */
#define REF_NCOLUMNS 5
/* Column COL of the reference at position POS, whose source is SRC. */
void ref_value(const heap *h, obj_t src, uint32_t pos, int col, row_value *v);

/* The tables whose INTEGER PRIMARY KEY is an object (the rowid): purge
 * (one row a purged object), retained_by_package (dom_result's packages),
 * gc_cost_by_package and gc_cost_candidates (gccost.h).  Their rows as the
 * analysis lists them (K from 0); a table's first column is its key.  Both
 * ways of writing them take the rows in key order (keyed_order), so that
 * the b-tree grows at its end. */
enum keyed_table { KT_PURGE, KT_RETAINED_BY_PACKAGE, KT_COST_BY_PACKAGE, KT_CANDIDATES, KT_COUNT };
#define KEYED_MAX_COLUMNS 6
uint32_t keyed_rows(const row_source *s, int t);
int keyed_columns(int t);
/* Column COL of row K of table T into *V; texts may go into BUF. */
void keyed_value(const row_source *s, int t, uint32_t k, int col, row_value *v, row_buf *buf);
/* The row numbers K of table T by key: malloc'd (keyed_rows of them), or
 * NULL when out of memory. */
uint32_t *keyed_order(const row_source *s, int t);

/* The cluster list tables (cluster_members: LIST 0, cluster_mutable: 1,
 * cluster_refs: 2) hold the lists as (root, idx) rows, clusters in the
 * snapshot's order and each list in its order; the rowid of the K-th row
 * (from 0) is K + 1.  Where list LIST of X lies in heap.cluster_items. */
void cluster_list(const cluster *x, int list, uint32_t *start, uint32_t *n);

#endif
