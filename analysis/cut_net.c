/* cut_net.c — the flow network of cut (cut_net.h), built from a causal
 * model of the GC.
 *
 * The network is causal: a path from ⊤ is a way the GC of ugc-gc(7) §1
 * keeps a target, so a cut of it is a change that frees the targets.  It
 * is not the dominators' retention graph (a member's edge to its root there
 * says "dies with it"; here a member keeps nothing of its cluster).  An
 * object's node is "the GC traces it"; it has the object's trace edges
 * (Class, Outer, strong/aro records to non-garbage (cost 1), immutable
 * ones, a Level's handed-over actors), each into the target's node or, for
 * a live cluster's object, into the cluster's A.  A live cluster has five
 * nodes: A (a reference reached it) -> RM (its root is marked: its members
 * and root live) and -> W (step 5: its lists are walked); D (it needs
 * dissolving: W -> D by each garbage list entry) -> its members traced; MR
 * (a walked MutableObjects entry names its root) -> A and its root traced.
 * W's entries cost 1: a ReferencedClusters one marks a live root (-> RM),
 * an ordinary object (-> its target node: marked, not traced) or nothing
 * (a member); a MutableObjects one reaches a member (-> A), a root (-> MR),
 * or an ordinary object (traced).  A root reason (step 3) is ⊤ -> a node of
 * its own at --root-cost (INF for an internal keep flag): for an ordinary
 * object straight into its node; for a live cluster's root or member into a
 * node that traces it, and marks the root (the root's reason) and walks the
 * lists (a root flag, root's or member's: step 2's KeepClusterRefs) -- a
 * rooted member keeps its cluster's lists, never its root.  A "g" record is
 * ⊤ -> its target's node or cluster's A at cost 1.  Each target has a
 * target node -> the sink, fed by its traced node (ordinary), by RM (in a
 * live cluster), by a ReferencedClusters entry (marked).
 *
 * Where it is exact, and the limit.  Some of the GC's effects hang on its
 * order, which no flow can express: step 5 and a MutableObjects entry's
 * trace of a root happen only if the root was not marked before (by a
 * ReferencedClusters entry, KeepFlags in step 3, an activation); an object
 * a ReferencedClusters entry marks first is never traced; and a cluster
 * step 2 dissolved for a ReferencedClusters entry (its root no garbage) is
 * kept if a cut drops the entries, and then its members are no longer
 * traced on their own.  The network above assumes the effect happens (it
 * keeps more than the GC may: an upper bound on liveness), so its cut
 * always frees the targets -- the proof never fails -- but may not be the
 * smallest.  So, when the network has such an edge, a second one (UNDER,
 * cut.c's lower_bound()) leaves out every effect that hangs on the order
 * or on a dissolution (a walk on activation where something can mark the root
 * without one, a root's trace by a MutableObjects entry, a trace of an
 * object a ReferencedClusters entry names, a soft-dissolved cluster's
 * objects traced by a reference or alive by a root reason, its hand-over):
 * what it keeps the GC keeps under every change, so its max flow is a
 * lower bound on any cut.  When the two flows meet, the answer is proven
 * minimal (an infinite one proven when UNDER is infinite too); else the
 * answer says "not proven minimal" (cut_result.unproven): proven to free
 * them, maybe not the smallest. */
#include "analysis/cut_net.h"

#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "snapshot/snapshot.h"

void net_free(net *g)
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

int net_add_edge(net *g, uint32_t u, uint32_t v, int64_t cap, uint64_t lab)
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

static int64_t capacity(long long cost)
{
	return cost == CUT_NEVER ? INF : (int64_t)cost;
}

/* A new node standing for object X (a cluster's or a root's, or a target's),
 * CAP the room in G->obj and G->is_target, grown by doubling. */
