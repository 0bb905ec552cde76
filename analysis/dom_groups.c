/* dom_groups.c — the class and package sums of a dominator tree (see
 * dom_groups.h).
 *
 * A group is every reached object of one class, or of one package (its
 * outermost Outer).  Its retained bytes are what would go if all of its
 * objects lost their incoming references: the retained sizes of its
 * objects that no object of the group dominates, each byte counted once.
 * One depth-first walk of the dominator tree a key (class, package), the
 * two on two threads, each writing only its own groups, counts per group
 * the objects on the path from ⊤ to find those.  The cross-package pairs
 * follow from each object's immediate dominator. */
#include "analysis/dom_groups.h"

#include <stdlib.h>
#include <string.h>

#include "base/base.h"

/* Each object's outermost package (validated heaps have no Outer loops). */
static int packages(const heap *h, obj_t *pkg)
{
	vec chain = {0};
	for (uint32_t i = 0; i < h->slots; i++)
		pkg[i] = OBJ_NONE - 1; /* not yet known */
	for (uint32_t i = 0; i < h->slots; i++) {
		if (h->cls[i] == OBJ_FREE) {
			pkg[i] = OBJ_NONE;
			continue;
		}
		obj_t x = (obj_t)i;
		chain.n = 0;
		while (pkg[x] == OBJ_NONE - 1 && h->outer[x] >= 0 && ALWAYS(chain.n <= h->slots)) {
			if (vec_push(&chain, (uint32_t)x)) {
				vec_free(&chain);
				return -1;
			}
			x = h->outer[x];
		}
		obj_t top = pkg[x] != OBJ_NONE - 1 ? pkg[x] : x;
		pkg[x] = top;
		for (size_t k = 0; k < chain.n; k++)
			pkg[chain.v[k]] = top;
	}
	vec_free(&chain);
	return 0;
}

static int cmp_group(const void *a, const void *b)
{
	const dom_group *x = a, *y = b;
	if (x->retained != y->retained)
		return x->retained < y->retained ? 1 : -1;
	return (x->key > y->key) - (x->key < y->key);
}

static int cmp_pair_key(const void *a, const void *b)
{
	const dom_pair *x = a, *y = b;
	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	return (x->to > y->to) - (x->to < y->to);
}

static int cmp_pair_bytes(const void *a, const void *b)
{
	const dom_pair *x = a, *y = b;
	if (x->bytes != y->bytes)
		return x->bytes < y->bytes ? 1 : -1;
	return cmp_pair_key(a, b);
}

/* Give each distinct KEY[i] of the reached objects a dense id in MAP. */
static dom_group *groups_for(const dom_numbered *t, const obj_t *key, int32_t *map, uint32_t *ngroups)
{
	dom_group *g = NULL;
	size_t cap = 0;
	uint32_t n = 0;
	for (uint32_t i = 1; i < t->n; i++) {
		obj_t k = key[t->vertex[i]];
		assert(k >= 0); /* a reached object has a class, and a package */
		if (map[k] >= 0)
			continue;
		if (grow_array((void **)&g, &cap, n, sizeof *g)) {
			free(g);
			return NULL;
		}
		map[k] = (int32_t)n;
		g[n++] = (dom_group){k, 0, 0, 0};
	}
	*ngroups = n;
	return g ? g : calloc(1, sizeof *g);
}

/* One aggregate: the dominator tree (children rows CSTART, CHILD by preorder
 * number) walked for one KEY (per slot: class or package), counting per
 * group the instances on the path from ⊤; an object adds its retained size
 * only when none of its dominators is of its own group: so no byte is
 * counted twice. */
typedef struct group_job {
	const heap *h;
	const dom_numbered *t;
	const dom_result *d;
	const uint32_t *cstart, *child;
	const obj_t *key;
	const int32_t *map; /* key -> group */
	dom_group *g;
	uint32_t ngroups;
	int rc;
} group_job;

static void *group_walk(void *arg)
{
	group_job *j = arg;
	const dom_numbered *t = j->t;
	const uint32_t *cstart = j->cstart;
	uint32_t *count = calloc((size_t)j->ngroups + 1, sizeof *count);
	uint32_t *stack = malloc((size_t)t->n * sizeof *stack), *spos = malloc((size_t)t->n * sizeof *spos);
	j->rc = -1;
	if (count && stack && spos) {
		uint32_t sp = 0;
		stack[sp] = 0;
		spos[sp++] = cstart[0];
		while (sp) {
			uint32_t v = stack[sp - 1];
			if (spos[sp - 1] < cstart[v + 1]) {
				uint32_t c = j->child[spos[sp - 1]++];
				obj_t x = (obj_t)t->vertex[c];
				int32_t k = j->map[j->key[x]];
				j->g[k].count++;
				j->g[k].shallow += j->h->size[x];
				if (count[k]++ == 0)
					j->g[k].retained += j->d->retained[x];
				stack[sp] = c;
				spos[sp++] = cstart[c];
				continue;
			}
			if (v != 0) {
				assert(count[j->map[j->key[t->vertex[v]]]] > 0); /* V counted itself in */
				count[j->map[j->key[t->vertex[v]]]]--;
			}
			sp--;
		}
		j->rc = 0;
	}
	free(count);
	free(stack);
	free(spos);
	return NULL;
}

