/* test_whatif.c — counterfactuals (ugc-gc(7) §4.3): one hand-made heap per
 * kind of change, with what it frees worked out by hand; and the invariant
 * "on a heap without clusters, --cut X frees exactly what X dominates",
 * checked on random heaps against a naive definition written here: take
 * away every edge into X and X's root reasons, redo plain reachability over
 * the retention edges of ugc-gc(7) §3.2, and see what is lost.
 * Objects 0-4 are natives in the disregard pool, 10 a rooted package. */
#include <stdlib.h>

#include "tests/unit.h"
#include "analysis/whatif.h"

/* Run CHANGES on BODY (after the prelude) in MODE; 0 on success. */
static int run(const char *body, int mode, const whatif_change *c, size_t n, heap *h, gc_result *before,
	       whatif_result *w)
{
	if (load_heap(body, h))
		return -1;
	gc_options opt = {.mode = mode, .keep_flags = gc_default_keep_flags(mode), .threads = 1, .parallel_min = 1};
	if (gc_run(h, &opt, before)) {
		heap_free(h);
		return -1;
	}
	if (whatif_run(h, before, &opt, c, n, w)) {
		gc_result_free(before);
		heap_free(h);
		return -1;
	}
	return 0;
}

static void done(heap *h, gc_result *before, whatif_result *w)
{
	whatif_free(w);
	gc_result_free(before);
	heap_free(h);
}

static char list_buf[4096];

static const char *list(const obj_t *v, uint32_t n)
{
	size_t len = 0;
	list_buf[0] = '\0';
	for (uint32_t k = 0; k < n && len < sizeof list_buf - 16; k++)
		len += (size_t)snprintf(list_buf + len, sizeof list_buf - len, "%s%d", k ? " " : "", v[k]);
	return list_buf;
}

static whatif_change change(int kind, obj_t x)
{
	return (whatif_change){(uint8_t)kind, x, 0, 0};
}

/* The string id of S in H (for property and referencer names). */
static uint32_t str(heap *h, const char *s)
{
	return strtab_find(&h->strings, s, strlen(s));
}

/* 10 -> 11 -> 12 -> 14; 13 is 12's inner (nothing references it), 15 an
 * unreachable holder of 14. */
static const char *chain_body =
	"o 11 1 4 10 A 100 -\no 12 1 4 10 B 200 -\no 13 1 4 12 C 300 -\no 14 1 4 10 D 400 -\n"
	"o 15 1 4 10 E 500 -\n"
	"r 10 11 strong ToA\nr 11 12 strong ToB\nr 12 14 strong ToD\nr 15 14 strong FromE\n";

TEST(whatif_cut_frees_what_only_it_reaches)
{
	heap h;
	gc_result b;
	whatif_change c = change(WI_CUT, 12);
	whatif_result w;
	CHECK(run(chain_body, MODE_GAME, &c, 1, &h, &b, &w) == 0);
	CHECK_STR(purged_list(&b), "13 15"); /* before: C and E were already unreachable */
	CHECK_STR(list(w.lost, w.nlost), "12 14");
	CHECK(w.lost_bytes == 200 + 400);
	CHECK(w.ngained == 0);
	CHECK(w.refs_removed == 1);      /* 11 -> 12 */
	CHECK(w.implicit_removed == 1);  /* C's Outer */
	CHECK(!b.reachable[13] && !w.after.reachable[13]); /* unreachable before: not "lost" */
	CHECK(h.ref_kind[h.ref_start[11]] == REF_STRONG);  /* the input is untouched */
	done(&h, &b, &w);
}

