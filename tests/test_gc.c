/* test_gc.c — one hand-made heap per rule of ugc-gc(7),
 * each with its expected outcome written out.  Objects 0-4 are natives in
 * the disregard pool and 10 is a rooted package (see PRELUDE). */
#include <stdlib.h>

#include <string.h>

#include "analysis/dominators.h"
#include "analysis/findings.h"
#include "tests/unit.h"

static int count_findings(const heap *h, const gc_result *r, int kind, obj_t idx, obj_t other, int uaf)
{
	findings f;
	if (findings_collect(h, r, &f))
		return -1;
	int n = 0;
	for (uint32_t k = 0; k < f.n; k++)
		if (f.v[k].kind == kind && (idx == -2 || f.v[k].idx == idx) && (other == -2 || f.v[k].other == other) &&
		    (uaf < 0 || f.v[k].use_after_free == uaf))
			n++;
	findings_free(&f);
	return n;
}

#define ANY (-2)

TEST(spec_example)
{
	const char *text = "ugc-text 1\nengine 5.5.4\nmode game\n"
		"o 0 1 2 - /Script/CoreUObject 64 Native,RootSet\no 1 2 2 0 Object 256 Native\n"
		"o 2 3 2 0 Class 512 Native\no 3 4 2 0 Package 256 Native\no 4 0 2 0 Actor 900 Native\n"
		"o 10 11 3 - /Game/Maps/Arena 128 RF_Public,RF_WasLoaded\no 11 12 4 10 Arena 2048 RF_Public,RootSet\n"
		"o 12 13 4 11 Pickup_1 400 Garbage\no 13 14 4 11 Enemy_1 400 -\no 14 15 4 11 Enemy_2 400 -\n"
		"r 11 13 strong Actors[1]\nr 13 12 strong TargetPickup\nr 13 14 weak LastSeen\n"
		"g FStreamableManager 13 Handles[0]\nc 11 13 12 -\n";
	heap h;
	gc_result r;
	char err[256];
	CHECK(parse_text(text, &h, err, sizeof err) == 0);
	CHECK(run_gc(&h, MODE_GAME, 1, &r) == 0);
	CHECK_STR(purged_list(&r), "12 14");
	CHECK_STR(eliminated_list(&h, &r), "13>12");
	CHECK_STR(cleared_list(&h, &r), "13>14");
	CHECK_STR(fates_list(&h, &r), "11:garbage-mutable");
	char *p = heap_path(&h, 13);
	CHECK_STR(p, "/Game/Maps/Arena.Arena:Enemy_1");
	free(p);
	gc_result_free(&r);
	heap_free(&h);
}

TEST(disregard_pool_is_alive_untraced_and_ignored)
{
	const char *text = "ugc-text 1\nfirst-gc-index 6\n"
		"o 0 1 2 - /Script/CoreUObject 64 Native\no 1 2 2 0 Object 256 Native\no 2 3 2 0 Class 512 Native\n"
		"o 3 4 2 0 Package 256 Native\no 4 5 2 0 Actor 900 Native\no 5 6 4 0 Dead 10 Garbage\n"
		"o 10 11 3 - /Game/Test 128 RootSet\no 11 1 4 10 Holder 100 RootSet\no 12 1 4 10 Lonely 100 -\n"
		"r 11 5 strong DeadRef\nr 1 12 strong FromNative\nr 11 4 strong PoolRef\nr 11 5 immutable Fixed\n"
		"g FHolder 5 PoolGarbage\ng FHolder 4 PoolAlive\n";
	heap h;
	gc_result r;
	char err[256];
	CHECK(parse_text(text, &h, err, sizeof err) == 0);
	CHECK(run_gc(&h, MODE_GAME, 1, &r) == 0);
	CHECK_STR(purged_list(&r), "12");          /* 1 is never traced */
	/* a killable reference to a garbage pool object is eliminated (the
	 * engine tests Garbage before the pool), g records too; references to
	 * a live pool object, and immutable ones, are ignored */
	CHECK_STR(eliminated_list(&h, &r), "g:5 11>5");
	CHECK(r.reachable[5] && r.distance[5] == 0);
	CHECK_STR(kind_of(&r, 5), "disregard");
	gc_result_free(&r);
	heap_free(&h);
}

static const char *roots_body =
	"o 11 1 4 10 A 1 RootSet\no 12 1 4 10 B 1 RefCounted\no 13 1 4 10 C 1 Native\no 14 1 4 10 D 1 Async\n"
	"o 15 1 4 10 E 1 AsyncLoading\no 16 1 4 10 F 1 LoaderImport\no 17 1 4 10 G 1 RF_Standalone\n"
	"o 18 1 4 10 H 1 RF_Transient\no 19 1 4 10 I 1 RF_Standalone,Garbage\no 20 1 4 10 J 1 RootSet,RefCounted\n";

TEST(roots_by_flags_and_mode)
{
	heap h;
	gc_result r;
	CHECK(load_heap(roots_body, &h) == 0);
	CHECK(run_gc(&h, MODE_GAME, 1, &r) == 0);
	CHECK_STR(purged_list(&r), "17 18 19");
	CHECK_STR(kind_of(&r, 11), "rootset");
	CHECK_STR(kind_of(&r, 12), "refcounted");
	CHECK_STR(kind_of(&r, 13), "internal-keep");
	CHECK_STR(kind_of(&r, 16), "internal-keep");
	CHECK_STR(kind_of(&r, 20), "rootset"); /* the first kind that applies */
	gc_result_free(&r);
	CHECK(run_gc(&h, MODE_EDITOR, 1, &r) == 0);
	CHECK_STR(purged_list(&r), "18 19");   /* editor keeps RF_Standalone, not when garbage */
	CHECK_STR(kind_of(&r, 17), "keepflags");
	gc_result_free(&r);
	/* --keep-flags RF_Transient */
	gc_options opt = {.mode = MODE_GAME, .keep_flags = RF_Transient, .threads = 1, .parallel_min = 1};
	CHECK(gc_run(&h, &opt, &r) == 0);
	CHECK_STR(purged_list(&r), "17 19");
	gc_result_free(&r);
	heap_free(&h);
}

