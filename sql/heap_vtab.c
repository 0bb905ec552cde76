/* heap_vtab.c — the heap's virtual tables (see heap_vtab.h): the modules,
 * the plans (xBestIndex), the cursors and the columns.  The indexes that
 * lookups build on first use are in heap_vtab_index.c. */
#include "sql/heap_vtab.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "sql/heap_row.h"
#include "sql/heap_vtab_index.h"
#include "sql/schema.h"
#include "sql/schema_text.h"

const char *const heap_vtab_tables[] = {"object_table", "ref_table", "strings", "cluster_members",
						    "cluster_mutable", "purge", "retained_by_package", NULL};
_Static_assert(sizeof heap_vtab_tables / sizeof *heap_vtab_tables == HV_COUNT + 1, "one name a table");

/* The columns served below, in schema.h's order: a table whose schema
 * text declares others is refused when connected. */
#define OBJECT_COLUMNS "idx,serial,class,outer,name,class_name,size,flags,cluster,garbage,reachable,root_kind," \
	"distance,parent,parent_property,path_hash,idom,retained,node_id"
static const char *const served_columns[] = {
	OBJECT_COLUMNS, "src,pos,dst,kind,prop", "id,text", "root,idx", "root,idx", "idx,size,pending_finish_destroy,game_thread",
	"package,name,objects,shallow,retained"};
_Static_assert(sizeof served_columns / sizeof *served_columns == HV_COUNT, "one column list a table");

enum { OC_IDX, OC_SERIAL, OC_CLASS, OC_OUTER, OC_NAME, OC_CLASS_NAME, OC_SIZE, OC_FLAGS, OC_CLUSTER, OC_GARBAGE,
       OC_REACHABLE, OC_ROOT_KIND, OC_DISTANCE, OC_PARENT, OC_PARENT_PROPERTY, OC_PATH_HASH, OC_IDOM, OC_RETAINED,
       OC_NODE_ID };
enum { RC_SRC, RC_POS, RC_DST, RC_KIND, RC_PROP };

/* What each object column needs beyond the heap (vtab_source.need). */
static const unsigned char object_needs[OBJECT_NCOLUMNS] = {
	[OC_REACHABLE] = PIPE_GC, [OC_ROOT_KIND] = PIPE_GC, [OC_DISTANCE] = PIPE_GC, [OC_PARENT] = PIPE_GC,
	[OC_PARENT_PROPERTY] = PIPE_GC, [OC_IDOM] = PIPE_DOM, [OC_RETAINED] = PIPE_DOM};
/* ... and each table, whatever it reads */
static const unsigned char table_needs[HV_COUNT] = {[HV_PURGE] = PIPE_GC, [HV_PACKAGES] = PIPE_DOM};

/* Have the source compute WHAT (PIPE_* bits) unless it has:
 * SQLITE_OK, or SQLITE_ERROR with the reason in *MSG (sqlite3_malloc'd). */
static int need(const vtab_source *src, int what, char **msg)
{
	char err[256];
	if (!what || hv_need(src, what, err, sizeof err) == 0)
		return SQLITE_OK;
	sqlite3_free(*msg);
	*msg = sqlite3_mprintf("%s", err);
	return SQLITE_ERROR;
}

/* A plan (idxNum): MODE * 64 + the column it looks up or orders by. */
enum { PLAN_SCAN, PLAN_EQ, PLAN_SRC_POS, PLAN_ASC, PLAN_DESC };
#define PLAN(mode, col) ((mode) * 64 + (col))

typedef struct hv_table {
	sqlite3_vtab base;
	vtab_source *src;
	int kind;                        /* HV_* */
	unsigned scans[OBJECT_NCOLUMNS]; /* lookups on each column served by a scan */
} hv_table;

/* The first lookups of objects by outer, class or idom, and of references
 * by dst, scan the table (a few ms on 2M objects, 0.06 s on 19M
 * references) instead of building what serves the key (0.1-0.4 s): a
 * question about one object builds nothing; the next lookups build it. */
#define LOOKUP_SCANS 8

