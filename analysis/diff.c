/* diff.c — building diff sides from analysed heaps, matching them, and
 * aggregating the result (see diff.h). */
#include "analysis/diff.h"

#include "analysis/dominators.h"
#include "base/base.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const diff_status_names[4] = {"kept", "added", "removed", "replaced"};

char *diff_fact_text(const diff_side *s, const diff_fact *f)
{
	char *part[3] = {NULL, NULL, NULL}, *out = NULL;
	size_t n = 3;
	for (int k = 0; k < 3; k++) {
		part[k] = f->obj[k] >= 0 ? diff_full_name(s, (uint32_t)f->obj[k]) : strdup(strtab_get(&s->strings, f->str[k]));
		if (!part[k])
			goto done;
		n += strlen(part[k]);
	}
	if ((out = malloc(n)))
		snprintf(out, n, "%s|%s|%s", part[0], part[1], part[2]);
done:
	for (int k = 0; k < 3; k++)
		free(part[k]);
	return out;
}

void diff_name(const diff_side *s, uint32_t id, uint32_t num, char *buf, size_t cap)
{
	fname_format(strtab_get(&s->strings, id), strtab_len(&s->strings, id), num, buf, cap);
}

static int is_package(const diff_side *s, const diff_obj *o)
{
	return o->cls_num == 0 && strcmp(strtab_get(&s->strings, o->cls), "Package") == 0;
}

int64_t diff_find(const diff_side *s, obj_t idx)
{
	if (idx < 0 || (uint32_t)idx >= s->slots)
		return -1;
	if (s->by_idx)
		return s->by_idx[idx];
	size_t lo = 0, hi = s->n; /* V is in index order */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->v[mid].idx < idx)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < s->n && s->v[lo].idx == idx ? (int64_t)lo : -1;
}

static uint64_t mix(uint64_t h, uint64_t v);
static uint32_t *outer_first(const diff_side *a);

/* Position of K's outer, or -1. */
static int64_t outer_pos(const diff_side *s, const diff_obj *o)
{
	return diff_find(s, o->outer);
}

/* The separator written before object K's name: 0 for an object with no
 * outer on the side, else path_separator() of its outer and the outer's outer. */
static char separator_of(const diff_side *s, uint32_t k)
{
	int64_t o = outer_pos(s, &s->v[k]);
	if (o < 0)
		return 0;
	int64_t oo = outer_pos(s, &s->v[o]);
	return path_separator(is_package(s, &s->v[o]), oo >= 0 && is_package(s, &s->v[oo]));
}

/* The path name of K, after "Class " when WITH_CLASS; malloc'd, NULL when
 * out of memory. */
static char *path_name(const diff_side *s, uint32_t k, int with_class)
{
	/* the chain k, outer(k), ...; then written outermost first, the engine's way */
	uint32_t *chain = NULL, n = 0;
	size_t chain_cap = 0;
	for (int64_t at = k; at >= 0 && n <= s->n; at = outer_pos(s, &s->v[at])) {
		if (grow_array((void **)&chain, &chain_cap, n, sizeof *chain))
			return free(chain), NULL;
		chain[n++] = (uint32_t)at;
	}
	size_t cap = 256, len = 0;
	char *out = malloc(cap), name[HEAP_NAME_MAX];
	if (!out)
		return free(chain), NULL;
	out[0] = '\0';
	if (with_class) {
		diff_name(s, s->v[k].cls, s->v[k].cls_num, name, sizeof name);
		len = (size_t)snprintf(out, cap, "%s ", name);
	}
	for (uint32_t i = n; i-- > 0;) {
		const diff_obj *o = &s->v[chain[i]];
		char sep = 0;
		if (i + 1 < n) {
			const diff_obj *outer = &s->v[chain[i + 1]];
			sep = path_separator(is_package(s, outer), i + 2 < n && is_package(s, &s->v[chain[i + 2]]));
		}
		diff_name(s, o->name, o->num, name, sizeof name);
		size_t need = len + strlen(name) + 2;
		if (need > cap) {
			char *p = realloc(out, cap = need * 2);
			if (!p) {
				free(out);
				free(chain);
				return NULL;
			}
			out = p;
		}
		if (sep)
			out[len++] = sep;
		len += (size_t)snprintf(out + len, cap - len, "%s", name);
	}
	free(chain);
	return out;
}

char *diff_full_name(const diff_side *s, uint32_t k)
{
	return path_name(s, k, 1);
}

char *diff_path_name(const diff_side *s, uint32_t k)
{
	return path_name(s, k, 0);
}

/* ---- path ranks ---- */

