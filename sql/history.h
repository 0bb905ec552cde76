/* history.h — the history database (ugc-analyze(1), HISTORY DATABASE):
 * one build a row in builds, and each of its measures a row in series:
 * (build, kind, name, count, retained) with kind 'total' (name ''),
 * 'class' (the class's name), 'package' (its path) or 'finding' (the kind;
 * retained 0).  Table ugc_history holds one row ('ugc-history', version):
 * a database without it, or of another version, is never written. */
#ifndef UGC_HISTORY_H
#define UGC_HISTORY_H

#include <stddef.h>
#include <stdint.h>

#define HISTORY_VERSION 1

enum hist_kind { HIST_TOTAL, HIST_CLASS, HIST_PACKAGE, HIST_FINDING, HIST_KINDS };
extern const char *const hist_kind_names[HIST_KINDS]; /* total, class, package, finding */

/* One measure of a build.  NAME is borrowed. */
typedef struct hist_row {
	int kind; /* enum hist_kind */
	const char *name;
	uint64_t count, retained;
} hist_row;

/* One build's summary, as history add appends it (strings borrowed). */
typedef struct hist_build {
	int64_t time; /* seconds since 1970 */
	const char *label, *source;
	hist_row *rows;
	size_t n;
} hist_build;

/* Append B to the history database PATH (created when absent); its build
 * number in *ID.  Rows of one kind and name are summed (two classes of one
 * name).  0, or -1 with ERR naming PATH. */
int history_add(const char *path, const hist_build *b, int64_t *id, char *err, size_t errsize);

/* One point of a series: the build and its value (strings valid during the
 * callback only). */
typedef struct hist_point {
	int64_t build, time;
	const char *label, *name;
	uint64_t count, retained;
	int present; /* the build has the name (else the values are 0) */
} hist_point;
typedef int hist_point_fn(void *ctx, const hist_point *p); /* nonzero stops */

/* The series of KIND and NAME over every build, oldest first (a build
 * without the name: 0); NAME NULL: every name of KIND that some build has,
 * each name's points together, names in order.  0, or -1 with ERR. */
int history_series(const char *path, int kind, const char *name, hist_point_fn *fn, void *ctx, char *err,
		   size_t errsize);
/* An analysis database's summary, read from its own tables (no object
 * is looked at: retained_by_class, retained_by_package, findings): into B's
 * rows, whose names are malloc'd in display form (the caller frees each,
 * then the rows):
 * the total (the class sums: every reached object has one class), each
 * class and package, and each finding kind of finding_kind_names (0 when
 * none).  0, or -1 with ERR naming PATH. */
int history_read_db(const char *path, hist_build *b, char *err, size_t errsize);
/* The number of builds in PATH.  0, or -1 with ERR. */
int history_builds(const char *path, int64_t *n, char *err, size_t errsize);

#endif