/* A cursor walks runs of row ids: positions k .. end-1, each the row id
 * itself or, with LIST, LIST[k] (read backwards when DESC).  Row ids are
 * slots (objects, purge), reference positions, string ids or positions in
 * heap.cluster_items.  References and cluster lists come in groups (a
 * source's row, a cluster's list): groups g .. gend-1 are visited in turn,
 * GROUP being the current one (with GROUP_OF, the group of each listed
 * row instead).  MATCH >= 0 keeps only the rows whose value in MATCH_ON
 * (a column indexed by row id) is MATCH. */
typedef struct hv_cursor {
	sqlite3_vtab_cursor base;
	const vtab_source *src;
	int kind;
	uint64_t k, start, end;
	const uint32_t *list;
	const obj_t *group_of;
	int desc, eof;
	uint32_t g, gend, group, row;
	const obj_t *match_on;
	int64_t match;
	char name[HEAP_NAME_MAX];
	row_buf buf; /* an object row's texts */
} hv_cursor;

/* ---- connecting: the table's own CREATE TABLE from schema.h ---- */

static int connect(sqlite3 *db, vtab_source *src, int kind, sqlite3_vtab **out, char **err)
{
	schema_stmt s;
	char cols[512];
	int found = schema_table(SCHEMA_TABLES, heap_vtab_tables[kind], &s);
	if (found == -2)
		return SQLITE_NOMEM;
	if (found || schema_columns(&s, cols, sizeof cols) || strcmp(cols, served_columns[kind]) != 0) {
		*err = sqlite3_mprintf("%s: schema.h does not declare the columns heap_vtab.c serves (%s)",
				       heap_vtab_tables[kind], served_columns[kind]);
		return SQLITE_ERROR;
	}
	char *sql = sqlite3_mprintf("%.*s", (int)s.len, s.text);
	if (!sql)
		return SQLITE_NOMEM;
	int rc = sqlite3_declare_vtab(db, sql);
	sqlite3_free(sql);
	if (rc != SQLITE_OK)
		return rc;
	hv_table *t = sqlite3_malloc(sizeof *t);
	if (!t)
		return SQLITE_NOMEM;
	memset(t, 0, sizeof *t);
	t->src = src;
	t->kind = kind;
	*out = &t->base;
	return SQLITE_OK;
}

static int connect_refs(sqlite3 *db, void *aux, int argc, const char *const *argv, sqlite3_vtab **out, char **err)
{
	(void)argc; (void)argv;
	return connect(db, aux, HV_REFS, out, err);
}

static int connect_objects(sqlite3 *db, void *aux, int argc, const char *const *argv, sqlite3_vtab **out, char **err)
{
	(void)argc; (void)argv;
	return connect(db, aux, HV_OBJECTS, out, err);
}

/* CREATE VIRTUAL TABLE name USING ugc_heap: the table is the one NAME says. */
static int connect_named(sqlite3 *db, void *aux, int argc, const char *const *argv, sqlite3_vtab **out, char **err)
{
	for (int kind = 0; kind < HV_COUNT && argc > 2; kind++)
		if (strcmp(argv[2], heap_vtab_tables[kind]) == 0)
			return connect(db, aux, kind, out, err);
	*err = sqlite3_mprintf("ugc_heap serves no table named %s", argc > 2 ? argv[2] : "?");
	return SQLITE_ERROR;
}

static int x_disconnect(sqlite3_vtab *v)
{
	sqlite3_free(v);
	return SQLITE_OK;
}

/* ---- plans ---- */

static double full_rows(const hv_table *t)
{
	const heap *h = t->src->h;
	switch (t->kind) {
	case HV_OBJECTS: return h->objects;
	case HV_REFS: return h->nrefs;
	case HV_STRINGS: return h->strings.count;
	case HV_PURGE: return t->src->r->npurged;
	case HV_PACKAGES: return t->src->dom ? t->src->dom->npackages : 0;
	default: return h->ncluster_items;
	}
}

/* Rows one equality lookup on COL finds on average (the table's rows over
 * the key's distinct values); -1 when COL is not a key served. */
