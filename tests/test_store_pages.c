/* test_store_pages.c — the page writer (btree_write.c, store_pages.c)
 * against SQLite itself: every database it writes passes
 * PRAGMA integrity_check, holds table for table the same rows as the one
 * the SQL path writes (every test heap, random heaps, page sizes from 512
 * to 65536), stays sound when a stock SQLite then inserts, deletes and
 * updates; what it does not handle (a record needing overflow pages, a
 * schema it does not know) falls back to SQL with the same result. */
#include <sqlite3.h>
#include <stdlib.h>
#include <unistd.h>

#include "sql/btree_write.h"
#include "sql/key_sort.h"
#include "analysis/dominators.h"
#include "analysis/findings.h"
#include "tools/gen/gen.h"
#include "sql/schema.h"
#include "snapshot/snapshot.h"
#include "sql/store.h"
#include "sql/store_pages.h"
#include "tests/unit.h"

static char dir[64];

static char *replace(const char *text, const char *from, const char *to);

/* PATH for NAME in the scratch directory. */
static void scratch(const char *name, char *path, size_t cap)
{
	snprintf(path, cap, "%s", test_dir_path(dir, sizeof dir, "/tmp/ugc-test-pages-XXXXXX", name));
	unlink(path);
}

/* The first column of the first row of SQL on DB as text, into OUT. */
static void ask(sqlite3 *db, const char *sql, char *out, size_t cap)
{
	sqlite3_stmt *st;
	snprintf(out, cap, "(error)");
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		printf("    %s: %s\n", sql, sqlite3_errmsg(db));
		return;
	}
	if (sqlite3_step(st) == SQLITE_ROW)
		snprintf(out, cap, "%s", sqlite3_column_text(st, 0) ? (const char *)sqlite3_column_text(st, 0) : "NULL");
	else
		snprintf(out, cap, "(none)");
	sqlite3_finalize(st);
}

static int integrity_ok(sqlite3 *db)
{
	char got[512];
	ask(db, "PRAGMA integrity_check", got, sizeof got);
	if (strcmp(got, "ok"))
		printf("    integrity_check: %s\n", got);
	return strcmp(got, "ok") == 0;
}

/* The same schema and, table for table, the same rows (EXCEPT both ways
 * and the counts, so duplicates count too), rowids included where a table
 * has them (the cluster lists' rows are told apart only by them). */
static int same_db(const char *a, const char *b)
{
	sqlite3 *db;
	char sql[512], got[64];
	int same = sqlite3_open(a, &db) == SQLITE_OK;
	snprintf(sql, sizeof sql, "ATTACH '%s' AS b", b);
	same = same && sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK;
	ask(db, "SELECT count(*) FROM (SELECT type, name, tbl_name, sql FROM main.sqlite_schema EXCEPT "
		"SELECT type, name, tbl_name, sql FROM b.sqlite_schema)", got, sizeof got);
	same = same && strcmp(got, "0") == 0;
	ask(db, "SELECT (SELECT count(*) FROM main.sqlite_schema) - (SELECT count(*) FROM b.sqlite_schema)", got,
	    sizeof got);
	same = same && strcmp(got, "0") == 0;
	sqlite3_stmt *st;
	int tables = 0;
	if (same && sqlite3_prepare_v2(db, "SELECT name, sql LIKE '%WITHOUT ROWID' FROM main.sqlite_schema "
				       "WHERE type = 'table'", -1, &st, NULL) == SQLITE_OK) {
		while (sqlite3_step(st) == SQLITE_ROW) {
			const char *t = (const char *)sqlite3_column_text(st, 0);
			const char *cols = sqlite3_column_int(st, 1) ? "*" : "rowid, *";
			snprintf(sql, sizeof sql,
				 "SELECT (SELECT count(*) FROM (SELECT %s FROM main.%s EXCEPT SELECT %s FROM b.%s)) + "
				 "(SELECT count(*) FROM (SELECT %s FROM b.%s EXCEPT SELECT %s FROM main.%s)) + "
				 "abs((SELECT count(*) FROM main.%s) - (SELECT count(*) FROM b.%s))",
				 cols, t, cols, t, cols, t, cols, t, t, t);
			ask(db, sql, got, sizeof got);
			if (strcmp(got, "0")) {
				printf("    %s differs: %s\n", t, got);
				same = 0;
			}
			tables++;
		}
		sqlite3_finalize(st);
	}
	sqlite3_close(db);
	return same && tables == 22; /* schema.h has 22: none may go missing */
}

/* Analyse H (GC, findings, dominators) and store it at PATH by METHOD with
 * PAGE_SIZE; 0, or -1 with the error in ERR. */
static int store(const heap *h, const char *path, int method, unsigned page_size, char *err, size_t errsize)
{
	gc_options opt = {.mode = h->mode, .keep_flags = gc_default_keep_flags(h->mode), .threads = 2};
	gc_result r;
	findings f;
	dom_result d;
	int rc = -1;
	snprintf(err, errsize, "out of memory");
	if (gc_run((heap *)h, &opt, &r))
		return -1;
	if (findings_collect(h, &r, &f) == 0) {
		if (dom_compute(h, &r, POLICY_GC, &d) == 0) {
			store_info info = {"test", &opt, 0, &d, method, page_size, 0};
			rc = store_write(path, 1, h, &r, &f, &info, err, errsize);
			dom_free(&d);
		}
		findings_free(&f);
	}
	gc_result_free(&r);
	return rc;
}

