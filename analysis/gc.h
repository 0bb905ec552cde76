/* gc.h — Unreal Engine's garbage collection, run offline on a heap.
 *
 * gc_run() follows ugc-gc(7) §1 and §2 step by step: disregard pool,
 * cluster pre-pass, roots, tracing with reference elimination and weak
 * references remembered, cluster reachability, dissolution, weak clearing,
 * gathering and the purge; then the root kinds and retention distances of
 * ugc-gc(7) §3 (unless deferred).  The result leaves the heap untouched.
 *
 * Marking order (ugc-gc(7) §5).  The engine marks with many threads in no
 * fixed order, and where cluster lists disagree with the members'
 * references its answer can depend on that order (a cluster root marked
 * through another cluster's ReferencedClusters does no step 5).  We fix one
 * order the engine can take: step 2's walks in c-record order, then
 * breadth-first levels, each level's objects in index order, each
 * object's references in tracing order, and a cluster's step 5 done as soon
 * as it becomes reachable.  Only the cluster work depends on that order.
 * The rest of a level (marking plain objects, recording eliminated and weak
 * references) runs in whatever order its chunks are taken, on the options'
 * threads (at most 64) when the level holds parallel_min objects or more,
 * else on the calling thread; the cluster work it finds is recorded with the
 * reference's position (source index, then edge) and then done on the
 * calling thread in that order.  So any thread count gives the same answer,
 * and the answer is the one single-threaded marking in that order would
 * give. */
#ifndef UGC_GC_H
#define UGC_GC_H

#include <stdint.h>

#include "snapshot/snapshot.h"

/* Why a reachable object is alive (ugc-gc(7) §3.1); RK_NONE for
 * unreachable or free. */
enum root_kind {
	RK_DISREGARD, RK_ROOTSET, RK_REFCOUNTED, RK_INTERNAL_KEEP, RK_KEEPFLAGS,
	RK_GCOBJECT, RK_CLUSTER, RK_REFERENCED, RK_COUNT, RK_NONE = 255
};
extern const char *const root_kind_names[RK_COUNT];
int root_kind_parse(const char *s); /* RK_NONE when S names no kind (or is NULL) */
#define RK_IS_ROOT(k) ((k) <= RK_GCOBJECT)

/* What became of a cluster in this GC. */
enum cluster_fate {
	CF_ALIVE, CF_GARBAGE_ROOT, CF_REFERENCES_DISSOLVED, CF_UNREACHABLE_ROOT,
	CF_GARBAGE_MUTABLE, CF_COUNT
};
extern const char *const cluster_fate_names[CF_COUNT]; /* "alive", "garbage-root", ... */

typedef struct gc_options {
	int mode;            /* enum gc_mode */
	uint32_t keep_flags; /* object flags that keep an object alive */
	int threads;         /* marking threads, >= 1 */
	uint32_t parallel_min; /* smallest level traced on several threads; 0: default */
	int defer_retention; /* 1: leave ugc-gc(7) §3 (root kinds, distances) to
			      * a later gc_retention() call, so a caller that
			      * first needs other large arrays does not hold
			      * both at once */
	int no_weak_lists;   /* 1: leave step 7's lists (cleared and uncleared
			      * weak references) empty: a caller that reads only
			      * what lives (cut's proof) need not wait for them */
} gc_options;

/* KeepFlags the engine uses in MODE (GARBAGE_COLLECTION_KEEPFLAGS). */
uint32_t gc_default_keep_flags(int mode);

/* A reference the GC nulls: a "r" record (ref = its forward position), a
 * "g" record (src = OBJ_NONE, ref = its index in heap.gcrefs), or a handed
 * over one (handoff = 1, src = the Level, ref = the container's record). */
typedef struct gc_eliminated {
	obj_t src, dst;
	uint32_t ref;
	uint32_t handoff; /* 0 or 1; a whole word, so the struct has no padding */
} gc_eliminated;

/* A reference handed over in step 2 (ugc-gc(7) §1.2): a cluster that step 2
 * dissolves and whose root's class is LevelActorContainer gives its Outer
 * (the Level: OnClusterMarkedAsPendingKill moves the Actors into
 * ULevel::ActorsForGC) each of the root's "r" records whose property starts
 * with "Actors", as an aro reference followed after the Level's own
 * records.  REF is the container's record (its forward position). */
typedef struct gc_handoff {
	obj_t level;
	uint32_t ref;
} gc_handoff;

/* Does a reference of KIND (REF_*; Class and Outer count as immutable) keep
 * its target on a retention path (ugc-gc(7) §3.2)?  Strong and aro only
 * when the target is not garbage: the GC nulls those. */
static inline int ref_retains(int kind, int target_garbage)
{
	return kind == REF_IMMUTABLE || ((kind == REF_STRONG || kind == REF_ARO) && !target_garbage);
}

