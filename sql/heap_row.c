/* heap_row.c — the column values of object_table, ref_table and cluster
 * list rows (see heap_row.h). */
#include "sql/heap_row.h"

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

/* A NUL-terminated text, NULL for a null pointer. */
static void set_text(row_value *v, const char *s)
{
	if (!s) {
		v->type = RV_NULL;
		return;
	}
	v->type = RV_TEXT;
	v->s = s;
	v->n = strlen(s);
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
	case 4: heap_name(h, i, buf->name, sizeof buf->name); set_text(v, buf->name); break;
	case 5: heap_name(h, h->cls[i], buf->cname, sizeof buf->cname); set_text(v, buf->cname); break;
	case 6: set_int(v, h->size[i]); break;
	case 7: flags_format(buf->flags, h->oflags[i], h->iflags[i], h->traits[i]); set_text(v, buf->flags); break;
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
