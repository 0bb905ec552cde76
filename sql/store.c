/* store.c — fills the analysis database (schema.h) from a heap, its GC
 * result and findings.  Bulk load: one transaction, no journal, prepared
 * statements, rows in primary-key order, indexes built at the end.  The
 * big tables and their indexes are left empty and then written as pages
 * (store_pages.h); when the page writer cannot, the whole database is
 * written again with them filled through SQL. */
#include "sql/store.h"

#include <sqlite3.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/analysis.h"
#include "base/base.h"
#include "sql/heap_row.h"
#include "sql/heap_vtab.h"
#include "sql/path_hash.h"
#include "sql/schema.h"
#include "sql/schema_text.h"
#include "sql/store_pages.h"

typedef struct writer {
	sqlite3 *db;
	const heap *h;
	const gc_result *r;
	const findings *f;
	const store_info *info;
	char *err;
	size_t errsize;
	gccost *cost;   /* the mark's work, counted when a gc_cost table is first filled */
	int cost_owned; /* COST counted here (fill frees it), not the caller's */
} writer;

static int db_fail(writer *w, const char *what)
{
	snprintf(w->err, w->errsize, "%s: %s", what, sqlite3_errmsg(w->db));
	return -1;
}

static int exec(writer *w, const char *sql)
{
	char *msg = NULL;
	if (sqlite3_exec(w->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		snprintf(w->err, w->errsize, "SQLite: %s", msg ? msg : "error");
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

static sqlite3_stmt *prepare(writer *w, const char *sql)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(w->db, sql, -1, &st, NULL) != SQLITE_OK)
		db_fail(w, "prepare");
	return st;
}

/* Step a bound statement and reset it for the next row. */
static int row(writer *w, sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : db_fail(w, "insert");
}

/* Row K's values into the statement ST, for insert_rows; CTX is the
 * caller's.  0, or -1 with W's error. */
typedef int (*bind_fn)(writer *w, sqlite3_stmt *st, uint32_t k, void *ctx);

/* The rows 0 .. N-1 of a table through the statement SQL, BIND putting
 * each row's values in: the loop of every table written row by row. */
static int insert_rows(writer *w, const char *sql, uint32_t n, bind_fn bind, void *ctx)
{
	sqlite3_stmt *st = prepare(w, sql);
	int rc = st ? 0 : -1;
	for (uint32_t k = 0; k < n && rc == 0; k++)
		rc = bind(w, st, k, ctx) ? -1 : row(w, st);
	sqlite3_finalize(st);
	return rc;
}

/* A table keyed by an object (heap_row.h's keyed tables), in key order.
 * COST: the mark's work, for the two tables made of it. */
static int store_keyed(writer *w, int t, const char *sql, const gccost *cost)
{
	row_source src = {w->h, w->r, NULL, w->info->dom, cost};
	uint32_t n = keyed_rows(&src, t), *order = keyed_order(&src, t);
	row_buf *buf = calloc(1, sizeof *buf);
	sqlite3_stmt *st = order && buf ? prepare(w, sql) : NULL;
	int rc = st ? 0 : -1;
	if (!order || !buf)
		snprintf(w->err, w->errsize, "out of memory");
	if (buf)
		buf->path = NULL;
	for (uint32_t k = 0; k < n && rc == 0; k++) {
		for (int col = 0; col < keyed_columns(t); col++) {
			row_value v;
			keyed_value(&src, t, order[k], col, &v, buf);
			if (v.type == RV_INT)
				sqlite3_bind_int64(st, col + 1, v.i);
			else if (v.type == RV_TEXT)
				sqlite3_bind_text(st, col + 1, v.s, (int)v.n, SQLITE_TRANSIENT);
			else
				sqlite3_bind_null(st, col + 1);
		}
		rc = row(w, st);
	}
	sqlite3_finalize(st);
	if (buf)
		free(buf->path);
	free(buf);
	free(order);
	return rc;
}

static void bind_obj(sqlite3_stmt *st, int col, obj_t i)
{
	if (i == OBJ_NONE)
		sqlite3_bind_null(st, col);
	else
		sqlite3_bind_int64(st, col, i);
}

static void bind_text(sqlite3_stmt *st, int col, const char *s)
{
	if (s)
		sqlite3_bind_text(st, col, s, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, col);
}

static void bind_prop(const heap *h, sqlite3_stmt *st, int col, uint32_t prop)
{
	bind_text(st, col, prop ? heap_str(h, prop) : NULL);
}

static int put_meta(writer *w, sqlite3_stmt *st, const char *key, const char *text, long long num, int is_num)
{
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	if (is_num)
		sqlite3_bind_int64(st, 2, num);
	else
		bind_text(st, 2, text);
	return row(w, st);
}

static int store_snapshot(writer *w)
{
	const heap *h = w->h;
	const store_info *info = w->info;
	sqlite3_stmt *st = prepare(w, "INSERT INTO snapshot VALUES(?,?)");
	if (!st)
		return -1;
	char keep[FLAGS_MAX];
	flags_format(keep, info->opt->keep_flags, 0, 0);
	int rc = put_meta(w, st, "engine", h->engine ? heap_str(h, h->engine) : NULL, 0, 0) ||
		 put_meta(w, st, "mode", info->opt->mode == MODE_EDITOR ? "editor" : "game", 0, 0) ||
		 put_meta(w, st, "snapshot_mode", h->mode == MODE_EDITOR ? "editor" : "game", 0, 0) ||
		 put_meta(w, st, "keep_flags", keep, 0, 0) ||
		 put_meta(w, st, "first_gc_index", NULL, h->first_gc_index, 1) ||
		 put_meta(w, st, "garbage_elimination", h->no_garbage_elimination ? "off" : "on", 0, 0) ||
		 put_meta(w, st, "label", h->label ? heap_str(h, h->label) : NULL, 0, 0) ||
		 put_meta(w, st, "source_file", info->source, 0, 0) ||
		 put_meta(w, st, "tool_version", "ugc-analyze " UGC_VERSION, 0, 0) ||
		 put_meta(w, st, "analysed_at", NULL, (long long)info->analysed_at, 1) ||
		 put_meta(w, st, "slots", NULL, h->slots, 1) ||
		 put_meta(w, st, "references", NULL, h->nrefs, 1) ||
		 put_meta(w, st, "policy", info->dom ? dom_policy_names[info->dom->policy] : NULL, 0, 0) ||
		 put_meta(w, st, "schema_version", NULL, SCHEMA_VERSION, 1);
	sqlite3_finalize(st);
	return rc ? -1 : 0;
}

/* Retained bytes by class and by package: one dom_group a row. */
static int bind_group(writer *w, sqlite3_stmt *st, uint32_t k, void *groups)
{
	const dom_group *g = (const dom_group *)groups + k;
	char name[HEAP_NAME_MAX];
	heap_name(w->h, g->key, name, sizeof name);
	sqlite3_bind_int64(st, 1, g->key);
	bind_text(st, 2, name);
	sqlite3_bind_int64(st, 3, g->count);
	sqlite3_bind_int64(st, 4, (sqlite3_int64)g->shallow);
	sqlite3_bind_int64(st, 5, (sqlite3_int64)g->retained);
	return 0;
}

static int store_retained_by_class(writer *w)
{
	const dom_result *d = w->info->dom;
	return d ? insert_rows(w, "INSERT INTO retained_by_class VALUES(?,?,?,?,?)", d->nclasses, bind_group,
			       d->classes) : 0;
}

static int store_retained_by_package(writer *w)
{
	return w->info->dom ? store_keyed(w, KT_RETAINED_BY_PACKAGE, "INSERT INTO retained_by_package VALUES(?,?,?,?,?)",
					  NULL) : 0;
}

/* Retained bytes between packages. */
static int bind_pair(writer *w, sqlite3_stmt *st, uint32_t k, void *unused)
{
	(void)unused;
	const dom_pair *p = &w->info->dom->pairs[k];
	sqlite3_bind_int64(st, 1, p->from);
	sqlite3_bind_int64(st, 2, p->to);
	sqlite3_bind_int64(st, 3, p->count);
	sqlite3_bind_int64(st, 4, (sqlite3_int64)p->bytes);
	return 0;
}

static int store_package_retention(writer *w)
{
	const dom_result *d = w->info->dom;
	return d ? insert_rows(w, "INSERT INTO package_retention VALUES(?,?,?,?)", d->npairs, bind_pair, NULL) : 0;
}

/* The mark phase's work (analysis/gccost.h), counted from this GC run:
 * its totals as snapshot keys, its rows by class and by package, and the
 * packages that would save work as a cluster. */
/* One class row: its key, its name, its path and counts. */
static int bind_cost_class(writer *w, sqlite3_stmt *st, uint32_t k, void *rows)
{
	const gccost_row *r = (const gccost_row *)rows + k;
	char name[HEAP_NAME_MAX];
	char *path = heap_path(w->h, r->key);
	heap_name(w->h, r->key, name, sizeof name);
	sqlite3_bind_int64(st, 1, r->key);
	bind_text(st, 2, name);
	sqlite3_bind_text(st, 3, path, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 4, r->traced);
	sqlite3_bind_int64(st, 5, r->clusters);
	sqlite3_bind_int64(st, 6, (sqlite3_int64)r->visits);
	free(path);
	return 0;
}

/* W's gccost, counted on first use.  NULL with W's error when out of memory. */
static const gccost *cost_of(writer *w)
{
	if (w->cost)
		return w->cost;
	gccost *c = malloc(sizeof *c);
	if (!c || gccost_measure(w->h, w->r, c)) {
		free(c);
		snprintf(w->err, w->errsize, "out of memory counting the GC's work");
		return NULL;
	}
	w->cost_owned = 1;
	return w->cost = c;
}

static int store_gc_cost(writer *w)
{
	const gccost *c = cost_of(w);
	sqlite3_stmt *st = c ? prepare(w, "INSERT INTO gc_cost VALUES(?,?,?,?,?,?,?)") : NULL;
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, (sqlite3_int64)c->visits);
	sqlite3_bind_int64(st, 2, (sqlite3_int64)c->trace_visits);
	sqlite3_bind_int64(st, 3, (sqlite3_int64)c->list_visits);
	sqlite3_bind_int64(st, 4, (sqlite3_int64)c->gc_record_visits);
	sqlite3_bind_int64(st, 5, c->traced);
	sqlite3_bind_int64(st, 6, c->walked);
	sqlite3_bind_int64(st, 7, (sqlite3_int64)c->disregard_skipped);
	int rc = row(w, st);
	sqlite3_finalize(st);
	return rc;
}

