/* whatif.c — counterfactuals: the changes applied to a copy of the heap,
 * the GC run again, the objects it would now free (see whatif.h). */
#include "analysis/whatif.h"

#include <stdlib.h>
#include <string.h>

#include "base/base.h"

const char *const whatif_kind_names[WI_KIND_COUNT] = {
	"garbage", "cut", "unroot", "null", "null", "drop-referencer", "drop-gcref", "drop-list-entry",
};

/* Does "g" record G go under CHANGE? */
static int gcref_goes(const heap *h, uint32_t g, const whatif_change *c)
{
	const gc_ref *x = &h->gcrefs[g];
	if (c->kind == WI_CUT || c->kind == WI_UNROOT)
		return x->dst == c->obj;
	if (c->kind == WI_DROP_GCREF)
		return g == c->record;
	return c->kind == WI_DROP_REFERENCER && x->referencer == c->str;
}

/* Does OBJ's "r" record at position K go under a null CHANGE? */
static int record_goes(const heap *h, uint32_t k, const whatif_change *c)
{
	if (c->kind == WI_NULL_PROPERTY)
		return h->ref_prop[k] == c->str;
	return c->kind == WI_NULL_RECORD && k - h->ref_start[c->obj] == c->record;
}

static int is_null(const whatif_change *c)
{
	return c->kind == WI_NULL_PROPERTY || c->kind == WI_NULL_RECORD;
}

uint32_t whatif_count(const heap *h, const whatif_change *c)
{
	uint32_t n = 0;
	for (uint32_t g = 0; g < h->ngcrefs; g++)
		n += gcref_goes(h, g, c);
	if (is_null(c))
		for (uint32_t k = h->ref_start[c->obj]; k < h->ref_start[c->obj + 1]; k++)
			n += record_goes(h, k, c);
	if (c->kind == WI_DROP_LIST_ENTRY)
		return c->record < h->ncluster_items;
	if (c->kind != WI_CUT)
		return n;
	for (uint32_t k = 0; k < h->nrefs; k++)
		n += h->ref_dst[k] == c->obj;
	for (uint32_t i = 0; i < h->slots; i++)
		n += h->cls[i] != OBJ_FREE && ((h->cls[i] == c->obj) + (h->outer[i] == c->obj));
	for (uint32_t c2 = 0; c2 < h->nclusters; c2++) {
		const cluster *cl = &h->clusters[c2];
		for (uint32_t k = 0; k < cl->n_mutables; k++)
			n += h->cluster_items[cl->mutables + k] == c->obj;
		for (uint32_t k = 0; k < cl->n_refs; k++)
			n += h->cluster_items[cl->refs + k] == c->obj;
	}
	return n;
}

static int push_target(vec *v, uint8_t *seen, obj_t x)
{
	if (seen[x])
		return 0;
	seen[x] = 1;
	return vec_push(v, (uint32_t)x);
}

int whatif_targets(const heap *h, const whatif_change *c, size_t n, obj_t **out, uint32_t *nout)
{
	vec v = {0};
	uint8_t *seen = calloc(h->slots ? h->slots : 1, 1);
	int rc = seen ? 0 : -1;
	for (size_t j = 0; j < n && rc == 0; j++) {
		if (c[j].kind == WI_GARBAGE || c[j].kind == WI_CUT || c[j].kind == WI_UNROOT)
			rc = push_target(&v, seen, c[j].obj);
		else if (is_null(&c[j]))
			for (uint32_t k = h->ref_start[c[j].obj]; k < h->ref_start[c[j].obj + 1] && rc == 0; k++)
				if (record_goes(h, k, &c[j]))
					rc = push_target(&v, seen, h->ref_dst[k]);
		if (c[j].kind == WI_DROP_LIST_ENTRY && c[j].record < h->ncluster_items)
			rc = push_target(&v, seen, h->cluster_items[c[j].record]);
		if (c[j].kind == WI_DROP_REFERENCER || c[j].kind == WI_DROP_GCREF)
			for (uint32_t g = 0; g < h->ngcrefs && rc == 0; g++)
				if (gcref_goes(h, g, &c[j]) && heap_exists(h, h->gcrefs[g].dst))
					rc = push_target(&v, seen, h->gcrefs[g].dst);
	}
	free(seen);
	if (rc)
		vec_free(&v);
	*out = (obj_t *)v.v;
	*nout = (uint32_t)v.n;
	return rc;
}

/* Replace the column *COL (BYTES long) by a private copy, once. */
static int own_copy(whatif_result *w, void *col, size_t bytes)
{
	void **p = col;
	for (int k = 0; k < w->nowned; k++)
		if (w->owned[k] == *p)
			return 0;
	if (w->nowned == WHATIF_MAX_OWNED)
		return -1;
	void *copy = malloc(bytes + 1);
	if (!copy)
		return -1;
	if (bytes)
		memcpy(copy, *p, bytes);
	*p = w->owned[w->nowned++] = copy;
	return 0;
}

static int own_new(whatif_result *w, void *p)
{
	if (!p || w->nowned == WHATIF_MAX_OWNED) {
		free(p);
		return -1;
	}
	w->owned[w->nowned++] = p;
	return 0;
}