TEST(gc_object_references_are_roots_and_killable)
{
	heap h;
	gc_result r;
	CHECK(load_heap("o 11 1 4 10 A 1 -\no 12 1 4 10 B 1 Garbage\no 13 1 4 10 C 1 -\n"
			"g FStreamableManager 11 Handles[0]\ng FStreamableManager 12 Handles[1]\ng FOther 99\n"
			"r 11 13 strong Next\n", &h) == 0);
	CHECK(run_gc(&h, MODE_GAME, 1, &r) == 0);
	CHECK_STR(purged_list(&r), "12");
	CHECK_STR(eliminated_list(&h, &r), "g:12");
	CHECK_STR(kind_of(&r, 11), "gcobject");
	CHECK_STR(kind_of(&r, 13), "referenced");
	CHECK(r.distance[13] == 1 && r.parent[13] == 11);
	CHECK(count_findings(&h, &r, FK_DANGLING_REF, OBJ_NONE, 99, -1) == 1);
	gc_result_free(&r);
	heap_free(&h);
}

TEST(class_and_outer_are_immutable_references)
{
	heap h;
	gc_result r;
	CHECK(load_heap("o 11 1 4 10 Parent 1 -\no 12 1 4 11 Child 1 RootSet\no 13 1 4 10 GParent 1 Garbage\n"
			"o 14 1 4 13 GChild 1 RootSet\no 16 1 2 10 BP_Thing_C 1 -\no 17 1 16 10 Thing 1 RootSet\n", &h) == 0);
	CHECK(run_gc(&h, MODE_GAME, 1, &r) == 0);
	CHECK_STR(purged_list(&r), "");
	CHECK(r.distance[11] == 1 && r.parent[11] == 12 && r.via[11] == VIA_OUTER);
	CHECK(r.distance[16] == 1 && r.parent[16] == 17 && r.via[16] == VIA_CLASS);
	CHECK(count_findings(&h, &r, FK_GARBAGE_SURVIVES, 13, 14, -1) == 1); /* kept as the Outer of 14 */
	char *p = heap_path(&h, 12);
	CHECK_STR(p, "/Game/Test.Parent:Child");
	free(p);
	gc_result_free(&r);
	heap_free(&h);
}

TEST(weak_cleared_soft_ignored)
{
	heap h;
	gc_result r;
	CHECK(load_heap("o 11 1 4 10 A 1 RootSet\no 12 1 4 10 B 1 -\no 13 1 4 10 C 1 -\no 14 1 4 10 D 1 RootSet\n"
			"r 11 12 weak W1\nr 11 13 soft S1\nr 11 14 weak W2\nr 12 14 weak W3\n", &h) == 0);
	CHECK(run_gc(&h, MODE_GAME, 1, &r) == 0);
	CHECK_STR(purged_list(&r), "12 13");
	CHECK_STR(cleared_list(&h, &r), "11>12"); /* W2's target lives; W3's source was never traced */
	gc_result_free(&r);
	heap_free(&h);
}

TEST(killable_references_to_garbage_are_eliminated)
{
	heap h;
	gc_result r;
	/* 12 and 14 are garbage the engine's way (both flags); 13 has only the
	 * mirrored object flag, which the GC never tests: not garbage, kept */
	CHECK(load_heap("o 11 1 4 10 A 1 RootSet\no 12 1 4 10 B 1 Garbage,RF_MirroredGarbage\n"
			"o 13 1 4 10 C 1 RF_MirroredGarbage\no 14 1 4 10 D 1 Garbage,RF_MirroredGarbage\n"
			"o 15 1 4 10 E 1 Garbage\nr 11 12 strong S\nr 11 13 aro R\nr 11 14 immutable I\nr 11 15 strong T\n",
			&h) == 0);
	CHECK(run_gc(&h, MODE_GAME, 1, &r) == 0);
	CHECK_STR(eliminated_list(&h, &r), "11>12 11>15");
	CHECK_STR(purged_list(&r), "12 15");
	CHECK(r.reachable[13] && r.distance[13] == 1);
	CHECK(count_findings(&h, &r, FK_GARBAGE_SURVIVES, 14, 11, -1) == 1);
	CHECK(count_findings(&h, &r, FK_GARBAGE_FLAG_MISMATCH, 13, ANY, -1) == 1); /* mirrored only */
	CHECK(count_findings(&h, &r, FK_GARBAGE_FLAG_MISMATCH, 15, ANY, -1) == 1); /* Garbage only */
	CHECK(count_findings(&h, &r, FK_GARBAGE_FLAG_MISMATCH, ANY, ANY, -1) == 2);
	gc_result_free(&r);
	heap_free(&h);
}

