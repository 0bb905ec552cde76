/* cut.c — the minimum cut between the roots and a set of objects over the
 * gc retention graph, and its proof by the GC rerun (see cut.h).
 *
 * The flow network (struct net): node 0 is ⊤ (the source), node 1 the
 * sink, nodes 2.. the objects of the ancestor superset (NODE maps a slot to
 * its node, OBJ back).  Edge E runs EU[E] -> EV[E] with capacity CAP[E]
 * (INF: uncuttable) and the retention graph's label LAB[E]; it is two arcs,
 * 2E forward and 2E+1 backward, whose residual capacities are RES[arc].
 * ADJ lists the arcs leaving each node (ADJ_START, compressed rows).  Every
 * walk over it is a breadth-first queue or an explicit stack. */
#include "analysis/cut.h"

#include <stdlib.h>
#include <string.h>

#include "analysis/retention_graph.h"
#include "base/base.h"
#include "snapshot/snapshot.h"

#define INF ((int64_t)1 << 60)
#define NO UINT32_MAX
#define SRC 0u
#define SINK 1u

typedef struct net {
	uint32_t n, m, mcap;
	obj_t *obj;
	uint32_t *node;
	uint32_t *eu, *ev;
	int64_t *cap, *res;
	uint64_t *lab;
	uint32_t *adj_start, *adj;
	uint8_t *is_target; /* per node */
} net;

static void net_free(net *g)
{
	free(g->obj);
	free(g->node);
	free(g->eu);
	free(g->ev);
	free(g->cap);
	free(g->res);
	free(g->lab);
	free(g->adj_start);
	free(g->adj);
	free(g->is_target);
	memset(g, 0, sizeof *g);
}

static inline uint32_t arc_tail(const net *g, uint32_t a) { return a & 1 ? g->ev[a >> 1] : g->eu[a >> 1]; }
static inline uint32_t arc_head(const net *g, uint32_t a) { return a & 1 ? g->eu[a >> 1] : g->ev[a >> 1]; }

long long cut_label_cost(const heap *h, const gc_result *r, const cut_options *opt, uint64_t label)
{
	uint32_t id = RGRAPH_LABEL_ID(label);
	switch (RGRAPH_LABEL_TYPE(label)) {
	case RL_REF:
		return h->ref_kind[id] == REF_STRONG || h->ref_kind[id] == REF_ARO ? 1 : CUT_NEVER;
	case RL_GCREF:
	case RL_LIST:
		return 1;
	case RL_ROOT: {
		obj_t x = (obj_t)id;
		int k = root_kind_static(h, x, opt->keep_flags, r->gc_target[x]);
		if (k == RK_GCOBJECT || k == RK_NONE)
			return 0; /* its "g" records are the edges that count */
		if (k == RK_DISREGARD || (h->iflags[x] & IF_INTERNAL_KEEP))
			return CUT_NEVER;
		return opt->root_cost;
	}
	default:
		return CUT_NEVER; /* Class, Outer, membership, hand-over */
	}
}

