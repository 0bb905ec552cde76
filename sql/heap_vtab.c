/* heap_vtab.c — the ugc_heap_refs and ugc_heap_objects virtual tables (see
 * heap_vtab.h).  Both only support a full scan in index order. */
#include "heap_vtab.h"

#include <stdlib.h>
#include <string.h>

#include "findings.h"

typedef struct hv_table {
	sqlite3_vtab base;
	const vtab_source *src;
	int objects; /* 1: ugc_heap_objects, 0: ugc_heap_refs */
} hv_table;

/* One cursor: for refs, reference POS of object AT; for objects, object AT. */
typedef struct hv_cursor {
	sqlite3_vtab_cursor base;
	const heap *h;
	const gc_result *r;
	int objects;
	const uint64_t *path_hash;
	const dom_result *dom;
	uint32_t at, pos;
	char name[HEAP_NAME_MAX], cname[HEAP_NAME_MAX], flags[FLAGS_MAX];
} hv_cursor;

static const char refs_schema[] = "CREATE TABLE x(src INTEGER, pos INTEGER, dst INTEGER, kind INTEGER, prop INTEGER)";
static const char objects_schema[] =
	"CREATE TABLE x(idx INTEGER, serial INTEGER, class INTEGER, outer INTEGER, name TEXT, "
	"class_name TEXT, size INTEGER, flags TEXT, cluster INTEGER, garbage INTEGER, reachable INTEGER, "
	"root_kind TEXT, distance INTEGER, parent INTEGER, parent_property TEXT, path_hash INTEGER, idom INTEGER, "
	"retained INTEGER)";

static int connect(sqlite3 *db, void *aux, sqlite3_vtab **out, int objects)
{
	int rc = sqlite3_declare_vtab(db, objects ? objects_schema : refs_schema);
	if (rc != SQLITE_OK)
		return rc;
	hv_table *t = sqlite3_malloc(sizeof *t);
	if (!t)
		return SQLITE_NOMEM;
	memset(t, 0, sizeof *t);
	t->src = aux;
	t->objects = objects;
	*out = &t->base;
	return SQLITE_OK;
}

static int connect_refs(sqlite3 *db, void *aux, int argc, const char *const *argv, sqlite3_vtab **out, char **err)
{
	(void)argc; (void)argv; (void)err;
	return connect(db, aux, out, 0);
}

static int connect_objects(sqlite3 *db, void *aux, int argc, const char *const *argv, sqlite3_vtab **out, char **err)
{
	(void)argc; (void)argv; (void)err;
	return connect(db, aux, out, 1);
}

static int x_disconnect(sqlite3_vtab *v)
{
	sqlite3_free(v);
	return SQLITE_OK;
}

static int x_best_index(sqlite3_vtab *v, sqlite3_index_info *info)
{
	(void)v;
	info->estimatedCost = 1e9;
	return SQLITE_OK;
}

static int x_open(sqlite3_vtab *v, sqlite3_vtab_cursor **out)
{
	hv_table *t = (hv_table *)v;
	hv_cursor *c = sqlite3_malloc(sizeof *c);
	if (!c)
		return SQLITE_NOMEM;
	memset(c, 0, sizeof *c);
	c->h = t->src->h;
	c->r = t->src->r;
	c->path_hash = t->src->path_hash;
	c->dom = t->src->dom;
	c->objects = t->objects;
	*out = &c->base;
	return SQLITE_OK;
}

static int x_close(sqlite3_vtab_cursor *cur)
{
	sqlite3_free(cur);
	return SQLITE_OK;
}

/* Move to the first row at or after the current position. */
static void settle(hv_cursor *c)
{
	const heap *h = c->h;
	if (c->objects) {
		while (c->at < h->slots && h->cls[c->at] == OBJ_FREE)
			c->at++;
	} else {
		while (c->at < h->slots && h->ref_start[c->at + 1] <= c->pos)
			c->at++;
	}
}

static int x_filter(sqlite3_vtab_cursor *cur, int idx, const char *idxstr, int argc, sqlite3_value **argv)
{
	(void)idx; (void)idxstr; (void)argc; (void)argv;
	hv_cursor *c = (hv_cursor *)cur;
	c->at = c->pos = 0;
	settle(c);
	return SQLITE_OK;
}

static int x_next(sqlite3_vtab_cursor *cur)
{
	hv_cursor *c = (hv_cursor *)cur;
	if (c->objects)
		c->at++;
	else
		c->pos++;
	settle(c);
	return SQLITE_OK;
}

static int x_eof(sqlite3_vtab_cursor *cur)
{
	hv_cursor *c = (hv_cursor *)cur;
	return c->objects ? c->at >= c->h->slots : c->pos >= c->h->nrefs;
}