static double lookup_rows(hv_table *t, int col)
{
	const heap *h = t->src->h;
	double objects = h->objects ? h->objects : 1, clusters = h->nclusters ? h->nclusters : 1;
	switch (t->kind) {
	case HV_OBJECTS:
		if (col == OC_IDX || col == OC_PATH_HASH)
			return 1;
		if (col == OC_OUTER || col == OC_CLASS || (col == OC_IDOM && t->src->dom))
			return hv_key_spread(t->src, col == OC_OUTER ? HK_OUTER : col == OC_CLASS ? HK_CLASS : HK_IDOM);
		return -1;
	case HV_REFS: return col == RC_SRC || col == RC_DST ? h->nrefs / objects : -1;
	case HV_STRINGS: return col == 0 ? 1 : -1;
	case HV_MEMBERS: return col == 0 ? h->ncluster_items / clusters / 2 : col == 1 ? 1 : -1;
	case HV_MUTABLE: return col == 0 ? h->ncluster_items / clusters / 2 : -1;
	default: return col == 0 ? 1 : -1;
	}
}

/* Do the rows of every plan but the sorted ones come in the ORDER BY's order? */
static int natural_order(const hv_table *t, const sqlite3_index_info *info)
{
	int keys = t->kind == HV_REFS ? 2 : t->kind == HV_MEMBERS || t->kind == HV_MUTABLE ? 0 : 1;
	if (info->nOrderBy < 1 || info->nOrderBy > keys)
		return 0;
	for (int k = 0; k < info->nOrderBy; k++)
		if (info->aOrderBy[k].iColumn != k || info->aOrderBy[k].desc)
			return 0;
	return 1;
}

/* The plan's name for EXPLAIN QUERY PLAN: "dst=", "src=,pos=", "order by retained desc". */
static void plan_name(int kind, sqlite3_index_info *info)
{
	int mode = info->idxNum / 64, col = info->idxNum % 64;
	const char *s = served_columns[kind];
	for (int k = 0; k < col && s; k++)
		if ((s = strchr(s, ',')))
			s++;
	if (mode == PLAN_SCAN || !s)
		return;
	int len = (int)strcspn(s, ",");
	info->idxStr = mode == PLAN_SRC_POS ? sqlite3_mprintf("src=,pos=")
		     : mode == PLAN_EQ      ? sqlite3_mprintf("%.*s=", len, s)
					    : sqlite3_mprintf("order by %.*s%s", len, s, mode == PLAN_DESC ? " desc" : "");
	info->needToFreeIdxStr = 1;
}

static int x_best_index(sqlite3_vtab *v, sqlite3_index_info *info)
{
	hv_table *t = (hv_table *)v;
	int wants = table_needs[t->kind];
	for (int k = 0; k < info->nConstraint; k++) /* planned on the dominators' own key spread */
		if (t->kind == HV_OBJECTS && info->aConstraint[k].iColumn == OC_IDOM && info->aConstraint[k].usable)
			wants |= PIPE_DOM;
	if (need(t->src, wants, &v->zErrMsg))
		return SQLITE_ERROR;
	double n = full_rows(t);
	info->idxNum = PLAN(PLAN_SCAN, 0);
	info->estimatedRows = (sqlite3_int64)n;
	info->estimatedCost = n + 1;
	if (!t->src->lookups)
		return SQLITE_OK;
	int best = -1, pos = -1;
	double rows = n + 1;
	for (int k = 0; k < info->nConstraint; k++) {
		const struct sqlite3_index_constraint *c = &info->aConstraint[k];
		if (!c->usable || c->op != SQLITE_INDEX_CONSTRAINT_EQ)
			continue;
		if (t->kind == HV_REFS && c->iColumn == RC_POS) {
			pos = k;
			continue;
		}
		double r = lookup_rows(t, c->iColumn);
		if (r >= 0 && r < rows) {
			best = k;
			rows = r;
		}
	}
	if (best >= 0) {
		int col = info->aConstraint[best].iColumn, mode = PLAN_EQ;
		info->aConstraintUsage[best].argvIndex = 1; /* not omitted: SQLite checks each row too */
		if (t->kind == HV_REFS && col == RC_SRC && pos >= 0) {
			info->aConstraintUsage[pos].argvIndex = 2;
			mode = PLAN_SRC_POS;
			rows = 1;
		}
		info->idxNum = PLAN(mode, col);
		info->estimatedRows = (sqlite3_int64)ceil(rows);
		/* CSR lookups are O(1); path hashes and the purge are binary searches */
		int search = (t->kind == HV_OBJECTS && col == OC_PATH_HASH) || t->kind == HV_PURGE || t->kind == HV_PACKAGES;
		info->estimatedCost = rows + (search ? log2(n + 2) : 1);
		if (rows == 1 && !(t->kind == HV_OBJECTS && col == OC_PATH_HASH))
			info->idxFlags |= SQLITE_INDEX_SCAN_UNIQUE;
	} else if (t->kind == HV_OBJECTS && info->nOrderBy == 1 && info->aOrderBy[0].iColumn == OC_RETAINED) {
		info->idxNum = PLAN(info->aOrderBy[0].desc ? PLAN_DESC : PLAN_ASC, OC_RETAINED);
		info->orderByConsumed = 1;
	}
	plan_name(t->kind, info);
	if (natural_order(t, info) && info->idxNum / 64 != PLAN_ASC && info->idxNum / 64 != PLAN_DESC)
		info->orderByConsumed = 1;
	return SQLITE_OK;
}

