/* heap_vtab_index.c — indexes built on first use for the heap's virtual
 * tables (see heap_vtab_index.h). */
#include "sql/heap_vtab_index.h"

#include <stdlib.h>
#include <string.h>

#include "sql/heap_row.h"
#include "sql/key_sort.h"
#include "sql/path_hash.h"

struct hv_built {
	hv_csr by_key[HK_COUNT];
	double spread[HK_COUNT];   /* 0: not counted yet */
	uint32_t *by_hash, *by_retained, *by_package;
	uint32_t *list_first[2];   /* per cluster: rows of list 0/1 before its own (hv_list_first) */
	uint64_t *path_hash;       /* when the source came without */
	vtab_need_fn *need;        /* heap_vtab_on_demand's, or NULL: R and DOM are complete */
	void *owner;               /* NEED's */
	int ready;                 /* PIPE_* bits NEED has computed */
};

static struct hv_built *built(vtab_source *s)
{
	if (!s->built)
		s->built = calloc(1, sizeof *s->built);
	return s->built;
}

/* Each slot's value of KEY (negative: none). */
static const obj_t *key_column(const vtab_source *s, int key)
{
	return key == HK_OUTER ? s->h->outer : key == HK_CLASS ? s->h->cls : s->dom ? s->dom->idom : NULL;
}

static int has_key(const heap *h, const obj_t *col, uint32_t i)
{
	return h->cls[i] != OBJ_FREE && col[i] >= 0 && (uint32_t)col[i] < h->slots;
}

double hv_key_spread(vtab_source *s, int key)
{
	struct hv_built *b = built(s);
	const heap *h = s->h;
	const obj_t *col = key_column(s, key);
	if (!b || !col)
		return 10; /* SQLite's own guess for an index it knows nothing of */
	if (b->spread[key] == 0) {
		uint8_t *seen = calloc(h->slots + 1, 1);
		if (!seen)
			return 10;
		uint32_t rows = 0, values = 0;
		for (uint32_t i = 0; i < h->slots; i++)
			if (has_key(h, col, i)) {
				rows++;
				values += !seen[col[i]];
				seen[col[i]] = 1;
			}
		free(seen);
		b->spread[key] = values && rows > values ? (double)rows / values : 1;
	}
	return b->spread[key];
}

const hv_csr *hv_by_key(vtab_source *s, int key)
{
	struct hv_built *b = built(s);
	const heap *h = s->h;
	const obj_t *col = key_column(s, key);
	if (!b || !col)
		return NULL;
	hv_csr *c = &b->by_key[key];
	if (c->start)
		return c;
	uint32_t *start = calloc((size_t)h->slots + 1, sizeof *start);
	uint32_t *item = malloc((size_t)h->objects * sizeof *item + 1);
	if (!start || !item) {
		free(start);
		free(item);
		return NULL;
	}
	/* a counting sort, stable: each key's objects ascending */
	for (uint32_t i = 0; i < h->slots; i++)
		if (has_key(h, col, i))
			start[col[i] + 1]++;
	for (uint32_t i = 0; i < h->slots; i++)
		start[i + 1] += start[i];
	for (uint32_t i = 0; i < h->slots; i++)
		if (has_key(h, col, i))
			item[start[col[i]]++] = i;
	memmove(start + 1, start, (size_t)h->slots * sizeof *start);
	start[0] = 0;
	c->start = start;
	c->item = item;
	return c;
}

/* The existing slots, ascending, for sorting; NULL when out of memory. */
static uint32_t *all_objects(const heap *h)
{
	uint32_t *v = malloc((size_t)h->objects * sizeof *v + 1), n = 0;
	for (uint32_t i = 0; v && i < h->slots; i++)
		if (h->cls[i] != OBJ_FREE)
			v[n++] = i;
	return v;
}

static int cmp_hash(const void *a, const void *b, void *hash)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	uint64_t hx = ((const uint64_t *)hash)[x], hy = ((const uint64_t *)hash)[y];
	return hx != hy ? (hx < hy ? -1 : 1) : (x > y) - (x < y);
}

const uint32_t *hv_by_hash(vtab_source *s, uint64_t hash, uint64_t *lo, uint64_t *hi)
{
	struct hv_built *b = built(s);
	const uint64_t *hashes = hv_path_hashes(s);
	if (!b || !hashes)
		return NULL;
	if (!b->by_hash) {
		if (!(b->by_hash = all_objects(s->h)))
			return NULL;
		qsort_r(b->by_hash, s->h->objects, sizeof *b->by_hash, cmp_hash, (void *)hashes);
	}
	uint32_t n = s->h->objects, l = 0, r = n;
	while (l < r) { /* the first hash >= HASH */
		uint32_t mid = l + (r - l) / 2;
		if (hashes[b->by_hash[mid]] < hash)
			l = mid + 1;
		else
			r = mid;
	}
	*lo = *hi = l;
	while (*hi < n && hashes[b->by_hash[*hi]] == hash)
		++*hi;
	return b->by_hash;
}

