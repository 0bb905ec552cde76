/* suspects.h — leak suspects (ugc-gc(7) §4.4): the objects
 * and classes that keep at least a threshold share of the reached bytes
 * alive, each with its accumulation point and the classes whose bytes lie
 * under it.  Written against a dom_result and two per-object facts (size,
 * class) so that a snapshot and a database give the same answer. */
#ifndef UGC_SUSPECTS_H
#define UGC_SUSPECTS_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/dominators.h"

/* The class of object I into *CLS: 0, or -1 on an error (the caller keeps
 * the message). */
typedef int (*suspect_class_fn)(void *ctx, obj_t i, obj_t *cls);

/* Bytes of one class in a dominator subtree: COUNT objects, BYTES their
 * shallow sizes. */
typedef struct suspect_bytes {
	obj_t cls;
	uint32_t count;
	uint64_t bytes;
} suspect_bytes;

/* One suspect.  An object suspect: OBJ, CLS OBJ_NONE, RETAINED its retained
 * bytes.  A class suspect: CLS the class, COUNT its reached instances,
 * RETAINED the class's retained bytes, OBJ its largest instance (whose
 * accumulation point is shown).  ACCUM is the accumulation point, STEPS
 * levels below OBJ in the dominator tree; UNDER the largest classes of
 * ACCUM's dominator subtree (ACCUM included), by bytes, NUNDER of NUNDER_ALL. */
typedef struct suspect {
	obj_t obj, cls;
	uint32_t count;
	uint64_t retained;
	obj_t accum;
	uint32_t steps;
	uint64_t accum_retained;
	suspect_bytes *under;
	uint32_t nunder, nunder_all;
} suspect;

typedef struct suspect_list {
	suspect *objects, *classes;  /* largest first */
	uint32_t nobjects, nclasses; /* filled in (at most LIMIT each) */
	uint32_t objects_all, classes_all; /* how many there are */
	uint64_t threshold;          /* bytes: the smallest retained size that counts */
} suspect_list;

/* Find the suspects of D at PCT percent (0 < PCT <= 100) of D's reached
 * bytes.  SIZE: shallow bytes per slot.  An object on the way down from a
 * larger object suspect to its accumulation point is not a suspect of its
 * own (it would repeat that one).  At most LIMIT objects and LIMIT classes
 * are filled in, each with its TOP largest classes under the accumulation
 * point.  Objects of class SKIP_CLASS (OBJ_NONE: none) are never
 * suspects, nor is that class, and they cover nothing below them: on a V8
 * heap, the synthetic root and its (GC roots) groups, which hold
 * everything.  0, -1 when out of memory, -2 when CLASS_OF failed, -3 when
 * the dominator tree is damaged (a database's: it loops). */
int suspects_find(const dom_result *d, const uint32_t *size, suspect_class_fn class_of, void *ctx, double pct,
		  size_t limit, size_t top, obj_t skip_class, suspect_list *out);
void suspects_free(suspect_list *s);

#endif
