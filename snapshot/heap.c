/* heap.c — the heap model: allocation, derived indexes, names, lookups and
 * the invariant check every loader runs. */
#include "snapshot/heap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"

const char *const ref_kind_names[REF_KIND_COUNT] = {"strong", "aro", "immutable", "weak", "soft"};

int ref_kind_parse(const char *s, size_t len)
{
	for (int k = 0; k < REF_KIND_COUNT; k++)
		if (strlen(ref_kind_names[k]) == len && memcmp(ref_kind_names[k], s, len) == 0)
			return k;
	return -1;
}

void heap_init(heap *h)
{
	memset(h, 0, sizeof *h);
	strtab_init(&h->strings);
}

int heap_has_garbage(const heap *h)
{
	for (uint32_t i = 0; i < h->slots; i++)
		if (heap_is_garbage(h, (obj_t)i))
			return 1;
	return 0;
}

void heap_free(heap *h)
{
	free(h->serial); free(h->cls); free(h->outer); free(h->name); free(h->name_num);
	free(h->size); free(h->oflags); free(h->iflags); free(h->traits); free(h->in_cluster);
	free(h->ref_start); free(h->ref_dst); free(h->ref_prop); free(h->ref_kind); free(h->in_links);
	free(h->rev_start); free(h->rev_src); free(h->rev_ref);
	free(h->dangling); free(h->gcrefs);
	free(h->clusters); free(h->cluster_items); free(h->refby_start); free(h->cluster_refby);
	free(h->child_start); free(h->child);
	strtab_free(&h->strings);
	memset(h, 0, sizeof *h);
}

/* Resize one column in place; the old block stays valid on failure. */
static int resize(void **col, size_t bytes)
{
	void *p = realloc(*col, bytes + 1);
	if (!p)
		return -1;
	*col = p;
	return 0;
}

#define RESIZE(col, n) resize((void **)&(col), (size_t)(n) * sizeof *(col))

int heap_grow_slots(heap *h, uint32_t slots)
{
	if (slots <= h->slots)
		return 0;
	free(h->in_links); /* the counts of fewer slots */
	h->in_links = NULL;
	if (RESIZE(h->serial, slots) || RESIZE(h->cls, slots) || RESIZE(h->outer, slots) ||
	    RESIZE(h->name, slots) || RESIZE(h->name_num, slots) || RESIZE(h->size, slots) ||
	    RESIZE(h->oflags, slots) || RESIZE(h->iflags, slots) || RESIZE(h->traits, slots) ||
	    RESIZE(h->in_cluster, slots))
		return -1;
	for (uint32_t i = h->slots; i < slots; i++) {
		h->serial[i] = 0; h->cls[i] = OBJ_FREE; h->outer[i] = OBJ_NONE;
		h->name[i] = 0; h->name_num[i] = 0; h->size[i] = 0;
		h->oflags[i] = 0; h->iflags[i] = 0; h->traits[i] = 0; h->in_cluster[i] = 0;
	}
	h->slots = slots;
	return 0;
}

int heap_alloc_slots(heap *h, uint32_t slots)
{
	if (h->slots)
		return heap_grow_slots(h, slots);
	free(h->in_links);
	h->in_links = NULL;
	if (RESIZE(h->serial, slots) || RESIZE(h->cls, slots) || RESIZE(h->outer, slots) ||
	    RESIZE(h->name, slots) || RESIZE(h->name_num, slots) || RESIZE(h->size, slots) ||
	    RESIZE(h->oflags, slots) || RESIZE(h->iflags, slots) || RESIZE(h->traits, slots))
		return -1;
	free(h->in_cluster);
	if (!(h->in_cluster = calloc((size_t)slots + 1, sizeof *h->in_cluster)))
		return -1;
	h->slots = slots;
	return 0;
}

int heap_trim_slots(heap *h)
{
	uint32_t n = h->slots;
	while (n > 0 && h->cls[n - 1] == OBJ_FREE)
		n--;
	if (n == h->slots)
		return 0;
	free(h->in_links);
	h->in_links = NULL;
	/* shrinking cannot fail in a way that matters: a failed realloc keeps the larger block */
	RESIZE(h->serial, n); RESIZE(h->cls, n); RESIZE(h->outer, n);
	RESIZE(h->name, n); RESIZE(h->name_num, n); RESIZE(h->size, n);
	RESIZE(h->oflags, n); RESIZE(h->iflags, n); RESIZE(h->traits, n);
	RESIZE(h->in_cluster, n);
	h->slots = n;
	return 0;
}

