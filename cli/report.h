/* report.h — what `ugc-analyze report` gathers before it writes its page
 * (cmd_report.c): the GC's summary (report_summary.c) and the treemap's
 * cells, retained bytes by package and class (report_cells.c), each from
 * a snapshot analysed in memory or from a database analyze wrote. */
#ifndef UGC_REPORT_H
#define UGC_REPORT_H

#include <stdint.h>

#include "cli/retention_input.h"

/* Objects of one class purged, and their bytes. */
typedef struct report_purge {
	char *name; /* the class's name, display form (malloc'd) */
	uint64_t count, bytes;
} report_purge;

/* The GC's summary, as analyze and info say it. */
typedef struct report_summary {
	char engine[128], mode[32], label[256]; /* "" when unknown */
	uint64_t objects, reachable, purged, purged_bytes, references;
	uint64_t clusters, fates[CF_COUNT]; /* clusters by fate (alive, dissolved by reason) */
	uint64_t roots[RK_COUNT], nroots; /* by root kind (RK_NONE not counted) */
	report_purge *purge;              /* purged by class, most bytes first: NPURGE of */
	size_t npurge, purge_classes;     /* PURGE_CLASSES classes */
} report_summary;

/* The summary, purged classes cut to TOP, of a snapshot opened as IN, or
 * of the database PATH (which needs nothing else opened: a command can
 * read it on a second thread while it opens PATH's retention results).
 * 0, or 1 after printing. */
int report_summary_heap(const retention_input *in, size_t top, report_summary *s);
/* Each object's class and Outer (OBJ_NONE: none), as the database's scan
 * read them: slots [0, N). */
typedef struct report_columns {
	obj_t *cls, *outer;
	uint32_t n;
} report_columns;
/* The database's scan gives C too, for report_cells. */
int report_summary_db(const char *path, size_t top, report_summary *s, report_columns *c);
/* The checks every reader of PATH makes first (its schema, its version,
 * how far its objects reach), made once before the report's two readers
 * start, so that a refused database is said in one line.  0, or 1 after
 * printing. */
int report_db_check(const char *path);
void report_columns_free(report_columns *c);
void report_summary_free(report_summary *s);

/* One cell of the treemap: the bytes CLS's objects in package PKG keep
 * that no other object of PKG keeps (the retained sizes of PKG's objects
 * of class CLS that no object of PKG dominates).  A package's cells add
 * up to its retained bytes (dominators.h, dom_group). */
typedef struct report_cell {
	uint32_t pkg;  /* index into the packages asked for */
	obj_t cls;
	uint32_t count;
	uint64_t bytes;
} report_cell;

/* The cells of the packages PKGS[0..NPKGS) (package objects), by package
 * in PKGS' order, then most bytes first (ties to the lower class index),
 * from IN's dominators and their tree T (dom_tree_build), each object's
 * class and package from IN's heap, or for a database from C.  *OUT
 * malloc'd.  0, or 1 after printing. */
int report_cells(const retention_input *in, const dom_tree *t, const report_columns *c, const obj_t *pkgs,
		 size_t npkgs, report_cell **out, size_t *n);

#endif