/* The path names of both sides' objects as one trie of bytes.  A path is
 * its outer's path, the separator and the name, so each object adds only
 * its own label (separator and name) below its outer's node: the trie has
 * no more nodes than the labels have bytes, where the path strings of an
 * N-deep Outer chain hold N^2/2 names.  Node 0 is the empty string; node
 * x > 0 is its parent's string and one more byte, found from (parent,
 * byte) in an open-addressed table of node ids (0: empty, as the root is
 * no child).  Parents are made before their children. */
typedef struct path_trie {
	uint32_t *parent; /* per node */
	uint8_t *byte;
	uint32_t n, cap;
	uint32_t *table;
	uint32_t mask;
} path_trie;

static void trie_free(path_trie *t)
{
	free(t->parent);
	free(t->byte);
	free(t->table);
	memset(t, 0, sizeof *t);
}

/* Room for CAP nodes (the root is made here); 0, or -1 when out of memory. */
static int trie_init(path_trie *t, uint64_t cap)
{
	memset(t, 0, sizeof *t);
	uint64_t size = 2;
	while (size < cap * 2)
		size *= 2;
	if (cap >= UINT32_MAX || size > UINT32_MAX)
		return -1;
	t->parent = malloc((size_t)cap * sizeof *t->parent);
	t->byte = malloc((size_t)cap);
	t->table = calloc((size_t)size, sizeof *t->table);
	if (!t->parent || !t->byte || !t->table) {
		trie_free(t);
		return -1;
	}
	t->cap = (uint32_t)cap;
	t->mask = (uint32_t)size - 1;
	t->parent[0] = 0;
	t->byte[0] = 0;
	t->n = 1;
	return 0;
}

/* The node of string(AT) + the LEN bytes at S, made as needed (the
 * capacity was counted for every byte, so there is always room). */
static uint32_t trie_walk(path_trie *t, uint32_t at, const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		uint8_t c = (uint8_t)s[i];
		uint32_t h = (uint32_t)(mix((uint64_t)at, c) >> 32) & t->mask;
		uint32_t x;
		while ((x = t->table[h]) != 0 && (t->parent[x] != at || t->byte[x] != c))
			h = (h + 1) & t->mask;
		if (x == 0) {
			x = t->n++;
			t->parent[x] = at;
			t->byte[x] = c;
			t->table[h] = x;
		}
		at = x;
	}
	return at;
}

/* Each node's place in byte order: a preorder walk (an explicit stack, no
 * recursion) taking children by ascending byte, so a string comes before
 * the strings it begins, as strcmp orders them.  Malloc'd, NULL when out
 * of memory. */
static uint32_t *trie_ranks(const path_trie *t)
{
	uint32_t n = t->n, count[257] = {0};
	uint32_t *by_byte = malloc((size_t)n * sizeof *by_byte), *start = calloc((size_t)n + 1, sizeof *start);
	uint32_t *kids = malloc((size_t)n * sizeof *kids), *rank = malloc((size_t)n * sizeof *rank);
	uint32_t *stack = malloc((size_t)n * sizeof *stack);
	if (!by_byte || !start || !kids || !rank || !stack)
		goto fail;
	/* children grouped by parent, each group by ascending byte: a counting
	 * sort by byte, then a stable one by parent */
	for (uint32_t x = 1; x < n; x++)
		count[t->byte[x] + 1]++;
	for (int c = 0; c < 256; c++)
		count[c + 1] += count[c];
	for (uint32_t x = 1; x < n; x++)
		by_byte[count[t->byte[x]]++] = x;
	for (uint32_t x = 1; x < n; x++)
		start[t->parent[x] + 1]++;
	for (uint32_t p = 0; p < n; p++)
		start[p + 1] += start[p];
	for (uint32_t i = 0; i + 1 < n; i++) {
		uint32_t x = by_byte[i];
		kids[start[t->parent[x]]++] = x;
	}
	/* start[p] now ends p's children: they begin where p - 1's end */
	uint32_t top = 0, next = 0;
	stack[top++] = 0;
	while (top > 0) {
		uint32_t x = stack[--top];
		rank[x] = next++;
		uint32_t lo = x ? start[x - 1] : 0, hi = start[x];
		for (uint32_t i = hi; i-- > lo;) /* the smallest byte on top */
			stack[top++] = kids[i];
	}
	free(by_byte);
	free(start);
	free(kids);
	free(stack);
	return rank;
fail:
	free(by_byte);
	free(start);
	free(kids);
	free(rank);
	free(stack);
	return NULL;
}

/* The trie nodes of side S's objects that NEED marks into NODE (per
 * position), outers first.  NEED holds every marked object's outers too. */