static int open_ok(const char *path, sqlite3 **db)
{
	if (sqlite3_open(path, db) == SQLITE_OK)
		return 1;
	printf("    %s: %s\n", path, sqlite3_errmsg(*db));
	sqlite3_close(*db);
	return 0;
}

/* H stored both ways at PAGE_SIZE: the pages sound, the same as SQL's.
 * KEPT (when not NULL) receives the path of the pages' database, left in
 * place; else both are removed. */
static void both_ways_kept(const heap *h, const char *name, unsigned page_size, char *kept, size_t keptsize)
{
	char sqlpath[128], pagespath[128], err[512], file[64];
	snprintf(file, sizeof file, "%s-%u-sql.db", name, page_size);
	scratch(file, sqlpath, sizeof sqlpath);
	snprintf(file, sizeof file, "%s-%u-pages.db", name, page_size);
	scratch(file, pagespath, sizeof pagespath);
	int rc = store(h, sqlpath, STORE_SQL, page_size, err, sizeof err);
	if (rc == 0 && (rc = store(h, pagespath, STORE_PAGES, page_size, err, sizeof err)))
		printf("    %s at %u: %s\n", name, page_size, err);
	CHECK(rc == 0);
	sqlite3 *db;
	if (rc || !open_ok(pagespath, &db))
		return;
	CHECK(integrity_ok(db));
	sqlite3_close(db);
	int same = same_db(pagespath, sqlpath);
	if (!same)
		printf("    %s at %u: not the same as SQL's\n", name, page_size);
	CHECK(same);
	unlink(sqlpath);
	if (kept)
		snprintf(kept, keptsize, "%s", pagespath);
	else
		unlink(pagespath);
}

static void both_ways(const heap *h, const char *name, unsigned page_size)
{
	both_ways_kept(h, name, page_size, NULL, 0);
}

/* H stored as pages at PAGE_SIZE in NAME (a scratch file) and opened;
 * NULL (a failed check) if either fails. */
static sqlite3 *stored_pages(const heap *h, const char *name, unsigned page_size)
{
	char path[128], err[512];
	scratch(name, path, sizeof path);
	int rc = store(h, path, STORE_PAGES, page_size, err, sizeof err);
	if (rc)
		printf("    %s\n", err);
	CHECK(rc == 0);
	sqlite3 *db;
	return rc == 0 && open_ok(path, &db) ? db : NULL;
}

TEST(store_pages_equal_sql_on_every_test_heap)
{
	static const char *const files[] = {
		"testdata/arena.ugcs", "testdata/chains.ugct", "testdata/cluster-quirks.ugct",
		"testdata/evolve-0.ugcs", "testdata/gen-1000-editor.ugct", "testdata/gen-2000-broken.ugct.zst",
		"testdata/retention.ugct", "testdata/spec-example.ugct", "testdata/stale-outer.ugct",
		"testdata/v8/node-small.heapsnapshot.zst"};
	for (size_t k = 0; k < sizeof files / sizeof files[0]; k++) {
		heap h;
		char err[512];
		int rc = snapshot_load(files[k], &h, err, sizeof err);
		if (rc)
			printf("    %s: %s\n", files[k], err);
		CHECK(rc == 0);
		if (rc)
			continue;
		both_ways(&h, strrchr(files[k], '/') + 1, 0);
		heap_free(&h);
	}
}

TEST(store_pages_equal_sql_on_random_heaps_and_page_sizes)
{
	static const unsigned sizes[] = {512, 1024, 4096, 65536};
	static const int objects[] = {1, 5, 60, 700, 3000};
	for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
		for (size_t n = 0; n < sizeof objects / sizeof objects[0]; n++) {
			heap h;
			if (random_heap(objects[n], 1, &h))
				continue;
			char name[32];
			snprintf(name, sizeof name, "random%d", objects[n]);
			both_ways(&h, name, sizes[s]);
			heap_free(&h);
		}
}

/* A stock SQLite inserts, deletes and updates in the written b-trees;
 * integrity holds and the counts are what those statements make them. */
