/* test_db.c — a database is input too: analysis databases damaged or
 * crafted the ways issue #8 found (a dropped snapshot table, negative and
 * out-of-range ids, slots that lie, a parent that is itself, Outer loops)
 * give one-line errors naming the table, never a crash, a spin or an
 * allocation sized by a stored number; and the database stays linear in
 * the Outer depth.  The databases are written by store_write from small
 * heaps and damaged with SQL here. */
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "sql/db_heap.h"
#include "sql/diff_db.h"
#include "analysis/findings.h"
#include "analysis/query.h"
#include "sql/schema.h"
#include "sql/store.h"
#include "tests/oom_wrap.h"
#include "tests/unit.h"
#include "sql/view_db.h"

/* The chains heap: Target 15 held by Mid1 13 (from RootA 11) and by Mid2 14
 * (from RootB 12); Outsider 17 in another package holds it too. */
#define CHAINS_BODY \
	"o 11 12 4 10 RootA 100 RootSet\no 12 13 4 10 RootB 100 RootSet\no 13 14 4 10 Mid1 100 -\n" \
	"o 14 15 4 10 Mid2 100 -\no 15 16 4 10 Target 100 -\no 16 17 3 - /Game/Other 128 -\n" \
	"o 17 18 4 16 Outsider 100 RootSet\n" \
	"r 11 13 strong ToMid1\nr 13 15 strong Hit\nr 12 14 strong ToMid2\nr 14 15 aro Also\nr 17 15 strong External\n"

static char dir[64];

/* Analyse BODY (after the prelude) into a fresh database at PATH. */
static int make_db(const char *body, const char *name, char *path, size_t cap)
{
	snprintf(path, cap, "%s", test_dir_path(dir, sizeof dir, "/tmp/ugc-test-db-XXXXXX", name));
	if (!dir[0])
		return -1;
	unlink(path);
	heap h;
	gc_result r;
	findings f;
	char perr[512];
	/* a whole snapshot (its own header), or objects after load_heap's */
	if (strncmp(body, "ugc-text", 8) == 0 ? parse_text(body, &h, perr, sizeof perr) : load_heap(body, &h))
		return -1;
	gc_options opt = {.mode = MODE_GAME, .threads = 1};
	int rc = gc_run(&h, &opt, &r);
	if (rc == 0 && (rc = findings_collect(&h, &r, &f)) == 0) {
		char err[512];
		store_info info = {.source = "test.ugct", .opt = &opt};
		rc = store_write(path, 1, &h, &r, &f, &info, err, sizeof err);
		if (rc)
			printf("    store: %s\n", err);
		findings_free(&f);
	}
	if (rc == 0)
		gc_result_free(&r);
	heap_free(&h);
	return rc;
}

/* Run SQL on the database at PATH (read-write). */
static int damage(const char *path, const char *sql)
{
	sqlite3 *db;
	int rc = sqlite3_open(path, &db) == SQLITE_OK && sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK ? 0 : -1;
	if (rc)
		printf("    damage: %s\n", sqlite3_errmsg(db));
	sqlite3_close(db);
	return rc;
}

/* A fresh chains database damaged by SQL, opened: NULL with ERR when it does not open. */
static view *damaged(const char *sql, char *err, size_t cap)
{
	char path[128];
	err[0] = '\0';
	if (make_db(CHAINS_BODY, "chains.db", path, sizeof path) || (sql && damage(path, sql))) {
		snprintf(err, cap, "setup failed");
		return NULL;
	}
	return view_db_open(path, err, cap);
}

static int has(const char *s, const char *part)
{
	int ok = strstr(s, part) != NULL;
	if (!ok)
		printf("    \"%s\" lacks \"%s\"\n", s, part);
	return ok;
}

TEST(db_intact_answers_chains)
{
	char err[512];
	view *v = damaged(NULL, err, sizeof err);
	CHECK(v != NULL);
	if (!v)
		return;
	chains cs = {0};
	CHECK(query_chains(v, 15, 0, SIZE_MAX, 0, 0, &cs) == 0);
	CHECK(cs.n == 3); /* one a root: 17, 11 (via 13), 12 (via 14) */
	chains_free(&cs);
	CHECK(query_shortest(v, 15, &cs) == 0 && cs.n == 1 && cs.v[0].n == 2 && cs.v[0].nodes[0] == 17);
	chains_free(&cs);
	obj_t x;
	CHECK(v->ops->find_path(v, "/Game/Test.Mid2", &x) == 0 && x == 14);
	CHECK(v->ops->find_path(v, "/Game/Test.Mid3", &x) == 0 && x == OBJ_NONE);
	v->ops->close(v);
}

