/* heap_row.c — the column values of object_table, ref_table and cluster
 * list rows (see heap_row.h). */
#include "sql/heap_row.h"

#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"

static void set_int(row_value *v, int64_t i)
{
	v->type = RV_INT;
	v->i = i;
}

/* An object index, NULL for "none". */
static void set_obj(row_value *v, obj_t i)
{
	if (i == OBJ_NONE)
		v->type = RV_NULL;
	else
		set_int(v, i);
}

/* A text of N bytes. */
static void set_text_n(row_value *v, const char *s, size_t n)
{
	v->type = RV_TEXT;
	v->s = s;
	v->n = n;
}

/* A NUL-terminated text, NULL for a null pointer. */
static void set_text(row_value *v, const char *s)
{
	if (!s)
		v->type = RV_NULL;
	else
		set_text_n(v, s, strlen(s));
}

/* Object I's class name, formatted once for a run of rows of one class. */
static void class_name(const heap *h, obj_t i, row_value *v, row_buf *buf)
{
	obj_t c = h->cls[i];
	if (buf->cname_of != c + 1) {
		buf->cname_len = heap_name(h, c, buf->cname, sizeof buf->cname);
		buf->cname_of = c + 1;
	}
	set_text_n(v, buf->cname, buf->cname_len);
}

/* Object I's flags, formatted once for a run of rows with the same. */
static void flags_text(const heap *h, obj_t i, row_value *v, row_buf *buf)
{
	uint64_t key = 1ull << 63 | (uint64_t)h->oflags[i] << 24 | (uint64_t)h->iflags[i] << 8 | h->traits[i];
	if (buf->flags_of != key) {
		buf->flags_len = flags_format(buf->flags, h->oflags[i], h->iflags[i], h->traits[i]);
		buf->flags_of = key;
	}
	set_text_n(v, buf->flags, buf->flags_len);
}

void object_value(const row_source *s, obj_t i, int col, row_value *v, row_buf *buf)
{
	const heap *h = s->h;
	const gc_result *r = s->r;
	switch (col) {
	case 0: set_int(v, i); break;
	case 1: set_int(v, h->serial[i]); break;
	case 2: set_int(v, h->cls[i]); break;
	case 3: set_obj(v, h->outer[i]); break;
	case 4: set_text_n(v, buf->name, heap_name(h, i, buf->name, sizeof buf->name)); break;
	case 5: class_name(h, i, v, buf); break;
	case 6: set_int(v, h->size[i]); break;
	case 7: flags_text(h, i, v, buf); break;
	case 8: set_obj(v, heap_cluster(h, i) >= 0 ? h->clusters[heap_cluster(h, i)].root : OBJ_NONE); break;
	case 9: set_int(v, heap_is_garbage(h, i)); break;
	case 10: set_int(v, r->reachable[i]); break;
	case 11: set_text(v, r->root_kind[i] == RK_NONE ? NULL : root_kind_names[r->root_kind[i]]); break;
	case 12:
		if (r->distance[i] == UINT32_MAX)
			v->type = RV_NULL;
		else
			set_int(v, r->distance[i]);
		break;
	case 13: set_obj(v, r->parent[i]); break;
	case 14: set_text(v, r->via[i] == VIA_NONE ? NULL : path_property(h, r, i)); break;
	case 15: set_int(v, (int64_t)s->path_hash[i]); break;
	case 16: /* NULL for ⊤ and for what the graph does not reach */
		if (s->dom && s->dom->idom[i] >= 0)
			set_int(v, s->dom->idom[i]);
		else
			v->type = RV_NULL;
		break;
	case 17: /* NULL exactly for what the graph does not reach */
		if (s->dom && s->dom->idom[i] != OBJ_NONE)
			set_int(v, (int64_t)s->dom->retained[i]);
		else
			v->type = RV_NULL;
		break;
	default: /* the V8 node id, NULL for none (and on every other heap) */
	{
		int64_t id = heap_node_id(h, i);
		if (id >= 0)
			set_int(v, id);
		else
			v->type = RV_NULL;
	}
	}
}

void ref_value(const heap *h, obj_t src, uint32_t pos, int col, row_value *v)
{
	switch (col) {
	case 0: set_int(v, src); break;
	case 1: set_int(v, pos); break;
	case 2: set_int(v, h->ref_dst[pos]); break;
	case 3: set_int(v, h->ref_kind[pos]); break;
	default:
		if (h->ref_prop[pos])
			set_int(v, h->ref_prop[pos]);
		else
			v->type = RV_NULL;
	}
}

