/* test_db_heap.c — a database written by analyze gives its heap back
 * exactly (every column, reference, record, cluster list and string id),
 * so whatif answers the same from either; and a damaged database gives a
 * one-line error naming the table. */
#include <sqlite3.h>
#include <stdlib.h>
#include <unistd.h>

#include "sql/db_heap.h"
#include "analysis/findings.h"
#include "tools/gen/gen.h"
#include "sql/store.h"
#include "tests/unit.h"
#include "analysis/whatif.h"

static char dir[64];

/* Analyse H in MODE into a fresh database NAME; its path into PATH. */
static int store(heap *h, int mode, const char *name, char *path, size_t cap)
{
	snprintf(path, cap, "%s", test_dir_path(dir, sizeof dir, "/tmp/ugc-test-dbheap-XXXXXX", name));
	if (!dir[0])
		return -1;
	unlink(path);
	gc_options opt = {.mode = mode, .keep_flags = gc_default_keep_flags(mode), .threads = 1};
	gc_result r;
	findings f;
	int rc = gc_run(h, &opt, &r);
	if (rc == 0 && (rc = findings_collect(h, &r, &f)) == 0) {
		char err[512];
		store_info info = {.source = "test", .opt = &opt};
		rc = store_write(path, 1, h, &r, &f, &info, err, sizeof err);
		if (rc)
			printf("    store: %s\n", err);
		findings_free(&f);
	}
	if (rc == 0)
		gc_result_free(&r);
	return rc;
}

#define SAME(col, n) (memcmp(a->col, b->col, (size_t)(n) * sizeof *a->col) == 0)

/* Every part of the model the loaders fill, compared. */
static int same_heap(const heap *a, const heap *b)
{
	int ok = a->slots == b->slots && a->objects == b->objects && a->first_gc_index == b->first_gc_index &&
		 a->mode == b->mode && a->engine == b->engine && a->label == b->label && a->nrefs == b->nrefs &&
		 a->ndangling == b->ndangling && a->ngcrefs == b->ngcrefs && a->nclusters == b->nclusters &&
		 a->ncluster_items == b->ncluster_items && a->strings.count == b->strings.count &&
		 a->strings.arena_len == b->strings.arena_len;
	if (!ok)
		return 0;
	ok = SAME(serial, a->slots) && SAME(cls, a->slots) && SAME(outer, a->slots) && SAME(name, a->slots) &&
	     SAME(name_num, a->slots) && SAME(size, a->slots) && SAME(oflags, a->slots) && SAME(iflags, a->slots) &&
	     SAME(traits, a->slots) && SAME(in_cluster, a->slots) && SAME(ref_start, a->slots + 1) &&
	     SAME(ref_dst, a->nrefs) && SAME(ref_prop, a->nrefs) && SAME(ref_kind, a->nrefs) &&
	     SAME(cluster_items, a->ncluster_items) && SAME(refby_start, a->nclusters + 1) &&
	     memcmp(a->strings.arena, b->strings.arena, a->strings.arena_len) == 0;
	for (uint32_t k = 0; ok && k < a->ndangling; k++)
		ok = a->dangling[k].src == b->dangling[k].src && a->dangling[k].dst == b->dangling[k].dst &&
		     a->dangling[k].prop == b->dangling[k].prop && a->dangling[k].kind == b->dangling[k].kind;
	for (uint32_t k = 0; ok && k < a->ngcrefs; k++)
		ok = a->gcrefs[k].referencer == b->gcrefs[k].referencer && a->gcrefs[k].dst == b->gcrefs[k].dst &&
		     a->gcrefs[k].prop == b->gcrefs[k].prop;
	for (uint32_t c = 0; ok && c < a->nclusters; c++)
		ok = memcmp(&a->clusters[c], &b->clusters[c], sizeof a->clusters[c]) == 0;
	return ok;
}

/* H through a database and back: the same heap and analysis options, and
 * the same whatif answer for a cut of CUT. */
static void round_trip(heap *h, int mode, const char *name, obj_t cut)
{
	char path[128], err[512];
	CHECK(store(h, mode, name, path, sizeof path) == 0);
	heap back;
	gc_options opt = {.mode = MODE_GAME, .keep_flags = 12345, .threads = 1};
	int rc = db_heap_load(path, &back, &opt, err, sizeof err);
	if (rc)
		printf("    %s: %s\n", name, err);
	CHECK(rc == 0);
	if (rc)
		return;
	CHECK(same_heap(h, &back));
	CHECK(opt.mode == mode && opt.keep_flags == gc_default_keep_flags(mode));
	gc_result r1, r2;
	whatif_result w1, w2;
	whatif_change c = {WI_CUT, cut, 0, 0};
	CHECK(gc_run(h, &opt, &r1) == 0 && gc_run(&back, &opt, &r2) == 0);
	CHECK(whatif_run(h, &r1, &opt, &c, 1, &w1) == 0 && whatif_run(&back, &r2, &opt, &c, 1, &w2) == 0);
	CHECK(w1.nlost == w2.nlost && (!w1.nlost || memcmp(w1.lost, w2.lost, w1.nlost * sizeof *w1.lost) == 0));
	whatif_free(&w1);
	whatif_free(&w2);
	gc_result_free(&r1);
	gc_result_free(&r2);
	heap_free(&back);
}

