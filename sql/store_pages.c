/* store_pages.c — the big tables and their indexes as SQLite pages (see
 * store_pages.h).  What each b-tree holds (fileformat2 2.3-2.5):
 *   object_table       table b-tree: rowid idx, the record of the 19
 *                      columns with idx (the rowid alias) stored as NULL
 *   objects_<column>   index b-tree: (column, rowid), for path_hash, class,
 *                      outer, idom, retained and node_id
 *   ref_table          WITHOUT ROWID: index b-tree of (src, pos, dst, kind,
 *                      prop), the primary key first
 *   ref_table_dst      index b-tree: (dst, src, pos), the primary key after
 *   strings            table b-tree: rowid the string's id (1, 2, ...; id 0,
 *                      "", has no row), the record (NULL, text)
 *   cluster_members,   table b-trees: rowid 1, 2, ... in the order the SQL
 *   cluster_mutable    path inserts the rows, the record (root, idx)
 *   cluster_members_idx, _root, cluster_mutable_root
 *                      index b-trees: (column, rowid)
 *   purge, retained_by_package, gc_cost_by_package, gc_cost_candidates
 *                      table b-trees: rowid the key (an object), the record
 *                      with the key (the rowid alias) stored as NULL
 * The row values come from heap_row.c, as on the SQL path. */
#include "sql/store_pages.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sql/key_sort.h"
#include "base/base.h"

/* What the writer knows, as describe() renders the schema: a table as
 * "name TYPE[ pkN]" a column, an index b-tree as "column[+]" a column ('+':
 * part of the key; "rowid" for the rowid). */
static const struct tree_spec {
	const char *name, *table;
	int column; /* an index over a rowid table: the table's column indexed */
	int list;   /* a cluster list's table or index: heap_row.h's LIST; else -1 */
	const char *layout;
	int keyed;  /* a keyed table: heap_row.h's KT_*; else -1 */
} specs[ST_COUNT] = {
	[ST_OBJECTS] = {"object_table", "object_table", -1, -1,
			"idx INTEGER pk1, serial INTEGER, class INTEGER, outer INTEGER, name TEXT, class_name TEXT, "
			"size INTEGER, flags TEXT, cluster INTEGER, garbage INTEGER, reachable INTEGER, root_kind TEXT, "
			"distance INTEGER, parent INTEGER, parent_property TEXT, path_hash INTEGER, idom INTEGER, "
			"retained INTEGER, node_id INTEGER", -1},
	[ST_REFS] = {"ref_table", "ref_table", -1, -1, "src+, pos+, dst, kind, prop", -1},
	[ST_REFS_DST] = {"ref_table_dst", "ref_table", -1, -1, "dst+, src, pos", -1},
	[ST_STRINGS] = {"strings", "strings", -1, -1, "id INTEGER pk1, text TEXT", -1},
	[ST_PATH_HASH] = {"objects_path_hash", "object_table", 15, -1, "path_hash+, rowid", -1},
	[ST_CLASS] = {"objects_class", "object_table", 2, -1, "class+, rowid", -1},
	[ST_OUTER] = {"objects_outer", "object_table", 3, -1, "outer+, rowid", -1},
	[ST_IDOM] = {"objects_idom", "object_table", 16, -1, "idom+, rowid", -1},
	[ST_RETAINED] = {"objects_retained", "object_table", 17, -1, "retained+, rowid", -1},
	[ST_NODE_ID] = {"objects_node_id", "object_table", 18, -1, "node_id+, rowid", -1},
	[ST_MEMBERS] = {"cluster_members", "cluster_members", -1, 0, "root INTEGER, idx INTEGER", -1},
	[ST_MUTABLE] = {"cluster_mutable", "cluster_mutable", -1, 1, "root INTEGER, idx INTEGER", -1},
	[ST_MEMBERS_IDX] = {"cluster_members_idx", "cluster_members", 1, 0, "idx+, rowid", -1},
	[ST_MEMBERS_ROOT] = {"cluster_members_root", "cluster_members", 0, 0, "root+, rowid", -1},
	[ST_MUTABLE_ROOT] = {"cluster_mutable_root", "cluster_mutable", 0, 1, "root+, rowid", -1},
	[ST_PURGE] = {"purge", "purge", -1, -1,
		      "idx INTEGER pk1, size INTEGER, pending_finish_destroy INTEGER, game_thread INTEGER", KT_PURGE},
	[ST_BY_PACKAGE] = {"retained_by_package", "retained_by_package", -1, -1,
			   "package INTEGER pk1, name TEXT, objects INTEGER, shallow INTEGER, retained INTEGER",
			   KT_RETAINED_BY_PACKAGE},
	[ST_COST_BY_PACKAGE] = {"gc_cost_by_package", "gc_cost_by_package", -1, -1,
				"package INTEGER pk1, name TEXT, traced INTEGER, clusters INTEGER, visits INTEGER",
				KT_COST_BY_PACKAGE},
	[ST_CANDIDATES] = {"gc_cost_candidates", "gc_cost_candidates", -1, -1,
			   "package INTEGER pk1, name TEXT, objects INTEGER, visits INTEGER, as_cluster INTEGER, "
			   "saved INTEGER", KT_CANDIDATES},
};
/* The tables written; all but ref_table are rowid tables. */
static const char *const tables[] = {"object_table", "ref_table", "cluster_members", "cluster_mutable", "purge",
				     "retained_by_package", "gc_cost_by_package", "gc_cost_candidates", "strings"};