uint64_t heap_memory(const heap *h)
{
	const uint64_t per_slot = sizeof *h->serial + sizeof *h->cls + sizeof *h->outer + sizeof *h->name +
				  sizeof *h->name_num + sizeof *h->size + sizeof *h->oflags + sizeof *h->iflags +
				  sizeof *h->traits + sizeof *h->in_cluster + sizeof *h->ref_start;
	const uint64_t per_ref = sizeof *h->ref_dst + sizeof *h->ref_prop + sizeof *h->ref_kind;
	return per_slot * h->slots + per_ref * h->nrefs + (uint64_t)h->ndangling * sizeof *h->dangling +
	       (uint64_t)h->ngcrefs * sizeof *h->gcrefs + (uint64_t)h->nclusters * sizeof *h->clusters +
	       (uint64_t)h->ncluster_items * sizeof *h->cluster_items + h->strings.arena_len +
	       (uint64_t)h->strings.count * sizeof *h->strings.off;
}

int heap_index_clusters(heap *h)
{
	/* cluster column: roots first, then members (validation checks
	 * overlaps); entries already 0 are left unwritten, so a heap without
	 * clusters keeps its column's pages untouched */
	for (uint32_t i = 0; i < h->slots; i++)
		if (h->in_cluster[i])
			h->in_cluster[i] = 0;
	for (uint32_t c = 0; c < h->nclusters; c++) {
		const cluster *cl = &h->clusters[c];
		if (heap_exists(h, cl->root))
			h->in_cluster[cl->root] = c + 1;
		for (uint32_t k = 0; k < cl->n_members; k++) {
			obj_t m = h->cluster_items[cl->members + k];
			if (heap_exists(h, m) && !h->in_cluster[m])
				h->in_cluster[m] = c + 1;
		}
	}
	/* ReferencedByClusters: for every A listing B in ReferencedClusters, A is in B's list */
	free(h->refby_start);
	free(h->cluster_refby);
	h->refby_start = calloc((size_t)h->nclusters + 1, sizeof *h->refby_start);
	uint32_t total = 0;
	for (uint32_t c = 0; c < h->nclusters; c++)
		total += h->clusters[c].n_refs;
	h->cluster_refby = malloc((size_t)total * sizeof *h->cluster_refby + 1);
	if (!h->refby_start || !h->cluster_refby)
		return -1;
	for (uint32_t c = 0; c < h->nclusters; c++)
		for (uint32_t k = 0; k < h->clusters[c].n_refs; k++) {
			obj_t r = h->cluster_items[h->clusters[c].refs + k];
			if (heap_exists(h, r) && heap_cluster(h, r) >= 0)
				h->refby_start[heap_cluster(h, r) + 1]++;
		}
	for (uint32_t c = 0; c < h->nclusters; c++)
		h->refby_start[c + 1] += h->refby_start[c];
	uint32_t *fill = malloc((size_t)h->nclusters * sizeof *fill + 1);
	if (!fill)
		return -1;
	memcpy(fill, h->refby_start, (size_t)h->nclusters * sizeof *fill);
	for (uint32_t c = 0; c < h->nclusters; c++)
		for (uint32_t k = 0; k < h->clusters[c].n_refs; k++) {
			obj_t r = h->cluster_items[h->clusters[c].refs + k];
			if (heap_exists(h, r) && heap_cluster(h, r) >= 0)
				h->cluster_refby[fill[heap_cluster(h, r)]++] = c;
		}
	free(fill);
	return 0;
}