static int trie_side(path_trie *t, const diff_side *s, const uint8_t *need, uint32_t *node)
{
	uint32_t *order = outer_first(s);
	if (!order)
		return -1;
	char name[HEAP_NAME_MAX];
	for (uint32_t i = 0; i < s->n; i++) {
		uint32_t k = order[i];
		if (!need[k])
			continue;
		int64_t o = outer_pos(s, &s->v[k]);
		uint32_t at = o < 0 ? 0 : node[o];
		char sep = separator_of(s, k);
		if (sep)
			at = trie_walk(t, at, &sep, 1);
		diff_name(s, s->v[k].name, s->v[k].num, name, sizeof name);
		node[k] = trie_walk(t, at, name, strlen(name));
	}
	free(order);
	return 0;
}

/* Bytes the labels of the objects NEED marks hold, a separator each. */
static uint64_t label_bytes(const diff_side *s, const uint8_t *need)
{
	uint64_t n = 0;
	char name[HEAP_NAME_MAX];
	for (uint32_t k = 0; k < s->n; k++) {
		if (!need[k])
			continue;
		diff_name(s, s->v[k].name, s->v[k].num, name, sizeof name);
		n += strlen(name) + 1;
	}
	return n;
}

/* A copy of NEED (NULL: all) over S's positions, with the outers of every
 * marked object marked too (a path's trie node is made below its outer's):
 * each walk up stops at a marked object, so this is linear.  Malloc'd. */
static uint8_t *need_with_outers(const diff_side *s, const uint8_t *need)
{
	uint8_t *m = malloc((size_t)s->n + 1);
	if (!m)
		return NULL;
	if (!need) {
		memset(m, 1, (size_t)s->n + 1);
		return m;
	}
	memcpy(m, need, s->n);
	for (uint32_t k = 0; k < s->n; k++) {
		if (!need[k])
			continue;
		for (int64_t o = outer_pos(s, &s->v[k]); o >= 0 && !m[o]; o = outer_pos(s, &s->v[o]))
			m[o] = 1;
	}
	return m;
}

int diff_path_ranks(const diff_side *a, const diff_side *b, const uint8_t *need_a, const uint8_t *need_b, uint32_t **ra,
		    uint32_t **rb, uint32_t *none)
{
	static const char none_text[] = DIFF_NO_OUTER;
	*ra = malloc(((size_t)a->n + 1) * sizeof **ra);
	*rb = malloc(((size_t)b->n + 1) * sizeof **rb);
	uint8_t *ma = need_with_outers(a, need_a), *mb = need_with_outers(b, need_b);
	path_trie t;
	uint32_t *rank = NULL;
	if (!*ra || !*rb || !ma || !mb || trie_init(&t, 1 + label_bytes(a, ma) + label_bytes(b, mb) + sizeof none_text))
		goto fail;
	uint32_t none_node = trie_walk(&t, 0, none_text, sizeof none_text - 1);
	int rc = trie_side(&t, a, ma, *ra) || trie_side(&t, b, mb, *rb) ? -1 : 0;
	free(t.table); /* the walk is done: the ranks need parents and bytes only */
	t.table = NULL;
	if (rc == 0 && !(rank = trie_ranks(&t)))
		rc = -1;
	trie_free(&t);
	if (rc)
		goto fail;
	for (uint32_t k = 0; k < a->n; k++)
		(*ra)[k] = ma[k] ? rank[(*ra)[k]] : UINT32_MAX;
	for (uint32_t k = 0; k < b->n; k++)
		(*rb)[k] = mb[k] ? rank[(*rb)[k]] : UINT32_MAX;
	*none = rank[none_node];
	free(rank);
	free(ma);
	free(mb);
	return 0;
fail:
	free(ma);
	free(mb);
	free(*ra);
	free(*rb);
	*ra = *rb = NULL;
	return -1;
}

/* The classes' retained bytes, from D, the dominator tree of the gc policy. */
static int retained_by_class(const heap *h, const dom_result *d, diff_side *out)
{
	char name[HEAP_NAME_MAX];
	int rc = 0;
	for (uint32_t k = 0; k < d->nclasses && rc == 0; k++) {
		heap_name(h, d->classes[k].key, name, sizeof name);
		rc = diff_add_retained(out, name, d->classes[k].retained);
	}
	return rc;
}

static int side_from_heap(const heap *h, const gc_result *r, const findings *f, const dom_result *d, int keep,
			  diff_side *out);

int diff_side_from_heap(const heap *h, const gc_result *r, const findings *f, diff_side *out)
{
	dom_result d;
	if (dom_compute(h, r, POLICY_GC, &d)) {
		memset(out, 0, sizeof *out);
		return -1;
	}
	int rc = side_from_heap(h, r, f, &d, 0, out);
	dom_free(&d);
	return rc;
}

int diff_side_from_analysis(const heap *h, const gc_result *r, const findings *f, const struct dom_result *d,
			    diff_side *out)
{
	return side_from_heap(h, r, f, d, 1, out);
}

