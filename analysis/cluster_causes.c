/* cluster_causes.c — what dissolved a cluster (see cluster_causes.h). */
#include "analysis/cluster_causes.h"

#include <stdlib.h>

/* Does list entry X count as a cause of a cluster with fate FATE? */
static int is_cause(const heap *h, const gc_result *r, obj_t x, int fate, int in_refs)
{
	if (!heap_exists(h, x))
		return 0;
	if (fate == CF_GARBAGE_MUTABLE)
		return heap_is_garbage(h, x);
	/* references-dissolved: a referenced cluster that was dissolving */
	return in_refs && heap_cluster(h, x) >= 0 && r->cluster_dissolving[heap_cluster(h, x)];
}

int cluster_causes(const heap *h, const gc_result *r, uint32_t c, obj_t **out, size_t *n)
{
	const cluster *cl = &h->clusters[c];
	int fate = r->cluster_fate[c];
	*n = 0;
	*out = malloc(((size_t)cl->n_mutables + cl->n_refs + 1) * sizeof **out);
	if (!*out)
		return -1;
	if (fate == CF_GARBAGE_ROOT) {
		(*out)[(*n)++] = cl->root;
		return 0;
	}
	if (fate != CF_GARBAGE_MUTABLE && fate != CF_REFERENCES_DISSOLVED)
		return 0;
	for (uint32_t k = 0; k < cl->n_mutables; k++) {
		obj_t x = h->cluster_items[cl->mutables + k];
		if (is_cause(h, r, x, fate, 0))
			(*out)[(*n)++] = x;
	}
	for (uint32_t k = 0; k < cl->n_refs; k++) {
		obj_t x = h->cluster_items[cl->refs + k];
		if (is_cause(h, r, x, fate, 1))
			(*out)[(*n)++] = x;
	}
	return 0;
}