int heap_set_refs(heap *h, obj_t *from, obj_t *to, uint32_t *prop, uint8_t *kind, uint32_t n)
{
	free(h->in_links); /* the counts of other rows */
	h->in_links = NULL;
	int sorted = 1, rc = -1;
	uint32_t keep = 0;
	for (uint32_t k = 0; k < n; k++) {
		if (!heap_exists(h, to[k])) {
			if (heap_needs_grow(h->ndangling)) {
				dangling_ref *d = realloc(h->dangling, heap_grow_cap(h->ndangling) * sizeof *d);
				if (!d)
					goto out;
				h->dangling = d;
			}
			h->dangling[h->ndangling++] = (dangling_ref){from[k], to[k], prop[k], kind[k]};
			continue;
		}
		from[keep] = from[k];
		to[keep] = to[k];
		prop[keep] = prop[k];
		kind[keep] = kind[k];
		if (keep && from[keep - 1] > from[keep])
			sorted = 0;
		keep++;
	}
	n = keep;
	h->nrefs = n;
	h->ref_start = calloc((size_t)h->slots + 1, sizeof *h->ref_start);
	if (!h->ref_start)
		goto out;
	for (uint32_t k = 0; k < n; k++)
		h->ref_start[from[k] + 1]++;
	for (uint32_t i = 0; i < h->slots; i++)
		h->ref_start[i + 1] += h->ref_start[i];
	if (sorted) { /* the common case: records already grouped by source */
		h->ref_dst = to;
		h->ref_prop = prop;
		h->ref_kind = kind;
		to = NULL;
		prop = NULL;
		kind = NULL;
		rc = 0;
		goto out;
	}
	h->ref_dst = malloc((size_t)n * sizeof *h->ref_dst + 1);
	h->ref_prop = malloc((size_t)n * sizeof *h->ref_prop + 1);
	h->ref_kind = malloc((size_t)n + 1);
	uint32_t *fill = malloc(((size_t)h->slots + 1) * sizeof *fill);
	if (h->ref_dst && h->ref_prop && h->ref_kind && fill) {
		memcpy(fill, h->ref_start, ((size_t)h->slots + 1) * sizeof *fill);
		for (uint32_t k = 0; k < n; k++) { /* stable counting sort by source */
			uint32_t at = fill[from[k]]++;
			h->ref_dst[at] = to[k];
			h->ref_prop[at] = prop[k];
			h->ref_kind[at] = kind[k];
		}
		rc = 0;
	}
	free(fill);
out:
	free(from);
	free(to);
	free(prop);
	free(kind);
	return rc;
}

obj_t heap_split_refs(const heap *h)
{
	obj_t lo = 0, hi = (obj_t)h->slots;
	while (lo < hi) {
		obj_t m = lo + (hi - lo) / 2;
		if (h->ref_start[m] < h->nrefs / 2)
			lo = m + 1;
		else
			hi = m;
	}
	return lo;
}

/* One pass of heap_build_reverse over the references of sources LO..HI-1:
 * with SRC NULL, counts each into AT[target]; else places it at
 * AT[target]++ of SRC and REF. */
typedef struct reverse_job {
	const heap *h;
	obj_t lo, hi;
	uint32_t *at;
	obj_t *src;
	uint32_t *ref;
} reverse_job;

/* How many references ahead a fill fetches the places it will write. */
#define REVERSE_AHEAD 8

static void *reverse_pass(void *arg)
{
	const reverse_job *j = arg;
	const heap *h = j->h;
	const obj_t *dst = h->ref_dst;
	uint32_t *at = j->at, end = h->ref_start[j->hi];
	if (!j->src) {
		for (uint32_t k = h->ref_start[j->lo]; k < end; k++)
			at[dst[k]]++;
		return NULL;
	}
	for (obj_t i = j->lo; i < j->hi; i++)
		for (uint32_t k = h->ref_start[i]; k < h->ref_start[i + 1]; k++) {
			if (k + 2 * REVERSE_AHEAD < end)
				__builtin_prefetch(&at[dst[k + 2 * REVERSE_AHEAD]], 1);
			if (k + REVERSE_AHEAD < end) {
				uint32_t ahead = at[dst[k + REVERSE_AHEAD]];
				__builtin_prefetch(&j->src[ahead], 1);
				__builtin_prefetch(&j->ref[ahead], 1);
			}
			uint32_t place = at[dst[k]]++;
			j->src[place] = i;
			j->ref[place] = k;
		}
	return NULL;
}

/* Two passes (count, then place), each on two threads from a million
 * references on: one the sources below heap_split_refs, the other those
 * above, each counting into an array of its own (START, SECOND); every
 * row is then laid out as the first thread's sources, then the second's,
 * so each row stays in source order. */