/* Every operation of OPS is set: callers call each one without checking.
 * The assertion below fails when view_ops grows, so the list stays whole. */
static int ops_complete(const view_ops *o)
{
	_Static_assert(sizeof(view_ops) == 17 * sizeof(void (*)(void)), "list every view_ops member here");
	return o && o->object && o->describe && o->state && o->incoming && o->sources && o->outgoing && o->between &&
	       o->eliminated_to && o->cleared_to && o->findings && o->clusters && o->cluster_list && o->find_path &&
	       o->find_glob && o->find_node && o->retained && o->close;
}

/* Both backends fill every operation, and one question gets the same answer from each. */
TEST(view_backends_set_every_operation)
{
	char err[512];
	view *dv = damaged(NULL, err, sizeof err);
	heap *h = malloc(sizeof *h);
	gc_result *r = malloc(sizeof *r);
	int loaded = h && r && load_heap(CHAINS_BODY, h) == 0;
	int ran = loaded && run_gc(h, MODE_GAME, 1, r) == 0;
	view *hv = ran ? view_heap_open(h, r, err, sizeof err) : NULL;
	CHECK(dv != NULL && hv != NULL);
	CHECK(dv && ops_complete(dv->ops));
	CHECK(hv && ops_complete(hv->ops));
	CHECK(!dv || !hv || dv->ops != hv->ops);
	obj_t a = 0, b = 0;
	CHECK(dv && dv->ops->find_path(dv, "/Game/Test.Mid2", &a) == 0 && a == 14);
	CHECK(hv && hv->ops->find_path(hv, "/Game/Test.Mid2", &b) == 0 && b == 14);
	if (dv)
		dv->ops->close(dv);
	if (hv) {
		hv->ops->close(hv); /* frees H and R */
		return;
	}
	if (ran)
		gc_result_free(r);
	if (loaded)
		heap_free(h);
	free(h);
	free(r);
}

/* path --external on a database whose Outer column is damaged: the
 * package test fails with the view's message, not on a made-up package. */
TEST(db_damaged_outer_fails_the_external_search)
{
	char err[512];
	view *v = damaged("UPDATE object_table SET outer = 4000000 WHERE idx = 16", err, sizeof err);
	CHECK(v != NULL);
	if (!v)
		return;
	chains cs = {0};
	CHECK(query_chains(v, 15, CHAINS_ROOTS, SIZE_MAX, 1, 0, &cs) == -1);
	CHECK(strstr(v->err, "outer") != NULL || strstr(v->err, "damaged") != NULL);
	chains_free(&cs);
	v->ops->close(v);
}

/* A borrowed view over a GC result whose ugc-gc(7) §3 was deferred:
 * describe() names an object without computing it; object() computes it
 * on first use, and it is what a direct run gives. */
