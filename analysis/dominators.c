/* dominators.c — retention graphs, semi-NCA dominators, retained sizes and
 * the class and package aggregates (see dominators.h).
 *
 * The graph is never stored whole: next_succ() enumerates a node's
 * successors from the heap's own rows, the GC result and the cluster lists.
 * One depth-first walk from ⊤ numbers the reached nodes in preorder and
 * counts their predecessors; a second enumeration fills the predecessor
 * rows (in preorder numbers); semi-NCA (Georgiadis, "Finding dominators in
 * practice") then needs only arrays indexed by preorder number.  Every loop
 * is iterative: heaps can hold chains millions long. */
#include "dominators.h"

#include <stdlib.h>
#include <string.h>

#include "progress.h"
#include "vec.h"

const char *const dom_policy_names[POLICY_COUNT] = {"gc", "refs", "refs+weak", "refs+weak+soft"};

int dom_policy_parse(const char *s)
{
	for (int p = 0; s && p < POLICY_COUNT; p++)
		if (strcmp(s, dom_policy_names[p]) == 0)
			return p;
	return -1;
}

#define NONE UINT32_MAX

/* The graph of one policy.  Nodes are slot indexes; ⊤ is node TOP (= slots). */
typedef struct graph {
	const heap *h;
	const gc_result *r;
	int policy;
	uint32_t top;
	vec top_succ; /* ⊤'s successors, in order (duplicates are harmless) */
	uint8_t *member_kept; /* per cluster: kept_by_member() */
} graph;

/* Can an edge end at T?  Never in the disregard pool, never at no object. */
static inline int enters(const heap *h, obj_t t)
{
	return t >= 0 && !heap_in_disregard(h, t);
}

/* Did step 2 walk cluster C's lists because of a rooted member, its root
 * having no root flag (the engine's KeepClusterRefs)?  Then what that walk
 * marked was marked on no object's behalf: it hangs off ⊤. */
static int kept_by_member(const heap *h, uint32_t c)
{
	const cluster *cl = &h->clusters[c];
	const uint16_t root_flags = IF_RootSet | IF_RefCounted | IF_INTERNAL_KEEP;
	if (h->iflags[cl->root] & root_flags)
		return 0;
	for (uint32_t k = 0; k < cl->n_members; k++)
		if (h->iflags[h->cluster_items[cl->members + k]] & root_flags)
			return 1;
	return 0;
}

/* Where X's own Class, Outer and references start: OWN_NONE, OWN_SELF, or
 * (gc) OWN_TOP when the GC traced X on no reached object's behalf: X dies
 * after all, or X is a cluster member traced as a root, or traced because
 * a cluster kept by a rooted member needed dissolving. */
enum { OWN_NONE, OWN_SELF, OWN_TOP };
static inline int own_edges(const graph *g, obj_t x)
{
	const heap *h = g->h;
	if (heap_in_disregard(h, x))
		return OWN_NONE;
	if (g->policy != POLICY_GC)
		return OWN_SELF;
	if (!g->r->was_traced[x])
		return OWN_NONE;
	if (!g->r->reachable[x])
		return OWN_TOP;
	int32_t c = h->cluster[x];
	if (c >= 0 && g->r->cluster_live[c] && h->clusters[c].root != x &&
	    (root_kind_static(h, x, g->r->keep_flags, 0) != RK_NONE || g->member_kept[c]))
		return OWN_TOP;
	return OWN_SELF;
}

/* Do the edges of a walked cluster's lists start at its root (else at ⊤)? */
static inline int lists_from_root(const graph *g, uint32_t c)
{
	return g->r->reachable[g->h->clusters[c].root] && !g->member_kept[c];
}

/* Is the reference at forward position K an edge of the policy? */
static inline int ref_edge(const graph *g, uint32_t k)
{
	const heap *h = g->h;
	obj_t t = h->ref_dst[k];
	if (!enters(h, t))
		return 0;
	switch (h->ref_kind[k]) {
	case REF_IMMUTABLE:
		return 1;
	case REF_STRONG:
	case REF_ARO:
		return !heap_is_garbage(h, t); /* the GC nulls it otherwise */
	case REF_WEAK:
		return g->policy >= POLICY_REFS_WEAK;
	default:
		return g->policy == POLICY_REFS_WEAK_SOFT;
	}
}