/* ---- cursors ---- */

static int x_open(sqlite3_vtab *v, sqlite3_vtab_cursor **out)
{
	hv_table *t = (hv_table *)v;
	hv_cursor *c = sqlite3_malloc(sizeof *c);
	if (!c)
		return SQLITE_NOMEM;
	memset(c, 0, sizeof *c);
	c->src = t->src;
	c->kind = t->kind;
	c->eof = 1;
	*out = &c->base;
	return SQLITE_OK;
}

static int x_close(sqlite3_vtab_cursor *cur)
{
	sqlite3_free(cur);
	return SQLITE_OK;
}

/* The positions of group G's rows. */
static void group_range(hv_cursor *c, uint32_t g)
{
	const heap *h = c->src->h;
	if (c->kind == HV_REFS) {
		c->k = h->ref_start[g];
		c->end = h->ref_start[g + 1];
	} else {
		uint32_t start, n;
		cluster_list(&h->clusters[g], c->kind == HV_MEMBERS ? 0 : 1, &start, &n);
		c->k = start;
		c->end = (uint64_t)start + n;
	}
	c->start = c->k;
	c->group = g;
}

/* Move to the first row at or after the current position. */
static void settle(hv_cursor *c)
{
	const heap *h = c->src->h;
	for (;;) {
		for (; c->k < c->end; c->k++) {
			uint64_t at = c->desc ? c->start + c->end - 1 - c->k : c->k;
			uint32_t row = c->list ? c->list[at] : (uint32_t)at;
			if (c->kind == HV_OBJECTS && h->cls[row] == OBJ_FREE)
				continue;
			if (c->match >= 0 && c->match_on[row] != c->match)
				continue;
			c->row = row;
			if (c->group_of)
				c->group = (uint32_t)c->group_of[at];
			return;
		}
		if (c->g >= c->gend) {
			c->eof = 1;
			return;
		}
		group_range(c, c->g++);
	}
}

/* Rows K .. END-1 (of LIST when set). */
static void run(hv_cursor *c, uint64_t k, uint64_t end, const uint32_t *list)
{
	c->k = c->start = k;
	c->end = end;
	c->list = list;
}

static int scan_all(hv_cursor *c)
{
	const heap *h = c->src->h;
	switch (c->kind) {
	case HV_OBJECTS: run(c, 0, h->slots, NULL); break;
	case HV_STRINGS: run(c, 1, h->strings.count > 1 ? h->strings.count : 1, NULL); break;
	case HV_PURGE: run(c, 0, c->src->r->npurged, (const uint32_t *)c->src->r->purged); break;
	case HV_PACKAGES: {
		const uint32_t *by = hv_by_package((vtab_source *)c->src);
		if (!by)
			return SQLITE_NOMEM;
		run(c, 0, c->src->dom ? c->src->dom->npackages : 0, by);
		break;
	}
	case HV_REFS: c->gend = h->slots; break;
	default: c->gend = h->nclusters;
	}
	return SQLITE_OK;
}