TEST(view_heap_computes_deferred_retention_on_first_use)
{
	char err[512];
	heap h;
	gc_result direct, later;
	CHECK(load_heap(CHAINS_BODY, &h) == 0);
	gc_options now = {.mode = MODE_GAME, .keep_flags = gc_default_keep_flags(MODE_GAME), .threads = 1};
	gc_options deferred = now;
	deferred.defer_retention = 1;
	CHECK(gc_run(&h, &now, &direct) == 0 && gc_run(&h, &deferred, &later) == 0);
	CHECK(later.distance == NULL);
	view *v = view_heap_borrow(&h, &later, err, sizeof err);
	CHECK(v != NULL);
	if (v) {
		obj_info o;
		CHECK(v->ops->describe(v, 15, &o) == 0);
		CHECK(strcmp(o.path, "/Game/Test.Target") == 0 && strcmp(o.name, "Target") == 0);
		CHECK(o.size == h.size[15] && o.distance == UINT32_MAX && o.parent == OBJ_NONE);
		obj_info_free(&o);
		obj_t x = OBJ_NONE;
		char qerr[256];
		CHECK(query_find(v, "#15", &x) == 0 && x == 15);
		CHECK(query_find(v, "/Game/Test.Target", &x) == 0 && x == 15);
		CHECK(query_select(v, "Actor /Game/Test.Target", &x, qerr, sizeof qerr) == 0 && x == 15);
		CHECK(query_select(v, "/Game/Test.Nothing", &x, qerr, sizeof qerr) == 1);
		CHECK(later.distance == NULL); /* describing and selecting computed nothing */
		CHECK(v->ops->object(v, 15, &o) == 0);
		CHECK(later.distance != NULL);
		CHECK(direct.distance[15] > 0 && direct.distance[15] != UINT32_MAX);
		CHECK(o.distance == direct.distance[15] && o.parent == direct.parent[15]);
		CHECK(o.root_kind == (direct.root_kind[15] == RK_NONE ? RK_NONE : direct.root_kind[15]));
		obj_info_free(&o);
		CHECK(memcmp(later.distance, direct.distance, h.slots * sizeof *direct.distance) == 0);
		CHECK(memcmp(later.parent, direct.parent, h.slots * sizeof *direct.parent) == 0);
		v->ops->close(v);
	}
	gc_result_free(&direct);
	gc_result_free(&later);
	heap_free(&h);
}

/* An allocation failing while the view computes ugc-gc(7) §3 leaves
 * nothing half made: the call fails, and the next one computes it whole. */
TEST(view_heap_deferred_retention_survives_a_failed_allocation)
{
	char err[512];
	heap h;
	gc_result direct;
	CHECK(load_heap(CHAINS_BODY, &h) == 0);
	gc_options now = {.mode = MODE_GAME, .keep_flags = gc_default_keep_flags(MODE_GAME), .threads = 1};
	gc_options deferred = now;
	deferred.defer_retention = 1;
	CHECK(gc_run(&h, &now, &direct) == 0);
	int failed = 0;
	for (long k = 1; k <= 6; k++) {
		gc_result later;
		CHECK(gc_run(&h, &deferred, &later) == 0);
		view *v = view_heap_borrow(&h, &later, err, sizeof err);
		CHECK(v != NULL);
		if (!v) {
			gc_result_free(&later);
			continue;
		}
		obj_info o;
		oom_count = 0;
		oom_fail_at = k;
		int rc = v->ops->object(v, 15, &o);
		oom_fail_at = 0;
		failed += rc != 0;
		if (rc == 0)
			obj_info_free(&o);
		CHECK(v->ops->object(v, 15, &o) == 0);
		CHECK(o.distance == direct.distance[15] && o.parent == direct.parent[15]);
		obj_info_free(&o);
		v->ops->close(v);
		gc_result_free(&later);
	}
	CHECK(failed >= 5); /* each of gc_retention's five allocations failed */
	gc_result_free(&direct);
	heap_free(&h);
}

/* Issue #8.1: DROP TABLE snapshot made slots 0 and path --roots wrote out of bounds. */
TEST(db_without_snapshot_table_is_refused)
{
	char err[512];
	view *v = damaged("DROP TABLE snapshot", err, sizeof err);
	CHECK(v == NULL && has(err, "snapshot"));
	if (v)
		v->ops->close(v);
}

TEST(db_negative_and_huge_ids_are_errors)
{
	static const char *const sql[] = {
		"UPDATE object_table SET parent = -5 WHERE idx = 13",
		"UPDATE object_table SET class = 2147483647 WHERE idx = 14",
		"UPDATE ref_table SET src = -7 WHERE dst = 15 AND src = 13",
		"UPDATE ref_table SET src = 9999999 WHERE dst = 15 AND src = 13",
		"UPDATE object_table SET distance = 2000000000 WHERE idx = 13",
	};
	for (size_t k = 0; k < sizeof sql / sizeof sql[0]; k++) {
		char err[512];
		view *v = damaged(sql[k], err, sizeof err);
		CHECK(v != NULL);
		if (!v)
			continue;
		chains roots = {0}, all = {0};
		int a = query_chains(v, 15, 0, SIZE_MAX, 0, 0, &roots), b = query_chains(v, 15, 1, 100, 0, 0, &all);
		CHECK(a == -1 && b == -1);
		CHECK(has(v->err, "chains.db: ") && strchr(v->err, '\n') == NULL);
		chains_free(&roots);
		chains_free(&all);
		v->ops->close(v);
	}
}