/* A cluster list entry (ReferencedClusters root or MutableObject) as an edge. */
static inline int list_edge(const heap *h, obj_t t)
{
	return enters(h, t) && !heap_is_garbage(h, t);
}

/* The next successor of object X at or after *POS (then advanced past it),
 * or NONE.  Positions: 0 Class, 1 Outer, 2.. the "r" records, then (gc) the
 * cluster edges: a root's members, then, once the cluster did step 5 and
 * its root survives, its ReferencedClusters and MutableObjects; a member's
 * one edge to its root. */
static uint32_t next_succ(const graph *g, uint32_t x, uint32_t *pos)
{
	const heap *h = g->h;
	if (x == g->top)
		return *pos < g->top_succ.n ? g->top_succ.v[(*pos)++] : NONE;
	uint32_t first = h->ref_start[x], nref = h->ref_start[x + 1] - first;
	/* decided once per call, and not at all once past the object's own edges */
	int own = *pos < 2 + nref && own_edges(g, (obj_t)x) == OWN_SELF;
	for (;;) {
		uint32_t p = (*pos)++;
		if (p < 2 + nref) {
			if (!own) {
				*pos = 2 + nref;
				continue;
			}
			if (p < 2) {
				obj_t t = p == 0 ? h->cls[x] : h->outer[x];
				if (enters(h, t))
					return (uint32_t)t;
			} else if (ref_edge(g, first + p - 2)) {
				return (uint32_t)h->ref_dst[first + p - 2];
			}
			continue;
		}
		p -= 2 + nref;
		int32_t c = h->cluster[x];
		if (g->policy != POLICY_GC || c < 0 || !g->r->cluster_live[c])
			return NONE;
		const cluster *cl = &h->clusters[c];
		if (cl->root != (obj_t)x) {
			if (p == 0 && enters(h, cl->root))
				return (uint32_t)cl->root;
			return NONE;
		}
		if (p < cl->n_members) {
			obj_t t = h->cluster_items[cl->members + p];
			if (enters(h, t))
				return (uint32_t)t;
			continue;
		}
		p -= cl->n_members;
		if (!g->r->cluster_walked[c] || !lists_from_root(g, (uint32_t)c))
			return NONE;
		obj_t t;
		if (p < cl->n_refs)
			t = h->cluster_items[cl->refs + p];
		else if (p < cl->n_refs + cl->n_mutables)
			t = h->cluster_items[cl->mutables + p - cl->n_refs];
		else
			return NONE;
		if (list_edge(h, t))
			return (uint32_t)t;
	}
}

/* ⊤'s successors: the roots in index order (a member of a live cluster is
 * no root of its own under gc: its survival is its cluster's), the "g"
 * references, and under gc what the GC marked from sources it destroyed. */
static int top_successors(graph *g)
{
	const heap *h = g->h;
	const gc_result *r = g->r;
	int gc = g->policy == POLICY_GC;
	for (uint32_t i = 0; i < h->slots; i++) {
		if (h->cls[i] == OBJ_FREE)
			continue;
		int32_t c = h->cluster[i];
		if (!heap_in_disregard(h, (obj_t)i) &&
		    (root_kind_static(h, (obj_t)i, r->keep_flags, r->gc_target[i]) == RK_NONE ||
		     (gc && c >= 0 && r->cluster_live[c] && h->clusters[c].root != (obj_t)i)))
			continue;
		if (vec_push(&g->top_succ, i))
			return -1;
	}
	for (uint32_t k = 0; k < h->ngcrefs; k++) {
		obj_t t = h->gcrefs[k].dst;
		if (heap_exists(h, t) && enters(h, t) && !heap_is_garbage(h, t) && vec_push(&g->top_succ, (uint32_t)t))
			return -1;
	}
	if (!gc)
		return 0;
	for (uint32_t i = 0; i < h->slots; i++) {
		if (h->cls[i] == OBJ_FREE || own_edges(g, (obj_t)i) != OWN_TOP)
			continue;
		uint32_t first = h->ref_start[i];
		obj_t co[2] = {h->cls[i], h->outer[i]};
		for (int k = 0; k < 2; k++)
			if (enters(h, co[k]) && vec_push(&g->top_succ, (uint32_t)co[k]))
				return -1;
		for (uint32_t k = first; k < h->ref_start[i + 1]; k++)
			if (ref_edge(g, k) && vec_push(&g->top_succ, (uint32_t)h->ref_dst[k]))
				return -1;
	}
	for (uint32_t c = 0; c < h->nclusters; c++) {
		const cluster *cl = &h->clusters[c];
		if (!r->cluster_live[c] || !r->cluster_walked[c] || lists_from_root(g, c))
			continue;
		for (uint32_t k = 0; k < cl->n_refs + cl->n_mutables; k++) {
			obj_t t = h->cluster_items[k < cl->n_refs ? cl->refs + k : cl->mutables + k - cl->n_refs];
			if (list_edge(h, t) && vec_push(&g->top_succ, (uint32_t)t))
				return -1;
		}
	}
	return 0;
}