/* V as an integer key: 1 and *KEY; 0 when it is NULL (equal to nothing);
 * -1 when it is no integer (then every row is checked by SQLite). */
static int int_arg(sqlite3_value *v, int64_t *key)
{
	int type = sqlite3_value_numeric_type(v);
	if (type == SQLITE_NULL)
		return 0;
	if (type == SQLITE_INTEGER) {
		*key = sqlite3_value_int64(v);
		return 1;
	}
	double d = sqlite3_value_double(v);
	if (type == SQLITE_FLOAT && d == floor(d) && fabs(d) < 9e18) {
		*key = (int64_t)d;
		return 1;
	}
	return -1;
}

/* Is this one of the first LOOKUP_SCANS lookups on column COL of C's
 * table?  Then it scans instead of building an index. */
static int scan_instead(hv_cursor *c, int col)
{
	return ((hv_table *)c->base.pVtab)->scans[col]++ < LOOKUP_SCANS;
}

/* Every row of the table whose value in ON is KEY. */
static void match(hv_cursor *c, const obj_t *on, int64_t key)
{
	scan_all(c); /* objects and references: no allocation */
	c->match_on = on;
	c->match = key;
}

/* Equality lookup of KEY on column COL (PLAN_SRC_POS: and of POS). */
static int lookup(hv_cursor *c, int col, int64_t key, int64_t pos, int mode)
{
	vtab_source *s = (vtab_source *)c->src;
	const heap *h = s->h;
	int in = key >= 0 && key < h->slots;
	switch (c->kind) {
	case HV_OBJECTS:
		if (col == OC_IDX) {
			if (in)
				run(c, (uint64_t)key, (uint64_t)key + 1, NULL);
			return SQLITE_OK;
		}
		if (col == OC_PATH_HASH) {
			uint64_t lo, hi;
			const uint32_t *by = hv_by_hash(s, (uint64_t)key, &lo, &hi);
			if (!by)
				return SQLITE_NOMEM;
			run(c, lo, hi, by);
			return SQLITE_OK;
		}
		if (scan_instead(c, col)) {
			if (in)
				match(c, col == OC_OUTER ? h->outer : col == OC_CLASS ? h->cls : s->dom->idom, key);
			return SQLITE_OK;
		}
		if (col == OC_OUTER) {
			if (heap_build_children(s->lookups))
				return SQLITE_NOMEM;
			if (in)
				run(c, h->child_start[key], h->child_start[key + 1], (const uint32_t *)h->child);
			return SQLITE_OK;
		} else {
			const hv_csr *by = hv_by_key(s, col == OC_CLASS ? HK_CLASS : HK_IDOM);
			if (!by)
				return SQLITE_NOMEM;
			if (in)
				run(c, by->start[key], by->start[key + 1], by->item);
			return SQLITE_OK;
		}
	case HV_REFS:
		if (col == RC_DST && scan_instead(c, col)) {
			if (in)
				match(c, h->ref_dst, key);
		} else if (col == RC_DST) {
			if (heap_build_reverse(s->lookups))
				return SQLITE_NOMEM;
			if (in) {
				run(c, h->rev_start[key], h->rev_start[key + 1], h->rev_ref);
				c->group_of = h->rev_src;
			}
		} else if (in && mode == PLAN_SRC_POS) {
			if (pos >= h->ref_start[key] && pos < h->ref_start[key + 1]) {
				run(c, (uint64_t)pos, (uint64_t)pos + 1, NULL);
				c->group = (uint32_t)key;
			}
		} else if (in) {
			c->g = (uint32_t)key;
			c->gend = c->g + 1;
		}
		return SQLITE_OK;
	case HV_STRINGS:
		if (key >= 1 && key < h->strings.count)
			run(c, (uint64_t)key, (uint64_t)key + 1, NULL);
		return SQLITE_OK;
	case HV_PACKAGES: {
		const uint32_t *by = hv_by_package(s);
		if (!by)
			return SQLITE_NOMEM;
		uint32_t at = hv_find_package(s, (obj_t)(in ? key : -1));
		if (at != UINT32_MAX)
			run(c, at, at + 1, by);
		return SQLITE_OK;
	}
	case HV_PURGE: {
		const gc_result *r = s->r;
		uint32_t lo = 0, hi = r->npurged;
		while (lo < hi) { /* the purge is ascending */
			uint32_t mid = lo + (hi - lo) / 2;
			if (r->purged[mid] < key)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < r->npurged && r->purged[lo] == key)
			run(c, lo, lo + 1, (const uint32_t *)r->purged);
		return SQLITE_OK;
	}
	default: /* a cluster's list by its root, or the members' list naming KEY */
		if (in && h->cls[key] != OBJ_FREE && heap_cluster(h, key) >= 0) {
			int32_t id = heap_cluster(h, key);
			int root = h->clusters[id].root == key;
			if (col == 0 ? root : !root) {
				c->g = (uint32_t)id;
				c->gend = c->g + 1;
				c->match_on = h->cluster_items;
				c->match = col == 0 ? -1 : key;
			}
		}
		return SQLITE_OK;
	}
}