static uint32_t new_node(net *g, size_t *cap, obj_t x, int target)
{
	if (g->n + 1 >= *cap) {
		size_t c = 2 * *cap + 16;
		obj_t *o = realloc(g->obj, c * sizeof *o);
		if (o)
			g->obj = o;
		uint8_t *t = o ? realloc(g->is_target, c) : NULL;
		if (t)
			g->is_target = t;
		if (!o || !t)
			return NO;
		*cap = c;
	}
	g->obj[g->n] = x;
	g->is_target[g->n] = (uint8_t)target;
	return g->n++;
}

/* How many references ahead trace_edges fetches what it will test. */
#define AHEAD 4

/* The causal model the network is built on (see the top of the file). */
typedef struct model {
	const heap *h;
	const gc_result *r;
	const cut_options *opt;
	net *g;
	size_t cap;
	uint32_t *cnode; /* per cluster: its first virtual node (CN_*), NO: none */
	uint32_t *tnode; /* per target (node 2 + k): its target node */
	uint32_t nt;
	int under;        /* the lower bound (UNDER): no edge whose effect hangs on the GC's order */
	uint8_t *nwmark;  /* per cluster: its root can be marked without a walk (a
			   * ReferencedClusters entry, KeepFlags without a root flag) */
	uint8_t *rmark;   /* per object: an ordinary object a ReferencedClusters entry
			   * names (marked without being traced) */
	uint8_t *soft;    /* per cluster: dissolved in step 2 for a ReferencedClusters
			   * entry (its root is no garbage): a cut could keep it */
	int guarded;      /* an edge hanging on the order or on a soft cluster was put in */
	obj_t synthetic;  /* heap_v8_synthetic_class(): a V8 heap's root, (GC roots) and
			   * its groups, whose edges no program edit removes */
} model;

enum { CN_A, CN_RM, CN_W, CN_D, CN_MR, CN_COUNT };

/* What dropping root X's root reason costs: --root-cost, infinite for an
 * internal keep flag and for a V8 heap's root (nothing a program drops). */
static int64_t root_capacity(const model *md, obj_t x)
{
	return (md->h->iflags[x] & IF_INTERNAL_KEEP) || md->h->cls[x] == md->synthetic ? INF
											: capacity(md->opt->root_cost);
}

/* Is X a root of step 3 (ugc-gc(7) §1.3), and does it carry a root flag? */
static int is_root3(const heap *h, obj_t x, uint32_t keep)
{
	if (heap_in_disregard(h, x))
		return 0;
	if (h->iflags[x] & (IF_RootSet | IF_RefCounted | IF_INTERNAL_KEEP))
		return 1;
	return keep && (h->oflags[x] & keep) && !heap_is_garbage(h, x);
}
static int has_root_flag3(const heap *h, obj_t x)
{
	return (h->iflags[x] & (IF_RootSet | IF_RefCounted | IF_INTERNAL_KEEP)) != 0;
}

/* Is X the root or a member of a cluster a cut could keep (model.soft)? */
static int in_soft(const model *md, obj_t x)
{
	int32_t c = md->h->nclusters ? heap_cluster(md->h, x) : -1;
	return c >= 0 && md->soft[c];
}

/* The live cluster X roots or belongs to, or -1. */
static int32_t live_cluster(const model *md, obj_t x)
{
	int32_t c = md->h->nclusters ? heap_cluster(md->h, x) : -1;
	return c >= 0 && md->r->cluster_live[c] ? c : -1;
}

/* Where a reference found by tracing (or a "g" record) to T leads: a live
 * cluster's object activates the cluster (A); any other object is traced. */
static uint32_t target_node(const model *md, obj_t t);
static uint32_t trace_dest(model *md, obj_t t)
{
	int32_t c = live_cluster(md, t);
	if (c >= 0)
		return md->cnode[c] == NO ? NO : md->cnode[c] + CN_A;
	if (md->g->node[t] == NO)
		return NO;
	if (in_soft(md, t)) { /* kept, the cluster would take the reference instead */
		md->guarded = 1;
		if (md->under)
			return target_node(md, t);
	}
	if (md->rmark && md->rmark[t]) { /* a ReferencedClusters entry may mark it first: then it is not traced */
		md->guarded = 1;
		if (md->under)
			return target_node(md, t);
	}
	return md->g->node[t];
}

