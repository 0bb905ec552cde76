/* store.h — writes a heap and its GC result to a SQLite database.
 * The schema is documented in man/ugc-analyze.1 (section DATABASE); the
 * statements that create it are in store.c.  The database is written to a
 * temporary file and renamed over PATH only when complete. */
#ifndef UGC_STORE_H
#define UGC_STORE_H

#include "analysis/analysis.h"
#include "base/base.h"
#include "snapshot/snapshot.h"

/* How the two big tables and their indexes are written: as SQLite pages
 * (store_pages.h) with SQL for whatever that does not handle, through SQL
 * only, or as pages only (then what they do not handle is an error).  The
 * environment variable UGC_STORE (auto, sql or pages) overrides AUTO. */
enum store_method { STORE_AUTO, STORE_SQL, STORE_PAGES };

typedef struct store_info {
	const char *source;     /* the snapshot file analysed */
	const gc_options *opt;  /* the GC's options, as stored */
	double analysed_at;     /* Unix time */
	const dom_result *dom;  /* dominators and retained sizes, or NULL */
	int method;             /* enum store_method */
	unsigned page_size;     /* the database's; 0: 65536 */
	int threads;            /* the page writer's; 0: opt->threads */
} store_info;

int store_write(const char *path, int force, const heap *h, const gc_result *r, const findings *f,
		const store_info *info, char *err, size_t errsize);
/* store_write without the publication: the database is complete in O's
 * temporary file, for outfile_commit_all (publish.h) with the command's
 * other outputs. */
int store_prepare(outfile *o, const char *path, int force, const heap *h, const gc_result *r, const findings *f,
		  const store_info *info, char *err, size_t errsize);

/* The store in two halves, so that the pages that need the heap only (the
 * references' and the strings') are written while the analysis runs: store_begin once the heap
 * is loaded (PATH reserved, the schema made, those pages started on a
 * thread of their own when INFO's threads are two or more), store_end with the
 * analysis (then as store_prepare; E is freed).  store_cancel abandons E
 * (its file removed).  INFO's source and dom are read by store_end only. */
typedef struct store_early store_early;
int store_begin(store_early **e, const char *path, int force, const heap *h, const store_info *info, char *err,
		size_t errsize);
int store_end(store_early *e, outfile *o, const heap *h, const gc_result *r, const findings *f,
	      const store_info *info, char *err, size_t errsize);
void store_cancel(store_early *e);

/* Fill the tables of SCHEMA_TABLES but those named in SKIP (a NULL-ended
 * list, or NULL) on DB, where they exist empty: the store's own rows, for a
 * database that serves the SKIP tables itself (snapshot_db.c). */
struct sqlite3;
int store_fill(struct sqlite3 *db, const heap *h, const gc_result *r, const findings *f, const store_info *info,
	       const char *const *skip, char *err, size_t errsize);

#endif
