/* gccost_db.h — the mark phase's work that analyze stored (tables
 * gc_cost, gc_cost_by_class, gc_cost_by_package and gc_cost_candidates),
 * read back into a gccost (analysis/gccost.h) with the rows' names, so
 * that `gccost` answers from a database without collecting again. */
#ifndef UGC_GCCOST_DB_H
#define UGC_GCCOST_DB_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/analysis.h"

/* The names of the rows read (N of each list): each row's path, and a
 * class's name. */
typedef struct gccost_names {
	char **classes, **packages, **candidates;   /* paths */
	char **class_names;                          /* as many as classes */
	uint32_t nclasses, npackages, ncandidates;
} gccost_names;

/* Read PATH's stored work into C and N: the totals, and of each list its
 * first LIMIT rows (0: all) in the order gccost_measure sorts them, while
 * C's nclasses, npackages and ncandidates count every row stored.  0, or
 * -1 with a one-line reason naming PATH and the table (every value is
 * checked: a database is input). */
int gccost_db_load(const char *path, size_t limit, gccost *c, gccost_names *n, char *err, size_t errsize);
void gccost_names_free(gccost_names *n);

#endif
