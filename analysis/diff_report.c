/* diff_report.c — the sections of `diff`'s report and leak mode's groups
 * (leaked objects under their leak roots, grouped by generic chain, with
 * their types and one trace each), computed as rows (see diff_report.h). */
#include "analysis/diff_report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- group tables ---- */

/* Unnamed (unchanged) rows sort last by name. */
static int cmp_names(const group_row *a, const group_row *b)
{
	if (!a->name || !b->name)
		return (a->name == NULL) - (b->name == NULL);
	return strcmp(a->name, b->name);
}

static uint64_t magnitude(uint64_t before, uint64_t after)
{
	return after > before ? after - before : before - after;
}

/* Class rows: by the size of the change, whichever its sign: bytes, then
 * count, then churn (objects added and removed), then name; so rows that
 * did not change come last. */
static int cmp_change(const void *pa, const void *pb)
{
	const group_row *a = pa, *b = pb;
	uint64_t x = magnitude(a->a_bytes, a->b_bytes), y = magnitude(b->a_bytes, b->b_bytes);
	if (x != y)
		return x < y ? 1 : -1;
	x = magnitude(a->a_count, a->b_count);
	y = magnitude(b->a_count, b->b_count);
	if (x != y)
		return x < y ? 1 : -1;
	x = a->added + a->removed;
	y = b->added + b->removed;
	if (x != y)
		return x < y ? 1 : -1;
	return cmp_names(a, b);
}

/* Did the group change at all (its row is worth a line)? */
static int changed(const group_row *x, int by_class)
{
	return x->added + x->removed > 0 ||
	       (by_class && (x->a_bytes != x->b_bytes || x->a_count != x->b_count));
}

static int cmp_churn(const void *pa, const void *pb)
{
	const group_row *a = pa, *b = pb;
	uint64_t x = a->added + a->removed, y = b->added + b->removed;
	if (x != y)
		return x < y ? 1 : -1;
	return cmp_names(a, b);
}

/* Outer rows: by churn, then by the rank of the name (diff_path_ranks),
 * the order cmp_churn gives the names. */
static int cmp_churn_rank(const void *pa, const void *pb)
{
	const group_row *a = pa, *b = pb;
	uint64_t x = a->added + a->removed, y = b->added + b->removed;
	if (x != y)
		return x < y ? 1 : -1;
	return (a->rank > b->rank) - (a->rank < b->rank);
}

int diff_group_report(const diff_side *a, const diff_side *b, const diff_result *r, enum diff_by by, size_t limit,
		      group_rows *out)
{
	/* an outer's name is its path, as long as its depth: ordered by rank,
	 * and only the rows shown are named */
	int ranked = by == DIFF_BY_OUTER;
	if (diff_groups(a, b, r, by, ranked ? DIFF_RANKS : DIFF_NAMES_CHANGED, out))
		return -1;
	int growth = by == DIFF_BY_CLASS;
	qsort(out->v, out->n, sizeof *out->v, growth ? cmp_change : ranked ? cmp_churn_rank : cmp_churn);
	/* the changed rows sort first: they are the total, and the first
	 * LIMIT of them are kept */
	out->total = 0;
	while (out->total < out->n && changed(&out->v[out->total], growth))
		out->total++;
	size_t keep = out->total < limit ? out->total : limit;
	for (size_t k = keep; k < out->n; k++)
		free(out->v[k].name);
	out->n = keep;
	for (size_t k = 0; k < keep && ranked; k++)
		if (diff_group_name(a, b, by, &out->v[k])) {
			group_rows_free(out);
			return -1;
		}
	group_row *v = realloc(out->v, (keep + 1) * sizeof *v); /* give back the rows not shown */
	if (v)
		out->v = v;
	return 0;
}

/* ---- retained bytes by class ---- */

static int cmp_ret_change(const void *x, const void *y)
{
	const diff_retained_row *p = x, *q = y;
	uint64_t dp = p->a > p->b ? p->a - p->b : p->b - p->a, dq = q->a > q->b ? q->a - q->b : q->b - q->a;
	if (dp != dq)
		return dp < dq ? 1 : -1;
	return strcmp(p->name, q->name);
}

void diff_retained_rows_free(diff_retained_rows *x)
{
	free(x->v);
	memset(x, 0, sizeof *x);
}

int diff_retained_report(const diff_side *a, const diff_side *b, size_t limit, diff_retained_rows *out)
{
	memset(out, 0, sizeof *out);
	diff_retained_row *v = malloc(((size_t)a->nretained + b->nretained + 1) * sizeof *v);
	strpool names = {0}; /* one copy a distinct name ... */
	idmap row_of = {0};  /* ... and its row, by the copy's address */
	size_t n = 0;
	int rc = -1;
	if (!v)
		goto done;
	for (int side = 0; side < 2; side++) {
		const diff_side *d = side ? b : a;
		for (uint32_t k = 0; k < d->nretained; k++) {
			const char *name = d->retained[k].name, *key = strpool_intern(&names, name, strlen(name));
			if (!key)
				goto done;
			uint64_t *at = idmap_get(&row_of, (uintptr_t)key);
			if (!at) {
				if (idmap_add(&row_of, (uintptr_t)key, n) < 0)
					goto done;
				v[n++] = (diff_retained_row){name, 0, 0};
				at = idmap_get(&row_of, (uintptr_t)key);
			}
			if (side)
				v[*at].b += d->retained[k].bytes;
			else
				v[*at].a += d->retained[k].bytes;
		}
	}
	if (n > 1)
		qsort(v, n, sizeof *v, cmp_ret_change);
	out->classes = n;
	for (size_t k = 0; k < n; k++)
		out->changed += v[k].a != v[k].b;
	out->n = out->changed < limit ? out->changed : limit; /* the changed rows come first */
	out->v = v;
	v = NULL;
	rc = 0;
done:
	free(v);
	strpool_free(&names);
	idmap_free(&row_of);
	return rc;
}

/* ---- objects of B ---- */

void diff_object_rows_free(diff_object_rows *x)
{
	for (size_t k = 0; k < x->n; k++)
		free(x->v[k].name);
	free(x->v);
	memset(x, 0, sizeof *x);
}