TEST(whatif_null_by_property_by_record_and_combined)
{
	heap h;
	gc_result b;
	whatif_result w;
	/* 10's record ToA (its only one) by name */
	CHECK(load_heap(chain_body, &h) == 0);
	whatif_change c[2] = {{WI_NULL_PROPERTY, 10, str(&h, "ToA"), 0}, change(WI_CUT, 12)};
	heap_free(&h);
	CHECK(run(chain_body, MODE_GAME, c, 1, &h, &b, &w) == 0);
	CHECK_STR(list(w.lost, w.nlost), "11 12 14");
	CHECK(w.lost_bytes == 700 && w.refs_removed == 1);
	done(&h, &b, &w);
	/* 11's record 0 (ToB) by position */
	whatif_change r0 = {WI_NULL_RECORD, 11, 0, 0};
	CHECK(run(chain_body, MODE_GAME, &r0, 1, &h, &b, &w) == 0);
	CHECK_STR(list(w.lost, w.nlost), "12 14");
	done(&h, &b, &w);
	/* both changes at once: the union, each reference counted once */
	CHECK(run(chain_body, MODE_GAME, c, 2, &h, &b, &w) == 0);
	CHECK_STR(list(w.lost, w.nlost), "11 12 14");
	CHECK(w.refs_removed == 2);
	done(&h, &b, &w);
	/* a cut and a null of the same reference: removed once */
	whatif_change same[2] = {{WI_NULL_RECORD, 11, 0, 0}, change(WI_CUT, 12)};
	CHECK(run(chain_body, MODE_GAME, same, 2, &h, &b, &w) == 0);
	CHECK(w.refs_removed == 1);
	CHECK_STR(list(w.lost, w.nlost), "12 14");
	done(&h, &b, &w);
}

/* 11 is 12's Outer; 10 references both; 13 is an instance of the class 15,
 * which nothing else references. */
static const char *immutable_body =
	"o 11 1 4 10 Parent 10 -\no 12 1 4 11 Child 20 -\no 15 1 2 10 MyClass 40 -\no 13 1 15 10 Inst 80 -\n"
	"r 10 11 strong P\nr 10 12 strong C\nr 10 13 strong I\n";

TEST(whatif_garbage_kept_by_an_immutable_reference)
{
	heap h;
	gc_result b;
	whatif_result w;
	/* Parent made garbage: 10's reference is nulled, but Child's Outer keeps it */
	whatif_change g = change(WI_GARBAGE, 11);
	CHECK(run(immutable_body, MODE_GAME, &g, 1, &h, &b, &w) == 0);
	CHECK(w.nlost == 0);
	CHECK(w.after.reachable[11] && heap_is_garbage(&w.gc_heap, 11) && !heap_is_garbage(&h, 11));
	CHECK((w.gc_heap.oflags[11] & RF_MirroredGarbage) && !(h.oflags[11] & RF_MirroredGarbage));
	CHECK(w.after.parent[11] == 12 && w.after.via[11] == VIA_OUTER && w.after.distance[11] == 2);
	CHECK(w.after.neliminated == 1 && w.after.eliminated[0].src == 10 && w.after.eliminated[0].dst == 11);
	done(&h, &b, &w);
	/* the class made garbage: its instance's Class keeps it */
	g = change(WI_GARBAGE, 15);
	CHECK(run(immutable_body, MODE_GAME, &g, 1, &h, &b, &w) == 0);
	CHECK(w.nlost == 0 && w.after.parent[15] == 13 && w.after.via[15] == VIA_CLASS);
	done(&h, &b, &w);
	/* the inner made garbage: nothing immutable keeps it */
	g = change(WI_GARBAGE, 12);
	CHECK(run(immutable_body, MODE_GAME, &g, 1, &h, &b, &w) == 0);
	CHECK_STR(list(w.lost, w.nlost), "12");
	done(&h, &b, &w);
	/* both: the Outer that kept Parent dies with Child */
	whatif_change two[2] = {change(WI_GARBAGE, 11), change(WI_GARBAGE, 12)};
	CHECK(run(immutable_body, MODE_GAME, two, 2, &h, &b, &w) == 0);
	CHECK_STR(list(w.lost, w.nlost), "11 12");
	CHECK(w.lost_bytes == 30);
	done(&h, &b, &w);
}