#define NTABLES (sizeof tables / sizeof tables[0])

#define ST_KEYED ((1u << ST_PURGE) | (1u << ST_BY_PACKAGE) | (1u << ST_COST_BY_PACKAGE) | (1u << ST_CANDIDATES))

static int keyed_tree(int k)
{
	return ST_KEYED >> k & 1;
}

static int rowid_table(int k)
{
	return k == ST_OBJECTS || k == ST_STRINGS || k == ST_MEMBERS || k == ST_MUTABLE || keyed_tree(k);
}
/* ref_table's columns (its b-tree is checked through its primary key) */
static const char refs_columns[] = "src INTEGER pk1, pos INTEGER pk2, dst INTEGER, kind INTEGER, prop INTEGER";

/* ---- the schema check ---- */

/* Append to OUT (cap bytes) the rows of SQL bound to NAME, each rendered
 * by ROW; 0, or -1 on an SQLite error. */
typedef void (*render_fn)(sqlite3_stmt *st, char *out, size_t cap);

static int describe(sqlite3 *db, const char *sql, const char *name, render_fn row, char *out, size_t cap)
{
	sqlite3_stmt *st;
	out[0] = '\0';
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		size_t n = strlen(out);
		if (n)
			snprintf(out + n, cap - n, ", ");
		n = strlen(out);
		row(st, out + n, cap - n);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

static const char *text(sqlite3_stmt *st, int col)
{
	const unsigned char *s = sqlite3_column_text(st, col);
	return s ? (const char *)s : "";
}

/* pragma_table_xinfo: name, type, pk, hidden */
static void table_column(sqlite3_stmt *st, char *out, size_t cap)
{
	int n = snprintf(out, cap, "%s %s", text(st, 0), text(st, 1));
	if (n >= 0 && (size_t)n < cap && sqlite3_column_int(st, 2))
		n += snprintf(out + n, cap - (size_t)n, " pk%d", sqlite3_column_int(st, 2));
	if (n >= 0 && (size_t)n < cap && sqlite3_column_int(st, 3))
		snprintf(out + n, cap - (size_t)n, " hidden");
}

/* pragma_index_xinfo: cid, name, desc, coll, key */
static void index_column(sqlite3_stmt *st, char *out, size_t cap)
{
	snprintf(out, cap, "%s%s%s%s%s", sqlite3_column_int(st, 0) == -1 ? "rowid" : text(st, 1),
		 sqlite3_column_int(st, 4) ? "+" : "", sqlite3_column_int(st, 2) ? " desc" : "",
		 strcmp(text(st, 3), "BINARY") ? " collate " : "", strcmp(text(st, 3), "BINARY") ? text(st, 3) : "");
}

static void name_only(sqlite3_stmt *st, char *out, size_t cap)
{
	snprintf(out, cap, "%s", text(st, 0));
}

#define TABLE_SQL "SELECT name, type, pk, hidden FROM pragma_table_xinfo(?1) ORDER BY cid"
#define INDEX_SQL "SELECT cid, name, desc, coll, key FROM pragma_index_xinfo(?1) ORDER BY seqno"

static int unknown(char *why, size_t whysize, const char *what, const char *got)
{
	snprintf(why, whysize, "not written by pages: %s is %s", what, got);
	return BT_UNSUPPORTED;
}

/* Is every index on TABLE (besides a WITHOUT ROWID primary key, named in
 * *PK) one of the specs, and none partial? */
static int known_indexes(sqlite3 *db, const char *table, char *pk, size_t pkcap, char *why, size_t whysize)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, "SELECT name, origin, partial FROM pragma_index_list(?1)", -1, &st, NULL) != SQLITE_OK)
		return BT_ERROR;
	sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
	int rc = BT_OK, step;
	pk[0] = '\0';
	while (rc == BT_OK && (step = sqlite3_step(st)) == SQLITE_ROW) {
		const char *name = text(st, 0);
		int known = 0;
		for (int k = 0; k < ST_COUNT; k++)
			known |= strcmp(specs[k].name, name) == 0 && strcmp(specs[k].table, table) == 0;
		if (strcmp(text(st, 1), "pk") == 0 && !pk[0])
			snprintf(pk, pkcap, "%s", name);
		else if (!known || sqlite3_column_int(st, 2))
			rc = unknown(why, whysize, "an index", name);
	}
	sqlite3_finalize(st);
	return rc;
}

