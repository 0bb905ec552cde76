/* gc.c — reachability analysis (ugc-gc(7) §1, steps 1-8) and the
 * purge (ugc-gc(7) §2).  See gc.h for the marking order.  Work lists
 * only, never recursion. */
#include "analysis/gc.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "base/base.h"

const char *const root_kind_names[RK_COUNT] = {
	"disregard", "rootset", "refcounted", "internal-keep", "keepflags", "gcobject", "cluster", "referenced",
};
int root_kind_parse(const char *s)
{
	for (int k = 0; s && k < RK_COUNT; k++)
		if (strcmp(s, root_kind_names[k]) == 0)
			return k;
	return RK_NONE;
}

const char *const cluster_fate_names[CF_COUNT] = {
	"alive", "garbage-root", "references-dissolved", "unreachable-root", "garbage-mutable",
};

/* Object states while marking. */
enum { S_FREE, S_MAYBE, S_REACHABLE, S_UNREACHABLE };
/* What step 4 tests of a reference's target (marker.tbits). */
enum { T_CLUSTERED = 1, T_GARBAGE = 2 };

/* Frontiers smaller than this are traced on the calling thread alone. */
#define PARALLEL_MIN 16384
#define CHUNK 2048
/* How many references ahead tracing fetches what it will test. */
#define PREFETCH_AHEAD 6

uint32_t gc_default_keep_flags(int mode)
{
	return mode == MODE_EDITOR ? RF_Standalone : 0;
}

/* Is I a root (ugc-gc(7) §1.3), outside the disregard pool? */
static int is_root(const heap *h, obj_t i, uint32_t keep)
{
	if (h->iflags[i] & (IF_RootSet | IF_RefCounted | IF_INTERNAL_KEEP))
		return 1;
	return (h->oflags[i] & keep) && !heap_is_garbage(h, i);
}

/* A cluster whose root a traced reference found maybe-unreachable, keyed by
 * where the reference is: source index, then the source's edge order
 * (0 Class, 1 Outer, 2 + k its k-th "r" record). */
typedef struct request {
	uint64_t key;
	uint32_t cluster;
} request;

typedef struct requests {
	request *v;
	size_t n, cap;
} requests;

static int request_push(requests *a, obj_t src, uint32_t edge, uint32_t cluster)
{
	if (grow_array((void **)&a->v, &a->cap, a->n, sizeof *a->v))
		return -1;
	a->v[a->n++] = (request){(uint64_t)src << 32 | edge, cluster};
	return 0;
}

static int cmp_request(const void *a, const void *b)
{
	uint64_t x = ((const request *)a)->key, y = ((const request *)b)->key;
	return (x > y) - (x < y);
}

/* What one tracing thread produces for a level. */
typedef struct trace_out {
	vec next;     /* objects it marked: the next level's work */
	requests req; /* cluster work it found, to be done in key order */
	vec elim;     /* positions of eliminated references */
	vec helim;    /* eliminated handed-over references: indexes into gc_result.handoff */
	vec weak;     /* positions of weak references remembered */
	uint32_t traced;
} trace_out;

typedef struct marker {
	heap *h;
	uint32_t keep;
	uint8_t *state;     /* S_* per slot; CAS'd while tracing */
	uint8_t *queued;    /* per slot: already put on a work list */
	uint8_t *live;      /* per cluster: not dissolved in step 2 */
	uint8_t *needs_dissolving; /* per cluster */
	uint8_t *step5_queued;     /* per cluster */
	uint64_t *first;    /* per cluster: its least request key in a level, UINT64_MAX none */
	uint32_t *cqueue;   /* FIFO of clusters awaiting step 5; each enters once */
	uint32_t cq_head, cq_tail;
	vec next;           /* the next level's work list */
	vec g_elim;         /* eliminated "g" records */
	vec elim, helim, weak; /* all levels, merged */
	const gc_result *r; /* for the handed-over references (step 2) */
	uint32_t roots, traced;
	/* per slot: T_CLUSTERED when it roots or belongs to a cluster, T_GARBAGE
	 * when flagged Garbage: what step 4 tests of a reference's target, one
	 * byte read where in_cluster (4 bytes a slot) and iflags (2) were two
	 * cache misses.  NULL when the heap has neither (a V8 heap): tracing
	 * then skips the tests. */
	uint8_t *tbits;
	/* the current level, shared by the tracing threads */
	const uint32_t *frontier;
	size_t nfrontier;
	atomic_size_t next_chunk;
} marker;