static int store_gc_cost_by_class(writer *w)
{
	const gccost *c = cost_of(w);
	return c ? insert_rows(w, "INSERT INTO gc_cost_by_class VALUES(?,?,?,?,?,?)", c->nclasses, bind_cost_class,
			       c->classes) : -1;
}

static int store_gc_cost_by_package(writer *w)
{
	const gccost *c = cost_of(w);
	return c ? store_keyed(w, KT_COST_BY_PACKAGE, "INSERT INTO gc_cost_by_package VALUES(?,?,?,?,?)", c) : -1;
}

static int store_gc_cost_candidates(writer *w)
{
	const gccost *c = cost_of(w);
	return c ? store_keyed(w, KT_CANDIDATES, "INSERT INTO gc_cost_candidates VALUES(?,?,?,?,?,?)", c) : -1;
}

/* The two big tables are copied by SQLite itself from the heap (heap_vtab.c). */
static int store_objects(writer *w)
{
	return exec(w, "INSERT INTO object_table SELECT * FROM ugc_heap_objects");
}

/* SQLite calls this every few thousand steps of a statement: the progress
 * line stays alive through one long statement (an index build). */
static int store_tick(void *unused)
{
	(void)unused;
	progress_at(0, 1);
	return 0;
}

/* Every string but id 0 (""): row K is string K + 1. */
static int bind_string(writer *w, sqlite3_stmt *st, uint32_t k, void *unused)
{
	(void)unused;
	sqlite3_bind_int64(st, 1, k + 1);
	sqlite3_bind_text(st, 2, heap_str(w->h, k + 1), (int)strtab_len(&w->h->strings, k + 1), SQLITE_STATIC);
	return 0;
}