static int root_of(sqlite3 *db, const char *name, const char *table, uint32_t *root)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, "SELECT rootpage FROM sqlite_schema WHERE name = ?1 AND tbl_name = ?2", -1, &st,
			       NULL) != SQLITE_OK)
		return BT_ERROR;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, table, -1, SQLITE_STATIC);
	int rc = BT_UNSUPPORTED;
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int64(st, 0) > 1 &&
	    sqlite3_column_int64(st, 0) <= UINT32_MAX) {
		*root = (uint32_t)sqlite3_column_int64(st, 0);
		rc = BT_OK;
	}
	sqlite3_finalize(st);
	return rc;
}

int store_pages_plan_of(sqlite3 *db, store_pages_plan *plan, char *why, size_t whysize)
{
	char got[2048], pk[NTABLES][256], what[64];
	const char *refs_pk = pk[1]; /* tables[1]: ref_table */
	int rc = BT_OK;
	for (size_t k = 0; k < NTABLES && rc == BT_OK; k++)
		rc = known_indexes(db, tables[k], pk[k], sizeof pk[k], why, whysize);
	for (size_t k = 0; k < NTABLES && rc == BT_OK; k++) {
		snprintf(what, sizeof what, "%s's primary key", tables[k]);
		if (k != 1 && pk[k][0]) /* the rowid would not be the key */
			rc = unknown(why, whysize, what, pk[k]);
	}
	if (rc == BT_OK && !refs_pk[0])
		rc = unknown(why, whysize, "ref_table", "not WITHOUT ROWID");
	if (rc == BT_OK && describe(db, TABLE_SQL, "ref_table", table_column, got, sizeof got))
		rc = BT_ERROR;
	if (rc == BT_OK && strcmp(got, refs_columns))
		rc = unknown(why, whysize, "ref_table", got);
	for (int k = 0; k < ST_COUNT && rc == BT_OK; k++) {
		const char *of = k == ST_REFS ? refs_pk : specs[k].name;
		if (describe(db, rowid_table(k) ? TABLE_SQL : INDEX_SQL, of, rowid_table(k) ? table_column : index_column,
			     got, sizeof got))
			rc = BT_ERROR;
		else if (strcmp(got, specs[k].layout))
			rc = unknown(why, whysize, specs[k].name, got[0] ? got : "missing");
		else if ((rc = root_of(db, specs[k].name, specs[k].table, &plan->root[k])) == BT_UNSUPPORTED)
			unknown(why, whysize, specs[k].name, "without a root page");
	}
	if (rc == BT_OK && describe(db,
				    "SELECT EXISTS (SELECT 1 FROM object_table) OR EXISTS (SELECT 1 FROM ref_table) OR "
				    "EXISTS (SELECT 1 FROM cluster_members) OR EXISTS (SELECT 1 FROM cluster_mutable) OR "
				    "EXISTS (SELECT 1 FROM purge) OR EXISTS (SELECT 1 FROM retained_by_package) OR "
				    "EXISTS (SELECT 1 FROM gc_cost_by_package) OR EXISTS (SELECT 1 FROM gc_cost_candidates) OR "
				    "EXISTS (SELECT 1 FROM strings)",
				    NULL, name_only, got, sizeof got))
		rc = BT_ERROR;
	if (rc == BT_OK && strcmp(got, "0"))
		rc = unknown(why, whysize, "a table written as pages", "not empty");
	if (rc == BT_ERROR)
		snprintf(why, whysize, "reading the schema: %s", sqlite3_errmsg(db));
	return rc;
}