int heap_build_reverse(heap *h)
{
	if (h->rev_start)
		return 0;
	uint32_t *start = calloc((size_t)h->slots + 1, sizeof *start);
	uint32_t *second = calloc((size_t)h->slots + 1, sizeof *second);
	obj_t *src = malloc((size_t)h->nrefs * sizeof *src + 1);
	uint32_t *ref = malloc((size_t)h->nrefs * sizeof *ref + 1);
	if (!start || !second || !src || !ref) {
		free(start); free(second); free(src); free(ref);
		return -1;
	}
	int parallel = h->nrefs >= (1u << 20);
	obj_t mid = heap_split_refs(h);
	reverse_job j[2] = {{h, 0, mid, start, NULL, NULL}, {h, mid, (obj_t)h->slots, second, NULL, NULL}};
	jobs_two(reverse_pass, &j[0], &j[1], parallel);
	uint32_t total = 0;
	for (uint32_t i = 0; i < h->slots; i++) {
		uint32_t a = start[i], b = second[i];
		start[i] = total;
		second[i] = total + a;
		total += a + b;
	}
	j[0].src = j[1].src = src;
	j[0].ref = j[1].ref = ref;
	jobs_two(reverse_pass, &j[0], &j[1], parallel);
	/* SECOND[i] now ends row I: START becomes the rows' starts */
	start[0] = 0;
	memcpy(start + 1, second, (size_t)h->slots * sizeof *start);
	free(second);
	h->rev_start = start;
	h->rev_src = src;
	h->rev_ref = ref;
	return 0;
}

int heap_build_children(heap *h)
{
	if (h->child_start)
		return 0;
	uint32_t *start = calloc((size_t)h->slots + 1, sizeof *start);
	obj_t *child = malloc((size_t)h->objects * sizeof *child + 1);
	if (!start || !child) {
		free(start); free(child);
		return -1;
	}
	for (uint32_t i = 0; i < h->slots; i++)
		if (h->cls[i] != OBJ_FREE && h->outer[i] >= 0)
			start[h->outer[i] + 1]++;
	for (uint32_t i = 0; i < h->slots; i++)
		start[i + 1] += start[i];
	for (uint32_t i = 0; i < h->slots; i++)
		if (h->cls[i] != OBJ_FREE && h->outer[i] >= 0)
			child[start[h->outer[i]]++] = (obj_t)i;
	memmove(start + 1, start, (size_t)h->slots * sizeof *start);
	start[0] = 0;
	h->child_start = start;
	h->child = child;
	return 0;
}

/* ---- names ---- */

void fname_split(const char *s, size_t len, size_t *base_len, uint32_t *number)
{
	size_t d = 0;
	while (d < len && s[len - 1 - d] >= '0' && s[len - 1 - d] <= '9')
		d++;
	*base_len = len;
	*number = 0;
	/* "Base_N": N has no leading zero (unless it is "0"), at most 10 digits,
	 * the base is not empty, and N + 1 fits the number field; "Base@N" the
	 * same, but its base may be empty (a V8 node without a name) */
	if (d == 0 || d > 10 || d + 1 > len)
		return;
	char sep = s[len - d - 1];
	if (!(sep == '@' || (sep == '_' && d + 1 < len)))
		return;
	const char *digits = s + len - d;
	if (d > 1 && digits[0] == '0')
		return;
	uint64_t v = 0;
	for (size_t k = 0; k < d; k++)
		v = v * 10 + (uint64_t)(digits[k] - '0');
	if (v >= 0x7fffffff)
		return;
	*base_len = len - d - 1;
	*number = ((uint32_t)v + 1) | (sep == '@' ? NAME_NUM_AT : 0);
}

int heap_split_whole_names(heap *h)
{
	uint32_t nstr = h->strings.count;
	uint32_t *split = calloc((size_t)nstr + 1, sizeof *split); /* string id -> base id + 1, 0 unknown */
	uint32_t *num = calloc((size_t)nstr + 1, sizeof *num);
	int rc = split && num ? 0 : -1;
	for (uint32_t i = 0; i < h->slots && rc == 0; i++) {
		uint32_t id = h->name[i];
		if (h->cls[i] == OBJ_FREE || h->name_num[i] || id >= nstr)
			continue;
		if (!split[id]) {
			/* a copy: interning may move the arena the string is in */
			char name[HEAP_NAME_MAX];
			size_t base, len = strtab_len(&h->strings, id);
			if (len >= sizeof name)
				len = sizeof name - 1; /* longer names are refused before this */
			memcpy(name, heap_str(h, id), len);
			fname_split(name, len, &base, &num[id]);
			uint32_t b = num[id] ? strtab_intern(&h->strings, name, base) : id;
			if (b == UINT32_MAX)
				rc = -1;
			split[id] = b + 1;
		}
		h->name[i] = split[id] - 1;
		h->name_num[i] = num[id];
	}
	free(split);
	free(num);
	return rc;
}

