/* cut.c — the minimum cut between the roots and a set of objects, and its
 * proof by the GC rerun (see cut.h).  The flow network and the causal model
 * it is built on are cut_net.h's and cut_net.c's: here the ancestor search
 * that picks its objects, the max flow, the lower bound's comparison (an
 * answer above it is not proven minimal: cut_net.c says why), the cut's
 * references, what each keeps, and the chains.  Every walk over the network
 * is a breadth-first queue or an explicit stack. */
#include "analysis/cut.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/cut_net.h"
#include "base/base.h"
#include "snapshot/snapshot.h"

/* What a label's edge is, in words (the chain that holds an infinite cut). */
const char *cut_label_words(const heap *h, int v8, uint64_t lab, char *buf, size_t cap)
{
	uint32_t id = RGRAPH_LABEL_ID(lab);
	if (v8 && RGRAPH_LABEL_TYPE(lab) == RL_REF) { /* the edge's name, as DevTools gives it */
		const char *prop = heap_str(h, h->ref_prop[id]);
		snprintf(buf, cap, "%s", prop[0] ? prop : "(unnamed)");
		return buf;
	}
	if (v8)
		return RGRAPH_LABEL_TYPE(lab) == RL_ROOT ? "the snapshot's root" : "an edge no edit removes";
	switch (RGRAPH_LABEL_TYPE(lab)) {
	case RL_CLASS: return "Class";
	case RL_OUTER: return "Outer";
	case RL_REF:
		snprintf(buf, cap, "%s (%s)", heap_str(h, h->ref_prop[id]), ref_kind_names[h->ref_kind[id]]);
		return buf;
	case RL_HANDOFF: return "actors handed to the Level (step 2)";
	case RL_MEMBER: return "cluster membership";
	case RL_LIST: return "cluster list entry";
	case RL_GCREF: return "FGCObject reference";
	default: {
		obj_t x = (obj_t)id;
		if (heap_in_disregard(h, x))
			return "root: in the disregard pool";
		if (h->iflags[x] & IF_INTERNAL_KEEP)
			return "root: an internal keep flag (Native, Async, LoaderImport)";
		return "root (its root reasons cost more than allowed: --root-cost)";
	}
	}
}


/* ---- the edges the ancestor search follows ----
 *
 * One definition for both ways of finding the ancestors (the predecessor
 * index and the sweeps below).  Out of an object the GC keeps or traced
 * (a rooted member of a cluster that dies still marks what it
 * references): its Outer, its Class, its strong, aro and immutable "r"
 * records.  Out of a Level kept or traced: the actors handed over to it.
 * And a live cluster's own, whatever became of its objects (what a rooted
 * member's walk of the lists marks outlives them: cut_net.c's network):
 * from its root to every entry of its lists and to every member, from
 * each member to its root.  These are the retention graph's edges and
 * more: the search needs only a superset.  Whether an edge's target
 * counts (is kept) is the visitor's test.
 *
 * Each edge FROM -> TO (TO may be OBJ_NONE) is offered to COUNTS(CTX, TO,
 * K), whether an edge into TO counts (no effect but fetching ahead; K the
 * reference's position for an "r" record, else NO_REF), and when it does
 * to VISIT(CTX, TO, FROM), whose nonzero return ends the object's edges.
 * (The target's test comes before the record's kind: in the sweeps it
 * fails for nearly every reference, and the kinds need not be read.) */
typedef int (*edge_counts)(void *ctx, obj_t to, uint32_t k);
typedef int (*edge_visit)(void *ctx, obj_t to, obj_t from);
#define NO_REF UINT32_MAX

/* Does the GC follow an "r" record of KIND (a weak or soft one it does not)? */
static inline int followed(int kind)
{
	return kind == REF_STRONG || kind == REF_ARO || kind == REF_IMMUTABLE;
}

/* Object I's edges (I kept or traced: the caller's test); 1 when a visit
 * ended them. */
static inline int object_edges(const heap *h, obj_t i, edge_counts counts, edge_visit visit, void *ctx)
{
	obj_t t = h->outer[i];
	if (counts(ctx, t, NO_REF) && visit(ctx, t, i))
		return 1;
	t = h->cls[i];
	if (counts(ctx, t, NO_REF) && visit(ctx, t, i))
		return 1;
	for (uint32_t k = h->ref_start[i], e = h->ref_start[i + 1]; k < e; k++) {
		t = h->ref_dst[k];
		if (counts(ctx, t, k) && followed(h->ref_kind[k]) && visit(ctx, t, i))
			return 1;
	}
	return 0;
}

/* The hand-overs' edges and the live clusters' (KEEP as the search's). */
static inline void extra_edges(const heap *h, const gc_result *r, const uint8_t *keep, edge_counts counts,
			       edge_visit visit, void *ctx)
{
#define OFFER(to, from)                                  \
	do {                                             \
		obj_t to_ = (to);                        \
		if (counts(ctx, to_, NO_REF))            \
			visit(ctx, to_, (from));         \
	} while (0)
	for (uint32_t k = 0; k < r->nhandoff; k++) {
		obj_t fr = r->handoff[k].level;
		if (fr >= 0 && (keep[fr] || r->was_traced[fr]))
			OFFER(h->ref_dst[r->handoff[k].ref], fr);
	}
	for (uint32_t c = 0; c < h->nclusters; c++) {
		const cluster *cl = &h->clusters[c];
		if (!r->cluster_live[c])
			continue;
		for (uint32_t k = 0; k < cl->n_refs + cl->n_mutables; k++)
			OFFER(h->cluster_items[k < cl->n_refs ? cl->refs + k : cl->mutables + k - cl->n_refs], cl->root);
		for (uint32_t k = 0; k < cl->n_members; k++) {
			obj_t m = h->cluster_items[cl->members + k];
			OFFER(m, cl->root);
			OFFER(cl->root, m);
		}
	}
#undef OFFER
}

