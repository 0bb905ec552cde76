/* measures.h — one snapshot's or database's summary as check and history
 * add use it: the totals reached, retained bytes and object count per class
 * (by its name) and per package (by its path), and findings per kind, as the
 * rows of a history build (sql/history.h). */
#ifndef UGC_MEASURES_H
#define UGC_MEASURES_H

#include "sql/sql.h"

/* B.rows sorted by kind then name (bytewise), the names owned here. */
typedef struct measures {
	hist_build b;
	int v8; /* a V8 heap: no findings (ugc-analyze findings says why) */
} measures;

/* PATH's summary (a snapshot is analysed under policy gc; a database gives
 * its stored results).  0, or 1 after printing the error. */
int measures_load(const char *path, measures *m);
void measures_free(measures *m);
/* The rows of KIND named NAME: a range [*FIRST, *FIRST + returned). */
size_t measures_find(const measures *m, int kind, const char *name, size_t *first);
/* The rows of KIND: likewise. */
size_t measures_kind(const measures *m, int kind, size_t *first);

/* Leak mode's groups (diff --baseline A --target B --final C): how many,
 * and the largest by the leak roots' retained bytes and by objects, each
 * with its chain (malloc'd). */
typedef struct leak_worst {
	uint32_t groups;
	uint64_t retained;
	uint32_t objects;
	char *retained_chain, *objects_chain;
} leak_worst;

/* W from the three inputs (snapshots or databases).  0, or 1 after
 * printing the error. */
int leak_worst_load(const char *a, const char *b, const char *c, leak_worst *w);
void leak_worst_free(leak_worst *w);

#endif