TEST(cluster_reached_through_member_or_root_root_not_traced)
{
	heap h;
	gc_result r;
	/* 11 -> member 21; the root 20 is not traced, so 23 (not listed) dies */
	CHECK(load_heap("o 11 1 4 10 H 1 RootSet\no 20 1 4 10 Root 1 -\no 21 1 4 10 Member 1 -\n"
			"o 22 1 4 10 Mut 1 -\no 23 1 4 10 Unlisted 1 -\n"
			"r 11 21 strong ToMember\nr 20 21 strong M\nr 21 22 strong Mut\nr 20 23 strong Unlisted\n"
			"c 20 21 22 -\n", &h) == 0);
	CHECK(run_gc(&h, MODE_GAME, 1, &r) == 0);
	CHECK_STR(purged_list(&r), "23");
	CHECK_STR(fates_list(&h, &r), "20:alive");
	CHECK_STR(kind_of(&r, 21), "cluster");
	CHECK(r.distance[22] == 2 && r.parent[22] == 21);
	CHECK(count_findings(&h, &r, FK_CLUSTER_MISSING_MUTABLE, 20, 23, 1) == 1);
	CHECK(count_findings(&h, &r, FK_CLUSTER_KEEPS_ALIVE, 20, ANY, -1) == 1);
	gc_result_free(&r);
	heap_free(&h);
	/* the same through a reference to the root itself */
	CHECK(load_heap("o 11 1 4 10 H 1 RootSet\no 20 1 4 10 Root 1 -\no 21 1 4 20 Member 1 -\n"
			"o 23 1 4 10 Unlisted 1 -\nr 11 20 strong ToRoot\nr 20 23 strong Unlisted\nc 20 21 - -\n", &h) == 0);
	CHECK(run_gc(&h, MODE_GAME, 2, &r) == 0);
	CHECK_STR(purged_list(&r), "23");
	gc_result_free(&r);
	heap_free(&h);
}

TEST(referenced_clusters_are_only_marked)
{
	heap h;
	gc_result r;
	/* A (20) lists B (30) but not B's mutable 32: B's root is marked, does no step 5 */
	CHECK(load_heap("o 11 1 4 10 H 1 RootSet\no 20 1 4 10 A 1 -\no 21 1 4 20 A1 1 -\n"
			"o 30 1 4 10 B 1 -\no 31 1 4 30 B1 1 -\no 32 1 4 10 BMut 1 -\n"
			"r 11 20 strong ToA\nr 21 31 strong AtoB\nr 31 32 strong BMut\n"
			"c 20 21 - 30\nc 30 31 32 -\n", &h) == 0);
	CHECK(run_gc(&h, MODE_GAME, 1, &r) == 0);
	CHECK_STR(purged_list(&r), "32");
	CHECK(r.reachable[30] && r.reachable[31]);
	CHECK(count_findings(&h, &r, FK_CLUSTER_MISSING_MUTABLE, 20, 32, 1) == 1); /* inherited, use-after-free */
	gc_result_free(&r);
	heap_free(&h);
}

TEST(garbage_root_dissolves_referencing_clusters_transitively)
{
	heap h;
	gc_result r;
	CHECK(load_heap("o 11 1 4 10 H 1 RootSet\no 20 1 4 10 A 1 Garbage\no 21 1 4 20 A1 1 -\n"
			"o 30 1 4 10 B 1 -\no 31 1 4 30 B1 1 -\no 40 1 4 10 C 1 -\no 41 1 4 40 C1 1 -\n"
			"r 11 21 strong ToA1\nr 11 41 strong ToC1\nr 41 40 strong Up\n"
			"c 20 21 - -\nc 30 31 - 20\nc 40 41 - 30\n", &h) == 0);
	CHECK(run_gc(&h, MODE_GAME, 1, &r) == 0);
	CHECK_STR(fates_list(&h, &r), "20:garbage-root 30:references-dissolved 40:references-dissolved");
	CHECK_STR(purged_list(&r), "30 31");      /* 20 is garbage but the Outer of 21 */
	CHECK(count_findings(&h, &r, FK_GARBAGE_SURVIVES, 20, 21, -1) == 1);
	CHECK_STR(kind_of(&r, 21), "referenced"); /* its cluster dissolved in step 2 */
	CHECK(r.reachable[40] && r.reachable[41]);
	gc_result_free(&r);
	heap_free(&h);
}

TEST(unreachable_root_takes_members_with_it)
{
	heap h;
	gc_result r;
	/* B's member 31 points into A, but B does not list A: A dies under it */
	CHECK(load_heap("o 11 1 4 10 H 1 RootSet\no 20 1 4 10 A 1 -\no 21 1 4 20 A1 1 -\n"
			"o 30 1 4 10 B 1 RootSet\no 31 1 4 30 B1 1 -\n"
			"r 11 21 weak W\nr 31 21 strong Stale\nc 20 21 - -\nc 30 31 - -\n", &h) == 0);
	CHECK(run_gc(&h, MODE_GAME, 1, &r) == 0);
	CHECK_STR(purged_list(&r), "20 21");
	CHECK_STR(fates_list(&h, &r), "20:unreachable-root 30:alive");
	CHECK_STR(cleared_list(&h, &r), "11>21");
	CHECK(count_findings(&h, &r, FK_CLUSTER_MISSING_CLUSTER, 31, 21, 1) == 1);
	gc_result_free(&r);
	heap_free(&h);
}

TEST(mutable_member_of_other_cluster_activates_it)
{
	heap h;
	gc_result r;
	CHECK(load_heap("o 11 1 4 10 H 1 RootSet\no 20 1 4 10 A 1 -\no 21 1 4 20 A1 1 -\n"
			"o 30 1 4 10 B 1 -\no 31 1 4 30 B1 1 -\no 32 1 4 10 BMut 1 -\n"
			"r 11 20 strong ToA\nc 20 21 31 -\nc 30 31 32 -\n", &h) == 0);
	CHECK(run_gc(&h, MODE_GAME, 1, &r) == 0);
	CHECK_STR(purged_list(&r), "");
	gc_result_free(&r);
	heap_free(&h);
}