/* The predecessors the ancestor search follows, as compressed rows by
 * object (START, slots + 1 entries; FROM): into each object the GC keeps
 * (any object with clusters), the source of every edge above into it, 4
 * bytes each; freed once the ancestors are found.  Within a row the
 * sources come in index order, then the hand-overs, then the clusters'.
 * Built only when the sweeps below do not find the ancestors. */
typedef struct preds {
	uint32_t *start;
	obj_t *from;
} preds;

enum { ANC = 1, ANC_KEPT = 2 }; /* an object's mark (below): an ancestor, and a kept one */

/* How many references ahead a pass fetches what it will write. */
#define PREDS_AHEAD 8

/* One pass over the edges out of objects LO..HI-1 (and, when EXTRA, the
 * hand-overs' and the clusters' after them): with FILL NULL counts each
 * edge into AT[to], else writes its source at FILL[AT[to]++].  KEEP[x]:
 * x is kept (an edge into it counts). */
typedef struct preds_job {
	const heap *h;
	const gc_result *r;
	const uint8_t *keep;
	uint32_t *at;
	obj_t *fill;
	obj_t lo, hi;
	int extra;
} preds_job;

/* An edge into a kept object counts; a few references on, the count,
 * then the slot it points to, are fetched. */
static inline int preds_counts(void *arg, obj_t to, uint32_t k)
{
	const preds_job *j = arg;
	if (k != NO_REF) {
		const obj_t *ref_dst = j->h->ref_dst;
		if (k + 2 * PREDS_AHEAD < j->h->nrefs)
			__builtin_prefetch(&j->at[ref_dst[k + 2 * PREDS_AHEAD]], 1);
		if (j->fill && k + PREDS_AHEAD < j->h->nrefs)
			__builtin_prefetch(&j->fill[j->at[ref_dst[k + PREDS_AHEAD]]], 1);
	}
	return to >= 0 && j->keep[to];
}

static inline int preds_visit(void *arg, obj_t to, obj_t from)
{
	const preds_job *j = arg;
	if (j->fill)
		j->fill[j->at[to]++] = from;
	else
		j->at[to]++;
	return 0;
}

static void *preds_pass(void *arg)
{
	preds_job *j = arg;
	for (obj_t i = j->lo; i < j->hi; i++)
		if (j->keep[i] || j->r->was_traced[i])
			object_edges(j->h, i, preds_counts, preds_visit, j);
	if (j->extra)
		extra_edges(j->h, j->r, j->keep, preds_counts, preds_visit, j);
	return NULL;
}

/* Both passes, each on two threads when PARALLEL: one the objects below
 * a split that halves the references, the other those above and the
 * extra edges, each counting into an array of its own (the first into
 * START, the second into SECOND); then every row is laid out as the first
 * thread's sources, then the second's, and each fills its own part.  KEEP
 * as in preds_job. */
static int preds_build(const heap *h, const gc_result *r, const uint8_t *keep, int parallel, preds *p)
{
	p->from = NULL;
	p->start = calloc((size_t)h->slots + 2, sizeof *p->start);
	uint32_t *second = calloc((size_t)h->slots + 1, sizeof *second);
	if (!p->start || !second)
		goto oom;
	obj_t lo = heap_split_refs(h);
	preds_job j[2] = {{h, r, keep, p->start, NULL, 0, lo, 0}, {h, r, keep, second, NULL, lo, (obj_t)h->slots, 1}};
	jobs_two(preds_pass, &j[0], &j[1], parallel);
	uint32_t total = 0;
	for (uint32_t i = 0; i < h->slots; i++) {
		uint32_t a = p->start[i], b = second[i];
		p->start[i] = total;
		second[i] = total + a;
		total += a + b;
	}
	p->from = malloc(((size_t)total + 1) * sizeof *p->from);
	if (!p->from)
		goto oom;
	j[0].fill = j[1].fill = p->from;
	jobs_two(preds_pass, &j[0], &j[1], parallel);
	/* SECOND[to] now ends TO's row */
	p->start[0] = 0;
	memcpy(p->start + 1, second, (size_t)h->slots * sizeof *p->start);
	free(second);
	return 0;
oom:
	free(p->start);
	free(second);
	p->start = NULL;
	return -1;
}

static void preds_free(preds *p)
{
	free(p->start);
	free(p->from);
}

/* ---- the ancestors by sweeping the edges forwards ----
 *
 * The predecessor index costs a pass over every reference of the heap
 * and 4 bytes a kept edge, while the ancestors are often a small part of
 * the heap.  So they are first found without it: a sweep visits every
 * object not yet known to be an ancestor and makes it one when one of
 * its edges (the index's: object_edges, extra_edges) leads to a kept
 * ancestor; sweeps alternate direction, and the set is complete once
 * a whole sweep adds nothing.  On the UE bench heaps three or four sweeps
 * do (one way marks nine tenths, the last nothing); where they do not pay
 * (sweeps() says when) the predecessor index of every kept object is
 * walked instead.  The set is the same either way, and so is the
 * network: number_ancestors numbers it in one order whichever way it was
 * found. */