size_t name_suffix_len(uint32_t num)
{
	if (num == 0)
		return 0;
	size_t n = 2; /* "_" or "@", and the first digit */
	for (uint32_t v = ((num & ~NAME_NUM_AT) - 1) / 10; v; v /= 10)
		n++;
	return n;
}

size_t fname_format(const char *base, size_t len, uint32_t num, char *buf, size_t cap)
{
	size_t n = len < cap ? len : cap - 1;
	memcpy(buf, base, n);
	size_t w = name_suffix_len(num); /* the suffix goes in whole or not at all */
	if (w && w < cap - n) { /* digits by hand: analyze formats a name a row */
		buf[n] = num & NAME_NUM_AT ? '@' : '_';
		for (uint32_t v = (num & ~NAME_NUM_AT) - 1, k = (uint32_t)w - 1; k >= 1; k--, v /= 10)
			buf[n + k] = (char)('0' + v % 10);
		n += w;
	}
	buf[n] = '\0';
	return n;
}

size_t heap_name(const heap *h, obj_t i, char *buf, size_t cap)
{
	return fname_format(heap_str(h, h->name[i]), strtab_len(&h->strings, h->name[i]), h->name_num[i], buf, cap);
}

int64_t name_node_id(const char *name, size_t len)
{
	size_t d = 0;
	while (d < len && d < 11 && name[len - 1 - d] >= '0' && name[len - 1 - d] <= '9')
		d++;
	if (d == 0 || d > 10 || d == len || name[len - 1 - d] != '@' || (d > 1 && name[len - d] == '0'))
		return -1;
	int64_t v = 0;
	for (size_t k = len - d; k < len; k++)
		v = v * 10 + (name[k] - '0');
	return v <= UINT32_MAX ? v : -1;
}

obj_t heap_v8_synthetic_class(const heap *h)
{
	if (!heap_is_v8(h))
		return OBJ_NONE;
	for (obj_t i = 0; i < h->first_gc_index && (uint32_t)i < h->slots; i++)
		if (heap_exists(h, i) && strcmp(heap_str(h, h->name[i]), "(synthetic)") == 0)
			return i;
	return OBJ_NONE;
}

int64_t heap_node_id(const heap *h, obj_t i)
{
	if (i < h->first_gc_index || !heap_is_v8(h))
		return -1;
	uint32_t num = h->name_num[i];
	if (num & NAME_NUM_AT)
		return (int64_t)(num & ~NAME_NUM_AT) - 1;
	if (num) /* "_N": an FName number, no id */
		return -1;
	/* an id fname_split leaves in the name (2^31 - 1 or more) */
	return name_node_id(heap_str(h, h->name[i]), strtab_len(&h->strings, h->name[i]));
}

static int name_is(const heap *h, obj_t i, const char *want)
{
	return h->name_num[i] == 0 && strcmp(heap_str(h, h->name[i]), want) == 0;
}

int heap_is_package(const heap *h, obj_t i)
{
	obj_t c = h->cls[i];
	return heap_exists(h, c) && name_is(h, c, "Package");
}

char heap_path_separator(const heap *h, obj_t outer)
{
	obj_t outer2 = h->outer[outer];
	return path_separator(heap_is_package(h, outer), outer2 >= 0 && heap_is_package(h, outer2));
}

obj_t heap_ref_source(const heap *h, uint32_t pos)
{
	uint32_t lo = 0, hi = h->slots; /* ref_start[lo] <= pos < ref_start[hi] */
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (h->ref_start[mid] <= pos)
			lo = mid;
		else
			hi = mid;
	}
	return (obj_t)lo;
}

obj_t heap_outermost(const heap *h, obj_t i)
{
	uint32_t guard = h->slots; /* validated heaps have no loops; stay safe anyway */
	while (h->outer[i] >= 0 && guard--)
		i = h->outer[i];
	return i;
}