/* A finding kind, cluster state or reason the tool does not know is a
 * damaged database (the commands print them unquoted into JSON and CSV). */
TEST(db_unknown_finding_kinds_and_cluster_states_are_errors)
{
	static const char *const body = "o 11 1 4 10 R 1 -\no 12 1 4 10 M 1 -\nr 10 11 strong P\nc 11 12 - -\n";
	static const char *const sql[] = {
		"INSERT INTO findings VALUES('x\"y', 11, NULL, 'd', NULL)",
		"UPDATE clusters SET state = 'alive\"' WHERE root = 11",
		"UPDATE clusters SET reason = 'alive' WHERE root = 11",
	};
	for (size_t k = 0; k < sizeof sql / sizeof sql[0]; k++) {
		char path[128], err[512];
		CHECK(make_db(body, "kinds.db", path, sizeof path) == 0 && damage(path, sql[k]) == 0);
		view *v = view_db_open(path, err, sizeof err);
		CHECK(v != NULL);
		if (!v)
			continue;
		finding_rows fs = {0};
		cluster_rows cs = {0};
		int rc = k == 0 ? v->ops->findings(v, OBJ_NONE, &fs) : v->ops->clusters(v, OBJ_NONE, 1, &cs);
		CHECK(rc == -1 && has(v->err, "kinds.db: table ") && has(v->err, "(a damaged database)"));
		free(fs.v);
		free(cs.v);
		v->ops->close(v);
	}
	/* intact: the same calls answer */
	char path[128], err[512];
	CHECK(make_db(body, "kinds.db", path, sizeof path) == 0);
	view *v = view_db_open(path, err, sizeof err);
	CHECK(v != NULL);
	if (v) {
		cluster_rows cs = {0};
		CHECK(v->ops->clusters(v, OBJ_NONE, 1, &cs) == 0 && cs.n == 1 && strcmp(cs.v[0].state, "alive") == 0);
		free(cs.v);
		v->ops->close(v);
	}
}

/* refs on a damaged database: a reference whose source is no object is an
 * error (exit 1), not an FGCObject with an empty name and exit 0. */
TEST(db_refs_of_a_reference_from_no_object_is_an_error)
{
	char path[128];
	CHECK(make_db(CHAINS_BODY, "refs.db", path, sizeof path) == 0);
	CHECK(damage(path, "UPDATE ref_table SET src = 7 WHERE dst = 15 AND src = 13") == 0); /* slot 7 is free */
	char *argv[] = {"refs", path, "15", "--format", "csv", NULL};
	fflush(stdout);
	CHECK(cmd_refs(5, argv) == 1);
	printf("\n");
}

/* Issue #8.1 and #8.5: slots is checked against the rows. */
TEST(db_slots_that_lie_are_refused)
{
	char err[512];
	view *v = damaged("UPDATE snapshot SET value = 12 WHERE key = 'slots'", err, sizeof err);
	CHECK(v == NULL && has(err, "object_table") && has(err, "slots"));
	v = damaged("UPDATE snapshot SET value = 4294967295 WHERE key = 'slots'", err, sizeof err);
	CHECK(v == NULL && has(err, "snapshot: slots"));
	v = damaged("UPDATE snapshot SET value = 'many' WHERE key = 'slots'", err, sizeof err);
	CHECK(v == NULL && has(err, "snapshot: slots"));
	v = damaged("DELETE FROM snapshot WHERE key = 'slots'", err, sizeof err);
	CHECK(v == NULL && has(err, "snapshot: slots"));
	/* Issue #29.2: more slots than a snapshot of its 13 objects can have
	 * (13 * 16 + 2^24 = 16777424) is no database analyze writes */
	v = damaged("UPDATE snapshot SET value = 2147483647 WHERE key = 'slots'", err, sizeof err);
	CHECK(v == NULL && has(err, "table snapshot: slots is 2147483647, more than a snapshot of the 13 objects") &&
	      has(err, "at most 16777424"));
	v = damaged("UPDATE snapshot SET value = 16777425 WHERE key = 'slots'", err, sizeof err);
	CHECK(v == NULL && has(err, "at most 16777424"));
	/* free slots at the end, as many as a binary snapshot may have: the
	 * view's slots are those up to the last object, 17 + 1 */
	v = damaged("UPDATE snapshot SET value = 16777424 WHERE key = 'slots'", err, sizeof err);
	CHECK(v != NULL && v->slots == 18);
	if (v) {
		chains cs = {0};
		CHECK(query_chains(v, 15, 0, SIZE_MAX, 0, 0, &cs) == 0 && cs.n == 3);
		chains_free(&cs);
		v->ops->close(v);
	}
}