/* Semi-NCA's path compression, without recursion. */
static void compress(uint32_t v, uint32_t *anc, uint32_t *label, const uint32_t *semi, uint32_t *stack)
{
	uint32_t sp = 0, x = v;
	while (anc[anc[x]] != NONE) {
		stack[sp++] = x;
		x = anc[x];
	}
	while (sp) {
		x = stack[--sp];
		uint32_t a = anc[x];
		if (semi[label[a]] < semi[label[x]])
			label[x] = label[a];
		anc[x] = anc[a];
	}
}

/* Work arrays of one computation (preorder numbers unless said). */
typedef struct work {
	uint32_t n;          /* reached nodes, ⊤ included (number 0) */
	uint32_t *pre;       /* per node (slot, ⊤): preorder number or NONE */
	uint32_t *vertex;    /* per number: the node */
	uint32_t *parent;    /* per number: DFS parent's number */
	uint32_t *pstart, *pred; /* predecessor rows */
	uint32_t *idom;      /* per number */
	uint64_t *ret;       /* per number: retained bytes */
} work;

static void work_free(work *w)
{
	free(w->pre); free(w->vertex); free(w->parent); free(w->pstart); free(w->pred); free(w->idom); free(w->ret);
}

/* The depth-first walk from ⊤ and the predecessor rows. */
static int walk(const graph *g, work *w)
{
	uint32_t nodes = g->top + 1;
	uint32_t *cnt = calloc(nodes, sizeof *cnt);
	uint32_t *snode = malloc((size_t)nodes * sizeof *snode), *spos = malloc((size_t)nodes * sizeof *spos);
	w->pre = malloc((size_t)nodes * sizeof *w->pre);
	w->vertex = malloc((size_t)nodes * sizeof *w->vertex);
	w->parent = malloc((size_t)nodes * sizeof *w->parent);
	int rc = -1;
	if (!cnt || !snode || !spos || !w->pre || !w->vertex || !w->parent)
		goto out;
	memset(w->pre, 0xff, (size_t)nodes * sizeof *w->pre);
	uint32_t n = 0, sp = 0;
	w->pre[g->top] = n;
	w->vertex[n] = g->top;
	w->parent[n++] = NONE;
	snode[sp] = g->top;
	spos[sp++] = 0;
	uint64_t edges = 0;
	while (sp) {
		uint32_t x = snode[sp - 1], t = next_succ(g, x, &spos[sp - 1]);
		if (t == NONE) {
			sp--;
			continue;
		}
		cnt[t]++;
		edges++;
		if (w->pre[t] != NONE)
			continue;
		w->pre[t] = n;
		w->vertex[n] = t;
		w->parent[n++] = w->pre[x];
		snode[sp] = t;
		spos[sp++] = 0;
	}
	w->n = n;
	free(snode);
	free(spos);
	snode = spos = NULL;
	if (edges > UINT32_MAX - 1)
		goto out; /* more edges than the rows can index */
	w->pstart = malloc(((size_t)n + 1) * sizeof *w->pstart);
	w->pred = malloc((size_t)edges * sizeof *w->pred + 1);
	if (!w->pstart || !w->pred)
		goto out;
	w->pstart[0] = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t v = w->vertex[i];
		w->pstart[i + 1] = w->pstart[i] + cnt[v];
		cnt[v] = w->pstart[i]; /* from here on: where its next predecessor goes */
	}
	for (uint32_t i = 0; i < n; i++) {
		uint32_t pos = 0, t;
		while ((t = next_succ(g, w->vertex[i], &pos)) != NONE)
			w->pred[cnt[t]++] = i;
	}
	rc = 0;
out:
	free(cnt);
	free(snode);
	free(spos);
	return rc;
}