char *heap_path(const heap *h, obj_t i)
{
	/* collect the chain i, outer(i), ... then write it outermost first */
	size_t depth = 0, cap = 16;
	obj_t *chain = malloc(cap * sizeof *chain);
	if (!chain)
		return NULL;
	for (obj_t o = i; o >= 0 && depth <= h->slots; o = h->outer[o]) {
		if (depth == cap) {
			obj_t *c = realloc(chain, (cap *= 2) * sizeof *c);
			if (!c) {
				free(chain);
				return NULL;
			}
			chain = c;
		}
		chain[depth++] = o;
	}
	size_t len = 0;
	for (size_t k = 0; k < depth; k++)
		len += strtab_len(&h->strings, h->name[chain[k]]) + 12;
	char *out = malloc(len + 1);
	if (!out) {
		free(chain);
		return NULL;
	}
	size_t n = 0;
	for (size_t k = depth; k-- > 0;) {
		obj_t o = chain[k];
		if (k + 1 < depth)
			out[n++] = heap_path_separator(h, chain[k + 1]);
		n += heap_name(h, o, out + n, len + 1 - n);
	}
	out[n] = '\0';
	free(chain);
	return out;
}

char *heap_full_name(const heap *h, obj_t i)
{
	char cname[HEAP_NAME_MAX];
	size_t cl = heap_name(h, h->cls[i], cname, sizeof cname);
	char *path = heap_path(h, i);
	if (!path)
		return NULL;
	size_t pl = strlen(path);
	char *out = malloc(cl + 1 + pl + 1);
	if (out) {
		memcpy(out, cname, cl);
		out[cl] = ' ';
		memcpy(out + cl + 1, path, pl + 1);
	}
	free(path);
	return out;
}

obj_t heap_find_path(heap *h, const char *path)
{
	size_t len = strlen(path), start = len;
	while (start > 0 && path[start - 1] != '.' && path[start - 1] != ':')
		start--;
	size_t base_len;
	uint32_t num;
	fname_split(path + start, len - start, &base_len, &num);
	if (!h->strings.hash && strtab_reindex(&h->strings)) /* else "not found" could mean "no memory" */
		return OBJ_ERROR;
	uint32_t base = strtab_find(&h->strings, path + start, base_len);
	if (base == UINT32_MAX)
		return OBJ_NONE;
	for (uint32_t i = 0; i < h->slots; i++) {
		if (h->name[i] != base || h->name_num[i] != num || h->cls[i] == OBJ_FREE)
			continue;
		char *p = heap_path(h, (obj_t)i);
		if (!p)
			return OBJ_ERROR;
		int same = strcmp(p, path) == 0;
		free(p);
		if (same)
			return (obj_t)i;
	}
	return OBJ_NONE;
}

obj_t heap_find_full_name(heap *h, const char *full)
{
	const char *sp = strchr(full, ' ');
	if (!sp)
		return OBJ_NONE;
	obj_t i = heap_find_path(h, sp + 1);
	if (i < 0)
		return i;
	char cname[HEAP_NAME_MAX];
	size_t cl = heap_name(h, h->cls[i], cname, sizeof cname);
	return (cl == (size_t)(sp - full) && memcmp(cname, full, cl) == 0) ? i : OBJ_NONE;
}

/* ---- invariants ---- */

static int problem(char *err, size_t n, int code, const char *fmt, long a, long b)
{
	snprintf(err, n, fmt, a, b);
	return code;
}

static int validate_outers(heap *h, char *err, size_t errsize, obj_t *where)
{
	uint8_t *state = calloc(h->slots ? h->slots : 1, 1); /* 0 new, 1 on the walk, 2 done */
	obj_t *walk = malloc(((size_t)h->slots + 1) * sizeof *walk);
	int rc = HP_OK;
	if (!state || !walk) {
		free(state); free(walk);
		return problem(err, errsize, HP_OUTER, "out of memory checking outers", 0, 0);
	}
	for (uint32_t i = 0; i < h->slots && rc == HP_OK; i++) {
		if (h->cls[i] == OBJ_FREE || state[i])
			continue;
		size_t n = 0;
		obj_t o = (obj_t)i;
		while (o >= 0 && state[o] == 0) {
			state[o] = 1;
			walk[n++] = o;
			o = h->outer[o];
		}
		if (o >= 0 && state[o] == 1) {
			*where = o;
			rc = problem(err, errsize, HP_OUTER_LOOP, "the Outer chain of %ld loops back to itself", o, 0);
		}
		for (size_t k = 0; k < n; k++)
			state[walk[k]] = 2;
	}
	free(state);
	free(walk);
	return rc;
}