int diff_side_keep_dominators(diff_side *out, const dom_result *d)
{
	free(out->idom);
	free(out->obj_retained);
	out->idom = malloc(((size_t)out->n + 1) * sizeof *out->idom);
	out->obj_retained = malloc(((size_t)out->n + 1) * sizeof *out->obj_retained);
	if (!out->idom || !out->obj_retained)
		return -1;
	for (uint32_t k = 0; k < out->n; k++) {
		obj_t i = out->v[k].idx;
		int inside = i >= 0 && (uint32_t)i < d->slots;
		obj_t up = inside ? d->idom[i] : OBJ_NONE;
		out->idom[k] = up >= 0 && (uint32_t)up < d->slots ? (int32_t)diff_find(out, up) : -1;
		out->obj_retained[k] = inside ? d->retained[i] : 0;
	}
	return 0;
}

static int side_from_heap(const heap *h, const gc_result *r, const findings *f, const dom_result *d, int keep,
			  diff_side *out)
{
	memset(out, 0, sizeof *out);
	out->v8 = (uint8_t)heap_is_v8(h);
	out->slots = h->slots;
	out->v = calloc((size_t)h->objects + 1, sizeof *out->v);
	out->by_idx = malloc(((size_t)h->slots + 1) * sizeof *out->by_idx);
	if (!out->v || !out->by_idx || strtab_copy(&out->strings, &h->strings))
		return -1;
	uint32_t s_class = strtab_intern(&out->strings, "Class", 5), s_outer = strtab_intern(&out->strings, "Outer", 5);
	uint32_t s_unnamed = strtab_intern(&out->strings, "(unnamed)", 9);
	if (s_class == UINT32_MAX || s_outer == UINT32_MAX || s_unnamed == UINT32_MAX)
		return -1;
	for (uint32_t i = 0; i < h->slots; i++) {
		out->by_idx[i] = -1;
		if (h->cls[i] == OBJ_FREE)
			continue;
		diff_obj *o = &out->v[out->n];
		out->by_idx[i] = (int32_t)out->n++;
		o->idx = (obj_t)i;
		o->outer = h->outer[i];
		o->parent = r->parent[i];
		o->serial = h->serial[i];
		o->size = h->size[i];
		o->distance = r->distance[i];
		o->name = h->name[i];
		o->num = h->name_num[i];
		o->cls = h->name[h->cls[i]];
		o->cls_num = h->name_num[h->cls[i]];
		uint32_t via = r->via[i];
		o->via = via == VIA_NONE ? 0 : via == VIA_CLASS ? s_class : via == VIA_OUTER ? s_outer
			 : h->ref_prop[via - 2] ? h->ref_prop[via - 2] : s_unnamed;
		o->garbage = (uint8_t)heap_is_garbage(h, (obj_t)i);
		o->reachable = r->reachable[i];
		o->root_kind = r->root_kind[i];
	}
	out->eliminated = calloc((size_t)r->neliminated + 1, sizeof *out->eliminated);
	out->disagreements = calloc((size_t)f->n + 1, sizeof *out->disagreements);
	if (!out->eliminated || !out->disagreements || retained_by_class(h, d, out) || (keep && diff_side_keep_dominators(out, d)))
		return -1;
	/* an FGCObject's root: its holder's name where the edge would be */
	for (uint32_t k = h->ngcrefs; k-- > 0;) {
		obj_t t = h->gcrefs[k].dst;
		if (heap_exists(h, t) && r->root_kind[t] == RK_GCOBJECT && r->parent[t] == OBJ_NONE)
			out->v[out->by_idx[t]].via = h->gcrefs[k].referencer; /* the first record's, last */
	}
	/* the strings are the heap's (copied above): its ids hold */
	for (uint32_t k = 0; k < r->neliminated; k++) {
		const gc_eliminated *e = &r->eliminated[k];
		int gc = e->src == OBJ_NONE;
		int32_t src = gc ? -1 : out->by_idx[e->src], dst = out->by_idx[e->dst];
		if ((!gc && src < 0) || dst < 0)
			continue; /* no object: the GC eliminates references between objects only */
		out->eliminated[out->neliminated++] = (diff_fact){
			{src, -1, dst}, {gc ? h->gcrefs[e->ref].referencer : 0, gc ? h->gcrefs[e->ref].prop : h->ref_prop[e->ref], 0}};
	}
	for (uint32_t k = 0; k < f->n; k++) {
		const finding *x = &f->v[k];
		if (x->kind != FK_CLUSTER_MISSING_MUTABLE && x->kind != FK_CLUSTER_MISSING_CLUSTER)
			continue;
		int32_t m = heap_exists(h, x->idx) ? out->by_idx[x->idx] : -1, t = heap_exists(h, x->other) ? out->by_idx[x->other] : -1;
		const char *kind = finding_kind_names[x->kind];
		uint32_t kid = strtab_intern(&out->strings, kind, strlen(kind));
		if (kid == UINT32_MAX)
			return -1;
		if (m >= 0 && t >= 0)
			out->disagreements[out->ndisagreements++] = (diff_fact){{-1, m, t}, {kid, 0, 0}};
	}
	return 0;
}

