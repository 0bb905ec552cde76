/* store.h — writes a heap and its GC result to a SQLite database.
 * The schema is documented in man/ugc-analyze.1 (section DATABASE); the
 * statements that create it are in store.c.  The database is written to a
 * temporary file and renamed over PATH only when complete. */
#ifndef UGC_STORE_H
#define UGC_STORE_H

#include "findings.h"
#include "gc.h"
#include "heap.h"

typedef struct store_info {
	const char *source;     /* the snapshot file analysed */
	const gc_options *opt;
	double analysed_at;     /* Unix time */
} store_info;

int store_write(const char *path, int force, const heap *h, const gc_result *r, const findings *f,
		const store_info *info, char *err, size_t errsize);

#endif