TEST(store_pages_database_stays_writable)
{
	heap h;
	char got[64];
	if (random_heap(3000, 1, &h))
		return;
	sqlite3 *db = stored_pages(&h, "writable.db", 1024);
	if (!db) {
		heap_free(&h);
		return;
	}
	uint32_t objs = h.objects, refs = h.nrefs;
	int rc = sqlite3_exec(db,
			  "BEGIN;"
			  "DELETE FROM ref_table WHERE pos % 3 = 0;"
			  "INSERT INTO ref_table SELECT src, pos + 1000000, dst, kind, prop FROM ref_table WHERE pos % 5 = 1;"
			  "UPDATE ref_table SET dst = (dst * 7) % 3011, prop = NULL WHERE pos % 7 = 2;"
			  "DELETE FROM object_table WHERE idx % 4 = 0;"
			  "INSERT INTO object_table(idx, serial, class, outer, name, size, path_hash, retained) "
			  "  SELECT idx + 100000, serial, class, outer, name || '-copy', size, path_hash + 1, retained "
			  "  FROM object_table WHERE idx % 3 = 0;"
			  "UPDATE object_table SET class = class + 1, outer = NULL, idom = idx, retained = 5 WHERE idx % 5 = 1;"
			  "COMMIT;",
			  NULL, NULL, NULL);
	CHECK(rc == SQLITE_OK);
	CHECK(integrity_ok(db));
	/* the expected counts, from the model: refs at positions p in the heap */
	uint32_t want_refs = 0, want_objs = 0;
	for (uint32_t p = 0; p < refs; p++)
		want_refs += (p % 3 != 0) + (p % 3 != 0 && p % 5 == 1);
	for (uint32_t i = 0; i < h.slots; i++)
		if (h.cls[i] != OBJ_FREE)
			want_objs += (i % 4 != 0) + (i % 4 != 0 && i % 3 == 0);
	char want[64];
	snprintf(want, sizeof want, "%u", want_refs);
	ask(db, "SELECT count(*) FROM ref_table INDEXED BY ref_table_dst WHERE dst >= 0", got, sizeof got);
	CHECK_STR(got, want);
	snprintf(want, sizeof want, "%u", want_objs);
	ask(db, "SELECT count(*) FROM object_table INDEXED BY objects_class WHERE class >= 0", got, sizeof got);
	CHECK_STR(got, want);
	CHECK(objs > 0);
	sqlite3_close(db);
	heap_free(&h);
}

/* The same for the cluster lists, on a generated heap at 512-byte pages
 * (trees of several levels): the counts are what the statements make of
 * rowids 1..M (members) and 1..U (mutable) of the model. */
TEST(store_pages_cluster_lists_stay_writable)
{
	gen_options go = {20000, 3, MODE_GAME, 0};
	heap h;
	char err[512], got[64], want[64];
	if (gen_heap(&go, &h, err, sizeof err)) {
		printf("    %s\n", err);
		CHECK(0);
		return;
	}
	sqlite3 *db = stored_pages(&h, "writable-clusters.db", 512);
	if (!db) {
		heap_free(&h);
		return;
	}
	int rc = sqlite3_exec(db,
			  "BEGIN;"
			  "DELETE FROM cluster_members WHERE rowid % 3 = 0;"
			  "INSERT INTO cluster_members SELECT root + 1, idx FROM cluster_members WHERE rowid % 2 = 1;"
			  "UPDATE cluster_mutable SET root = root + 1000000000 WHERE rowid % 2 = 0;"
			  "DELETE FROM cluster_mutable WHERE rowid % 5 = 0;"
			  "COMMIT;",
			  NULL, NULL, NULL);
	CHECK(rc == SQLITE_OK);
	CHECK(integrity_ok(db));
	uint32_t members = 0, mutables = 0, want_members = 0, want_mutables = 0, moved = 0;
	for (uint32_t c = 0; c < h.nclusters; c++) {
		members += h.clusters[c].n_members;
		mutables += h.clusters[c].n_mutables;
	}
	for (uint32_t r = 1; r <= members; r++)
		want_members += (r % 3 != 0) + (r % 3 != 0 && r % 2 == 1);
	for (uint32_t r = 1; r <= mutables; r++) {
		want_mutables += r % 5 != 0;
		moved += r % 5 != 0 && r % 2 == 0;
	}
	snprintf(want, sizeof want, "%u", want_members);
	ask(db, "SELECT count(*) FROM cluster_members INDEXED BY cluster_members_idx WHERE idx >= 0", got, sizeof got);
	CHECK_STR(got, want);
	ask(db, "SELECT count(*) FROM cluster_members INDEXED BY cluster_members_root WHERE root >= 0", got, sizeof got);
	CHECK_STR(got, want);
	snprintf(want, sizeof want, "%u", want_mutables);
	ask(db, "SELECT count(*) FROM cluster_mutable INDEXED BY cluster_mutable_root WHERE root >= 0", got, sizeof got);
	CHECK_STR(got, want);
	/* the updated rows, found through the index */
	snprintf(want, sizeof want, "%u", moved);
	ask(db, "SELECT count(*) FROM cluster_mutable INDEXED BY cluster_mutable_root WHERE root >= 1000000000", got,
	    sizeof got);
	CHECK_STR(got, want);
	CHECK(members > 1000 && mutables > 1000);
	sqlite3_close(db);
	heap_free(&h);
}

/* A name longer than a small page holds: pages alone refuse it (the row
 * would need overflow pages), auto falls back to SQL with SQL's result. */
