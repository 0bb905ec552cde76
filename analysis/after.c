/* after.c — builds the post-GC heap (see after.h). */
#include "analysis/after.h"

#include <stdlib.h>
#include <string.h>

#include "base/base.h"

static int push_dangling(heap *o, dangling_ref d)
{
	if (heap_needs_grow(o->ndangling)) {
		dangling_ref *v = realloc(o->dangling, heap_grow_cap(o->ndangling) * sizeof *v);
		if (!v)
			return -1;
		o->dangling = v;
	}
	o->dangling[o->ndangling++] = d;
	return 0;
}

/* Copy the cluster lists of surviving clusters, without purged entries. */
static int copy_clusters(const heap *h, const gc_result *r, heap *o)
{
	o->clusters = malloc((size_t)h->nclusters * sizeof *o->clusters + 1);
	o->cluster_items = malloc((size_t)h->ncluster_items * sizeof *o->cluster_items + 1);
	if (!o->clusters || !o->cluster_items)
		return -1;
	for (uint32_t c = 0; c < h->nclusters; c++) {
		const cluster *x = &h->clusters[c];
		if (r->cluster_fate[c] != CF_ALIVE || !r->reachable[x->root])
			continue;
		cluster *y = &o->clusters[o->nclusters++];
		y->root = x->root;
		uint32_t *starts[3] = {&y->members, &y->mutables, &y->refs};
		uint32_t *counts[3] = {&y->n_members, &y->n_mutables, &y->n_refs};
		const uint32_t from[3] = {x->members, x->mutables, x->refs};
		const uint32_t n[3] = {x->n_members, x->n_mutables, x->n_refs};
		for (int l = 0; l < 3; l++) {
			*starts[l] = o->ncluster_items;
			*counts[l] = 0;
			for (uint32_t k = 0; k < n[l]; k++) {
				obj_t t = h->cluster_items[from[l] + k];
				if (!r->reachable[t])
					continue;
				if (l == 2 && r->cluster_fate[heap_cluster(h, t)] != CF_ALIVE)
					continue;
				o->cluster_items[o->ncluster_items++] = t;
				(*counts[l])++;
			}
		}
	}
	return 0;
}

int gc_after_heap(const heap *h, const gc_result *r, heap *o, obj_t *stale)
{
	heap_init(o);
	*stale = OBJ_NONE;
	for (uint32_t i = 0; i < h->slots; i++)
		if (r->reachable[i] && (!r->reachable[h->cls[i]] || (h->outer[i] >= 0 && !r->reachable[h->outer[i]]))) {
			*stale = (obj_t)i;
			return AFTER_STALE;
		}
	o->engine = h->engine;
	o->label = h->label;
	o->mode = h->mode;
	o->first_gc_index = h->first_gc_index;
	o->no_garbage_elimination = h->no_garbage_elimination;
	strtab_free(&o->strings);
	if (strtab_copy(&o->strings, &h->strings) || heap_grow_slots(o, h->slots))
		return -1;
	if (h->slots) { /* an empty heap has no columns: memcpy(NULL, ...) is undefined even for 0 bytes */
		memcpy(o->serial, h->serial, (size_t)h->slots * sizeof *o->serial);
		memcpy(o->cls, h->cls, (size_t)h->slots * sizeof *o->cls);
		memcpy(o->outer, h->outer, (size_t)h->slots * sizeof *o->outer);
		memcpy(o->name, h->name, (size_t)h->slots * sizeof *o->name);
		memcpy(o->name_num, h->name_num, (size_t)h->slots * sizeof *o->name_num);
		memcpy(o->size, h->size, (size_t)h->slots * sizeof *o->size);
		memcpy(o->oflags, h->oflags, (size_t)h->slots * sizeof *o->oflags);
		memcpy(o->iflags, h->iflags, (size_t)h->slots * sizeof *o->iflags);
		memcpy(o->traits, h->traits, (size_t)h->slots * sizeof *o->traits);
	}
	o->objects = h->objects - r->npurged;
	for (uint32_t k = 0; k < r->npurged; k++) {
		obj_t x = r->purged[k];
		o->cls[x] = OBJ_FREE;
		o->serial[x] = 0;
		o->outer[x] = OBJ_NONE;
		o->name[x] = o->name_num[x] = o->size[x] = o->oflags[x] = 0;
		o->iflags[x] = 0;
		o->traits[x] = 0;
	}
	/* references: drop those of purged objects, eliminated and cleared ones */
	uint8_t *drop = calloc((size_t)h->nrefs + 1, 1);
	uint8_t *gdrop = calloc((size_t)h->ngcrefs + 1, 1);
	o->ref_start = malloc(((size_t)h->slots + 1) * sizeof *o->ref_start);
	o->ref_dst = malloc((size_t)h->nrefs * sizeof *o->ref_dst + 1);
	o->ref_prop = malloc((size_t)h->nrefs * sizeof *o->ref_prop + 1);
	o->ref_kind = malloc((size_t)h->nrefs + 1);
	o->gcrefs = malloc((size_t)h->ngcrefs * sizeof *o->gcrefs + 1);
	int rc = -1;
	if (!drop || !gdrop || !o->ref_start || !o->ref_dst || !o->ref_prop || !o->ref_kind || !o->gcrefs)
		goto out;
	for (uint32_t k = 0; k < r->neliminated; k++) {
		if (r->eliminated[k].src == OBJ_NONE)
			gdrop[r->eliminated[k].ref] = 1;
		else
			drop[r->eliminated[k].ref] = 1;
	}
	for (uint32_t k = 0; k < r->ncleared; k++)
		drop[r->cleared[k]] = 1;
	uint32_t n = 0;
	for (uint32_t i = 0; i < h->slots; i++) {
		o->ref_start[i] = n;
		if (o->cls[i] == OBJ_FREE)
			continue;
		for (uint32_t k = h->ref_start[i]; k < h->ref_start[i + 1]; k++) {
			if (drop[k])
				continue;
			obj_t t = h->ref_dst[k];
			if (o->cls[t] == OBJ_FREE) {
				if (push_dangling(o, (dangling_ref){(obj_t)i, t, h->ref_prop[k], h->ref_kind[k]}))
					goto out;
				continue;
			}
			o->ref_dst[n] = t;
			o->ref_prop[n] = h->ref_prop[k];
			o->ref_kind[n] = h->ref_kind[k];
			n++;
		}
	}
	o->ref_start[h->slots] = n;
	o->nrefs = n;
	for (uint32_t k = 0; k < h->ndangling; k++)
		if (o->cls[h->dangling[k].src] != OBJ_FREE && push_dangling(o, h->dangling[k]))
			goto out;
	for (uint32_t g = 0; g < h->ngcrefs; g++)
		if (!gdrop[g])
			o->gcrefs[o->ngcrefs++] = h->gcrefs[g];
	if (copy_clusters(h, r, o) || heap_index_clusters(o))
		goto out;
	rc = 0;
out:
	free(drop);
	free(gdrop);
	return rc;
}