static int x_filter(sqlite3_vtab_cursor *cur, int plan, const char *idxstr, int argc, sqlite3_value **argv)
{
	(void)idxstr;
	hv_cursor *c = (hv_cursor *)cur;
	int mode = plan / 64, col = plan % 64, rc = SQLITE_OK;
	c->k = c->start = c->end = 0;
	c->g = c->gend = 0;
	c->list = NULL;
	c->group_of = NULL;
	c->desc = 0;
	c->match = -1;
	c->eof = 0;
	int wants = table_needs[c->kind] | (mode == PLAN_ASC || mode == PLAN_DESC || (c->kind == HV_OBJECTS && col == OC_IDOM)
					     ? PIPE_DOM : 0);
	if (need(c->src, wants, &cur->pVtab->zErrMsg))
		return SQLITE_ERROR;
	int64_t key = 0, pos = 0;
	int got = mode == PLAN_EQ || mode == PLAN_SRC_POS ? (argc >= 1 ? int_arg(argv[0], &key) : -1) : -1;
	if (got == 1 && mode == PLAN_SRC_POS)
		got = argc >= 2 ? int_arg(argv[1], &pos) : -1;
	if (mode == PLAN_ASC || mode == PLAN_DESC) {
		const uint32_t *by = hv_by_retained((vtab_source *)c->src);
		if (!by)
			return SQLITE_NOMEM;
		run(c, 0, c->src->h->objects, by);
		c->desc = mode == PLAN_DESC;
	} else if (got == 1) {
		rc = lookup(c, col, key, pos, mode);
	} else if (got < 0) {
		rc = scan_all(c);
	} /* else a NULL key: no rows */
	settle(c);
	return rc;
}

static int x_next(sqlite3_vtab_cursor *cur)
{
	hv_cursor *c = (hv_cursor *)cur;
	c->k++;
	settle(c);
	return SQLITE_OK;
}

static int x_eof(sqlite3_vtab_cursor *cur)
{
	return ((hv_cursor *)cur)->eof;
}

/* ---- columns ---- */

static void result_text(sqlite3_context *ctx, const char *s)
{
	if (s)
		sqlite3_result_text(ctx, s, -1, SQLITE_TRANSIENT);
	else
		sqlite3_result_null(ctx);
}

/* A value of heap_row.c's, the same the page writer stores. */
static void result_value(sqlite3_context *ctx, const row_value *v)
{
	if (v->type == RV_INT)
		sqlite3_result_int64(ctx, v->i);
	else if (v->type == RV_TEXT)
		sqlite3_result_text(ctx, v->s, (int)v->n, SQLITE_TRANSIENT);
	else
		sqlite3_result_null(ctx);
}

static int object_column(hv_cursor *c, sqlite3_context *ctx, int col)
{
	char *msg = NULL;
	if (need(c->src, object_needs[col], &msg)) {
		sqlite3_result_error(ctx, msg ? msg : "out of memory", -1);
		sqlite3_free(msg);
		return SQLITE_ERROR;
	}
	row_source rs = {c->src->h, c->src->r, NULL, c->src->dom, NULL};
	if (col == OC_PATH_HASH && !(rs.path_hash = hv_path_hashes((vtab_source *)c->src)))
		return SQLITE_NOMEM;
	row_value v;
	object_value(&rs, (obj_t)c->row, col, &v, &c->buf);
	result_value(ctx, &v);
	return SQLITE_OK;
}