TEST(store_pages_falls_back_for_overflow)
{
	char body[4096] = "o 11 12 4 10 ", name[1001];
	memset(name, 'N', 1000);
	name[1000] = '\0';
	snprintf(body + strlen(body), sizeof body - strlen(body), "%s 100 RootSet\no 12 0 4 11 Kid 10 -\nr 11 12 strong P\n",
		 name);
	heap h;
	if (load_heap(body, &h))
		return;
	char sqlpath[128], autopath[128], pagespath[128], err[512];
	scratch("long-sql.db", sqlpath, sizeof sqlpath);
	scratch("long-auto.db", autopath, sizeof autopath);
	scratch("long-pages.db", pagespath, sizeof pagespath);
	CHECK(store(&h, pagespath, STORE_PAGES, 1024, err, sizeof err) != 0);
	CHECK(strstr(err, "overflow") != NULL);
	CHECK(access(pagespath, F_OK) != 0); /* nothing left behind */
	CHECK(store(&h, sqlpath, STORE_SQL, 1024, err, sizeof err) == 0);
	CHECK(store(&h, autopath, STORE_AUTO, 1024, err, sizeof err) == 0);
	CHECK(same_db(autopath, sqlpath));
	/* 64 KiB pages hold it */
	both_ways(&h, "long", 0);
	heap_free(&h);
}

/* Random heaps where a few objects have names of random length up to the
 * engine's limit, at 1024-byte pages: some rows fit a page, some need
 * overflow pages; auto gives SQL's database either way, and says which way
 * it went only through the time it takes. */
TEST(store_pages_auto_equals_sql_with_long_names)
{
	int fell_back = 0, paged = 0;
	for (int round = 0; round < 12; round++) {
		char *text = random_heap_text(40);
		for (int k = 0; k < 3 && round != 1; k++) { /* round 1: short names only */
			char from[32], *to = malloc(NAME_LEN_MAX + 32);
			int i = 11 + (int)test_rand_below(40), len = 600 + (int)test_rand_below(NAME_LEN_MAX - 600 - 8);
			if (round == 0 && k == 0) /* surely too long for a 1024-byte page */
				len = NAME_LEN_MAX - 9;
			snprintf(from, sizeof from, " O%d ", i);
			int n = snprintf(to, NAME_LEN_MAX + 32, " O%d", i);
			memset(to + n, 'a' + k, (size_t)(len - n + 1));
			snprintf(to + len + 1, 2, " ");
			char *t = replace(text, from, to);
			free(text);
			free(to);
			text = t;
		}
		heap h;
		char err[512], sqlpath[128], autopath[128], pagespath[128];
		int rc = parse_text(text, &h, err, sizeof err);
		free(text);
		if (rc)
			printf("    %s\n", err);
		CHECK(rc == 0);
		if (rc)
			continue;
		scratch("names-sql.db", sqlpath, sizeof sqlpath);
		scratch("names-auto.db", autopath, sizeof autopath);
		scratch("names-pages.db", pagespath, sizeof pagespath);
		if (store(&h, pagespath, STORE_PAGES, 1024, err, sizeof err) == 0)
			paged++;
		else if (strstr(err, "overflow"))
			fell_back++;
		CHECK(store(&h, sqlpath, STORE_SQL, 1024, err, sizeof err) == 0);
		CHECK(store(&h, autopath, STORE_AUTO, 1024, err, sizeof err) == 0);
		CHECK(same_db(autopath, sqlpath));
		sqlite3 *db;
		if (open_ok(autopath, &db)) {
			CHECK(integrity_ok(db));
			sqlite3_close(db);
		}
		heap_free(&h);
	}
	CHECK(fell_back > 0 && paged > 0); /* both ways were taken */
}

/* The rows of cluster list LIST (0: members, 1: mutable) from the heap
 * model, as the tables hold them: how many, and for cluster X the list as
 * "a,b,c" (into OUT). */
static uint32_t list_rows(const heap *h, int list, uint32_t x, char *out, size_t cap)
{
	uint32_t rows = 0;
	for (uint32_t c = 0; c < h->nclusters; c++)
		rows += list ? h->clusters[c].n_mutables : h->clusters[c].n_members;
	out[0] = '\0';
	if (x >= h->nclusters)
		return rows;
	const cluster *cl = &h->clusters[x];
	uint32_t start = list ? cl->mutables : cl->members, n = list ? cl->n_mutables : cl->n_members;
	for (uint32_t k = 0; k < n; k++)
		snprintf(out + strlen(out), cap - strlen(out), "%s%d", k ? "," : "", h->cluster_items[start + k]);
	return rows;
}

/* The pages' database at PATH holds H's cluster lists: every row found
 * through each index (INDEXED BY: the b-trees written here, not the
 * table), and cluster X's lists, in order, through the index by root. */