static int selected(const diff_side *a, const diff_side *b, const diff_result *r, enum diff_select which, uint32_t k)
{
	const diff_obj *o = &b->v[k];
	int32_t ak = r->b_match[k];
	if (which == DIFF_GARBAGE_ALIVE)
		return ak >= 0 && r->b_status[k] == DS_KEPT && a->v[ak].garbage && o->reachable;
	return RK_IS_ROOT(o->root_kind) && o->root_kind != RK_DISREGARD &&
	       (ak < 0 || r->b_status[k] != DS_KEPT || !RK_IS_ROOT(a->v[ak].root_kind));
}

int diff_select_objects(const diff_side *a, const diff_side *b, const diff_result *r, enum diff_select which,
			size_t limit, diff_object_rows *out)
{
	memset(out, 0, sizeof *out);
	size_t cap = 0;
	for (uint32_t k = 0; k < b->n; k++) {
		if (!selected(a, b, r, which, k))
			continue;
		out->count++;
		if (out->n >= limit)
			continue;
		if (grow_array((void **)&out->v, &cap, out->n, sizeof *out->v))
			goto fail;
		diff_object_row *x = &out->v[out->n];
		x->idx = b->v[k].idx;
		x->root_kind = b->v[k].root_kind;
		if (!(x->name = diff_full_name(b, k)))
			goto fail;
		out->n++;
	}
	return 0;
fail:
	diff_object_rows_free(out);
	return -1;
}

/* ---- facts ---- */

void diff_fact_rows_free(diff_fact_rows *x)
{
	for (size_t k = 0; k < x->n; k++)
		free(x->v[k]);
	free(x->v);
	memset(x, 0, sizeof *x);
}

/* The identity of fact F of side S (RANK: its objects' path ranks) into
 * *KEY (grown as needed; *LEN bytes): each part, text or object, with its
 * length, so that no two facts share a key unless every part is the same.
 * 0, or -1 when out of memory. */
static int fact_key(const diff_side *s, const uint32_t *rank, const diff_fact *f, char **key, size_t *cap, size_t *len)
{
	*len = 0;
	for (int k = 0; k < 3; k++) {
		char name[HEAP_NAME_MAX], num[16];
		const char *t;
		if (f->obj[k] >= 0) {
			const diff_obj *o = &s->v[f->obj[k]];
			diff_name(s, o->cls, o->cls_num, name, sizeof name);
			snprintf(num, sizeof num, "#%u", rank[f->obj[k]]);
			t = name;
		} else {
			t = strtab_get(&s->strings, f->str[k]);
			num[0] = '\0';
		}
		size_t tl = strlen(t), need = *len + tl + strlen(num) + 32;
		if (need > *cap) {
			char *p = realloc(*key, need * 2);
			if (!p)
				return -1;
			*key = p;
			*cap = need * 2;
		}
		*len += (size_t)snprintf(*key + *len, *cap - *len, "%c%zu:", f->obj[k] >= 0 ? 'O' : 'S', tl);
		memcpy(*key + *len, t, tl);
		*len += tl;
		*len += (size_t)snprintf(*key + *len, *cap - *len, "%s", num);
	}
	return 0;
}

int diff_new_facts(const diff_side *a, const diff_side *b, enum diff_facts which, size_t limit, diff_fact_rows *out)
{
	memset(out, 0, sizeof *out);
	const diff_fact *fa = which == DIFF_ELIMINATED ? a->eliminated : a->disagreements;
	const diff_fact *fb = which == DIFF_ELIMINATED ? b->eliminated : b->disagreements;
	uint32_t na = which == DIFF_ELIMINATED ? a->neliminated : a->ndisagreements;
	uint32_t nb = which == DIFF_ELIMINATED ? b->neliminated : b->ndisagreements;
	if (nb == 0)
		return 0;
	strpool keys = {0}; /* A's keys, each once; a B fact is new when */
	idmap in_a = {0};   /* its key's copy is not one of A's */
	uint32_t *ra = NULL, *rb = NULL, none;
	char *key = NULL;
	size_t cap = 0, kcap = 0, len;
	int rc = -1;
	/* only the facts' objects are ranked */
	uint8_t *need_a = calloc((size_t)a->n + 1, 1), *need_b = calloc((size_t)b->n + 1, 1);
	for (uint32_t k = 0; need_a && need_b && k < na + nb; k++)
		for (int part = 0; part < 3; part++) {
			int32_t o = k < na ? fa[k].obj[part] : fb[k - na].obj[part];
			if (o >= 0)
				(k < na ? need_a : need_b)[o] = 1;
		}
	int ranked = need_a && need_b && diff_path_ranks(a, b, need_a, need_b, &ra, &rb, &none) == 0;
	free(need_a);
	free(need_b);
	if (!ranked)
		goto done;
	for (uint32_t k = 0; k < na; k++) {
		const char *copy;
		if (fact_key(a, ra, &fa[k], &key, &kcap, &len) || !(copy = strpool_intern(&keys, key, len)) ||
		    idmap_add(&in_a, (uintptr_t)copy, 0) < 0)
			goto done;
	}
	for (uint32_t k = 0; k < nb; k++) {
		const char *copy;
		if (fact_key(b, rb, &fb[k], &key, &kcap, &len) || !(copy = strpool_intern(&keys, key, len)))
			goto done;
		if (idmap_get(&in_a, (uintptr_t)copy))
			continue;
		out->count++;
		if (out->n >= limit)
			continue;
		if (grow_array((void **)&out->v, &cap, out->n, sizeof *out->v) || !(out->v[out->n] = diff_fact_text(b, &fb[k])))
			goto done;
		out->n++;
	}
	rc = 0;
done:
	strpool_free(&keys);
	idmap_free(&in_a);
	free(ra);
	free(rb);
	free(key);
	if (rc)
		diff_fact_rows_free(out);
	return rc;
}

/* ---- the two-way report ---- */

void diff_report_free(diff_report *x)
{
	group_rows_free(&x->classes);
	group_rows_free(&x->packages);
	group_rows_free(&x->outers);
	diff_retained_rows_free(&x->retained);
	diff_object_rows_free(&x->garbage_alive);
	diff_object_rows_free(&x->new_roots);
	diff_fact_rows_free(&x->new_eliminated);
	diff_fact_rows_free(&x->new_disagreements);
	memset(x, 0, sizeof *x);
}