static int push_work(marker *m, obj_t x)
{
	assert(m->state[x] == S_REACHABLE); /* only what is marked is traced */
	if (m->queued[x])
		return 0;
	m->queued[x] = 1;
	return vec_push(&m->next, (uint32_t)x);
}

static void enqueue_step5(marker *m, uint32_t c)
{
	assert(m->live[c]); /* a cluster dissolved in step 2 does no step 5 */
	if (!m->step5_queued[c]) {
		assert(m->cq_tail < m->h->nclusters); /* each enters once */
		m->step5_queued[c] = 1;
		m->cqueue[m->cq_tail++] = c;
	}
}

/* Step 4 for a clustered target: its cluster's root becomes reachable. */
static void activate(marker *m, uint32_t c)
{
	obj_t r = m->h->clusters[c].root;
	assert(m->state[r] != S_FREE);
	if (m->state[r] == S_MAYBE) {
		m->state[r] = S_REACHABLE;
		enqueue_step5(m, c);
	}
}

/* Step 4 for target T on the sequential path (roots, "g" records, step 5). */
static int visit_seq(marker *m, obj_t t)
{
	assert(m->state[t] != S_FREE);
	int32_t c = heap_cluster(m->h, t);
	if (c >= 0 && m->live[c]) {
		activate(m, (uint32_t)c);
		return 0;
	}
	if (m->state[t] == S_MAYBE) {
		m->state[t] = S_REACHABLE;
		return push_work(m, t);
	}
	return 0;
}

/* Step 5: a cluster became reachable. */
static int step5(marker *m, uint32_t c)
{
	heap *h = m->h;
	const cluster *cl = &h->clusters[c];
	for (uint32_t k = 0; k < cl->n_refs; k++) {
		obj_t r = h->cluster_items[cl->refs + k];
		if (heap_is_garbage(h, r))
			m->needs_dissolving[c] = 1;
		else if (m->state[r] == S_MAYBE)
			m->state[r] = S_REACHABLE; /* and nothing more: the engine trusts the list */
	}
	for (uint32_t k = 0; k < cl->n_mutables; k++) {
		obj_t t = h->cluster_items[cl->mutables + k];
		if (heap_is_garbage(h, t)) {
			m->needs_dissolving[c] = 1;
			continue;
		}
		if (heap_in_disregard(h, t))
			continue;
		int32_t tc = heap_cluster(h, t);
		if (tc >= 0 && m->live[tc] && h->clusters[tc].root != t) {
			activate(m, (uint32_t)tc);
		} else if (m->state[t] == S_MAYBE) {
			m->state[t] = S_REACHABLE;
			if (push_work(m, t))
				return -1;
			if (tc >= 0 && m->live[tc])
				enqueue_step5(m, (uint32_t)tc);
		}
	}
	if (m->needs_dissolving[c])
		for (uint32_t k = 0; k < cl->n_members; k++)
			if (push_work(m, h->cluster_items[cl->members + k]))
				return -1;
	return 0;
}

static int drain_step5(marker *m)
{
	while (m->cq_head < m->cq_tail)
		if (step5(m, m->cqueue[m->cq_head++]))
			return -1;
	return 0;
}

/* Step 4 for one target on a tracing thread: order-free work only; cluster
 * work is recorded with the position of the reference (X, EDGE). */
