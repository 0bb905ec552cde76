/* query.h — the algorithms behind refs, path and why, written once against
 * the view (view.h) so that a snapshot and a database give the same answers. */
#ifndef UGC_QUERY_H
#define UGC_QUERY_H

#include <stdio.h>

#include "view.h"

/* Resolve one selector: "123" or "#123" (an index), a path name, or a full
 * name ("Class /Path").  Returns 0 with *OUT set, or 1 with a one-line reason
 * in ERR (unknown, or ambiguous with candidates), or -1 on an error. */
int query_select(view *v, const char *sel, obj_t *out, char *err, size_t errsize);
/* The same without the reason: 0 with *OUT set, 1 when SEL names no object
 * (*OUT is OBJ_NONE), -1 on an error (in V's err). */
int query_find(view *v, const char *sel, obj_t *out);

/* A retention chain: NODES[0] is the root end, NODES[N-1] the object; HOPS[k]
 * leads from NODES[k] to NODES[k+1].  GC_ROOT: NODES[0] is held by an
 * FGCObject, whose reference is GC_EDGE. */
typedef struct chain {
	obj_t *nodes;
	edge *hops;
	size_t n;
	int gc_root;
	edge gc_edge;
} chain;

typedef struct chains {
	chain *v;
	size_t n, cap;
	int truncated; /* the search stopped at its budget */
} chains;

void chains_free(chains *c);

/* May the GC's tracing follow edge E (spec §3: strong and aro to objects that
 * are not garbage, immutable, Class, Outer; never out of the disregard pool)?
 * DST_GARBAGE: whether E's target is garbage. */
int edge_retains(const view *v, const edge *e, int dst_garbage);

/* The shortest retention chain of X, from the stored parents (§3).  Empty
 * (n == 0) when X has no distance. */
int query_shortest(view *v, obj_t x, chains *out);
/* Chains found backwards from X: MODE 0, one shortest chain a distinct root;
 * MODE 1, up to MAX distinct chains, shortest first.  EXTERNAL keeps only
 * chains whose root is outside X's package.  BUDGET caps the objects
 * examined (0: a default). */
int query_chains(view *v, obj_t x, int mode, size_t max, int external, size_t budget, chains *out);
/* Direct referencers, as one-hop chains. */
int query_direct(view *v, obj_t x, chains *out);

/* Output. */
void print_chain_text(view *v, FILE *fp, const chain *c);
void print_chain_json(view *v, FILE *fp, const chain *c);
void print_chains_dot(view *v, FILE *fp, const chains *c, obj_t target);
/* The engine's object tags: "(root) (native) ..." (each with a trailing space). */
void object_tags(const obj_info *o, char *buf, size_t cap);
const char *edge_kind_name(const edge *e);
/* S as a JSON string, quoted and escaped. */
void json_str(FILE *fp, const char *s);

#endif