int diff_report_build(const diff_side *a, const diff_side *b, const diff_result *r, size_t limit, diff_report *out)
{
	memset(out, 0, sizeof *out);
	for (uint32_t k = 0; k < a->n; k++)
		out->a_bytes += a->v[k].size;
	for (uint32_t k = 0; k < b->n; k++)
		out->b_bytes += b->v[k].size;
	if (diff_group_report(a, b, r, DIFF_BY_CLASS, limit, &out->classes) ||
	    diff_retained_report(a, b, limit, &out->retained) ||
	    diff_group_report(a, b, r, DIFF_BY_PACKAGE, limit, &out->packages) ||
	    diff_group_report(a, b, r, DIFF_BY_OUTER, limit, &out->outers) ||
	    diff_select_objects(a, b, r, DIFF_GARBAGE_ALIVE, limit, &out->garbage_alive) ||
	    diff_select_objects(a, b, r, DIFF_NEW_ROOTS, limit, &out->new_roots) ||
	    diff_new_facts(a, b, DIFF_ELIMINATED, limit, &out->new_eliminated) ||
	    diff_new_facts(a, b, DIFF_DISAGREEMENTS, limit, &out->new_disagreements)) {
		diff_report_free(out);
		return -1;
	}
	return 0;
}

/* ---- leak mode ---- */

char *diff_chain_key(const diff_side *c, uint32_t k)
{
	size_t cap = 1024, len = 0;
	char *out = malloc(cap), g[8192];
	if (!out)
		return NULL;
	out[0] = '\0';
	const diff_obj *o = &c->v[k];
	if (o->distance == UINT32_MAX) {
		char *full = diff_full_name(c, k);
		if (!full)
			return free(out), NULL;
		generic_name(full, g, sizeof g);
		free(full);
		snprintf(out, cap, "(kept only through cluster lists) %s", g);
		return out;
	}
	/* walk to the root, then write root first */
	uint32_t *path = NULL, n = 0;
	size_t path_cap = 0;
	for (uint32_t at = k; n <= c->n;) {
		if (grow_array((void **)&path, &path_cap, n, sizeof *path)) {
			free(path);
			free(out);
			return NULL;
		}
		path[n++] = at;
		int64_t p = diff_find(c, c->v[at].parent);
		if (p < 0)
			break;
		at = (uint32_t)p;
	}
	for (uint32_t i = n; i-- > 0;) {
		const diff_obj *x = &c->v[path[i]];
		char via[1024];
		char *full = diff_name_is_data(c, path[i]) ? malloc(HEAP_NAME_MAX) : diff_full_name(c, path[i]);
		if (!full) {
			free(out);
			free(path);
			return NULL;
		}
		if (diff_name_is_data(c, path[i])) /* named by its class alone */
			diff_name(c, x->cls, x->cls_num, full, HEAP_NAME_MAX);
		generic_edge(strtab_get(&c->strings, x->via), via, sizeof via);
		generic_name(full, g, sizeof g);
		free(full);
		size_t need = strlen(via) + strlen(g) + 16;
		if (len + need >= cap) {
			char *p = realloc(out, cap = (len + need) * 2);
			if (!p) {
				free(out);
				free(path);
				return NULL;
			}
			out = p;
		}
		len += (size_t)snprintf(out + len, cap - len, i + 1 == n ? "%s" : " -> %s = %s", i + 1 == n ? g : via, g);
	}
	free(path);
	return out;
}

/* Leak mode folds each leaked object under its leak root (the topmost
 * leaked object among its dominators in C: leak_roots(), a memoized climb)
 * and groups the leak roots by chain keys computed as follows (see
 * diff_report.h); no chain is written out but those of the groups shown.
 * An edge name is generic_edge()'s, and an object whose name is data (a V8
 * string) is its class alone.
 *
 * A chain key is a node of a tree of chains: the chain without its last
 * element (the node's parent), that element's generic edge name and its
 * generic full name, each interned, so a key costs one lookup from its
 * parent's and two chains are the same group when they have the same
 * elements.
 *
 * An element (generic_name() of a full name, cut at 8192 bytes) is written
 * from the object's normalized path: each name with every digit run that
 * generic_name() turns into '*' written as one '0' ("A_123" -> "A_0",
 * "[12]" -> "[0]"; digits it keeps are kept), so generic_name() of a
 * normalized text gives the same bytes as of the real one, and as many
 * bytes as it reads.  Only the first LEAK_PATH_KEEP bytes of a path can
 * then reach an element: an object whose outer's path is that long shares
 * its outer's first bytes (and their writer, SAT), and its element is
 * looked up by class and SAT instead of written again.  Writing a path
 * climbs at most LEAK_PATH_KEEP outers (each adds a separator byte at
 * least), however deep the chain. */
#define LEAK_PATH_KEEP 8200u /* past the 8191 bytes an element holds, and the digit after */
#define LEAK_ELEM_CAP 8192   /* what generic_name() writes an element into, as diff_chain_key() */
#define LEAK_VIA_CAP 1024    /* an edge name's, as diff_chain_key() */
#define LEAK_KEPT_CAP 1024   /* the text of a chain of an object with no distance, as diff_chain_key() */
#define LEAK_NONE UINT32_MAX
#define LEAK_KEPT (UINT32_MAX - 1) /* a node's via: the whole text is its element */

/* What leak mode knows of one object of C (by position), filled on demand. */
typedef struct leak_obj {
	uint32_t name; /* the normalized name: an id in leak_ctx.strs; LEAK_NONE until known */
	uint32_t plen; /* the normalized path's length in bytes, at most LEAK_PATH_KEEP + 1 */
	uint32_t sat;  /* the position whose path has the same first LEAK_PATH_KEEP bytes:
			* the object itself unless its outer's path is that long */
	uint32_t up;   /* the outer its path was written under; LEAK_NONE: none */
	uint32_t node; /* the chain key (a leak_node) of the object on its shortest path;
			* LEAK_NONE until known */
	uint8_t climbing; /* 1: on the current Outer climb, 2: on the current parent climb */
} leak_obj;