/* ---- filling ---- */

/* The work shared by the threads: the jobs are taken in ORDER, the
 * largest first, but for the sorted indexes: after objects, so that on two
 * threads their sort buffers come once the references by target are done
 * with theirs (taken first, they made the 10M peak 134 MiB higher). */
struct store_pages {
	bt_file f;
	const store_pages_plan *plan;
	unsigned trees; /* the b-trees to fill: bits 1 << ST_* (more may be added) */
	const row_source *src;
	pthread_mutex_t lock; /* guards trees, taken, dst_busy, rc and err */
	unsigned taken; /* the jobs taken: bits 1 << their place in order[] */
	int dst_busy;   /* ST_REFS_DST under way (its range and counts: 135 MB at 10M) */
	int rc; /* the first failure */
	char err[512];
};

#define JOBS 7
static const int order[JOBS] = {ST_REFS_DST, ST_REFS, ST_STRINGS, ST_OBJECTS, ST_SORTED /* and the other sorted indexes */,
				ST_MEMBERS /* and ST_MUTABLE */, ST_PURGE /* and the other keyed tables */};

/* Has another tree failed?  Asked now and then, to stop early (the error
 * reported is the other's); keeps the progress line alive meanwhile (only
 * the thread that draws it is heard: progress.h). */
static int stopped(store_pages *c)
{
	progress_at(0, 1);
	pthread_mutex_lock(&c->lock);
	int rc = c->rc;
	pthread_mutex_unlock(&c->lock);
	return rc != BT_OK;
}

#define POLL 65535 /* entries between two stopped() */

/* Encode the N values of V and add them to the table T as row ROWID. */
static int add_row(store_pages *c, bt_tree *t, const row_value *v, int n, int64_t rowid, uint8_t *rec)
{
	size_t len = bt_record(&c->f, v, n, rec, BT_RECORD_MAX);
	if (len > BT_RECORD_MAX) {
		snprintf(t->err, t->errsize, "writing the database pages: a row needs overflow pages");
		return BT_UNSUPPORTED;
	}
	return bt_tree_add_row(t, rowid, rec, len);
}

static int fill_objects(store_pages *c, bt_tree *t, uint8_t *rec, row_buf *buf)
{
	const heap *h = c->src->h;
	row_value v[OBJECT_NCOLUMNS];
	int rc = BT_OK;
	for (obj_t i = 0; i < (obj_t)h->slots && rc == BT_OK; i++) {
		if (h->cls[i] == OBJ_FREE)
			continue;
		for (int col = 1; col < OBJECT_NCOLUMNS; col++)
			object_value(c->src, i, col, &v[col], buf);
		v[0].type = RV_NULL; /* the rowid alias */
		rc = add_row(c, t, v, OBJECT_NCOLUMNS, i, rec);
		if ((i & POLL) == 0 && rc == BT_OK && stopped(c))
			rc = BT_ERROR;
	}
	return rc;
}

/* Every string but id 0 (""), the id the rowid. */
static int fill_strings(store_pages *c, bt_tree *t, uint8_t *rec)
{
	const strtab *s = &c->src->h->strings;
	row_value v[2] = {{.type = RV_NULL}, {.type = RV_TEXT}}; /* id: the rowid alias */
	int rc = BT_OK;
	for (uint32_t id = 1; id < s->count && rc == BT_OK; id++) {
		v[1].s = strtab_get(s, id);
		v[1].n = strtab_len(s, id);
		rc = add_row(c, t, v, 2, id, rec);
		if ((id & POLL) == 0 && rc == BT_OK && stopped(c))
			rc = BT_ERROR;
	}
	return rc;
}