TEST(db_heap_gives_back_the_heap_exactly)
{
	/* clusters out of root order (the pre-pass follows the snapshot's),
	 * dangling and FGCObject records, flags of every set, an engine and a label */
	const char *text = "ugc-text 1\nengine 5.5.4\nlabel a%20label\nfirst-gc-index 5\n"
		"o 0 1 2 - /Script/CoreUObject 64 Native\no 1 2 2 0 Object 256 Native\n"
		"o 2 3 2 0 Class 512 Native\no 3 4 2 0 Package 256 Native\no 4 5 2 0 Actor 900 Native\n"
		"o 10 11 3 - /Game/Test 128 RootSet,RF_Public\no 11 7 4 10 A_3 10 RF_Standalone,NotReadyForFinishDestroy\n"
		"o 12 0 4 11 B 20 Garbage,RF_MirroredGarbage\no 13 9 4 10 C_01 30 GameThreadDestroy\no 20 1 4 10 R2 1 -\n"
		"o 21 1 4 20 M2 1 -\no 30 1 4 10 R1 1 RefCounted\no 31 1 4 30 M1 1 -\no 32 1 4 10 V@5 1 -\no 33 1 4 10 @7 1 -\n"
		"r 10 11 strong P\nr 11 12 weak\nr 11 99 strong Dangles\nr 13 12 immutable I\nr 11 13 soft S\nr 10 20 aro\n"
		"g FOne 11 X\ng FTwo 77\ng FOne 13\nc 30 31 20 20\nc 20 21 12 -\n";
	heap h;
	char err[256];
	CHECK(parse_text(text, &h, err, sizeof err) == 0);
	round_trip(&h, MODE_GAME, "hand.db", 11);
	round_trip(&h, MODE_EDITOR, "hand-editor.db", 20);
	heap_free(&h);
	gen_options go = {3000, 5, MODE_EDITOR, 20};
	CHECK(gen_heap(&go, &h, err, sizeof err) == 0);
	round_trip(&h, MODE_EDITOR, "gen.db", 1500);
	heap_free(&h);
	for (int k = 0; k < 5; k++) {
		char *t = random_heap_text(40 + 20 * k), name[32];
		CHECK(parse_text(t, &h, err, sizeof err) == 0);
		snprintf(name, sizeof name, "random-%d.db", k);
		round_trip(&h, MODE_GAME, name, 20);
		heap_free(&h);
		free(t);
	}
}

TEST(db_heap_reads_a_name_stored_whole)
{
	/* a database written before "@N" was a name's number holds "V@5" in
	 * table strings: the load splits it as a fresh one would */
	heap h, back;
	char err[512], path[128];
	gc_options opt;
	CHECK(parse_text("ugc-text 1\nfirst-gc-index 3\no 0 0 1 - /V8 0 -\no 1 0 2 0 Package 0 -\no 2 0 2 0 Class 0 -\n"
			 "o 3 0 2 0 V@5 8 RootSet\n", &h, err, sizeof err) == 0);
	CHECK(store(&h, MODE_GAME, "whole.db", path, sizeof path) == 0);
	heap_free(&h);
	sqlite3 *db;
	CHECK(sqlite3_open(path, &db) == SQLITE_OK &&
	      sqlite3_exec(db, "UPDATE strings SET text = 'V@5' WHERE text = 'V'", NULL, NULL, NULL) == SQLITE_OK);
	sqlite3_close(db);
	int rc = db_heap_load(path, &back, &opt, err, sizeof err);
	CHECK(rc == 0);
	if (rc) {
		printf("    %s\n", err);
		return;
	}
	char name[HEAP_NAME_MAX];
	heap_name(&back, 3, name, sizeof name);
	CHECK_STR(name, "V@5");
	CHECK_STR(heap_str(&back, back.name[3]), "V");
	CHECK(back.name_num[3] == (NAME_NUM_AT | 6) && heap_find_path(&back, "/V8.V@5") == 3);
	heap_free(&back);
}

/* The hand heap's database damaged by SQL: the load fails with one line
 * that names WANT (a table). */
