/* heap_row.h — the values of the two big tables' rows, computed from a heap
 * and its analysis without SQLite: object_table's columns (one row an
 * object) and ref_table's (one row a reference).  One definition for both
 * ways the store fills them: the virtual tables of heap_vtab.c (SQL path)
 * and the page writer of store_pages.c. */
#ifndef UGC_HEAP_ROW_H
#define UGC_HEAP_ROW_H

#include <stdint.h>

#include "dominators.h"
#include "gc.h"
#include "heap.h"
#include "row_value.h"

/* The data a row is computed from; the heap and results must outlive it. */
typedef struct row_source {
	const heap *h;
	const gc_result *r;
	const uint64_t *path_hash; /* per slot (path_hash.h) */
	const dom_result *dom;     /* idom and retained; NULL: both NULL */
} row_source;

/* Room for the texts formatted for one object row (a text value points
 * into the heap or into this buffer). */
typedef struct row_buf {
	char name[HEAP_NAME_MAX], cname[HEAP_NAME_MAX], flags[FLAGS_MAX];
} row_buf;

/* object_table's columns in schema order: idx, serial, class, outer, name,
 * class_name, size, flags, cluster, garbage, reachable, root_kind, distance,
 * parent, parent_property, path_hash, idom, retained. */
#define OBJECT_NCOLUMNS 18
/* Column COL of object I (which exists) into *V; texts may go into BUF. */
void object_value(const row_source *s, obj_t i, int col, row_value *v, row_buf *buf);

/* ref_table's columns: src, pos, dst, kind, prop. */
#define REF_NCOLUMNS 5
/* Column COL of the reference at position POS, whose source is SRC. */
void ref_value(const heap *h, obj_t src, uint32_t pos, int col, row_value *v);

#endif