static void result_obj(sqlite3_context *ctx, obj_t i)
{
	if (i == OBJ_NONE)
		sqlite3_result_null(ctx);
	else
		sqlite3_result_int64(ctx, i);
}

static void result_text(sqlite3_context *ctx, const char *s)
{
	if (s)
		sqlite3_result_text(ctx, s, -1, SQLITE_TRANSIENT);
	else
		sqlite3_result_null(ctx);
}

static int object_column(hv_cursor *c, sqlite3_context *ctx, int col)
{
	const heap *h = c->h;
	const gc_result *r = c->r;
	obj_t i = (obj_t)c->at;
	switch (col) {
	case 0: sqlite3_result_int64(ctx, i); break;
	case 1: sqlite3_result_int64(ctx, h->serial[i]); break;
	case 2: sqlite3_result_int64(ctx, h->cls[i]); break;
	case 3: result_obj(ctx, h->outer[i]); break;
	case 4: heap_name(h, i, c->name, sizeof c->name); result_text(ctx, c->name); break;
	case 5: heap_name(h, h->cls[i], c->cname, sizeof c->cname); result_text(ctx, c->cname); break;
	case 6: sqlite3_result_int64(ctx, h->size[i]); break;
	case 7: flags_format(c->flags, h->oflags[i], h->iflags[i], h->traits[i]); result_text(ctx, c->flags); break;
	case 8: result_obj(ctx, h->cluster[i] >= 0 ? h->clusters[h->cluster[i]].root : OBJ_NONE); break;
	case 9: sqlite3_result_int(ctx, heap_is_garbage(h, i)); break;
	case 10: sqlite3_result_int(ctx, r->reachable[i]); break;
	case 11: result_text(ctx, r->root_kind[i] == RK_NONE ? NULL : root_kind_names[r->root_kind[i]]); break;
	case 12:
		if (r->distance[i] == UINT32_MAX)
			sqlite3_result_null(ctx);
		else
			sqlite3_result_int64(ctx, r->distance[i]);
		break;
	case 13: result_obj(ctx, r->parent[i]); break;
	case 14: result_text(ctx, r->via[i] == VIA_NONE ? NULL : edge_property(h, r->via[i])); break;
	case 15: sqlite3_result_int64(ctx, (sqlite3_int64)c->path_hash[i]); break;
	case 16: /* NULL for ⊤ and for what the graph does not reach */
		if (c->dom && c->dom->idom[i] >= 0)
			sqlite3_result_int64(ctx, c->dom->idom[i]);
		else
			sqlite3_result_null(ctx);
		break;
	default: /* NULL exactly for what the graph does not reach */
		if (c->dom && c->dom->idom[i] != OBJ_NONE)
			sqlite3_result_int64(ctx, (sqlite3_int64)c->dom->retained[i]);
		else
			sqlite3_result_null(ctx);
	}
	return SQLITE_OK;
}

static int x_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col)
{
	hv_cursor *c = (hv_cursor *)cur;
	const heap *h = c->h;
	if (c->objects)
		return object_column(c, ctx, col);
	switch (col) {
	case 0: sqlite3_result_int64(ctx, c->at); break;
	case 1: sqlite3_result_int64(ctx, c->pos); break;
	case 2: sqlite3_result_int64(ctx, h->ref_dst[c->pos]); break;
	case 3: sqlite3_result_int(ctx, h->ref_kind[c->pos]); break;
	default:
		if (h->ref_prop[c->pos])
			sqlite3_result_int64(ctx, h->ref_prop[c->pos]);
		else
			sqlite3_result_null(ctx);
	}
	return SQLITE_OK;
}

static int x_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid)
{
	hv_cursor *c = (hv_cursor *)cur;
	*rowid = c->objects ? c->at : c->pos;
	return SQLITE_OK;
}

#define MODULE(connect_fn) { .iVersion = 0, .xCreate = NULL, .xConnect = connect_fn, \
	.xBestIndex = x_best_index, .xDisconnect = x_disconnect, .xDestroy = x_disconnect, \
	.xOpen = x_open, .xClose = x_close, .xFilter = x_filter, .xNext = x_next, .xEof = x_eof, \
	.xColumn = x_column, .xRowid = x_rowid }

static const sqlite3_module refs_module = MODULE(connect_refs);
static const sqlite3_module objects_module = MODULE(connect_objects);

int heap_vtab_register(sqlite3 *db, const vtab_source *src)
{
	int rc = sqlite3_create_module_v2(db, "ugc_heap_refs", &refs_module, (void *)src, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_create_module_v2(db, "ugc_heap_objects", &objects_module, (void *)src, NULL);
	return rc;
}