#define SWEEPS_MAX 6

/* One sweep over objects LO..HI-1 (and the extra edges when EXTRA) of
 * MARK, which the other half's sweep reads and writes at the same time
 * (relaxed atomics: a mark missed now is seen by the next sweep).
 * MARKED: how many it marked. */
typedef struct sweep_job {
	const heap *h;
	const gc_result *r;
	const uint8_t *keep;
	uint8_t *mark;
	obj_t lo, hi;
	int extra, down;
	uint32_t marked;
} sweep_job;

static inline int kept_ancestor(const uint8_t *mark, obj_t x)
{
	return x >= 0 && (__atomic_load_n(&mark[x], __ATOMIC_RELAXED) & ANC_KEPT);
}

static inline int unmarked(const uint8_t *mark, obj_t x)
{
	return x >= 0 && __atomic_load_n(&mark[x], __ATOMIC_RELAXED) == 0;
}

/* Mark X an ancestor (a kept one when KEEP[X]). */
static void set_ancestor(sweep_job *j, obj_t x)
{
	__atomic_store_n(&j->mark[x], (uint8_t)(ANC | (j->keep[x] ? ANC_KEPT : 0)), __ATOMIC_RELAXED);
	j->marked++;
}

/* The sweeps' edges: one counts when it leads to a kept ancestor; then
 * an object's search ends (it is one), and an extra edge's source
 * becomes one. */
static inline int to_kept_ancestor(void *arg, obj_t to, uint32_t k)
{
	(void)k;
	return kept_ancestor(((sweep_job *)arg)->mark, to);
}

static inline int found(void *arg, obj_t to, obj_t from)
{
	(void)arg;
	(void)to;
	(void)from;
	return 1;
}

static inline int extra_found(void *arg, obj_t to, obj_t from)
{
	sweep_job *j = arg;
	(void)to;
	if (unmarked(j->mark, from))
		set_ancestor(j, from);
	return 0;
}

static void *sweep_pass(void *arg)
{
	sweep_job *j = arg;
	const uint8_t *keep = j->keep, *traced = j->r->was_traced;
	j->marked = 0;
	for (obj_t n = 0; n < j->hi - j->lo; n++) {
		obj_t i = j->down ? j->hi - 1 - n : j->lo + n;
		if (unmarked(j->mark, i) && (keep[i] || traced[i]) && object_edges(j->h, i, to_kept_ancestor, found, j))
			set_ancestor(j, i);
	}
	if (j->extra)
		extra_edges(j->h, j->r, keep, to_kept_ancestor, extra_found, j);
	return NULL;
}

/* Sweep MARK (the targets marked, every other object 0) until it holds
 * every ancestor: 0, or 1 when the sweeps stop paying: after SWEEPS_MAX of
 * them, or as soon as one (from the third on) marks more than a quarter
 * of what the two before it marked together -- the set is still growing,
 * as a V8 heap's does, where most of the heap reaches an object through
 * long chains.  (Two sweeps, one each way, are the unit: which way finds
 * most depends on where the holders lie in the array.) */
static int sweeps(const heap *h, const gc_result *r, const uint8_t *keep, uint8_t *mark, int parallel)
{
	obj_t lo = heap_split_refs(h);
	uint32_t before[2] = {0, 0};
	for (int sweep = 0; sweep < SWEEPS_MAX; sweep++) {
		int down = sweep % 2 == 0;
		sweep_job j[2] = {{h, r, keep, mark, 0, lo, 0, down, 0}, {h, r, keep, mark, lo, (obj_t)h->slots, 1, down, 0}};
		jobs_two(sweep_pass, &j[0], &j[1], parallel);
		uint32_t marked = j[0].marked + j[1].marked;
		trace_printf("cut: sweep %d marked %u", sweep, marked);
		if (marked == 0)
			return 0;
		if (sweep >= 2 && marked > (before[0] + before[1]) / 4)
			return 1;
		before[0] = before[1];
		before[1] = marked;
	}
	return 1;
}

/* Breadth-first from the targets marked in MARK backwards over P, marking
 * every ancestor. */
static int walk_preds(const preds *p, const obj_t *targets, uint32_t nt, uint8_t *mark)
{
	vec q = {0};
	for (uint32_t k = 0; k < nt; k++)
		if (vec_push(&q, (uint32_t)targets[k]))
			goto oom;
	for (size_t at = 0; at < q.n; at++) {
		obj_t t = (obj_t)q.v[at];
		for (uint32_t k = p->start[t]; k < p->start[t + 1]; k++) {
			obj_t s = p->from[k];
			if (!(mark[s] & ANC)) {
				mark[s] |= ANC;
				if (vec_push(&q, (uint32_t)s))
					goto oom;
			}
		}
	}
	vec_free(&q);
	return 0;
oom:
	vec_free(&q);
	return -1;
}

/* The ancestor superset of the NT targets (G's first objects) into MARK
 * (ANC bits): by the sweeps, or when they stop paying (or INDEX_ONLY asks)
 * by walking the predecessor index of every kept object (only kept objects
 * on a heap without clusters: no other is on a path from ⊤; with clusters
 * every object, see object_edges). */