/* The target node of T (NO: T is no target). */
static uint32_t target_node(const model *md, obj_t t)
{
	uint32_t v = md->g->node[t];
	return v != NO && v < 2 + md->nt ? md->tnode[v - 2] : NO;
}

static int edge_to(net *g, uint32_t u, uint32_t v, int64_t cap, uint64_t lab)
{
	return v == NO || u == NO ? 0 : net_add_edge(g, u, v, cap, lab);
}

/* Object X's trace edges from its node U: Class, Outer, the "r" records
 * the GC follows, and a Level's handed-over references. */
static int trace_edges(model *md, obj_t x, uint32_t u)
{
	const heap *h = md->h;
	const gc_result *r = md->r;
	net *g = md->g;
	int rc = 0;
	if (heap_in_disregard(h, x))
		return 0; /* never traced */
	int64_t cost = h->cls[x] == md->synthetic ? INF : 1; /* a V8 system edge: no edit removes it */
	obj_t co[2] = {h->cls[x], h->outer[x]};
	for (int k = 0; k < 2 && rc == 0; k++)
		if (co[k] >= 0 && !heap_in_disregard(h, co[k]))
			rc = edge_to(g, u, trace_dest(md, co[k]), INF, RGRAPH_LABEL(k ? RL_OUTER : RL_CLASS, (uint32_t)x));
	for (uint32_t k = h->ref_start[x], e = h->ref_start[x + 1]; k < e && rc == 0; k++) {
		if (k + AHEAD < e) { /* what the tests of a target a few on read */
			obj_t a = h->ref_dst[k + AHEAD];
			__builtin_prefetch(&g->node[a]);
			heap_prefetch_target_tests(h, a);
		}
		obj_t t = h->ref_dst[k];
		int kind = h->ref_kind[k];
		if (t < 0 || heap_in_disregard(h, t))
			continue;
		if (kind == REF_IMMUTABLE)
			rc = edge_to(g, u, trace_dest(md, t), INF, RGRAPH_LABEL(RL_REF, k));
		else if ((kind == REF_STRONG || kind == REF_ARO) && !heap_is_garbage(h, t))
			rc = edge_to(g, u, trace_dest(md, t), cost, RGRAPH_LABEL(RL_REF, k));
	}
	if (r->nhandoff)
		for (uint32_t j = gc_handoff_first(r, x); j < r->nhandoff && r->handoff[j].level == x && rc == 0; j++) {
			obj_t t = h->ref_dst[r->handoff[j].ref];
			if (in_soft(md, heap_ref_source(h, r->handoff[j].ref))) {
				md->guarded = 1; /* kept, the container hands nothing over */
				if (md->under)
					continue;
			}
			if (t >= 0 && !heap_is_garbage(h, t) && !heap_in_disregard(h, t))
				rc = edge_to(g, u, trace_dest(md, t), INF, RGRAPH_LABEL(RL_HANDOFF, j));
		}
	return rc;
}

/* A root's root reason: ⊤ -> a node of its own at the cost of dropping it
 * (infinite for an internal keep flag), returned (NO on failure). */
static uint32_t root_node(model *md, obj_t x)
{
	uint32_t v = new_node(md->g, &md->cap, x, 0);
	if (v == NO || net_add_edge(md->g, SRC, v, root_capacity(md, x), RGRAPH_LABEL(RL_ROOT, (uint32_t)x)))
		return NO;
	return v;
}

/* Live cluster C's virtual nodes' edges: A -> RM, A -> W; MR (a walked
 * MutableObjects entry naming the root) -> A and the root traced; RM ->
 * its targets; D -> its members traced; its root's and members' root
 * reasons; W -> its list entries. */
