/* diff.c — building diff sides from analysed heaps and matching them. */
#include "diff.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const diff_status_names[4] = {"kept", "added", "removed", "replaced"};

static char *fact(const char *a, const char *b, const char *c)
{
	size_t n = strlen(a) + strlen(b) + strlen(c) + 3;
	char *s = malloc(n);
	if (s)
		snprintf(s, n, "%s|%s|%s", a, b, c);
	return s;
}

int diff_side_from_heap(const heap *h, const gc_result *r, const findings *f, diff_side *out)
{
	memset(out, 0, sizeof *out);
	out->slots = h->slots;
	out->v = calloc((size_t)h->objects + 1, sizeof *out->v);
	out->by_idx = malloc(((size_t)h->slots + 1) * sizeof *out->by_idx);
	if (!out->v || !out->by_idx)
		return -1;
	for (uint32_t i = 0; i < h->slots; i++) {
		out->by_idx[i] = -1;
		if (h->cls[i] == OBJ_FREE)
			continue;
		diff_obj *o = &out->v[out->n];
		out->by_idx[i] = (int32_t)out->n++;
		o->idx = (obj_t)i;
		o->parent = r->parent[i];
		o->serial = h->serial[i];
		o->size = h->size[i];
		o->distance = r->distance[i];
		o->garbage = (uint8_t)heap_is_garbage(h, (obj_t)i);
		o->reachable = r->reachable[i];
		o->root_kind = r->root_kind[i];
		o->key = heap_full_name(h, (obj_t)i);
		o->via = strdup(r->via[i] == VIA_NONE ? "" : edge_property(h, r->via[i]));
		if (!o->key || !o->via)
			return -1;
	}
	out->eliminated = calloc((size_t)r->neliminated + 1, sizeof *out->eliminated);
	out->disagreements = calloc((size_t)f->n + 1, sizeof *out->disagreements);
	if (!out->eliminated || !out->disagreements)
		return -1;
	for (uint32_t k = 0; k < r->neliminated; k++) {
		const gc_eliminated *e = &r->eliminated[k];
		const char *prop = e->src == OBJ_NONE ? heap_str(h, h->gcrefs[e->ref].prop) : heap_str(h, h->ref_prop[e->ref]);
		char *src = e->src == OBJ_NONE ? strdup(heap_str(h, h->gcrefs[e->ref].referencer)) : heap_full_name(h, e->src);
		char *dst = heap_full_name(h, e->dst);
		out->eliminated[k].text = src && dst ? fact(src, prop, dst) : NULL;
		free(src);
		free(dst);
		if (!out->eliminated[k].text)
			return -1;
		out->neliminated++;
	}
	for (uint32_t k = 0; k < f->n; k++) {
		const finding *x = &f->v[k];
		if (x->kind != FK_CLUSTER_MISSING_MUTABLE && x->kind != FK_CLUSTER_MISSING_CLUSTER)
			continue;
		char *m = heap_full_name(h, x->idx), *t = heap_full_name(h, x->other);
		out->disagreements[out->ndisagreements].text = m && t ? fact(finding_kind_names[x->kind], m, t) : NULL;
		free(m);
		free(t);
		if (!out->disagreements[out->ndisagreements++].text)
			return -1;
	}
	return 0;
}

void diff_side_free(diff_side *s)
{
	for (uint32_t k = 0; k < s->n; k++) {
		free(s->v[k].key);
		free(s->v[k].via);
	}
	for (uint32_t k = 0; k < s->neliminated; k++)
		free(s->eliminated[k].text);
	for (uint32_t k = 0; k < s->ndisagreements; k++)
		free(s->disagreements[k].text);
	free(s->v);
	free(s->by_idx);
	free(s->eliminated);
	free(s->disagreements);
	free(s->label);
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

static uint64_t hash_str(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h ^ (h >> 31);
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
	if (!out->a_match || !out->b_match || !out->a_status || !out->b_status || !table) {
		free(table);
		return -1;
	}
	for (uint32_t k = 0; k < size; k++)
		table[k] = -1;
	for (uint32_t k = 0; k < b->n; k++) {
		uint32_t at = (uint32_t)hash_str(b->v[k].key) & (size - 1);
		while (table[at] >= 0)
			at = (at + 1) & (size - 1);
		table[at] = (int32_t)k;
		out->b_match[k] = -1;
	}
	/* match by full name (the first B object of that name not yet taken) */
	uint32_t same_identity = 0, matched = 0;
	for (uint32_t k = 0; k < a->n; k++) {
		out->a_match[k] = -1;
		uint32_t at = (uint32_t)hash_str(a->v[k].key) & (size - 1);
		for (; table[at] >= 0; at = (at + 1) & (size - 1)) {
			int32_t bk = table[at];
			if (out->b_match[bk] < 0 && strcmp(a->v[k].key, b->v[bk].key) == 0) {
				out->a_match[k] = bk;
				out->b_match[bk] = (int32_t)k;
				matched++;
				same_identity += a->v[k].idx == b->v[bk].idx && a->v[k].serial == b->v[bk].serial &&
						 a->v[k].serial != 0;
				break;
			}
		}
	}
	free(table);
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
			if ((uint32_t)i < b->slots && b->by_idx[i] >= 0 && b->v[b->by_idx[i]].serial != a->v[k].serial)
				out->reused_slots++;
		}
	return 0;
}