/* Issue #8.6: a hop cost two 512-byte buffers (1 GB for a 1M-hop chain);
 * now its strings are pointers into the view's pool. */
TEST(db_a_hop_is_small)
{
	CHECK(sizeof(edge) <= 40);
	char err[512];
	view *v = damaged(NULL, err, sizeof err);
	CHECK(v != NULL);
	if (!v)
		return;
	edges a = {0}, b = {0};
	CHECK(v->ops->incoming(v, 15, &a) == 0 && v->ops->incoming(v, 15, &b) == 0 && a.n == 3 && b.n == 3);
	if (a.n == 3 && b.n == 3) /* one copy of each name, however many edges carry it */
		CHECK(a.v[0].prop == b.v[0].prop && strcmp(a.v[0].prop, "Hit") == 0);
	edges_free(&a);
	edges_free(&b);
	v->ops->close(v);
}

/* Issue #8.6: a parent that is itself made path spin. */
TEST(db_parent_loops_are_errors)
{
	char err[512];
	view *v = damaged("UPDATE object_table SET parent = idx, distance = 4 WHERE idx = 15", err, sizeof err);
	CHECK(v != NULL);
	if (!v)
		return;
	chains cs = {0};
	CHECK(query_shortest(v, 15, &cs) == -1 && has(v->err, "not one hop nearer a root"));
	chains_free(&cs);
	v->ops->close(v);
	v = damaged("UPDATE object_table SET parent = 14 WHERE idx = 13; UPDATE object_table SET parent = 13, distance = 2 "
		    "WHERE idx = 14", err, sizeof err);
	CHECK(v != NULL);
	if (v) {
		CHECK(query_shortest(v, 15, &cs) == -1 || (cs.n == 1 && cs.v[0].n <= 3));
		chains_free(&cs);
		v->ops->close(v);
	}
}

/* Found by fuzz_db (in CI): a reachable object that nothing reachable
 * references sorted an empty referencer list at a null pointer (clang's
 * UBSan reports the offset).  The search finds no chain, and no error. */
TEST(db_reachable_object_without_reachable_referencers_has_no_chains)
{
	char err[512];
	view *v = damaged("UPDATE object_table SET reachable = 0, distance = NULL, root_kind = NULL WHERE idx = 11",
			  err, sizeof err);
	CHECK(v != NULL);
	if (!v)
		return;
	chains cs = {0};
	CHECK(query_chains(v, 13, CHAINS_ALL, SIZE_MAX, 0, 0, &cs) == 0 && cs.n == 0);
	chains_free(&cs);
	CHECK(query_chains(v, 15, CHAINS_ALL, SIZE_MAX, 0, 0, &cs) == 0 && cs.n == 2); /* 17, and 12 via 14 */
	chains_free(&cs);
	v->ops->close(v);
}

/* Found by fuzz_db: a reachable object without a root kind indexed the kind names with 255. */
TEST(db_reachable_needs_a_root_kind)
{
	char err[512];
	view *v = damaged("UPDATE object_table SET root_kind = NULL WHERE idx = 13", err, sizeof err);
	CHECK(v != NULL);
	if (!v)
		return;
	obj_info o;
	obj_state st;
	CHECK(v->ops->object(v, 13, &o) == -1 && has(v->err, "root_kind"));
	CHECK(v->ops->state(v, 13, &st) == -1);
	CHECK(v->ops->object(v, 15, &o) == 0);
	obj_info_free(&o);
	v->ops->close(v);
	v = damaged("UPDATE object_table SET root_kind = 'sunshine' WHERE idx = 15", err, sizeof err);
	CHECK(v != NULL && v->ops->object(v, 15, &o) == -1 && has(v->err, "sunshine"));
	if (v)
		v->ops->close(v);
}