TEST(whatif_cut_takes_class_and_outer_references_too)
{
	heap h;
	gc_result b;
	whatif_result w;
	/* cutting the class: Inst's Class no longer keeps it */
	whatif_change c = change(WI_CUT, 15);
	CHECK(run(immutable_body, MODE_GAME, &c, 1, &h, &b, &w) == 0);
	CHECK_STR(list(w.lost, w.nlost), "15");
	CHECK(w.implicit_removed == 1 && w.refs_removed == 0);
	CHECK(h.cls[13] == 15 && w.shown.cls[13] == 15); /* names still come from the input */
	done(&h, &b, &w);
	/* cutting Parent: 10's reference and Child's Outer both go */
	c = change(WI_CUT, 11);
	CHECK(run(immutable_body, MODE_GAME, &c, 1, &h, &b, &w) == 0);
	CHECK_STR(list(w.lost, w.nlost), "11");
	CHECK(w.implicit_removed == 1 && w.refs_removed == 1);
	done(&h, &b, &w);
}

/* Cluster 20 with members 21 and 22 and MutableObjects 30; only the
 * member 21 holds a real reference to 30 (never traced: the list is what
 * keeps 30).  10 references the member 21 and, in the second heap, 22 too. */
static const char *cluster_body =
	"o 20 1 4 10 Root 1 -\no 21 1 4 20 M1 2 -\no 22 1 4 20 M2 4 -\no 30 1 4 10 Mut 8 -\n"
	"r 10 21 strong ToM1\nr 21 30 strong ToMut\nc 20 21,22 30 -\n";

TEST(whatif_cut_into_a_cluster_member)
{
	heap h;
	gc_result b;
	whatif_result w;
	/* the only reference into the cluster goes: never reached, it dissolves
	 * and takes every member with it, and its mutable object */
	whatif_change c = change(WI_CUT, 21);
	CHECK(run(cluster_body, MODE_GAME, &c, 1, &h, &b, &w) == 0);
	CHECK_STR(purged_list(&b), "");
	CHECK_STR(list(w.lost, w.nlost), "20 21 22 30");
	CHECK(w.after.cluster_fate[0] == CF_UNREACHABLE_ROOT);
	done(&h, &b, &w);
	/* another member is still referenced: the cut member survives, kept by
	 * its cluster alone (no retention path reaches it) */
	char body[1024];
	snprintf(body, sizeof body, "%sr 10 22 strong ToM2\n", cluster_body);
	CHECK(run(body, MODE_GAME, &c, 1, &h, &b, &w) == 0);
	CHECK(w.nlost == 0);
	CHECK(w.after.reachable[21] && w.after.distance[21] == UINT32_MAX);
	CHECK_STR(kind_of(&w.after, 21), "cluster");
	done(&h, &b, &w);
	/* cutting the mutable object takes it out of the cluster's list too */
	c = change(WI_CUT, 30);
	CHECK(run(cluster_body, MODE_GAME, &c, 1, &h, &b, &w) == 0);
	CHECK_STR(list(w.lost, w.nlost), "30");
	CHECK(w.list_entries_removed == 1 && w.refs_removed == 1);
	CHECK(h.clusters[0].n_mutables == 1); /* the input's list is untouched */
	done(&h, &b, &w);
	/* null only the member's reference: the list still keeps 30, as the
	 * engine would until the cluster is rebuilt */
	CHECK(load_heap(cluster_body, &h) == 0);
	whatif_change n = {WI_NULL_PROPERTY, 21, str(&h, "ToMut"), 0};
	heap_free(&h);
	CHECK(run(cluster_body, MODE_GAME, &n, 1, &h, &b, &w) == 0);
	CHECK(w.nlost == 0 && w.after.reachable[30]);
	done(&h, &b, &w);
}