static int store_strings(writer *w)
{
	uint32_t n = w->h->strings.count;
	return insert_rows(w, "INSERT INTO strings VALUES(?,?)", n ? n - 1 : 0, bind_string, NULL);
}

/* the bulk of the data: copied by SQLite itself from the heap's rows */
static int store_refs(writer *w)
{
	return exec(w, "INSERT INTO ref_table SELECT src, pos, dst, kind, prop FROM ugc_heap_refs");
}

static int bind_dangling(writer *w, sqlite3_stmt *st, uint32_t k, void *unused)
{
	(void)unused;
	const dangling_ref *d = &w->h->dangling[k];
	sqlite3_bind_int64(st, 1, d->src);
	sqlite3_bind_int64(st, 2, d->dst);
	sqlite3_bind_text(st, 3, ref_kind_names[d->kind], -1, SQLITE_STATIC);
	bind_prop(w->h, st, 4, d->prop);
	return 0;
}

static int store_dangling(writer *w)
{
	return insert_rows(w, "INSERT INTO dangling_refs VALUES(?,?,?,?)", w->h->ndangling, bind_dangling, NULL);
}

static int bind_gc_object_ref(writer *w, sqlite3_stmt *st, uint32_t k, void *unused)
{
	(void)unused;
	const heap *h = w->h;
	bind_prop(h, st, 1, h->gcrefs[k].referencer);
	sqlite3_bind_int64(st, 2, h->gcrefs[k].dst);
	bind_prop(h, st, 3, h->gcrefs[k].prop);
	return 0;
}

static int store_gc_object_refs(writer *w)
{
	return insert_rows(w, "INSERT INTO gc_object_refs VALUES(?,?,?)", w->h->ngcrefs, bind_gc_object_ref, NULL);
}