static void lists_as_in_model(const heap *h, const char *path, uint32_t x)
{
	sqlite3 *db;
	if (!open_ok(path, &db))
		return;
	static const char *const counts[3] = {
		"SELECT count(*) FROM cluster_members INDEXED BY cluster_members_idx WHERE idx >= -1",
		"SELECT count(*) FROM cluster_members INDEXED BY cluster_members_root WHERE root >= -1",
		"SELECT count(*) FROM cluster_mutable INDEXED BY cluster_mutable_root WHERE root >= -1"};
	static const char *const lists[2] = {
		"SELECT ifnull(group_concat(idx), '') FROM (SELECT idx FROM cluster_members INDEXED BY "
		"cluster_members_root WHERE root = %d ORDER BY rowid)",
		"SELECT ifnull(group_concat(idx), '') FROM (SELECT idx FROM cluster_mutable INDEXED BY "
		"cluster_mutable_root WHERE root = %d ORDER BY rowid)"};
	char want[4096], got[4096], sql[256];
	for (int k = 0; k < 3; k++) {
		snprintf(want, sizeof want, "%u", list_rows(h, k == 2, x, got, sizeof got));
		ask(db, counts[k], got, sizeof got);
		CHECK_STR(got, want);
	}
	for (int list = 0; list < 2 && h->nclusters; list++) {
		list_rows(h, list, x, want, sizeof want);
		snprintf(sql, sizeof sql, lists[list], h->clusters[x].root);
		ask(db, sql, got, sizeof got);
		CHECK_STR(got, want);
	}
	/* each member found by its index from the members' side */
	if (h->nclusters && h->clusters[x].n_members) {
		obj_t m = h->cluster_items[h->clusters[x].members + h->clusters[x].n_members - 1];
		snprintf(sql, sizeof sql, "SELECT group_concat(root) FROM cluster_members INDEXED BY cluster_members_idx "
			 "WHERE idx = %d", m);
		ask(db, sql, got, sizeof got);
		snprintf(want, sizeof want, "%d", h->clusters[x].root);
		CHECK_STR(got, want);
	}
	sqlite3_close(db);
}

/* The cluster lists as pages: generated heaps with hundreds of clusters
 * (trees of several levels at 512-byte pages; lists with entries dropped),
 * a heap without clusters, clusters whose lists are all empty. */
TEST(store_pages_cluster_lists_equal_sql)
{
	char err[512], path[128];
	int rc;
	static const unsigned sizes[] = {512, 65536};
	for (int broken = 0; broken <= 30; broken += 30) {
		gen_options go = {20000, 3, MODE_GAME, broken};
		heap h;
		if (gen_heap(&go, &h, err, sizeof err)) {
			printf("    %s\n", err);
			CHECK(0);
			continue;
		}
		CHECK(h.nclusters > 50); /* the test means something */
		for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
			path[0] = '\0';
			both_ways_kept(&h, broken ? "gen-broken" : "gen", sizes[s], path, sizeof path);
			if (path[0])
				lists_as_in_model(&h, path, h.nclusters / 2);
		}
		heap_free(&h);
	}
	heap h;
	if (random_heap(700, 0, &h) == 0) {
		CHECK(h.nclusters == 0);
		path[0] = '\0';
		both_ways_kept(&h, "no-clusters", 1024, path, sizeof path);
		if (path[0])
			lists_as_in_model(&h, path, 0);
		heap_free(&h);
	}
	static const char body[] = "o 11 12 4 10 Arena 2048 RootSet\no 12 13 4 11 A 400 -\no 13 14 4 11 B 400 -\n"
				   "r 11 13 strong P\nc 11 - - -\nc 13 - - 11\n";
	rc = load_heap(body, &h);
	CHECK(rc == 0);
	if (rc == 0) {
		CHECK(h.nclusters == 2);
		path[0] = '\0';
		both_ways_kept(&h, "empty-lists", 512, path, sizeof path);
		if (path[0])
			lists_as_in_model(&h, path, 1);
		heap_free(&h);
	}
}

/* The writer knows the schema it fills, and nothing else. */
static int plan_of(const char *tables, const char *indexes, char *why, size_t whysize)
{
	sqlite3 *db;
	store_pages_plan plan;
	int rc = -9;
	if (sqlite3_open(":memory:", &db) == SQLITE_OK && sqlite3_exec(db, tables, NULL, NULL, NULL) == SQLITE_OK &&
	    sqlite3_exec(db, indexes, NULL, NULL, NULL) == SQLITE_OK)
		rc = store_pages_plan_of(db, &plan, why, whysize);
	sqlite3_close(db);
	return rc;
}