/* One chain: a node of the tree of chains. */
typedef struct leak_node {
	uint32_t parent; /* the chain less its last element; LEAK_NONE: one element */
	uint32_t jump;   /* an ancestor (skew-binary jump pointers: a depth is
			  * reached in O(log depth) steps); a root's is itself */
	uint32_t depth;  /* elements - 1 */
	uint32_t via;    /* the generic edge name from the parent (id in strs);
			  * LEAK_NONE for a root's; LEAK_KEPT: the chain of an object with no
			  * distance, whose text is ELEM alone */
	uint32_t elem;   /* the generic full name (id in strs) */
} leak_node;

typedef struct leak_ctx {
	const diff_side *c;
	leak_obj *o;        /* per position of C */
	strtab strs;        /* normalized names and class names, generic edge names, elements */
	leak_node *nodes;
	size_t nnodes, nodes_cap;
	idmap pair_of;      /* via << 32 | elem -> a number for the pair */
	idmap node_of;      /* (parent + 1) << 32 | pair -> node */
	idmap via_of;       /* C's string id of an edge -> the id of its generic text */
	idmap elem_of;      /* normalized class id << 32 | SAT -> element, for the objects
			     * whose paths are longer than LEAK_PATH_KEEP */
	uint32_t npairs;
	uint32_t *stack;    /* climbs, iterative */
	size_t stack_cap;
	char *buf;          /* class, ' ', path: LEAK_BUF bytes */
} leak_ctx;

#define LEAK_BUF (HEAP_NAME_MAX + 1 + LEAK_PATH_KEEP + 2)

static void leak_ctx_free(leak_ctx *x)
{
	free(x->o);
	strtab_free(&x->strs);
	free(x->nodes);
	idmap_free(&x->pair_of);
	idmap_free(&x->node_of);
	idmap_free(&x->via_of);
	idmap_free(&x->elem_of);
	free(x->stack);
	free(x->buf);
	memset(x, 0, sizeof *x);
}

static int leak_ctx_init(leak_ctx *x, const diff_side *c)
{
	memset(x, 0, sizeof *x);
	x->c = c;
	strtab_init(&x->strs);
	x->o = malloc(((size_t)c->n + 1) * sizeof *x->o);
	x->buf = malloc(LEAK_BUF);
	if (!x->o || !x->buf) {
		leak_ctx_free(x);
		return -1;
	}
	for (uint32_t k = 0; k < c->n; k++)
		x->o[k] = (leak_obj){LEAK_NONE, 0, k, LEAK_NONE, LEAK_NONE, 0};
	return 0;
}

static int push(leak_ctx *x, size_t n, uint32_t k)
{
	if (grow_array((void **)&x->stack, &x->stack_cap, n, sizeof *x->stack))
		return -1;
	x->stack[n] = k;
	return 0;
}

static int is_digit(char c) { return c >= '0' && c <= '9'; }

/* IN normalized (see above) into OUT, which has room for IN; its length.
 * The digit runs are generic_name()'s, found the same way. */
static size_t normalize(const char *in, char *out)
{
	size_t n = 0;
	for (size_t i = 0; in[i];) {
		if ((in[i] == '_' || in[i] == '@') && is_digit(in[i + 1])) {
			size_t j = i + 1;
			while (is_digit(in[j]))
				j++;
			if (in[j] == '\0' || in[j] == '.' || in[j] == ':' || in[j] == ' ' || in[j] == '/' || in[j] == '[') {
				out[n++] = in[i];
				out[n++] = '0';
				i = j;
				continue;
			}
		}
		if (in[i] == '[') {
			size_t j = i + 1;
			while (is_digit(in[j]))
				j++;
			if (j > i + 1 && in[j] == ']') {
				memcpy(out + n, "[0]", 3);
				n += 3;
				i = j + 1;
				continue;
			}
		}
		out[n++] = in[i++];
	}
	out[n] = '\0';
	return n;
}

/* The normalized FName ID, NUM of C, interned; LEAK_NONE when out of memory. */
static uint32_t normalized(leak_ctx *x, uint32_t id, uint32_t num)
{
	char raw[HEAP_NAME_MAX], norm[HEAP_NAME_MAX];
	diff_name(x->c, id, num, raw, sizeof raw);
	return strtab_intern(&x->strs, norm, normalize(raw, norm));
}

/* Fill in the path of K and of its outers (climbing, iteratively, to the
 * first known one; an Outer loop, which inputs cannot have, ends where it
 * closes).  0, or -1 when out of memory. */
static int leak_path(leak_ctx *x, uint32_t k)
{
	const diff_side *c = x->c;
	size_t n = 0;
	for (int64_t at = k; at >= 0 && x->o[at].name == LEAK_NONE && !(x->o[at].climbing & 1);
	     at = diff_find(c, c->v[at].outer)) {
		if (push(x, n++, (uint32_t)at))
			return -1;
		x->o[at].climbing |= 1;
	}
	int rc = 0;
	while (n-- > 0) {
		uint32_t y = x->stack[n];
		leak_obj *o = &x->o[y];
		o->climbing &= (uint8_t)~1;
		if (rc || (o->name = normalized(x, c->v[y].name, c->v[y].num)) == LEAK_NONE) {
			rc = -1;
			continue;
		}
		uint32_t len = strtab_len(&x->strs, o->name);
		int64_t up = diff_find(c, c->v[y].outer);
		if (up < 0 || x->o[up].name == LEAK_NONE) { /* the top (or where a loop closes) */
			o->up = LEAK_NONE;
			o->plen = len <= LEAK_PATH_KEEP ? len : LEAK_PATH_KEEP + 1;
			o->sat = y;
			continue;
		}
		o->up = (uint32_t)up;
		if (x->o[up].plen >= LEAK_PATH_KEEP) {
			o->plen = LEAK_PATH_KEEP + 1;
			o->sat = x->o[up].sat;
		} else {
			uint32_t p = x->o[up].plen + 1 + len;
			o->plen = p <= LEAK_PATH_KEEP ? p : LEAK_PATH_KEEP + 1;
			o->sat = y;
		}
	}
	return rc;
}

static int is_package(const diff_side *s, uint32_t k)
{
	return s->v[k].cls_num == 0 && strcmp(strtab_get(&s->strings, s->v[k].cls), "Package") == 0;
}

/* The first LEAK_PATH_KEEP bytes of the normalized path of S (whose outer's
 * path is shorter) into OUT; their length, or -1 when out of memory. */
