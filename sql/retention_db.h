/* retention_db.h — the dominators and retained sizes stored by analyze,
 * read back from its database into a dom_result (dominators.h), so that
 * `top` and `dominators` answer the same from a database as from the
 * snapshot.  The per-slot package column is not stored: d->package is NULL. */
#ifndef UGC_RETENTION_DB_H
#define UGC_RETENTION_DB_H

#include <sqlite3.h>

#include "analysis/analysis.h"

/* Load PATH's retention results for a heap of SLOTS slots (the count the
 * database view already checked).  POLICY -1 takes the stored one; another
 * policy than the stored one is an error that says how to get it.
 * Returns 0, or -1 with a one-line message naming PATH and the table. */
int retention_db_load(const char *path, uint32_t slots, int policy, dom_result *d, char *err, size_t errsize);

#endif
