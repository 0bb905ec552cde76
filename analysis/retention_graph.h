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
	uint64_t *top_label; /* their labels, under rgraph_init_labelled (else NULL) */
	size_t top_label_cap;
	uint8_t *member_kept; /* per cluster: its lists were walked for a rooted
			       * member, not its root (retention_graph.c) */
	/* what the heap lacks, so the per-edge tests can skip it (a V8 heap
	 * has neither): no cluster, no object flagged Garbage */
	int no_clusters, no_garbage;
} rgraph;

/* What an edge is, for a caller that must name it (analysis/cut.c): a
 * label is RGRAPH_LABEL(type, id), with ID per type:
 *   RL_CLASS, RL_OUTER  the object whose Class or Outer it is
 *   RL_REF              the "r" record's forward position
 *   RL_HANDOFF          the index into gc_result.handoff (ugc-gc(7) §1.2)
 *   RL_MEMBER           the cluster (root -> member, member -> root)
 *   RL_LIST             the index into heap.cluster_items of the list entry
 *   RL_ROOT             the root object itself (an edge from ⊤)
 *   RL_GCREF            the "g" record's index into heap.gcrefs (from ⊤) */
enum { RL_CLASS, RL_OUTER, RL_REF, RL_HANDOFF, RL_MEMBER, RL_LIST, RL_ROOT, RL_GCREF };
#define RGRAPH_LABEL(type, id) ((uint64_t)(type) << 32 | (uint32_t)(id))
#define RGRAPH_LABEL_TYPE(l) ((int)((l) >> 32))
#define RGRAPH_LABEL_ID(l) ((uint32_t)(l))

/* Can an edge end at T?  Never in the disregard pool, never at no object. */
static inline int rgraph_enters(const heap *h, obj_t t)
{
	return t >= 0 && !heap_in_disregard(h, t);
}

/* Set up POLICY's graph G over H and the GC result R (NULL when H needs
 * none: the caller has checked dom_needs_gc) and list ⊤'s successors.
 * Returns 0, or -1 when out of memory (G then holds nothing). */
int rgraph_init(rgraph *g, const heap *h, const gc_result *r, uint32_t keep_flags, int policy);
/* The same, also keeping the labels of ⊤'s successors (top_label). */
int rgraph_init_labelled(rgraph *g, const heap *h, const gc_result *r, uint32_t keep_flags, int policy);
void rgraph_free(rgraph *g);

/* The successors of object X, in order (its own edges, then under gc its
 * cluster's), into OUT (room for rgraph_succ_bound(G, X) of them); returns
 * how many. */
uint32_t rgraph_succ_row(const rgraph *g, uint32_t x, uint32_t *out);
/* The same, with each edge's label (RGRAPH_LABEL) into LAB at the same
 * position. */
uint32_t rgraph_succ_labelled(const rgraph *g, uint32_t x, uint32_t *out, uint64_t *lab);
/* The most successors rgraph_succ_row() can give object X. */
uint64_t rgraph_succ_bound(const rgraph *g, uint32_t x);

#endif
