/* diff_db.h — a diff side (analysis/diff.h) read from an analysis database
 * (diff_db.c), and a two-way diff written to its own database (diff_store.c). */
#ifndef UGC_DIFF_DB_H
#define UGC_DIFF_DB_H

#include "analysis/analysis.h"

int diff_side_from_db(const char *dbpath, diff_side *out, char *err, size_t errsize);
/* `diff -o PATH`: the status of every object of A and B (R compares them)
 * and the aggregates by class, package and outer, written to a new SQLite
 * database at PATH (replacing one only with FORCE), published whole or not
 * at all.  0, or -1 with one line in ERR. */
int diff_store(const char *path, int force, const diff_side *a, const diff_side *b, const diff_result *r,
	       char *err, size_t errsize);

#endif