static int64_t write_path(leak_ctx *x, uint32_t s, char *out)
{
	const diff_side *c = x->c;
	size_t n = 0, len = 0;
	/* at most LEAK_PATH_KEEP + 1 objects: each outer's path is shorter by a byte at least */
	for (uint32_t at = s; at != LEAK_NONE; at = x->o[at].up)
		if (push(x, n++, at))
			return -1;
	for (size_t i = n; i-- > 0 && len < LEAK_PATH_KEEP;) {
		uint32_t y = x->stack[i];
		if (i + 1 < n)
			out[len++] = path_separator(is_package(c, x->stack[i + 1]),
						    i + 2 < n && is_package(c, x->stack[i + 2]));
		size_t nl = strtab_len(&x->strs, x->o[y].name);
		size_t take = len + nl <= LEAK_PATH_KEEP ? nl : LEAK_PATH_KEEP - len;
		memcpy(out + len, strtab_get(&x->strs, x->o[y].name), take);
		len += take;
	}
	return (int64_t)(len < LEAK_PATH_KEEP ? len : LEAK_PATH_KEEP);
}

/* The element of K (its path filled in): generic_name() of "Class Path",
 * as diff_chain_key() writes it, from the normalized texts; with KEPT, the
 * text diff_chain_key() gives an object with no distance.  Its id, or
 * LEAK_NONE when out of memory. */
static uint32_t leak_elem(leak_ctx *x, uint32_t k, int kept)
{
	const diff_side *c = x->c;
	const leak_obj *o = &x->o[k];
	if (!kept && diff_name_is_data(c, k)) { /* its class alone, as diff_chain_key() */
		char raw[HEAP_NAME_MAX], g[HEAP_NAME_MAX];
		diff_name(c, c->v[k].cls, c->v[k].cls_num, raw, sizeof raw);
		generic_name(raw, g, sizeof g);
		return strtab_intern(&x->strs, g, strlen(g));
	}
	uint32_t cls = normalized(x, c->v[k].cls, c->v[k].cls_num);
	if (cls == LEAK_NONE)
		return LEAK_NONE;
	int shared = o->plen > LEAK_PATH_KEEP && !kept; /* written as SAT's, then "x" */
	uint64_t memo = (uint64_t)cls << 32 | o->sat;
	uint64_t *had = shared ? idmap_get(&x->elem_of, memo) : NULL;
	if (had)
		return (uint32_t)*had;
	size_t lc = strtab_len(&x->strs, cls);
	memcpy(x->buf, strtab_get(&x->strs, cls), lc);
	x->buf[lc] = ' ';
	int64_t lp = write_path(x, o->sat, x->buf + lc + 1);
	if (lp < 0)
		return LEAK_NONE;
	size_t len = lc + 1 + (size_t)lp;
	/* a cut path goes on: a digit run cut short must not look like one
	 * that ends (generic_name() reads no further than the 8191st byte
	 * otherwise, and LEAK_PATH_KEEP is past it) */
	if (o->plen > LEAK_PATH_KEEP)
		x->buf[len++] = 'x';
	x->buf[len] = '\0';
	char g[LEAK_ELEM_CAP], t[LEAK_KEPT_CAP];
	generic_name(x->buf, g, sizeof g);
	const char *text = g;
	size_t tlen = strlen(g);
	if (kept) { /* cut as diff_chain_key()'s snprintf() into 1024 bytes cuts it */
		static const char pre[] = "(kept only through cluster lists) ";
		if (tlen > sizeof t - sizeof pre)
			tlen = sizeof t - sizeof pre;
		memcpy(t, pre, sizeof pre - 1);
		memcpy(t + sizeof pre - 1, g, tlen);
		tlen += sizeof pre - 1;
		text = t;
	}
	uint32_t id = strtab_intern(&x->strs, text, tlen);
	if (id != LEAK_NONE && shared && idmap_add(&x->elem_of, memo, id) < 0)
		return LEAK_NONE;
	return id;
}

/* The generic text of C's edge name VIA (an id in C's strings), interned. */
static uint32_t leak_via(leak_ctx *x, uint32_t via)
{
	uint64_t *had = idmap_get(&x->via_of, via);
	if (had)
		return (uint32_t)*had;
	char g[LEAK_VIA_CAP];
	generic_edge(strtab_get(&x->c->strings, via), g, sizeof g);
	uint32_t id = strtab_intern(&x->strs, g, strlen(g));
	if (id == LEAK_NONE || idmap_add(&x->via_of, via, id) < 0)
		return LEAK_NONE;
	return id;
}

/* The node of the chain PARENT, then VIA = ELEM: found, or added. */
static uint32_t leak_node_of(leak_ctx *x, uint32_t parent, uint32_t via, uint32_t elem)
{
	uint64_t pk = (uint64_t)via << 32 | elem; /* ELEM < LEAK_KEPT: never IDMAP_EMPTY */
	uint64_t *pair = idmap_get(&x->pair_of, pk);
	if (!pair) {
		if (idmap_add(&x->pair_of, pk, x->npairs) < 0)
			return LEAK_NONE;
		x->npairs++;
		pair = idmap_get(&x->pair_of, pk);
	}
	uint64_t nk = (uint64_t)(parent == LEAK_NONE ? 0 : parent + 1) << 32 | *pair;
	uint64_t *had = idmap_get(&x->node_of, nk);
	if (had)
		return (uint32_t)*had;
	if (x->nnodes >= LEAK_KEPT - 1 ||
	    grow_array((void **)&x->nodes, &x->nodes_cap, x->nnodes, sizeof *x->nodes) ||
	    idmap_add(&x->node_of, nk, x->nnodes) < 0)
		return LEAK_NONE;
	uint32_t id = (uint32_t)x->nnodes++;
	leak_node *v = &x->nodes[id];
	*v = (leak_node){parent, id, 0, via, elem};
	if (parent != LEAK_NONE) {
		const leak_node *p = &x->nodes[parent], *pj = &x->nodes[p->jump];
		v->depth = p->depth + 1;
		v->jump = p->depth - pj->depth == pj->depth - x->nodes[pj->jump].depth ? pj->jump : parent;
	}
	return id;
}