/* One of each cluster's lists (LIST 0: members, 1: mutable, 2: referenced
 * clusters) as (root, idx) rows, in heap_row.h's order. */
static int store_lists(writer *w, int list)
{
	static const char *const sql[3] = {"INSERT INTO cluster_members VALUES(?,?)",
					   "INSERT INTO cluster_mutable VALUES(?,?)",
					   "INSERT INTO cluster_refs VALUES(?,?)"};
	const heap *h = w->h;
	sqlite3_stmt *st = prepare(w, sql[list]);
	int rc = st ? 0 : -1;
	for (uint32_t c = 0; c < h->nclusters && rc == 0; c++) {
		const cluster *x = &h->clusters[c];
		uint32_t start, n;
		cluster_list(x, list, &start, &n);
		for (uint32_t k = 0; k < n && rc == 0; k++) {
			sqlite3_bind_int64(st, 1, x->root);
			sqlite3_bind_int64(st, 2, h->cluster_items[start + k]);
			rc = row(w, st);
		}
	}
	sqlite3_finalize(st);
	return rc;
}

static int store_cluster_members(writer *w) { return store_lists(w, 0); }
static int store_cluster_mutable(writer *w) { return store_lists(w, 1); }
static int store_cluster_refs(writer *w) { return store_lists(w, 2); }

/* What dissolved each cluster (cluster_causes.h): the first cause in
 * clusters.dissolved_by (CL's column 8) when CL, all of them as rows of
 * cluster_dissolved_by when BY. */
static int store_causes(writer *w, sqlite3_stmt *cl, sqlite3_stmt *by, uint32_t c)
{
	obj_t *causes;
	size_t n;
	if (cluster_causes(w->h, w->r, c, &causes, &n)) {
		snprintf(w->err, w->errsize, "out of memory");
		return -1;
	}
	if (cl)
		bind_obj(cl, 8, n ? causes[0] : OBJ_NONE);
	int rc = 0;
	for (size_t k = 0; by && k < n && rc == 0; k++) {
		sqlite3_bind_int64(by, 1, w->h->clusters[c].root);
		sqlite3_bind_int64(by, 2, causes[k]);
		rc = row(w, by);
	}
	free(causes);
	return rc;
}

static int store_cluster_dissolved_by(writer *w)
{
	sqlite3_stmt *by = prepare(w, "INSERT INTO cluster_dissolved_by VALUES(?,?)");
	int rc = by ? 0 : -1;
	for (uint32_t c = 0; c < w->h->nclusters && rc == 0; c++)
		rc = store_causes(w, NULL, by, c);
	sqlite3_finalize(by);
	return rc;
}

static int bind_cluster(writer *w, sqlite3_stmt *cl, uint32_t c, void *unused)
{
	(void)unused;
	const cluster *x = &w->h->clusters[c];
	uint8_t fate = w->r->cluster_fate[c];
	if (store_causes(w, cl, NULL, c))
		return -1;
	sqlite3_bind_int64(cl, 1, x->root);
	sqlite3_bind_int64(cl, 2, x->n_members);
	sqlite3_bind_int64(cl, 3, x->n_mutables);
	sqlite3_bind_int64(cl, 4, x->n_refs);
	sqlite3_bind_text(cl, 5, fate == CF_ALIVE ? "alive" : "dissolved", -1, SQLITE_STATIC);
	bind_text(cl, 6, fate == CF_ALIVE ? NULL : cluster_fate_names[fate]);
	sqlite3_bind_int64(cl, 7, c); /* the snapshot's order: the pre-pass takes clusters in it */
	return 0;
}

static int store_clusters(writer *w)
{
	return insert_rows(w, "INSERT INTO clusters VALUES(?,?,?,?,?,?,?,?)", w->h->nclusters, bind_cluster, NULL);
}

static int bind_eliminated(writer *w, sqlite3_stmt *st, uint32_t k, void *unused)
{
	(void)unused;
	const heap *h = w->h;
	const gc_eliminated *e = &w->r->eliminated[k];
	bind_obj(st, 1, e->src);
	bind_prop(h, st, 2, e->src == OBJ_NONE ? h->gcrefs[e->ref].referencer : 0);
	sqlite3_bind_int64(st, 3, e->dst);
	bind_prop(h, st, 4, e->src == OBJ_NONE ? h->gcrefs[e->ref].prop : h->ref_prop[e->ref]);
	/* a handed-over reference (ugc-gc(7) §1.2) is the Level's aro one */
	const char *kind = e->src == OBJ_NONE ? "gcobject" : e->handoff ? "aro" : ref_kind_names[h->ref_kind[e->ref]];
	sqlite3_bind_text(st, 5, kind, -1, SQLITE_STATIC);
	return 0;
}

