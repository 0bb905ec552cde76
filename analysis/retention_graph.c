/* retention_graph.c — each policy's edges, as the dominators walk them (see
 * retention_graph.h, and dominators.h for the policies).
 *
 * An object's own edges are its Class, its Outer and those of its "r"
 * records the policy follows (the GC nulls strong and aro ones to garbage).
 * Under gc only what the GC traced has them, and they leave from ⊤ instead
 * when it traced the object on no reached object's behalf (own_edges); a
 * live cluster adds root <-> members and, once it did step 5, edges to its
 * ReferencedClusters and MutableObjects, from its root or, when its root
 * dies or a rooted member kept it, from ⊤.  No edge enters the disregard
 * pool.  A row costs its object's references and cluster lists: no search. */
#include "analysis/retention_graph.h"

#include <stdlib.h>

/* Did step 2 walk cluster C's lists because of a rooted member, its root
 * having no root flag (the engine's KeepClusterRefs)?  Then what that walk
 * marked was marked on no object's behalf: it hangs off ⊤. */
static int kept_by_member(const heap *h, uint32_t c)
{
	const uint16_t root_flags = IF_RootSet | IF_RefCounted | IF_INTERNAL_KEEP;
	return !(h->iflags[h->clusters[c].root] & root_flags) && gc_cluster_kept(h, c);
}

/* Where X's own Class, Outer and references start: OWN_NONE, OWN_SELF, or
 * (gc) OWN_TOP when the GC traced X on no reached object's behalf: X dies
 * after all, or X is a cluster member traced as a root, or traced because
 * a cluster kept by a rooted member needed dissolving. */
enum { OWN_NONE, OWN_SELF, OWN_TOP };
static inline int own_edges(const rgraph *g, obj_t x)
{
	const heap *h = g->h;
	if (heap_in_disregard(h, x))
		return OWN_NONE;
	if (g->policy != POLICY_GC || !g->r)
		return OWN_SELF; /* without R: X is traced if reached (dom_needs_gc) */
	if (!g->r->was_traced[x])
		return OWN_NONE;
	if (!g->r->reachable[x])
		return OWN_TOP;
	if (g->no_clusters)
		return OWN_SELF;
	int32_t c = heap_cluster(h, x);
	if (c >= 0 && g->r->cluster_live[c] && h->clusters[c].root != x &&
	    (root_kind_static(h, x, g->keep_flags, 0) != RK_NONE || g->member_kept[c]))
		return OWN_TOP;
	return OWN_SELF;
}

/* Do the edges of a walked cluster's lists start at its root (else at ⊤)? */
static inline int lists_from_root(const rgraph *g, uint32_t c)
{
	return g->r->reachable[g->h->clusters[c].root] && !g->member_kept[c];
}

/* Is the reference at forward position K an edge of the policy? */
static inline int ref_edge(const rgraph *g, uint32_t k)
{
	const heap *h = g->h;
	obj_t t = h->ref_dst[k];
	if (!rgraph_enters(h, t))
		return 0;
	switch (h->ref_kind[k]) {
	case REF_IMMUTABLE:
		return 1;
	case REF_STRONG:
	case REF_ARO:
		return g->no_garbage || !heap_is_garbage(h, t); /* the GC nulls it otherwise */
	case REF_WEAK:
		return g->policy >= POLICY_REFS_WEAK;
	default:
		return g->policy == POLICY_REFS_WEAK_SOFT;
	}
}

/* A cluster list entry (ReferencedClusters root or MutableObject) as an edge. */
static inline int list_edge(const heap *h, obj_t t)
{
	return rgraph_enters(h, t) && !heap_is_garbage(h, t);
}

/* (gc) The first of the references step 2 handed to X (gc_handoff); none
 * when the index reaches r->nhandoff or leaves X's range. */
static inline uint32_t handoff_first(const rgraph *g, obj_t x)
{
	return g->policy == POLICY_GC && g->r && g->r->nhandoff ? gc_handoff_first(g->r, x) : UINT32_MAX;
}
static inline int handoff_at(const rgraph *g, uint32_t j, obj_t x)
{
	return j < g->r->nhandoff && g->r->handoff[j].level == x;
}

/* Is a handed-over reference to T an edge (it is aro: nulled to garbage)? */
static inline int handoff_edge(const rgraph *g, obj_t t)
{
	return rgraph_enters(g->h, t) && !heap_is_garbage(g->h, t);
}

/* Edge N of a row goes to T; LAB (NULL: no labels wanted) gets what it is. */
static inline uint32_t put(uint32_t *out, uint64_t *lab, uint32_t n, obj_t t, int type, uint32_t id)
{
	out[n] = (uint32_t)t;
	if (lab)
		lab[n] = RGRAPH_LABEL(type, id);
	return n + 1;
}