static void damaged(const char *sql, const char *want)
{
	const char *text = "ugc-text 1\nfirst-gc-index 5\n"
		"o 0 1 2 - /Script/CoreUObject 64 Native\no 1 2 2 0 Object 256 Native\n"
		"o 2 3 2 0 Class 512 Native\no 3 4 2 0 Package 256 Native\no 4 5 2 0 Actor 900 Native\n"
		"o 10 11 3 - /Game/Test 128 RootSet\no 11 1 4 10 A 1 -\no 12 1 4 10 B 1 -\no 20 1 4 10 R 1 -\n"
		"r 10 11 strong P\nr 11 12 strong Q\ng F 11 G\nc 20 12 11 -\n";
	heap h, back;
	char err[512], path[128];
	gc_options opt;
	CHECK(parse_text(text, &h, err, sizeof err) == 0);
	CHECK(store(&h, MODE_GAME, "damaged.db", path, sizeof path) == 0);
	heap_free(&h);
	sqlite3 *db;
	CHECK(sqlite3_open(path, &db) == SQLITE_OK && sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK);
	sqlite3_close(db);
	err[0] = '\0';
	int rc = db_heap_load(path, &back, &opt, err, sizeof err);
	CHECK(rc == -1 && strstr(err, want) && !strchr(err, '\n'));
	if (rc == 0)
		heap_free(&back);
	else if (!strstr(err, want))
		printf("    %s: got '%s'\n", sql, err);
}

TEST(db_heap_damaged_database_names_the_table)
{
	damaged("UPDATE ref_table SET kind = 7 WHERE src = 10", "table ref_table:");
	damaged("UPDATE ref_table SET dst = 99 WHERE src = 10", "table ref_table:");
	damaged("UPDATE ref_table SET pos = 5 WHERE src = 11", "table ref_table:");
	damaged("UPDATE ref_table SET prop = 999 WHERE src = 11", "table ref_table:");
	/* the rows are read in two ranges of sources (below and from object
	 * 10, half the slots): each range's rows, and the two together */
	damaged("UPDATE ref_table SET src = 5 WHERE src = 10", "table ref_table:");
	damaged("UPDATE ref_table SET dst = 6 WHERE src = 11", "table ref_table:");
	damaged("DELETE FROM ref_table WHERE src = 10", "table ref_table:");
	damaged("UPDATE ref_table SET pos = 2 WHERE src = 10", "table ref_table:");
	damaged("UPDATE ref_table SET src = 25 WHERE src = 11", "table ref_table:");
	damaged("UPDATE ref_table SET src = 'x' WHERE src = 11", "table ref_table:");
	damaged("INSERT INTO ref_table VALUES(4, 2, 3, 0, NULL)", "table ref_table:");
	damaged("INSERT INTO ref_table VALUES(4, 0, 3, 0, NULL)", "table ref_table:"); /* two rows at position 0 */
	/* one row in each range, both at position 0: the upper range's rows
	 * begin where the count of the lower's says, so none is written twice */
	damaged("UPDATE ref_table SET src = 3 WHERE src = 10; UPDATE ref_table SET pos = 0 WHERE src = 11",
		"table ref_table:");
	damaged("UPDATE object_table SET flags = 'RF_Nope' WHERE idx = 11", "table object_table:");
	damaged("UPDATE object_table SET class = 5 WHERE idx = 11", "table object_table:");
	damaged("UPDATE object_table SET outer = 12 WHERE idx = 10; UPDATE object_table SET outer = 10 WHERE idx = 12",
		"table object_table:");
	damaged("UPDATE object_table SET idx = 4000 WHERE idx = 12", "table object_table:");
	damaged("UPDATE object_table SET name = 'Unheard' WHERE idx = 12", "table object_table:");
	damaged("DELETE FROM strings WHERE id = 2", "table strings:");
	damaged("UPDATE strings SET text = '' WHERE id = 2", "table strings:");
	damaged("UPDATE strings SET text = CAST(X'41004200' AS TEXT) WHERE id = 2", "table strings:"); /* "A\0B\0" */
	damaged("UPDATE clusters SET position = 3", "table clusters:");
	damaged("UPDATE clusters SET members = 2", "table cluster_members:");
	damaged("INSERT INTO cluster_mutable VALUES(77, 11)", "table cluster_mutable:");
	damaged("UPDATE cluster_members SET idx = 20", "table clusters:");
	damaged("UPDATE gc_object_refs SET referencer = 'Nobody'", "table gc_object_refs:");
	damaged("UPDATE snapshot SET value = 'sometimes' WHERE key = 'mode'", "table snapshot:");
	damaged("UPDATE snapshot SET value = 15 WHERE key = 'slots'", "table object_table:");
	damaged("DROP TABLE dangling_refs", "table dangling_refs:");
	damaged("ALTER TABLE clusters DROP COLUMN position", "table clusters:");
}

/* A database of one slot: the references' two ranges split at object 0
 * (the lower one empty) and the load still ends, with the object back. */
TEST(db_heap_reads_a_one_object_database)
{
	heap h, back;
	char err[512], path[128];
	gc_options opt;
	CHECK(parse_text("ugc-text 1\no 0 0 0 - Class 0 -\n", &h, err, sizeof err) == 0);
	CHECK(store(&h, MODE_GAME, "one.db", path, sizeof path) == 0);
	heap_free(&h);
	int rc = db_heap_load(path, &back, &opt, err, sizeof err);
	CHECK(rc == 0);
	if (rc) {
		printf("    %s\n", err);
		return;
	}
	CHECK(back.slots == 1 && back.objects == 1 && back.nrefs == 0 && back.cls[0] == 0);
	heap_free(&back);
}
