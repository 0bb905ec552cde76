/* whatif.h — counterfactuals (ugc-gc(7) §4.3): what the GC
 * would free if some references were gone or some object were garbage.
 * The changes are applied to a copy of the heap and the real pipeline
 * (gc_run) runs again; the answer is every object reachable before and
 * unreachable after, and, for the objects the changes were aimed at that
 * survive, the new result's retention paths.
 *
 * The copy is cheap: it shares every column of the input heap except those
 * a change writes, which it copies whole (flags; reference kinds; Class and
 * Outer; FGCObject records; cluster lists).  A removed "r" record is not
 * taken out of the rows but masked: its kind becomes `soft`, which no step
 * of the GC and no retention path follows (ugc-gc(7) §1.4, §3.2), so
 * reference positions stay those of the input. */
#ifndef UGC_WHATIF_H
#define UGC_WHATIF_H

#include "analysis/gc.h"

enum whatif_kind {
	WI_GARBAGE,        /* OBJ gets Garbage and RF_MirroredGarbage (MarkAsGarbage) */
	WI_CUT,            /* every reference into OBJ goes (see whatif_run), and its root reasons */
	WI_UNROOT,         /* OBJ's root reasons go, and the "g" records into it */
	WI_NULL_PROPERTY,  /* OBJ's "r" records named STR go */
	WI_NULL_RECORD,    /* OBJ's RECORD-th "r" record (0-based, in its row) goes */
	WI_DROP_REFERENCER,/* every "g" record of the FGCObject named STR goes */
	WI_DROP_GCREF,     /* the "g" record at index RECORD of heap.gcrefs goes (cut's proof) */
	WI_DROP_LIST_ENTRY,/* the cluster list entry at index RECORD of heap.cluster_items goes:
			    * one MutableObjects or ReferencedClusters entry (cut's proof) */
	WI_KIND_COUNT
};
extern const char *const whatif_kind_names[WI_KIND_COUNT]; /* the option without "--" */

/* One change.  OBJ is OBJ_NONE for WI_DROP_REFERENCER, WI_DROP_GCREF and
 * WI_DROP_LIST_ENTRY (the last two are cut's: whatif offers neither); STR a string id of
 * the heap (property or referencer name). */
typedef struct whatif_change {
	uint8_t kind;
	obj_t obj;
	uint32_t str;
	uint32_t record;
} whatif_change;

/* How many references CHANGE removes from H on its own ("r" and "g" records;
 * for a cut also the Class and Outer references into OBJ and the cluster list
 * entries naming it).  The command refuses a --null or --drop-referencer
 * that removes nothing. */
uint32_t whatif_count(const heap *h, const whatif_change *change);

/* The objects the N changes are aimed at, each once, in the order the
 * changes name them: OBJ for garbage, cut and unroot; the targets of the
 * removed records for null and drop-referencer.  Into a malloc'd array;
 * 0, or -1 when out of memory. */
int whatif_targets(const heap *h, const whatif_change *changes, size_t n, obj_t **out, uint32_t *nout);

#define WHATIF_MAX_OWNED 12

typedef struct whatif_result {
	/* The changed heap the GC ran on: the input's columns except the
	 * copied ones.  A cut Class reference is OBJ_NONE here (the GC and
	 * the retention paths skip it like a reference into the disregard
	 * pool), so names come from SHOWN: the same heap with the input's
	 * Class and Outer.  Neither may be given to heap_free. */
	heap gc_heap, shown;
	gc_result after;
	obj_t *lost;       /* reachable before, unreachable after: ascending */
	uint32_t nlost;
	uint64_t lost_bytes;
	obj_t *gained;     /* unreachable before, reachable after (cluster quirks only) */
	uint32_t ngained;
	uint64_t gained_bytes;
	/* what the changes took away, all together */
	uint32_t refs_removed, gcrefs_removed, implicit_removed, list_entries_removed;
	void *owned[WHATIF_MAX_OWNED]; /* the copied columns */
	int nowned;
} whatif_result;

/* Apply the N changes to a copy of H (H is not modified), run the GC with
 * OPT, and compare with BEFORE (H's result under the same OPT).  A cut of X
 * removes every "r" record into X, of every kind; every "g" record into X;
 * the implicit Class and Outer references of X's instances and inners
 * (which no real change can remove: that is what makes the freed set
 * exactly what X dominates); and X's entries in other clusters'
 * MutableObjects and ReferencedClusters lists (X's own membership stays).
 * Cut and unroot remove RootSet, RefCounted and the object flags in
 * OPT->keep_flags from X; other internal flags stay.  Returns 0, or -1 when
 * out of memory. */
int whatif_run(const heap *h, const gc_result *before, const gc_options *opt, const whatif_change *changes, size_t n,
	       whatif_result *out);
void whatif_free(whatif_result *w);

#endif
