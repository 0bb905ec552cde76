/* gccost.c — the mark phase's work by class and package, and what
 * clustering a package would save (gccost.h states the counting rules).
 * Linear in objects and references: packages are found with a memo (no
 * walk of an Outer chain twice), the objects grouped by package with a
 * counting sort, and distinct targets counted with a stamp per object. */
#include <stdlib.h>
#include <string.h>

#include "analysis/gccost.h"

/* Each object's outermost package into PKG (OBJ_NONE for a free slot),
 * remembering every chain it walks.  0, or -1 when out of memory. */
static int packages_of(const heap *h, obj_t *pkg)
{
	uint32_t n = h->slots, *stack = malloc(((size_t)n + 1) * sizeof *stack);
	if (!stack)
		return -1;
	for (uint32_t i = 0; i < n; i++)
		pkg[i] = h->cls[i] == OBJ_FREE ? OBJ_NONE : -2; /* -2: not yet known */
	for (uint32_t i = 0; i < n; i++) {
		if (pkg[i] != -2)
			continue;
		uint32_t sp = 0;
		obj_t x = (obj_t)i;
		/* up the Outer chain (validated heaps have no loops, nor an Outer in a free slot) */
		while (pkg[x] == -2 && h->outer[x] >= 0 && h->cls[h->outer[x]] != OBJ_FREE && sp < n) {
			stack[sp++] = (uint32_t)x;
			x = h->outer[x];
		}
		obj_t top = pkg[x] == -2 ? x : pkg[x];
		pkg[x] = top;
		while (sp > 0)
			pkg[stack[--sp]] = top;
	}
	free(stack);
	return 0;
}

/* The references X's tracing reads (gccost.h). */
static uint64_t trace_visits(const heap *h, const gc_result *r, obj_t x)
{
	uint64_t v = 1 + (h->outer[x] >= 0) + (h->ref_start[x + 1] - h->ref_start[x]);
	for (uint32_t j = gc_handoff_first(r, x); j < r->nhandoff && r->handoff[j].level == x; j++)
		v++;
	return v;
}

static int cmp_rows(const void *a, const void *b)
{
	const gccost_row *x = a, *y = b;
	if (x->visits != y->visits)
		return x->visits < y->visits ? 1 : -1;
	return (x->key > y->key) - (x->key < y->key);
}

static int cmp_candidates(const void *a, const void *b)
{
	const gccost_candidate *x = a, *y = b;
	uint64_t sx = x->visits - x->as_cluster, sy = y->visits - y->as_cluster;
	if (sx != sy)
		return sx < sy ? 1 : -1;
	return (x->package > y->package) - (x->package < y->package);
}

/* The rows of the keys charged (TRACED or CLUSTERS or VISITS non-zero), sorted. */
static int collect(uint32_t slots, const uint32_t *traced, const uint32_t *clusters, const uint64_t *visits,
		   gccost_row **out, uint32_t *n)
{
	uint32_t k = 0;
	for (uint32_t i = 0; i < slots; i++)
		k += visits[i] || traced[i] || clusters[i];
	if (!(*out = malloc(((size_t)k + 1) * sizeof **out)))
		return -1;
	k = 0;
	for (uint32_t i = 0; i < slots; i++)
		if (visits[i] || traced[i] || clusters[i])
			(*out)[k++] = (gccost_row){(obj_t)i, traced[i], clusters[i], visits[i]};
	qsort(*out, k, sizeof **out, cmp_rows);
	*n = k;
	return 0;
}

/* The list entry that a reference from package P to T would be in a
 * cluster of P: T's cluster (its root) when T is clustered and the cluster
 * lives, else T; OBJ_NONE when the GC would not list it (T in the pool or
 * in P). */
static obj_t list_entry(const heap *h, const gc_result *r, const obj_t *pkg, obj_t p, obj_t t)
{
	if (t < 0 || heap_in_disregard(h, t) || pkg[t] == p)
		return OBJ_NONE;
	int32_t c = heap_cluster(h, t);
	return c >= 0 && r->cluster_live[c] ? h->clusters[c].root : t;
}

/* Count list entry E for group G once (STAMP holds, per object, the group
 * + 1 that last counted it). */
static void count_entry(uint32_t *stamp, uint32_t g, obj_t e, uint64_t *entries)
{
	if (e != OBJ_NONE && stamp[e] != g + 1) {
		stamp[e] = g + 1;
		(*entries)++;
	}
}

/* The clustering candidates: ORDER lists the traced objects outside every
 * cluster grouped by package (START[k] .. START[k+1] the k-th package's). */
