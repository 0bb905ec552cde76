/* topn.h — the best N of many candidates: the tool's one top-N rule
 * (top's objects; the classes of info, analyze and whatif through
 * analysis/class_hist.h; suspects' classes).
 *
 * A candidate is a key and an index; the better of two has the larger key,
 * and of equal keys the lower index.  The best CAP are kept in a bounded
 * heap whose top is the worst of them, so a candidate no better than that
 * costs one comparison and a 10M-object heap needs no 10M-row array. */
#ifndef UGC_TOPN_H
#define UGC_TOPN_H

#include <stddef.h>
#include <stdint.h>

typedef struct ranked {
	uint64_t key;
	uint32_t idx;
} ranked;

typedef struct topn {
	ranked *v;     /* the best so far, V[0] the worst of them (a heap) */
	size_t n, cap; /* kept, and how many to keep */
} topn;

/* Whether A ranks before B. */
static inline int ranked_before(ranked a, ranked b) { return a.key != b.key ? a.key > b.key : a.idx < b.idx; }

/* Keep the best CAP; 0, or -1 when out of memory. */
int topn_init(topn *t, size_t cap);
void topn_keep(topn *t, ranked r); /* (topn_offer's slow path) */
/* Offer the candidate (KEY, IDX). */
static inline void topn_offer(topn *t, uint64_t key, uint32_t idx)
{
	ranked r = {key, idx};
	if (t->n < t->cap || (t->cap && ranked_before(r, t->v[0])))
		topn_keep(t, r);
}
/* The kept candidates, best first, in V[0 .. N) (then no more offers). */
void topn_sort(topn *t);
void topn_free(topn *t);

#endif