TEST(mutable_cluster_root_is_traced_and_does_step5)
{
	heap h;
	gc_result r;
	/* 30 is A's mutable object and B's root: it is traced (so 33 lives) and B does step 5 (32) */
	const char *body = "o 11 1 4 10 H 1 RootSet\no 20 1 4 10 A 1 -\no 21 1 4 20 A1 1 -\n"
			   "o 30 1 4 10 B 1 -\no 31 1 4 30 B1 1 -\no 32 1 4 10 BMut 1 -\no 33 1 4 10 X 1 -\n"
			   "r 11 20 strong ToA\nr 30 33 strong RootRef\nc 20 21 30 -\nc 30 31 32 -\n";
	CHECK(load_heap(body, &h) == 0);
	CHECK(run_gc(&h, MODE_GAME, 1, &r) == 0);
	CHECK_STR(purged_list(&r), "");
	gc_result_free(&r);
	heap_free(&h);
	/* reached directly instead, B's root is not traced and 33 dies */
	CHECK(load_heap("o 11 1 4 10 H 1 RootSet\no 30 1 4 10 B 1 -\no 31 1 4 30 B1 1 -\no 32 1 4 10 BMut 1 -\n"
			"o 33 1 4 10 X 1 -\nr 11 30 strong ToB\nr 30 33 strong RootRef\nc 30 31 32 -\n", &h) == 0);
	CHECK(run_gc(&h, MODE_GAME, 1, &r) == 0);
	CHECK_STR(purged_list(&r), "33");
	gc_result_free(&r);
	heap_free(&h);
}

TEST(rooted_member_and_rooted_cluster_root)
{
	heap h;
	gc_result r;
	CHECK(load_heap("o 20 1 4 10 A 1 -\no 21 1 4 20 A1 1 RootSet\no 22 1 4 10 AMut 1 -\n"
			"o 30 1 4 10 B 1 RootSet\no 31 1 4 30 B1 1 -\no 32 1 4 10 BMut 1 -\no 33 1 4 10 X 1 -\n"
			"r 30 33 strong RootRef\nc 20 21 22 -\nc 30 31 32 -\n", &h) == 0);
	CHECK(run_gc(&h, MODE_GAME, 1, &r) == 0);
	CHECK_STR(purged_list(&r), "");  /* a rooted root is traced, so 33 lives */
	CHECK_STR(kind_of(&r, 21), "rootset");
	gc_result_free(&r);
	heap_free(&h);
}

/* A cluster rooted in the disregard pool does step 5 only when its root has
 * a root flag, like any other: the pool itself is no root flag. */
TEST(cluster_rooted_in_disregard_pool_needs_a_root_flag)
{
	static const char *root_flags[2] = {"-", "Native"};
	static const char *want[2] = {"12 13", "13"};
	for (int k = 0; k < 2; k++) {
		char text[1024];
		snprintf(text, sizeof text, "ugc-text 1\nfirst-gc-index 6\n"
			 "o 0 1 2 - /Script/CoreUObject 64 Native\no 1 2 2 0 Object 256 Native\no 2 3 2 0 Class 512 Native\n"
			 "o 3 4 2 0 Package 256 Native\no 4 5 2 0 Actor 900 Native\no 5 6 4 0 Root 10 %s\n"
			 "o 10 11 3 - /Game/Test 128 RootSet\no 11 1 4 5 Member 1 -\no 12 1 4 10 Mut 1 -\n"
			 "o 13 1 4 10 Other 1 -\nc 5 11 12 -\n", root_flags[k]);
		heap h;
		gc_result r;
		char err[256];
		CHECK(parse_text(text, &h, err, sizeof err) == 0);
		CHECK(run_gc(&h, MODE_GAME, 1, &r) == 0);
		CHECK_STR(purged_list(&r), want[k]);
		CHECK(r.cluster_walked[0] == k);
		gc_result_free(&r);
		heap_free(&h);
	}
}

/* A member with a root flag makes its cluster do step 5 in step 2, but does
 * not mark the root: if nothing reaches the root or a member, step 6
 * dissolves the cluster and every member dies, the rooted one included.
 * (Members' Outer is the package here: an Outer pointing at the root would
 * be a reference that reaches it.) */
TEST(rooted_member_dies_with_an_unreached_cluster)
{
	const char *body = "o 20 1 4 10 Root 1 -\no 21 1 4 10 Held 1 RefCounted\no 22 1 4 10 Mut 1 -\n"
			   "o 23 1 4 10 Other 1 -\no 24 1 4 10 Member2 1 -\nr 21 23 strong FromHeld\n"
			   "c 20 21,24 22 -\n";
	heap h;
	gc_result r;
	CHECK(load_heap(body, &h) == 0);
	CHECK(run_gc(&h, MODE_GAME, 1, &r) == 0);
	/* 22 was marked by step 5 and 23 by tracing the root 21: both outlive the cluster */
	CHECK_STR(purged_list(&r), "20 21 24");
	CHECK_STR(fates_list(&h, &r), "20:unreachable-root");
	CHECK(r.cluster_walked[0] == 1);
	CHECK(count_findings(&h, &r, FK_ROOTED_MEMBER_DESTROYED, 21, ANY, -1) == 1);
	CHECK(count_findings(&h, &r, FK_ROOTED_MEMBER_DESTROYED, ANY, ANY, -1) == 1);
	gc_result_free(&r);
	heap_free(&h);
	/* the same with a reference to another member: the root is reached, all live */
	char text[1024];
	snprintf(text, sizeof text, "%so 11 1 4 10 H 1 RootSet\nr 11 24 strong ToMember\n", body);
	CHECK(load_heap(text, &h) == 0);
	for (int threads = 1; threads <= 2; threads++) {
		CHECK(run_gc(&h, MODE_GAME, threads, &r) == 0);
		CHECK_STR(purged_list(&r), "");
		CHECK_STR(fates_list(&h, &r), "20:alive");
		CHECK(count_findings(&h, &r, FK_ROOTED_MEMBER_DESTROYED, ANY, ANY, -1) == 0);
		gc_result_free(&r);
	}
	heap_free(&h);
	/* a rooted cluster root: marked and walked in step 2 */
	CHECK(load_heap("o 20 1 4 10 Root 1 RefCounted\no 21 1 4 10 M 1 -\no 22 1 4 10 Mut 1 -\nc 20 21 22 -\n", &h) == 0);
	CHECK(run_gc(&h, MODE_GAME, 1, &r) == 0);
	CHECK_STR(purged_list(&r), "");
	gc_result_free(&r);
	heap_free(&h);
}