/* The chain key of C's object K: computed for K's parents first, climbing
 * (iteratively) to the first known one or the root (a parent loop, which
 * inputs cannot have, starts at the object where it closes).  The node,
 * or LEAK_NONE when out of memory. */
static uint32_t leak_key(leak_ctx *x, uint32_t k)
{
	const diff_side *c = x->c;
	if (c->v[k].distance == UINT32_MAX) { /* not memoized: no object's parent */
		uint32_t elem = leak_path(x, k) ? LEAK_NONE : leak_elem(x, k, 1);
		return elem == LEAK_NONE ? LEAK_NONE : leak_node_of(x, LEAK_NONE, LEAK_KEPT, elem);
	}
	size_t n = 0;
	for (int64_t at = k; at >= 0 && x->o[at].node == LEAK_NONE && !(x->o[at].climbing & 2);
	     at = diff_find(c, c->v[at].parent)) {
		if (push(x, n++, (uint32_t)at))
			return LEAK_NONE;
		x->o[at].climbing |= 2;
	}
	/* the stack is reused by leak_path and write_path: take the climb off it first */
	uint32_t *climb = malloc((n + 1) * sizeof *climb);
	if (!climb) {
		for (size_t i = 0; i < n; i++)
			x->o[x->stack[i]].climbing &= (uint8_t)~2;
		return LEAK_NONE;
	}
	memcpy(climb, x->stack, n * sizeof *climb);
	int failed = 0;
	while (n-- > 0) {
		uint32_t y = climb[n];
		x->o[y].climbing &= (uint8_t)~2;
		if (failed)
			continue;
		int64_t p = diff_find(c, c->v[y].parent);
		uint32_t parent = p >= 0 ? x->o[p].node : LEAK_NONE;
		uint32_t via = parent == LEAK_NONE ? LEAK_NONE : leak_via(x, c->v[y].via);
		uint32_t elem = leak_path(x, y) ? LEAK_NONE : leak_elem(x, y, 0);
		if ((parent != LEAK_NONE && via == LEAK_NONE) || elem == LEAK_NONE ||
		    (x->o[y].node = leak_node_of(x, parent, via, elem)) == LEAK_NONE)
			failed = 1;
	}
	free(climb);
	return failed ? LEAK_NONE : x->o[k].node;
}

/* The ancestor of node V at depth D (at most V's). */
static uint32_t leak_ancestor(const leak_ctx *x, uint32_t v, uint32_t d)
{
	while (x->nodes[v].depth > d)
		v = x->nodes[x->nodes[v].jump].depth >= d ? x->nodes[v].jump : x->nodes[v].parent;
	return v;
}

/* A chain's text read byte by byte from node AT down to node END. */
typedef struct leak_reader {
	uint32_t at, end;
	const char *part[4]; /* AT's: " -> ", via, " = ", element; or the element alone */
	int nparts, i;
	const char *p;
} leak_reader;

static void reader_node(const leak_ctx *x, leak_reader *r)
{
	const leak_node *v = &x->nodes[r->at];
	r->i = 0;
	if (v->parent == LEAK_NONE) {
		r->part[0] = strtab_get(&x->strs, v->elem);
		r->nparts = 1;
	} else {
		r->part[0] = " -> ";
		r->part[1] = strtab_get(&x->strs, v->via);
		r->part[2] = " = ";
		r->part[3] = strtab_get(&x->strs, v->elem);
		r->nparts = 4;
	}
	r->p = r->part[0];
}

/* The next byte, or -1 past the end. */
static int reader_next(const leak_ctx *x, leak_reader *r)
{
	for (;;) {
		if (*r->p)
			return (unsigned char)*r->p++;
		if (++r->i < r->nparts) {
			r->p = r->part[r->i];
			continue;
		}
		if (r->at == r->end)
			return -1;
		r->at = leak_ancestor(x, r->end, x->nodes[r->at].depth + 1);
		reader_node(x, r);
	}
}

/* strcmp() of the texts of nodes A and B, without writing them: the part
 * they share (their common ancestor's) is skipped, found by jump pointers,
 * and the rest read up to the first difference. */
static int leak_text_cmp(const leak_ctx *x, uint32_t a, uint32_t b)
{
	if (a == b)
		return 0;
	uint32_t da = x->nodes[a].depth, db = x->nodes[b].depth;
	uint32_t ua = leak_ancestor(x, a, da < db ? da : db), ub = leak_ancestor(x, b, da < db ? da : db);
	if (ua == ub) /* one chain goes on from the other: the shorter text is its prefix */
		return da < db ? -1 : 1;
	while (x->nodes[ua].parent != x->nodes[ub].parent) {
		if (x->nodes[ua].jump != x->nodes[ub].jump) { /* jumps depend on depth alone */
			ua = x->nodes[ua].jump;
			ub = x->nodes[ub].jump;
		} else {
			ua = x->nodes[ua].parent;
			ub = x->nodes[ub].parent;
		}
	}
	leak_reader ra = {.at = ua, .end = a}, rb = {.at = ub, .end = b};
	reader_node(x, &ra);
	reader_node(x, &rb);
	for (;;) {
		int ca = reader_next(x, &ra), cb = reader_next(x, &rb);
		if (ca != cb)
			return ca < cb ? -1 : 1;
		if (ca < 0)
			return 0; /* the same text by other elements: a name holds " -> " or " = " */
	}
}

/* The text of node V, interned in POOL; NULL when out of memory. */
static const char *leak_text(leak_ctx *x, uint32_t v, strpool *pool)
{
	size_t len = 0, n = 0;
	for (uint32_t at = v; at != LEAK_NONE; at = x->nodes[at].parent) {
		const leak_node *w = &x->nodes[at];
		len += strtab_len(&x->strs, w->elem) + (w->parent == LEAK_NONE ? 0 : 7 + strtab_len(&x->strs, w->via));
		if (push(x, n++, at))
			return NULL;
	}
	char *text = malloc(len + 1);
	if (!text)
		return NULL;
	leak_reader r = {.at = x->stack[n - 1], .end = v};
	reader_node(x, &r);
	size_t i = 0;
	for (int ch; (ch = reader_next(x, &r)) >= 0;)
		text[i++] = (char)ch;
	const char *key = strpool_intern(pool, text, i);
	free(text);
	return key;
}