/* A keyed table (heap_row.h), its rows in key order, the key the rowid. */
static int fill_keyed(store_pages *c, bt_tree *t, int kt, uint8_t *rec, row_buf *buf)
{
	row_value v[KEYED_MAX_COLUMNS];
	uint32_t n = keyed_rows(c->src, kt), *order = keyed_order(c->src, kt);
	int rc = order ? BT_OK : BT_ERROR;
	buf->path = NULL;
	for (uint32_t k = 0; k < n && rc == BT_OK; k++) {
		for (int col = 0; col < keyed_columns(kt); col++)
			keyed_value(c->src, kt, order[k], col, &v[col], buf);
		int64_t rowid = v[0].i; /* the key: an integer */
		v[0].type = RV_NULL; /* the rowid alias */
		rc = add_row(c, t, v, keyed_columns(kt), rowid, rec); /* a key twice: "rows out of order" */
		if ((k & POLL) == 0 && rc == BT_OK && stopped(c))
			rc = BT_ERROR;
	}
	free(buf->path);
	buf->path = NULL;
	free(order);
	return rc;
}

#ifndef NDEBUG
/* Does entry A come before B in SQLite's index order (key_sort.h)?  (For
 * assert.) */
static int before(const key_row *a, const key_row *b)
{
	if (a->null != b->null)
		return a->null > b->null;
	if (!a->null && a->key != b->key)
		return a->key < b->key;
	return a->rowid < b->rowid;
}
#endif

/* The N entries of ROWS (in rowid order) sorted into the index T. */
static int add_sorted(store_pages *c, bt_tree *t, key_row *rows, key_row *tmp, size_t n)
{
	key_sort(rows, tmp, n);
	int rc = BT_OK;
	for (size_t j = 0; j < n && rc == BT_OK; j++) {
		assert(j == 0 || before(&rows[j - 1], &rows[j])); /* in key order, each entry once */
		int64_t v[2] = {rows[j].key, rows[j].rowid};
		rc = bt_tree_add_ints(t, v, rows[j].null, 2);
		if ((j & POLL) == 0 && rc == BT_OK && stopped(c))
			rc = BT_ERROR;
	}
	return rc;
}

/* An index over one object_table column (all integers or NULL). */
static int fill_object_index(store_pages *c, bt_tree *t, int k, key_row *rows, key_row *tmp, row_buf *buf)
{
	const heap *h = c->src->h;
	size_t n = 0;
	for (obj_t i = 0; i < (obj_t)h->slots && n < h->objects; i++) {
		if (h->cls[i] == OBJ_FREE)
			continue;
		row_value v;
		object_value(c->src, i, specs[k].column, &v, buf);
		if (NEVER(v.type == RV_TEXT)) { /* the columns indexed are integers */
			snprintf(t->err, t->errsize, "writing the database pages: %s has a text key", specs[k].name);
			return BT_UNSUPPORTED;
		}
		rows[n++] = (key_row){v.i, (uint32_t)i, v.type == RV_NULL};
	}
	return add_sorted(c, t, rows, tmp, n);
}

/* The rows of one cluster list table (heap_row.h's LIST): a table b-tree
 * (INDEX 0) or, into ROWS, the entries of its index over COLUMN
 * (0: root, 1: idx). */
static int fill_cluster_list(store_pages *c, bt_tree *t, int list, int index, int column, key_row *rows)
{
	const heap *h = c->src->h;
	uint32_t rowid = 0;
	int rc = BT_OK;
	for (uint32_t x = 0; x < h->nclusters && rc == BT_OK; x++) {
		uint32_t start, n;
		cluster_list(&h->clusters[x], list, &start, &n);
		for (uint32_t k = 0; k < n && rc == BT_OK; k++) {
			int64_t v[2] = {h->clusters[x].root, h->cluster_items[start + k]};
			rowid++;
			if (index) {
				rows[rowid - 1] = (key_row){v[column], rowid, 0};
			} else {
				uint8_t rec[2 * 9 + 1];
				rc = bt_tree_add_row(t, rowid, rec, bt_record_ints(&c->f, v, 0, 2, rec));
			}
			if ((rowid & POLL) == 0 && rc == BT_OK && stopped(c))
				rc = BT_ERROR;
		}
	}
	return rc;
}