/* KeepFlags roots do no cluster work: a KeepFlags cluster root is traced but
 * its lists are never walked; a KeepFlags member does not keep its cluster. */
TEST(keepflags_roots_do_no_cluster_work)
{
	const char *body = "o 20 1 4 10 Asset 1 RF_Standalone\no 21 1 4 20 Sub 1 -\no 22 1 4 10 Mut 1 -\n"
			   "o 23 1 4 10 Direct 1 -\nr 20 23 strong Own\nr 21 22 strong M\nc 20 21 22 -\n"
			   "o 30 1 4 10 Root2 1 -\no 31 1 4 10 Member2 1 RF_Standalone\nc 30 31 - -\n";
	heap h;
	gc_result r;
	CHECK(load_heap(body, &h) == 0);
	CHECK(run_gc(&h, MODE_EDITOR, 1, &r) == 0);   /* editor: KeepFlags = RF_Standalone */
	CHECK_STR(purged_list(&r), "22 30 31");      /* 23 lives: the root itself is traced */
	CHECK_STR(fates_list(&h, &r), "20:alive 30:unreachable-root");
	CHECK(r.cluster_walked[0] == 0 && r.cluster_walked[1] == 0);
	CHECK_STR(kind_of(&r, 20), "keepflags");
	CHECK(count_findings(&h, &r, FK_KEEPFLAGS_CLUSTER_ROOT, 20, ANY, -1) == 1);
	CHECK(count_findings(&h, &r, FK_ROOTED_MEMBER_DESTROYED, 31, ANY, -1) == 1);
	gc_result_free(&r);
	CHECK(run_gc(&h, MODE_GAME, 1, &r) == 0);     /* game: no KeepFlags, nothing is kept */
	CHECK_STR(purged_list(&r), "20 21 22 23 30 31");
	CHECK(count_findings(&h, &r, FK_KEEPFLAGS_CLUSTER_ROOT, ANY, ANY, -1) == 0);
	CHECK(count_findings(&h, &r, FK_ROOTED_MEMBER_DESTROYED, ANY, ANY, -1) == 0);
	gc_result_free(&r);
	heap_free(&h);
}

/* Step 6 dissolves every cluster that needs dissolving and, through
 * ReferencedByClusters, every cluster that references one: reachable roots
 * now (members keep their state), unreachable ones as unreachable-root. */
TEST(dissolving_spreads_to_referencing_clusters)
{
	heap h;
	gc_result r;
	/* A needs dissolving (garbage mutable); B lists A, C lists B, D lists C.
	 * 11 reaches A and C; C's step 5 only marks B; nothing reaches D */
	CHECK(load_heap("o 11 1 4 10 H 1 RootSet\n"
			"o 20 1 4 10 A 1 -\no 21 1 4 10 A1 1 -\no 23 1 4 10 Bad 1 Garbage,RF_MirroredGarbage\n"
			"o 30 1 4 10 B 1 -\no 31 1 4 10 B1 1 -\no 40 1 4 10 C 1 -\no 41 1 4 10 C1 1 -\n"
			"o 50 1 4 10 D 1 -\no 51 1 4 10 D1 1 -\n"
			"r 11 20 strong ToA\nr 11 40 strong ToC\nr 21 23 strong Bad\n"
			"c 20 21 23 -\nc 30 31 - 20\nc 40 41 - 30\nc 50 51 - 40\n", &h) == 0);
	for (int threads = 1; threads <= 2; threads++) {
		CHECK(run_gc(&h, MODE_GAME, threads, &r) == 0);
		CHECK_STR(fates_list(&h, &r),
			  "20:garbage-mutable 30:references-dissolved 40:references-dissolved 50:unreachable-root");
		CHECK_STR(purged_list(&r), "23 50 51");
		CHECK_STR(eliminated_list(&h, &r), "21>23");
		CHECK(r.reachable[31] && r.reachable[41]);
		CHECK_STR(kind_of(&r, 31), "cluster"); /* its cluster was not dissolved in step 2 */
		CHECK(r.cluster_live[1] && r.cluster_live[2]);
		gc_result_free(&r);
	}
	heap_free(&h);
}

/* Step 6's dissolution spreads through ReferencedByClusters even across a
 * cluster whose root is unreachable: A needs dissolving; U lists A, R lists
 * U, Q lists R.  Q did step 5, which only marked R's root, so U's root is
 * never reached: U goes as unreachable-root, and R and Q, reached through
 * it, are dissolved with their roots alive. */
TEST(dissolution_passes_through_unreachable_root_clusters)
{
	heap h;
	gc_result r;
	CHECK(load_heap("o 11 1 4 10 H 1 RootSet\n"
			"o 20 1 4 10 A 1 -\no 21 1 4 10 A1 1 -\no 23 1 4 10 Bad 1 Garbage,RF_MirroredGarbage\n"
			"o 30 1 4 10 U 1 -\no 31 1 4 10 U1 1 -\no 40 1 4 10 R 1 -\no 41 1 4 10 R1 1 -\n"
			"o 50 1 4 10 Q 1 -\no 51 1 4 10 Q1 1 -\n"
			"r 11 50 strong ToQ\nr 11 20 strong ToA\nr 21 23 strong Bad\n"
			"c 20 21 23 -\nc 30 31 - 20\nc 40 41 - 30\nc 50 51 - 40\n", &h) == 0);
	for (int threads = 1; threads <= 2; threads++) {
		CHECK(run_gc(&h, MODE_GAME, threads, &r) == 0);
		CHECK_STR(fates_list(&h, &r),
			  "20:garbage-mutable 30:unreachable-root 40:references-dissolved 50:references-dissolved");
		CHECK_STR(purged_list(&r), "23 30 31");
		CHECK_STR(eliminated_list(&h, &r), "21>23");
		CHECK(r.reachable[41] && r.reachable[51]);
		gc_result_free(&r);
	}
	heap_free(&h);
}