TEST(db_outer_loops_are_errors)
{
	char err[512];
	view *v = damaged("UPDATE object_table SET outer = 15 WHERE idx = 10", err, sizeof err);
	CHECK(v != NULL);
	if (!v)
		return;
	obj_info o;
	CHECK(v->ops->object(v, 14, &o) == -1 && has(v->err, "Outer chain") && has(v->err, "loops"));
	chains cs = {0};
	CHECK(query_chains(v, 15, 0, SIZE_MAX, 1, 0, &cs) <= 0); /* --external ends */
	chains_free(&cs);
	v->ops->close(v);
}

TEST(db_foreign_database_names_the_table)
{
	char path[128], err[512];
	if (!dir[0])
		make_db(CHAINS_BODY, "chains.db", path, sizeof path);
	snprintf(path, sizeof path, "%s/foreign.db", dir);
	unlink(path);
	CHECK(damage(path, "CREATE TABLE snapshot(key, value); CREATE TABLE x(a)") == 0);
	view *v = view_db_open(path, err, sizeof err);
	CHECK(v == NULL && has(err, "table snapshot") && has(err, "not an analysis database") && strchr(err, '\n') == NULL);
	diff_side s;
	CHECK(diff_side_from_db(path, &s, err, sizeof err) == -1 && has(err, "table"));
}

/* Issue #13.7: a database of another schema version is refused by every
 * reader, with a message that says which version it has and which this
 * build reads; one of this version opens. */
TEST(db_other_schema_versions_are_refused)
{
	char path[128], err[512], want[64];
	snprintf(want, sizeof want, "reads schema version %d only", SCHEMA_VERSION);
	static const char *const versions[] = {"4", "999"};
	for (int k = 0; k < 2; k++) {
		char sql[128], got[32];
		CHECK(make_db(CHAINS_BODY, "version.db", path, sizeof path) == 0);
		view *v = view_db_open(path, err, sizeof err);
		CHECK(v != NULL);
		if (v)
			v->ops->close(v);
		snprintf(sql, sizeof sql, "UPDATE snapshot SET value = %s WHERE key = 'schema_version'", versions[k]);
		CHECK(damage(path, sql) == 0);
		snprintf(got, sizeof got, "schema_version %s:", versions[k]);
		v = view_db_open(path, err, sizeof err);
		CHECK(v == NULL && has(err, got) && has(err, want) && has(err, k ? "a newer" : "an older"));
		diff_side s;
		CHECK(diff_side_from_db(path, &s, err, sizeof err) == -1 && has(err, got) && has(err, want));
		heap h;
		gc_options opt;
		CHECK(db_heap_load(path, &h, &opt, err, sizeof err) == -1 && has(err, got) && has(err, want));
		heap_free(&h);
		char *argv[] = {"sql", path, "SELECT 1", NULL}; /* sql refuses it too (the error on stderr) */
		CHECK(cmd_sql(3, argv) == 1);
	}
}

/* Issue #8.5: diff allocated by the stored slots (500M: 2 GB). */
TEST(db_diff_memory_follows_the_rows)
{
	char path[128], err[512];
	CHECK(make_db(CHAINS_BODY, "diff.db", path, sizeof path) == 0);
	CHECK(damage(path, "UPDATE snapshot SET value = 16000000 WHERE key = 'slots'") == 0);
	diff_side s;
	CHECK(diff_side_from_db(path, &s, err, sizeof err) == 0);
	CHECK(s.n == 13 && s.slots == 18); /* indexed up to the last row, not the stored slots */
	CHECK(diff_find(&s, 15) >= 0 && diff_find(&s, 15000000) == -1);
	diff_side_free(&s);
	/* Issue #29.2: more than 13 objects' 13 * 16 + 2^24 slots is refused */
	CHECK(damage(path, "UPDATE snapshot SET value = 500000000 WHERE key = 'slots'") == 0);
	CHECK(diff_side_from_db(path, &s, err, sizeof err) == -1 && has(err, "at most 16777424"));
	CHECK(damage(path, "UPDATE snapshot SET value = 4294967295 WHERE key = 'slots'") == 0);
	CHECK(diff_side_from_db(path, &s, err, sizeof err) == -1 && has(err, "snapshot: slots"));
	CHECK(damage(path, "UPDATE snapshot SET value = 18 WHERE key = 'slots';"
			   "UPDATE object_table SET parent = idx, distance = 3 WHERE idx = 15") == 0);
	CHECK(diff_side_from_db(path, &s, err, sizeof err) == -1 && has(err, "parent"));
	CHECK(damage(path, "UPDATE object_table SET parent = 13, distance = 2 WHERE idx = 15;"
			   "UPDATE object_table SET outer = 14 WHERE idx = 10") == 0);
	CHECK(diff_side_from_db(path, &s, err, sizeof err) == -1 && has(err, "Outer chain loops"));
	/* a sparse database (14 objects, the last at 16,000,000: as sparse as
	 * a snapshot may be) is searched, not indexed by slot */
	CHECK(damage(path, "UPDATE object_table SET outer = NULL WHERE idx = 10;"
			   "UPDATE snapshot SET value = 16000001 WHERE key = 'slots';"
			   "INSERT INTO object_table(idx, serial, class, outer, name, class_name, size, flags, garbage, reachable,"
			   " path_hash) SELECT 16000000, serial, class, 10, 'Far', class_name, size, flags, 0, 0, 0"
			   " FROM object_table WHERE idx = 15") == 0);
	CHECK(diff_side_from_db(path, &s, err, sizeof err) == 0);
	CHECK(s.by_idx == NULL && diff_find(&s, 16000000) == 13 && diff_find(&s, 15) == 10); /* positions: 0-4, 10, 11-17, the far one */
	diff_side_free(&s);
}