/* One more than the largest KEY[x] of the reached objects. */
static size_t key_bound(const dom_numbered *t, const obj_t *key)
{
	obj_t most = -1;
	for (uint32_t v = 1; v < t->n; v++)
		if (key[t->vertex[v]] > most)
			most = key[t->vertex[v]];
	return (size_t)(most + 1);
}

/* The dominator tree's children rows, by number: the children of v are
 * CHILD[CSTART[v] .. CSTART[v+1]-1], in preorder (CSTART zeroed, room for
 * N + 1; CHILD and FILL room for N). */
static void children_rows(const dom_numbered *t, uint32_t *cstart, uint32_t *child, uint32_t *fill)
{
	uint32_t n = t->n;
	for (uint32_t v = 1; v < n; v++) {
		assert(t->idom[v] < v);
		cstart[t->idom[v] + 1]++;
	}
	for (uint32_t v = 0; v < n; v++)
		cstart[v + 1] += cstart[v];
	memcpy(fill, cstart, (size_t)n * sizeof *fill);
	for (uint32_t v = 1; v < n; v++)
		child[fill[t->idom[v]]++] = v;
}

/* Cross-package retention: each object whose immediate dominator is of
 * another package (⊤ is of none) adds its retained size to the pair of
 * the two, into D's pairs, largest first. */
static int package_pairs(const dom_numbered *t, dom_result *d)
{
	dom_pair *pairs = NULL;
	size_t cap = 0;
	uint32_t np = 0;
	for (uint32_t v = 1; v < t->n; v++) {
		if (t->idom[v] == 0)
			continue;
		obj_t from = d->package[t->vertex[t->idom[v]]], to = d->package[t->vertex[v]];
		if (from == to)
			continue;
		if (grow_array((void **)&pairs, &cap, np, sizeof *pairs)) {
			free(pairs);
			return -1;
		}
		pairs[np++] = (dom_pair){from, to, 1, d->retained[t->vertex[v]]};
	}
	if (np > 1)
		qsort(pairs, np, sizeof *pairs, cmp_pair_key);
	uint32_t m = 0;
	for (uint32_t k = 0; k < np; k++) {
		if (m > 0 && pairs[m - 1].from == pairs[k].from && pairs[m - 1].to == pairs[k].to) {
			pairs[m - 1].bytes += pairs[k].bytes;
			pairs[m - 1].count++;
		} else {
			pairs[m++] = pairs[k];
		}
	}
	if (m > 1)
		qsort(pairs, m, sizeof *pairs, cmp_pair_bytes);
	d->pairs = pairs ? pairs : calloc(1, sizeof *pairs);
	d->npairs = m;
	return d->pairs ? 0 : -1;
}

#ifndef NDEBUG
/* The objects the N groups G count: every reached object once, in one
 * class and one package.  (For assert.) */
static uint64_t members(const dom_group *g, uint32_t n)
{
	uint64_t sum = 0;
	for (uint32_t k = 0; k < n; k++)
		sum += g[k].count;
	return sum;
}
#endif

/* Class and package aggregates (two group walks, on two threads), and the
 * cross-package pairs. */
static int aggregates(const heap *h, const dom_numbered *t, dom_result *d)
{
	uint32_t n = t->n;
	int rc = -1;
	/* the key -> group maps cover the keys in use only: a V8 heap's
	 * classes and package all sit at the start of the slots */
	size_t ckeys = key_bound(t, h->cls), pkeys = key_bound(t, d->package);
	int32_t *cmap = malloc(ckeys * sizeof *cmap + 1), *pmap = malloc(pkeys * sizeof *pmap + 1);
	uint32_t *cstart = calloc((size_t)n + 1, sizeof *cstart), *child = malloc((size_t)n * sizeof *child + 1);
	uint32_t *fill = malloc((size_t)n * sizeof *fill + 1);
	if (!cmap || !pmap || !cstart || !child || !fill)
		goto out;
	memset(cmap, 0xff, ckeys * sizeof *cmap);
	memset(pmap, 0xff, pkeys * sizeof *pmap);
	if (!(d->classes = groups_for(t, h->cls, cmap, &d->nclasses)) ||
	    !(d->packages = groups_for(t, d->package, pmap, &d->npackages)))
		goto out;
	children_rows(t, cstart, child, fill);
	free(fill);
	fill = NULL;
	group_job jobs[2] = {{h, t, d, cstart, child, h->cls, cmap, d->classes, d->nclasses, -1},
			     {h, t, d, cstart, child, d->package, pmap, d->packages, d->npackages, -1}};
	jobs_two(group_walk, &jobs[1], &jobs[0], 1);
	if (jobs[0].rc || jobs[1].rc || package_pairs(t, d))
		goto out;
	assert(members(d->classes, d->nclasses) == n - 1 && members(d->packages, d->npackages) == n - 1);
	if (d->nclasses > 1)
		qsort(d->classes, d->nclasses, sizeof *d->classes, cmp_group);
	if (d->npackages > 1)
		qsort(d->packages, d->npackages, sizeof *d->packages, cmp_group);
	rc = 0;
out:
	free(cmap); free(pmap); free(cstart); free(child); free(fill);
	return rc;
}

int dom_groups(const heap *h, const dom_numbered *t, dom_result *d)
{
	d->package = malloc((h->slots ? h->slots : 1) * sizeof *d->package);
	if (!d->package || packages(h, d->package))
		return -1;
	return aggregates(h, t, d);
}