int heap_validate(heap *h, char *err, size_t errsize, obj_t *where, uint32_t *cluster_id)
{
	*where = OBJ_NONE;
	*cluster_id = UINT32_MAX;
	for (uint32_t i = 0; i < h->slots; i++) {
		if (h->cls[i] == OBJ_FREE)
			continue;
		*where = (obj_t)i;
		if (!heap_exists(h, h->cls[i]))
			return problem(err, errsize, HP_CLASS, "object %ld: class %ld is not an object", i, h->cls[i]);
		if (h->outer[i] != OBJ_NONE && !heap_exists(h, h->outer[i]))
			return problem(err, errsize, HP_OUTER, "object %ld: outer %ld is not an object", i, h->outer[i]);
	}
	int rc = validate_outers(h, err, errsize, where);
	if (rc)
		return rc;
	*where = OBJ_NONE;
	/* clusters: mark[i] = 1 + cluster id that claims i (root or member) */
	uint32_t *owner = calloc(h->slots ? h->slots : 1, sizeof *owner);
	uint8_t *is_root = calloc(h->slots ? h->slots : 1, 1);
	if (!owner || !is_root) {
		free(owner); free(is_root);
		return problem(err, errsize, HP_CLUSTER_LIST, "out of memory checking clusters", 0, 0);
	}
	rc = HP_OK;
	for (uint32_t c = 0; c < h->nclusters && rc == HP_OK; c++) {
		obj_t r = h->clusters[c].root;
		*cluster_id = c;
		if (!heap_exists(h, r))
			rc = problem(err, errsize, HP_CLUSTER_ROOT, "cluster root %ld is not an object", r, 0);
		else if (is_root[r])
			rc = problem(err, errsize, HP_CLUSTER_DUP, "cluster root %ld has two cluster records", r, 0);
		else
			is_root[r] = 1;
	}
	for (uint32_t c = 0; c < h->nclusters && rc == HP_OK; c++) {
		const cluster *cl = &h->clusters[c];
		*cluster_id = c;
		for (uint32_t k = 0; k < cl->n_members && rc == HP_OK; k++) {
			obj_t m = h->cluster_items[cl->members + k];
			if (!heap_exists(h, m))
				rc = problem(err, errsize, HP_CLUSTER_LIST, "cluster %ld: member %ld is not an object", cl->root, m);
			else if (is_root[m])
				rc = problem(err, errsize, HP_CLUSTER_ROOT_MEMBER, "cluster %ld: member %ld is a cluster root", cl->root, m);
			else if (owner[m])
				rc = problem(err, errsize, HP_CLUSTER_TWICE, "object %ld is a member of two clusters (%ld)", m, h->clusters[owner[m] - 1].root);
			else
				owner[m] = c + 1;
		}
		for (uint32_t k = 0; k < cl->n_mutables && rc == HP_OK; k++) {
			obj_t m = h->cluster_items[cl->mutables + k];
			if (!heap_exists(h, m))
				rc = problem(err, errsize, HP_CLUSTER_LIST, "cluster %ld: mutable object %ld is not an object", cl->root, m);
		}
		for (uint32_t k = 0; k < cl->n_refs && rc == HP_OK; k++) {
			obj_t m = h->cluster_items[cl->refs + k];
			if (!heap_exists(h, m))
				rc = problem(err, errsize, HP_CLUSTER_LIST, "cluster %ld: referenced cluster %ld is not an object", cl->root, m);
			else if (!is_root[m])
				rc = problem(err, errsize, HP_CLUSTER_REF, "cluster %ld: referenced cluster %ld is not a cluster root", cl->root, m);
		}
	}
	free(owner);
	free(is_root);
	if (rc)
		return rc;
	*cluster_id = UINT32_MAX;
	if (heap_index_clusters(h))
		return problem(err, errsize, HP_CLUSTER_LIST, "out of memory indexing clusters", 0, 0);
	return HP_OK;
}