static int ancestor_set(const heap *h, const gc_result *r, const net *g, uint32_t nt, int parallel, int index_only,
			uint8_t *mark)
{
	/* with clusters, a cut can make the GC keep what it did not (the
	 * order, cut.c): every object is a candidate then */
	uint8_t *all = NULL;
	if (h->nclusters > 0 && (all = malloc((size_t)h->slots + 1)))
		for (uint32_t i = 0; i < h->slots; i++)
			all[i] = h->cls[i] != OBJ_FREE;
	if (h->nclusters > 0 && !all)
		return -1;
	const uint8_t *keep = all ? all : r->reachable;
	for (uint32_t k = 0; k < nt; k++)
		mark[g->obj[k]] = ANC | ANC_KEPT; /* kept: reachable */
	int rc = 0;
	if (!index_only && sweeps(h, r, keep, mark, parallel) == 0) {
		trace_point("cut: ancestors swept");
	} else {
		/* the walk starts again from the targets alone */
		memset(mark, 0, (size_t)h->slots);
		for (uint32_t k = 0; k < nt; k++)
			mark[g->obj[k]] = ANC;
		preds x = {0};
		rc = preds_build(h, r, keep, parallel, &x);
		trace_point("cut: predecessors");
		if (rc == 0)
			rc = walk_preds(&x, g->obj, nt, mark);
		preds_free(&x);
	}
	free(all);
	return rc;
}

/* Number the ancestors in MARK as nodes 2.. of G: the NT targets (G's
 * first objects) first, in their order, then the others in index order --
 * the same numbering however they were found, and the network's objects
 * in the order of the heap's columns. */
static int number_ancestors(const heap *h, net *g, uint32_t nt, const uint8_t *mark)
{
	uint32_t n = 0; /* the targets among them */
	for (uint32_t i = 0; i < h->slots; i++)
		n += mark[i] & ANC;
	obj_t *obj = malloc(((size_t)n + 2) * sizeof *obj);
	if (!obj)
		return -1;
	obj[SRC] = obj[SINK] = OBJ_NONE;
	for (uint32_t k = 0; k < nt; k++) {
		obj[2 + k] = g->obj[k];
		g->node[g->obj[k]] = 2 + k;
	}
	uint32_t at = 2 + nt;
	for (uint32_t i = 0; i < h->slots; i++)
		if ((mark[i] & ANC) && g->node[i] == NO) {
			obj[at] = (obj_t)i;
			g->node[i] = at++;
		}
	free(g->obj);
	g->obj = obj;
	g->n = at;
	return 0;
}

/* Breadth-first from SRC over the forward arcs FOLLOW lets through (CTX
 * its); PARENT (per node, the arc it was reached by, NO for unreached, NO
 * - 1 for SRC) filled.  QUEUE has room for every node. */
typedef int (*arc_test)(const net *g, uint32_t arc, uint32_t head, const void *ctx);

static void walk_from_src(const net *g, arc_test follow, const void *ctx, uint32_t *parent, uint32_t *queue)
{
	for (uint32_t u = 0; u < g->n; u++)
		parent[u] = NO;
	size_t head = 0, tail = 0;
	queue[tail++] = SRC;
	parent[SRC] = NO - 1;
	while (head < tail) {
		uint32_t u = queue[head++];
		for (uint32_t k = g->adj_start[u]; k < g->adj_start[u + 1]; k++) {
			uint32_t a = g->adj[k], v = arc_head(g, a);
			if (!(a & 1) && parent[v] == NO && follow(g, a, v, ctx)) {
				parent[v] = a;
				queue[tail++] = v;
			}
		}
	}
}

static int uncuttable_arc(const net *g, uint32_t arc, uint32_t head, const void *ctx)
{
	(void)head;
	(void)ctx;
	return g->cap[arc >> 1] == INF;
}

/* An arc into the source side (CTX: the per-node side marks). */
static int source_side_arc(const net *g, uint32_t arc, uint32_t head, const void *side)
{
	(void)g;
	(void)arc;
	return ((const uint8_t *)side)[head];
}

/* Breadth-first from SRC over the uncuttable edges (PARENT as above). */
static void walk_uncuttable(const net *g, uint32_t *parent, uint32_t *queue)
{
	walk_from_src(g, uncuttable_arc, NULL, parent, queue);
}

/* Dinic's max flow from SRC to SINK (finite: checked first). */
static int max_flow(net *g)
{
	int32_t *level = malloc(((size_t)g->n + 1) * sizeof *level);
	uint32_t *it = malloc(((size_t)g->n + 1) * sizeof *it), *queue = malloc(((size_t)g->n + 1) * sizeof *queue);
	uint32_t *st = malloc(((size_t)g->n + 1) * sizeof *st);
	if (!level || !it || !queue || !st) {
		free(level);
		free(it);
		free(queue);
		free(st);
		return -1;
	}
	for (;;) {
		for (uint32_t u = 0; u < g->n; u++)
			level[u] = -1;
		size_t head = 0, tail = 0;
		queue[tail++] = SRC;
		level[SRC] = 0;
		while (head < tail) {
			uint32_t u = queue[head++];
			for (uint32_t k = g->adj_start[u]; k < g->adj_start[u + 1]; k++) {
				uint32_t a = g->adj[k], v = arc_head(g, a);
				if (g->res[a] > 0 && level[v] < 0) {
					level[v] = level[u] + 1;
					queue[tail++] = v;
				}
			}
		}
		if (level[SINK] < 0)
			break;
		memcpy(it, g->adj_start, (size_t)g->n * sizeof *it);
		/* the blocking flow: ST holds the path's arcs */
		uint32_t d = 0, u = SRC;
		for (;;) {
			if (u == SINK) {
				int64_t f = INF;
				for (uint32_t i = 0; i < d; i++)
					if (g->res[st[i]] < f)
						f = g->res[st[i]];
				uint32_t back = d;
				for (uint32_t i = 0; i < d; i++) {
					g->res[st[i]] -= f;
					g->res[st[i] ^ 1] += f;
					if (g->res[st[i]] == 0 && back == d)
						back = i;
				}
				d = back;
				u = arc_tail(g, st[d]);
				continue;
			}
			uint32_t a = NO;
			for (; it[u] < g->adj_start[u + 1]; it[u]++) {
				uint32_t b = g->adj[it[u]];
				if (g->res[b] > 0 && level[arc_head(g, b)] == level[u] + 1) {
					a = b;
					break;
				}
			}
			if (a != NO) {
				st[d++] = a;
				u = arc_head(g, a);
				continue;
			}
			level[u] = -1; /* dead end for this phase */
			if (d == 0)
				break;
			u = arc_tail(g, st[--d]);
			it[u]++;
		}
	}
	free(level);
	free(it);
	free(queue);
	free(st);
	return 0;
}

