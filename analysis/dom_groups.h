/* dom_groups.h — the class and package sums of a dominator tree (private
 * to the dominators: analysis/analysis.h does not include it; the sums are
 * dom_result's classes, packages and pairs, see dominators.h). */
#ifndef UGC_DOM_GROUPS_H
#define UGC_DOM_GROUPS_H

#include <stdint.h>

#include "analysis/dominators.h"

/* The dominator tree as semi-NCA leaves it, over the reached nodes'
 * preorder numbers 0 .. N-1: ⊤ is number 0, VERTEX[v] is number v's slot,
 * IDOM[v] its immediate dominator's number, below v (⊤'s own: 0). */
typedef struct dom_numbered {
	uint32_t n;
	const uint32_t *vertex, *idom;
} dom_numbered;

/* Fill D's package column (each object's outermost package), its class
 * and package aggregates and its cross-package pairs, from the tree T over
 * H and D's retained sizes.  Returns 0, or -1 when out of memory (what was
 * filled is D's, for dom_free). */
int dom_groups(const heap *h, const dom_numbered *t, dom_result *d);

#endif