/* Semi-NCA: immediate dominators, as preorder numbers. */
static int semi_nca(work *w)
{
	uint32_t n = w->n;
	uint32_t *semi = malloc((size_t)n * sizeof *semi), *label = malloc((size_t)n * sizeof *label);
	uint32_t *anc = malloc((size_t)n * sizeof *anc), *stack = malloc((size_t)n * sizeof *stack);
	if (!semi || !label || !anc || !stack) {
		free(semi); free(label); free(anc); free(stack);
		return -1;
	}
	for (uint32_t i = 0; i < n; i++) {
		semi[i] = label[i] = i;
		anc[i] = NONE;
	}
	for (uint32_t v = n - 1; v >= 1; v--) {
		uint32_t s = semi[v];
		for (uint32_t k = w->pstart[v]; k < w->pstart[v + 1]; k++) {
			uint32_t u = w->pred[k];
			if (anc[u] != NONE) {
				compress(u, anc, label, semi, stack);
				u = label[u];
			}
			if (semi[u] < s)
				s = semi[u];
		}
		semi[v] = s;
		anc[v] = w->parent[v];
	}
	uint32_t *idom = anc; /* reused: the links are no longer needed */
	idom[0] = 0;
	for (uint32_t v = 1; v < n; v++) {
		uint32_t d = w->parent[v];
		while (d > semi[v])
			d = idom[d];
		idom[v] = d;
	}
	w->idom = idom;
	free(semi);
	free(label);
	free(stack);
	return 0;
}

/* Each object's outermost package (validated heaps have no Outer loops). */
static int packages(const heap *h, obj_t *pkg)
{
	vec chain = {0};
	for (uint32_t i = 0; i < h->slots; i++)
		pkg[i] = OBJ_NONE - 1; /* not yet known */
	for (uint32_t i = 0; i < h->slots; i++) {
		if (h->cls[i] == OBJ_FREE) {
			pkg[i] = OBJ_NONE;
			continue;
		}
		obj_t x = (obj_t)i;
		chain.n = 0;
		while (pkg[x] == OBJ_NONE - 1 && h->outer[x] >= 0 && chain.n <= h->slots) {
			if (vec_push(&chain, (uint32_t)x))
				return -1;
			x = h->outer[x];
		}
		obj_t top = pkg[x] != OBJ_NONE - 1 ? pkg[x] : x;
		pkg[x] = top;
		for (size_t k = 0; k < chain.n; k++)
			pkg[chain.v[k]] = top;
	}
	vec_free(&chain);
	return 0;
}

static int cmp_group(const void *a, const void *b)
{
	const dom_group *x = a, *y = b;
	if (x->retained != y->retained)
		return x->retained < y->retained ? 1 : -1;
	return (x->key > y->key) - (x->key < y->key);
}

static int cmp_pair_key(const void *a, const void *b)
{
	const dom_pair *x = a, *y = b;
	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	return (x->to > y->to) - (x->to < y->to);
}

static int cmp_pair_bytes(const void *a, const void *b)
{
	const dom_pair *x = a, *y = b;
	if (x->bytes != y->bytes)
		return x->bytes < y->bytes ? 1 : -1;
	return cmp_pair_key(a, b);
}

/* Give each distinct KEY[i] of the reached objects a dense id in MAP. */
static dom_group *groups_for(const work *w, const obj_t *key, int32_t *map, uint32_t *ngroups)
{
	dom_group *g = NULL;
	size_t cap = 0;
	uint32_t n = 0;
	for (uint32_t i = 1; i < w->n; i++) {
		obj_t k = key[w->vertex[i]];
		if (map[k] >= 0)
			continue;
		if (grow_array((void **)&g, &cap, n, sizeof *g)) {
			free(g);
			return NULL;
		}
		map[k] = (int32_t)n;
		g[n++] = (dom_group){k, 0, 0, 0};
	}
	*ngroups = n;
	return g ? g : calloc(1, sizeof *g);
}

/* Class and package aggregates: a walk down the dominator tree counting,
 * per class and per package, the instances on the path from ⊤; an object
 * adds its retained size only when none of its dominators is one of its
 * own class (package): so no byte is counted twice. */