static int cluster_edges(model *md, uint32_t c)
{
	const heap *h = md->h;
	net *g = md->g;
	const cluster *cl = &h->clusters[c];
	uint32_t b = md->cnode[c];
	uint64_t mem = RGRAPH_LABEL(RL_MEMBER, c);
	/* the walk and the root's trace on activation or a MutableObjects
	 * entry happen only if the root was not marked before: in UNDER, the
	 * walk only where nothing marks the root without one, the trace never */
	if (md->nwmark[c] || g->node[cl->root] != NO)
		md->guarded = 1;
	int rc = net_add_edge(g, b + CN_A, b + CN_RM, INF, mem) ||
		 (!md->under || !md->nwmark[c] ? net_add_edge(g, b + CN_A, b + CN_W, INF, mem) : 0) ||
		 net_add_edge(g, b + CN_MR, b + CN_A, INF, mem) ||
		 (!md->under ? edge_to(g, b + CN_MR, g->node[cl->root], INF, mem) : 0);
	for (uint32_t k = 0; k <= cl->n_members && rc == 0; k++) {
		obj_t x = k < cl->n_members ? h->cluster_items[cl->members + k] : cl->root;
		rc = edge_to(g, b + CN_RM, target_node(md, x), INF, mem);
		if (rc == 0 && k < cl->n_members)
			rc = edge_to(g, b + CN_D, g->node[x], INF, mem);
		if (rc || !is_root3(h, x, md->opt->keep_flags))
			continue;
		uint32_t v = root_node(md, x);
		rc = v == NO || edge_to(g, v, g->node[x], INF, RGRAPH_LABEL(RL_ROOT, (uint32_t)x));
		if (rc == 0 && has_root_flag3(h, x)) /* step 2 walks the lists */
			rc = net_add_edge(g, v, b + CN_W, INF, mem);
		if (rc == 0 && k == cl->n_members) /* the root itself is marked */
			rc = net_add_edge(g, v, b + CN_RM, INF, mem);
	}
	for (uint32_t k = 0; k < cl->n_refs + cl->n_mutables && rc == 0; k++) {
		int is_ref = k < cl->n_refs;
		uint32_t at = is_ref ? cl->refs + k : cl->mutables + k - cl->n_refs;
		obj_t t = h->cluster_items[at];
		uint64_t lab = RGRAPH_LABEL(RL_LIST, at);
		uint32_t v = NO;
		if (t < 0)
			continue;
		int32_t tc = live_cluster(md, t);
		if (heap_is_garbage(h, t))
			v = b + CN_D; /* the cluster needs dissolving: its members are traced */
		else if (heap_in_disregard(h, t))
			v = NO;
		else if (is_ref) /* marked, nothing more: a member is already */
			v = tc >= 0 ? (h->clusters[tc].root == t && md->cnode[tc] != NO ? md->cnode[tc] + CN_RM : NO)
			    : md->under && in_soft(md, t) && h->clusters[heap_cluster(h, t)].root != t ? NO
										     : target_node(md, t);
		else if (tc >= 0 && h->clusters[tc].root == t)
			v = md->cnode[tc] == NO ? NO : md->cnode[tc] + CN_MR;
		else
			v = trace_dest(md, t);
		rc = edge_to(g, b + CN_W, v, 1, lab);
	}
	return rc;
}