static int store_eliminated(writer *w)
{
	return insert_rows(w, "INSERT INTO eliminated_refs VALUES(?,?,?,?,?)", w->r->neliminated, bind_eliminated, NULL);
}

/* SRC: the object whose row holds the cleared reference, found by walking
 * on from the last one (the cleared positions ascend). */
static int bind_cleared(writer *w, sqlite3_stmt *st, uint32_t k, void *src)
{
	const heap *h = w->h;
	uint32_t *s = src, pos = w->r->cleared[k];
	while (h->ref_start[*s + 1] <= pos)
		++*s;
	sqlite3_bind_int64(st, 1, *s);
	sqlite3_bind_int64(st, 2, h->ref_dst[pos]);
	bind_prop(h, st, 3, h->ref_prop[pos]);
	return 0;
}

static int store_cleared(writer *w)
{
	uint32_t src = 0;
	return insert_rows(w, "INSERT INTO cleared_weak_refs VALUES(?,?,?)", w->r->ncleared, bind_cleared, &src);
}

static int store_purge(writer *w)
{
	return store_keyed(w, KT_PURGE, "INSERT INTO purge VALUES(?,?,?,?)", NULL);
}

static int bind_finding(writer *w, sqlite3_stmt *st, uint32_t k, void *unused)
{
	(void)unused;
	const finding *f = &w->f->v[k];
	char detail[DETAIL_MAX];
	finding_detail(w->h, f, detail, sizeof detail);
	sqlite3_bind_text(st, 1, finding_kind_names[f->kind], -1, SQLITE_STATIC);
	bind_obj(st, 2, f->idx);
	bind_obj(st, 3, f->other);
	bind_text(st, 4, detail); /* a copy: DETAIL ends here */
	bind_prop(w->h, st, 5, finding_referencer(w->h, f));
	return 0;
}

static int store_findings(writer *w)
{
	return insert_rows(w, "INSERT INTO findings VALUES(?,?,?,?,?)", w->f->n, bind_finding, NULL);
}

/* Every table of SCHEMA_TABLES and what fills it, in the order written. */
static const struct {
	const char *table;
	int (*fill)(writer *w);
} tables[] = {
	{"snapshot", store_snapshot}, {"object_table", store_objects}, {"strings", store_strings},
	{"ref_table", store_refs}, {"dangling_refs", store_dangling}, {"gc_object_refs", store_gc_object_refs},
	{"clusters", store_clusters}, {"cluster_members", store_cluster_members},
	{"cluster_mutable", store_cluster_mutable}, {"cluster_refs", store_cluster_refs},
	{"cluster_dissolved_by", store_cluster_dissolved_by},
	{"eliminated_refs", store_eliminated}, {"cleared_weak_refs", store_cleared}, {"purge", store_purge},
	{"findings", store_findings}, {"retained_by_class", store_retained_by_class},
	{"retained_by_package", store_retained_by_package}, {"package_retention", store_package_retention},
	{"gc_cost", store_gc_cost}, {"gc_cost_by_class", store_gc_cost_by_class},
	{"gc_cost_by_package", store_gc_cost_by_package}, {"gc_cost_candidates", store_gc_cost_candidates},
};

static int skipped(const char *table, const char *const *skip)
{
	for (; skip && *skip; skip++)
		if (strcmp(*skip, table) == 0)
			return 1;
	return 0;
}

/* Fill the tables but those in SKIP, each traced (UGC_TRACE). */
static int fill(writer *w, const char *const *skip)
{
	int rc = 0;
	for (size_t k = 0; k < sizeof tables / sizeof tables[0] && rc == 0; k++) {
		if (skipped(tables[k].table, skip))
			continue;
		double t = now_seconds();
		rc = tables[k].fill(w);
		trace_printf("store: %-10s %.3f s", tables[k].table, now_seconds() - t);
	}
	if (w->cost && w->cost_owned) {
		gccost_free(w->cost);
		free(w->cost);
	}
	w->cost = NULL;
	return rc;
}

int store_fill(sqlite3 *db, const heap *h, const gc_result *r, const findings *f, const store_info *info,
	       const char *const *skip, char *err, size_t errsize)
{
	writer w = {db, h, r, f, info, err, errsize, NULL, 0};
	return fill(&w, skip);
}

int store_write(const char *path, int force, const heap *h, const gc_result *r, const findings *f,
		const store_info *info, char *err, size_t errsize)
{
	outfile o;
	if (store_prepare(&o, path, force, h, r, f, info, err, errsize))
		return -1;
	return outfile_commit(&o, err, errsize);
}

/* The tables the page writer fills (store_pages.h). */
static const char *const paged_tables[] = {"object_table", "ref_table", "strings", "cluster_members",
					    "cluster_mutable", "purge", "retained_by_package", "gc_cost_by_package",
					    "gc_cost_candidates", NULL};