/* The cluster whose lists hold cluster item AT. */
static uint32_t item_cluster(const heap *h, uint32_t at)
{
	uint32_t lo = 0, hi = h->nclusters - 1;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo + 1) / 2;
		if (h->clusters[mid].members <= at)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

static void ref_of_label(const heap *h, uint64_t lab, cut_ref *c)
{
	uint32_t id = RGRAPH_LABEL_ID(lab);
	c->id = id;
	switch (RGRAPH_LABEL_TYPE(lab)) {
	case RL_REF:
		c->kind = CK_REF;
		c->holder = heap_ref_source(h, id);
		c->target = h->ref_dst[id];
		break;
	case RL_GCREF:
		c->kind = CK_GCREF;
		c->holder = OBJ_NONE;
		c->target = h->gcrefs[id].dst;
		break;
	case RL_LIST:
		c->kind = CK_LIST;
		c->cluster = item_cluster(h, id);
		c->holder = h->clusters[c->cluster].root;
		c->target = h->cluster_items[id];
		break;
	default:
		c->kind = CK_ROOT;
		c->holder = c->target = (obj_t)id;
		break;
	}
}

static int cmp_ref(const void *a, const void *b)
{
	const cut_ref *x = a, *y = b;
	uint64_t kx = x->kept == UINT32_MAX ? 0 : x->kept_bytes, ky = y->kept == UINT32_MAX ? 0 : y->kept_bytes;
	if (kx != ky)
		return kx < ky ? 1 : -1;
	if (x->kind != y->kind)
		return x->kind - y->kind;
	return (x->id > y->id) - (x->id < y->id);
}

/* Collapse the runs of one object in a chain of N (a virtual node stands
 * for an object next to it: a root's reason, a cluster's parts, a target),
 * keeping each run's first label (LAB may be NULL); the new length. */
static uint32_t collapse(obj_t *o, uint64_t *lab, uint32_t n)
{
	uint32_t m = 0;
	for (uint32_t k = 0; k < n; k++) {
		if (m && o[m - 1] == o[k])
			continue;
		o[m] = o[k];
		if (lab)
			lab[m] = lab[k];
		m++;
	}
	return m;
}

/* A chain of nodes, from PARENT arcs back from V to the first node whose
 * parent is none or SRC, as objects root end first; malloc'd. */
static int chain_back(const net *g, const uint32_t *parent, uint32_t v, obj_t **out, uint32_t *n)
{
	uint32_t len = 0;
	for (uint32_t u = v; u != SRC && u < g->n && parent[u] < NO - 1; u = arc_tail(g, parent[u]))
		len++;
	*out = malloc(((size_t)len + 1) * sizeof **out);
	if (!*out)
		return -1;
	*n = len;
	for (uint32_t u = v, k = len; k > 0; u = arc_tail(g, parent[u]))
		(*out)[--k] = g->obj[u];
	*n = collapse(*out, NULL, len);
	return 0;
}

/* Breadth-first from node V over the sink side (SIDE 0) without crossing
 * the cut, marking STAMP[node] = MARK: the targets met (their count and
 * bytes into KEPT and BYTES, when not NULL), PARENT the arc each node was
 * reached by.  Stops at the first target when FIRST_ONLY.  Returns the
 * first target met (NO: none); *STEPS grows by the arcs looked at. */
static uint32_t sink_walk(const heap *h, const net *g, const uint8_t *side, uint32_t v, uint32_t *stamp, uint32_t mark,
			  uint32_t *queue, uint32_t *parent, int first_only, uint32_t *kept, uint64_t *bytes,
			  uint64_t *steps)
{
	size_t head = 0, tail = 0;
	queue[tail++] = v;
	stamp[v] = mark;
	parent[v] = NO;
	uint32_t first = NO;
	while (head < tail) {
		uint32_t u = queue[head++];
		if (g->is_target[u]) {
			if (kept) {
				(*kept)++;
				*bytes += h->size[g->obj[u]];
			}
			if (first == NO)
				first = u;
			if (first_only)
				return first;
		}
		for (uint32_t j = g->adj_start[u]; j < g->adj_start[u + 1]; j++) {
			uint32_t a = g->adj[j], w = arc_head(g, a);
			(*steps)++;
			if (!(a & 1) && w != SINK && !side[w] && stamp[w] != mark) {
				stamp[w] = mark;
				parent[w] = a;
				queue[tail++] = w;
			}
		}
	}
	return first;
}