/* The number of rows of cluster list table LIST. */
static size_t cluster_list_rows(const heap *h, int list)
{
	size_t rows = 0;
	for (uint32_t x = 0; x < h->nclusters; x++) {
		uint32_t start, n;
		cluster_list(&h->clusters[x], list, &start, &n);
		rows += n;
	}
	return rows;
}

/* ref_table's values as heap_row.c's ref_value gives them (prop 0: NULL) */
static int fill_refs(store_pages *c, bt_tree *t)
{
	const heap *h = c->src->h;
	int rc = BT_OK;
	for (obj_t src = 0; src < (obj_t)h->slots && rc == BT_OK; src++) {
		for (uint32_t pos = h->ref_start[src]; pos < h->ref_start[src + 1] && rc == BT_OK; pos++) {
			int64_t v[REF_NCOLUMNS] = {src, pos, h->ref_dst[pos], h->ref_kind[pos], h->ref_prop[pos]};
			rc = bt_tree_add_ints(t, v, h->ref_prop[pos] ? 0 : 1u << 4, REF_NCOLUMNS);
		}
		if ((src & POLL) == 0 && rc == BT_OK && stopped(c))
			rc = BT_ERROR;
	}
	return rc;
}

/* References by target, a range of targets at a time: a counting sort of
 * the targets in the range, by one scan of all references in (source,
 * position) order, so that each target's come in that order.  A range
 * holds at most CHUNK_REFS references or an eighth of them, whichever is
 * more (8 bytes each), and two ranges in a row hold more than that: memory
 * stays small, the scans at most 17, and the time linear. */
#define CHUNK_REFS (1u << 22)
#define CHUNKS 8

/* One reference of a range, placed by its target: its source and position
 * side by side (placing it is one cache miss, not two). */
typedef struct ref_at {
	obj_t src;
	uint32_t pos;
} ref_at;

static int fill_refs_by_dst(store_pages *c, bt_tree *t)
{
	const heap *h = c->src->h;
	uint32_t *start = calloc((size_t)h->slots + 1, sizeof *start); /* then: the next place of each target */
	uint32_t cap = h->nrefs / CHUNKS + 1 > CHUNK_REFS ? h->nrefs / CHUNKS + 1 : CHUNK_REFS;
	if (cap > h->nrefs)
		cap = h->nrefs;
	ref_at *at = malloc((size_t)(cap ? cap : 1) * sizeof *at);
	int rc = start && at ? BT_OK : BT_ERROR;
	for (uint32_t pos = 0; pos < h->nrefs && rc == BT_OK; pos++) {
		if (NEVER((uint32_t)h->ref_dst[pos] >= h->slots)) { /* the heap is validated */
			snprintf(t->err, t->errsize, "writing the database pages: a reference to no object");
			rc = BT_ERROR;
		} else {
			start[h->ref_dst[pos] + 1]++;
		}
	}
	for (uint32_t d = 0; d < h->slots && rc == BT_OK; d++)
		start[d + 1] += start[d];
	for (uint32_t d0 = 0, d1; d0 < h->slots && rc == BT_OK; d0 = d1) {
		uint32_t base = start[d0];
		for (d1 = d0 + 1; d1 < h->slots && start[d1 + 1] - base <= cap; d1++)
			;
		uint32_t m = start[d1] - base;
		if (m > cap) { /* one target with more references than a chunk */
			ref_at *more = realloc(at, (size_t)m * sizeof *more);
			if (!more) {
				rc = BT_ERROR;
				break;
			}
			at = more;
			cap = m;
		}
		for (obj_t src = 0; src < (obj_t)h->slots; src++)
			for (uint32_t pos = h->ref_start[src]; pos < h->ref_start[src + 1]; pos++) {
				uint32_t d = (uint32_t)h->ref_dst[pos];
				if (d - d0 < d1 - d0) { /* d0 <= d < d1 */
					uint32_t k = start[d]++ - base;
					assert(k < m); /* the range's references, counted */
					at[k] = (ref_at){src, pos};
				}
			}
		/* start[d] is now the end of d's references */
		uint32_t k = 0;
		for (uint32_t d = d0; d < d1 && rc == BT_OK; d++) {
			for (; k < start[d] - base && rc == BT_OK; k++) {
				int64_t v[3] = {d, at[k].src, at[k].pos};
				rc = bt_tree_add_ints(t, v, 0, 3);
			}
		}
		if (rc == BT_OK && stopped(c))
			rc = BT_ERROR;
	}
	if (rc == BT_ERROR && !t->err[0])
		snprintf(t->err, t->errsize, "out of memory");
	free(start);
	free(at);
	return rc;
}

