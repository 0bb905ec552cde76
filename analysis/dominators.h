/* dominators.h — how much each object, class and package keeps alive.
 *
 * A retention graph (one "policy", see the GC contract and ugc-analyze(1))
 * is walked from a virtual super-root ⊤; its immediate dominators are found
 * with the semi-NCA algorithm (near-linear, no recursion), and retained
 * sizes are summed up the dominator tree.  The walk and semi-NCA run on
 * one thread in index order; the steps split over two threads (the edge
 * counts, the walk's stores, the results, the class and package sums) have
 * each write only its own part: the result is always the same.  The graph
 * is retention_graph.c's, the sums dom_groups.c's, the rest dominators.c's.
 *
 * Policies:
 *   gc              the mark phase's own walk: roots, the references tracing
 *                   follows out of the objects it traced, and cluster edges
 *                   (root <-> members; root -> ReferencedClusters roots and
 *                   MutableObjects once the cluster did step 5); what the
 *                   GC did from a source it then destroyed hangs off ⊤;
 *   refs            every object's own retention-path edges (Class, Outer,
 *                   immutable, strong and aro to non-garbage), no clusters;
 *   refs+weak       refs and weak references;
 *   refs+weak+soft  and soft references too.
 * No edge ever enters the disregard pool (⊤ reaches it directly), and no
 * reference leaves it. */
#ifndef UGC_DOMINATORS_H
#define UGC_DOMINATORS_H

#include <stdint.h>

#include "analysis/gc.h"

enum dom_policy { POLICY_GC, POLICY_REFS, POLICY_REFS_WEAK, POLICY_REFS_WEAK_SOFT, POLICY_COUNT };
extern const char *const dom_policy_names[POLICY_COUNT]; /* "gc", "refs", "refs+weak", "refs+weak+soft" */
int dom_policy_parse(const char *s); /* -1 when S names no policy */

#define DOM_TOP (-3)  /* idom value: the super-root ⊤ */

/* Bytes kept by one class or one package (KEY is the class or the package
 * object): COUNT reachable objects, SHALLOW their own bytes, RETAINED the
 * bytes that would go if all of them lost their incoming references (each
 * byte counted once). */
typedef struct dom_group {
	obj_t key;
	uint32_t count;
	uint64_t shallow, retained;
} dom_group;

/* Bytes the objects of package FROM keep of package TO: the retained sizes
 * of TO's objects whose immediate dominator lies in FROM (COUNT of them). */
typedef struct dom_pair {
	obj_t from, to;
	uint32_t count;
	uint64_t bytes;
} dom_pair;

typedef struct dom_result {
	int policy;
	uint32_t slots;
	obj_t *idom;          /* per slot: immediate dominator, DOM_TOP, or OBJ_NONE when unreached */
	uint64_t *retained;   /* per slot: retained bytes (0 when unreached) */
	obj_t *package;       /* per slot: outermost package (OBJ_NONE for a free slot);
			       * NULL when read from a database */
	uint32_t *size;       /* per slot: shallow bytes, when read from a database (else NULL:
			       * the heap has them) */
	uint32_t reached;     /* objects the graph reaches */
	uint64_t reached_bytes;
	dom_group *classes, *packages; /* by retained bytes, largest first */
	uint32_t nclasses, npackages;
	dom_pair *pairs;      /* cross-package retention, largest first */
	uint32_t npairs;
	double seconds;       /* time taken */
} dom_result;

/* Build POLICY's graph over H and the GC result R, and fill OUT.
 * dom_compute_objects stops at the objects' dominators and retained sizes:
 * no package column, class and package aggregates or pairs (NULL, counts
 * 0), for a caller that shows objects only.
 * Returns 0, or -1 when out of memory. */
int dom_compute(const heap *h, const gc_result *r, int policy, dom_result *out);
int dom_compute_objects(const heap *h, const gc_result *r, int policy, dom_result *out);

/* Does any policy's graph over H need the GC's result?  Not when H has no
 * cluster and no object flagged Garbage (a V8 heap, say): then the GC
 * marks exactly the objects its roots reach by retaining references,
 * traces each of them, and destroys none it traced, so every policy's
 * graph is made of H's references alone, and its roots are H's (the
 * disregard pool, the objects with a root flag or KEEP_FLAGS, and the "g"
 * records' targets).
 * On such a heap dom_compute_plain() gives what dom_compute() (GROUPS 1)
 * or dom_compute_objects() (GROUPS 0) would, without the GC's result, so
 * the two can run side by side. */
int dom_needs_gc(const heap *h);
/* H must need no GC result (dom_needs_gc 0, which is not checked again but
 * for clusters: -1 for a heap with any).  KEEP_FLAGS are the GC's.
 * LINKS, when not NULL, is H's in_links column, which the caller hands
 * over (it is freed here, whatever the outcome): counts that bound every
 * node's incoming edges, so the two-thread count of them is skipped.
 * ONE_THREAD, when not NULL, is called (with ARG) once, when the walk is
 * done (or failed): what follows, semi-NCA, is one thread's work, so the
 * caller can start its own on the other core then, the GC say (the walk
 * before keeps the second core for its stores into the predecessor rows
 * on large heaps, and is slowed by a job beside it; the last steps, the
 * results and the class and package aggregates, take two threads again). */
int dom_compute_plain(const heap *h, uint32_t keep_flags, int policy, int groups, uint32_t *links, dom_result *out,
		      void (*one_thread)(void *), void *arg);
void dom_free(dom_result *d);

/* The dominator tree as children rows: the objects slot I dominates
 * directly are kids[start[I] .. start[I+1]-1], largest retained first
 * (ties to the lower index); the top's children are not listed. */
typedef struct dom_tree {
	uint32_t *start; /* slots + 1 */
	obj_t *kids;
} dom_tree;

int dom_tree_build(const dom_result *d, dom_tree *t); /* 0, or -1 when out of memory */
void dom_tree_free(dom_tree *t);
/* Order objects by retained bytes, largest first, ties to the lower index
 * (qsort_r with the dom_result as its argument). */
int dom_cmp_retained(const void *a, const void *b, void *d);

#endif
