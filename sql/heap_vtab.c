/* heap_vtab.c — the ugc_heap_refs and ugc_heap_objects virtual tables (see
 * heap_vtab.h).  Both only support a full scan in index order. */
#include "heap_vtab.h"

#include <stdlib.h>
#include <string.h>


typedef struct hv_table {
	sqlite3_vtab base;
	const vtab_source *src;
	int objects; /* 1: ugc_heap_objects, 0: ugc_heap_refs */
} hv_table;

/* One cursor: for refs, reference POS of object AT; for objects, object AT. */
typedef struct hv_cursor {
	sqlite3_vtab_cursor base;
	const heap *h;
	vtab_source src;
	int objects;
	uint32_t at, pos;
	row_buf buf; /* the texts of the current object row */
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
	c->src = *t->src;
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

static void result_value(sqlite3_context *ctx, const row_value *v)
{
	if (v->type == RV_INT)
		sqlite3_result_int64(ctx, v->i);
	else if (v->type == RV_TEXT)
		sqlite3_result_text(ctx, v->s, (int)v->n, SQLITE_TRANSIENT);
	else
		sqlite3_result_null(ctx);
}

static int x_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col)
{
	hv_cursor *c = (hv_cursor *)cur;
	row_value v;
	if (c->objects)
		object_value(&c->src, (obj_t)c->at, col, &v, &c->buf);
	else
		ref_value(c->h, (obj_t)c->at, c->pos, col, &v);
	result_value(ctx, &v);
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