/* CPU seconds of the calling thread (for UGC_TRACE: the machine may be
 * shared). */
static double thread_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Build tree K; an index sorts in ROWS and TMP (room for every entry
 * each). */
static int build(store_pages *c, int k, key_row *rows, key_row *tmp, char *err, size_t errsize)
{
	bt_tree t;
	assert(k >= 0 && k < ST_COUNT);
	double t0 = now_seconds(), c0 = thread_seconds();
	err[0] = '\0';
	uint8_t *rec = malloc(BT_RECORD_MAX);
	row_buf *buf = calloc(1, sizeof *buf);
	int rc = rec && buf ? bt_tree_begin(&t, &c->f, !rowid_table(k), c->plan->root[k], err, errsize) : BT_ERROR;
	if (rc == BT_OK) {
		if (k == ST_OBJECTS)
			rc = fill_objects(c, &t, rec, buf);
		else if (k == ST_REFS)
			rc = fill_refs(c, &t);
		else if (k == ST_REFS_DST)
			rc = fill_refs_by_dst(c, &t);
		else if (k == ST_STRINGS)
			rc = fill_strings(c, &t, rec);
		else if (keyed_tree(k))
			rc = fill_keyed(c, &t, specs[k].keyed, rec, buf);
		else if (specs[k].list < 0)
			rc = fill_object_index(c, &t, k, rows, tmp, buf);
		else if (rowid_table(k))
			rc = fill_cluster_list(c, &t, specs[k].list, 0, 0, NULL);
		else if ((rc = fill_cluster_list(c, &t, specs[k].list, 1, specs[k].column, rows)) == BT_OK)
			rc = add_sorted(c, &t, rows, tmp, cluster_list_rows(c->src->h, specs[k].list));
		if (rc == BT_OK)
			rc = bt_tree_finish(&t);
		bt_tree_free(&t);
	}
	if (rc == BT_ERROR && !err[0])
		snprintf(err, errsize, "out of memory");
	trace_printf("store: pages of %-17s %.3f s (%.3f s CPU)", specs[k].name, now_seconds() - t0,
		     thread_seconds() - c0);
	free(rec);
	free(buf);
	return rc;
}

/* Job K: tree K; for ST_MEMBERS also ST_MUTABLE; for ST_SORTED all the
 * indexes sorted in memory, one after the other in the same sort buffers
 * (so that more threads do not mean more of them). */
static int fill_job(store_pages *c, int k, char *err, size_t errsize)
{
	if (k == ST_MEMBERS) {
		int rc = build(c, ST_MEMBERS, NULL, NULL, err, errsize);
		return rc == BT_OK ? build(c, ST_MUTABLE, NULL, NULL, err, errsize) : rc;
	}
	if (k == ST_PURGE) {
		int rc = BT_OK;
		for (int tree = ST_PURGE; tree <= ST_CANDIDATES && rc == BT_OK; tree++)
			rc = build(c, tree, NULL, NULL, err, errsize);
		return rc;
	}
	if (k != ST_SORTED)
		return build(c, k, NULL, NULL, err, errsize);
	const heap *h = c->src->h;
	size_t n = h->objects, members = cluster_list_rows(h, 0), mutables = cluster_list_rows(h, 1);
	n = n > members ? n : members;
	n = n > mutables ? n : mutables;
	n = n ? n : 1;
	key_row *rows = malloc(n * sizeof *rows), *tmp = malloc(n * sizeof *tmp);
	int rc = rows && tmp ? BT_OK : BT_ERROR;
	if (rc)
		snprintf(err, errsize, "out of memory");
	for (int index = ST_SORTED; index < ST_COUNT && rc == BT_OK; index++)
		rc = build(c, index, rows, tmp, err, errsize);
	free(rows);
	free(tmp);
	return rc;
}