int diff_add_retained(diff_side *s, const char *name, uint64_t bytes)
{
	struct diff_retained *v = realloc(s->retained, ((size_t)s->nretained + 1) * sizeof *v);
	if (!v)
		return -1;
	s->retained = v;
	if (!(v[s->nretained].name = strdup(name)))
		return -1;
	v[s->nretained++].bytes = bytes;
	return 0;
}

void diff_side_free(diff_side *s)
{
	for (uint32_t k = 0; k < s->nretained; k++)
		free(s->retained[k].name);
	free(s->retained);
	free(s->v);
	free(s->by_idx);
	free(s->eliminated);
	free(s->disagreements);
	free(s->idom);
	free(s->obj_retained);
	strtab_free(&s->strings);
	memset(s, 0, sizeof *s);
}

void diff_result_free(diff_result *r)
{
	free(r->a_match);
	free(r->b_match);
	free(r->a_status);
	free(r->b_status);
	memset(r, 0, sizeof *r);
}

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	return h * 0xff51afd7ed558ccdull;
}

/* The match key of an object: its outer's position in B, name and class. */
static uint64_t key_hash(int64_t outer_b, uint32_t name, uint32_t num, uint32_t cls, uint32_t cls_num)
{
	uint64_t h = mix(mix(mix(mix(mix(0, (uint64_t)outer_b), name), num), cls), cls_num);
	return h ^ (h >> 29);
}

#define UNMAPPED (UINT32_MAX - 1)

/* B's id of A's string ID (UINT32_MAX when B lacks it), memoized in AMAP. */
static uint32_t map_string(const diff_side *a, strtab *bs, uint32_t *amap, uint32_t id)
{
	if (amap[id] == UNMAPPED)
		amap[id] = strtab_find(bs, strtab_get(&a->strings, id), strtab_len(&a->strings, id));
	return amap[id];
}

/* Positions of A's objects, outers before the objects they contain. */
static uint32_t *outer_first(const diff_side *a)
{
	uint32_t *depth = malloc(((size_t)a->n + 1) * sizeof *depth), *order = malloc(((size_t)a->n + 1) * sizeof *order);
	uint32_t *count = NULL, maxd = 0;
	if (!depth || !order)
		goto fail;
	for (uint32_t k = 0; k < a->n; k++)
		depth[k] = UINT32_MAX;
	for (uint32_t k = 0; k < a->n; k++) {
		/* walk up to a known depth (or the top), then fill in on the way back */
		uint32_t at = k, n = 0;
		while (depth[at] == UINT32_MAX) {
			order[n++] = at; /* borrowed as a stack */
			int64_t o = outer_pos(a, &a->v[at]);
			if (o < 0 || n > a->n)
				break;
			at = (uint32_t)o;
		}
		uint32_t d = depth[at] == UINT32_MAX ? 0 : depth[at] + 1;
		while (n-- > 0) {
			if (depth[order[n]] == UINT32_MAX)
				depth[order[n]] = d++;
			else
				d = depth[order[n]] + 1;
		}
		if (depth[k] > maxd)
			maxd = depth[k];
	}
	count = calloc((size_t)maxd + 2, sizeof *count);
	if (!count)
		goto fail;
	for (uint32_t k = 0; k < a->n; k++)
		count[depth[k] + 1]++;
	for (uint32_t d = 0; d <= maxd; d++)
		count[d + 1] += count[d];
	for (uint32_t k = 0; k < a->n; k++)
		order[count[depth[k]]++] = k;
	free(depth);
	free(count);
	return order;
fail:
	free(depth);
	free(order);
	free(count);
	return NULL;
}