static int x_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col)
{
	hv_cursor *c = (hv_cursor *)cur;
	const heap *h = c->src->h;
	uint32_t at = c->row;
	switch (c->kind) {
	case HV_OBJECTS:
		return object_column(c, ctx, col);
	case HV_REFS: {
		row_value v;
		ref_value(h, (obj_t)c->group, at, col, &v);
		result_value(ctx, &v);
		return SQLITE_OK;
	}
	case HV_STRINGS:
		if (col == 0)
			sqlite3_result_int64(ctx, at);
		else
			sqlite3_result_text(ctx, heap_str(h, at), (int)strtab_len(&h->strings, at), SQLITE_STATIC);
		return SQLITE_OK;
	case HV_PACKAGES: {
		const dom_group *g = &c->src->dom->packages[at];
		if (col == 1) {
			heap_name(h, g->key, c->name, sizeof c->name);
			result_text(ctx, c->name);
		} else {
			sqlite3_result_int64(ctx, col == 0 ? g->key : col == 2 ? g->count : col == 3 ? (sqlite3_int64)g->shallow
											      : (sqlite3_int64)g->retained);
		}
		return SQLITE_OK;
	}
	case HV_PURGE:
		if (col == 0)
			sqlite3_result_int64(ctx, at);
		else if (col == 1)
			sqlite3_result_int64(ctx, h->size[at]);
		else
			sqlite3_result_int(ctx, (h->traits[at] & (col == 2 ? TR_NotReadyForFinishDestroy
									    : TR_GameThreadDestroy)) != 0);
		return SQLITE_OK;
	default:
		sqlite3_result_int64(ctx, col == 0 ? h->clusters[c->group].root : h->cluster_items[at]);
		return SQLITE_OK;
	}
}

/* The database's rowid of the current row: the key of a table keyed by an
 * INTEGER PRIMARY KEY, a list row's place over all lists (heap_row.h). */
static int x_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid)
{
	hv_cursor *c = (hv_cursor *)cur;
	if (c->kind == HV_PACKAGES) {
		*rowid = c->src->dom->packages[c->row].key;
	} else if (c->kind == HV_MEMBERS || c->kind == HV_MUTABLE) {
		int list = c->kind == HV_MEMBERS ? 0 : 1;
		const uint32_t *first = hv_list_first(((hv_table *)cur->pVtab)->src, list);
		if (!first)
			return SQLITE_NOMEM;
		uint32_t start, n;
		cluster_list(&c->src->h->clusters[c->group], list, &start, &n);
		*rowid = (sqlite3_int64)first[c->group] + (c->row - start) + 1;
	} else {
		*rowid = c->row;
	}
	return SQLITE_OK;
}

/* ---- modules ---- */

#define MODULE(create_fn, connect_fn) { .iVersion = 0, .xCreate = create_fn, .xConnect = connect_fn, \
	.xBestIndex = x_best_index, .xDisconnect = x_disconnect, .xDestroy = x_disconnect, \
	.xOpen = x_open, .xClose = x_close, .xFilter = x_filter, .xNext = x_next, .xEof = x_eof, \
	.xColumn = x_column, .xRowid = x_rowid }

/* eponymous-only (no xCreate), for the store */
static const sqlite3_module refs_module = MODULE(NULL, connect_refs);
static const sqlite3_module objects_module = MODULE(NULL, connect_objects);
/* CREATE VIRTUAL TABLE <one of heap_vtab_tables> USING ugc_heap */
static const sqlite3_module named_module = MODULE(connect_named, connect_named);

int heap_vtab_on_demand(vtab_source *src, vtab_need_fn *need, void *owner)
{
	return hv_set_need(src, need, owner);
}

static void release(void *src)
{
	hv_built_free(src);
}

int heap_vtab_register(sqlite3 *db, vtab_source *src)
{
	int rc = sqlite3_create_module_v2(db, "ugc_heap_refs", &refs_module, src, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_create_module_v2(db, "ugc_heap_objects", &objects_module, src, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_create_module_v2(db, "ugc_heap", &named_module, src, release);
	return rc;
}