/* X's own edges, Class, Outer, then the "r" records and (gc) the references
 * step 2 handed to X, into OUT (and their labels into LAB, unless NULL);
 * how many. */
static inline uint32_t own_row(const rgraph *g, uint32_t x, uint32_t *out, uint64_t *lab)
{
	const heap *h = g->h;
	uint32_t n = 0;
	if (own_edges(g, (obj_t)x) != OWN_SELF)
		return 0;
	if (rgraph_enters(h, h->cls[x]))
		n = put(out, lab, n, h->cls[x], RL_CLASS, x);
	if (rgraph_enters(h, h->outer[x]))
		n = put(out, lab, n, h->outer[x], RL_OUTER, x);
	for (uint32_t k = h->ref_start[x]; k < h->ref_start[x + 1]; k++)
		if (ref_edge(g, k))
			n = put(out, lab, n, h->ref_dst[k], RL_REF, k);
	for (uint32_t j = handoff_first(g, (obj_t)x); j != UINT32_MAX && handoff_at(g, j, (obj_t)x); j++)
		if (handoff_edge(g, h->ref_dst[g->r->handoff[j].ref]))
			n = put(out, lab, n, h->ref_dst[g->r->handoff[j].ref], RL_HANDOFF, j);
	return n;
}

/* (gc) X's cluster edges after the N in OUT: a root's members, then, once
 * the cluster did step 5 and its root survives, its ReferencedClusters and
 * MutableObjects; a member's one edge to its root.  How many in all. */
static inline uint32_t cluster_row(const rgraph *g, uint32_t x, uint32_t *out, uint64_t *lab, uint32_t n)
{
	const heap *h = g->h;
	int32_t c = heap_cluster(h, x);
	if (g->policy != POLICY_GC || c < 0 || !g->r->cluster_live[c])
		return n;
	const cluster *cl = &h->clusters[c];
	if (cl->root != (obj_t)x) {
		/* a member in the disregard pool is never traced: it keeps nothing */
		if (rgraph_enters(h, (obj_t)x) && rgraph_enters(h, cl->root))
			n = put(out, lab, n, cl->root, RL_MEMBER, (uint32_t)c);
		return n;
	}
	for (uint32_t k = 0; k < cl->n_members; k++)
		if (rgraph_enters(h, h->cluster_items[cl->members + k]))
			n = put(out, lab, n, h->cluster_items[cl->members + k], RL_MEMBER, (uint32_t)c);
	if (!g->r->cluster_walked[c] || !lists_from_root(g, (uint32_t)c))
		return n;
	for (uint32_t k = 0; k < cl->n_refs + cl->n_mutables; k++) {
		uint32_t at = k < cl->n_refs ? cl->refs + k : cl->mutables + k - cl->n_refs;
		if (list_edge(h, h->cluster_items[at]))
			n = put(out, lab, n, h->cluster_items[at], RL_LIST, at);
	}
	return n;
}

uint32_t rgraph_succ_row(const rgraph *g, uint32_t x, uint32_t *out)
{
	uint32_t n = own_row(g, x, out, NULL);
	if (!g->no_clusters)
		n = cluster_row(g, x, out, NULL, n);
	assert(n <= rgraph_succ_bound(g, x));
	return n;
}

uint32_t rgraph_succ_labelled(const rgraph *g, uint32_t x, uint32_t *out, uint64_t *lab)
{
	uint32_t n = own_row(g, x, out, lab);
	if (!g->no_clusters)
		n = cluster_row(g, x, out, lab, n);
	assert(n <= rgraph_succ_bound(g, x));
	return n;
}

uint64_t rgraph_succ_bound(const rgraph *g, uint32_t x)
{
	const heap *h = g->h;
	uint64_t n = 2 + (uint64_t)h->ref_start[x + 1] - h->ref_start[x];
	for (uint32_t j = handoff_first(g, (obj_t)x); j != UINT32_MAX && handoff_at(g, j, (obj_t)x); j++)
		n++;
	int32_t c = g->no_clusters ? -1 : heap_cluster(h, x);
	if (c >= 0) {
		const cluster *cl = &h->clusters[c];
		n += cl->root == (obj_t)x ? (uint64_t)cl->n_members + cl->n_refs + cl->n_mutables : 1;
	}
	return n;
}

/* One more successor of ⊤, T, with its label when G keeps them. */
static int push_top(rgraph *g, obj_t t, int type, uint32_t id)
{
	if (g->top_label) {
		if (grow_array((void **)&g->top_label, &g->top_label_cap, g->top_succ.n, sizeof *g->top_label))
			return -1;
		g->top_label[g->top_succ.n] = RGRAPH_LABEL(type, id);
	}
	return vec_push(&g->top_succ, (uint32_t)t);
}

