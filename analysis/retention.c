/* retention.c — why each object is alive (ugc-gc(7) §3): its root kind,
 * and the shortest retention path, found breadth-first from the roots in
 * index order following each object's references in tracing order (Class,
 * Outer, the "r" records, then a Level's handed-over Actors).  Each object keeps its parent and the edge
 * taken, so a chain is read back from the object to its root without
 * recursion. */
#include <stdlib.h>
#include <string.h>

#include "analysis/gc.h"

/* How many places ahead the walk fetches what it will read. */
#define AHEAD 6

/* May the path step from X to T over edge kind KIND? */
static inline int follows(const heap *h, const gc_result *r, obj_t t, int kind)
{
	/* the distance first: most targets a breadth-first walk meets are
	 * already on its queue, and this is then their one test */
	if (t < 0 || r->distance[t] != UINT32_MAX || heap_in_disregard(h, t) || !r->reachable[t])
		return 0;
	return ref_retains(kind, heap_is_garbage(h, t));
}

int gc_retention(heap *h, gc_result *r, uint32_t keep)
{
	size_t s = h->slots ? h->slots : 1;
	r->root_kind = malloc(s);
	r->distance = malloc(s * sizeof *r->distance);
	r->parent = malloc(s * sizeof *r->parent);
	r->via = malloc(s * sizeof *r->via);
	obj_t *queue = malloc(s * sizeof *queue);
	if (!r->root_kind || !r->distance || !r->parent || !r->via || !queue) {
		/* all or none: a caller may try again (a view computes
		 * ugc-gc(7) §3 on demand) */
		free(queue);
		free(r->root_kind); free(r->distance); free(r->parent); free(r->via);
		r->root_kind = NULL;
		r->distance = NULL;
		r->parent = NULL;
		r->via = NULL;
		return -1;
	}
	/* cluster members count as kept by their cluster unless it dissolved in step 2 */
	uint32_t head = 0, tail = 0;
	for (uint32_t i = 0; i < h->slots; i++) {
		r->distance[i] = UINT32_MAX;
		r->parent[i] = OBJ_NONE;
		r->via[i] = VIA_NONE;
		r->root_kind[i] = RK_NONE;
		if (!r->reachable[i])
			continue;
		int k = root_kind_static(h, (obj_t)i, keep, r->gc_target[i]);
		if (k == RK_NONE) {
			int32_t c = heap_cluster(h, i);
			int member = c >= 0 && h->clusters[c].root != (obj_t)i;
			k = member && r->cluster_live[c] ? RK_CLUSTER : RK_REFERENCED;
		}
		r->root_kind[i] = (uint8_t)k;
		if (RK_IS_ROOT(k)) {
			r->distance[i] = 0;
			queue[tail++] = (obj_t)i;
		}
	}
	while (head < tail) {
		/* fetched ahead: the rows of the objects a few places on */
		if (head + 2 * AHEAD < tail)
			heap_prefetch_slot(h, queue[head + 2 * AHEAD]);
		if (head + AHEAD < tail)
			heap_prefetch_refs(h, queue[head + AHEAD]);
		obj_t x = queue[head++];
		if (heap_in_disregard(h, x))
			continue; /* never out of the disregard pool */
		uint32_t d = r->distance[x] + 1;
		obj_t t = h->cls[x];
		if (follows(h, r, t, REF_IMMUTABLE)) {
			r->distance[t] = d; r->parent[t] = x; r->via[t] = VIA_CLASS; queue[tail++] = t;
		}
		t = h->outer[x];
		if (follows(h, r, t, REF_IMMUTABLE)) {
			r->distance[t] = d; r->parent[t] = x; r->via[t] = VIA_OUTER; queue[tail++] = t;
		}
		for (uint32_t k = h->ref_start[x], e = h->ref_start[x + 1]; k < e; k++) {
			if (k + AHEAD < e)
				__builtin_prefetch(&r->distance[h->ref_dst[k + AHEAD]]);
			t = h->ref_dst[k];
			if (follows(h, r, t, h->ref_kind[k])) {
				r->distance[t] = d; r->parent[t] = x; r->via[t] = VIA_REF(k); queue[tail++] = t;
			}
		}
		/* a Level's handed-over Actors (ugc-gc(7) §1.2), aro, named by
		 * the container's records */
		for (uint32_t j = r->nhandoff ? gc_handoff_first(r, x) : 0; j < r->nhandoff && r->handoff[j].level == x; j++) {
			uint32_t k = r->handoff[j].ref;
			t = h->ref_dst[k];
			if (follows(h, r, t, REF_ARO)) {
				r->distance[t] = d; r->parent[t] = x; r->via[t] = VIA_REF(k); queue[tail++] = t;
			}
		}
	}
	free(queue);
	return 0;
}