void cluster_list(const cluster *x, int list, uint32_t *start, uint32_t *n)
{
	*start = list == 0 ? x->members : list == 1 ? x->mutables : x->refs;
	*n = list == 0 ? x->n_members : list == 1 ? x->n_mutables : x->n_refs;
}

uint32_t keyed_rows(const row_source *s, int t)
{
	switch (t) {
	case KT_PURGE: return s->r->npurged;
	case KT_RETAINED_BY_PACKAGE: return s->dom ? s->dom->npackages : 0;
	case KT_COST_BY_PACKAGE: return s->cost ? s->cost->npackages : 0;
	default: return s->cost ? s->cost->ncandidates : 0;
	}
}

int keyed_columns(int t)
{
	static const int n[KT_COUNT] = {4, 5, 5, 6};
	return n[t];
}

static obj_t keyed_key(const row_source *s, int t, uint32_t k)
{
	switch (t) {
	case KT_PURGE: return s->r->purged[k];
	case KT_RETAINED_BY_PACKAGE: return s->dom->packages[k].key;
	case KT_COST_BY_PACKAGE: return s->cost->packages[k].key;
	default: return s->cost->candidates[k].package;
	}
}

/* A path (heap_path) into BUF's path; NULL when out of memory (as the
 * rows written through SQL always had it). */
static void set_path(row_value *v, const heap *h, obj_t i, row_buf *buf)
{
	free(buf->path);
	buf->path = heap_path(h, i);
	set_text(v, buf->path);
}

void keyed_value(const row_source *s, int t, uint32_t k, int col, row_value *v, row_buf *buf)
{
	const heap *h = s->h;
	obj_t key = keyed_key(s, t, k);
	if (col == 0) {
		set_int(v, key);
	} else if (t == KT_PURGE) { /* size, pending_finish_destroy, game_thread */
		set_int(v, col == 1 ? (int64_t)h->size[key]
			   : (h->traits[key] & (col == 2 ? TR_NotReadyForFinishDestroy : TR_GameThreadDestroy)) != 0);
	} else if (t == KT_RETAINED_BY_PACKAGE) { /* name, objects, shallow, retained */
		const dom_group *g = &s->dom->packages[k];
		if (col == 1) {
			heap_name(h, key, buf->name, sizeof buf->name);
			set_text(v, buf->name);
		} else {
			set_int(v, col == 2 ? (int64_t)g->count : (int64_t)(col == 3 ? g->shallow : g->retained));
		}
	} else if (t == KT_COST_BY_PACKAGE) { /* path, traced, clusters, visits */
		const gccost_row *r = &s->cost->packages[k];
		if (col == 1)
			set_path(v, h, key, buf);
		else
			set_int(v, col == 2 ? (int64_t)r->traced : col == 3 ? (int64_t)r->clusters : (int64_t)r->visits);
	} else { /* path, objects, visits, as_cluster, saved */
		const gccost_candidate *c = &s->cost->candidates[k];
		if (col == 1)
			set_path(v, h, key, buf);
		else
			set_int(v, col == 2 ? (int64_t)c->traced : col == 3 ? (int64_t)c->visits
				   : col == 4 ? (int64_t)c->as_cluster : (int64_t)(c->visits - c->as_cluster));
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

uint32_t *keyed_order(const row_source *s, int t)
{
	uint32_t n = keyed_rows(s, t);
	uint64_t *pairs = malloc((n ? n : 1) * sizeof *pairs);
	uint32_t *order = malloc((n ? n : 1) * sizeof *order);
	if (!pairs || !order) {
		free(pairs);
		free(order);
		return NULL;
	}
	int sorted = 1; /* purge comes in key order already */
	for (uint32_t k = 0; k < n; k++) { /* keys are objects: not negative */
		pairs[k] = (uint64_t)(uint32_t)keyed_key(s, t, k) << 32 | k;
		sorted &= k == 0 || pairs[k - 1] < pairs[k];
	}
	if (!sorted)
		qsort(pairs, n, sizeof *pairs, cmp_u64);
	for (uint32_t k = 0; k < n; k++)
		order[k] = (uint32_t)pairs[k];
	free(pairs);
	return order;
}