/* SQLite's "disk I/O error" names no file: name it, and the cause when
 * known; then close the database. */
static void close_failed(writer *w, const char *path)
{
	if (!w->db)
		return;
	int e = sqlite3_system_errno(w->db);
	if (e == EFBIG || e == ENOSPC)
		fileio_write_error(path, e, w->err, w->errsize);
	else if ((sqlite3_extended_errcode(w->db) & 0xff) == SQLITE_IOERR || sqlite3_errcode(w->db) == SQLITE_FULL)
		snprintf(w->err, w->errsize, "%s: writing the database failed: %s (a file-size limit or a full disk?)",
			 path, sqlite3_errmsg(w->db));
	sqlite3_close(w->db);
	w->db = NULL;
}

static int close_db(writer *w)
{
	int rc = sqlite3_close(w->db) == SQLITE_OK ? 0 : db_fail(w, "close");
	w->db = NULL;
	return rc;
}

/* The statements of SCHEMA_INDEXES on a paged table (PAGED 1), or the
 * others and the views (PAGED 0). */
static int exec_indexes(writer *w, int paged)
{
	const char *text = SCHEMA_INDEXES;
	schema_stmt st;
	int more, rc = 0;
	while (rc == 0 && (more = schema_next(&text, &st)) > 0) {
		if ((st.kind == SK_INDEX && skipped(st.on, paged_tables)) != paged)
			continue;
		char *sql = malloc(st.len + 1);
		if (!sql) {
			snprintf(w->err, w->errsize, "out of memory");
			return -1;
		}
		memcpy(sql, st.text, st.len);
		sql[st.len] = '\0';
		rc = exec(w, sql);
		free(sql);
	}
	if (rc == 0 && more < 0) { /* schema.h's own text is complete: out of memory */
		snprintf(w->err, w->errsize, more == -2 ? "out of memory" : "the schema text is incomplete");
		rc = -1;
	}
	return rc;
}

/* The page writer's threads. */
static int page_threads(const store_info *info)
{
	int n = info->threads > 0 ? info->threads : info->opt->threads;
	return n > 0 ? n : 1;
}

static int pragmas(writer *w, unsigned page_size)
{
	char sql[256];
	snprintf(sql, sizeof sql, "PRAGMA page_size=%u; PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;"
		 "PRAGMA locking_mode=EXCLUSIVE; PRAGMA cache_size=-16000; PRAGMA threads=2;",
		 page_size ? page_size : 65536);
	return exec(w, sql);
}

/* The SQL path: every table and index through SQLite, into O's file (the
 * big tables copied from the heap's virtual tables). */