/* Groups: the most retained first, then count, then shallow bytes, then
 * chain text (compared from the nodes). */
static int cmp_leak(const leak_ctx *x, const diff_leak_group *a, const diff_leak_group *b)
{
	if (a->retained != b->retained)
		return a->retained < b->retained ? 1 : -1;
	if (a->count != b->count)
		return a->count < b->count ? 1 : -1;
	if (a->bytes != b->bytes)
		return a->bytes < b->bytes ? 1 : -1;
	return leak_text_cmp(x, a->node, b->node);
}

/* Sort V (N groups) by cmp_leak: merge sort, bottom up; 0, or -1 when out
 * of memory (V as it was). */
static int sort_groups(const leak_ctx *x, diff_leak_group *v, size_t n)
{
	diff_leak_group *tmp = malloc((n + 1) * sizeof *tmp), *from = v, *to = tmp;
	if (!tmp)
		return -1;
	for (size_t w = 1; w < n; w *= 2) {
		for (size_t lo = 0; lo < n; lo += 2 * w) {
			size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
			size_t i = lo, j = mid, k = lo;
			while (i < mid && j < hi)
				to[k++] = cmp_leak(x, &from[j], &from[i]) < 0 ? from[j++] : from[i++];
			while (i < mid)
				to[k++] = from[i++];
			while (j < hi)
				to[k++] = from[j++];
		}
		diff_leak_group *t = from;
		from = to;
		to = t;
	}
	if (from != v)
		memcpy(v, from, n * sizeof *v);
	free(tmp);
	return 0;
}

void diff_leaks_free(diff_leaks *x)
{
	for (size_t g = 0; g < x->n; g++) {
		free(x->v[g].name);
		free(x->v[g].types);
		for (size_t h = 0; h < x->v[g].ntrace; h++)
			free(x->v[g].trace[h].object);
		free(x->v[g].trace);
	}
	free(x->v);
	strpool_free(&x->keys);
	memset(x, 0, sizeof *x);
}

#define TOP_UNKNOWN (-2)

/* The leak root of every object of C that CAND marks (per position), into
 * TOP (per position: the topmost marked object among its dominators, itself
 * included; -1: none; TOP_UNKNOWN until known).  Climbs C's dominators
 * iteratively to the first known object or ⊤, and sets every object on the
 * way: each is climbed once.  Without C's dominators, each marked object is
 * its own.  0, or -1 when out of memory. */
static int leak_roots(leak_ctx *x, const uint8_t *cand, int32_t *top)
{
	const diff_side *c = x->c;
	for (uint32_t k = 0; k < c->n; k++)
		top[k] = c->idom ? TOP_UNKNOWN : cand[k] ? (int32_t)k : -1;
	if (!c->idom)
		return 0;
	for (uint32_t k = 0; k < c->n; k++) {
		if (!cand[k] || top[k] != TOP_UNKNOWN)
			continue;
		size_t n = 0;
		int32_t at = (int32_t)k;
		/* a dominator loop, which semi-NCA cannot give, would end where it
		 * closes: each object is pushed once, then no longer unknown */
		while (at >= 0 && top[at] == TOP_UNKNOWN) {
			if (push(x, n++, (uint32_t)at))
				return -1;
			top[at] = -1;
			at = c->idom[at];
		}
		int32_t above = at >= 0 ? top[at] : -1;
		while (n-- > 0) {
			uint32_t y = x->stack[n];
			top[y] = above >= 0 ? above : cand[y] ? (int32_t)y : -1;
			above = top[y];
		}
	}
	return 0;
}

/* The retained bytes of C's object K: its dominators' figure, or its own
 * bytes without them. */
static uint64_t retained_of(const diff_side *c, uint32_t k)
{
	return c->obj_retained ? c->obj_retained[k] : c->v[k].size;
}

/* G's trace: the shortest path in C to its representative, root first. */
static int leak_trace(leak_ctx *x, diff_leak_group *g)
{
	const diff_side *c = x->c;
	size_t n = 0;
	int64_t at = g->pos;
	if (c->v[at].distance == UINT32_MAX) { /* no path: itself alone */
		if (push(x, n++, (uint32_t)at))
			return -1;
	} else {
		for (; at >= 0 && n <= c->n; at = diff_find(c, c->v[at].parent))
			if (push(x, n++, (uint32_t)at))
				return -1;
	}
	if (!(g->trace = calloc(n + 1, sizeof *g->trace)))
		return -1;
	for (size_t i = 0; i < n; i++) {
		uint32_t y = x->stack[n - 1 - i];
		diff_leak_hop *h = &g->trace[i];
		h->edge = i ? strtab_get(&c->strings, c->v[y].via) : NULL;
		h->idx = c->v[y].idx;
		h->retained = retained_of(c, y);
		h->root_kind = c->v[y].root_kind;
		const char *via = strtab_get(&c->strings, c->v[y].via);
		h->holder = i == 0 && h->root_kind == RK_GCOBJECT && via[0] ? via : NULL;
		if (!(h->object = diff_full_name(c, y)))
			return -1;
		g->ntrace = i + 1;
	}
	return 0;
}

/* One leaked object of a group shown, by class: for the types. */
typedef struct leak_member {
	uint32_t group, cls, num;
} leak_member;

static int cmp_member(const void *pa, const void *pb)
{
	const leak_member *a = pa, *b = pb;
	if (a->group != b->group)
		return a->group < b->group ? -1 : 1;
	if (a->cls != b->cls)
		return a->cls < b->cls ? -1 : 1;
	return (a->num > b->num) - (a->num < b->num);
}

static int cmp_type(const void *pa, const void *pb)
{
	const diff_leak_type *a = pa, *b = pb;
	if (a->count != b->count)
		return a->count < b->count ? 1 : -1;
	return strcmp(a->name, b->name);
}

/* The types of the groups shown: M (N members, sorted here) counted by
 * group and class. */