static inline int visit_par(marker *m, trace_out *o, obj_t x, uint32_t edge, obj_t t)
{
	int32_t c = m->tbits && (m->tbits[t] & T_CLUSTERED) ? heap_cluster(m->h, t) : -1;
	if (c >= 0 && m->live[c]) {
		obj_t r = m->h->clusters[c].root;
		if (__atomic_load_n(&m->state[r], __ATOMIC_RELAXED) == S_MAYBE)
			return request_push(&o->req, x, edge, (uint32_t)c);
		return 0;
	}
	uint8_t expect = S_MAYBE;
	if (__atomic_load_n(&m->state[t], __ATOMIC_RELAXED) == S_MAYBE &&
	    __atomic_compare_exchange_n(&m->state[t], &expect, S_REACHABLE, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
		m->queued[t] = 1;
		return vec_push(&o->next, (uint32_t)t);
	}
	return 0;
}

/* X's handed-over references (step 2), aro references after its own
 * records, EDGE the first one's edge number. */
static int trace_handoff(marker *m, trace_out *o, obj_t x, uint32_t edge)
{
	const heap *h = m->h;
	const gc_result *r = m->r;
	int rc = 0;
	for (uint32_t j = gc_handoff_first(r, x); j < r->nhandoff && r->handoff[j].level == x; j++, edge++) {
		obj_t t = h->ref_dst[r->handoff[j].ref];
		if (heap_is_garbage(h, t))
			rc |= vec_push(&o->helim, j);
		else if (!heap_in_disregard(h, t))
			rc |= visit_par(m, o, x, edge, t);
	}
	return rc;
}

static int trace(marker *m, trace_out *o, obj_t x)
{
	const heap *h = m->h;
	int rc = 0;
	/* X is on this level's list: marked, and put on a list once */
	assert(m->queued[x] && __atomic_load_n(&m->state[x], __ATOMIC_RELAXED) == S_REACHABLE);
	o->traced++;
	obj_t t = h->cls[x];
	if (!heap_in_disregard(h, t))
		rc |= visit_par(m, o, x, 0, t);
	t = h->outer[x];
	if (t >= 0 && !heap_in_disregard(h, t))
		rc |= visit_par(m, o, x, 1, t);
	uint32_t first = h->ref_start[x];
	for (uint32_t k = first, e = h->ref_start[x + 1]; k < e; k++) {
		if (k + PREFETCH_AHEAD < e) {
			/* what the test of a target a few references on reads */
			obj_t a = h->ref_dst[k + PREFETCH_AHEAD];
			__builtin_prefetch(&m->state[a]);
			if (m->tbits)
				__builtin_prefetch(&m->tbits[a]);
		}
		t = h->ref_dst[k];
		switch (h->ref_kind[k]) {
		case REF_WEAK:
			rc |= vec_push(&o->weak, k);
			continue;
		case REF_SOFT:
			continue;
		case REF_IMMUTABLE:
			if (!heap_in_disregard(h, t))
				rc |= visit_par(m, o, x, 2 + k - first, t);
			continue;
		default: /* killable: Garbage is tested first, in the disregard pool too */
			if (m->tbits && (m->tbits[t] & T_GARBAGE))
				rc |= vec_push(&o->elim, k);
			else if (!heap_in_disregard(h, t))
				rc |= visit_par(m, o, x, 2 + k - first, t);
		}
	}
	if (m->r->nhandoff)
		rc |= trace_handoff(m, o, x, 2 + h->ref_start[x + 1] - first);
	return rc;
}

static int trace_range(marker *m, trace_out *o)
{
	for (;;) {
		size_t start = atomic_fetch_add(&m->next_chunk, CHUNK);
		if (start >= m->nfrontier)
			return 0;
		size_t end = start + CHUNK < m->nfrontier ? start + CHUNK : m->nfrontier;
		for (size_t i = start; i < end; i++) {
			/* the rows of the objects a few on: where they start,
			 * then their first references */
			const heap *h = m->h;
			if (i + 2 * PREFETCH_AHEAD < m->nfrontier)
				heap_prefetch_slot(h, (obj_t)m->frontier[i + 2 * PREFETCH_AHEAD]);
			if (i + PREFETCH_AHEAD < m->nfrontier)
				heap_prefetch_refs(h, (obj_t)m->frontier[i + PREFETCH_AHEAD]);
			if (trace(m, o, (obj_t)m->frontier[i]))
				return -1;
		}
	}
}

struct thread_arg {
	marker *m;
	trace_out out;
	int rc;
};

static void *trace_thread(void *p)
{
	struct thread_arg *a = p;
	a->rc = trace_range(a->m, &a->out);
	return NULL;
}

/* Trace one level (the objects in FRONTIER) and do its cluster work. */
static int mark_level(marker *m, const vec *frontier, int threads, uint32_t parallel_min)
{
	struct thread_arg args[64];
	int n = frontier->n >= parallel_min ? threads : 1;
	if (n > 64)
		n = 64;
	memset(args, 0, sizeof args[0] * (size_t)n);
	m->frontier = frontier->v;
	m->nfrontier = frontier->n;
	atomic_store(&m->next_chunk, 0);
	for (int t = 0; t < n; t++)
		args[t].m = m;
	jobs_pool(trace_thread, args, sizeof args[0], n); /* a late one finds the chunks taken */
	int started = n - 1;
	requests all = {0};
	int rc = 0;
	for (int t = 0; t <= started; t++) {
		trace_out *o = &args[t].out;
		rc |= args[t].rc;
		if (m->next.n == 0) { /* the first list: taken over, not copied */
			vec_free(&m->next);
			m->next = o->next;
			o->next = (vec){0};
		} else {
			rc |= vec_append(&m->next, &o->next);
		}
		rc |= vec_append(&m->elim, &o->elim) | vec_append(&m->helim, &o->helim) | vec_append(&m->weak, &o->weak);
		for (size_t i = 0; i < o->req.n && rc == 0; i++)
			rc |= request_push(&all, (obj_t)(o->req.v[i].key >> 32), (uint32_t)o->req.v[i].key, o->req.v[i].cluster);
		m->traced += o->traced;
		vec_free(&o->next); vec_free(&o->elim); vec_free(&o->helim); vec_free(&o->weak);
		free(o->req.v);
	}
	/* the cluster work, as one thread tracing this level's objects in index
	 * order would have done it: each in turn, step 5 at once.  Only a
	 * cluster's first request can do anything (it marks the root, and a
	 * marked root stays marked while tracing), so the others are dropped
	 * before the sort: FIRST[c] holds the least key until its request is
	 * kept, then UINT64_MAX again for the next level. */
	for (size_t i = 0; i < all.n; i++)
		if (all.v[i].key < m->first[all.v[i].cluster])
			m->first[all.v[i].cluster] = all.v[i].key;
	size_t kept = 0;
	for (size_t i = 0; i < all.n; i++)
		if (all.v[i].key == m->first[all.v[i].cluster]) {
			m->first[all.v[i].cluster] = UINT64_MAX;
			all.v[kept++] = all.v[i];
		}
	all.n = kept;
	if (all.n > 1)
		qsort(all.v, all.n, sizeof *all.v, cmp_request);
	for (size_t i = 0; i < all.n && rc == 0; i++) {
		activate(m, all.v[i].cluster);
		rc |= drain_step5(m);
	}
	free(all.v);
	return rc;
}

/* Does I carry a root flag (RootSet, RefCounted or an internal keep flag)?
 * KeepFlags are not root flags: they play no part in cluster work. */
static int has_root_flag(const heap *h, obj_t i)
{
	return (h->iflags[i] & (IF_RootSet | IF_RefCounted | IF_INTERNAL_KEEP)) != 0;
}

/* Is X's class the one named NAME (without a number)?  (Exact: worlds.h's
 * class_named also takes a Blueprint's and a subclass's suffixes.) */
static int of_class_named(const heap *h, obj_t x, const char *name)
{
	obj_t c = h->cls[x];
	return c >= 0 && h->name_num[c] == 0 && strcmp(heap_str(h, h->name[c]), name) == 0;
}

int gc_cluster_kept(const heap *h, uint32_t c)
{
	const cluster *cl = &h->clusters[c];
	int keep = has_root_flag(h, cl->root);
	for (uint32_t k = 0; k < cl->n_members && !keep; k++)
		keep = has_root_flag(h, h->cluster_items[cl->members + k]);
	return keep;
}

static int cmp_handoff(const void *a, const void *b)
{
	const gc_handoff *x = a, *y = b;
	if (x->level != y->level)
		return (x->level > y->level) - (x->level < y->level);
	return (x->ref > y->ref) - (x->ref < y->ref);
}

/* After step 2's dissolution: the references a dissolved LevelActorContainer
 * hands to its Level (gc_handoff, gc.h). */
static int hand_over(marker *m, gc_result *r)
{
	const heap *h = m->h;
	size_t cap = 0;
	for (uint32_t c = 0; c < h->nclusters; c++) {
		if (m->live[c])
			continue;
		obj_t root = h->clusters[c].root, level = h->outer[root];
		if (level < 0 || !of_class_named(h, root, "LevelActorContainer"))
			continue;
		for (uint32_t k = h->ref_start[root]; k < h->ref_start[root + 1]; k++) {
			if (strncmp(heap_str(h, h->ref_prop[k]), "Actors", 6) != 0)
				continue;
			if (grow_array((void **)&r->handoff, &cap, r->nhandoff, sizeof *r->handoff))
				return -1;
			r->handoff[r->nhandoff++] = (gc_handoff){level, k};
		}
	}
	if (r->nhandoff > 1)
		qsort(r->handoff, r->nhandoff, sizeof *r->handoff, cmp_handoff);
	return 0;
}

/* Step 2: dissolve garbage-rooted clusters and, through ReferencedByClusters,
 * every cluster that references them; pre-mark the members of the rest; then
 * the kept clusters (the engine's KeepClusterRefs) do step 5: a cluster whose
 * root has a root flag has its root marked first, one where only a member
 * has a root flag leaves its root maybe-unreachable. */
static int prepass(marker *m, gc_result *r)
{
	heap *h = m->h;
	uint32_t *work = m->cqueue, n = 0; /* borrowed: step 5 has not started */
	for (uint32_t c = 0; c < h->nclusters; c++) {
		m->live[c] = 1;
		if (heap_is_garbage(h, h->clusters[c].root)) {
			m->live[c] = 0;
			r->cluster_fate[c] = CF_GARBAGE_ROOT;
			work[n++] = c;
		}
	}
	while (n > 0) {
		uint32_t c = work[--n];
		for (uint32_t k = h->refby_start[c]; k < h->refby_start[c + 1]; k++) {
			uint32_t b = h->cluster_refby[k];
			if (m->live[b]) {
				m->live[b] = 0;
				r->cluster_fate[b] = CF_REFERENCES_DISSOLVED;
				assert(n < h->nclusters); /* each cluster is dissolved once */
				work[n++] = b;
			}
		}
	}
	if (hand_over(m, r))
		return -1;
	for (uint32_t c = 0; c < h->nclusters; c++)
		if (m->live[c])
			for (uint32_t k = 0; k < h->clusters[c].n_members; k++)
				m->state[h->cluster_items[h->clusters[c].members + k]] = S_REACHABLE;
	for (uint32_t c = 0; c < h->nclusters; c++) {
		if (!m->live[c])
			continue;
		const cluster *cl = &h->clusters[c];
		if (has_root_flag(h, cl->root) && m->state[cl->root] == S_MAYBE)
			m->state[cl->root] = S_REACHABLE;
		if (gc_cluster_kept(h, c)) {
			enqueue_step5(m, c);
			if (drain_step5(m))
				return -1;
		}
	}
	return 0;
}

/* Step 3: every root is marked and put on the work list, and nothing more
 * (rooted clusters did their cluster work in step 2; a KeepFlags root does
 * none); then the "g" records, each as a reference found by tracing. */
static int mark_roots(marker *m, gc_result *r)
{
	heap *h = m->h;
	for (uint32_t i = 0; i < h->slots; i++) {
		if (h->cls[i] == OBJ_FREE || heap_in_disregard(h, (obj_t)i) || !is_root(h, (obj_t)i, m->keep))
			continue;
		m->roots++;
		m->state[i] = S_REACHABLE;
		if (push_work(m, (obj_t)i))
			return -1;
	}
	for (uint32_t g = 0; g < h->ngcrefs; g++) {
		obj_t t = h->gcrefs[g].dst;
		if (!heap_exists(h, t))
			continue; /* dangling: a finding */
		r->gc_target[t] = 1;
		if (heap_is_garbage(h, t)) { /* tested first, as in step 4 */
			if (vec_push(&m->g_elim, g))
				return -1;
			continue;
		}
		if (heap_in_disregard(h, t))
			continue;
		if (visit_seq(m, t) || drain_step5(m))
			return -1;
	}
	return 0;
}

#ifndef NDEBUG
/* Was every object put on a work list traced, and once?  (For assert.) */
static int traced_all(const marker *m)
{
	uint32_t queued = 0;
	for (uint32_t i = 0; i < m->h->slots; i++)
		queued += m->queued[i];
	return queued == m->traced;
}
#endif

static int mark(marker *m, gc_result *r, int threads, uint32_t parallel_min)
{
	if (mark_roots(m, r))
		return -1;
	vec frontier = {0};
	while (m->next.n) {
		vec_free(&frontier); /* no list kept beside the level's two */
		frontier = m->next;
		m->next = (vec){0};
		if (mark_level(m, &frontier, threads, parallel_min)) {
			vec_free(&frontier);
			return -1;
		}
	}
	vec_free(&frontier);
	assert(traced_all(m)); /* the levels are done: no list is left */
	return 0;
}

/* Step 6: DissolveClusters, then DissolveUnreachableClusters.  Every
 * cluster that needs dissolving, and transitively through
 * ReferencedByClusters every cluster that references one, is dissolved now
 * if its root is reachable (its members keep their state); every live
 * cluster whose root is still maybe-unreachable then goes with its members. */
static void dissolve(marker *m, gc_result *r)
{
	heap *h = m->h;
	uint8_t *closure = m->step5_queued; /* reused below as "walked": copy first */
	memcpy(r->cluster_walked, closure, h->nclusters);
	memset(closure, 0, h->nclusters);
	uint32_t *work = m->cqueue, n = 0;
	for (uint32_t c = 0; c < h->nclusters; c++)
		if (m->live[c] && m->needs_dissolving[c]) {
			closure[c] = 1;
			work[n++] = c;
		}
	while (n > 0) {
		uint32_t c = work[--n];
		for (uint32_t k = h->refby_start[c]; k < h->refby_start[c + 1]; k++) {
			uint32_t b = h->cluster_refby[k];
			if (m->live[b] && !closure[b]) {
				closure[b] = 1;
				assert(n < h->nclusters); /* each cluster enters the closure once */
				work[n++] = b;
			}
		}
	}
	for (uint32_t c = 0; c < h->nclusters; c++) {
		r->cluster_dissolving[c] = !m->live[c] || closure[c];
		if (!m->live[c])
			continue;
		const cluster *cl = &h->clusters[c];
		if (m->state[cl->root] != S_MAYBE) {
			if (closure[c])
				r->cluster_fate[c] = m->needs_dissolving[c] ? CF_GARBAGE_MUTABLE : CF_REFERENCES_DISSOLVED;
			continue;
		}
		r->cluster_fate[c] = CF_UNREACHABLE_ROOT;
		for (uint32_t k = 0; k < cl->n_members; k++) {
			obj_t x = h->cluster_items[cl->members + k];
			if (!heap_in_disregard(h, x))
				m->state[x] = S_UNREACHABLE;
		}
	}
}

/* Step 7's other half: weak references held by surviving objects the GC
 * never traced are not cleared, even when their target dies. */
static int uncleared_weak(marker *m, gc_result *r)
{
	heap *h = m->h;
	vec out = {0};
	for (uint32_t i = 0; i < h->slots; i++) {
		if (m->state[i] != S_REACHABLE || m->queued[i])
			continue;
		for (uint32_t k = h->ref_start[i]; k < h->ref_start[i + 1]; k++)
			if (h->ref_kind[k] == REF_WEAK && m->state[h->ref_dst[k]] == S_UNREACHABLE && vec_push(&out, k)) {
				vec_free(&out);
				return -1;
			}
	}
	r->uncleared = out.v;
	r->nuncleared = (uint32_t)out.n;
	return 0;
}

/* Steps 6-8 and the purge; step 7's lists unless NO_WEAK_LISTS. */
static int finish(marker *m, gc_result *r, int no_weak_lists)
{
	heap *h = m->h;
	double t0 = now_seconds();
	dissolve(m, r);
	for (uint32_t c = 0; c < h->nclusters; c++)
		r->dissolved[r->cluster_fate[c]]++;
	for (uint32_t i = 0; i < h->slots; i++) {
		if (m->state[i] == S_MAYBE)
			m->state[i] = S_UNREACHABLE;
		/* every state settled; a free slot's never changed, and no other is free */
		assert(m->state[i] != S_MAYBE && (m->state[i] == S_FREE) == (h->cls[i] == OBJ_FREE));
		r->reachable[i] = m->state[i] == S_REACHABLE;
		r->reachable_count += r->reachable[i];
	}
	double t1 = now_seconds();
	/* step 7: weak references to unreachable objects are cleared */
	r->no_weak_lists = no_weak_lists;
	if (!no_weak_lists) {
		vec_sort_unique(&m->weak);
		vec cleared = {0};
		for (size_t k = 0; k < m->weak.n; k++)
			if (m->state[h->ref_dst[m->weak.v[k]]] == S_UNREACHABLE && vec_push(&cleared, m->weak.v[k])) {
				vec_free(&cleared);
				return -1;
			}
		r->cleared = cleared.v;
		r->ncleared = (uint32_t)cleared.n;
		if (uncleared_weak(m, r))
			return -1;
	}
	double t2 = now_seconds();
	/* step 8: gather */
	vec purged = {0};
	for (uint32_t i = 0; i < h->slots; i++)
		if (m->state[i] == S_UNREACHABLE && vec_push(&purged, i)) {
			vec_free(&purged);
			return -1;
		}
	r->purged = (obj_t *)purged.v;
	r->npurged = (uint32_t)purged.n;
	double t3 = now_seconds();
	/* the purge (ugc-gc(7) §2): BeginDestroy all, FinishDestroy the ready
	 * ones (the others pend); all are destroyed on the game thread, so
	 * GameThreadDestroy is only counted */
	for (uint32_t k = 0; k < r->npurged; k++) {
		obj_t x = r->purged[k];
		r->purged_bytes += h->size[x];
		if (h->traits[x] & TR_NotReadyForFinishDestroy) {
			r->pending++;
			r->pending_bytes += h->size[x];
		}
		if (h->traits[x] & TR_GameThreadDestroy) {
			r->game_thread++;
			r->game_thread_bytes += h->size[x];
		}
	}
	/* eliminated references: "g" records first, then "r" ones by
	 * position, then the handed-over ones by (Level, position) */
	vec_sort_unique(&m->elim);
	vec_sort_unique(&m->helim);
	r->neliminated = (uint32_t)(m->g_elim.n + m->elim.n + m->helim.n);
	r->eliminated = malloc((size_t)r->neliminated * sizeof *r->eliminated + 1);
	if (!r->eliminated)
		return -1;
	uint32_t n = 0;
	for (size_t k = 0; k < m->g_elim.n; k++)
		r->eliminated[n++] = (gc_eliminated){OBJ_NONE, h->gcrefs[m->g_elim.v[k]].dst, m->g_elim.v[k], 0};
	for (size_t k = 0; k < m->elim.n; k++) {
		uint32_t pos = m->elim.v[k];
		r->eliminated[n++] = (gc_eliminated){OBJ_NONE, h->ref_dst[pos], pos, 0};
	}
	/* sources of "r" eliminations: walk the rows once */
	uint32_t e = (uint32_t)m->g_elim.n;
	for (uint32_t i = 0; i < h->slots && e < n; i++)
		while (e < n && r->eliminated[e].ref < h->ref_start[i + 1])
			r->eliminated[e++].src = (obj_t)i;
	assert(e == n); /* every eliminated "r" record has its source */
	for (size_t k = 0; k < m->helim.n; k++) {
		const gc_handoff *x = &r->handoff[m->helim.v[k]];
		r->eliminated[n++] = (gc_eliminated){x->level, h->ref_dst[x->ref], x->ref, 1};
	}
	r->time.dissolve = t1 - t0;
	r->time.weak = t2 - t1;
	r->time.gather = t3 - t2;
	r->time.purge = now_seconds() - t3;
	return 0;
}

int gc_run(heap *h, const gc_options *opt, gc_result *r)
{
	memset(r, 0, sizeof *r);
	r->slots = h->slots;
	marker m = {0};
	m.h = h;
	m.keep = opt->keep_flags;
	m.r = r;
	int tests = h->nclusters > 0 || heap_has_garbage(h); /* tbits wanted */
	size_t s = h->slots ? h->slots : 1, nc = h->nclusters ? h->nclusters : 1;
	m.state = malloc(s);
	m.tbits = tests ? malloc(s) : NULL;
	m.queued = calloc(s, 1);
	m.live = calloc(nc, 1);
	m.needs_dissolving = calloc(nc, 1);
	m.step5_queued = calloc(nc, 1);
	m.first = malloc(nc * sizeof *m.first);
	m.cqueue = malloc(nc * sizeof *m.cqueue);
	r->reachable = calloc(s, 1);
	r->gc_target = calloc(s, 1);
	r->cluster_fate = calloc(nc, 1);
	r->cluster_walked = calloc(nc, 1);
	r->cluster_dissolving = calloc(nc, 1);
	r->keep_flags = opt->keep_flags;
	int rc = -1;
	if (!m.state || (tests && !m.tbits) || !m.queued || !m.live ||
	    !m.needs_dissolving || !m.step5_queued || !m.first || !m.cqueue || !r->reachable || !r->gc_target ||
	    !r->cluster_fate || !r->cluster_walked || !r->cluster_dissolving)
		goto out;
	double t0 = now_seconds();
	for (size_t c = 0; c < nc; c++)
		m.first[c] = UINT64_MAX;
	for (uint32_t i = 0; i < h->slots; i++) {
		m.state[i] = h->cls[i] == OBJ_FREE ? S_FREE : heap_in_disregard(h, (obj_t)i) ? S_REACHABLE : S_MAYBE;
		if (m.tbits)
			m.tbits[i] = (uint8_t)((h->in_cluster[i] ? T_CLUSTERED : 0) |
					       (heap_is_garbage(h, (obj_t)i) ? T_GARBAGE : 0));
	}
	if (prepass(&m, r))
		goto out;
	progress_at(1, 4); /* the steps, for the progress line */
	double t1 = now_seconds();
	if (mark(&m, r, opt->threads > 0 ? opt->threads : 1, opt->parallel_min ? opt->parallel_min : PARALLEL_MIN))
		goto out;
	progress_at(2, 4);
	double t2 = now_seconds();
	r->roots = m.roots;
	r->traced = m.traced;
	r->time.prepass = t1 - t0;
	r->time.mark = t2 - t1;
	if (finish(&m, r, opt->no_weak_lists))
		goto out;
	r->was_traced = m.queued; /* handed over to the result */
	r->cluster_live = m.live;
	m.queued = m.live = NULL;
	progress_at(3, 4);
	double t3 = now_seconds();
	if (!opt->defer_retention && gc_retention(h, r, opt->keep_flags))
		goto out;
	r->time.distances = now_seconds() - t3;
	rc = 0;
out:
	free(m.state); free(m.tbits); free(m.queued); free(m.live); free(m.needs_dissolving); free(m.step5_queued);
	free(m.first);
	free(m.cqueue);
	vec_free(&m.next); vec_free(&m.g_elim); vec_free(&m.elim); vec_free(&m.helim); vec_free(&m.weak);
	if (rc)
		gc_result_free(r);
	return rc;
}

void gc_result_free(gc_result *r)
{
	free(r->reachable); free(r->root_kind); free(r->distance); free(r->parent); free(r->via);
	free(r->cluster_fate); free(r->cluster_walked); free(r->cluster_live); free(r->cluster_dissolving); free(r->was_traced); free(r->gc_target); free(r->eliminated); free(r->cleared);
	free(r->uncleared); free(r->purged); free(r->handoff);
	memset(r, 0, sizeof *r);
}