/* ⊤'s successors: the roots in index order (a member of a live cluster is
 * no root of its own under gc: its survival is its cluster's), the "g"
 * references, and under gc what the GC marked from sources it destroyed. */
static int top_successors(rgraph *g)
{
	const heap *h = g->h;
	const gc_result *r = g->r;
	int gc = g->policy == POLICY_GC;
	for (uint32_t i = 0; i < h->slots; i++) {
		if (h->cls[i] == OBJ_FREE)
			continue;
		int32_t c = g->no_clusters ? -1 : heap_cluster(h, i);
		/* without R, the "g" records' targets follow in the loop below */
		if (!heap_in_disregard(h, (obj_t)i) &&
		    (root_kind_static(h, (obj_t)i, g->keep_flags, r ? r->gc_target[i] : 0) == RK_NONE ||
		     (gc && c >= 0 && r->cluster_live[c] && h->clusters[c].root != (obj_t)i)))
			continue;
		if (push_top(g, (obj_t)i, RL_ROOT, i))
			return -1;
	}
	for (uint32_t k = 0; k < h->ngcrefs; k++) {
		obj_t t = h->gcrefs[k].dst;
		if (heap_exists(h, t) && rgraph_enters(h, t) && !heap_is_garbage(h, t) && push_top(g, t, RL_GCREF, k))
			return -1;
	}
	if (!gc || !r)
		return 0; /* without R, nothing is marked on a destroyed object's behalf */
	for (uint32_t i = 0; i < h->slots; i++) {
		if (h->cls[i] == OBJ_FREE || own_edges(g, (obj_t)i) != OWN_TOP)
			continue;
		uint32_t first = h->ref_start[i];
		obj_t co[2] = {h->cls[i], h->outer[i]};
		for (int k = 0; k < 2; k++)
			if (rgraph_enters(h, co[k]) && push_top(g, co[k], k ? RL_OUTER : RL_CLASS, i))
				return -1;
		for (uint32_t k = first; k < h->ref_start[i + 1]; k++)
			if (ref_edge(g, k) && push_top(g, h->ref_dst[k], RL_REF, k))
				return -1;
		for (uint32_t j = handoff_first(g, (obj_t)i); j != UINT32_MAX && handoff_at(g, j, (obj_t)i); j++) {
			obj_t t = h->ref_dst[r->handoff[j].ref];
			if (handoff_edge(g, t) && push_top(g, t, RL_HANDOFF, j))
				return -1;
		}
	}
	for (uint32_t c = 0; c < h->nclusters; c++) {
		const cluster *cl = &h->clusters[c];
		if (!r->cluster_live[c] || !r->cluster_walked[c] || lists_from_root(g, c))
			continue;
		for (uint32_t k = 0; k < cl->n_refs + cl->n_mutables; k++) {
			uint32_t at = k < cl->n_refs ? cl->refs + k : cl->mutables + k - cl->n_refs;
			if (list_edge(h, h->cluster_items[at]) && push_top(g, h->cluster_items[at], RL_LIST, at))
				return -1;
		}
	}
	return 0;
}

static int init(rgraph *g, const heap *h, const gc_result *r, uint32_t keep_flags, int policy, int labels)
{
	/* without R the caller has checked the heap (dom_needs_gc): no
	 * second pass over its flags */
	*g = (rgraph){.h = h, .r = r, .keep_flags = keep_flags, .policy = policy, .top = h->slots,
		      .member_kept = calloc(h->nclusters + 1, 1), .no_clusters = h->nclusters == 0,
		      .no_garbage = !r || !heap_has_garbage(h)};
	if (labels) {
		g->top_label_cap = 16;
		g->top_label = malloc(g->top_label_cap * sizeof *g->top_label);
	}
	for (uint32_t c = 0; g->member_kept && c < h->nclusters; c++)
		g->member_kept[c] = r->cluster_live[c] && kept_by_member(h, c);
	if (!g->member_kept || (labels && !g->top_label) || top_successors(g)) {
		rgraph_free(g);
		return -1;
	}
	return 0;
}

int rgraph_init(rgraph *g, const heap *h, const gc_result *r, uint32_t keep_flags, int policy)
{
	return init(g, h, r, keep_flags, policy, 0);
}

int rgraph_init_labelled(rgraph *g, const heap *h, const gc_result *r, uint32_t keep_flags, int policy)
{
	return init(g, h, r, keep_flags, policy, 1);
}

void rgraph_free(rgraph *g)
{
	vec_free(&g->top_succ);
	free(g->top_label);
	g->top_label = NULL;
	free(g->member_kept);
	g->member_kept = NULL;
}
