/* cut.h — the fewest references whose removal lets the GC free a set of
 * objects: a minimum cut between the roots and the targets over a causal
 * model of the GC (ugc-gc(7) §1; cut.c describes it: the retention
 * graph's edges, with a live cluster's activation, walk, root mark and
 * dissolving as nodes of their own), checked by running the GC again
 * without them (whatif.h).
 *
 * The costs.  A reference a programmer can null costs 1: a strong or aro
 * "r" record (named by its holder and property), a "g" record (named by
 * its FGCObject), a MutableObjects or ReferencedClusters entry of a cluster
 * (the list is rebuilt from the members' references: null the member's
 * property that put it there).  What no property edit removes costs
 * nothing to keep and cannot be cut: Class, Outer, immutable references,
 * cluster membership (root <-> members), the actors step 2 hands to a
 * Level, the disregard pool, the internal keep flags (Native, Async,
 * LoaderImport).  A root reason that a program can drop (RootSet:
 * RemoveFromRoot; RefCounted: release the refcount; a KeepFlag: clear it)
 * is one cut of its own kind, costing root_cost (CUT_NEVER: not at all).
 * A cut of a root removes the "g" records into it as well, as whatif's
 * --unroot does: a minimum cut that cuts a root's own edge cuts them too.
 *
 * The algorithm (cut_compute).  The targets that the GC keeps, and a
 * superset of their ancestors in the graph (reached backwards through the
 * heap's reverse rows, children, instances, hand-overs and cluster lists,
 * only through objects the GC keeps or traced) are the flow network's
 * nodes, with the clusters' and root reasons' own, ⊤ as the source and a
 * sink after every target; its arcs are labelled edges (retention_graph.h's
 * labels), parallel references each their own arc.  Uncuttable edges get infinite capacity: when ⊤ reaches
 * a target through them alone the answer is infinite, and the chain is
 * what holds it.  Else Dinic's max flow (breadth-first levels, an
 * explicit-stack blocking flow: no recursion) and the edges into the
 * residual graph's sink side (the nodes that still reach the sink) are a
 * minimum cut, of the same cost as the flow, and of the minimum cuts the
 * one nearest the targets: it frees the least beside them.  Each cut reference is given what it keeps on its own:
 * the targets its target reaches without crossing another cut reference.
 * Where the GC's marking order decides (cut.c), the network keeps more
 * than the GC may, so the cut always frees the targets; a second network
 * without those effects bounds every cut from below, and an answer above
 * the bound is flagged UNPROVEN: proven to free them, maybe not minimal. */
#ifndef UGC_CUT_H
#define UGC_CUT_H

#include "analysis/whatif.h"
#include "base/base.h"

#define CUT_NEVER (-1)
#define CUT_ROOT_COST_DEFAULT 1000

enum cut_kind {
	CK_REF,   /* an "r" record: ID its forward position, HOLDER its source */
	CK_GCREF, /* a "g" record: ID its index in heap.gcrefs, HOLDER OBJ_NONE */
	CK_LIST,  /* a cluster list entry: ID its index in heap.cluster_items, HOLDER the cluster's root */
	CK_ROOT,  /* a root reason: HOLDER = TARGET = ID = the root */
};

typedef struct cut_ref {
	uint8_t kind;
	obj_t holder, target;
	uint32_t id;
	uint32_t cluster; /* CK_LIST: the cluster */
	uint32_t cost;
	uint32_t kept;       /* targets it alone keeps (see above); UINT32_MAX: not counted (budget) */
	uint64_t kept_bytes;
	/* a chain for the drawing (only the first cut_options.chains refs):
	 * ⊤ ... HOLDER (UP, NUP objects, root end first; empty for a root or a
	 * g record), TARGET ... a target (DOWN) */
	obj_t *up, *down;
	uint32_t nup, ndown;
	uint32_t node, edge; /* cut.c's own: the flow network's head node and edge */
} cut_ref;