/* What a label's edge is, in words (the chain that holds an infinite cut). */
const char *cut_label_words(const heap *h, uint64_t lab, char *buf, size_t cap)
{
	uint32_t id = RGRAPH_LABEL_ID(lab);
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

static int add_edge(net *g, uint32_t u, uint32_t v, int64_t cap, uint64_t lab)
{
	if (g->m == g->mcap) {
		size_t c = g->mcap ? (size_t)g->mcap * 2 : 1024;
		if (c > UINT32_MAX / 2)
			return -1;
		uint32_t *eu = realloc(g->eu, c * sizeof *eu);
		if (eu)
			g->eu = eu;
		uint32_t *ev = realloc(g->ev, c * sizeof *ev);
		if (ev)
			g->ev = ev;
		int64_t *cp = realloc(g->cap, c * sizeof *cp);
		if (cp)
			g->cap = cp;
		uint64_t *lb = realloc(g->lab, c * sizeof *lb);
		if (lb)
			g->lab = lb;
		if (!eu || !ev || !cp || !lb)
			return -1;
		g->mcap = (uint32_t)c;
	}
	g->eu[g->m] = u;
	g->ev[g->m] = v;
	g->cap[g->m] = cap;
	g->lab[g->m] = lab;
	g->m++;
	return 0;
}

/* Pairs (object, what points at it) sorted by object: the reverse of the
 * hand-overs and of the cluster list entries. */
typedef struct pair {
	obj_t to;
	uint32_t from;
} pair;

static int cmp_pair(const void *a, const void *b)
{
	const pair *x = a, *y = b;
	return x->to < y->to ? -1 : x->to > y->to ? 1 : (x->from > y->from) - (x->from < y->from);
}

static size_t pair_first(const pair *p, size_t n, obj_t x)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (p[mid].to < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The reverse indexes the ancestor search reads beside the heap's own. */
typedef struct rev {
	uint32_t *inst_start; /* instances by class, compressed rows */
	obj_t *inst;
	pair *handoff; /* (actor, Level) */
	size_t nhandoff;
	pair *list;    /* (list entry's object, cluster) */
	size_t nlist;
} rev;

static void rev_free(rev *x)
{
	free(x->inst_start);
	free(x->inst);
	free(x->handoff);
	free(x->list);
}

static int rev_build(const heap *h, const gc_result *r, rev *x)
{
	memset(x, 0, sizeof *x);
	x->inst_start = calloc((size_t)h->slots + 2, sizeof *x->inst_start);
	x->inst = malloc(((size_t)h->slots + 1) * sizeof *x->inst);
	x->handoff = malloc(((size_t)r->nhandoff + 1) * sizeof *x->handoff);
	size_t nlist = 0;
	for (uint32_t c = 0; c < h->nclusters; c++)
		nlist += (size_t)h->clusters[c].n_refs + h->clusters[c].n_mutables;
	x->list = malloc((nlist + 1) * sizeof *x->list);
	if (!x->inst_start || !x->inst || !x->handoff || !x->list)
		return -1;
	for (uint32_t i = 0; i < h->slots; i++)
		if (h->cls[i] >= 0)
			x->inst_start[h->cls[i] + 2]++;
	for (uint32_t i = 0; i < h->slots; i++)
		x->inst_start[i + 2] += x->inst_start[i + 1];
	for (uint32_t i = 0; i < h->slots; i++)
		if (h->cls[i] >= 0)
			x->inst[x->inst_start[h->cls[i] + 1]++] = (obj_t)i;
	for (uint32_t j = 0; j < r->nhandoff; j++)
		x->handoff[x->nhandoff++] = (pair){h->ref_dst[r->handoff[j].ref], (uint32_t)r->handoff[j].level};
	for (uint32_t c = 0; c < h->nclusters; c++) {
		const cluster *cl = &h->clusters[c];
		for (uint32_t k = 0; k < cl->n_refs + cl->n_mutables; k++)
			x->list[x->nlist++] =
				(pair){h->cluster_items[k < cl->n_refs ? cl->refs + k : cl->mutables + k - cl->n_refs], c};
	}
	qsort(x->handoff, x->nhandoff, sizeof *x->handoff, cmp_pair);
	qsort(x->list, x->nlist, sizeof *x->list, cmp_pair);
	return 0;
}

/* The ancestor superset: from the kept targets backwards through every
 * kind of edge, only through objects the GC keeps (no other object is on
 * a path from ⊤).  Numbers them as nodes 2.. of G. */
static int ancestors(const heap *h, const gc_result *r, const rev *x, net *g)
{
	vec q = {0};
	for (uint32_t k = 0; k < g->n; k++)
		if (vec_push(&q, (uint32_t)g->obj[k]))
			goto oom;
	g->n = 0;
	for (size_t at = 0; at < q.n; at++)
		g->node[q.v[at]] = 2 + (uint32_t)at;
#define VISIT(p)                                                                                    \
	do {                                                                                        \
		obj_t p_ = (p);                                                                     \
		if (p_ >= 0 && g->node[p_] == NO && r->reachable[p_]) {                             \
			g->node[p_] = 2 + (uint32_t)q.n;                                            \
			if (vec_push(&q, (uint32_t)p_))                                             \
				goto oom;                                                           \
		}                                                                                   \
	} while (0)
	for (size_t at = 0; at < q.n; at++) {
		obj_t t = (obj_t)q.v[at];
		for (uint32_t k = h->rev_start[t]; k < h->rev_start[t + 1]; k++) {
			int kind = h->ref_kind[h->rev_ref[k]];
			if (kind == REF_STRONG || kind == REF_ARO || kind == REF_IMMUTABLE)
				VISIT(h->rev_src[k]);
		}
		for (uint32_t k = h->child_start[t]; k < h->child_start[t + 1]; k++)
			VISIT(h->child[k]);
		for (uint32_t k = x->inst_start[t]; k < x->inst_start[t + 1]; k++)
			VISIT(x->inst[k]);
		for (size_t k = pair_first(x->handoff, x->nhandoff, t); k < x->nhandoff && x->handoff[k].to == t; k++)
			VISIT((obj_t)x->handoff[k].from);
		for (size_t k = pair_first(x->list, x->nlist, t); k < x->nlist && x->list[k].to == t; k++)
			VISIT(h->clusters[x->list[k].from].root);
		int32_t c = heap_cluster(h, t);
		if (c >= 0) {
			const cluster *cl = &h->clusters[c];
			if (cl->root == t)
				for (uint32_t k = 0; k < cl->n_members; k++)
					VISIT(h->cluster_items[cl->members + k]);
			else
				VISIT(cl->root);
		}
	}
#undef VISIT
	free(g->obj);
	g->obj = malloc((q.n + 2) * sizeof *g->obj);
	if (!g->obj)
		goto oom;
	g->obj[SRC] = g->obj[SINK] = OBJ_NONE;
	for (size_t k = 0; k < q.n; k++)
		g->obj[2 + k] = (obj_t)q.v[k];
	g->n = 2 + (uint32_t)q.n;
	vec_free(&q);
	return 0;
oom:
	vec_free(&q);
	return -1;
}

static int64_t capacity(long long cost)
{
	return cost == CUT_NEVER ? INF : (int64_t)cost;
}

/* The object whose own edge LABEL is (Class, Outer, "r" record, hand-over). */
static obj_t label_source(const heap *h, const gc_result *r, uint64_t lab)
{
	uint32_t id = RGRAPH_LABEL_ID(lab);
	switch (RGRAPH_LABEL_TYPE(lab)) {
	case RL_CLASS:
	case RL_OUTER: return (obj_t)id;
	case RL_REF: return heap_ref_source(h, id);
	case RL_HANDOFF: return r->handoff[id].level;
	default: return OBJ_NONE;
	}
}

/* The arcs: ⊤'s labelled successors, each node's labelled row, the sink.
 * An edge of an object X that hangs off ⊤ (the GC traced X on no kept
 * object's behalf, ugc-gc(7) §4.1) goes through a node of its own for X
 * when X is a root (a rooted cluster member): ⊤ -> X's node by X's root
 * reasons, then X's edges, so that unrooting X is one way to cut them. */
static int build_edges(const heap *h, const gc_result *r, const cut_options *opt, const rgraph *rg, net *g)
{
	uint32_t *vnode = NULL;
	size_t cap = g->n; /* room in g->obj and g->is_target, doubled as nodes are added */
	for (size_t k = 0; k < rg->top_succ.n; k++) {
		uint64_t lab = rg->top_label[k];
		uint32_t v = g->node[rg->top_succ.v[k]];
		int64_t c = v == NO ? 0 : capacity(cut_label_cost(h, r, opt, lab));
		if (!c)
			continue;
		obj_t x = label_source(h, r, lab);
		uint32_t from = SRC;
		if (x >= 0 && root_kind_static(h, x, opt->keep_flags, 0) != RK_NONE) {
			if (!vnode) {
				vnode = malloc(((size_t)h->slots + 1) * sizeof *vnode);
				if (!vnode)
					return -1;
				for (uint32_t i = 0; i < h->slots; i++)
					vnode[i] = NO;
			}
			if (vnode[x] == NO && g->n + 1 >= cap) {
				cap = 2 * cap + 2;
				obj_t *o = realloc(g->obj, cap * sizeof *o);
				uint8_t *t = o ? realloc(g->is_target, cap) : NULL;
				if (o)
					g->obj = o;
				if (t)
					g->is_target = t;
				if (!o || !t) {
					free(vnode);
					return -1;
				}
			}
			if (vnode[x] == NO) {
				vnode[x] = g->n;
				g->obj[g->n] = x;
				g->is_target[g->n] = 0;
				g->n++;
				int64_t rc = capacity(cut_label_cost(h, r, opt, RGRAPH_LABEL(RL_ROOT, (uint32_t)x)));
				if (rc == 0)
					rc = INF; /* no root reason to drop: it is not what holds */
				if (add_edge(g, SRC, vnode[x], rc, RGRAPH_LABEL(RL_ROOT, (uint32_t)x))) {
					free(vnode);
					return -1;
				}
			}
			from = vnode[x];
		}
		if (add_edge(g, from, v, c, lab)) {
			free(vnode);
			return -1;
		}
	}
	free(vnode);
	size_t room = 0;
	uint32_t *succ = NULL;
	uint64_t *lab = NULL;
	int rc = 0;
	for (uint32_t u = 2; u < g->n && rc == 0; u++) {
		uint64_t bound = rgraph_succ_bound(rg, (uint32_t)g->obj[u]);
		if (bound > room) {
			free(succ);
			free(lab);
			room = (size_t)bound * 2;
			succ = malloc(room * sizeof *succ);
			lab = malloc(room * sizeof *lab);
			if (!succ || !lab) {
				rc = -1;
				break;
			}
		}
		uint32_t n = rgraph_succ_labelled(rg, (uint32_t)g->obj[u], succ, lab);
		for (uint32_t k = 0; k < n && rc == 0; k++) {
			uint32_t v = g->node[succ[k]];
			int64_t c = v == NO ? 0 : capacity(cut_label_cost(h, r, opt, lab[k]));
			if (c)
				rc = add_edge(g, u, v, c, lab[k]);
		}
		if (rc == 0 && g->is_target[u])
			rc = add_edge(g, u, SINK, INF, 0);
	}
	free(succ);
	free(lab);
	if (rc)
		return -1;
	/* the arcs by tail */
	g->res = malloc(((size_t)g->m * 2 + 1) * sizeof *g->res);
	g->adj_start = calloc((size_t)g->n + 1, sizeof *g->adj_start);
	g->adj = malloc(((size_t)g->m * 2 + 1) * sizeof *g->adj);
	if (!g->res || !g->adj_start || !g->adj)
		return -1;
	for (uint32_t e = 0; e < g->m; e++) {
		g->res[2 * e] = g->cap[e];
		g->res[2 * e + 1] = 0;
		g->adj_start[g->eu[e] + 1]++;
		g->adj_start[g->ev[e] + 1]++;
	}
	for (uint32_t u = 0; u + 1 < g->n + 1; u++)
		g->adj_start[u + 1] += g->adj_start[u];
	uint32_t *fill = malloc(((size_t)g->n + 1) * sizeof *fill);
	if (!fill)
		return -1;
	memcpy(fill, g->adj_start, (size_t)g->n * sizeof *fill);
	for (uint32_t e = 0; e < g->m; e++) {
		g->adj[fill[g->eu[e]]++] = 2 * e;
		g->adj[fill[g->ev[e]]++] = 2 * e + 1;
	}
	free(fill);
	return 0;
}

/* Breadth-first from SRC over the uncuttable edges; PARENT (per node, the
 * arc it was reached by, NO for unreached, NO - 1 for SRC) filled. */
static void walk_uncuttable(const net *g, uint32_t *parent, uint32_t *queue)
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
			if (!(a & 1) && g->cap[a >> 1] == INF && parent[v] == NO) {
				parent[v] = a;
				queue[tail++] = v;
			}
		}
	}
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