/* Step 2: a LevelActorContainer whose cluster step 2 dissolves hands the
 * Actors it lists to its Level, which reports them as aro references for
 * the rest of the GC.  Without the hand-over Actor_1 and its component
 * would die with the garbage container. */
TEST(dissolved_level_actor_container_hands_its_actors_to_the_level)
{
	heap h;
	gc_result r;
	CHECK(load_heap("o 6 1 2 0 LevelActorContainer 10 Native\n"
			"o 12 1 4 10 PersistentLevel 100 RootSet\n"
			"o 13 1 6 12 ActorCluster 10 Garbage,RF_MirroredGarbage\n"
			"o 14 1 4 12 Actor_1 10 -\no 15 1 4 12 Actor_2 10 Garbage,RF_MirroredGarbage\n"
			"o 16 1 4 14 Component 10 -\no 17 1 4 12 Settings 10 -\n"
			"r 12 13 strong ActorCluster\nr 13 14 strong Actors[0]\nr 13 15 strong Actors[1]\n"
			"r 13 17 strong Settings\nr 14 16 strong Component\n"
			"c 13 14,15,16 - -\n", &h) == 0);
	for (int threads = 1; threads <= 2; threads++) {
		CHECK(run_gc(&h, MODE_GAME, threads, &r) == 0);
		CHECK_STR(fates_list(&h, &r), "13:garbage-root");
		CHECK(r.nhandoff == 2 && r.handoff[0].level == 12 && r.handoff[1].level == 12);
		CHECK_STR(purged_list(&r), "13 15 17"); /* Settings is no Actors entry: not handed over */
		CHECK_STR(eliminated_list(&h, &r), "12>13 12>15");
		CHECK(r.neliminated == 2 && !r.eliminated[0].handoff && r.eliminated[1].handoff);
		/* the Level's path to Actor_1 goes over the handed-over entry */
		CHECK(r.distance[14] == 1 && r.parent[14] == 12 && r.via[14] == VIA_REF(h.ref_start[13]));
		CHECK(r.distance[16] == 2 && r.parent[16] == 14);
		CHECK_STR(path_property(&h, &r, 14), "ActorsForGC"); /* as the engine reports it */
		CHECK_STR(path_property(&h, &r, 16), "Component");
		CHECK_STR(kind_of(&r, 14), "referenced");
		dom_result d;
		CHECK(dom_compute(&h, &r, POLICY_GC, &d) == 0);
		CHECK(d.idom[14] == 12 && d.idom[16] == 14 && d.idom[17] == OBJ_NONE);
		dom_free(&d);
		/* the nulled Actors[1] is the Level's, named by the container's record */
		CHECK(count_findings(&h, &r, FK_ELIMINATED_REF, 12, 15, -1) == 1);
		gc_result_free(&r);
	}
	heap_free(&h);
}

/* Step 2: a cluster that step 2 would walk for a root flag (its root's or a
 * member's) but dissolves first, because it lists a garbage-root cluster:
 * the engine walks it at cluster index -1 and crashes.  The tool keeps the
 * dissolution and says so. */
TEST(rooted_cluster_dissolved_in_step_2_is_a_finding)
{
	heap h;
	gc_result r;
	CHECK(load_heap("o 11 1 4 10 H 1 RootSet\n"
			"o 20 1 4 10 A 1 Garbage,RF_MirroredGarbage\no 21 1 4 10 A1 1 -\n"
			"o 30 1 4 10 B 1 RootSet\no 31 1 4 10 B1 1 -\n"
			"o 40 1 4 10 C 1 -\no 41 1 4 40 C1 1 RefCounted\n"
			"o 50 1 4 10 D 1 -\no 51 1 4 50 D1 1 -\n"
			"r 30 31 strong Member\n"
			"c 20 21 - -\nc 30 31 - 20\nc 40 41 - 20\nc 50 51 - 20\n", &h) == 0);
	CHECK(run_gc(&h, MODE_GAME, 1, &r) == 0);
	CHECK_STR(fates_list(&h, &r),
		  "20:garbage-root 30:references-dissolved 40:references-dissolved 50:references-dissolved");
	CHECK_STR(purged_list(&r), "20 21 50 51"); /* 31 by B's reference, 40 as 41's Outer */
	CHECK(count_findings(&h, &r, FK_ROOTED_CLUSTER_DISSOLVED, 30, 20, -1) == 1);
	CHECK(count_findings(&h, &r, FK_ROOTED_CLUSTER_DISSOLVED, 40, 20, -1) == 1);
	CHECK(count_findings(&h, &r, FK_ROOTED_CLUSTER_DISSOLVED, ANY, ANY, -1) == 2); /* not D: nothing rooted */
	gc_result_free(&r);
	heap_free(&h);
}

/* A garbage member of a live cluster survives with it, while the killable
 * references to it are nulled; in mode editor, clusters and a disregard
 * pool are findings (the editor builds neither). */
