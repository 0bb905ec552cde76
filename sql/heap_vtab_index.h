/* heap_vtab_index.h — what the heap's virtual tables (heap_vtab.c) build on
 * first use to serve lookups: objects grouped by class and by immediate
 * dominator, objects sorted by path hash and by retained size, packages'
 * rows by package, the path
 * hashes themselves, and how many rows a lookup finds on average.  All of
 * it lives in the source's hv_built until the connection closes. */
#ifndef UGC_HEAP_VTAB_INDEX_H
#define UGC_HEAP_VTAB_INDEX_H

#include "sql/heap_vtab.h"

/* Rows grouped by a key: those of key K are item[start[K] .. start[K+1]-1],
 * ascending (start has slots + 1 entries). */
typedef struct hv_csr {
	uint32_t *start, *item;
} hv_csr;

enum hv_key { HK_OUTER, HK_CLASS, HK_IDOM, HK_COUNT };

/* Objects per distinct value of KEY, on average (at least 1). */
double hv_key_spread(vtab_source *s, int key);
/* The objects by KEY (HK_CLASS or HK_IDOM); NULL when out of memory. */
const hv_csr *hv_by_key(vtab_source *s, int key);
/* The objects sorted by (path hash, idx), with the run whose hash is HASH
 * at LO .. HI-1; NULL when out of memory. */
const uint32_t *hv_by_hash(vtab_source *s, uint64_t hash, uint64_t *lo, uint64_t *hi);
/* The objects sorted by retained bytes, NULL (unreached) first, ties by idx;
 * NULL when out of memory. */
const uint32_t *hv_by_retained(vtab_source *s);
/* Every slot's path hash (path_hash.h); NULL when out of memory. */
const uint64_t *hv_path_hashes(vtab_source *s);
/* The rows of retained_by_package (positions in dom.packages) by package
 * index; NULL when out of memory.  hv_find_package: the position of
 * package P's row, UINT32_MAX when none (after hv_by_package). */
const uint32_t *hv_by_package(vtab_source *s);
uint32_t hv_find_package(const vtab_source *s, obj_t p);
/* Per cluster, how many rows of its list LIST (0: members, 1: mutable
 * objects) the clusters before it have: the database's rowid of a list row
 * is that plus its place in its own list plus 1 (heap_row.h); NULL when out
 * of memory. */
const uint32_t *hv_list_first(vtab_source *s, int list);
void hv_built_free(vtab_source *s);
/* heap_vtab_on_demand's record: 0, or -1 when out of memory. */
int hv_set_need(vtab_source *s, vtab_need_fn *need, void *owner);
/* Have the source's NEED compute WHAT (PIPE_* bits) unless done before or
 * there is no NEED: 0, or -1 with the reason in ERR. */
int hv_need(const vtab_source *s, int what, char *err, size_t errsize);

#endif