static int store_sql(outfile *o, const char *path, const heap *h, const gc_result *r, const findings *f,
		     const store_info *info, char *err, size_t errsize)
{
	writer w = {NULL, h, r, f, info, err, errsize, NULL, 0};
	uint64_t *hashes = NULL;
	vtab_source source = {h, r, NULL, info->dom, NULL, NULL};
	int rc = -1;
	if (path_hash_heap(h, &hashes)) {
		snprintf(err, errsize, "out of memory");
		return -1;
	}
	if (sqlite3_open_v2(o->tmp, &w.db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
		db_fail(&w, o->tmp);
		goto out;
	}
	source.path_hash = hashes;
	sqlite3_progress_handler(w.db, 1 << 16, store_tick, NULL);
	double t = now_seconds(), upto = 0;
	/* each step's share of the progress line: its share of the time on a
	 * generated 300K-object heap (the indexes take most) */
#define PHASE(name, share, call) \
	(progress_span(upto, upto + (share)), upto += (share), (call) || \
	 (trace_printf("store: %-10s %.3f s", name, now_seconds() - t), (t = now_seconds()), 0))
	if (heap_vtab_register(w.db, &source) != SQLITE_OK) {
		db_fail(&w, "registering the heap tables");
		goto out;
	}
	if (PHASE("pragmas", 0, pragmas(&w, info->page_size)) ||
	    PHASE("schema", 0, exec(&w, "BEGIN") || exec(&w, SCHEMA_TABLES)) || PHASE("tables", 0.28, fill(&w, NULL)) ||
	    PHASE("indexes", 0.72, exec(&w, "PRAGMA cache_size=-4000") || exec(&w, SCHEMA_INDEXES)) ||
	    PHASE("commit", 0, exec(&w, "COMMIT")))
		goto out;
#undef PHASE
	rc = close_db(&w);
out:
	close_failed(&w, path);
	free(hashes);
	return rc;
}

/* UGC_STORE overrides STORE_AUTO; -1 for a value it does not know. */
static int store_method(const store_info *info, char *err, size_t errsize)
{
	const char *e = getenv("UGC_STORE");
	if (info->method != STORE_AUTO || !e || !*e)
		return info->method;
	if (strcmp(e, "auto") == 0)
		return STORE_AUTO;
	if (strcmp(e, "sql") == 0)
		return STORE_SQL;
	if (strcmp(e, "pages") == 0)
		return STORE_PAGES;
	snprintf(err, errsize, "UGC_STORE is auto, sql or pages, not '%s'", e);
	return -1;
}

/* ---- the store in two halves (store.h) ---- */

struct store_early {
	int method;            /* store_method's */
	int force;             /* replace an existing output */
	int reserved;          /* O's file is made */
	outfile o;
	store_pages_plan plan;
	row_source rows;       /* the heap only: what the ST_HEAP_ONLY pages read */
	store_pages *pages;    /* theirs, under way: taken by J (when THREADED) and
			        * then by store_end's thread */
	int threaded;          /* J started */
	job j;
	int rc;                /* those pages: BT_OK, BT_UNSUPPORTED or BT_ERROR (ERR) */
	char err[SNAP_ERR_MAX];
	char *path;            /* the output, as errors name it */
};

/* The empty database: every table, the paged tables' indexes, the plan of
 * their b-trees.  BT_OK, BT_UNSUPPORTED or BT_ERROR, with ERR. */
static int create_schema(store_early *e, unsigned page_size, char *err, size_t errsize)
{
	writer w = {NULL, NULL, NULL, NULL, NULL, err, errsize, NULL, 0};
	int rc = BT_ERROR;
	if (sqlite3_open_v2(e->o.tmp, &w.db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
		db_fail(&w, e->o.tmp);
	} else if (!pragmas(&w, page_size) && !exec(&w, "BEGIN") && !exec(&w, SCHEMA_TABLES) && !exec_indexes(&w, 1)) {
		rc = store_pages_plan_of(w.db, &e->plan, err, errsize);
		if (rc == BT_OK && (exec(&w, "COMMIT") || close_db(&w)))
			rc = BT_ERROR;
	}
	close_failed(&w, e->path);
	return rc;
}

/* The heap-only b-trees (the references' two and the strings), taken one
 * at a time (store_pages_work): by a thread beside the analysis, and by
 * store_end's once the analysis is done and one is still left. */
static void *heap_only_pages(void *arg)
{
	store_early *e = arg;
	store_pages_work(e->pages);
	return NULL;
}

int store_begin(store_early **out, const char *path, int force, const heap *h, const store_info *info, char *err,
		size_t errsize)
{
	int method = store_method(info, err, errsize);
	store_early *e = method < 0 ? NULL : calloc(1, sizeof *e);
	*out = e;
	if (method < 0)
		return -1;
	if (!e || !(e->path = strdup(path))) {
		free(e);
		*out = NULL;
		snprintf(err, errsize, "out of memory");
		return -1;
	}
	e->method = method;
	e->force = force;
	if (method == STORE_SQL)
		return 0;
	if (outfile_reserve(&e->o, path, force, err, errsize)) {
		store_cancel(e);
		*out = NULL;
		return -1;
	}
	e->reserved = 1;
	e->rc = create_schema(e, info->page_size, e->err, sizeof e->err);
	if (e->rc == BT_ERROR) {
		snprintf(err, errsize, "%s", e->err);
		store_cancel(e);
		*out = NULL;
		return -1;
	}
	if (e->rc == BT_OK) {
		e->rows = (row_source){h, NULL, NULL, NULL, NULL};
		e->rc = store_pages_start(&e->pages, e->o.tmp, &e->plan, ST_HEAP_ONLY, &e->rows, e->err, sizeof e->err);
		if (e->rc == BT_ERROR) {
			snprintf(err, errsize, "%s", e->err);
			store_cancel(e);
			*out = NULL;
			return -1;
		}
		if (e->rc == BT_UNSUPPORTED) { /* a header the page writer does not know: store_end goes by SQL */
			size_t n = strlen(e->o.tmp);
			if (strncmp(e->err, e->o.tmp, n) == 0) { /* named as the output, not its temporary file */
				char why[sizeof e->err];
				snprintf(why, sizeof why, "%s", e->err + n);
				snprintf(e->err, sizeof e->err, "%s%s", e->path, why);
			}
			return 0;
		}
		e->threaded = page_threads(info) > 1; /* else they wait for store_end */
		if (e->threaded)
			job_start(&e->j, heap_only_pages, e);
	}
	return 0;
}

/* Every paged b-tree done: the other tables through SQLite.  BT_OK or
 * BT_ERROR (ERR). */
static int store_tables(store_early *e, const heap *h, const gc_result *r, const findings *f,
			const store_info *info, gccost *cost, char *err, size_t errsize)
{
	writer w = {NULL, h, r, f, info, err, errsize, cost, 0}; /* COST stays the caller's */
	int rc = BT_ERROR;
	double t = now_seconds();
	progress_span(0.86, 1);
	if (sqlite3_open_v2(e->o.tmp, &w.db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
		db_fail(&w, e->o.tmp);
		goto out;
	}
	sqlite3_progress_handler(w.db, 1 << 16, store_tick, NULL);
	if (pragmas(&w, info->page_size) || exec(&w, "BEGIN") || fill(&w, paged_tables) ||
	    exec(&w, "PRAGMA cache_size=-4000") || exec_indexes(&w, 0) || exec(&w, "COMMIT") || close_db(&w))
		goto out;
	rc = BT_OK;
out:
	close_failed(&w, e->path);
	trace_printf("store: tables     %.3f s", now_seconds() - t);
	return rc;
}

/* What the rest of the store computes before it writes (the objects' path
 * hashes, the mark's work), done while the heap-only pages may still be
 * under way.  0, or -1 (out of memory). */
static int store_precompute(const heap *h, const gc_result *r, uint64_t **hashes, gccost **cost)
{
	double t = now_seconds();
	*cost = malloc(sizeof **cost);
	if (!*cost || gccost_measure(h, r, *cost)) {
		free(*cost);
		*cost = NULL;
		return -1;
	}
	if (path_hash_heap(h, hashes)) {
		gccost_free(*cost);
		free(*cost);
		*cost = NULL;
		return -1;
	}
	trace_printf("store: path hashes and the mark's work %.3f s", now_seconds() - t);
	return 0;
}

int store_end(store_early *e, outfile *out, const heap *h, const gc_result *r, const findings *f,
	      const store_info *info, char *err, size_t errsize)
{
	int rc = BT_UNSUPPORTED;
	if (e->pages) {
		uint64_t *hashes = NULL;
		gccost *cost = NULL;
		int ready = store_precompute(h, r, &hashes, &cost) == 0;
		double t = now_seconds();
		progress_span(0, 0.86);
		if (ready) {
			/* the other trees join the heap-only ones still under way:
			 * the thread beside takes them once its own are done */
			e->rows.r = r; /* not .h: the trees under way read it */
			e->rows.path_hash = hashes;
			e->rows.dom = info->dom;
			e->rows.cost = cost;
			store_pages_add(e->pages, ST_ALL & ~ST_HEAP_ONLY);
			store_pages_share(e->pages, page_threads(info));
		} else {
			store_pages_stop(e->pages);
		}
		if (e->threaded) /* the sorted indexes, if they waited, are its (store_pages.h) */
			job_wait(&e->j);
		e->threaded = 0;
		e->rc = store_pages_finish(e->pages, e->path, e->err, sizeof e->err);
		e->pages = NULL;
		trace_printf("store: pages done %.3f s after the analysis", now_seconds() - t);
		rc = ready ? e->rc : BT_ERROR;
		if (!ready)
			snprintf(err, errsize, "out of memory");
		else if (rc != BT_OK)
			snprintf(err, errsize, "%s", e->err);
		else
			rc = store_tables(e, h, r, f, info, cost, err, errsize);
		if (cost)
			gccost_free(cost);
		free(cost);
		free(hashes);
	} else if (e->method != STORE_SQL) {
		rc = e->rc; /* the schema the page writer does not know */
		snprintf(err, errsize, "%s", e->err);
	}
	if (rc == BT_OK) {
		*out = e->o;
		e->reserved = 0;
	} else if (e->reserved) {
		outfile_abort(&e->o);
		e->reserved = 0;
	}
	if (rc == BT_UNSUPPORTED && e->method != STORE_PAGES) {
		if (e->method != STORE_SQL)
			trace_printf("store: SQL instead of pages: %s", err);
		rc = outfile_reserve(out, e->path, e->force, err, errsize) ? -1 : 0;
		if (rc == 0 && (rc = store_sql(out, e->path, h, r, f, info, err, errsize)))
			outfile_abort(out);
	}
	store_cancel(e);
	return rc == BT_OK ? 0 : -1;
}

void store_cancel(store_early *e)
{
	if (!e)
		return;
	if (e->pages) {
		store_pages_stop(e->pages);
		if (e->threaded)
			job_wait(&e->j);
		store_pages_finish(e->pages, e->path, e->err, sizeof e->err);
	}
	if (e->reserved)
		outfile_abort(&e->o);
	free(e->path);
	free(e);
}

int store_prepare(outfile *out, const char *path, int force, const heap *h, const gc_result *r, const findings *f,
		  const store_info *info, char *err, size_t errsize)
{
	store_early *e;
	if (store_begin(&e, path, force, h, info, err, errsize))
		return -1;
	return store_end(e, out, h, r, f, info, err, errsize);
}
