/* diff_db.h — a diff side (analysis/diff.h) read from an analysis database. */
#ifndef UGC_DIFF_DB_H
#define UGC_DIFF_DB_H

#include "analysis/analysis.h"

int diff_side_from_db(const char *dbpath, diff_side *out, char *err, size_t errsize);

#endif
