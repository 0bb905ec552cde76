/* retention_graph.h — one policy's retention graph, for the dominators
 * (private to them: analysis/analysis.h does not include it; the policies
 * are described in dominators.h).
 *
 * Nodes are slot indexes, and ⊤, the virtual super-root, is node TOP (the
 * slot count).  No edge is stored: an object's successors are read off the
 * heap's own rows (Class, Outer, the "r" records), the GC's result and the
 * cluster lists each time they are asked for, always in the same order.
 * Only ⊤'s successors (the roots, the "g" records' targets and, under gc,
 * what the GC marked from sources it destroyed) are listed once, by
 * rgraph_init. */
#ifndef UGC_RETENTION_GRAPH_H
#define UGC_RETENTION_GRAPH_H

#include <stdint.h>

#include "analysis/dominators.h"
#include "base/base.h"

/* The graph of one policy over a heap. */
typedef struct rgraph {
	const heap *h;
	const gc_result *r; /* NULL on a heap that needs none (dom_needs_gc) */
	uint32_t keep_flags; /* the GC's */
	int policy;
	uint32_t top;
	vec top_succ; /* ⊤'s successors, in order (duplicates are harmless) */
	uint8_t *member_kept; /* per cluster: its lists were walked for a rooted
			       * member, not its root (retention_graph.c) */
	/* what the heap lacks, so the per-edge tests can skip it (a V8 heap
	 * has neither): no cluster, no object flagged Garbage */
	int no_clusters, no_garbage;
} rgraph;

/* Can an edge end at T?  Never in the disregard pool, never at no object. */
static inline int rgraph_enters(const heap *h, obj_t t)
{
	return t >= 0 && !heap_in_disregard(h, t);
}

/* Set up POLICY's graph G over H and the GC result R (NULL when H needs
 * none: the caller has checked dom_needs_gc) and list ⊤'s successors.
 * Returns 0, or -1 when out of memory (G then holds nothing). */
int rgraph_init(rgraph *g, const heap *h, const gc_result *r, uint32_t keep_flags, int policy);
void rgraph_free(rgraph *g);

/* The successors of object X, in order (its own edges, then under gc its
 * cluster's), into OUT (room for rgraph_succ_bound(G, X) of them); returns
 * how many. */
uint32_t rgraph_succ_row(const rgraph *g, uint32_t x, uint32_t *out);
/* The most successors rgraph_succ_row() can give object X. */
uint64_t rgraph_succ_bound(const rgraph *g, uint32_t x);

#endif