static int aggregates(const heap *h, const work *w, dom_result *d)
{
	uint32_t n = w->n;
	int rc = -1;
	int32_t *cmap = malloc((size_t)h->slots * sizeof *cmap + 1), *pmap = malloc((size_t)h->slots * sizeof *pmap + 1);
	uint32_t *cstart = calloc((size_t)n + 1, sizeof *cstart), *child = malloc((size_t)n * sizeof *child + 1);
	uint32_t *ccount = NULL, *pcount = NULL, *stack = NULL, *spos = NULL;
	dom_pair *pairs = NULL;
	if (!cmap || !pmap || !cstart || !child)
		goto out;
	memset(cmap, 0xff, (size_t)h->slots * sizeof *cmap);
	memset(pmap, 0xff, (size_t)h->slots * sizeof *pmap);
	if (!(d->classes = groups_for(w, h->cls, cmap, &d->nclasses)) ||
	    !(d->packages = groups_for(w, d->package, pmap, &d->npackages)))
		goto out;
	ccount = calloc((size_t)d->nclasses + 1, sizeof *ccount);
	pcount = calloc((size_t)d->npackages + 1, sizeof *pcount);
	stack = malloc((size_t)n * sizeof *stack);
	spos = malloc((size_t)n * sizeof *spos);
	if (!ccount || !pcount || !stack || !spos)
		goto out;
	/* the dominator tree's children rows */
	for (uint32_t v = 1; v < n; v++)
		cstart[w->idom[v] + 1]++;
	for (uint32_t v = 0; v < n; v++)
		cstart[v + 1] += cstart[v];
	{
		uint32_t *fill = spos; /* borrowed before the walk */
		for (uint32_t v = 0; v < n; v++)
			fill[v] = cstart[v];
		for (uint32_t v = 1; v < n; v++)
			child[fill[w->idom[v]]++] = v;
	}
	uint32_t sp = 0;
	stack[sp] = 0;
	spos[sp++] = cstart[0];
	while (sp) {
		uint32_t v = stack[sp - 1];
		if (spos[sp - 1] < cstart[v + 1]) {
			uint32_t c = child[spos[sp - 1]++];
			obj_t x = (obj_t)w->vertex[c];
			dom_group *kg = &d->classes[cmap[h->cls[x]]], *pg = &d->packages[pmap[d->package[x]]];
			kg->count++;
			kg->shallow += h->size[x];
			pg->count++;
			pg->shallow += h->size[x];
			if (ccount[cmap[h->cls[x]]]++ == 0)
				kg->retained += w->ret[c];
			if (pcount[pmap[d->package[x]]]++ == 0)
				pg->retained += w->ret[c];
			stack[sp] = c;
			spos[sp++] = cstart[c];
			continue;
		}
		if (v != 0) {
			obj_t x = (obj_t)w->vertex[v];
			ccount[cmap[h->cls[x]]]--;
			pcount[pmap[d->package[x]]]--;
		}
		sp--;
	}
	/* cross-package retention */
	size_t cap = 0;
	uint32_t np = 0;
	for (uint32_t v = 1; v < n; v++) {
		if (w->idom[v] == 0)
			continue;
		obj_t from = d->package[w->vertex[w->idom[v]]], to = d->package[w->vertex[v]];
		if (from == to)
			continue;
		if (grow_array((void **)&pairs, &cap, np, sizeof *pairs))
			goto out;
		pairs[np++] = (dom_pair){from, to, 1, w->ret[v]};
	}
	if (np > 1)
		qsort(pairs, np, sizeof *pairs, cmp_pair_key);
	uint32_t m = 0;
	for (uint32_t k = 0; k < np; k++) {
		if (m > 0 && pairs[m - 1].from == pairs[k].from && pairs[m - 1].to == pairs[k].to) {
			pairs[m - 1].bytes += pairs[k].bytes;
			pairs[m - 1].count++;
		} else {
			pairs[m++] = pairs[k];
		}
	}
	if (m > 1)
		qsort(pairs, m, sizeof *pairs, cmp_pair_bytes);
	d->pairs = pairs ? pairs : calloc(1, sizeof *pairs);
	pairs = NULL;
	d->npairs = m;
	if (!d->pairs)
		goto out;
	if (d->nclasses > 1)
		qsort(d->classes, d->nclasses, sizeof *d->classes, cmp_group);
	if (d->npackages > 1)
		qsort(d->packages, d->npackages, sizeof *d->packages, cmp_group);
	rc = 0;
out:
	free(cmap); free(pmap); free(cstart); free(child); free(ccount); free(pcount); free(stack); free(spos);
	free(pairs);
	return rc;
}