/* What each cut reference keeps alone: breadth-first from its target over
 * the sink side, the targets met, within a budget of arcs looked at. */
#define KEPT_BUDGET 16000000u
static void count_kept(const heap *h, const net *g, const uint8_t *side, uint32_t *stamp, uint32_t *queue,
		       uint32_t *parent, cut_result *out)
{
	uint64_t steps = 0;
	for (uint32_t k = 0; k < out->nrefs; k++) {
		cut_ref *c = &out->refs[k];
		if (steps > KEPT_BUDGET) {
			c->kept = UINT32_MAX;
			out->kept_partial = 1;
			continue;
		}
		sink_walk(h, g, side, c->node, stamp, k + 1, queue, parent, 0, &c->kept, &c->kept_bytes, &steps);
	}
}

/* The chains of the first N cut references (the drawing's): from ⊤ to
 * the holder over the source side (one breadth-first walk, PARENT), from
 * the target to the first target it keeps over the sink side.  STAMP
 * holds marks up to the number of references: these go on from there. */
static int chains(const heap *h, const net *g, const uint8_t *side, uint32_t *stamp, uint32_t *queue,
		  uint32_t *parent, uint32_t *down_parent, cut_result *out, uint32_t n)
{
	walk_from_src(g, source_side_arc, side, parent, queue);
	uint64_t steps = 0;
	for (uint32_t k = 0; k < n && k < out->nrefs; k++) {
		cut_ref *c = &out->refs[k];
		uint32_t u = c->kind == CK_ROOT || c->kind == CK_GCREF ? NO : g->eu[c->edge];
		if (u != NO && side[u] && parent[u] != NO && chain_back(g, parent, u, &c->up, &c->nup))
			return -1;
		uint32_t v = c->node;
		uint32_t first = sink_walk(h, g, side, v, stamp, out->nrefs + 1 + k, queue, down_parent, 1, NULL, NULL,
					   &steps);
		if (first == NO)
			continue;
		uint32_t len = 0;
		for (uint32_t w = first; w != v; w = arc_tail(g, down_parent[w]))
			len++;
		c->down = malloc(((size_t)len + 1) * sizeof *c->down);
		if (!c->down)
			return -1;
		uint32_t at = len + 1;
		for (uint32_t w = first;; w = arc_tail(g, down_parent[w])) {
			c->down[--at] = g->obj[w];
			if (w == v)
				break;
		}
		c->ndown = collapse(c->down, NULL, len + 1);
	}
	return 0;
}

/* The lower bound: the network without the edges whose effect hangs on
 * the GC's order, over the same ancestors (G's first N nodes: OBJ copied
 * by lower_begin, NODE shared and only read), its max flow into FLOW (INF:
 * held by uncuttable edges alone).  lower_run is a job: it can run beside
 * the main network's build, which never writes NODE. */
typedef struct lower_job {
	const heap *h;
	const gc_result *r;
	const cut_options *opt;
	net l;
	uint32_t nt;
	int64_t flow;
	int rc; /* 0, or -1 when out of memory */
	atomic_int unwanted; /* set when the main network needs no bound: stop early */
} lower_job;

static int lower_begin(lower_job *j, const heap *h, const gc_result *r, const cut_options *opt, const net *g,
		       uint32_t n, uint32_t nt)
{
	memset(j, 0, sizeof *j);
	j->h = h;
	j->r = r;
	j->opt = opt;
	j->nt = nt;
	j->rc = -1;
	j->l.n = n;
	j->l.node = g->node;
	j->l.obj = malloc(((size_t)n + 1) * sizeof *j->l.obj);
	j->l.is_target = malloc((size_t)n + 1);
	if (!j->l.obj || !j->l.is_target)
		return -1;
	memcpy(j->l.obj, g->obj, (size_t)n * sizeof *j->l.obj);
	memset(j->l.is_target, 0, (size_t)n + 1);
	return 0;
}

static void *lower_run(void *arg)
{
	lower_job *j = arg;
	net *l = &j->l;
	int flags;
	uint32_t *parent = NULL, *queue = NULL;
	if (atomic_load(&j->unwanted) || cut_net_build(j->h, j->r, j->opt, l, j->nt, 1, &flags))
		goto done;
	if (atomic_load(&j->unwanted)) { /* its memory back at once */
		l->node = NULL;
		net_free(l);
		goto done;
	}
	parent = malloc(((size_t)l->n + 1) * sizeof *parent);
	queue = malloc(((size_t)l->n + 1) * sizeof *queue);
	if (!parent || !queue)
		goto done;
	walk_uncuttable(l, parent, queue);
	if (parent[SINK] != NO) {
		j->flow = INF;
	} else {
		if (max_flow(l))
			goto done;
		j->flow = 0;
		for (uint32_t e = 0; e < l->m; e++)
			if (l->eu[e] == SRC)
				j->flow += l->cap[e] - l->res[2 * e];
	}
	j->rc = 0;
done:
	free(parent);
	free(queue);
	return NULL;
}

static void lower_end(lower_job *j)
{
	j->l.node = NULL;
	net_free(&j->l);
}

/* The lower bound's flow into *LOW: JB's, waited for (*STATE 2: started
 * beside), or computed here (*STATE 0); *STATE 1 after (lower_end due). */