/* The next job to take (its place in order[]), or -1: one whose tree is
 * asked for and not taken, in order[]'s order; the sorted indexes (whose
 * sort buffers are the largest: 320 MB at 10M objects) only once
 * ref_table_dst is not under way, so that the two sets of buffers are never
 * in memory together. */
static int next_job(const store_pages *c)
{
	for (int j = 0; j < JOBS; j++)
		if ((c->trees >> order[j] & 1) && !(c->taken >> j & 1) && !(order[j] == ST_SORTED && c->dst_busy))
			return j;
	return -1;
}

static void *worker(void *arg)
{
	store_pages *c = arg;
	char err[512];
	for (;;) {
		pthread_mutex_lock(&c->lock);
		int j = c->rc == BT_OK ? next_job(c) : -1;
		int dst = j >= 0 && order[j] == ST_REFS_DST;
		if (j >= 0)
			c->taken |= 1u << j;
		c->dst_busy += dst;
		pthread_mutex_unlock(&c->lock);
		if (j < 0)
			return NULL;
		int rc = fill_job(c, order[j], err, sizeof err);
		pthread_mutex_lock(&c->lock);
		c->dst_busy -= dst;
		if (rc != BT_OK && c->rc == BT_OK) {
			c->rc = rc;
			snprintf(c->err, sizeof c->err, "%s", err);
		}
		pthread_mutex_unlock(&c->lock);
	}
}

int store_pages_start(store_pages **out, const char *path, const store_pages_plan *plan, unsigned trees,
		      const row_source *src, char *err, size_t errsize)
{
	/* a job's trees come together: the sorted indexes, the two cluster lists */
	assert((trees >> ST_MEMBERS & 1) == (trees >> ST_MUTABLE & 1));
	assert((trees & ST_KEYED) == 0 || (trees & ST_KEYED) == ST_KEYED);
	assert((trees & ~((1u << ST_SORTED) - 1)) == 0 || (trees & ~((1u << ST_SORTED) - 1)) == (ST_ALL & ~((1u << ST_SORTED) - 1)));
	store_pages *c = calloc(1, sizeof *c);
	*out = c;
	if (!c) {
		snprintf(err, errsize, "out of memory");
		return BT_ERROR;
	}
	int rc = bt_file_open(&c->f, path, err, errsize);
	if (rc != BT_OK) {
		free(c);
		*out = NULL;
		return rc;
	}
	c->plan = plan;
	c->src = src;
	c->trees = trees;
	pthread_mutex_init(&c->lock, NULL);
	return BT_OK;
}

void store_pages_work(store_pages *c)
{
	worker(c);
}

void store_pages_add(store_pages *c, unsigned trees)
{
	pthread_mutex_lock(&c->lock);
	c->trees |= trees;
	pthread_mutex_unlock(&c->lock);
}

void store_pages_share(store_pages *c, int threads)
{
	jobs_pool(worker, c, 0, threads < 1 ? 1 : threads < JOBS ? threads : JOBS); /* one queue */
}

void store_pages_stop(store_pages *c)
{
	pthread_mutex_lock(&c->lock);
	if (c->rc == BT_OK) {
		c->rc = BT_ERROR;
		snprintf(c->err, sizeof c->err, "stopped");
	}
	pthread_mutex_unlock(&c->lock);
}

int store_pages_finish(store_pages *c, const char *shown, char *err, size_t errsize)
{
	if (c->rc == BT_OK && bt_file_commit(&c->f, c->err, sizeof c->err))
		c->rc = BT_ERROR;
	else if (c->rc != BT_OK)
		bt_file_abort(&c->f);
	if (c->rc != BT_OK && (c->f.io_errno == EFBIG || c->f.io_errno == ENOSPC))
		fileio_write_error(shown, c->f.io_errno, err, errsize);
	else if (c->rc != BT_OK)
		snprintf(err, errsize, "%s", c->err);
	int rc = c->rc;
	pthread_mutex_destroy(&c->lock);
	free(c);
	return rc;
}

int store_pages_fill(const char *path, const char *shown, const store_pages_plan *plan, unsigned trees,
		     const row_source *src, int threads, char *err, size_t errsize)
{
	store_pages *c;
	int rc = store_pages_start(&c, path, plan, trees, src, err, errsize);
	if (rc != BT_OK)
		return rc;
	store_pages_share(c, threads);
	return store_pages_finish(c, shown, err, errsize);
}
