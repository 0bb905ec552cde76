/* test_paths.c — one hash and one path rule: base/hash.h gives the FNV-1a
 * values that databases and .ugcs files store, and every place that writes
 * or hashes a path (heap_path, the stored path hashes, a database view's
 * paths and path lookups, diff's full names, and the objects view's SQL in
 * sql/schema.h) agrees byte for byte on a heap with every case of the
 * separator rule (path_separator, snapshot/heap.h). */
#include <sqlite3.h>
#include <stdlib.h>
#include <unistd.h>

#include "analysis/analysis.h"
#include "base/base.h"
#include "sql/path_hash.h"
#include "sql/sql.h"
#include "tests/unit.h"

TEST(hash_fnv1a_has_the_published_values)
{
	/* the FNV-1a 64 test vectors: any change here breaks stored data */
	CHECK(fnv1a("", 0) == 0xcbf29ce484222325ull);
	CHECK(fnv1a("a", 1) == 0xaf63dc4c8601ec8cull);
	CHECK(fnv1a("foobar", 6) == 0x85944171f73967e8ull);
	CHECK(fnv1a_add(fnv1a("foo", 3), "bar", 3) == fnv1a("foobar", 6));
}

TEST(path_separator_rule)
{
	/* outer is a package: '.'; outer not a package, its outer one: ':' */
	CHECK(path_separator(1, 0) == '.');
	CHECK(path_separator(1, 1) == '.');
	CHECK(path_separator(0, 1) == ':');
	CHECK(path_separator(0, 0) == '.');
}

/* Every case of the rule, after the prelude (package /Game/Test is 10,
 * class Package is 3): X's Outer a package with no Outer (11), a
 * non-package whose Outer is a package (12: ':'), a non-package under a
 * non-package (13, 21), a package inside a package (14) and an object in it
 * (15), an Outer chain with no package at all (16, 17), and a class named
 * like Package but numbered (6, "Package_1"), which is no package (18-20). */
#define PATHS_BODY \
	"o 5 6 2 0 Thing 100 Native\no 6 7 2 0 Package_1 100 Native\n" \
	"o 11 12 5 10 Asset 100 -\no 12 13 5 11 Sub 100 -\no 13 14 5 12 Deeper 100 -\n" \
	"o 14 15 3 10 /Game/Test/Inner 100 -\no 15 16 5 14 InInner 100 -\n" \
	"o 16 17 5 - Loose 100 RootSet\no 17 18 5 16 Child 100 -\n" \
	"o 18 19 6 - FakePkg 100 RootSet\no 19 20 5 18 UnderFake 100 -\no 20 21 5 19 Below 100 -\n" \
	"o 21 22 5 12 Sub_3 100 -\n" \
	"r 10 11 strong A\nr 10 14 strong B\n"

static const struct {
	obj_t idx;
	const char *path;
} want_paths[] = {
	{10, "/Game/Test"},
	{11, "/Game/Test.Asset"},
	{12, "/Game/Test.Asset:Sub"},
	{13, "/Game/Test.Asset:Sub.Deeper"},
	{14, "/Game/Test./Game/Test/Inner"},
	{15, "/Game/Test./Game/Test/Inner.InInner"},
	{16, "Loose"},
	{17, "Loose.Child"},
	{18, "FakePkg"},
	{19, "FakePkg.UnderFake"},
	{20, "FakePkg.UnderFake.Below"},
	{21, "/Game/Test.Asset:Sub.Sub_3"},
	{5, "/Script/CoreUObject.Thing"},
};
#define NPATHS (sizeof want_paths / sizeof want_paths[0])

static char db_dir[64];

TEST(paths_agree_everywhere)
{
	heap h;
	gc_result r;
	findings f;
	if (load_heap(PATHS_BODY, &h)) {
		CHECK(!"the heap loads");
		return;
	}
	gc_options opt = {.mode = MODE_GAME, .threads = 1};
	CHECK(gc_run(&h, &opt, &r) == 0);
	CHECK(findings_collect(&h, &r, &f) == 0);
	/* heap_path, the model's own */
	for (size_t k = 0; k < NPATHS; k++) {
		char *p = heap_path(&h, want_paths[k].idx);
		CHECK(p != NULL);
		if (p)
			CHECK_STR(p, want_paths[k].path);
		free(p);
	}
	/* the stored hashes are FNV-1a of those paths */
	uint64_t *hashes = NULL;
	CHECK(path_hash_heap(&h, &hashes) == 0);
	for (uint32_t i = 0; hashes && i < h.slots; i++) {
		if (h.cls[i] == OBJ_FREE)
			continue;
		char *p = heap_path(&h, (obj_t)i);
		CHECK(p && hashes[i] == fnv1a(p, strlen(p)));
		free(p);
	}
	free(hashes);
	/* diff's full names */
	diff_side s;
	CHECK(diff_side_from_heap(&h, &r, &f, &s) == 0);
	for (uint32_t k = 0; k < s.n; k++) {
		char *a = diff_full_name(&s, k), *b = heap_full_name(&h, s.v[k].idx);
		CHECK(a && b);
		if (a && b)
			CHECK_STR(a, b);
		free(a);
		free(b);
	}
	diff_side_free(&s);
	/* a database: its view's paths and path lookups, and the objects view's SQL */
	char path[256], err[512];
	snprintf(path, sizeof path, "%s", test_dir_path(db_dir, sizeof db_dir, "/tmp/ugc-test-paths-XXXXXX", "paths.db"));
	store_info info = {.source = "paths.ugct", .opt = &opt};
	int stored = store_write(path, 1, &h, &r, &f, &info, err, sizeof err);
	CHECK(stored == 0);
	findings_free(&f);
	gc_result_free(&r);
	view *v = stored ? NULL : view_db_open(path, err, sizeof err);
	CHECK(v != NULL);
	for (size_t k = 0; v && k < NPATHS; k++) {
		obj_info o;
		obj_t x = OBJ_NONE;
		CHECK(v->ops->object(v, want_paths[k].idx, &o) == 0);
		CHECK(o.path != NULL);
		if (o.path)
			CHECK_STR(o.path, want_paths[k].path);
		obj_info_free(&o);
		CHECK(v->ops->find_path(v, want_paths[k].path, &x) == 0 && x == want_paths[k].idx);
	}
	if (v)
		v->ops->close(v);
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	CHECK(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
	      sqlite3_prepare_v2(db, "SELECT idx, path FROM objects ORDER BY idx", -1, &st, NULL) == SQLITE_OK);
	uint32_t rows = 0;
	while (st && sqlite3_step(st) == SQLITE_ROW) {
		obj_t i = (obj_t)sqlite3_column_int64(st, 0);
		char *p = heap_path(&h, i);
		const char *sql = (const char *)sqlite3_column_text(st, 1);
		CHECK(p && sql);
		if (p && sql)
			CHECK_STR(sql, p);
		free(p);
		rows++;
	}
	CHECK(rows == h.objects);
	sqlite3_finalize(st);
	sqlite3_close(db);
	heap_free(&h);
	unlink(path);
	rmdir(db_dir);
}
