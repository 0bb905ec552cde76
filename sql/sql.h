/* sql.h — the sql layer's public header: analysis databases written and
 * read, and SQL over a snapshot in memory.
 *
 * store.h (analyze's database writer), schema.h (its tables), db_version.h
 * (which databases this version reads), db_extent.h (how far its objects
 * reach, checked), view_db.h (the query view over a
 * database), db_heap.h (a database read back into a heap), retention_db.h
 * (its dominators), gccost_db.h (its mark-phase work), diff_db.h (a diff side from a database, and diff's own
 * database), snapshot_db.h (SQL on a snapshot, without a database file).
 * The cli layer includes this header, never the ones it names
 * (tools/check-layers.sh). */
#ifndef UGC_SQL_H
#define UGC_SQL_H

#include "sql/db_extent.h"
#include "sql/db_heap.h"
#include "sql/db_version.h"
#include "sql/diff_db.h"
#include "sql/gccost_db.h"
#include "sql/input.h"
#include "sql/retention_db.h"
#include "sql/schema.h"
#include "sql/snapshot_db.h"
#include "sql/history.h"
#include "sql/store.h"
#include "sql/view_db.h"

#endif
