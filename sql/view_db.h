/* view_db.h — the query view (analysis/view.h) over an analysis database.
 * Every answer is one or a few indexed lookups; nothing is loaded whole. */
#ifndef UGC_VIEW_DB_H
#define UGC_VIEW_DB_H

#include "analysis/analysis.h"

/* Open DBPATH read-only; NULL with a one-line message in ERR. */
view *view_db_open(const char *dbpath, char *err, size_t errsize);

#endif