TEST(garbage_cluster_member_and_editor_mode_findings)
{
	heap h;
	gc_result r;
	CHECK(load_heap("o 11 1 4 10 H 1 RootSet\no 20 1 4 10 A 1 RootSet\n"
			"o 21 1 4 20 A1 1 Garbage,RF_MirroredGarbage\no 22 1 4 20 A2 1 -\n"
			"r 11 21 strong Stale\nr 11 22 strong Fine\nc 20 21,22 - -\n", &h) == 0);
	CHECK(run_gc(&h, MODE_GAME, 1, &r) == 0);
	CHECK_STR(purged_list(&r), "");
	CHECK_STR(eliminated_list(&h, &r), "11>21");
	CHECK(count_findings(&h, &r, FK_GARBAGE_CLUSTER_MEMBER, 21, ANY, -1) == 1);
	CHECK(count_findings(&h, &r, FK_GARBAGE_CLUSTER_MEMBER, ANY, ANY, -1) == 1);
	CHECK(count_findings(&h, &r, FK_EDITOR_MODE_MISMATCH, ANY, ANY, -1) == 0); /* mode game */
	gc_result_free(&r);
	h.mode = MODE_EDITOR;
	CHECK(run_gc(&h, MODE_EDITOR, 1, &r) == 0);
	/* one for the clusters (named by the first root), one for the pool (its first object) */
	CHECK(count_findings(&h, &r, FK_EDITOR_MODE_MISMATCH, 20, ANY, -1) == 1);
	CHECK(count_findings(&h, &r, FK_EDITOR_MODE_MISMATCH, 0, ANY, -1) == 1);
	CHECK(count_findings(&h, &r, FK_EDITOR_MODE_MISMATCH, ANY, ANY, -1) == 2);
	gc_result_free(&r);
	heap_free(&h);
}

/* Weak references held by a disregard-pool object (5) and a cluster member
 * (21), neither traced, and one by a traced holder (11): 12 and 13 die. */
#define UNTRACED_WEAK_HEAP "ugc-text 1\nfirst-gc-index 6\n" \
	"o 0 1 2 - /Script/CoreUObject 64 Native\no 1 2 2 0 Object 256 Native\no 2 3 2 0 Class 512 Native\n" \
	"o 3 4 2 0 Package 256 Native\no 4 5 2 0 Actor 900 Native\no 5 6 4 0 Cache 10 -\n" \
	"o 10 11 3 - /Game/Test 128 RootSet\no 11 1 4 10 H 1 RootSet\no 12 1 4 10 Target 1 -\n" \
	"o 13 1 4 10 Target2 1 -\no 20 1 4 10 Root 1 -\no 21 1 4 20 Member 1 -\n" \
	"r 5 12 weak PoolWeak\nr 11 20 strong ToCluster\nr 11 13 weak Traced\nr 21 12 weak MemberWeak\n" \
	"c 20 21 - -\n"

/* Step 7 clears only the weak references remembered while tracing: one held
 * by a live cluster's member or by a disregard-pool object is left pointing
 * at the destroyed target, and that is a finding. */
TEST(weak_references_of_untraced_holders_are_not_cleared)
{
	const char *text = UNTRACED_WEAK_HEAP;
	heap h;
	gc_result r;
	char err[256];
	CHECK(parse_text(text, &h, err, sizeof err) == 0);
	CHECK(run_gc(&h, MODE_GAME, 1, &r) == 0);
	CHECK_STR(purged_list(&r), "12 13");
	CHECK_STR(cleared_list(&h, &r), "11>13");
	CHECK(r.nuncleared == 2);
	CHECK(count_findings(&h, &r, FK_WEAK_UNCLEARED, 5, 12, -1) == 1);
	CHECK(count_findings(&h, &r, FK_WEAK_UNCLEARED, 21, 12, -1) == 1);
	CHECK(count_findings(&h, &r, FK_WEAK_UNCLEARED, 11, ANY, -1) == 0);
	gc_result_free(&r);
	heap_free(&h);
}

/* The same heap with no_weak_lists (cut's proof): what lives and what is
 * purged unchanged, step 7's lists left empty. */
TEST(no_weak_lists_changes_only_the_weak_lists)
{
	const char *text = UNTRACED_WEAK_HEAP;
	heap h;
	char err[256];
	CHECK(parse_text(text, &h, err, sizeof err) == 0);
	gc_options o = {.mode = MODE_GAME, .keep_flags = gc_default_keep_flags(MODE_GAME), .threads = 1};
	gc_result full, lean;
	CHECK(gc_run(&h, &o, &full) == 0);
	o.no_weak_lists = 1;
	CHECK(gc_run(&h, &o, &lean) == 0);
	CHECK(full.ncleared == 1 && full.nuncleared == 2); /* the lists this heap has */
	CHECK(lean.ncleared == 0 && lean.nuncleared == 0);
	CHECK(memcmp(full.reachable, lean.reachable, h.slots) == 0);
	CHECK_STR(purged_list(&lean), "12 13");
	gc_result_free(&full);
	gc_result_free(&lean);
	heap_free(&h);
}

TEST(needs_dissolving_traces_members_and_keeps_them)
{
	heap h;
	gc_result r;
	CHECK(load_heap("o 11 1 4 10 H 1 RootSet\no 20 1 4 10 A 1 -\no 21 1 4 20 A1 1 -\no 22 1 4 20 A2 1 -\n"
			"o 23 1 4 10 Bad 1 Garbage\no 24 1 4 10 Hidden 1 -\n"
			"r 11 20 strong ToA\nr 21 23 strong Bad\nr 22 24 strong Hidden\nc 20 21,22 23 -\n", &h) == 0);
	CHECK(run_gc(&h, MODE_GAME, 2, &r) == 0);
	CHECK_STR(fates_list(&h, &r), "20:garbage-mutable");
	CHECK_STR(eliminated_list(&h, &r), "21>23");
	CHECK_STR(purged_list(&r), "23");   /* 24 lives: the traced member 22 reaches it */
	gc_result_free(&r);
	heap_free(&h);
}

TEST(purge_phases)
{
	heap h;
	gc_result r;
	CHECK(load_heap("o 11 1 4 10 A 100 NotReadyForFinishDestroy\no 12 1 4 10 B 200 GameThreadDestroy\n"
			"o 13 1 4 10 C 300 NotReadyForFinishDestroy,GameThreadDestroy\no 14 1 4 10 D 50 RootSet\n", &h) == 0);
	CHECK(run_gc(&h, MODE_GAME, 1, &r) == 0);
	CHECK_STR(purged_list(&r), "11 12 13");
	CHECK(r.purged_bytes == 600 && r.pending == 2 && r.pending_bytes == 400);
	CHECK(r.game_thread == 2 && r.game_thread_bytes == 500);
	gc_result_free(&r);
	heap_free(&h);
}