static int lower_bound(lower_job *j, job *jb, int *state, const heap *h, const gc_result *r, const cut_options *opt,
		       const net *g, uint32_t n, uint32_t nt, int64_t *low)
{
	if (*state == 0) {
		*state = 1;
		if (lower_begin(j, h, r, opt, g, n, nt))
			return -1;
		lower_run(j);
	} else if (*state == 2) {
		job_wait(jb);
		*state = 1;
	}
	if (j->rc)
		return -1;
	*low = j->flow;
	return 0;
}

int cut_compute(const heap *h, const gc_result *r, const cut_options *opt, const obj_t *targets, uint32_t n,
		cut_result *out)
{
	memset(out, 0, sizeof *out);
	out->ntargets = n;
	net g = {0};
	int rc = -1;
	uint32_t *parent = NULL, *queue = NULL, *stamp = NULL, *down = NULL;
	uint8_t *side = NULL;
	lower_job lj;
	job lower;
	int lower_state = 0; /* lower_bound's */
	g.node = malloc(((size_t)h->slots + 1) * sizeof *g.node);
	g.obj = malloc(((size_t)n + 1) * sizeof *g.obj);
	if (!g.node || !g.obj)
		goto done;
	for (uint32_t i = 0; i < h->slots; i++)
		g.node[i] = NO;
	for (uint32_t k = 0; k < n; k++) {
		obj_t t = targets[k];
		if (!heap_exists(h, t) || !r->reachable[t] || g.node[t] != NO)
			continue;
		g.node[t] = 0; /* numbered by ancestors() */
		g.obj[g.n++] = t;
		out->nalive++;
		out->alive_bytes += h->size[t];
	}
	for (uint32_t k = 0; k < g.n; k++)
		g.node[g.obj[k]] = NO;
	if (out->nalive == 0) {
		rc = 0;
		goto done;
	}
	trace_point("cut: start");
	uint32_t nt = g.n;
	uint8_t *mark = calloc((size_t)h->slots + 1, 1);
	if (!mark || ancestor_set(h, r, &g, nt, opt->threads > 1, opt->index_only, mark) ||
	    number_ancestors(h, &g, nt, mark)) {
		free(mark);
		goto done;
	}
	free(mark);
	trace_point("cut: ancestors");
	g.is_target = calloc((size_t)g.n + 1, 1);
	if (!g.is_target)
		goto done;
	for (uint32_t k = 0; k < nt; k++)
		g.is_target[2 + k] = 1;
	uint32_t nbase = g.n;
	/* on a heap with clusters the network is likely to be guarded: its
	 * lower bound is built beside it, on a second core */
	if (h->nclusters > 0 && opt->threads > 1) {
		lower_state = 1;
		if (lower_begin(&lj, h, r, opt, &g, nbase, nt))
			goto done;
		lower_state = 2;
		job_start(&lower, lower_run, &lj);
	}
	int flags = 0;
	if (cut_net_build(h, r, opt, &g, nt, 0, &flags))
		goto done;
	if (lower_state == 2 && !(flags & NET_GUARDED))
		atomic_store(&lj.unwanted, 1);
	trace_point("cut: network");
	out->nodes = g.n;
	out->arcs = g.m;
	parent = malloc(((size_t)g.n + 1) * sizeof *parent);
	queue = malloc(((size_t)g.n + 1) * sizeof *queue);
	side = calloc((size_t)g.n + 1, 1);
	if (!parent || !queue || !side)
		goto done;
	walk_uncuttable(&g, parent, queue);
	if (parent[SINK] != NO) {
		/* held by uncuttable edges alone: the chain */
		out->infinite = 1;
		uint32_t len = 0;
		for (uint32_t u = arc_tail(&g, parent[SINK]); u != SRC; u = arc_tail(&g, parent[u]))
			len++;
		out->hold = malloc(((size_t)len + 1) * sizeof *out->hold);
		out->hold_label = malloc(((size_t)len + 1) * sizeof *out->hold_label);
		if (!out->hold || !out->hold_label)
			goto done;
		out->nhold = len;
		for (uint32_t u = arc_tail(&g, parent[SINK]), k = len; u != SRC; u = arc_tail(&g, parent[u])) {
			out->hold[--k] = g.obj[u];
			out->hold_label[k] = g.lab[parent[u] >> 1];
		}
		out->nhold = collapse(out->hold, out->hold_label, len);
		int64_t low = INF;
		if ((flags & NET_GUARDED) && lower_bound(&lj, &lower, &lower_state, h, r, opt, &g, nbase, nt, &low))
			goto done;
		out->unproven = low != INF;
		rc = 0;
		goto done;
	}
	if (max_flow(&g))
		goto done;
	{
		int64_t flow = 0, low = 0;
		for (uint32_t e = 0; e < g.m; e++)
			if (g.eu[e] == SRC)
				flow += g.cap[e] - g.res[2 * e];
		low = flow;
		if ((flags & NET_GUARDED) && lower_bound(&lj, &lower, &lower_state, h, r, opt, &g, nbase, nt, &low))
			goto done;
		out->unproven = low != flow;
	}
	trace_point("cut: max flow");
	/* the cut nearest the targets: the sink side is what reaches the sink
	 * in the residual graph, so the cut frees as little else as it can */
	for (uint32_t u = 0; u < g.n; u++)
		side[u] = 1;
	{
		size_t head = 0, tail = 0;
		queue[tail++] = SINK;
		side[SINK] = 0;
		while (head < tail) {
			uint32_t v = queue[head++];
			for (uint32_t j = g.adj_start[v]; j < g.adj_start[v + 1]; j++) {
				uint32_t a = g.adj[j], w = arc_head(&g, a);
				if (g.res[a ^ 1] > 0 && side[w]) {
					side[w] = 0;
					queue[tail++] = w;
				}
			}
		}
	}
	vec cut = {0};
	for (uint32_t e = 0; e < g.m; e++)
		if (side[g.eu[e]] && !side[g.ev[e]] && vec_push(&cut, e)) {
			vec_free(&cut);
			goto done;
		}
	out->refs = calloc(cut.n + 1, sizeof *out->refs);
	if (!out->refs) {
		vec_free(&cut);
		goto done;
	}
	for (size_t k = 0; k < cut.n; k++) {
		uint32_t e = cut.v[k];
		cut_ref *c = &out->refs[out->nrefs++];
		ref_of_label(h, g.lab[e], c);
		c->node = g.ev[e];
		c->edge = e;
		c->cost = (uint32_t)g.cap[e];
		out->cost += (uint64_t)g.cap[e];
	}
	vec_free(&cut);
	if (opt->proof)
		cut_proof_start(opt->proof, out);
	stamp = calloc((size_t)g.n + 1, sizeof *stamp);
	if (!stamp)
		goto done;
	count_kept(h, &g, side, stamp, queue, parent, out);
	trace_point("cut: kept");
	qsort(out->refs, out->nrefs, sizeof *out->refs, cmp_ref);
	if (opt->chains) {
		down = malloc(((size_t)g.n + 1) * sizeof *down);
		if (!down || chains(h, &g, side, stamp, queue, parent, down, out, opt->chains))
			goto done;
	}
	rc = 0;
done:
	if (lower_state == 2)
		job_wait(&lower);
	if (lower_state)
		lower_end(&lj);
	free(parent);
	free(queue);
	free(side);
	free(stamp);
	free(down);
	net_free(&g);
	if (rc)
		cut_free(out);
	return rc;
}