TEST(whatif_drop_referencer_and_unroot)
{
	/* 11 held by FStreamable only, 12 by 11 only; 13 by another referencer;
	 * 14 rooted, holding 16; 15 Native (an internal flag: stays a root) */
	const char *body = "o 11 1 4 10 A 1 -\no 12 1 4 10 B 2 -\no 13 1 4 10 C 4 -\no 14 1 4 10 D 8 RootSet,RefCounted\n"
			   "o 15 1 4 10 E 16 Native\no 16 1 4 10 F 32 -\n"
			   "r 11 12 strong N\nr 14 16 strong N\n"
			   "g FStreamable 11\ng FOther 13\ng FStreamable 11 Again\ng FOther 14\n";
	heap h;
	gc_result b;
	whatif_result w;
	CHECK(load_heap(body, &h) == 0);
	whatif_change d = {WI_DROP_REFERENCER, OBJ_NONE, str(&h, "FStreamable"), 0};
	CHECK(whatif_count(&h, &d) == 2);
	heap_free(&h);
	CHECK(run(body, MODE_GAME, &d, 1, &h, &b, &w) == 0);
	CHECK_STR(list(w.lost, w.nlost), "11 12");
	CHECK(w.lost_bytes == 3 && w.gcrefs_removed == 2 && h.ngcrefs == 4);
	done(&h, &b, &w);
	/* unroot 14: RootSet and RefCounted go, and FOther's record into it */
	whatif_change u = change(WI_UNROOT, 14);
	CHECK(run(body, MODE_GAME, &u, 1, &h, &b, &w) == 0);
	CHECK_STR(list(w.lost, w.nlost), "14 16");
	CHECK(w.gcrefs_removed == 1 && (h.iflags[14] & IF_RootSet));
	done(&h, &b, &w);
	/* unroot a Native object: nothing changes, it is still a root */
	u = change(WI_UNROOT, 15);
	CHECK(run(body, MODE_GAME, &u, 1, &h, &b, &w) == 0);
	CHECK(w.nlost == 0);
	CHECK_STR(kind_of(&w.after, 15), "internal-keep");
	done(&h, &b, &w);
}

TEST(whatif_unroot_in_editor_mode_drops_keep_flags)
{
	const char *body = "o 11 1 4 10 Asset 5 RF_Standalone\no 12 1 4 10 Sub 7 -\nr 11 12 strong N\n";
	heap h;
	gc_result b;
	whatif_result w;
	whatif_change u = change(WI_UNROOT, 11);
	CHECK(run(body, MODE_EDITOR, &u, 1, &h, &b, &w) == 0);
	CHECK_STR(list(w.lost, w.nlost), "11 12");
	CHECK(!(w.gc_heap.oflags[11] & RF_Standalone) && (h.oflags[11] & RF_Standalone));
	done(&h, &b, &w);
	/* in game mode RF_Standalone keeps nothing: 11 was never alive */
	CHECK(run(body, MODE_GAME, &u, 1, &h, &b, &w) == 0);
	CHECK(w.nlost == 0 && !b.reachable[11]);
	done(&h, &b, &w);
}

TEST(whatif_reports_objects_made_reachable)
{
	/* cluster 20 is never reached and its rooted member 21 dies with it
	 * (rooted-member-destroyed); made garbage, 20's cluster dissolves in step
	 * 2 and 21 is an ordinary rooted object again */
	const char *body = "o 20 1 4 10 Root 3 -\no 21 1 4 10 Member 5 RootSet\nc 20 21 - -\n";
	heap h;
	gc_result b;
	whatif_result w;
	whatif_change g = change(WI_GARBAGE, 20);
	CHECK(run(body, MODE_GAME, &g, 1, &h, &b, &w) == 0);
	CHECK_STR(purged_list(&b), "20 21");
	CHECK(w.nlost == 0);
	CHECK_STR(list(w.gained, w.ngained), "21");
	CHECK(w.gained_bytes == 5);
	done(&h, &b, &w);
}