TEST(shortest_path_ties_go_to_the_lower_root_then_file_order)
{
	heap h;
	gc_result r;
	CHECK(load_heap("o 11 1 4 10 A 1 RootSet\no 12 1 4 10 B 1 RootSet\no 13 1 4 10 C 1 -\no 14 1 4 10 D 1 -\n"
			"r 12 13 strong B\nr 11 14 strong A\nr 14 13 strong C\nr 11 13 strong D\n", &h) == 0);
	CHECK(run_gc(&h, MODE_GAME, 1, &r) == 0);
	CHECK(r.distance[13] == 1 && r.parent[13] == 11);
	CHECK_STR(edge_property(&h, r.via[13]), "D");
	CHECK(r.distance[14] == 1 && r.distance[11] == 0);
	gc_result_free(&r);
	heap_free(&h);
}

TEST(findings_rootset_garbage_and_dangling)
{
	heap h;
	gc_result r;
	CHECK(load_heap("o 11 1 4 10 A 1 RootSet,Garbage\no 12 1 4 10 B 1 RootSet\nr 12 77 strong Stale\n", &h) == 0);
	CHECK(h.ndangling == 1);
	CHECK(run_gc(&h, MODE_GAME, 1, &r) == 0);
	CHECK(count_findings(&h, &r, FK_ROOTSET_GARBAGE, 11, ANY, -1) == 1);
	CHECK(count_findings(&h, &r, FK_GARBAGE_SURVIVES, 11, ANY, -1) == 1);
	CHECK(count_findings(&h, &r, FK_DANGLING_REF, 12, 77, -1) == 1);
	gc_result_free(&r);
	heap_free(&h);
}

TEST(same_round_cluster_work_follows_reference_order)
{
	heap h;
	gc_result r;
	/* 11 reaches A (30) first: A's step 5 only marks B (20), so B's mutable 22 dies, as it
	 * would in the engine tracing 11's references in order */
	CHECK(load_heap("o 11 1 4 10 H 1 RootSet\no 20 1 4 10 B 1 -\no 21 1 4 10 B1 1 -\no 22 1 4 10 BMut 1 -\n"
			"o 30 1 4 10 A 1 -\no 31 1 4 10 A1 1 -\n"
			"r 11 30 strong ToA\nr 11 20 strong ToB\nc 20 21 22 -\nc 30 31 - 20\n", &h) == 0);
	CHECK(run_gc(&h, MODE_GAME, 1, &r) == 0);
	CHECK_STR(purged_list(&r), "22");
	gc_result_free(&r);
	heap_free(&h);
	/* across objects of one round, index order: 11 finds 13 before 12, but 12 (-> A)
	 * is traced before 13 (-> B), so A's step 5 marks B first and 32 dies */
	CHECK(load_heap("o 11 1 4 10 H 1 RootSet\no 12 1 4 10 X 1 -\no 13 1 4 10 Y 1 -\n"
			"o 20 1 4 10 A 1 -\no 21 1 4 10 A1 1 -\no 30 1 4 10 B 1 -\no 31 1 4 10 B1 1 -\n"
			"o 32 1 4 10 BMut 1 -\nr 11 13 strong Second\nr 11 12 strong First\nr 12 20 strong ToA\n"
			"r 13 30 strong ToB\nc 20 21 - 30\nc 30 31 32 -\n", &h) == 0);
	for (int threads = 1; threads <= 2; threads++) {
		CHECK(run_gc(&h, MODE_GAME, threads, &r) == 0);
		CHECK_STR(purged_list(&r), "32");
		gc_result_free(&r);
	}
	heap_free(&h);
	/* 11 reaches B (30) first: B does its own step 5, so its mutable 32 lives */
	CHECK(load_heap("o 11 1 4 10 H 1 RootSet\no 20 1 4 10 A 1 -\no 21 1 4 10 A1 1 -\n"
			"o 30 1 4 10 B 1 -\no 31 1 4 10 B1 1 -\no 32 1 4 10 BMut 1 -\n"
			"r 11 30 strong ToB\nr 11 20 strong ToA\nc 20 21 - 30\nc 30 31 32 -\n", &h) == 0);
	CHECK(run_gc(&h, MODE_GAME, 2, &r) == 0);
	CHECK_STR(purged_list(&r), "");
	gc_result_free(&r);
	heap_free(&h);
}

/* A retention chain far longer than any stack: 300,000 objects in a row. */
TEST(long_chains_need_no_recursion)
{
	const int n = 300000;
	size_t cap = (size_t)n * 64 + 4096, len = 0;
	char *text = malloc(cap);
	len += (size_t)snprintf(text + len, cap - len, "%s", PRELUDE);
	len += (size_t)snprintf(text + len, cap - len, "o 11 1 4 10 Head 1 RootSet\n");
	for (int i = 12; i < 11 + n; i++)
		len += (size_t)snprintf(text + len, cap - len, "o %d 1 4 10 Link_%d 1 -\nr %d %d strong Next\n", i, i, i - 1, i);
	heap h;
	gc_result r;
	char err[256];
	CHECK(parse_text(text, &h, err, sizeof err) == 0);
	free(text);
	gc_options opt = {.mode = MODE_GAME, .threads = 2}; /* the default threshold: small levels stay on one thread */
	CHECK(gc_run(&h, &opt, &r) == 0);
	CHECK(r.npurged == 0);
	CHECK(r.distance[10 + n] == (uint32_t)n - 1 && r.parent[10 + n] == 9 + n);
	gc_result_free(&r);
	heap_free(&h);
}