typedef struct cut_result {
	uint32_t ntargets;   /* targets asked for */
	uint32_t nalive;     /* of them, those the GC keeps: the ones to free */
	uint64_t alive_bytes;
	int infinite;        /* no cut frees them: see HOLD */
	obj_t *hold;         /* infinite: ⊤ -> HOLD[0] -> ... -> HOLD[NHOLD-1], a target, */
	uint64_t *hold_label;/* along uncuttable edges (RGRAPH_LABEL each) */
	uint32_t nhold;
	cut_ref *refs;       /* the cut, the most targets kept first */
	uint32_t nrefs;
	uint64_t cost;       /* the sum of their costs = the max flow */
	uint32_t nodes;      /* the flow network's size */
	uint64_t arcs;
	int kept_partial;    /* some refs' kept were not counted */
	int unproven;        /* not proven minimal (an infinite answer: not proven
			      * infinite): see cut.c on the GC's order */
} cut_result;

typedef struct cut_options {
	uint32_t keep_flags;
	long long root_cost; /* CUT_NEVER, or the cost of one root reason's removal */
	uint32_t chains;     /* how many refs, the first in the result's order, get
			      * their UP and DOWN chains (0: none; a drawing's) */
	int threads;         /* more than 1: the ancestor search and the predecessor index on two threads */
	int index_only;      /* 1: the ancestors by the predecessor index of every kept object, without
			      * the sweeps that usually find them first (cut.c; the tests compare them) */
	/* NULL, or a proof (cut_proof_init) that cut_compute starts as soon as
	 * a finite cut is known, to run beside the count of what each
	 * reference keeps; the caller ends it with cut_proof_wait when its
	 * BEGUN is set, even if cut_compute failed after */
	struct cut_proof *proof;
} cut_options;

/* The minimum cut that frees the N TARGETS from H, whose GC result under
 * OPT->keep_flags is R (its §3 retention paths need not be computed).
 * Returns 0, or -1 when out of memory. */
int cut_compute(const heap *h, const gc_result *r, const cut_options *opt, const obj_t *targets, uint32_t n,
		cut_result *out);
void cut_free(cut_result *c);

/* The whatif changes that apply cut C (one a reference), malloc'd: 0, or
 * -1 when out of memory. */
int cut_changes(const heap *h, const cut_result *c, whatif_change **out, size_t *n);

/* The proof: H's GC rerun (OPT, BEFORE its result) without the cut's
 * references, into W (whatif_run: H's columns shared, the changed ones
 * copied; the rerun leaves out ugc-gc(7) §3's retention paths, which the
 * proof does not read: W->after has no root kinds or distances).  *SURVIVORS: how many of the TARGETS it still
 * keeps (0 when the cut is right).  0, or -1 when out of memory. */
int cut_prove(const heap *h, const gc_result *before, const gc_options *opt, const cut_result *c,
	      const obj_t *targets, uint32_t n, whatif_result *w, uint32_t *survivors);

/* cut_prove in three steps, so that the rerun can run beside other work:
 * cut_proof_init takes cut_prove's arguments but the cut; cut_proof_start
 * takes the cut's changes (C may change after it returns) and starts the
 * rerun, on a thread of its own when OPT allows two; cut_proof_wait ends
 * it and returns what cut_prove would.  A start (BEGUN) needs its wait,
 * even one that failed (the wait returns -1). */
typedef struct cut_proof {
	job j;
	int begun;   /* cut_proof_start ran */
	int started; /* on a thread of its own */
	const heap *h;
	const gc_result *before;
	gc_options opt;
	whatif_change *changes;
	size_t nchanges;
	const obj_t *targets;
	uint32_t n;
	whatif_result *w;
	uint32_t *survivors;
	int rc;
} cut_proof;
void cut_proof_init(cut_proof *pf, const heap *h, const gc_result *before, const gc_options *opt,
		    const obj_t *targets, uint32_t n, whatif_result *w, uint32_t *survivors);
void cut_proof_start(cut_proof *pf, const cut_result *c);
int cut_proof_wait(cut_proof *pf);

/* What the edge of LABEL (a hold_label) is, in words, maybe written into
 * BUF (CAP bytes); V8's words when V8 (a V8 heap has only references and
 * its synthetic root: no Class, Outer, cluster or FGCObject edge holds). */
const char *cut_label_words(const heap *h, int v8, uint64_t label, char *buf, size_t cap);

#endif
