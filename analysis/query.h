/* query.h — the algorithms behind refs, path and why, written once against
 * the view (view.h) so that a snapshot and a database give the same answers.
 * How the answers are printed is the commands' business (cli/chain_print.c). */
#ifndef UGC_QUERY_H
#define UGC_QUERY_H

#include <stdio.h>

#include "analysis/view.h"

/* Resolve one selector: "#123" (an index); "@123" (on a V8 heap, the node
 * whose id is 123: view_ops.find_node); "123", an index, and on a V8 heap
 * the node with that id when no object has that index (both, naming two
 * objects: refused, the reason naming each, "#123 is CLASS PATH and @123
 * is CLASS PATH: write #123 or @123"); a path name exactly as the tool
 * prints it (spaces and punctuation included; \xHH stands for the byte it
 * names when the text itself is not a path); or a full name, "Class Path",
 * split at a space.  Returns 0 with *OUT set, or 1 with a one-line reason
 * in ERR (unknown, with candidates other than SEL itself; ambiguous), or -1
 * on an error. */
int query_select(view *v, const char *sel, obj_t *out, char *err, size_t errsize);
/* The same without the reason: 0 with *OUT set, 1 when SEL names no object
 * (*OUT is OBJ_NONE), -1 on an error (in V's err). */
int query_find(view *v, const char *sel, obj_t *out);

/* A retention chain: NODES[0] is the root end, NODES[N-1] the object.  Hop
 * K leads from NODES[K] to NODES[K+1] and is every retaining reference
 * between the two (parallel properties on one hop): EDGES[FIRST[K]] up to
 * EDGES[FIRST[K+1]], never none.  GC_ROOT: NODES[0] is held by an
 * FGCObject, whose reference is GC_EDGE. */
typedef struct chain {
	obj_t *nodes;
	size_t n;
	edge *edges;
	size_t *first; /* N entries: FIRST[N-1] is the number of edges */
	int gc_root;
	edge gc_edge;
} chain;

typedef struct chains {
	chain *v;
	size_t n, cap;
	int truncated; /* the search stopped at its budget */
	int limited;   /* the search stopped at MAX chains: there may be more */
} chains;

void chains_free(chains *c);
/* Hop K of C: its first reference and how many there are. */
static inline const edge *chain_hop(const chain *c, size_t k, size_t *n)
{
	*n = c->first[k + 1] - c->first[k];
	return &c->edges[c->first[k]];
}

/* May the GC's tracing follow edge E (ugc-gc(7) §3.2: strong and aro to
 * objects that are not garbage, immutable, Class, Outer; never out of the
 * disregard pool)?  DST_GARBAGE: whether E's target is garbage. */
int edge_retains(const view *v, const edge *e, int dst_garbage);

/* The shortest retention chain of X, from the stored parents
 * (ugc-gc(7) §3.2).  Empty (n == 0) when X has no distance. */
int query_shortest(view *v, obj_t x, chains *out);

enum chain_mode { CHAINS_ROOTS, CHAINS_ALL };
/* Chains found backwards from X, shortest first, at most MAX of them:
 * CHAINS_ROOTS, the shortest chain of each distinct root (nearest roots
 * first); CHAINS_ALL, chains that differ in the objects they pass through.
 * EXTERNAL keeps only chains whose root is outside X's package (or an
 * FGCObject's).  BUDGET caps the steps of the search (0: a default); its
 * memory is the steps taken and the referencer lists read, never the
 * heap's size. */
int query_chains(view *v, obj_t x, enum chain_mode mode, size_t max, int external, size_t budget, chains *out);
/* Direct referencers, as one-hop chains (one a referencing object, with
 * all its references to X; one an FGCObject reference). */
int query_direct(view *v, obj_t x, chains *out);

const char *edge_kind_name(const edge *e);

#endif