TEST(whatif_targets_are_what_the_changes_aim_at)
{
	heap h;
	CHECK(load_heap(chain_body, &h) == 0);
	whatif_change c[3] = {change(WI_CUT, 14), {WI_NULL_RECORD, 11, 0, 0}, change(WI_GARBAGE, 14)};
	obj_t *t;
	uint32_t n;
	CHECK(whatif_targets(&h, c, 3, &t, &n) == 0);
	CHECK_STR(list(t, n), "14 12"); /* the null aims at what 11's record 0 holds */
	free(t);
	heap_free(&h);
}

/* ---- the invariant against a naive definition ---- */

/* A random heap without clusters: classes and Outers inside the heap too. */
static char *random_text(int n, int editor)
{
	size_t cap = 1 << 18, len = 0;
	char *t = malloc(cap);
	len += (size_t)snprintf(t, cap, "ugc-text 1\nmode %s\nfirst-gc-index 5\n"
				"o 0 1 2 - /Script/CoreUObject 64 Native\no 1 2 2 0 Object 256 Native\n"
				"o 2 3 2 0 Class 512 Native\no 3 4 2 0 Package 256 Native\no 4 5 2 0 Actor 900 Native\n"
				"o 10 11 3 - /Game/Test 128 RootSet\n", editor ? "editor" : "game");
	static const char *flags[] = {"-", "-", "-", "-", "-", "RootSet", "Garbage", "RefCounted", "RF_Standalone",
				      "RF_Standalone,Garbage", "Native", "RootSet,Garbage"};
	for (int i = 11; i < 11 + n; i++) {
		/* a few classes of our own (their class is Class, 2) */
		int cls = i > 14 && test_rand_below(4) == 0 ? 11 + (int)test_rand_below(4) : i < 15 ? 2 : 4;
		int outer = i > 11 && test_rand_below(2) ? 11 + (int)test_rand_below((uint32_t)(i - 11)) : 10;
		len += (size_t)snprintf(t + len, cap - len, "o %d 1 %d %d O%d %u %s\n", i, cls, outer, i,
					1 + test_rand_below(1000), flags[test_rand_below(12)]);
	}
	static const char *kinds[] = {"strong", "strong", "strong", "aro", "immutable", "weak", "soft"};
	for (int k = 0; k < 2 * n; k++) {
		int src = test_rand_below(8) == 0 ? (int)test_rand_below(5) : 10 + (int)test_rand_below((uint32_t)n + 1);
		len += (size_t)snprintf(t + len, cap - len, "r %d %d %s P%d\n", src,
					test_rand_below(10) == 0 ? (int)test_rand_below(5) : 11 + (int)test_rand_below((uint32_t)n),
					kinds[test_rand_below(7)], k);
	}
	for (int k = 0; k < n / 6; k++)
		len += (size_t)snprintf(t + len, cap - len, "g G%d %d\n", k % 3, 11 + (int)test_rand_below((uint32_t)n));
	return t;
}

/* Plain reachability over the retention edges of ugc-gc(7) §3.2 (Class,
 * Outer, immutable, strong and aro to non-garbage; nothing out of the
 * disregard pool, which is alive anyway), written from that text.  CUT: no
 * edge leads into it and it loses RootSet, RefCounted and KeepFlags
 * (OBJ_NONE: none). */