int diff_compare(const diff_side *a, const diff_side *b, diff_result *out)
{
	memset(out, 0, sizeof *out);
	out->a_match = malloc(((size_t)a->n + 1) * sizeof *out->a_match);
	out->b_match = malloc(((size_t)b->n + 1) * sizeof *out->b_match);
	out->a_status = malloc((size_t)a->n + 1);
	out->b_status = malloc((size_t)b->n + 1);
	uint32_t size = 1;
	while (size < b->n * 2u + 2)
		size *= 2;
	int32_t *table = malloc((size_t)size * sizeof *table); /* B positions by key */
	uint32_t *amap = malloc(((size_t)a->strings.count + 1) * sizeof *amap); /* A string id -> B's */
	uint32_t *order = outer_first(a);
	int rc = -1;
	if (!out->a_match || !out->b_match || !out->a_status || !out->b_status || !table || !amap || !order)
		goto done;
	strtab bs = b->strings; /* a local copy: strtab_find builds its hash index lazily */
	for (uint32_t id = 0; id < a->strings.count; id++)
		amap[id] = UNMAPPED; /* mapped on first use: most strings are property names */
	for (uint32_t k = 0; k < size; k++)
		table[k] = -1;
	for (uint32_t k = 0; k < b->n; k++) {
		const diff_obj *o = &b->v[k];
		uint32_t at = (uint32_t)key_hash(outer_pos(b, o), o->name, o->num, o->cls, o->cls_num) & (size - 1);
		while (table[at] >= 0)
			at = (at + 1) & (size - 1);
		table[at] = (int32_t)k;
		out->b_match[k] = -1;
	}
	for (uint32_t k = 0; k < a->n; k++)
		out->a_match[k] = -1;
	/* match outers first: an object matches only under its outer's match */
	uint32_t same_identity = 0, matched = 0;
	for (uint32_t i = 0; i < a->n; i++) {
		uint32_t k = order[i];
		const diff_obj *o = &a->v[k];
		int64_t ao = outer_pos(a, o), bo = -1;
		if (ao >= 0 && (bo = out->a_match[ao]) < 0)
			continue;
		uint32_t name = map_string(a, &bs, amap, o->name), cls = map_string(a, &bs, amap, o->cls);
		if (name == UINT32_MAX || cls == UINT32_MAX)
			continue;
		uint32_t at = (uint32_t)key_hash(bo, name, o->num, cls, o->cls_num) & (size - 1);
		for (; table[at] >= 0; at = (at + 1) & (size - 1)) {
			int32_t bk = table[at];
			const diff_obj *x = &b->v[bk];
			if (out->b_match[bk] < 0 && x->name == name && x->num == o->num && x->cls == cls &&
			    x->cls_num == o->cls_num && outer_pos(b, x) == bo) {
				out->a_match[k] = bk;
				out->b_match[bk] = (int32_t)k;
				matched++;
				same_identity += o->idx == x->idx && o->serial == x->serial && o->serial != 0;
				break;
			}
		}
	}
	/* one process when most matched objects keep their index and serial */
	out->same_process = matched > 0 && same_identity * 2 > matched;
	for (uint32_t k = 0; k < a->n; k++) {
		int32_t bk = out->a_match[k];
		if (bk < 0) {
			out->a_status[k] = DS_REMOVED;
			out->removed++;
		} else if (out->same_process && (a->v[k].idx != b->v[bk].idx || a->v[k].serial != b->v[bk].serial)) {
			out->a_status[k] = out->b_status[bk] = DS_REPLACED;
			out->replaced++;
		} else {
			out->a_status[k] = out->b_status[bk] = DS_KEPT;
			out->kept++;
		}
	}
	for (uint32_t k = 0; k < b->n; k++)
		if (out->b_match[k] < 0) {
			out->b_status[k] = DS_ADDED;
			out->added++;
		}
	/* slots that hold another object than before (one process only) */
	if (out->same_process)
		for (uint32_t k = 0; k < a->n; k++) {
			obj_t i = a->v[k].idx;
			int64_t at = diff_find(b, i);
			if (at >= 0 && b->v[at].serial != a->v[k].serial)
				out->reused_slots++;
		}
	if (bs.hash != b->strings.hash)
		free(bs.hash); /* the index strtab_find built on the copy */
	rc = 0;
done:
	free(table);
	free(amap);
	free(order);
	if (rc)
		diff_result_free(out);
	return rc;
}

void generic_name(const char *in, char *out, size_t cap)
{
	size_t n = 0;
	for (size_t i = 0; in[i] && n + 3 < cap;) {
		/* a run of digits after '_' (an FName number) or '@' (a V8 node id)
		 * that ends a path component becomes '*' */
		if ((in[i] == '_' || in[i] == '@') && in[i + 1] >= '0' && in[i + 1] <= '9') {
			size_t j = i + 1;
			while (in[j] >= '0' && in[j] <= '9')
				j++;
			if (in[j] == '\0' || in[j] == '.' || in[j] == ':' || in[j] == ' ' || in[j] == '/' || in[j] == '[') {
				out[n++] = in[i];
				out[n++] = '*';
				i = j;
				continue;
			}
		}
		if (in[i] == '[') { /* array indexes: Actors[12] -> Actors[*] */
			size_t j = i + 1;
			while (in[j] >= '0' && in[j] <= '9')
				j++;
			if (j > i + 1 && in[j] == ']') {
				memcpy(out + n, "[*]", 3);
				n += 3;
				i = j + 1;
				continue;
			}
		}
		out[n++] = in[i++];
	}
	out[n] = '\0';
}