/* Phase timings, in seconds. */
typedef struct gc_timing {
	double prepass, mark, dissolve, weak, gather, purge, distances;
} gc_timing;

/* Per-object edge to the parent on the shortest retention path. */
#define VIA_CLASS 0u
#define VIA_OUTER 1u
#define VIA_REF(k) ((k) + 2u)  /* the forward reference at position k */
#define VIA_NONE UINT32_MAX

typedef struct gc_result {
	uint32_t slots;
	uint8_t *reachable;     /* per slot: 1 reachable after the whole pipeline */
	uint8_t *root_kind;     /* per slot: enum root_kind, RK_NONE when unreachable */
	uint32_t *distance;     /* per slot: hops from a root, UINT32_MAX none */
	obj_t *parent;          /* per slot: previous object on the shortest path */
	uint32_t *via;          /* per slot: VIA_* edge from parent */
	uint8_t *cluster_fate;  /* per cluster: enum cluster_fate */
	uint8_t *gc_target;     /* per slot: 1 if a "g" record names it */
	uint8_t *cluster_walked;/* per cluster: 1 if it did step 5 (its lists were walked) */
	uint8_t *cluster_live;  /* per cluster: 1 if not dissolved in step 2 */
	uint8_t *cluster_dissolving; /* per cluster: 1 if step 2 dissolved it, or step 6
				 * found it needs dissolving (a garbage list entry, or
				 * it references such a cluster): dissolved, or gone
				 * as unreachable-root when its root was not reached */
	uint8_t *was_traced;    /* per slot: 1 if the GC traced it (put it on the work list) */
	uint32_t keep_flags;    /* the KeepFlags this GC ran with */

	gc_eliminated *eliminated; /* "g" ones first (record order), then "r" ones by position */
	uint32_t neliminated;
	uint32_t *cleared;      /* forward positions of cleared weak references, ascending */
	uint32_t ncleared;
	uint32_t *uncleared;    /* forward positions of weak references the GC leaves
				 * pointing at an object it destroys: held by a surviving
				 * object it never traced (step 7), ascending */
	uint32_t nuncleared;
	int no_weak_lists;      /* 1: the run left both lists out (gc_options.no_weak_lists):
				 * they are unknown, not empty */
	obj_t *purged;          /* unreachable objects, ascending */
	uint32_t npurged;
	gc_handoff *handoff;    /* step 2's handed-over references, by (level, ref) */
	uint32_t nhandoff;

	/* purge figures */
	uint64_t purged_bytes, pending_bytes, game_thread_bytes;
	uint32_t pending, game_thread;
	/* marking figures */
	uint32_t roots, traced, reachable_count;
	uint32_t dissolved[CF_COUNT];
	gc_timing time;
} gc_result;

/* Run the whole pipeline.  Returns 0, or -1 when out of memory. */
int gc_run(heap *h, const gc_options *opt, gc_result *r);
void gc_result_free(gc_result *r);

/* Would step 2 walk cluster C's lists (the engine's KeepClusters): has its
 * root or a member a root flag (RootSet, RefCounted or an internal keep
 * flag; KeepFlags are not root flags)?  Decided before the dissolution. */
int gc_cluster_kept(const heap *h, uint32_t c);

/* The first of R's handed-over references whose Level is X: an index into
 * r->handoff, r->nhandoff when there is none.  The range goes on while
 * r->handoff[k].level == X. */
static inline uint32_t gc_handoff_first(const gc_result *r, obj_t x)
{
	uint32_t lo = 0, hi = r->nhandoff;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (r->handoff[mid].level < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* ugc-gc(7) §3 for a marked result: fills root_kind, distance, parent and
 * via. */
int gc_retention(heap *h, gc_result *r, uint32_t keep_flags);

/* The root kind (ugc-gc(7) §3.1) of object I before any GC (used by
 * `info`), given whether a "g" record names it; RK_NONE when it is no root.
 * Inline: the dominators ask it of every object (and with no KEEP flags, a
 * V8 heap's case, the object flags are not read). */
static inline int root_kind_static(const heap *h, obj_t i, uint32_t keep, int gc_target)
{
	if (heap_in_disregard(h, i))
		return RK_DISREGARD;
	if (h->iflags[i] & IF_RootSet)
		return RK_ROOTSET;
	if (h->iflags[i] & IF_RefCounted)
		return RK_REFCOUNTED;
	if (h->iflags[i] & IF_INTERNAL_KEEP)
		return RK_INTERNAL_KEEP;
	if (keep && (h->oflags[i] & keep) && !heap_is_garbage(h, i))
		return RK_KEEPFLAGS;
	if (gc_target && !heap_is_garbage(h, i))
		return RK_GCOBJECT;
	return RK_NONE;
}

#endif