static void ref_of_label(const heap *h, uint64_t lab, obj_t target, cut_ref *c)
{
	uint32_t id = RGRAPH_LABEL_ID(lab);
	c->id = id;
	c->target = target;
	switch (RGRAPH_LABEL_TYPE(lab)) {
	case RL_REF:
		c->kind = CK_REF;
		c->holder = heap_ref_source(h, id);
		break;
	case RL_GCREF:
		c->kind = CK_GCREF;
		c->holder = OBJ_NONE;
		break;
	case RL_LIST:
		c->kind = CK_LIST;
		c->cluster = item_cluster(h, id);
		c->holder = h->clusters[c->cluster].root;
		break;
	default:
		c->kind = CK_ROOT;
		c->holder = (obj_t)id;
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
	return 0;
}

/* What each cut reference keeps alone: breadth-first from its target over
 * the sink side (SIDE 0), the targets met; and the chain to the first. */
#define KEPT_BUDGET 16000000u
static int count_kept(const heap *h, const net *g, const uint8_t *side, cut_result *out)
{
	uint32_t *stamp = calloc((size_t)g->n + 1, sizeof *stamp), *queue = malloc(((size_t)g->n + 1) * sizeof *queue);
	uint32_t *parent = malloc(((size_t)g->n + 1) * sizeof *parent);
	if (!stamp || !queue || !parent) {
		free(stamp);
		free(queue);
		free(parent);
		return -1;
	}
	uint64_t steps = 0;
	int rc = 0;
	for (uint32_t k = 0; k < out->nrefs && rc == 0; k++) {
		cut_ref *c = &out->refs[k];
		uint32_t v = c->node;
		if (steps > KEPT_BUDGET) {
			c->kept = UINT32_MAX;
			out->kept_partial = 1;
			continue;
		}
		size_t head = 0, tail = 0;
		queue[tail++] = v;
		stamp[v] = k + 1;
		parent[v] = NO;
		uint32_t first = NO;
		while (head < tail) {
			uint32_t u = queue[head++];
			if (g->is_target[u]) {
				c->kept++;
				c->kept_bytes += h->size[g->obj[u]];
				if (first == NO)
					first = u;
			}
			for (uint32_t j = g->adj_start[u]; j < g->adj_start[u + 1]; j++) {
				uint32_t a = g->adj[j], w = arc_head(g, a);
				steps++;
				if (!(a & 1) && w != SINK && !side[w] && stamp[w] != k + 1) {
					stamp[w] = k + 1;
					parent[w] = a;
					queue[tail++] = w;
				}
			}
		}
		if (first != NO) {
			/* the chain from V to FIRST */
			uint32_t len = 0;
			for (uint32_t u = first; u != v; u = arc_tail(g, parent[u]))
				len++;
			c->down = malloc(((size_t)len + 1) * sizeof *c->down);
			if (!c->down) {
				rc = -1;
				break;
			}
			c->ndown = len + 1;
			uint32_t at = len + 1;
			for (uint32_t u = first;; u = arc_tail(g, parent[u])) {
				c->down[--at] = g->obj[u];
				if (u == v)
					break;
			}
		}
	}
	free(stamp);
	free(queue);
	free(parent);
	return rc;
}

int cut_compute(heap *h, const gc_result *r, const cut_options *opt, const obj_t *targets, uint32_t n,
		cut_result *out)
{
	memset(out, 0, sizeof *out);
	out->ntargets = n;
	net g = {0};
	rev x;
	rgraph rg;
	int rc = -1, have_rg = 0, have_rev = 0;
	uint32_t *parent = NULL, *queue = NULL;
	uint8_t *side = NULL;
	if (heap_build_reverse(h) || heap_build_children(h))
		return -1;
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
	if (rev_build(h, r, &x))
		goto done;
	have_rev = 1;
	uint32_t nt = g.n;
	if (ancestors(h, r, &x, &g))
		goto done;
	rev_free(&x);
	have_rev = 0;
	trace_point("cut: ancestors");
	g.is_target = calloc((size_t)g.n + 1, 1);
	if (!g.is_target)
		goto done;
	for (uint32_t k = 0; k < nt; k++)
		g.is_target[2 + k] = 1;
	if (rgraph_init_labelled(&rg, h, r, opt->keep_flags, POLICY_GC))
		goto done;
	have_rg = 1;
	if (build_edges(h, r, opt, &rg, &g))
		goto done;
	rgraph_free(&rg);
	have_rg = 0;
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
		rc = 0;
		goto done;
	}
	if (max_flow(&g))
		goto done;
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
		ref_of_label(h, g.lab[e], g.obj[g.ev[e]], c);
		c->node = g.ev[e];
		c->edge = e;
		c->cost = (uint32_t)g.cap[e];
		out->cost += (uint64_t)g.cap[e];
	}
	vec_free(&cut);
	if (count_kept(h, &g, side, out))
		goto done;
	trace_point("cut: kept");
	/* the chains from ⊤ to each holder, over the source side's edges */
	for (uint32_t u = 0; u < g.n; u++)
		parent[u] = NO;
	{
		size_t head = 0, tail = 0;
		queue[tail++] = SRC;
		parent[SRC] = NO - 1;
		while (head < tail) {
			uint32_t u = queue[head++];
			for (uint32_t j = g.adj_start[u]; j < g.adj_start[u + 1]; j++) {
				uint32_t a = g.adj[j], v = arc_head(&g, a);
				if (!(a & 1) && side[v] && parent[v] == NO) {
					parent[v] = a;
					queue[tail++] = v;
				}
			}
		}
	}
	for (uint32_t k = 0; k < out->nrefs; k++) {
		cut_ref *c = &out->refs[k];
		uint32_t u = c->kind == CK_ROOT || c->kind == CK_GCREF ? NO : g.eu[c->edge];
		if (u != NO && side[u] && parent[u] != NO && chain_back(&g, parent, u, &c->up, &c->nup))
			goto done;
	}
	qsort(out->refs, out->nrefs, sizeof *out->refs, cmp_ref);
	rc = 0;
done:
	if (have_rev)
		rev_free(&x);
	if (have_rg)
		rgraph_free(&rg);
	free(parent);
	free(queue);
	free(side);
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

int cut_prove(const heap *h, const gc_result *before, const gc_options *opt, const cut_result *c,
	      const obj_t *targets, uint32_t n, whatif_result *w, uint32_t *survivors)
{
	whatif_change *ch;
	size_t nch;
	if (cut_changes(h, c, &ch, &nch))
		return -1;
	int rc = whatif_run(h, before, opt, ch, nch, w);
	free(ch);
	*survivors = 0;
	for (uint32_t k = 0; rc == 0 && k < n; k++)
		*survivors += heap_exists(h, targets[k]) && w->after.reachable[targets[k]];
	return rc;
}