/* Root reasons go: RootSet, RefCounted, the KeepFlags object flags. */
static void unroot(heap *g, obj_t x, uint32_t keep)
{
	g->iflags[x] &= (uint16_t)~(IF_RootSet | IF_RefCounted);
	g->oflags[x] &= ~keep;
}

/* Cut targets: the implicit Class and Outer references into them. */
static int cut_implicit(whatif_result *w, const uint8_t *cut)
{
	heap *g = &w->gc_heap;
	size_t col = (size_t)g->slots * sizeof(obj_t);
	for (uint32_t i = 0; i < g->slots; i++) {
		if (g->cls[i] == OBJ_FREE)
			continue;
		if (cut[g->cls[i]]) {
			if (own_copy(w, &g->cls, col))
				return -1;
			g->cls[i] = OBJ_NONE;
			w->implicit_removed++;
		}
		if (g->outer[i] >= 0 && cut[g->outer[i]]) {
			if (own_copy(w, &g->outer, col))
				return -1;
			g->outer[i] = OBJ_NONE;
			w->implicit_removed++;
		}
	}
	return 0;
}

/* Cut targets (CUT, NULL when none) leave every MutableObjects and
 * ReferencedClusters list, and so do the entries DROP (per cluster item,
 * NULL when none) marks; the lists are rebuilt, and ReferencedByClusters
 * with them. */
#define ITEM_GOES(at) ((cut && cut[items[at]]) || (drop && drop[at]))
static int cut_lists(whatif_result *w, const uint8_t *cut, const uint8_t *drop)
{
	heap *g = &w->gc_heap;
	const obj_t *items = g->cluster_items;
	uint32_t hits = 0;
	for (uint32_t c = 0; c < g->nclusters; c++) {
		const cluster *cl = &g->clusters[c];
		for (uint32_t k = 0; k < cl->n_mutables; k++)
			hits += ITEM_GOES(cl->mutables + k);
		for (uint32_t k = 0; k < cl->n_refs; k++)
			hits += ITEM_GOES(cl->refs + k);
	}
	if (!hits)
		return 0;
	cluster *cls = malloc((size_t)g->nclusters * sizeof *cls + 1);
	obj_t *out = malloc((size_t)g->ncluster_items * sizeof *out + 1);
	if (own_new(w, cls) || own_new(w, out))
		return -1;
	uint32_t n = 0;
	for (uint32_t c = 0; c < g->nclusters; c++) {
		const cluster *x = &g->clusters[c];
		cluster *y = &cls[c];
		y->root = x->root;
		y->members = n;
		y->n_members = x->n_members;
		memcpy(out + n, items + x->members, (size_t)x->n_members * sizeof *out);
		n += x->n_members;
		y->mutables = n;
		for (uint32_t k = 0; k < x->n_mutables; k++)
			if (!ITEM_GOES(x->mutables + k))
				out[n++] = items[x->mutables + k];
		y->n_mutables = n - y->mutables;
		y->refs = n;
		for (uint32_t k = 0; k < x->n_refs; k++)
			if (!ITEM_GOES(x->refs + k))
				out[n++] = items[x->refs + k];
		y->n_refs = n - y->refs;
	}
	w->list_entries_removed += g->ncluster_items - n;
	g->clusters = cls;
	g->cluster_items = out;
	g->ncluster_items = n;
	/* derived: the cluster column (unchanged) and ReferencedByClusters */
	g->in_cluster = calloc((size_t)g->slots + 1, sizeof *g->in_cluster);
	g->refby_start = NULL;
	g->cluster_refby = NULL;
	if (own_new(w, g->in_cluster))
		return -1;
	int rc = heap_index_clusters(g);
	rc |= own_new(w, g->refby_start);
	rc |= own_new(w, g->cluster_refby);
	return rc ? -1 : 0;
}
#undef ITEM_GOES

/* The "g" records that stay. */
static int drop_gcrefs(whatif_result *w, const whatif_change *c, size_t n)
{
	heap *g = &w->gc_heap;
	gc_ref *keep = malloc((size_t)g->ngcrefs * sizeof *keep + 1);
	if (own_new(w, keep))
		return -1;
	uint32_t m = 0;
	for (uint32_t k = 0; k < g->ngcrefs; k++) {
		int goes = 0;
		for (size_t j = 0; j < n && !goes; j++)
			goes = gcref_goes(g, k, &c[j]);
		if (!goes)
			keep[m++] = g->gcrefs[k];
	}
	w->gcrefs_removed = g->ngcrefs - m;
	g->gcrefs = keep;
	g->ngcrefs = m;
	return 0;
}