int dom_compute(const heap *h, const gc_result *r, int policy, dom_result *d)
{
	double t0 = now_seconds();
	memset(d, 0, sizeof *d);
	d->policy = policy;
	d->slots = h->slots;
	graph g = {h, r, policy, h->slots, {0}, calloc(h->nclusters + 1, 1)};
	work w = {0};
	size_t s = h->slots ? h->slots : 1;
	for (uint32_t c = 0; g.member_kept && c < h->nclusters; c++)
		g.member_kept[c] = r->cluster_live[c] && kept_by_member(h, c);
	d->idom = malloc(s * sizeof *d->idom);
	d->retained = calloc(s, sizeof *d->retained);
	d->package = malloc(s * sizeof *d->package);
	int rc = -1;
	if (!g.member_kept || !d->idom || !d->retained || !d->package || packages(h, d->package) || top_successors(&g) ||
	    walk(&g, &w) || (progress_at(1, 3), semi_nca(&w)))
		goto out;
	progress_at(2, 3); /* the steps, for the progress line */
	free(w.pre);
	free(w.pred);
	free(w.pstart);
	w.pre = w.pred = w.pstart = NULL;
	w.ret = malloc((size_t)w.n * sizeof *w.ret);
	if (!w.ret)
		goto out;
	w.ret[0] = 0;
	for (uint32_t v = 1; v < w.n; v++)
		w.ret[v] = h->size[w.vertex[v]];
	for (uint32_t v = w.n - 1; v >= 1; v--)
		w.ret[w.idom[v]] += w.ret[v];
	for (uint32_t i = 0; i < h->slots; i++)
		d->idom[i] = OBJ_NONE;
	for (uint32_t v = 1; v < w.n; v++) {
		uint32_t x = w.vertex[v];
		d->idom[x] = w.idom[v] == 0 ? DOM_TOP : (obj_t)w.vertex[w.idom[v]];
		d->retained[x] = w.ret[v];
		d->reached_bytes += h->size[x];
	}
	d->reached = w.n - 1;
	if (aggregates(h, &w, d))
		goto out;
	rc = 0;
out:
	work_free(&w);
	vec_free(&g.top_succ);
	free(g.member_kept);
	if (rc)
		dom_free(d);
	else
		d->seconds = now_seconds() - t0;
	return rc;
}

void dom_free(dom_result *d)
{
	free(d->idom); free(d->retained); free(d->package); free(d->size); free(d->classes); free(d->packages); free(d->pairs);
	memset(d, 0, sizeof *d);
}

int dom_cmp_retained(const void *a, const void *b, void *arg)
{
	const dom_result *d = arg;
	obj_t x = *(const obj_t *)a, y = *(const obj_t *)b;
	if (d->retained[x] != d->retained[y])
		return d->retained[x] < d->retained[y] ? 1 : -1;
	return (x > y) - (x < y);
}

int dom_tree_build(const dom_result *d, dom_tree *t)
{
	t->start = calloc((size_t)d->slots + 1, sizeof *t->start);
	t->kids = malloc(((size_t)d->slots + 1) * sizeof *t->kids);
	uint32_t *at = malloc(((size_t)d->slots + 1) * sizeof *at);
	if (!t->start || !t->kids || !at) {
		free(at);
		dom_tree_free(t);
		return -1;
	}
	for (uint32_t i = 0; i < d->slots; i++)
		if (d->idom[i] >= 0 && (uint32_t)d->idom[i] < d->slots)
			t->start[d->idom[i] + 1]++;
	for (uint32_t i = 0; i < d->slots; i++)
		t->start[i + 1] += t->start[i];
	memcpy(at, t->start, (size_t)d->slots * sizeof *at);
	for (uint32_t i = 0; i < d->slots; i++)
		if (d->idom[i] >= 0 && (uint32_t)d->idom[i] < d->slots)
			t->kids[at[d->idom[i]]++] = (obj_t)i;
	free(at);
	for (uint32_t i = 0; i < d->slots; i++)
		if (t->start[i + 1] - t->start[i] > 1)
			qsort_r(t->kids + t->start[i], t->start[i + 1] - t->start[i], sizeof *t->kids, dom_cmp_retained,
				(void *)d);
	return 0;
}

void dom_tree_free(dom_tree *t)
{
	free(t->start);
	free(t->kids);
	t->start = NULL;
	t->kids = NULL;
}