/* Issue #8.4: a 10,000-deep Outer chain gave a 948 MB database (every path stored whole). */
TEST(db_size_is_linear_in_outer_depth)
{
	size_t cap = 10000 * 48 + 64, n = 0;
	char *body = malloc(cap), path[128];
	obj_t prev = 10;
	for (int k = 0; k < 10000; k++) {
		n += (size_t)snprintf(body + n, cap - n, "o %d %d 4 %d Level_%d 100 -\n", 20 + k, 21 + k, prev, k);
		prev = 20 + k;
	}
	CHECK(make_db(body, "deep.db", path, sizeof path) == 0);
	free(body);
	FILE *f = fopen(path, "rb");
	long size = -1;
	if (f && fseek(f, 0, SEEK_END) == 0)
		size = ftell(f);
	if (f)
		fclose(f);
	CHECK(size > 0 && size < 8 * 1024 * 1024); /* quadratic would be ~500 MB */
	char err[512];
	view *v = view_db_open(path, err, sizeof err);
	CHECK(v != NULL);
	if (!v)
		return;
	obj_info o;
	CHECK(v->ops->object(v, 10019, &o) == 0);
	/* "/Game/Test.Level_0:Level_1.Level_2..." : 10 + 1 + 7 + 1 + 7 then 9990 more segments */
	size_t want = strlen("/Game/Test");
	for (int k = 0; k < 10000; k++)
		want += 1 + strlen("Level_") + (size_t)snprintf(NULL, 0, "%d", k);
	CHECK(o.path && strlen(o.path) == want && strncmp(o.path, "/Game/Test.Level_0:Level_1.Level_2", 34) == 0);
	obj_t x = OBJ_NONE;
	CHECK(o.path && v->ops->find_path(v, o.path, &x) == 0 && x == 10019);
	obj_info_free(&o);
	v->ops->close(v);
	/* the objects view builds the same path in SQL */
	sqlite3 *db;
	sqlite3_stmt *st = NULL;
	CHECK(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
	      sqlite3_prepare_v2(db, "SELECT length(path), substr(path, 1, 26) FROM objects WHERE idx = 10019", -1, &st,
				 NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW);
	CHECK((size_t)sqlite3_column_int64(st, 0) == want);
	CHECK_STR((const char *)sqlite3_column_text(st, 1), "/Game/Test.Level_0:Level_1");
	sqlite3_finalize(st);
	sqlite3_close(db);
}

/* objects.node_id (schema 5): a V8 heap's ids as its names end in them,
 * found by find_node through the index; a value that says something else
 * than the name (or any value on a heap that is not V8's) is a damaged
 * database for the view and for the heap rebuilt from it. */
#define V8_BODY \
	"ugc-text 1\nengine v8\nfirst-gc-index 3\no 0 0 1 - /V8 0 -\no 1 0 2 0 Package 0 -\no 2 0 2 0 Foo 0 -\n" \
	"o 3 0 2 0 @1 0 RootSet\no 4 0 2 0 Foo@3 8 -\no 5 0 2 0 Big@3000000000 8 -\nr 3 4 strong a\nr 4 5 strong b\n"

TEST(db_node_ids_are_stored_found_and_checked)
{
	char path[128], err[512];
	CHECK(make_db(V8_BODY, "v8.db", path, sizeof path) == 0);
	view *v = view_db_open(path, err, sizeof err);
	CHECK(v != NULL && v->v8);
	if (v) {
		static const long long ids[] = {-1, -1, -1, 1, 3, 3000000000LL};
		for (obj_t i = 0; i < 6; i++) {
			obj_info o;
			obj_state s;
			CHECK(v->ops->object(v, i, &o) == 0 && o.node_id == ids[i] && o.v8);
			obj_info_free(&o);
			CHECK(v->ops->state(v, i, &s) == 0 && s.node_id == ids[i]);
		}
		obj_t x;
		size_t n;
		CHECK(v->ops->find_node(v, 3, &x, &n) == 0 && x == 4 && n == 1);
		CHECK(v->ops->find_node(v, 3000000000LL, &x, &n) == 0 && x == 5 && n == 1);
		CHECK(v->ops->find_node(v, 2, &x, &n) == 0 && x == OBJ_NONE && n == 0);
		CHECK(query_select(v, "3", &x, err, sizeof err) == 1); /* #3 is @1, @3 is #4 */
		CHECK(has(err, "#3 is Foo /V8.@1 and @3 is Foo /V8.Foo@3: write #3 or @3"));
		v->ops->close(v);
	}
	heap h;
	gc_options opt;
	CHECK(db_heap_load(path, &h, &opt, err, sizeof err) == 0 && heap_node_id(&h, 4) == 3 &&
	      heap_node_id(&h, 5) == 3000000000LL && heap_node_id(&h, 2) == -1);
	heap_free(&h);
	/* lies: another id, an id on the pool, a text, NULL where the name has one */
	static const char *const sql[] = {
		"UPDATE object_table SET node_id = 99 WHERE idx = 4", "UPDATE object_table SET node_id = 0 WHERE idx = 2",
		"UPDATE object_table SET node_id = '3x' WHERE idx = 4", "UPDATE object_table SET node_id = NULL WHERE idx = 4",
		"UPDATE object_table SET node_id = -1 WHERE idx = 4",
	};
	static const obj_t at[] = {4, 2, 4, 4, 4};
	for (size_t k = 0; k < sizeof sql / sizeof sql[0]; k++) {
		CHECK(make_db(V8_BODY, "v8.db", path, sizeof path) == 0 && damage(path, sql[k]) == 0);
		v = view_db_open(path, err, sizeof err);
		CHECK(v != NULL);
		if (!v)
			continue;
		obj_info o;
		obj_state s;
		char want[64];
		snprintf(want, sizeof want, "object_table: object %d has node_id ", at[k]);
		CHECK(v->ops->object(v, at[k], &o) == -1 && has(v->err, want));
		CHECK(v->ops->state(v, at[k], &s) == -1 && has(v->err, want));
		v->ops->close(v);
		snprintf(want, sizeof want, "object %d: node_id is not ", at[k]);
		int rc = db_heap_load(path, &h, &opt, err, sizeof err);
		if (rc != -1 || !has(err, want))
			printf("    %s: %d %s\n", sql[k], rc, err);
		CHECK(rc == -1 && has(err, want));
	}
	/* a UE heap: every node_id NULL; one set is refused */
	CHECK(make_db(CHAINS_BODY, "ue.db", path, sizeof path) == 0 &&
	      damage(path, "UPDATE object_table SET node_id = 15 WHERE idx = 15") == 0);
	v = view_db_open(path, err, sizeof err);
	CHECK(v != NULL && !v->v8);
	if (v) {
		obj_info o;
		CHECK(v->ops->object(v, 15, &o) == -1 && has(v->err, "object 15 has node_id 15, not NULL (not a V8 heap)"));
		obj_t x;
		size_t n;
		CHECK(v->ops->find_node(v, 15, &x, &n) == -1); /* the row found is checked too */
		v->ops->close(v);
	}
	CHECK(db_heap_load(path, &h, &opt, err, sizeof err) == -1 && has(err, "object 15: node_id is not NULL"));
}