/* The "r" records that go: masked as soft (see whatif.h). */
static int drop_refs(whatif_result *w, const whatif_change *c, size_t n, const uint8_t *cut, int any_cut)
{
	heap *g = &w->gc_heap;
	vec gone = {0};
	int rc = 0;
	if (any_cut)
		for (uint32_t k = 0; k < g->nrefs && rc == 0; k++)
			if (cut[g->ref_dst[k]])
				rc = vec_push(&gone, k);
	for (size_t j = 0; j < n && rc == 0; j++)
		if (is_null(&c[j]))
			for (uint32_t k = g->ref_start[c[j].obj]; k < g->ref_start[c[j].obj + 1] && rc == 0; k++)
				if (record_goes(g, k, &c[j]))
					rc = vec_push(&gone, k);
	if (rc == 0 && gone.n)
		rc = own_copy(w, &g->ref_kind, g->nrefs);
	vec_sort_unique(&gone);
	for (size_t k = 0; k < gone.n && rc == 0; k++)
		g->ref_kind[gone.v[k]] = REF_SOFT;
	w->refs_removed = (uint32_t)gone.n;
	vec_free(&gone);
	return rc;
}

static int apply(whatif_result *w, const whatif_change *c, size_t n, uint32_t keep)
{
	heap *g = &w->gc_heap;
	int flags = 0, any_cut = 0, any_g = 0, any_list = 0;
	for (size_t j = 0; j < n; j++) {
		flags |= c[j].kind == WI_GARBAGE || c[j].kind == WI_CUT || c[j].kind == WI_UNROOT;
		any_cut |= c[j].kind == WI_CUT;
		any_g |= c[j].kind == WI_CUT || c[j].kind == WI_UNROOT || c[j].kind == WI_DROP_REFERENCER ||
			 c[j].kind == WI_DROP_GCREF;
		any_list |= c[j].kind == WI_DROP_LIST_ENTRY;
	}
	if (flags && (own_copy(w, &g->iflags, (size_t)g->slots * sizeof *g->iflags) ||
		      own_copy(w, &g->oflags, (size_t)g->slots * sizeof *g->oflags)))
		return -1;
	for (size_t j = 0; j < n; j++) {
		obj_t x = c[j].obj;
		if (c[j].kind == WI_GARBAGE) {
			g->iflags[x] |= IF_Garbage;
			g->oflags[x] |= RF_MirroredGarbage;
		} else if (c[j].kind == WI_CUT || c[j].kind == WI_UNROOT) {
			unroot(g, x, keep);
		}
	}
	uint8_t *cut = any_cut ? calloc(g->slots ? g->slots : 1, 1) : NULL;
	if (any_cut && !cut)
		return -1;
	for (size_t j = 0; j < n; j++)
		if (c[j].kind == WI_CUT)
			cut[c[j].obj] = 1;
	int rc = drop_refs(w, c, n, cut, any_cut);
	if (rc == 0 && any_g)
		rc = drop_gcrefs(w, c, n);
	if (rc == 0 && any_cut)
		rc = cut_implicit(w, cut) ? -1 : 0;
	uint8_t *drop = any_list && rc == 0 ? calloc((size_t)g->ncluster_items + 1, 1) : NULL;
	if (any_list && rc == 0 && !drop)
		rc = -1;
	for (size_t j = 0; j < n && drop; j++)
		if (c[j].kind == WI_DROP_LIST_ENTRY && c[j].record < g->ncluster_items)
			drop[c[j].record] = 1;
	if (rc == 0 && (any_cut || any_list))
		rc = cut_lists(w, cut, drop);
	free(drop);
	free(cut);
	return rc;
}

/* The objects whose reachability went from A to B. */
static int compare(const heap *h, const uint8_t *a, const uint8_t *b, obj_t **out, uint32_t *n, uint64_t *bytes)
{
	vec v = {0};
	*bytes = 0;
	for (uint32_t i = 0; i < h->slots; i++)
		if (h->cls[i] != OBJ_FREE && a[i] && !b[i]) {
			if (vec_push(&v, i)) {
				vec_free(&v);
				return -1;
			}
			*bytes += h->size[i];
		}
	*out = (obj_t *)v.v;
	*n = (uint32_t)v.n;
	return 0;
}

int whatif_run(const heap *h, const gc_result *before, const gc_options *opt, const whatif_change *changes, size_t n,
	       whatif_result *out)
{
	memset(out, 0, sizeof *out);
	out->gc_heap = *h;
	/* derived indexes are the input's: the copy builds none of its own */
	heap *g = &out->gc_heap;
	g->rev_start = g->rev_ref = NULL;
	g->rev_src = NULL;
	g->child_start = NULL;
	g->child = NULL;
	g->in_links = NULL; /* the input's, and the changes may make them untrue */
	if (apply(out, changes, n, opt->keep_flags) || gc_run(g, opt, &out->after))
		goto fail;
	out->shown = *g;
	out->shown.cls = h->cls;
	out->shown.outer = h->outer;
	if (compare(h, before->reachable, out->after.reachable, &out->lost, &out->nlost, &out->lost_bytes) ||
	    compare(h, out->after.reachable, before->reachable, &out->gained, &out->ngained, &out->gained_bytes))
		goto fail;
	return 0;
fail:
	whatif_free(out);
	return -1;
}

void whatif_free(whatif_result *w)
{
	for (int k = 0; k < w->nowned; k++)
		free(w->owned[k]);
	gc_result_free(&w->after);
	free(w->lost);
	free(w->gained);
	memset(w, 0, sizeof *w);
}