const uint32_t *hv_by_retained(vtab_source *s)
{
	struct hv_built *b = built(s);
	if (!b)
		return NULL;
	if (!b->by_retained) {
		/* the order of the database's index on retained (key_sort.h) */
		const dom_result *d = s->dom;
		size_t n = s->h->objects;
		uint32_t *by = all_objects(s->h);
		key_row *rows = malloc(n * sizeof *rows + 1), *tmp = malloc(n * sizeof *tmp + 1);
		if (by && rows && tmp) {
			for (size_t k = 0; k < n; k++) {
				int reached = d && d->idom[by[k]] != OBJ_NONE; /* else retained is NULL */
				rows[k] = (key_row){reached ? (int64_t)d->retained[by[k]] : 0, by[k], !reached};
			}
			key_sort(rows, tmp, n);
			for (size_t k = 0; k < n; k++)
				by[k] = rows[k].rowid;
			b->by_retained = by;
			by = NULL;
		}
		free(by);
		free(rows);
		free(tmp);
	}
	return b->by_retained;
}

static int cmp_package(const void *a, const void *b, void *dom)
{
	const dom_group *g = ((const dom_result *)dom)->packages;
	obj_t x = g[*(const uint32_t *)a].key, y = g[*(const uint32_t *)b].key;
	return (x > y) - (x < y);
}

const uint32_t *hv_by_package(vtab_source *s)
{
	struct hv_built *b = built(s);
	if (!b)
		return NULL;
	if (!b->by_package) {
		uint32_t n = s->dom ? s->dom->npackages : 0;
		if (!(b->by_package = malloc((size_t)n * sizeof *b->by_package + 1)))
			return NULL;
		for (uint32_t k = 0; k < n; k++)
			b->by_package[k] = k;
		if (n)
			qsort_r(b->by_package, n, sizeof *b->by_package, cmp_package, (void *)s->dom);
	}
	return b->by_package;
}

const uint32_t *hv_list_first(vtab_source *s, int list)
{
	struct hv_built *b = built(s);
	if (!b)
		return NULL;
	if (!b->list_first[list]) {
		const heap *h = s->h;
		uint32_t *f = malloc((size_t)h->nclusters * sizeof *f + 1), rows = 0;
		if (!f)
			return NULL;
		for (uint32_t c = 0; c < h->nclusters; c++) {
			uint32_t start, n;
			cluster_list(&h->clusters[c], list, &start, &n);
			f[c] = rows;
			rows += n;
		}
		b->list_first[list] = f;
	}
	return b->list_first[list];
}

uint32_t hv_find_package(const vtab_source *s, obj_t p)
{
	const uint32_t *by = s->built ? s->built->by_package : NULL;
	uint32_t lo = 0, hi = s->dom && by ? s->dom->npackages : 0;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (s->dom->packages[by[mid]].key < p)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < (s->dom && by ? s->dom->npackages : 0) && s->dom->packages[by[lo]].key == p ? lo : UINT32_MAX;
}

const uint64_t *hv_path_hashes(vtab_source *s)
{
	struct hv_built *b;
	if (s->path_hash)
		return s->path_hash;
	if (!(b = built(s)))
		return NULL;
	if (!b->path_hash && path_hash_heap(s->h, &b->path_hash))
		return NULL;
	return b->path_hash;
}

void hv_built_free(vtab_source *s)
{
	struct hv_built *b = s->built;
	if (!b)
		return;
	for (int k = 0; k < HK_COUNT; k++) {
		free(b->by_key[k].start);
		free(b->by_key[k].item);
	}
	free(b->by_hash);
	free(b->by_retained);
	free(b->by_package);
	free(b->list_first[0]);
	free(b->list_first[1]);
	free(b->path_hash);
	free(b);
	s->built = NULL;
}

int hv_set_need(vtab_source *s, vtab_need_fn *need, void *owner)
{
	struct hv_built *b = built(s);
	if (!b)
		return -1;
	b->need = need;
	b->owner = owner;
	return 0;
}

int hv_need(const vtab_source *s, int what, char *err, size_t errsize)
{
	struct hv_built *b = s->built;
	if (!b || !b->need || (b->ready & what) == what)
		return 0;
	if (b->need(b->owner, what & ~b->ready, err, errsize))
		return -1;
	b->ready |= what;
	return 0;
}