/* The network over the ancestor superset (nodes 2.., the targets first). */
int cut_net_build(const heap *h, const gc_result *r, const cut_options *opt, net *g, uint32_t nt, int under,
		  int *flags)
{
	model md = {h, r, opt, g, g->n, NULL, NULL, nt, under, NULL, NULL, NULL, 0, heap_v8_synthetic_class(h)};
	int rc = -1;
	uint32_t nobj = g->n;
	md.cnode = malloc(((size_t)h->nclusters + 1) * sizeof *md.cnode);
	md.tnode = malloc(((size_t)nt + 1) * sizeof *md.tnode);
	md.nwmark = calloc((size_t)h->nclusters + 1, 1);
	md.rmark = h->nclusters ? calloc((size_t)h->slots + 1, 1) : NULL;
	md.soft = calloc((size_t)h->nclusters + 1, 1);
	if (!md.cnode || !md.tnode || !md.nwmark || (h->nclusters && !md.rmark) || !md.soft)
		goto done;
	for (uint32_t c = 0; c < h->nclusters; c++)
		md.soft[c] = !r->cluster_live[c] && !heap_is_garbage(h, h->clusters[c].root);
	for (uint32_t c = 0; c < h->nclusters; c++) {
		const cluster *cl = &h->clusters[c];
		if (!r->cluster_live[c] && !md.soft[c])
			continue; /* a soft cluster's walk, once kept, may mark too */
		obj_t root = cl->root;
		if (!has_root_flag3(h, root) && is_root3(h, root, opt->keep_flags))
			md.nwmark[c] = 1;
		for (uint32_t k = 0; k < cl->n_refs; k++) {
			obj_t t = h->cluster_items[cl->refs + k];
			int32_t tc = t >= 0 ? live_cluster(&md, t) : -1;
			if (t < 0 || heap_is_garbage(h, t) || heap_in_disregard(h, t))
				continue;
			if (tc >= 0 && h->clusters[tc].root == t)
				md.nwmark[tc] = 1;
			else if (tc < 0 && !in_soft(&md, t))
				md.rmark[t] = 1;
		}
	}
	for (uint32_t c = 0; c < h->nclusters; c++)
		md.cnode[c] = NO;
	for (uint32_t k = 0; k < nt; k++) {
		g->is_target[2 + k] = 0;
		if ((md.tnode[k] = new_node(g, &md.cap, g->obj[2 + k], 1)) == NO ||
		    net_add_edge(g, md.tnode[k], SINK, INF, 0))
			goto done;
	}
	for (uint32_t u = 2; u < nobj; u++) {
		int32_t c = live_cluster(&md, g->obj[u]);
		if (c < 0 || md.cnode[c] != NO)
			continue;
		md.cnode[c] = g->n;
		for (int k = 0; k < CN_COUNT; k++)
			if (new_node(g, &md.cap, h->clusters[c].root, 0) == NO)
				goto done;
	}
	for (uint32_t u = 2; u < nobj; u++) {
		obj_t x = g->obj[u];
		/* the rows of the objects a few on */
		if (u + 2 * AHEAD < nobj)
			heap_prefetch_slot(h, g->obj[u + 2 * AHEAD]);
		if (u + AHEAD < nobj) {
			obj_t y = g->obj[u + AHEAD];
			heap_prefetch_refs(h, y);
			heap_prefetch_target_tests(h, y);
		}
		/* the disregard pool is never collected: held from ⊤, uncuttably */
		if (heap_in_disregard(h, x) && net_add_edge(g, SRC, u, INF, RGRAPH_LABEL(RL_ROOT, (uint32_t)x)))
			goto done;
		if (trace_edges(&md, x, u))
			goto done;
		if (live_cluster(&md, x) >= 0)
			continue; /* its root reason and target node: cluster_edges */
		int soft_member = in_soft(&md, x) && h->clusters[heap_cluster(h, x)].root != x;
		if (soft_member)
			md.guarded = 1; /* kept, a rooted member is traced but lives by its cluster */
		if (u < 2 + nt && !(under && soft_member) && net_add_edge(g, u, md.tnode[u - 2], INF, 0))
			goto done;
		if (is_root3(h, x, opt->keep_flags) &&
		    net_add_edge(g, SRC, u, root_capacity(&md, x), RGRAPH_LABEL(RL_ROOT, (uint32_t)x)))
			goto done;
	}
	for (uint32_t c = 0; c < h->nclusters; c++)
		if (md.cnode[c] != NO && cluster_edges(&md, c))
			goto done;
	for (uint32_t k = 0; k < h->ngcrefs; k++) {
		obj_t t = h->gcrefs[k].dst;
		if (heap_exists(h, t) && !heap_is_garbage(h, t) && !heap_in_disregard(h, t) &&
		    edge_to(g, SRC, trace_dest(&md, t), 1, RGRAPH_LABEL(RL_GCREF, k)))
			goto done;
	}
	rc = 0;
done:
	free(md.cnode);
	free(md.tnode);
	free(md.nwmark);
	free(md.rmark);
	free(md.soft);
	*flags = md.guarded ? NET_GUARDED : 0;
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