void generic_edge(const char *in, char *out, size_t cap)
{
	size_t n = 0;
	while (in[n] >= '0' && in[n] <= '9')
		n++;
	if (n > 0 && in[n] == '\0' && cap >= 4) {
		memcpy(out, "[*]", 4);
		return;
	}
	generic_name(in, out, cap);
}

int diff_name_is_data(const diff_side *s, uint32_t k)
{
	if (!s->v8 || s->v[k].cls_num != 0)
		return 0;
	const char *cls = strtab_get(&s->strings, s->v[k].cls);
	return strcmp(cls, "(string)") == 0 || strcmp(cls, "(concatenated string)") == 0 ||
	       strcmp(cls, "(sliced string)") == 0;
}

/* ---- aggregates ---- */

void group_rows_free(group_rows *g)
{
	for (size_t k = 0; k < g->n; k++)
		free(g->v[k].name);
	free(g->v);
	memset(g, 0, sizeof *g);
}

static group_row *new_row(group_rows *g, int side, uint32_t pos)
{
	group_row *row = &g->v[g->n++];
	memset(row, 0, sizeof *row);
	row->side = side;
	row->pos = pos;
	return row;
}

/* For every object, the object whose name its group takes: the outer
 * (DIFF_BY_OUTER) or the outermost object (DIFF_BY_PACKAGE); -1 for none.  Computed
 * outers first, so each is one step. */
static int64_t *group_subjects(const diff_side *s, enum diff_by by)
{
	int64_t *sub = malloc(((size_t)s->n + 1) * sizeof *sub);
	uint32_t *order = by == DIFF_BY_PACKAGE ? outer_first(s) : NULL;
	if (!sub || (by == DIFF_BY_PACKAGE && !order)) {
		free(sub);
		free(order);
		return NULL;
	}
	for (uint32_t i = 0; i < s->n; i++) {
		uint32_t k = order ? order[i] : i;
		int64_t o = outer_pos(s, &s->v[k]);
		sub[k] = by == DIFF_BY_OUTER ? o : o < 0 ? (int64_t)k : sub[o];
	}
	free(order);
	return sub;
}

static void count(group_row *row, const diff_obj *o, int side, uint8_t st)
{
	if (side) {
		row->b_count++;
		row->b_bytes += o->size;
		if (st == DS_ADDED || st == DS_REPLACED) {
			row->added++;
			row->added_bytes += o->size;
		}
	} else {
		row->a_count++;
		row->a_bytes += o->size;
		if (st == DS_REMOVED || st == DS_REPLACED) {
			row->removed++;
			row->removed_bytes += o->size;
		} else {
			row->kept++;
		}
	}
}

/* Classes: by name (each distinct name once in a pool, its row found by
 * the copy's address), memoized by string id for the unnumbered ones. */
static int class_groups(const diff_side *a, const diff_side *b, const diff_result *r, group_rows *out)
{
	strpool names = {0};
	idmap row_of = {0};
	int64_t *memo = NULL;
	int rc = -1;
	for (int side = 0; side < 2; side++) {
		const diff_side *s = side ? b : a;
		free(memo);
		if (!(memo = calloc((size_t)s->strings.count + 1, sizeof *memo)))
			goto done;
		for (uint32_t k = 0; k < s->n; k++) {
			const diff_obj *o = &s->v[k];
			int64_t g = o->cls_num ? 0 : memo[o->cls];
			if (g)
				g--;
			else {
				char name[HEAP_NAME_MAX];
				diff_name(s, o->cls, o->cls_num, name, sizeof name);
				const char *key = strpool_intern(&names, name, strlen(name));
				if (!key)
					goto done;
				uint64_t *at = idmap_get(&row_of, (uintptr_t)key);
				if (at) {
					g = (int64_t)*at;
				} else {
					g = (int64_t)out->n;
					if (idmap_add(&row_of, (uintptr_t)key, out->n) < 0)
						goto done;
					if (!(new_row(out, 0, 0)->name = strdup(name)))
						goto done;
				}
				if (!o->cls_num)
					memo[o->cls] = g + 1;
			}
			count(&out->v[g], o, side, side ? r->b_status[k] : r->a_status[k]);
		}
	}
	rc = 0;
done:
	strpool_free(&names);
	idmap_free(&row_of);
	free(memo);
	return rc;
}