void cut_free(cut_result *c)
{
	for (uint32_t k = 0; k < c->nrefs; k++) {
		free(c->refs[k].up);
		free(c->refs[k].down);
	}
	free(c->refs);
	free(c->hold);
	free(c->hold_label);
	memset(c, 0, sizeof *c);
}

int cut_changes(const heap *h, const cut_result *c, whatif_change **out, size_t *n)
{
	*n = 0;
	*out = calloc((size_t)c->nrefs + 1, sizeof **out);
	if (!*out)
		return -1;
	for (uint32_t k = 0; k < c->nrefs; k++) {
		const cut_ref *x = &c->refs[k];
		whatif_change w = {0};
		if (x->kind == CK_REF)
			w = (whatif_change){WI_NULL_RECORD, x->holder, 0, x->id - h->ref_start[x->holder]};
		else if (x->kind == CK_GCREF)
			w = (whatif_change){WI_DROP_GCREF, OBJ_NONE, 0, x->id};
		else if (x->kind == CK_LIST)
			w = (whatif_change){WI_DROP_LIST_ENTRY, OBJ_NONE, 0, x->id};
		else
			w = (whatif_change){WI_UNROOT, x->holder, 0, 0};
		(*out)[(*n)++] = w;
	}
	return 0;
}

static void *proof_run(void *arg)
{
	cut_proof *pf = arg;
	pf->rc = whatif_run(pf->h, pf->before, &pf->opt, pf->changes, pf->nchanges, pf->w);
	for (uint32_t k = 0; pf->rc == 0 && k < pf->n; k++)
		*pf->survivors += heap_exists(pf->h, pf->targets[k]) && pf->w->after.reachable[pf->targets[k]];
	return NULL;
}

void cut_proof_init(cut_proof *pf, const heap *h, const gc_result *before, const gc_options *opt,
		    const obj_t *targets, uint32_t n, whatif_result *w, uint32_t *survivors)
{
	memset(pf, 0, sizeof *pf);
	pf->h = h;
	pf->before = before;
	pf->opt = *opt;
	pf->opt.defer_retention = 1; /* only reachability is read */
	pf->opt.no_weak_lists = 1;
	pf->targets = targets;
	pf->n = n;
	pf->w = w;
	pf->survivors = survivors;
	*survivors = 0;
	pf->rc = -1;
}

void cut_proof_start(cut_proof *pf, const cut_result *c)
{
	pf->begun = 1;
	if (cut_changes(pf->h, c, &pf->changes, &pf->nchanges))
		return;
	if (pf->opt.threads > 1) {
		pf->started = 1;
		job_start(&pf->j, proof_run, pf);
	} else {
		proof_run(pf); /* one thread asked for: here, now */
	}
}

int cut_proof_wait(cut_proof *pf)
{
	if (pf->started)
		job_wait(&pf->j);
	pf->started = 0;
	free(pf->changes);
	pf->changes = NULL;
	return pf->rc;
}

int cut_prove(const heap *h, const gc_result *before, const gc_options *opt, const cut_result *c,
	      const obj_t *targets, uint32_t n, whatif_result *w, uint32_t *survivors)
{
	cut_proof pf;
	cut_proof_init(&pf, h, before, opt, targets, n, w, survivors);
	cut_proof_start(&pf, c);
	return cut_proof_wait(&pf);
}
