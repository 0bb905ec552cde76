/* diff_report.c — the sections of `diff`'s report and leak mode's groups,
 * computed as rows (see diff_report.h). */
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

static int cmp_growth(const void *pa, const void *pb)
{
	const group_row *a = pa, *b = pb;
	int64_t x = (int64_t)a->b_bytes - (int64_t)a->a_bytes, y = (int64_t)b->b_bytes - (int64_t)b->a_bytes;
	if (x != y)
		return x < y ? 1 : -1;
	int64_t cx = (int64_t)a->b_count - (int64_t)a->a_count, cy = (int64_t)b->b_count - (int64_t)b->a_count;
	if (cx != cy)
		return cx < cy ? 1 : -1;
	return cmp_names(a, b);
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
	qsort(out->v, out->n, sizeof *out->v, growth ? cmp_growth : ranked ? cmp_churn_rank : cmp_churn);
	size_t keep = 0;
	while (keep < out->n && keep < limit && (growth || out->v[keep].added + out->v[keep].removed))
		keep++;
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
		char *full = diff_full_name(c, path[i]);
		if (!full) {
			free(out);
			free(path);
			return NULL;
		}
		generic_name(strtab_get(&c->strings, x->via), via, sizeof via);
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

static int cmp_leak(const void *pa, const void *pb)
{
	const diff_leak_group *a = pa, *b = pb;
	if (a->bytes != b->bytes)
		return a->bytes < b->bytes ? 1 : -1;
	if (a->count != b->count)
		return a->count < b->count ? 1 : -1;
	return strcmp(a->chain, b->chain);
}

void diff_leaks_free(diff_leaks *x)
{
	for (size_t g = 0; g < x->n; g++)
		free(x->v[g].name);
	free(x->v);
	strpool_free(&x->keys);
	memset(x, 0, sizeof *x);
}

int diff_leak_groups(const diff_side *b, const diff_side *c, const diff_result *ab, const diff_result *bc,
		     size_t limit, diff_leaks *out)
{
	memset(out, 0, sizeof *out);
	idmap group_of = {0}; /* a chain's group, by the address of its text in KEYS */
	size_t cap = 0;
	for (uint32_t k = 0; k < b->n; k++) {
		if (ab->b_status[k] != DS_ADDED && ab->b_status[k] != DS_REPLACED)
			continue;
		int32_t ck = bc->a_match[k];
		if (ck < 0 || bc->a_status[k] != DS_KEPT || !c->v[ck].reachable)
			continue;
		char *text = diff_chain_key(c, (uint32_t)ck);
		const char *key = text ? strpool_intern(&out->keys, text, strlen(text)) : NULL;
		free(text);
		if (!key)
			goto fail;
		uint64_t *at = idmap_get(&group_of, (uintptr_t)key);
		if (!at) {
			if (grow_array((void **)&out->v, &cap, out->groups, sizeof *out->v) ||
			    idmap_add(&group_of, (uintptr_t)key, out->groups) < 0)
				goto fail;
			out->v[out->groups++] = (diff_leak_group){key, 0, 0, c->v[ck].idx, (uint32_t)ck, NULL};
			at = idmap_get(&group_of, (uintptr_t)key);
		}
		diff_leak_group *g = &out->v[*at];
		g->count++;
		g->bytes += c->v[ck].size;
		out->candidates++;
		out->bytes += c->v[ck].size;
	}
	idmap_free(&group_of);
	if (out->groups > 1) /* none: out->v is NULL, and qsort(NULL, 0) is undefined */
		qsort(out->v, out->groups, sizeof *out->v, cmp_leak);
	out->n = out->groups < limit ? out->groups : limit;
	for (size_t g = 0; g < out->n; g++) /* names for the groups shown */
		if (!(out->v[g].name = diff_full_name(c, out->v[g].pos)))
			goto fail;
	return 0;
fail:
	idmap_free(&group_of);
	diff_leaks_free(out);
	return -1;
}
