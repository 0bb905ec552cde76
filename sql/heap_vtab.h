/* heap_vtab.h — eponymous virtual tables that present a heap and its GC
 * result to SQLite, so the store bulk-copies the two big tables with one
 * INSERT ... SELECT each instead of a bind/step/reset round trip per row:
 *   ugc_heap_refs(src, pos, dst, kind, prop)       the reference rows
 *   ugc_heap_objects(<object_table's columns>)    one row per object
 * Registered on one connection for one heap; the heap and result must
 * outlive the statements that read them.  The values come from heap_row.h. */
#ifndef UGC_HEAP_VTAB_H
#define UGC_HEAP_VTAB_H

#include <sqlite3.h>

#include "heap_row.h"

int heap_vtab_register(sqlite3 *db, const vtab_source *src);

#endif
