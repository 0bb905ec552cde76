/* class_hist.h — objects counted by class: how many of each class there
 * are among some objects and their bytes, and the classes with the most.
 * The one place this is counted and ranked; info prints it for every
 * object, and it is what analyze's purged-by-class line and whatif's
 * by-class lists print (for the purged objects, for what a change frees). */
#ifndef UGC_CLASS_HIST_H
#define UGC_CLASS_HIST_H

#include <stddef.h>
#include <stdint.h>

#include "snapshot/snapshot.h"

/* One class among the objects counted. */
typedef struct class_row {
	obj_t cls;      /* the class object */
	uint32_t count; /* its objects */
	uint64_t bytes; /* their shallow bytes */
} class_row;

enum { CLASS_BY_COUNT, CLASS_BY_BYTES }; /* the two rankings */

typedef struct class_hist {
	class_row *top[2]; /* by CLASS_BY_*: the top classes, most first, ties to the lower class index */
	size_t n;          /* rows in each: the TOP asked for, or the classes when fewer */
	uint32_t classes;  /* the classes with an object among those counted */
} class_hist;

/* Count the objects OBJS[0 .. N) of H by class and rank the classes by
 * objects and by bytes, the best TOP of each, into OUT.  0, or -1 when out
 * of memory (then nothing to free). */
int class_hist_of(const heap *h, const obj_t *objs, uint32_t n, size_t top, class_hist *out);
/* The same for every object of H. */
int class_hist_all(const heap *h, size_t top, class_hist *out);
void class_hist_free(class_hist *c);

#endif