static void naive_reach(const heap *h, uint32_t keep, obj_t cut, uint8_t *alive)
{
	obj_t *queue = malloc((h->slots + 1) * sizeof *queue);
	uint32_t head = 0, tail = 0;
	memset(alive, 0, h->slots);
	for (uint32_t i = 0; i < h->slots; i++) {
		if (h->cls[i] == OBJ_FREE)
			continue;
		int garbage = (h->iflags[i] & IF_Garbage) != 0;
		uint16_t rootflags = IF_RootSet | IF_RefCounted | IF_Native | IF_Async | IF_AsyncLoading | IF_LoaderImport;
		if ((obj_t)i == cut)
			rootflags &= (uint16_t)~(IF_RootSet | IF_RefCounted);
		if ((obj_t)i < h->first_gc_index)
			alive[i] = 1; /* alive, never traced */
		else if ((h->iflags[i] & rootflags) || ((h->oflags[i] & keep) && !garbage && (obj_t)i != cut)) {
			alive[i] = 1;
			queue[tail++] = (obj_t)i;
		}
	}
	for (uint32_t g = 0; g < h->ngcrefs; g++) {
		obj_t t = h->gcrefs[g].dst;
		if (t >= 0 && (uint32_t)t < h->slots && h->cls[t] != OBJ_FREE && !alive[t] && t != cut &&
		    !(h->iflags[t] & IF_Garbage)) {
			alive[t] = 1;
			queue[tail++] = t;
		}
	}
	while (head < tail) {
		obj_t x = queue[head++];
		for (uint32_t k = 0; k < 2 + h->ref_start[x + 1] - h->ref_start[x]; k++) {
			obj_t t = k == 0 ? h->cls[x] : k == 1 ? h->outer[x] : h->ref_dst[h->ref_start[x] + k - 2];
			int kind = k < 2 ? REF_IMMUTABLE : h->ref_kind[h->ref_start[x] + k - 2];
			if (t < 0 || t == cut || alive[t])
				continue;
			int keeps = kind == REF_IMMUTABLE ||
				    ((kind == REF_STRONG || kind == REF_ARO) && !(h->iflags[t] & IF_Garbage));
			if (keeps) {
				alive[t] = 1;
				queue[tail++] = t;
			}
		}
	}
	free(queue);
}

TEST(whatif_cut_frees_exactly_what_a_naive_removal_loses)
{
	int heaps = 0, cuts = 0, freed = 0;
	for (int round = 0; round < 40; round++) {
		int editor = round % 3 == 0;
		char *text = random_text(20 + (int)test_rand_below(60), editor);
		heap h;
		char err[256];
		if (parse_text(text, &h, err, sizeof err)) {
			printf("    %s\n", err);
			CHECK(0);
			free(text);
			continue;
		}
		free(text);
		heaps++;
		gc_options opt = {.mode = h.mode, .keep_flags = gc_default_keep_flags(h.mode), .threads = 1 + round % 2,
				  .parallel_min = 1};
		gc_result before;
		uint8_t *base = malloc(h.slots), *after = malloc(h.slots);
		CHECK(gc_run(&h, &opt, &before) == 0);
		naive_reach(&h, opt.keep_flags, OBJ_NONE, base);
		for (uint32_t i = 0; i < h.slots; i++)
			CHECK(h.cls[i] == OBJ_FREE || base[i] == before.reachable[i]);
		for (obj_t x = h.first_gc_index; (uint32_t)x < h.slots; x++) {
			if (h.cls[x] == OBJ_FREE)
				continue;
			whatif_change c = change(WI_CUT, x);
			whatif_result w;
			CHECK(whatif_run(&h, &before, &opt, &c, 1, &w) == 0);
			naive_reach(&h, opt.keep_flags, x, after);
			uint32_t n = 0, bad = 0;
			uint64_t bytes = 0;
			for (uint32_t i = 0; i < h.slots; i++)
				if (h.cls[i] != OBJ_FREE && base[i] && !after[i]) {
					bad += n >= w.nlost || w.lost[n] != (obj_t)i;
					n++;
					bytes += h.size[i];
				}
			CHECK(n == w.nlost && bad == 0 && bytes == w.lost_bytes && w.ngained == 0);
			if (n != w.nlost || bad)
				printf("    round %d, cut %d: naive loses %u, whatif %u\n", round, x, n, w.nlost);
			cuts++;
			freed += n > 0;
			whatif_free(&w);
		}
		free(base);
		free(after);
		gc_result_free(&before);
		heap_free(&h);
	}
	CHECK(heaps == 40 && cuts > 1000 && freed > cuts / 10); /* the heaps are not trivial */
}
