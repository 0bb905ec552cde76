/* cluster_causes.h — what dissolved a cluster, named from the GC result:
 * the cause first, so a user need not read a 50,000-line member list to
 * find the one garbage object that brought a cluster down. */
#ifndef UGC_CLUSTER_CAUSES_H
#define UGC_CLUSTER_CAUSES_H

#include <stddef.h>

#include "analysis/gc.h"

/* The objects that made cluster C (an index into heap.clusters) dissolve,
 * by its fate (gc.h):
 *   garbage-root          its root, which is garbage;
 *   garbage-mutable       the garbage entries of its MutableObjects, then of
 *                         its ReferencedClusters, in list order;
 *   references-dissolved  the entries of its ReferencedClusters whose cluster
 *                         was dissolving (gc_result.cluster_dissolving), in
 *                         list order;
 *   alive, unreachable-root  none (an unreachable root is its own cause).
 * *OUT is malloc'd (never NULL on success, even when *N is 0).  0, or -1
 * when out of memory. */
int cluster_causes(const heap *h, const gc_result *r, uint32_t c, obj_t **out, size_t *n);

#endif
