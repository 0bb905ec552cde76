/* db_heap.h — the heap back out of an analysis database (for the commands
 * that must rerun the GC, like whatif).  The database holds the whole heap:
 * the header, the strings with their ids, every object with its flags and
 * size, every reference with its position, kind and property, the dangling
 * and FGCObject records in order, and the clusters in the snapshot's order
 * with their three lists.  Every value is checked as untrusted input. */
#ifndef UGC_DB_HEAP_H
#define UGC_DB_HEAP_H

#include "analysis/analysis.h"

/* Load the heap of the database at PATH into H (initialised here) and the
 * options its analysis ran with into OPT (mode and keep flags; threads and
 * parallel_min untouched).  0, or -1 with one line in ERR naming the
 * table (H is then freed). */
int db_heap_load(const char *path, heap *h, gc_options *opt, char *err, size_t errsize);

#endif