static int leak_types(const diff_side *c, leak_member *m, size_t n, diff_leaks *out)
{
	qsort(m, n, sizeof *m, cmp_member);
	for (size_t i = 0; i < n;) {
		size_t j = i;
		diff_leak_group *g = &out->v[m[i].group];
		size_t distinct = 0;
		for (; j < n && m[j].group == m[i].group; j++)
			distinct += j == i || m[j].cls != m[j - 1].cls || m[j].num != m[j - 1].num;
		if (!(g->types = malloc(distinct * sizeof *g->types)))
			return -1;
		for (size_t k = i; k < j; k++) {
			if (k == i || m[k].cls != m[k - 1].cls || m[k].num != m[k - 1].num) {
				char name[HEAP_NAME_MAX];
				diff_name(c, m[k].cls, m[k].num, name, sizeof name);
				const char *key = strpool_intern(&out->keys, name, strlen(name));
				if (!key)
					return -1;
				g->types[g->ntypes++] = (diff_leak_type){key, 0};
			}
			g->types[g->ntypes - 1].count++;
		}
		qsort(g->types, g->ntypes, sizeof *g->types, cmp_type);
		i = j;
	}
	return 0;
}

/* Is B's object K leaked: new in B, the same object reachable in C?  Its
 * position in C, or -1. */
static int64_t leaked_in_c(const diff_side *c, const diff_result *ab, const diff_result *bc, uint32_t k)
{
	if (ab->b_status[k] != DS_ADDED && ab->b_status[k] != DS_REPLACED)
		return -1;
	int32_t ck = bc->a_match[k];
	/* the disregard pool is never collected, and leaks nothing: on a V8
	 * heap, the constructor objects the tool adds for a new type */
	if (ck < 0 || bc->a_status[k] != DS_KEPT || !c->v[ck].reachable || c->v[ck].root_kind == RK_DISREGARD)
		return -1;
	return ck;
}

/* Only roots holding no program state keep C's object K (leak_paths.h):
 * a V8 heap's reachable object with no program path. */
static int system_only(const diff_side *c, uint32_t k)
{
	return c->v8 && c->v[k].distance == UINT32_MAX;
}

int diff_leak_groups(const diff_side *b, const diff_side *c, const diff_result *ab, const diff_result *bc,
		     size_t limit, diff_leaks *out)
{
	memset(out, 0, sizeof *out);
	leak_ctx x;
	if (leak_ctx_init(&x, c))
		return -1;
	idmap group_of = {0}; /* a chain's node -> its group */
	size_t cap = 0, nmembers = 0;
	uint8_t *cand = calloc((size_t)c->n + 1, 1);
	int32_t *top = malloc(((size_t)c->n + 1) * sizeof *top);
	uint32_t *group_at = malloc(((size_t)c->n + 1) * sizeof *group_at); /* a leak root's group */
	uint32_t *rank = NULL;
	leak_member *members = NULL;
	if (!cand || !top || !group_at)
		goto fail;
	for (uint32_t k = 0; k < b->n; k++) {
		int64_t ck = leaked_in_c(c, ab, bc, k);
		if (ck < 0)
			continue;
		if (system_only(c, (uint32_t)ck))
			out->system++;
		else
			cand[ck] = 1;
	}
	if (leak_roots(&x, cand, top))
		goto fail;
	/* the groups, in B's order of their first leak root */
	for (uint32_t k = 0; k < b->n; k++) {
		int64_t ck = leaked_in_c(c, ab, bc, k);
		if (ck < 0 || !cand[ck] || top[ck] != ck)
			continue;
		uint32_t node = leak_key(&x, (uint32_t)ck);
		if (node == LEAK_NONE)
			goto fail;
		uint64_t *at = idmap_get(&group_of, node);
		if (!at) {
			if (grow_array((void **)&out->v, &cap, out->groups, sizeof *out->v) ||
			    idmap_add(&group_of, node, out->groups) < 0)
				goto fail;
			out->v[out->groups++] = (diff_leak_group){.idx = c->v[ck].idx, .pos = (uint32_t)ck, .node = node};
			at = idmap_get(&group_of, node);
		}
		diff_leak_group *g = &out->v[*at];
		uint64_t ret = retained_of(c, (uint32_t)ck);
		if (g->roots == 0 || ret > retained_of(c, g->pos)) {
			g->idx = c->v[ck].idx;
			g->pos = (uint32_t)ck;
		}
		g->roots++;
		g->retained += ret;
		group_at[ck] = (uint32_t)*at;
		out->roots++;
		out->retained += ret;
	}
	/* every leaked object, counted in its leak root's group */
	for (uint32_t k = 0; k < c->n; k++) {
		if (!cand[k])
			continue;
		diff_leak_group *g = &out->v[group_at[top[k]]];
		g->count++;
		g->bytes += c->v[k].size;
		out->candidates++;
		out->bytes += c->v[k].size;
	}
	idmap_free(&group_of);
	/* a group's place after the sort, for the types of those shown */
	for (size_t g = 0; g < out->groups; g++)
		out->v[g].number = (uint32_t)g;
	if (out->groups > 1 && sort_groups(&x, out->v, out->groups))
		goto fail;
	if (!(rank = malloc((out->groups + 1) * sizeof *rank)))
		goto fail;
	for (size_t g = 0; g < out->groups; g++)
		rank[out->v[g].number] = (uint32_t)g;
	out->n = out->groups < limit ? out->groups : limit;
	for (uint32_t k = 0; k < c->n; k++)
		nmembers += cand[k] && rank[group_at[top[k]]] < out->n;
	if (!(members = malloc((nmembers + 1) * sizeof *members)))
		goto fail;
	nmembers = 0;
	for (uint32_t k = 0; k < c->n; k++)
		if (cand[k] && rank[group_at[top[k]]] < out->n)
			members[nmembers++] = (leak_member){rank[group_at[top[k]]], c->v[k].cls, c->v[k].cls_num};
	if (leak_types(c, members, nmembers, out))
		goto fail;
	for (size_t g = 0; g < out->n; g++) /* chains, names and traces for the groups shown */
		if (!(out->v[g].chain = leak_text(&x, out->v[g].node, &out->keys)) ||
		    !(out->v[g].name = diff_full_name(c, out->v[g].pos)) || leak_trace(&x, &out->v[g]))
			goto fail;
	free(members);
	free(rank);
	free(cand);
	free(top);
	free(group_at);
	leak_ctx_free(&x);
	return 0;
fail:
	free(members);
	free(rank);
	free(cand);
	free(top);
	free(group_at);
	idmap_free(&group_of);
	leak_ctx_free(&x);
	diff_leaks_free(out);
	return -1;
}