static int candidates(const heap *h, const gc_result *r, const obj_t *pkg, const uint32_t *order,
		      const uint32_t *start, uint32_t ngroups, gccost *c)
{
	uint32_t *stamp = calloc((size_t)h->slots + 1, sizeof *stamp);
	c->candidates = malloc(((size_t)ngroups + 1) * sizeof *c->candidates);
	if (!stamp || !c->candidates) {
		free(stamp);
		return -1;
	}
	for (uint32_t g = 0; g < ngroups; g++) {
		uint32_t n = start[g + 1] - start[g];
		if (n < 2)
			continue;
		obj_t p = pkg[order[start[g]]];
		uint64_t visits = 0, entries = 0;
		for (uint32_t k = start[g]; k < start[g + 1]; k++) {
			obj_t x = (obj_t)order[k];
			visits += trace_visits(h, r, x);
			count_entry(stamp, g, list_entry(h, r, pkg, p, h->cls[x]), &entries);
			count_entry(stamp, g, list_entry(h, r, pkg, p, h->outer[x]), &entries);
			for (uint32_t j = h->ref_start[x]; j < h->ref_start[x + 1]; j++)
				if (h->ref_kind[j] != REF_WEAK && h->ref_kind[j] != REF_SOFT)
					count_entry(stamp, g, list_entry(h, r, pkg, p, h->ref_dst[j]), &entries);
			for (uint32_t j = gc_handoff_first(r, x); j < r->nhandoff && r->handoff[j].level == x; j++)
				count_entry(stamp, g, list_entry(h, r, pkg, p, h->ref_dst[r->handoff[j].ref]), &entries);
		}
		if (entries < visits)
			c->candidates[c->ncandidates++] = (gccost_candidate){p, n, visits, entries};
	}
	free(stamp);
	qsort(c->candidates, c->ncandidates, sizeof *c->candidates, cmp_candidates);
	return 0;
}

int gccost_measure(const heap *h, const gc_result *r, gccost *c)
{
	memset(c, 0, sizeof *c);
	c->v8 = heap_is_v8(h);
	uint32_t n = h->slots;
	size_t sz = (size_t)n + 1;
	obj_t *pkg = malloc(sz * sizeof *pkg);
	uint32_t *ctraced = calloc(sz, sizeof *ctraced), *ptraced = calloc(sz, sizeof *ptraced);
	uint32_t *cwalked = calloc(sz, sizeof *cwalked), *pwalked = calloc(sz, sizeof *pwalked);
	uint64_t *cvisits = calloc(sz, sizeof *cvisits), *pvisits = calloc(sz, sizeof *pvisits);
	uint32_t *start = calloc(sz + 1, sizeof *start), *order = malloc(sz * sizeof *order);
	uint32_t *next = malloc(sz * sizeof *next); /* the counting sort's next place, per package */
	int rc = -1;
	if (!pkg || !ctraced || !ptraced || !cwalked || !pwalked || !cvisits || !pvisits || !start || !order || !next ||
	    packages_of(h, pkg))
		goto done;
	for (uint32_t i = 0; i < n; i++) {
		if (h->cls[i] == OBJ_FREE)
			continue;
		obj_t x = (obj_t)i;
		if (heap_in_disregard(h, x)) {
			c->disregard_skipped += h->ref_start[i + 1] - h->ref_start[i];
			continue;
		}
		if (!r->was_traced[i])
			continue;
		uint64_t v = trace_visits(h, r, x);
		c->traced++;
		c->trace_visits += v;
		ctraced[h->cls[i]]++;
		cvisits[h->cls[i]] += v;
		ptraced[pkg[i]]++;
		pvisits[pkg[i]] += v;
		if (heap_cluster(h, x) < 0)
			start[pkg[i] + 1]++; /* a candidate's object: counted by package */
	}
	for (uint32_t k = 0; k < h->nclusters; k++) {
		if (!r->cluster_walked[k])
			continue;
		const cluster *cl = &h->clusters[k];
		uint64_t v = (uint64_t)cl->n_refs + cl->n_mutables;
		obj_t root = cl->root;
		c->walked++;
		c->list_visits += v;
		cwalked[h->cls[root]]++;
		cvisits[h->cls[root]] += v;
		pwalked[pkg[root]]++;
		pvisits[pkg[root]] += v;
	}
	c->gc_record_visits = h->ngcrefs;
	c->visits = c->trace_visits + c->list_visits + c->gc_record_visits;
	/* the traced objects outside clusters, grouped by package (counting sort) */
	for (uint32_t p = 0; p < n; p++)
		start[p + 1] += start[p];
	if (collect(n, ctraced, cwalked, cvisits, &c->classes, &c->nclasses) ||
	    collect(n, ptraced, pwalked, pvisits, &c->packages, &c->npackages))
		goto done;
	memcpy(next, start, sz * sizeof *next);
	for (uint32_t i = 0; i < n; i++)
		if (h->cls[i] != OBJ_FREE && !heap_in_disregard(h, (obj_t)i) && r->was_traced[i] &&
		    heap_cluster(h, (obj_t)i) < 0)
			order[next[pkg[i]]++] = i;
	/* groups: the packages with objects, in package order; START compacted */
	uint32_t ngroups = 0;
	for (uint32_t p = 0; p < n; p++)
		if (start[p + 1] > start[p])
			start[ngroups++] = start[p];
	start[ngroups] = start[n];
	rc = candidates(h, r, pkg, order, start, ngroups, c);
done:
	free(pkg);
	free(ctraced);
	free(ptraced);
	free(cwalked);
	free(pwalked);
	free(cvisits);
	free(pvisits);
	free(start);
	free(order);
	free(next);
	if (rc)
		gccost_free(c);
	return rc;
}

void gccost_free(gccost *c)
{
	free(c->classes);
	free(c->packages);
	free(c->candidates);
	memset(c, 0, sizeof *c);
}