void generic_name(const char *in, char *out, size_t cap)
{
	size_t n = 0;
	for (size_t i = 0; in[i] && n + 3 < cap;) {
		/* a run of digits after '_' that ends a path component becomes '*' */
		if (in[i] == '_' && in[i + 1] >= '0' && in[i + 1] <= '9') {
			size_t j = i + 1;
			while (in[j] >= '0' && in[j] <= '9')
				j++;
			if (in[j] == '\0' || in[j] == '.' || in[j] == ':' || in[j] == ' ' || in[j] == '/' || in[j] == '[') {
				out[n++] = '_';
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

void key_part(const char *key, enum diff_by by, char *buf, size_t cap)
{
	const char *space = strchr(key, ' ');
	const char *path = space ? space + 1 : key;
	size_t n;
	if (by == BY_CLASS) {
		n = space ? (size_t)(space - key) : strlen(key);
	} else if (by == BY_PACKAGE) {
		n = strcspn(path, ".:");
		key = path;
	} else {
		const char *last = NULL;
		for (const char *p = path; *p; p++)
			if (*p == '.' || *p == ':')
				last = p;
		if (!last) {
			snprintf(buf, cap, "(none)");
			return;
		}
		n = (size_t)(last - path);
		key = path;
	}
	if (n >= cap)
		n = cap - 1;
	memcpy(buf, key, n);
	buf[n] = '\0';
}

void group_rows_free(group_rows *g)
{
	for (size_t k = 0; k < g->n; k++)
		free(g->v[k].name);
	free(g->v);
	memset(g, 0, sizeof *g);
}

/* Position of NAME's row, added when new; SIZE is a power of two, TABLE
 * holds row positions + 1. */
static int64_t group_of(group_rows *g, uint32_t *table, uint32_t size, const char *name)
{
	uint32_t at = (uint32_t)hash_str(name) & (size - 1);
	for (; table[at]; at = (at + 1) & (size - 1))
		if (strcmp(g->v[table[at] - 1].name, name) == 0)
			return table[at] - 1;
	group_row *row = &g->v[g->n];
	memset(row, 0, sizeof *row);
	row->name = strdup(name);
	if (!row->name)
		return -1;
	table[at] = (uint32_t)++g->n;
	return (int64_t)g->n - 1;
}

int diff_groups(const diff_side *a, const diff_side *b, const diff_result *r, enum diff_by by, group_rows *out)
{
	uint32_t size = 1;
	while (size < (a->n + b->n) * 2u + 2)
		size *= 2;
	uint32_t *table = calloc(size, sizeof *table);
	out->n = 0;
	out->v = malloc(((size_t)a->n + b->n + 1) * sizeof *out->v);
	if (!table || !out->v) {
		free(table);
		return -1;
	}
	char part[4096];
	for (int side = 0; side < 2; side++) {
		const diff_side *s = side ? b : a;
		for (uint32_t k = 0; k < s->n; k++) {
			key_part(s->v[k].key, by, part, sizeof part);
			int64_t g = group_of(out, table, size, part);
			if (g < 0) {
				free(table);
				return -1;
			}
			group_row *row = &out->v[g];
			uint8_t st = side ? r->b_status[k] : r->a_status[k];
			if (side) {
				row->b_count++;
				row->b_bytes += s->v[k].size;
				if (st == DS_ADDED || st == DS_REPLACED) {
					row->added++;
					row->added_bytes += s->v[k].size;
				}
			} else {
				row->a_count++;
				row->a_bytes += s->v[k].size;
				if (st == DS_REMOVED || st == DS_REPLACED) {
					row->removed++;
					row->removed_bytes += s->v[k].size;
				} else {
					row->kept++;
				}
			}
		}
	}
	free(table);
	return 0;
}