int diff_group_name(const diff_side *a, const diff_side *b, enum diff_by by, group_row *row)
{
	const diff_side *s = row->side ? b : a;
	if (row->side < 0) {
		row->name = strdup(DIFF_NO_OUTER);
	} else if (by == DIFF_BY_PACKAGE) {
		char name[HEAP_NAME_MAX];
		diff_name(s, s->v[row->pos].name, s->v[row->pos].num, name, sizeof name);
		row->name = strdup(name);
	} else {
		row->name = diff_path_name(s, row->pos);
	}
	return row->name ? 0 : -1;
}

/* Where the row of subject X of SIDE's object lives: on B (*IN_B) for B's
 * subjects and A's subjects matched in B, at position *POS of that side. */
static void subject_slot(const diff_result *r, int side, int64_t x, int *in_b, uint32_t *pos)
{
	*in_b = side || r->a_match[x] >= 0;
	*pos = side ? (uint32_t)x : *in_b ? (uint32_t)r->a_match[x] : (uint32_t)x;
}

/* Packages and outers: by identity; B's group of a matched A subject.
 * With DIFF_RANKS, outer rows get the rank of their name, not the name. */
static int identity_groups(const diff_side *a, const diff_side *b, const diff_result *r, enum diff_by by,
			   enum diff_names names, group_rows *out)
{
	int64_t *sa = group_subjects(a, by), *sb = group_subjects(b, by);
	uint32_t *ga = calloc((size_t)a->n + 1, sizeof *ga), *gb = calloc((size_t)b->n + 1, sizeof *gb);
	uint32_t *ra = NULL, *rb = NULL, none_rank = 0;
	int64_t none = -1; /* the "(none)" row */
	int rc = -1;
	int ranks = names == DIFF_RANKS && by == DIFF_BY_OUTER;
	uint8_t *need_a = NULL, *need_b = NULL;
	if (ranks) { /* only the rows of changed objects are shown: only theirs are ranked */
		need_a = calloc((size_t)a->n + 1, 1);
		need_b = calloc((size_t)b->n + 1, 1);
		for (int side = 0; side < 2 && need_a && need_b && sa && sb; side++) {
			const diff_side *s = side ? b : a;
			const int64_t *sub = side ? sb : sa;
			for (uint32_t k = 0; k < s->n; k++) {
				int64_t x = sub[k];
				if (x < 0 || (side ? r->b_status[k] : r->a_status[k]) == DS_KEPT)
					continue;
				int in_b;
				uint32_t pos;
				subject_slot(r, side, x, &in_b, &pos);
				(in_b ? need_b : need_a)[pos] = 1;
			}
		}
	}
	int ranked = !ranks || (need_a && need_b && diff_path_ranks(a, b, need_a, need_b, &ra, &rb, &none_rank) == 0);
	free(need_a);
	free(need_b);
	if (!sa || !sb || !ga || !gb || !ranked)
		goto done;
	for (int side = 1; side >= 0; side--) { /* B first: A's matched subjects join B's rows */
		const diff_side *s = side ? b : a;
		const int64_t *sub = side ? sb : sa;
		for (uint32_t k = 0; k < s->n; k++) {
			int64_t x = sub[k];
			group_row *row;
			if (x < 0) {
				if (none < 0) {
					none = (int64_t)out->n;
					new_row(out, -1, 0)->rank = none_rank;
				}
				row = &out->v[none];
			} else {
				int in_b;
				uint32_t pos;
				subject_slot(r, side, x, &in_b, &pos);
				uint32_t *slot = in_b ? &gb[pos] : &ga[pos];
				if (!*slot) {
					new_row(out, in_b, pos)->rank = !ranks ? 0 : in_b ? rb[pos] : ra[pos];
					*slot = (uint32_t)out->n;
				}
				row = &out->v[*slot - 1];
			}
			count(row, &s->v[k], side, side ? r->b_status[k] : r->a_status[k]);
		}
	}
	/* names, for the rows that are shown */
	for (size_t k = 0; k < out->n && !ranks; k++) {
		group_row *row = &out->v[k];
		if (names != DIFF_NAMES_ALL && row->added + row->removed == 0)
			continue;
		if (diff_group_name(a, b, by, row))
			goto done;
	}
	rc = 0;
done:
	free(sa);
	free(sb);
	free(ga);
	free(gb);
	free(ra);
	free(rb);
	return rc;
}

int diff_groups(const diff_side *a, const diff_side *b, const diff_result *r, enum diff_by by, enum diff_names names,
		group_rows *out)
{
	out->n = 0;
	out->v = malloc(((size_t)a->n + b->n + 2) * sizeof *out->v);
	if (!out->v)
		return -1;
	int rc = by == DIFF_BY_CLASS ? class_groups(a, b, r, out) : identity_groups(a, b, r, by, names, out);
	if (rc)
		group_rows_free(out);
	return rc;
}