/* TEXT with FROM replaced by TO (once), malloc'd. */
static char *replace(const char *text, const char *from, const char *to)
{
	const char *at = strstr(text, from);
	size_t n = strlen(text) + strlen(to) + 1;
	char *s = malloc(n);
	if (!at) {
		snprintf(s, n, "%s", text);
		return s;
	}
	snprintf(s, n, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
	return s;
}

TEST(store_pages_refuses_a_schema_it_does_not_know)
{
	char why[512];
	CHECK(plan_of(SCHEMA_TABLES, SCHEMA_INDEXES, why, sizeof why) == BT_OK);
	/* each: in the tables (0) or the indexes (1), FROM becomes TO */
	static const struct { int indexes; const char *from, *to; } changes[] = {
		{0, "node_id INTEGER);", "node_id INTEGER, extra INTEGER);"}, /* a new column */
		{0, "name TEXT, class_name", "name BLOB, class_name"},         /* another type */
		{0, "idx INTEGER PRIMARY KEY,", "idx INTEGER PRIMARY KEY DESC,"}, /* not the rowid */
		{0, "PRIMARY KEY(src, pos)) WITHOUT ROWID", "PRIMARY KEY(src, pos))"},
		{0, "PRIMARY KEY(src, pos))", "PRIMARY KEY(pos, src))"},
		{1, "ON object_table(class);", "ON object_table(class, name);"},
		{1, "ON object_table(outer);", "ON object_table(outer DESC);"},
		{1, "ON ref_table(dst);", "ON ref_table(dst) WHERE kind = 0;"},
		{1, "CREATE INDEX objects_idom", "CREATE INDEX objects_name ON object_table(name);\nCREATE INDEX objects_idom"},
		/* the cluster lists */
		{0, "cluster_members(root INTEGER, idx INTEGER)", "cluster_members(root INTEGER, idx INTEGER, extra)"},
		{0, "cluster_mutable(root INTEGER, idx INTEGER)", "cluster_mutable(root INTEGER, idx TEXT)"},
		{0, "cluster_mutable(root INTEGER, idx INTEGER)", "cluster_mutable(root INTEGER PRIMARY KEY, idx INTEGER)"},
		{0, "cluster_members(root INTEGER, idx INTEGER)",
		 "cluster_members(root INTEGER, idx INTEGER, PRIMARY KEY(root, idx)) WITHOUT ROWID"},
		{0, "cluster_members(root INTEGER, idx INTEGER)", "cluster_members(root INTEGER, idx INTEGER UNIQUE)"},
		{1, "ON cluster_members(idx);", "ON cluster_members(idx, root);"},
		{1, "ON cluster_mutable(root);", "ON cluster_mutable(root DESC);"},
		{1, "CREATE INDEX cluster_members_root ON cluster_members(root);\n", ""},
		{1, "CREATE INDEX cluster_refs_root", "CREATE INDEX mutable_idx ON cluster_mutable(idx);\nCREATE INDEX cluster_refs_root"},
		{1, "CREATE INDEX cluster_refs_root", "INSERT INTO cluster_mutable VALUES(1, 2);\nCREATE INDEX cluster_refs_root"},
	};
	for (size_t k = 0; k < sizeof changes / sizeof changes[0]; k++) {
		char *t = replace(changes[k].indexes ? SCHEMA_INDEXES : SCHEMA_TABLES, changes[k].from, changes[k].to);
		int rc = plan_of(changes[k].indexes ? SCHEMA_TABLES : t, changes[k].indexes ? t : SCHEMA_INDEXES, why,
				 sizeof why);
		if (rc != BT_UNSUPPORTED)
			printf("    %s -> %s: %d %s\n", changes[k].from, changes[k].to, rc, why);
		CHECK(rc == BT_UNSUPPORTED);
		free(t);
	}
}

/* ---- the b-tree writer alone, on trees of every shape ---- */

/* A table w(k, v) WITHOUT ROWID (an index b-tree) and a rowid table
 * r(x INTEGER PRIMARY KEY, v) filled with N rows, row K's text K % 61 + 1
 * bytes long (r's every 50th row near the most a 512-byte page holds): the
 * last entry lands at every place in a page and level as N varies. */
static int write_trees(const char *path, int n, unsigned page_size, char *err, size_t errsize)
{
	sqlite3 *db;
	char sql[256];
	snprintf(sql, sizeof sql, "PRAGMA page_size=%u; PRAGMA journal_mode=OFF;"
		 "CREATE TABLE w(k INTEGER PRIMARY KEY, v TEXT) WITHOUT ROWID;"
		 "CREATE TABLE r(x INTEGER PRIMARY KEY, v TEXT);", page_size);
	if (sqlite3_open(path, &db) != SQLITE_OK || sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK) {
		snprintf(err, errsize, "%s", sqlite3_errmsg(db));
		sqlite3_close(db);
		return -1;
	}
	sqlite3_close(db);
	bt_file f;
	bt_tree w, r;
	int rc = bt_file_open(&f, path, err, errsize);
	if (rc)
		return rc;
	uint8_t rec[BT_RECORD_MAX];
	char text[600];
	memset(text, 'x', sizeof text);
	rc = bt_tree_begin(&w, &f, 1, 2, err, errsize);
	if (rc == BT_OK)
		rc = bt_tree_begin(&r, &f, 0, 3, err, errsize);
	for (int k = 0; k < n && rc == BT_OK; k++) {
		row_value v[2] = {{RV_INT, k * 3 - 50, NULL, 0}, {RV_TEXT, 0, text, (size_t)(k % 61 + 1)}};
		rc = bt_tree_add_key(&w, rec, bt_record(&f, v, 2, rec, sizeof rec));
		v[0].type = RV_NULL;
		v[1].n = k % 50 == 7 ? 470 : v[1].n;
		if (rc == BT_OK)
			rc = bt_tree_add_row(&r, k * 3 - 50, rec, bt_record(&f, v, 2, rec, sizeof rec));
	}
	if (rc == BT_OK)
		rc = bt_tree_finish(&w);
	if (rc == BT_OK)
		rc = bt_tree_finish(&r);
	bt_tree_free(&w);
	bt_tree_free(&r);
	if (rc) {
		bt_file_abort(&f);
		return rc;
	}
	return bt_file_commit(&f, err, errsize);
}

TEST(btree_write_builds_every_shape)
{
	char path[128], err[512], got[128], want[128];
	int sizes[] = {0, 1, 2, 3, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 31, 63, 64, 65, 100, 200, 300, 1000, 4000};
	for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
		int n = sizes[s];
		scratch("shape.db", path, sizeof path);
		int rc = write_trees(path, n, 512, err, sizeof err);
		if (rc)
			printf("    %d rows: %s\n", n, err);
		CHECK(rc == 0);
		sqlite3 *db;
		if (rc || !open_ok(path, &db))
			continue;
		int ok = integrity_ok(db);
		if (!ok)
			printf("    with %d rows\n", n);
		CHECK(ok);
		/* what went in, computed here: keys k*3-50, text lengths */
		long long keys = 0, len_w = 0, len_r = 0;
		for (int k = 0; k < n; k++) {
			keys += k * 3 - 50;
			len_w += k % 61 + 1;
			len_r += k % 50 == 7 ? 470 : k % 61 + 1;
		}
		ask(db, "SELECT (SELECT count(*) || ' ' || total(k) || ' ' || total(length(v)) FROM w) || ' ' || "
			"(SELECT count(*) || ' ' || total(x) || ' ' || total(length(v)) FROM r)", got, sizeof got);
		/* total() is a real: as SQLite prints it */
		snprintf(want, sizeof want, "%d %lld.0 %lld.0 %d %lld.0 %lld.0", n, keys, len_w, n, keys, len_r);
		CHECK_STR(got, want);
		/* lookups go through the interior pages */
		if (n > 10) {
			snprintf(want, sizeof want, "%d", (n / 2) % 61 + 1);
			char q[128];
			snprintf(q, sizeof q, "SELECT length(v) FROM w WHERE k = %d", (n / 2) * 3 - 50);
			ask(db, q, got, sizeof got);
			CHECK_STR(got, want);
		}
		sqlite3_close(db);
	}
}

TEST(btree_write_refuses_overflow)
{
	char path[128], err[512];
	scratch("overflow.db", path, sizeof path);
	sqlite3 *db;
	CHECK(sqlite3_open(path, &db) == SQLITE_OK);
	CHECK(sqlite3_exec(db, "PRAGMA page_size=512; CREATE TABLE w(k INTEGER PRIMARY KEY, v TEXT) WITHOUT ROWID;", NULL,
			   NULL, NULL) == SQLITE_OK);
	sqlite3_close(db);
	bt_file f;
	bt_tree w;
	CHECK(bt_file_open(&f, path, err, sizeof err) == BT_OK);
	CHECK(bt_tree_begin(&w, &f, 1, 2, err, sizeof err) == BT_OK);
	uint8_t rec[BT_RECORD_MAX];
	char text[200];
	memset(text, 'x', sizeof text);
	/* 512-byte pages: an index cell keeps at most ((512-12)*64/255)-23 = 102 bytes */
	row_value v[2] = {{RV_INT, 2, NULL, 0}, {RV_TEXT, 0, text, 97}}; /* header 4, body 1 + 97 */
	size_t len = bt_record(&f, v, 2, rec, sizeof rec);
	CHECK(len == 102);
	CHECK(bt_tree_add_key(&w, rec, len) == BT_OK);
	v[0].i = 3;
	v[1].n = 98;
	len = bt_record(&f, v, 2, rec, sizeof rec);
	CHECK(bt_tree_add_key(&w, rec, len) == BT_UNSUPPORTED);
	bt_tree_free(&w);
	bt_file_abort(&f);
	CHECK(sqlite3_open(path, &db) == SQLITE_OK);
	CHECK(integrity_ok(db)); /* left as SQLite wrote it */
	sqlite3_close(db);
}

/* Forty trees built at once, each holding part of a batch of reserved pages
 * when it ends: what they leave becomes a freelist of several trunk pages
 * (512-byte pages: 120 leaves a trunk), and SQLite finds it whole. */
TEST(btree_write_frees_what_it_reserved)
{
	enum { TREES = 40, KEYS = 1500 };
	char path[128], err[512], got[64], sql[128];
	scratch("freelist.db", path, sizeof path);
	sqlite3 *db;
	CHECK(sqlite3_open(path, &db) == SQLITE_OK);
	CHECK(sqlite3_exec(db, "PRAGMA page_size=512; PRAGMA journal_mode=OFF", NULL, NULL, NULL) == SQLITE_OK);
	uint32_t root[TREES];
	for (int k = 0; k < TREES; k++) {
		snprintf(sql, sizeof sql, "CREATE TABLE t%d(k INTEGER PRIMARY KEY) WITHOUT ROWID", k);
		CHECK(sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK);
		snprintf(sql, sizeof sql, "SELECT rootpage FROM sqlite_schema WHERE name = 't%d'", k);
		ask(db, sql, got, sizeof got);
		root[k] = (uint32_t)atoi(got);
	}
	sqlite3_close(db);
	bt_file f;
	static bt_tree t[TREES];
	int rc = bt_file_open(&f, path, err, sizeof err);
	CHECK(rc == BT_OK);
	for (int k = 0; k < TREES && rc == BT_OK; k++)
		rc = bt_tree_begin(&t[k], &f, 1, root[k], err, sizeof err);
	uint8_t rec[16];
	for (int i = 0; i < KEYS && rc == BT_OK; i++)
		for (int k = 0; k < TREES && rc == BT_OK; k++) {
			int64_t v = (int64_t)i * (k + 1);
			rc = k % 2 ? bt_tree_add_ints(&t[k], &v, 0, 1) : bt_tree_add_key(&t[k], rec, bt_record_ints(&f, &v, 0, 1, rec));
		}
	for (int k = 0; k < TREES && rc == BT_OK; k++)
		rc = bt_tree_finish(&t[k]);
	uint32_t spare = f.nspare;
	for (int k = 0; k < TREES; k++)
		bt_tree_free(&t[k]);
	CHECK(rc == BT_OK);
	CHECK(rc == BT_OK && bt_file_commit(&f, err, sizeof err) == BT_OK);
	CHECK(spare > 2 * 120); /* three trunks at least */
	CHECK(sqlite3_open(path, &db) == SQLITE_OK);
	CHECK(integrity_ok(db));
	char want[64];
	snprintf(want, sizeof want, "%u", spare);
	ask(db, "PRAGMA freelist_count", got, sizeof got);
	CHECK_STR(got, want);
	/* tree k holds 0, k+1, 2(k+1) ... */
	snprintf(want, sizeof want, "%d %lld", KEYS, (long long)KEYS * (KEYS - 1) / 2 * 40);
	ask(db, "SELECT count(*) || ' ' || sum(k) FROM t39", got, sizeof got);
	CHECK_STR(got, want);
	/* and SQLite reuses the free pages */
	CHECK(sqlite3_exec(db, "CREATE TABLE more(x); INSERT INTO more SELECT zeroblob(400) FROM t0", NULL, NULL, NULL) ==
	      SQLITE_OK);
	CHECK(integrity_ok(db));
	ask(db, "PRAGMA freelist_count", got, sizeof got);
	CHECK_STR(got, "0");
	sqlite3_close(db);
}

/* SQLite's index order for (key or NULL, rowid), written out: NULLs first,
 * then keys as signed numbers, ties by rowid. */
static int index_order(const void *pa, const void *pb)
{
	const key_row *a = pa, *b = pb;
	if (a->null != b->null)
		return a->null ? -1 : 1;
	if (!a->null && a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return (a->rowid > b->rowid) - (a->rowid < b->rowid);
}

/* key_sort against qsort with that order, on keys of every width: small,
 * negative, sharing all but one byte, the extremes; with and without
 * NULLs; one entry and none. */
TEST(key_sort_is_sqlite_index_order)
{
	static const size_t sizes[] = {0, 1, 2, 17, 1000, 70000};
	for (int shape = 0; shape < 6; shape++) {
		for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
			size_t n = sizes[s];
			key_row *rows = malloc((n + 1) * sizeof *rows), *tmp = malloc((n + 1) * sizeof *tmp);
			key_row *want = malloc((n + 1) * sizeof *want);
			CHECK(rows && tmp && want);
			if (!rows || !tmp || !want) {
				free(rows), free(tmp), free(want);
				return;
			}
			for (size_t k = 0; k < n; k++) {
				uint64_t r = (uint64_t)test_rand_below(1u << 30) << 34 ^ (uint64_t)test_rand_below(1u << 30) << 4 ^
					     test_rand_below(16);
				int64_t key = shape == 0 ? (int64_t)test_rand_below(50)            /* few, repeated */
					    : shape == 1 ? (int64_t)test_rand_below(2000000) - 1000000 /* around zero */
					    : shape == 2 ? (int64_t)(0x123456789a00ll | test_rand_below(256)) /* one byte varies */
					    : shape == 3 ? (test_rand_below(3) == 0 ? INT64_MIN : test_rand_below(2) ? INT64_MAX : -1)
								   : (int64_t)r;           /* every byte */
				uint32_t null = shape == 5 ? test_rand_below(2) : shape >= 1 && shape <= 3 ? test_rand_below(7) == 0 : 0;
				rows[k] = (key_row){null ? 0 : key, (uint32_t)k, null};
				if (null && shape == 5)
					rows[k].key = key; /* a NULL's key is ignored, whatever it holds */
			}
			memcpy(want, rows, n * sizeof *rows);
			qsort(want, n, sizeof *want, index_order);
			key_sort(rows, tmp, n);
			int same = 1;
			for (size_t k = 0; k < n; k++)
				same &= rows[k].rowid == want[k].rowid;
			if (!same)
				printf("    shape %d, %zu entries: not in index order\n", shape, n);
			CHECK(same);
			free(rows), free(tmp), free(want);
		}
	}
}
